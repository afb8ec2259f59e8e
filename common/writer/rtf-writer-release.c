/* rtframe: the writer's frames in frame order - deadlines watched while
 * frames are held, the index record of each frame written, and frames
 * handed back to the producer in order, each once it can be found after a
 * crash (its record on file, its file at its name).
 *
 * Everything here runs on the writer thread. */
#include "rtf-writer-private.h"
#include "rtf-clock.h"

#include <string.h>

static void
describe (RtfWriter * w, const RtfFrame * f, gint64 when,
    RtfFrameState where, RtfFrameReport * m)
{
  RtfQueueLevel level;

  rtf_queue_get_level (w->queue, &level);
  rtf_frame_report_init (m, f, when, where, level.queued, level.queued_bytes,
      level.held);
}

static void
report_miss (RtfWriter * w, RtfFrame * f, gint64 now, RtfFrameState where)
{
  RtfFrameReport m;

  f->miss_reported = TRUE;
  g_mutex_lock (&w->lock);
  w->stats.frames_missed++;
  g_mutex_unlock (&w->lock);
  if (w->cb.deadline_missed) {
    describe (w, f, now, where, &m);
    RTF_WRITER_CALLBACK (w, deadline_missed, &m);
  }
}

/* The last write of f completed. */
void
rtf_writer_frame_written (RtfWriter * w, RtfFrame * f)
{
  gboolean late = f->times.deadline_ns != 0
      && f->complete_ns > f->times.deadline_ns;
  RtfFrameReport m;

  /* handed back (retired): written elsewhere, where it is measured and,
   * if late, counted missed once */
  if (f->handed_back)
    return;

  /* A deadline that passed while the thread was busy: reported now, just
   * before the completion. */
  if (late && !f->miss_reported)
    report_miss (w, f, f->complete_ns, RTF_FRAME_IN_FLIGHT);

  g_mutex_lock (&w->lock);
  /* a backlog frame came long before it could be written: the latency
   * figures are the live frames' */
  if (!rtf_frame_prerecorded (f->flags))
    rtf_histogram_add (&w->latency.arrival_to_done,
        f->complete_ns - f->times.arrival_ns);
  rtf_histogram_add (&w->latency.submit_to_done, f->complete_ns - f->submit_ns);
  if (late)
    w->stats.frames_late++;
  g_mutex_unlock (&w->lock);

  if (late && w->cb.late_completion) {
    describe (w, f, f->complete_ns, RTF_FRAME_WRITTEN, &m);
    RTF_WRITER_CALLBACK (w, late_completion, &m);
  }
}

/* The earlier of next and f's deadline, or f reported when it passed */
static gint64
watch (RtfWriter * w, RtfFrame * f, gint64 now, RtfFrameState where,
    gint64 next)
{
  if (f->times.deadline_ns == 0 || f->miss_reported)
    return next;
  if (f->times.deadline_ns <= now) {
    report_miss (w, f, now, where);
    return next;
  }
  return MIN (next, f->times.deadline_ns);
}

/* Reports the frames whose deadline has passed - in flight, waiting for
 * the next file, queued, or held by the producer waiting for room - and
 * returns how long the thread may wait before the next one passes (-1:
 * no deadline pending). */
gint64
rtf_writer_check_deadlines (RtfWriter * w)
{
  gint64 now = rtf_clock_now_ns ();
  gint64 next = G_MAXINT64, queued_next;
  guint i, n;

  for (i = 0; i < w->frames_in_flight; i++) {
    RtfFrame *f = w->in_flight[(w->if_first + i) % w->ring_size];

    if (f->state == RTF_FRAME_IN_FLIGHT)
      next = watch (w, f, now, RTF_FRAME_IN_FLIGHT, next);
  }
  /* taken from the queue, waiting for the next file to be ready */
  if (w->waiting)
    next = watch (w, w->waiting, now, RTF_FRAME_QUEUED, next);

  n = rtf_queue_collect_missed (w->queue, now, w->misses, w->max_misses,
      &queued_next);
  next = MIN (next, queued_next);
  if (n > 0) {
    g_mutex_lock (&w->lock);
    w->stats.frames_missed += n;
    g_mutex_unlock (&w->lock);
  }
  for (i = 0; i < n; i++)
    RTF_WRITER_CALLBACK (w, deadline_missed, &w->misses[i]);

  if (next == G_MAXINT64)
    return -1;
  now = rtf_clock_now_ns ();
  return next > now ? next - now : 0;
}

/* ---- index records --------------------------------------------------- */

/* The index records released frames left, once the last write is done */
void
rtf_writer_submit_index (RtfWriter * w, RtfOutput * o)
{
  const guint8 *buf;
  gsize len;
  guint64 offset;

  if (w->error || !rtf_output_index_next (o, &buf, &len, &offset))
    return;
  w->ops_in_flight++;
  w->engine->ops->write (w->engine, o->index_fd, buf, len, offset, -1,
      &o->index_tag);
}

static void
index_record_of (RtfWriter * w, const RtfFrame * f, RtfIndexRecord * r)
{
  r->seq = f->seq;
  r->pts = f->times.pts;
  r->duration = f->times.duration;
  r->running_time = f->times.running_time;
  r->arrival_ns = f->times.arrival_ns;
  r->complete_ns = f->complete_ns;
  r->offset = f->offset;
  r->size = (guint32) f->size;
  r->checksum = f->checksum;
  r->flags = (w->config.checksums ? RTF_INDEX_REC_CHECKSUM : 0)
      | (f->times.deadline_ns != 0 && f->complete_ns > f->times.deadline_ns ?
      RTF_INDEX_REC_MISSED : 0) | (f->copied ? RTF_INDEX_REC_COPIED : 0)
      | (rtf_frame_prerecorded (f->flags) ? RTF_INDEX_REC_PRERECORDED : 0)
      | (f->flags & RTF_FRAME_EVENT_START ? RTF_INDEX_REC_EVENT_START : 0)
      | (f->flags & RTF_FRAME_FAILED_OVER ? RTF_INDEX_REC_FAILED_OVER : 0)
      | (f->origin.gap.how ? RTF_INDEX_REC_GAP : 0);
  r->upstream_offset = f->origin.offset;
  r->reference_ns = f->origin.reference_ns;
  r->gap_missing = (guint32) MIN (f->origin.gap.missing, G_MAXUINT32);
  r->gap_how = f->origin.gap.how;
}

/* Whether the owner still listens (it has not abandoned the writer): what
 * it was told is what counts */
static gboolean
owner_listens (RtfWriter * w)
{
  gboolean on;

  g_mutex_lock (&w->cb_lock);
  on = w->callbacks_on;
  g_mutex_unlock (&w->cb_lock);
  return on;
}

/* Decides the outcome of the frames whose writes are all done, in order,
 * and puts the record of each written one in its file's index.  After an
 * error every frame from the first failed one on is lost, even if its own
 * write went through: the file keeps only the whole prefix. */
static void
record_done (RtfWriter * w)
{
  gboolean listens = owner_listens (w);

  while (w->n_recorded < w->frames_in_flight) {
    RtfFrame *f = w->in_flight[(w->if_first + w->n_recorded) % w->ring_size];
    RtfOutput *o = f->output;
    RtfIndexRecord r;

    if (f->pending > 0)
      break;
    /* abandoned: the owner was told every frame held is lost */
    if (f->state == RTF_FRAME_WRITTEN && (w->prefix_broken || !listens))
      f->state = RTF_FRAME_FAILED;
    if (f->state == RTF_FRAME_FAILED)
      w->prefix_broken = TRUE;
    if (f->state == RTF_FRAME_WRITTEN) {
      /* its record must fit in the index first (the index write in
       * flight frees room when it completes) */
      if (!rtf_output_index_has_room (o))
        break;
      g_assert (f->offset == o->written_end);
      o->written_end = f->offset + f->size;
      index_record_of (w, f, &r);
      rtf_output_add_record (o, &r);
      f->record_no = o->index_records;
    }
    w->n_recorded++;
  }
  if (w->prev)
    rtf_writer_submit_index (w, w->prev);
  rtf_writer_submit_index (w, w->cur);
}

/* ---- handing frames back --------------------------------------------- */

/* Its record is on file (or it has no index) */
static gboolean
record_on_file (const RtfOutput * o, const RtfFrame * f)
{
  return o->index_fd < 0 || f->record_no <= o->index_records_done;
}

/* A written frame can be found after a crash: its record on file, its
 * file at its name. */
static gboolean
findable (RtfWriter * w, const RtfFrame * f)
{
  return record_on_file (f->output, f) && rtf_output_is_named (f->output);
}

/* After an error nothing more is submitted: a written frame whose record
 * is not on file yet gets it now - written here, once no write is in
 * flight (FALSE meanwhile: it waits) - or is lost.  So is a frame of a
 * file that never got its name (naming it failed: the hidden file goes,
 * nothing of it can be found), and every frame after either: the
 * recording keeps a whole prefix, and the files keep only the frames
 * reported written (rtf_output_keep_released(): cut back when sealed).
 * (Issue 23, torture F3: with the index's write failing with ENOSPC, a
 * frame whose record was only buffered was reported written; the index
 * stayed empty, and rtframe-recover then rightly deleted the file as
 * holding no frame reported written.) */
static gboolean
settle_after_error (RtfWriter * w, RtfFrame * f)
{
  RtfOutput *o = f->output;

  if (f->state != RTF_FRAME_WRITTEN || !w->error)
    return TRUE;
  if (!w->lost_after_error && rtf_output_is_named (o)
      && !record_on_file (o, f)) {
    if (w->ops_in_flight > 0)
      return FALSE;
    (void) rtf_output_index_flush (o);
  }
  if (w->lost_after_error || !findable (w, f)) {
    if (!w->lost_after_error)
      rtf_writer_log (w, RTF_LOG_DEBUG, "frame %" G_GUINT64_FORMAT " of %s "
          "is lost: %s", f->seq, o->path, rtf_output_is_named (o) ?
          "its index record could not be written" : "its file has no name");
    w->lost_after_error = TRUE;
    w->prefix_broken = TRUE;
    f->state = RTF_FRAME_FAILED;
    rtf_output_keep_released (o);
  }
  return TRUE;
}

static void
count_written (RtfWriter * w, RtfFrame * f)
{
  RtfOutput *o = f->output;

  w->released_written++;
  o->released_end = f->offset + f->size;
  o->released_records = f->record_no;
  g_mutex_lock (&w->lock);
  w->stats.bytes_written += f->size;
  if (f->copied)
    w->stats.frames_copied++;
  else
    w->stats.frames_zero_copy++;
  if (rtf_frame_prerecorded (f->flags))
    w->stats.frames_prerecorded++;
  g_mutex_unlock (&w->lock);
}

/* Hands finished frames back, in order, once they can be found.  Under
 * the callback lock, so a frame is counted written exactly when the owner
 * is told (rtf_writer_abandon() takes the lock to stop that). */
static guint
release_recorded (RtfWriter * w)
{
  guint released = 0;

  while (w->n_recorded > 0) {
    RtfFrame *f = w->in_flight[w->if_first];
    RtfOutput *o = f->output;

    /* (its I/O with no lock held) */
    if (!settle_after_error (w, f))
      break;
    g_mutex_lock (&w->cb_lock);
    if (f->state == RTF_FRAME_WRITTEN && w->callbacks_on && !w->error
        && !findable (w, f)) {
      g_mutex_unlock (&w->cb_lock);
      break;
    }
    /* abandoned: the owner was told this frame is lost */
    if (f->state == RTF_FRAME_WRITTEN && !w->callbacks_on)
      f->state = RTF_FRAME_FAILED;
    if (f->state == RTF_FRAME_WRITTEN)
      count_written (w, f);
    o->frames_in_flight--;
    w->if_first = (w->if_first + 1) % w->ring_size;
    w->frames_in_flight--;
    w->n_recorded--;
    if (f == w->last_planned)
      w->last_planned = NULL;
    if (f->flags & RTF_FRAME_PRERECORDED)
      w->backlog_taken--;
    if (w->cb.frame_done)
      w->cb.frame_done (f, w->user_data);
    g_mutex_unlock (&w->cb_lock);
    /* a line a frame (GStreamer's LOG), formatted only when wanted */
    if (f->state == RTF_FRAME_WRITTEN)
      rtf_writer_log (w, RTF_LOG_FRAME, "frame %" G_GUINT64_FORMAT
          " written: %" G_GSIZE_FORMAT " bytes at %" G_GUINT64_FORMAT
          " of %s, %.3f ms after it arrived (device %.3f ms)%s", f->seq,
          f->size, f->offset, o->path, (f->complete_ns -
              f->times.arrival_ns) / 1e6, (f->complete_ns -
              f->submit_ns) / 1e6, f->copied ? ", copied" : "");
    else
      rtf_writer_log (w, RTF_LOG_FRAME, "frame %" G_GUINT64_FORMAT
          " lost: %s", f->seq, g_strerror (f->error));
    rtf_writer_recording_release (w, f);
    /* its file no longer counts it (o->frames_in_flight, above): from
     * here the helper may finish and free o, so the cell must not keep
     * pointing at it.  A queue cell names an output only while its frame
     * is laid out in it (plan_frame() .. here); a frame that is never
     * laid out - queued, or waiting for its file, when the writer fails
     * - has none (issue 23: such frames released after a write error
     * read the freed output of the cell's previous frame) */
    f->output = NULL;
    rtf_queue_release (w->queue, f);
    released++;
  }
  return released;
}

void
rtf_writer_release_done (RtfWriter * w)
{
  /* after an error, the records flushed (or the frames lost) make room in
   * an index buffer that was full: the frames after them, not recorded
   * for want of it, are settled now too, before the files are sealed */
  do
    record_done (w);
  while (release_recorded (w) > 0 && w->error
      && w->n_recorded < w->frames_in_flight);
}

/* f was never laid out (queued, or waiting for its file): no output */
void
rtf_writer_release_lost (RtfWriter * w, RtfFrame * f)
{
  g_assert (f->output == NULL);
  f->state = RTF_FRAME_FAILED;
  g_mutex_lock (&w->cb_lock);
  if (w->cb.frame_done)
    w->cb.frame_done (f, w->user_data);
  g_mutex_unlock (&w->cb_lock);
  rtf_writer_recording_release (w, f);
  rtf_queue_release (w->queue, f);
}

/* Frames still queued after a failure: lost. */
void
rtf_writer_release_queued_as_lost (RtfWriter * w)
{
  RtfFrame *f;

  while ((f = rtf_queue_pop (w->queue)) != NULL)
    rtf_writer_release_lost (w, f);
}

void
rtf_writer_drop_queued (RtfWriter * w)
{
  RtfFrame *f;

  /* (as rtf_writer_release_lost(), but the recording's figures are the
   * writer thread's, which may be releasing frames of its own now: the
   * owner no longer listens to them) */
  while ((f = rtf_queue_pop (w->queue)) != NULL) {
    g_assert (f->output == NULL);
    f->state = RTF_FRAME_FAILED;
    g_mutex_lock (&w->cb_lock);
    if (w->cb.frame_done)
      w->cb.frame_done (f, w->user_data);
    g_mutex_unlock (&w->cb_lock);
    rtf_queue_release (w->queue, f);
  }
}

/* ---- recordings (events) ------------------------------------------------ */

/* The recording being released ends: told with its figures */
void
rtf_writer_recording_close (RtfWriter * w)
{
  if (!w->rec_open)
    return;
  w->rec_open = FALSE;
  w->rec.path = w->rec_path;
  RTF_WRITER_CALLBACK (w, recording_stopped, &w->rec);
  g_clear_pointer (&w->rec_path, g_free);
}

/* f leaves the writer, in frame order: a recording's first frame opens it
 * (ending the one before), every frame counts in it */
void
rtf_writer_recording_release (RtfWriter * w, RtfFrame * f)
{
  RtfRecordingInfo *r = &w->rec;
  RtfOutput *o = f->output;

  if (rtf_frame_opens_recording (f->flags)) {
    rtf_writer_recording_close (w);
    memset (r, 0, sizeof (*r));
    r->number = w->rec_number++;
    r->part = (f->flags & RTF_FRAME_PART_START) != 0;
    r->first_seq = f->seq;
    r->first_running_time = f->times.running_time;
    w->rec_open = TRUE;
  }
  w->last_released_seq = f->seq;
  if (!w->rec_open)
    return;
  r->last_seq = f->seq;
  r->last_running_time = f->times.running_time;
  if (f->state == RTF_FRAME_WRITTEN) {
    r->frames++;
    r->bytes += f->size;
    if (rtf_frame_prerecorded (f->flags))
      r->prerecorded++;
  } else {
    r->lost++;
  }
  /* where it is found: the file of its last frame written (of its first
   * frame while none is); a frame never laid out in a file - lost while
   * queued - has none */
  if (o && (f->state == RTF_FRAME_WRITTEN || w->rec_path == NULL)
      && (w->rec_path == NULL || strcmp (w->rec_path, o->path) != 0)) {
    g_free (w->rec_path);
    w->rec_path = g_strdup (o->path);
  }
}

/* The producer ended the recording: once its last frame is handed back,
 * it is told, and (a set) its file finished */
void
rtf_writer_recording_check_end (RtfWriter * w)
{
  guint64 end;

  g_mutex_lock (&w->lock);
  end = w->end_seq;
  if (end != G_MAXUINT64 && w->last_released_seq != G_MAXUINT64
      && w->last_released_seq >= end)
    w->end_seq = G_MAXUINT64;
  else
    end = G_MAXUINT64;
  g_mutex_unlock (&w->lock);
  if (end == G_MAXUINT64 || !w->rec_open || w->rec.first_seq > end)
    return;
  rtf_writer_recording_close (w);
  if (w->config.rotate && w->cur->begun && w->cur->last_seq <= end
      && w->cur->frames_in_flight == 0)
    w->finish_pending = TRUE;
}
