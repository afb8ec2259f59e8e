/* rtframe: one stream over several writers (see rtf-spread.h).
 *
 * Threads: the producer places, numbers and offers (rtf_spread_place(),
 * rtf_spread_offered()); each location's writer thread calls back through
 * the wrappers here, which keep that location's latency estimate and
 * state.  `lock` guards the locations' states and figures, and which
 * writer each location has: it is taken for a few assignments and to read
 * a writer's figures (rtf_writer_get_stats(), _get_latency(): the writer's
 * `lock` and its queue's inside it), never across I/O or any other call
 * into a writer, and inside a writer's callback lock (never the other way
 * round). */
#include "rtf-spread.h"
#include "rtf-clock.h"
#include "rtf-thread.h"

#include <errno.h>
#include <string.h>

/* What became of a location's writer */
typedef enum
{
  WRITER_IN_USE,                /* the spread's: joined and freed with it */
  WRITER_RETIRED,               /* stalled: it hands back what it holds and
                                 * ends on its own (rtf_writer_retire()) */
  WRITER_GIVEN_UP               /* still writing at stop: abandoned, it
                                 * frees itself (l->writer NULL) */
} SpreadWriterFate;

typedef struct
{
  RtfSpread *spread;
  guint index;
  gchar *location;
  RtfWriter *writer;            /* NULL once given up (under the lock:
                                 * figures are read from it under it) */
  RtfThread *thread;            /* started by the spread, or NULL */
  guint depth;
  SpreadWriterFate fate;        /* the owner's thread; with writer, under
                                 * the lock once given up */
  SpreadWriterFate given_up_from;       /* its fate before */
  RtfLocationState state_before;        /* and its state */
  RtfWriterStats final;         /* given up: its last figures */
  gpointer user;                /* the owner's, freed with the writer */
  GDestroyNotify user_free;
  /* under the spread's lock */
  RtfLocationState state;
  gint64 latency_ns;            /* estimate, submit -> done */
  gint64 progress_ns;           /* last completion, or start of work */
  guint64 placed, failed_over;
  guint64 given_up;             /* handed back in flight, placed again, and
                                 * not yet released here */
} SpreadLocation;

typedef enum
{
  SPREAD_RUNNING,
  SPREAD_ENDING                 /* shut down: nothing is failed over */
} SpreadPhase;

struct _RtfSpread
{
  /* the owner's, and one per writer given up at stop still running
   * (atomic): the last frees the spread */
  gint refs;
  GMutex lock;
  SpreadLocation *loc;
  guint n;
  RtfSpreadCallbacks cb;
  gpointer user_data;
  RtfPlacement placement;
  guint64 timeout;
  gint64 slack;                 /* placement: an eighth of the deadline */
  RtfRecordingId id;
  SpreadPhase phase;            /* lock */
  guint64 failed_over, replaced;        /* lock */
  /* the producer's */
  guint turn;
  guint64 next_seq;
  RtfPlaceCandidate *cand;
};

/* ---- a location's state ------------------------------------------------ */

/* Another location still takes frames (lock held) */
static gboolean
others_left (RtfSpread * s, guint index)
{
  guint i;

  for (i = 0; i < s->n; i++)
    if (i != index && s->loc[i].state == RTF_LOCATION_ACTIVE)
      return TRUE;
  return FALSE;
}

/* Marks l failed; TRUE when it was in the set before (lock held) */
static gboolean
mark_failed (SpreadLocation * l)
{
  gboolean was = l->state != RTF_LOCATION_FAILED;

  l->state = RTF_LOCATION_FAILED;
  return was;
}

/* ---- the writers' callbacks, per location ------------------------------ */

#define OWNER_CB(l, name, ...) \
  G_STMT_START { \
    if ((l)->spread->cb.writer.name) \
      (l)->spread->cb.writer.name (__VA_ARGS__, (l)->spread->user_data); \
  } G_STMT_END

static void
note_written (SpreadLocation * l, const RtfFrame * f)
{
  RtfSpread *s = l->spread;

  g_mutex_lock (&s->lock);
  if (f->submit_ns > 0 && f->complete_ns >= f->submit_ns)
    l->latency_ns = rtf_place_latency_update (l->latency_ns,
        f->complete_ns - f->submit_ns);
  l->progress_ns = rtf_clock_now_ns ();
  g_mutex_unlock (&s->lock);
}

/* A frame not written at a location that failed or stalled goes to the
 * owner to be placed again, while another location is left */
static gboolean
fail_over (SpreadLocation * l, RtfFrame * f)
{
  RtfSpread *s = l->spread;
  gboolean over;

  g_mutex_lock (&s->lock);
  if (l->state == RTF_LOCATION_ACTIVE)
    mark_failed (l);
  over = s->phase == SPREAD_RUNNING && s->cb.frame_failed_over
      && others_left (s, l->index);
  if (over) {
    l->failed_over++;
    s->failed_over++;
  }
  g_mutex_unlock (&s->lock);
  if (over)
    s->cb.frame_failed_over (f, s->user_data);
  return over;
}

/* A frame leaves a location's writer: written, or lost there and placed
 * again (unless handed back in flight before); the owner releases it */
static void
loc_frame_done (RtfFrame * f, gpointer data)
{
  SpreadLocation *l = data;

  if (f->state == RTF_FRAME_WRITTEN)
    note_written (l, f);
  else if (f->state == RTF_FRAME_FAILED && !f->given_up)
    fail_over (l, f);
  if (f->given_up) {
    g_mutex_lock (&l->spread->lock);
    l->given_up--;
    g_mutex_unlock (&l->spread->lock);
  }
  OWNER_CB (l, frame_done, f);
}

/* A stalled location's writer hands back a frame whose writes are in
 * flight: placed again now, released when those writes end (frame_done) */
static gboolean
loc_frame_given_up (RtfFrame * f, gpointer data)
{
  SpreadLocation *l = data;

  if (!fail_over (l, f))
    return FALSE;
  g_mutex_lock (&l->spread->lock);
  l->given_up++;
  g_mutex_unlock (&l->spread->lock);
  return TRUE;
}

static void
loc_failed (const RtfFailure * failure, gpointer data)
{
  SpreadLocation *l = data;
  RtfSpread *s = l->spread;
  gboolean left;

  g_mutex_lock (&s->lock);
  mark_failed (l);
  left = others_left (s, l->index) && s->cb.location_left;
  g_mutex_unlock (&s->lock);
  if (left)
    s->cb.location_left (l->index, l->location, RTF_LOCATION_FAILED, failure,
        s->user_data);
  else
    OWNER_CB (l, failed, failure);
}

static void
loc_frame_dropped (const RtfFrameReport * r, gboolean before, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, frame_dropped, r, before);
}

static void
loc_log (RtfLogLevel level, const gchar * message, gpointer data)
{
  SpreadLocation *l = data;

  if (l->spread->cb.writer.log) {
    gchar *m = g_strdup_printf ("[%s] %s", l->location, message);

    l->spread->cb.writer.log (level, m, l->spread->user_data);
    g_free (m);
  }
}

static void
loc_missed (const RtfFrameReport * r, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, deadline_missed, r);
}

static void
loc_late (const RtfFrameReport * r, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, late_completion, r);
}

static void
loc_file_opened (const RtfFileInfo * info, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, file_opened, info);
}

static void
loc_file_closed (const RtfFileInfo * info, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, file_closed, info);
}

static void
loc_unpinned (RtfFrame * f, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, frame_unpinned, f);
}

static void
loc_upstream_gap (const RtfFrameReport * r, const RtfFrameOrigin * o,
    gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, upstream_gap, r, o);
}

static void
loc_file_deleted (const RtfFileDeleted * info, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, file_deleted, info);
}

static void
loc_disk_space (const RtfSpaceReport * r, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, disk_space, r);
}

/* event recording is not spread (the element refuses record=false with
 * locations): no recording callbacks */
static const RtfWriterCallbacks loc_callbacks = {
  .frame_done = loc_frame_done,
  .frame_dropped = loc_frame_dropped,
  .failed = loc_failed,
  .log = loc_log,
  .deadline_missed = loc_missed,
  .late_completion = loc_late,
  .file_opened = loc_file_opened,
  .file_closed = loc_file_closed,
  .frame_unpinned = loc_unpinned,
  .upstream_gap = loc_upstream_gap,
  .file_deleted = loc_file_deleted,
  .disk_space = loc_disk_space,
  .frame_given_up = loc_frame_given_up,
};

/* ---- life cycle -------------------------------------------------------- */

RtfSpread *
rtf_spread_new (const RtfWriterConfig * base, const RtfSpreadConfig * config,
    const RtfSpreadCallbacks * callbacks, gpointer user_data, guint * failed,
    gint * err, RtfFailStep * step)
{
  RtfSpread *s = g_new0 (RtfSpread, 1);
  RtfWriterConfig wc = *base;
  guint i;

  s->refs = 1;
  g_mutex_init (&s->lock);
  s->n = config->n_locations;
  s->loc = g_new0 (SpreadLocation, s->n);
  s->cand = g_new0 (RtfPlaceCandidate, s->n);
  s->cb = *callbacks;
  s->user_data = user_data;
  s->placement = config->placement;
  /* (compared as gint64 with the clock) */
  s->timeout = MIN (config->location_timeout, (guint64) G_MAXINT64);
  s->slack = (gint64) MIN (config->deadline / 8, (guint64) G_MAXINT64);
  s->id = base->recording_id;
  if (rtf_recording_id_is_zero (&s->id))
    rtf_recording_id_new (&s->id);
  wc.recording_id = s->id;
  for (i = 0; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];

    l->spread = s;
    l->index = i;
    l->location = g_strdup (config->locations[i]);
    l->depth = MAX (1, MIN (base->io_depth, base->max_frames));
    wc.location = l->location;
    l->writer = rtf_writer_new (&wc, &loc_callbacks, l, err, step);
    if (l->writer == NULL)
      goto open_failed;
  }
  return s;

  /* ERRORS */
open_failed:
  {
    *failed = i;
    rtf_spread_free (s);
    return NULL;
  }
}

static void
location_free_user (SpreadLocation * l)
{
  if (l->user_free && l->user)
    l->user_free (l->user);
  l->user = NULL;
}

static void
spread_unref (RtfSpread * s)
{
  guint i;

  if (!g_atomic_int_dec_and_test (&s->refs))
    return;
  for (i = 0; i < s->n; i++)
    g_free (s->loc[i].location);
  g_free (s->loc);
  g_free (s->cand);
  g_mutex_clear (&s->lock);
  g_free (s);
}

void
rtf_spread_free (RtfSpread * s)
{
  guint i;

  if (s == NULL)
    return;
  for (i = 0; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];

    if (l->fate == WRITER_GIVEN_UP)
      continue;                 /* its thread frees it, and unrefs */
    g_clear_pointer (&l->thread, rtf_thread_join);
    if (l->writer)
      rtf_writer_free (l->writer);
    l->writer = NULL;
    location_free_user (l);
  }
  spread_unref (s);
}

void
rtf_spread_set_location_user (RtfSpread * s, guint index, gpointer user,
    GDestroyNotify user_free)
{
  g_return_if_fail (index < s->n);
  s->loc[index].user = user;
  s->loc[index].user_free = user_free;
}

guint
rtf_spread_n_locations (RtfSpread * s)
{
  return s->n;
}

RtfWriter *
rtf_spread_writer (RtfSpread * s, guint index)
{
  g_return_val_if_fail (index < s->n, NULL);
  return s->loc[index].writer;
}

const gchar *
rtf_spread_location (RtfSpread * s, guint index)
{
  g_return_val_if_fail (index < s->n, NULL);
  return s->loc[index].location;
}

RtfLocationState
rtf_spread_location_state (RtfSpread * s, guint index)
{
  RtfLocationState state;

  g_mutex_lock (&s->lock);
  state = s->loc[index].state;
  g_mutex_unlock (&s->lock);
  return state;
}

const RtfRecordingId *
rtf_spread_recording_id (RtfSpread * s)
{
  return &s->id;
}

static gpointer
writer_thread (gpointer data)
{
  rtf_writer_run (data);
  return NULL;
}

gboolean
rtf_spread_start (RtfSpread * s, guint first, const RtfThreadStarter * starter)
{
  guint i;

  for (i = first; i < s->n; i++)
    s->loc[i].thread = rtf_thread_start (starter, "writer", writer_thread,
        s->loc[i].writer);
  return TRUE;
}

gint
rtf_spread_wait_started (RtfSpread * s)
{
  guint i;

  for (i = 0; i < s->n; i++) {
    gint err = rtf_writer_wait_started (s->loc[i].writer);

    if (err != 0)
      return err;
  }
  return 0;
}

void
rtf_spread_shutdown (RtfSpread * s)
{
  guint i;

  g_mutex_lock (&s->lock);
  s->phase = SPREAD_ENDING;
  g_mutex_unlock (&s->lock);
  for (i = 0; i < s->n; i++)
    if (s->loc[i].writer)
      rtf_writer_shutdown (s->loc[i].writer);
}

/* ---- giving a writer up ------------------------------------------------ */

/* Before rtf_writer_abandon(): the spread lets the writer go (the figures
 * stay as they are now, then its final ones), and holds a reference for
 * its callbacks, which go on until it frees itself */
static RtfWriter *
let_go (RtfSpread * s, SpreadLocation * l)
{
  RtfWriter *w = l->writer;

  g_atomic_int_inc (&s->refs);
  g_mutex_lock (&s->lock);
  rtf_writer_get_stats (w, &l->final);
  l->writer = NULL;
  l->given_up_from = l->fate;
  l->state_before = l->state;
  l->fate = WRITER_GIVEN_UP;
  l->state = RTF_LOCATION_FAILED;
  g_mutex_unlock (&s->lock);
  return w;
}

/* After it: final, or NULL when the writer had finished (the spread's
 * again); the frames lost there, not written elsewhere (a stalled
 * location's were placed again) */
static guint64
given_up (RtfSpread * s, SpreadLocation * l, RtfWriter * w,
    const RtfWriterStats * final)
{
  guint64 lost = 0;

  g_mutex_lock (&s->lock);
  if (final) {
    l->final = *final;
    lost = final->frames_lost - MIN (final->frames_lost, l->failed_over);
  } else {
    l->writer = w;
    l->fate = l->given_up_from;
    l->state = l->state_before;
  }
  g_mutex_unlock (&s->lock);
  if (!final)
    spread_unref (s);
  return lost;
}

RtfWriter *
rtf_spread_let_go (RtfSpread * s, guint index)
{
  return let_go (s, &s->loc[index]);
}

guint64
rtf_spread_given_up (RtfSpread * s, guint index, RtfWriter * writer,
    const RtfWriterStats * final)
{
  return given_up (s, &s->loc[index], writer, final);
}

void
rtf_spread_unref (RtfSpread * s)
{
  spread_unref (s);
}

/* ---- stop: a bounded wait ----------------------------------------------- */

/* A writer given up at stop has ended (its thread, as it frees the
 * writer): the thread goes without a join, the owner's data and the
 * spread's reference with it */
static void
loc_writer_gone (gpointer data)
{
  SpreadLocation *l = data;
  RtfSpread *s = l->spread;

  if (l->thread)
    rtf_thread_release (g_steal_pointer (&l->thread));
  location_free_user (l);
  if (s->cb.location_released)
    s->cb.location_released (l->index, s->user_data);
  spread_unref (s);
}

guint
rtf_spread_finish (RtfSpread * s, guint first, gint64 end_us, guint64 * lost)
{
  guint i, n = 0;

  *lost = 0;
  for (i = first; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];
    gint64 left_us = end_us < 0 ? -1 : MAX (0, end_us -
        g_get_monotonic_time ());

    RtfWriterStats final;
    RtfWriter *w;

    if (l->writer == NULL || l->fate == WRITER_GIVEN_UP)
      continue;
    if (rtf_writer_wait_finished (l->writer, left_us < 0 ? -1 : left_us * 1000))
      continue;
    w = let_go (s, l);
    if (!rtf_writer_abandon (w, loc_writer_gone, l, &final, NULL)) {
      given_up (s, l, w, NULL); /* it finished just now */
      continue;
    }
    *lost += given_up (s, l, w, &final);
    n++;
  }
  return n;
}

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
  if (!others_left (s, l->index))
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

static gint
place_numbered (RtfSpread * s, guint64 seq)
{
  gint64 now = rtf_clock_now_ns ();
  guint64 stalled = 0;
  RtfQueueLevel level;
  gint chosen;
  guint i;

  for (i = 0; i < s->n; i++) {
    level.held = 0;
    if (s->loc[i].writer)
      rtf_queue_get_level (rtf_writer_get_queue (s->loc[i].writer), &level);
    s->cand[i].held = level.held;
  }
  g_mutex_lock (&s->lock);
  for (i = 0; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];

    if (check_stalled (s, l, s->cand[i].held, now))
      stalled |= G_GUINT64_CONSTANT (1) << MIN (i, 63);
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

  for (i = 0; stalled && i < s->n; i++)
    if (stalled & (G_GUINT64_CONSTANT (1) << MIN (i, 63)))
      retire (s, i);
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
      if (!again)
        s->next_seq++;
      break;
    case RTF_OFFER_CLOSED:
      /* its writer failed (and says so): the frame goes elsewhere */
      g_mutex_lock (&s->lock);
      mark_failed (&s->loc[index]);
      g_mutex_unlock (&s->lock);
      break;
    case RTF_OFFER_FLUSHING:
      break;
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
  reported = !mark_failed (&s->loc[i]);
  left = others_left (s, i);
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
  /* what a location retired meanwhile handed back is with the owner when
   * this returns: it places those frames and syncs again */
  wait_given_back (s);
  return synced ? 0 : ENODEV;
}

/* ---- figures ----------------------------------------------------------- */

static gboolean
is_high_mark (const RtfStatField * f)
{
  return f->name && (strstr (f->name, "max") || strstr (f->name, "high"));
}

/* Adds one location's figure to the stream's: counts add up, high-water
 * marks and longest times are the largest, the rest are the first
 * location's */
static void
add_field (const RtfStatField * f, RtfWriterStats * sum,
    const RtfWriterStats * one)
{
  guint8 *d = (guint8 *) sum + f->offset;
  const guint8 *o = (const guint8 *) one + f->offset;

  switch (f->kind) {
    case RTF_STAT_U64:{
      guint64 *a = (guint64 *) d, b = *(const guint64 *) o;

      if (f->offset == G_STRUCT_OFFSET (RtfWriterStats, free_space)
          || f->offset == G_STRUCT_OFFSET (RtfWriterStats, min_free_space)
          || f->offset == G_STRUCT_OFFSET (RtfWriterStats, time_left)
          || f->offset == G_STRUCT_OFFSET (RtfWriterStats, file_number))
        break;
      *a = is_high_mark (f) ? MAX (*a, b) : *a + b;
      break;
    }
    case RTF_STAT_UINT:
    case RTF_STAT_COUNT:
    case RTF_STAT_INTERNAL_UINT:{
      guint *a = (guint *) d, b = *(const guint *) o;

      *a = is_high_mark (f) ? MAX (*a, b) : *a + b;
      break;
    }
    case RTF_STAT_NS:{
      gint64 *a = (gint64 *) d, b = *(const gint64 *) o;

      *a = is_high_mark (f) ? MAX (*a, b) : *a + b;
      break;
    }
    case RTF_STAT_INTERNAL_U64:
      *(guint64 *) d += *(const guint64 *) o;
      break;
    case RTF_STAT_SIZE:
      /* alignment: what suits every location */
      *(gsize *) d = MAX (*(gsize *) d, *(const gsize *) o);
      break;
    default:
      break;
  }
}

void
rtf_spread_get_stats (RtfSpread * s, RtfWriterStats * st,
    RtfWriterLatency * latency)
{
  const RtfStatField *fields;
  RtfWriterStats *one = g_new0 (RtfWriterStats, s->n);
  RtfWriterLatency *lat = latency ? g_new0 (RtfWriterLatency, s->n) : NULL;
  guint n_fields, i, k;
  guint64 replaced, given_up = 0;

  /* copied under the lock (a writer given up may free itself as soon as
   * the spread lets it go, let_go(), under this lock), added up after */
  g_mutex_lock (&s->lock);
  for (i = 0; i < s->n; i++) {
    if (s->loc[i].writer == NULL) {
      one[i] = s->loc[i].final;
      continue;
    }
    rtf_writer_get_stats (s->loc[i].writer, &one[i]);
    if (lat)
      rtf_writer_get_latency (s->loc[i].writer, &lat[i]);
    given_up += s->loc[i].given_up;
  }
  replaced = s->replaced;
  g_mutex_unlock (&s->lock);

  fields = rtf_writer_stats_fields (&n_fields);
  *st = one[0];
  for (i = 1; i < s->n; i++) {
    for (k = 0; k < n_fields; k++)
      add_field (&fields[k], st, &one[i]);
    if (st->error == 0)
      st->error = one[i].error;
  }
  if (latency) {
    memset (latency, 0, sizeof (*latency));
    for (i = 0; i < s->n; i++) {
      rtf_histogram_merge (&latency->arrival_to_done, &lat[i].arrival_to_done);
      rtf_histogram_merge (&latency->submit_to_done, &lat[i].submit_to_done);
    }
  }
  g_free (one);
  g_free (lat);
  /* a frame handed back by a stalled location is lost there (its writes
   * end in their own time) and written elsewhere, like one failed over */
  given_up = MIN (given_up, st->frames_in_flight);
  st->frames_in_flight -= given_up;
  st->frames_held -= MIN (st->frames_held, given_up);
  st->frames_lost += given_up;
  /* a frame failed over and placed again was received twice and lost
   * once: the stream received it once and wrote it */
  st->frames_received -= MIN (st->frames_received, replaced);
  st->frames_lost -= MIN (st->frames_lost, replaced);
}

void
rtf_spread_get_location (RtfSpread * s, guint index,
    RtfSpreadLocationInfo * info, RtfWriterStats * st,
    RtfWriterLatency * latency)
{
  SpreadLocation *l = &s->loc[index];

  if (st)
    memset (st, 0, sizeof (*st));
  if (latency)
    memset (latency, 0, sizeof (*latency));
  g_mutex_lock (&s->lock);
  info->state = l->state;
  info->frames_placed = l->placed;
  info->frames_failed_over = l->failed_over;
  info->latency_estimate_ns = l->latency_ns;
  if (st && l->writer)
    rtf_writer_get_stats (l->writer, st);
  else if (st)
    *st = l->final;
  if (latency && l->writer)
    rtf_writer_get_latency (l->writer, latency);
  g_mutex_unlock (&s->lock);
}

guint64
rtf_spread_frames_failed_over (RtfSpread * s)
{
  guint64 n;

  g_mutex_lock (&s->lock);
  n = s->failed_over;
  g_mutex_unlock (&s->lock);
  return n;
}
