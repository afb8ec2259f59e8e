/* rtframe: the producer's side of the writer - a frame offered is taken
 * when there is room, or the producer waits for room, or (leaky) a frame
 * is dropped; every drop is counted, numbered and reported here, so the
 * element only fills the frame it is given.  An event recorder's frames
 * held before a recording are numbered here too, and handed over as a
 * backlog at its start, or discarded.
 *
 * Everything here runs on the producer's thread (the element's streaming
 * thread), one at a time. */
#include "rtf-writer-private.h"
#include "rtf-clock.h"

/* A frame leaves without being written: a report of it (its deadline is
 * missed with it, unless that was reported already) and the count. */
static void
report_drop (RtfWriter * w, const RtfFrame * f)
{
  RtfFrameReport m;
  RtfQueueLevel level;
  gboolean reported = f->miss_reported;

  rtf_queue_get_level (w->queue, &level);
  rtf_frame_report_init (&m, f, rtf_clock_now_ns (), RTF_FRAME_DROPPED,
      level.queued, level.queued_bytes, level.held);
  if (!reported) {
    g_mutex_lock (&w->lock);
    w->stats.frames_missed++;
    g_mutex_unlock (&w->lock);
  }
  rtf_writer_log (w, RTF_LOG_DEBUG, "dropped frame %" G_GUINT64_FORMAT, m.seq);
  RTF_WRITER_CALLBACK (w, frame_dropped, &m, reported);
}

/* A frame with an upstream gap before it is not written: the next frame
 * taken carries the gap into the index.  The carry holds gaps of frames
 * offered since the last one taken: a queued frame is older than those
 * (older_than_carry), a frame offered newer. */
static void
carry_gap (RtfWriter * w, const RtfFrameOrigin * origin,
    gboolean older_than_carry)
{
  RtfUpstreamGap gap = origin->gap;

  if (!older_than_carry) {
    rtf_upstream_gap_merge (&w->gap_carry, &gap);
    return;
  }
  rtf_upstream_gap_merge (&gap, &w->gap_carry);
  w->gap_carry = gap;
}

/* leaky=downstream: the oldest queued frame goes, FALSE when none is
 * queued (all are being written) */
static gboolean
drop_oldest (RtfWriter * w)
{
  RtfFrame *old = rtf_queue_drop_oldest (w->queue);

  if (old == NULL)
    return FALSE;
  /* (the queue gave its gap to the next queued frame, if there is one) */
  carry_gap (w, &old->origin, TRUE);
  RTF_WRITER_CALLBACK (w, frame_done, old);
  rtf_queue_release (w->queue, old);
  /* counted dropped now (a QoS message's figures include it); the frame
   * is as it was: only this thread reuses a cell */
  report_drop (w, old);
  return TRUE;
}

/* The frame offered goes: it takes its number and counts as received and
 * dropped */
static void
drop_offered (RtfWriter * w, RtfFrame * offered)
{
  offered->seq = rtf_queue_count_dropped_incoming (w->queue, NULL);
  carry_gap (w, &offered->origin, FALSE);
  report_drop (w, offered);
}

/* The producer waited for room and was then refused by a flush.  A frame
 * whose miss was reported while it waited already
 * has its number: it is counted as received and dropped under it, so the
 * numbers of the frames after it stay right. */
static void
drop_refused (RtfWriter * w, RtfFrame * offered)
{
  if (offered->miss_reported)
    drop_offered (w, offered);
  else
    carry_gap (w, &offered->origin, FALSE);
}

/* render waited for room, and got it */
static void
count_wait (RtfWriter * w, gint64 waited)
{
  if (waited <= 0)
    return;
  g_mutex_lock (&w->lock);
  w->stats.wait_total_ns += waited;
  w->stats.wait_max_ns = MAX (w->stats.wait_max_ns, waited);
  w->stats.waits++;
  g_mutex_unlock (&w->lock);
}

/* Upstream lost frames before the frame offered: counted and reported
 * now, under the number it gets (the queue's next: taken or dropped, it
 * gets that one; only this thread hands numbers out) */
static void
report_upstream_gap (RtfWriter * w, RtfFrame * offered)
{
  const RtfUpstreamGap *gap = &offered->origin.gap;
  RtfQueueLevel level;
  RtfFrameReport m;

  rtf_queue_get_level (w->queue, &level);
  g_mutex_lock (&w->lock);
  w->stats.upstream_gaps++;
  w->stats.frames_missing_upstream += gap->missing;
  g_mutex_unlock (&w->lock);
  offered->seq = level.received;
  rtf_frame_report_init (&m, offered, offered->times.arrival_ns,
      RTF_FRAME_RESERVED, level.queued, level.queued_bytes, level.held);
  rtf_writer_log (w, RTF_LOG_DEBUG, "upstream lost %" G_GUINT64_FORMAT
      " frames before frame %" G_GUINT64_FORMAT " (%s)", gap->missing,
      m.seq, rtf_gap_how_name (gap->how));
  RTF_WRITER_CALLBACK (w, upstream_gap, &m, &offered->origin);
}

RtfOffer
rtf_writer_offer (RtfWriter * w, gsize size, RtfLeaky leaky,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame)
{
  /* what the writer watches while the producer waits with it */
  RtfFrame offered = { 0 };
  gint64 waited = 0;

  offered.size = size;
  offered.times = *times;
  if (origin)
    offered.origin = *origin;
  else
    rtf_frame_origin_clear (&offered.origin);
  if (offered.origin.gap.how != 0)
    report_upstream_gap (w, &offered);
  for (;;) {
    switch (rtf_queue_reserve (w->queue, size, leaky == RTF_LEAKY_NO,
            &offered, frame, &waited)) {
      case RTF_QUEUE_OK:
        count_wait (w, waited);
        (*frame)->times = *times;
        (*frame)->origin = offered.origin;
        /* a gap before frames that were not written comes first */
        if (w->gap_carry.how != 0) {
          rtf_upstream_gap_merge (&w->gap_carry, &offered.origin.gap);
          (*frame)->origin.gap = w->gap_carry;
          rtf_upstream_gap_clear (&w->gap_carry);
        }
        return RTF_OFFER_TAKEN;
      case RTF_QUEUE_FULL:
        if (leaky == RTF_LEAKY_DOWNSTREAM && drop_oldest (w))
          continue;
        /* upstream, or nothing left to drop but this frame */
        drop_offered (w, &offered);
        return RTF_OFFER_DROPPED;
      case RTF_QUEUE_FLUSHING:
        drop_refused (w, &offered);
        /* its miss was told under its number: dropped there, for good
         * (offered again it would take the next number) */
        return offered.miss_reported ? RTF_OFFER_FLUSHING_DROPPED :
            RTF_OFFER_FLUSHING;
      case RTF_QUEUE_CLOSED:
      default:
        /* not counted here: a spread places it again under its number
         * (retired or failed location), one writer takes no frame more */
        carry_gap (w, &offered.origin, FALSE);
        return RTF_OFFER_CLOSED;
    }
  }
}

RtfOffer
rtf_writer_offer_again (RtfWriter * w, gsize size,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    gboolean miss_reported, RtfFrame ** frame)
{
  /* watched while it waits like any frame, but a miss told before (at
   * the other location) is not told again */
  RtfFrame offered = { 0 };
  gint64 waited = 0;

  offered.size = size;
  offered.times = *times;
  offered.origin = *origin;
  offered.miss_reported = miss_reported;
  switch (rtf_queue_reserve (w->queue, size, TRUE, &offered, frame, &waited)) {
    case RTF_QUEUE_OK:
      count_wait (w, waited);
      (*frame)->times = *times;
      (*frame)->origin = *origin;
      return RTF_OFFER_TAKEN;
    case RTF_QUEUE_FLUSHING:
      return RTF_OFFER_FLUSHING;
    default:
      return RTF_OFFER_CLOSED;
  }
}

void
rtf_writer_number_next (RtfWriter * w, guint64 seq)
{
  rtf_queue_number_next (w->queue, seq);
}

guint64
rtf_writer_commit (RtfWriter * w, RtfFrame * frame)
{
  /* (what the line says is read before the commit: from then on the
   * frame is the writer thread's) */
  gsize size = frame->size;
  guint64 pts = frame->times.pts, seq;

  seq = rtf_queue_commit (w->queue, frame);
  rtf_writer_log (w, RTF_LOG_FRAME, "frame %" G_GUINT64_FORMAT " handed "
      "over: %" G_GSIZE_FORMAT " bytes, pts %" G_GUINT64_FORMAT, seq, size,
      pts);
  return seq;
}

void
rtf_writer_cancel (RtfWriter * w, RtfFrame * frame)
{
  rtf_queue_cancel (w->queue, frame);
}

void
rtf_writer_set_flushing (RtfWriter * w, gboolean flushing)
{
  rtf_queue_set_flushing (w->queue, flushing);
}

/* ---- event recording ----------------------------------------------------- */

guint64
rtf_writer_hold (RtfWriter * w, gsize size, const RtfFrameOrigin * origin)
{
  if (origin && origin->gap.how != 0) {
    RtfFrame held = { 0 };

    held.size = size;
    held.origin = *origin;
    rtf_frame_times_clear (&held.times);
    held.times.arrival_ns = rtf_clock_now_ns ();
    report_upstream_gap (w, &held);
  }
  return rtf_queue_number_outside (w->queue, size);
}

void
rtf_writer_discard (RtfWriter * w, gsize size)
{
  rtf_queue_discard_outside (w->queue, size);
}

RtfOffer
rtf_writer_offer_backlog (RtfWriter * w, gsize size, guint64 seq,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame)
{
  switch (rtf_queue_reserve_backlog (w->queue, size, seq, frame)) {
    case RTF_QUEUE_OK:
      (*frame)->times = *times;
      if (origin)
        (*frame)->origin = *origin;
      return RTF_OFFER_TAKEN;
    case RTF_QUEUE_FULL:
      /* the cells are taken by an earlier backlog still being written
       * (frames the producer holds without a cell of its own: its pool's)
       * - the producer is told and says so */
      rtf_writer_log (w, RTF_LOG_DEBUG, "backlog frame %" G_GUINT64_FORMAT
          " finds no cell", seq);
      rtf_writer_discard (w, size);
      return RTF_OFFER_DROPPED;
    default:
      /* (still held: the producer lets it go, or a spread offers it to
       * another location) */
      return RTF_OFFER_CLOSED;
  }
}

void
rtf_writer_move_held (RtfWriter * from, RtfWriter * to, gsize size)
{
  if (from != to)
    rtf_queue_move_outside (from->queue, to->queue, size);
}

void
rtf_writer_end_recording (RtfWriter * w, guint64 last_seq)
{
  g_mutex_lock (&w->lock);
  w->end_seq = last_seq;
  g_mutex_unlock (&w->lock);
  rtf_queue_wake_consumer (w->queue);
}
