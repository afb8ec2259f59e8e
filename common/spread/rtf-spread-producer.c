/* rtframe: the producer's side of a spread (see rtf-spread.h): placing
 * each frame (rtf-spread-place.c decides), seeing a location stall - at
 * placement and while EOS waits for it - and retiring it, and syncing
 * every location at EOS. */
#include "rtf-spread-private.h"
#include "rtf-clock.h"

#include <errno.h>

/* ---- placing frames (the producer) ------------------------------------- */

/* A location whose oldest frame waits longer than location-timeout leaves
 * the set, while another takes frames (lock held); TRUE when it left */
static gboolean
check_stalled (RtfSpread * s, SpreadLocation * l, guint held, gint64 now)
{
  if (s->timeout == 0 || l->state != RTF_LOCATION_ACTIVE || held == 0)
    return FALSE;
  if (now - l->progress_ns <= (gint64) s->timeout)
    return FALSE;
  if (!rtf_spread_others_left (s, l->index))
    return FALSE;
  l->state = RTF_LOCATION_STALLED;
  return TRUE;
}

/* What a frame takes there now: the estimate, or longer when nothing has
 * completed there for longer than that (a disk that stalls is seen as it
 * stalls, not at its next completion) (lock held) */
static gint64
current_latency (const SpreadLocation * l, guint held, gint64 now)
{
  if (held == 0)
    return l->latency_ns;
  return MAX (l->latency_ns, now - l->progress_ns);
}

/* A location stayed over location-timeout: it is told, and its writer
 * retired - the frames it holds, queued or in flight, are placed again
 * elsewhere (fail_over()), the file keeps the frames written before */
static void
retire (RtfSpread * s, guint index)
{
  SpreadLocation *l = &s->loc[index];

  if (!rtf_writer_retire (l->writer)) {
    /* it failed meanwhile (its failure takes it out, and says so) or has
     * not started: as it was */
    g_mutex_lock (&s->lock);
    if (l->state == RTF_LOCATION_STALLED)
      l->state = RTF_LOCATION_ACTIVE;
    g_mutex_unlock (&s->lock);
    return;
  }
  l->fate = WRITER_RETIRED;
  if (s->cb.location_left)
    s->cb.location_left (index, l->location, RTF_LOCATION_STALLED, NULL,
        s->user_data);
}

/* Render waits for room at location l (leaky=no, its queue full): a
 * stall there is seen while it waits, not only at the next placement
 * (the adversarial review: a disk stalled for 5 s held the whole stream
 * for 4.8 s with location-timeout 300 ms).  Retiring closes l's queue,
 * which ends the wait (CLOSED): the frame is placed elsewhere. */
static void
watch_wait (gpointer data)
{
  SpreadLocation *l = data;
  RtfSpread *s = l->spread;
  RtfQueueLevel level;
  gboolean stalled;

  if (l->writer == NULL || l->fate != WRITER_IN_USE)
    return;
  rtf_queue_get_level (rtf_writer_get_queue (l->writer), &level);
  g_mutex_lock (&s->lock);
  stalled = check_stalled (s, l, level.held, rtf_clock_now_ns ());
  g_mutex_unlock (&s->lock);
  if (stalled)
    retire (s, l->index);
}

/* (from the first placement: the producer's own waits, on its thread) */
static void
watch_waits (RtfSpread * s)
{
  gint64 slice_us = (gint64) MIN (s->timeout / 2000, 100 * 1000);
  guint i;

  if (s->timeout == 0)
    return;
  for (i = 0; i < s->n; i++)
    if (s->loc[i].writer)
      rtf_queue_set_wait_hook (rtf_writer_get_queue (s->loc[i].writer),
          slice_us, watch_wait, &s->loc[i]);
}

/* Each location's frames held now, into its candidate */
static void
read_levels (RtfSpread * s)
{
  RtfQueueLevel level;
  guint i;

  for (i = 0; i < s->n; i++) {
    level.held = 0;
    if (s->loc[i].writer)
      rtf_queue_get_level (rtf_writer_get_queue (s->loc[i].writer), &level);
    s->cand[i].held = level.held;
  }
}

/* The locations that stalled past location-timeout, marked so, as a mask
 * (lock held): retire_stalled() once the lock is let go */
static guint64
find_stalled (RtfSpread * s, gint64 now)
{
  guint64 stalled = 0;
  guint i;

  for (i = 0; i < s->n; i++)
    if (check_stalled (s, &s->loc[i], s->cand[i].held, now))
      stalled |= G_GUINT64_CONSTANT (1) << MIN (i, 63);
  return stalled;
}

static void
retire_stalled (RtfSpread * s, guint64 stalled)
{
  guint i;

  for (i = 0; stalled && i < s->n; i++)
    if (stalled & (G_GUINT64_CONSTANT (1) << MIN (i, 63)))
      retire (s, i);
}

static gint
place_numbered (RtfSpread * s, guint64 seq)
{
  gint64 now = rtf_clock_now_ns ();
  guint64 stalled;
  gint chosen;
  guint i;

  if (!s->watching) {
    watch_waits (s);
    s->watching = TRUE;
  }
  read_levels (s);
  g_mutex_lock (&s->lock);
  stalled = find_stalled (s, now);
  for (i = 0; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];

    s->cand[i].state = l->state;
    s->cand[i].depth = l->depth;
    s->cand[i].latency_ns = current_latency (l, s->cand[i].held, now);
  }
  chosen = rtf_place_choose (s->placement, s->cand, s->n, &s->turn, s->slack);
  if (chosen >= 0) {
    if (s->cand[chosen].held == 0)
      s->loc[chosen].progress_ns = now;
    s->loc[chosen].placed++;
  }
  g_mutex_unlock (&s->lock);
  retire_stalled (s, stalled);
  if (chosen >= 0)
    rtf_writer_number_next (s->loc[chosen].writer, seq);
  return chosen;
}

gint
rtf_spread_place (RtfSpread * s, gsize size)
{
  return place_numbered (s, s->next_seq);
}

gint
rtf_spread_place_again (RtfSpread * s, gsize size, guint64 seq)
{
  return place_numbered (s, seq);
}

void
rtf_spread_offered (RtfSpread * s, gint index, gboolean again, RtfOffer offer)
{
  switch (offer) {
    case RTF_OFFER_TAKEN:
      if (again) {
        g_mutex_lock (&s->lock);
        s->replaced++;
        g_mutex_unlock (&s->lock);
        break;
      }
      /* fall through */
    case RTF_OFFER_DROPPED:
    case RTF_OFFER_FLUSHING_DROPPED:
      if (!again)
        s->next_seq++;
      break;
    case RTF_OFFER_CLOSED:
      /* its writer failed (and says so), or the location was retired
       * while the frame waited there: the frame goes elsewhere */
      g_mutex_lock (&s->lock);
      if (s->loc[index].state == RTF_LOCATION_ACTIVE)
        rtf_spread_mark_failed (&s->loc[index]);
      g_mutex_unlock (&s->lock);
      break;
    case RTF_OFFER_FLUSHING:
      break;
  }
}

void
rtf_spread_watch (RtfSpread * s)
{
  guint64 stalled;

  if (s->timeout == 0)
    return;
  read_levels (s);
  g_mutex_lock (&s->lock);
  stalled = find_stalled (s, rtf_clock_now_ns ());
  g_mutex_unlock (&s->lock);
  retire_stalled (s, stalled);
}

guint64
rtf_spread_last_taken (RtfSpread * s)
{
  return s->next_seq - 1;
}

/* ---- event recording (the producer) ------------------------------------ */

guint64
rtf_spread_hold (RtfSpread * s, gsize size, const RtfFrameOrigin * origin)
{
  RtfWriter *holder = s->loc[0].writer;

  rtf_writer_number_next (holder, s->next_seq++);
  return rtf_writer_hold (holder, size, origin);
}

RtfOffer
rtf_spread_offer_backlog (RtfSpread * s, gsize size, guint64 seq,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame, gint * index)
{
  RtfWriter *holder = s->loc[0].writer;

  for (;;) {
    gint i = place_numbered (s, seq);
    RtfWriter *w;
    RtfOffer res;

    if (i < 0)
      return RTF_OFFER_CLOSED;  /* (held at the first location still) */
    w = s->loc[i].writer;
    rtf_writer_move_held (holder, w, size);
    res = rtf_writer_offer_backlog (w, size, seq, times, origin, frame);
    if (res != RTF_OFFER_CLOSED) {
      *index = i;
      return res;
    }
    /* its writer failed: the frame goes to another */
    rtf_writer_move_held (w, holder, size);
    rtf_spread_offered (s, i, TRUE, res);
  }
}

void
rtf_spread_set_flushing (RtfSpread * s, gboolean flushing)
{
  guint i;

  for (i = 0; i < s->n; i++)
    if (s->loc[i].writer)
      rtf_writer_set_flushing (s->loc[i].writer, flushing);
}

/* A location's file could not be finished (its frames are written): it
 * leaves the set like one whose writes failed, while another is left;
 * FALSE when it is the last */
static gboolean
leave_at_sync (RtfSpread * s, guint i, gint err)
{
  RtfFailure failure = { 0 };
  gboolean reported, left;

  g_mutex_lock (&s->lock);
  reported = !rtf_spread_mark_failed (&s->loc[i]);
  left = rtf_spread_others_left (s, i);
  g_mutex_unlock (&s->lock);
  if (!left)
    return FALSE;
  if (!reported && s->cb.location_left) {
    failure.step = RTF_FAIL_SYNC;
    failure.err = err;
    failure.path = s->loc[i].location;
    failure.detail = "finishing the file (ftruncate, fdatasync) failed";
    s->cb.location_left (i, s->loc[i].location, RTF_LOCATION_FAILED,
        &failure, s->user_data);
  }
  return TRUE;
}

/* The frames a retired location handed back are with the owner */
static void
wait_given_back (RtfSpread * s)
{
  guint i;

  for (i = 0; i < s->n; i++)
    if (s->loc[i].fate == WRITER_RETIRED)
      rtf_writer_wait_given_back (s->loc[i].writer);
}

/* Whether location index stays over location-timeout while EOS waits for
 * it (then it is retired, like at placement) */
static gboolean
stalls_at_sync (RtfSpread * s, guint index)
{
  SpreadLocation *l = &s->loc[index];
  RtfQueueLevel level;
  gboolean stalled;

  rtf_queue_get_level (rtf_writer_get_queue (l->writer), &level);
  g_mutex_lock (&s->lock);
  stalled = check_stalled (s, l, level.held, rtf_clock_now_ns ());
  g_mutex_unlock (&s->lock);
  if (stalled)
    retire (s, index);
  return stalled && l->fate == WRITER_RETIRED;
}

/* Location index written and synced: 0, -1 flushing, an errno, or
 * RTF_WRITER_SYNC_WAITING when it stalled meanwhile and was retired (its
 * frames go to the owner to be placed again).  With location-timeout the
 * wait is in slices, to see a stall while it waits. */
static gint
sync_one (RtfSpread * s, guint index)
{
  RtfWriter *w = s->loc[index].writer;
  gint64 slice_us = (gint64) MIN (s->timeout / 2000, 100 * 1000);

  if (s->timeout == 0)
    return rtf_writer_sync (w);
  for (;;) {
    gint r = rtf_writer_sync_until (w, g_get_monotonic_time () +
        MAX (slice_us, 1000));

    if (r != RTF_WRITER_SYNC_WAITING)
      return r;
    if (stalls_at_sync (s, index))
      return RTF_WRITER_SYNC_WAITING;
  }
}

/* Every location that failed (not retired, not given up) has handed back
 * what it held: its frames not written are with the owner (failed over)
 * when this returns 0; -1 when a flush ended the wait.  Unbounded: a
 * failed disk's writes in flight end in their own time (stop is bounded
 * by stop-timeout). */
static gint
drain_failed (RtfSpread * s)
{
  guint i;

  for (i = 0; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];

    if (l->fate != WRITER_IN_USE || l->writer == NULL
        || rtf_spread_location_state (s, i) != RTF_LOCATION_FAILED)
      continue;
    if (rtf_queue_wait_released_until (rtf_writer_get_queue (l->writer),
            -1) == RTF_QUEUE_FLUSHING)
      return -1;
  }
  return 0;
}

gint
rtf_spread_sync (RtfSpread * s)
{
  guint i, synced = 0;

  wait_given_back (s);
  for (i = 0; i < s->n; i++) {
    gint r;

    if (rtf_spread_location_state (s, i) != RTF_LOCATION_ACTIVE)
      continue;
    r = sync_one (s, i);
    if (r == -1)
      return -1;
    if (r == 0)
      synced++;
    else if (r != RTF_WRITER_SYNC_WAITING && !leave_at_sync (s, i, r))
      return r;
  }
  /* what a location retired or failed meanwhile handed back is with the
   * owner when this returns: it places those frames and syncs again */
  wait_given_back (s);
  if (drain_failed (s) < 0)
    return -1;
  return synced ? 0 : ENODEV;
}
