/* rtframe: the writer's files - what a file's first frame starts (its
 * index header, its announcement, the next file asked for), when a frame
 * starts a new file of a set and the switch to it, space reserved ahead,
 * the fdatasyncs of sync-interval, and sealing the files at EOS and at the
 * end.  The slow parts of a split (open, finish, delete) run on the file
 * helper thread (rtf-file-worker.c); here the writer thread only asks and
 * swaps descriptors.
 *
 * Everything here runs on the writer thread. */
#include "rtf-writer-private.h"
#include "rtf-clock.h"
#include "rtf-pattern.h"

#include <fcntl.h>

/* What max-file-duration counts from: the running time, else arrival */
static guint64
frame_time (const RtfFrame * f)
{
  return f->times.running_time != G_MAXUINT64 ? f->times.running_time :
      (guint64) f->times.arrival_ns;
}

static void
file_opened (RtfWriter * w, RtfOutput * o)
{
  RtfFileInfo info;

  g_mutex_lock (&w->lock);
  w->stats.files++;
  w->stats.file_number = o->number;
  g_mutex_unlock (&w->lock);
  if (w->cb.file_opened == NULL)
    return;
  rtf_output_info (o, &info);
  RTF_WRITER_CALLBACK (w, file_opened, &info);
}

/* A file was sealed and closed (err 0) or sealing it failed */
void
rtf_writer_file_closed (RtfWriter * w, RtfOutput * o, gint err)
{
  RtfFileInfo info;

  if (w->cb.file_closed == NULL)
    return;
  rtf_output_info (o, &info);
  info.error = err;
  RTF_WRITER_CALLBACK (w, file_closed, &info);
}

/* Asks the helper to open file `number` ahead, with what the free-space
 * guard grants it to reserve */
static void
prepare_next (RtfWriter * w, guint64 number)
{
  guint64 grant = rtf_writer_space_grant (w, w->out_config.preallocate);

  if (!rtf_file_worker_prepare (w->worker, number, grant))
    rtf_writer_space_ungrant (w, grant);
}

/* The name of cur, whose location has time fields, as its first frame f
 * gives it (arrival_ns on the CLOCK_MONOTONIC of the anchor) or the
 * application asks */
static void
name_timed_file (RtfWriter * w, RtfFrame * f, gint64 realtime_ns,
    gint64 monotonic_ns)
{
  gint64 at_ns = f->times.arrival_ns ?
      realtime_ns - (monotonic_ns - f->times.arrival_ns) : realtime_ns;
  guint64 number = w->cur->number;
  gchar *name = rtf_pattern_format_at (w->location, number, at_ns / 1000);
  gchar *asked = NULL;

  if (w->cb.name_file) {
    g_mutex_lock (&w->cb_lock);
    if (w->callbacks_on)
      asked = w->cb.name_file (number, f, name, w->user_data);
    g_mutex_unlock (&w->cb_lock);
  }
  if (asked && rtf_pattern_names (w->location, asked, number)) {
    g_free (name);
    name = asked;
  } else if (asked) {
    rtf_writer_log_in (w, RTF_LOG_FILES, RTF_LOG_WARNING, "the name \"%s\" "
        "asked for file %" G_GUINT64_FORMAT " is not one \"%s\" makes for "
        "it (the readers would not find it): named \"%s\"", asked, number,
        w->location, name);
    g_free (asked);
  }
  rtf_output_set_name (w->cur, name);
  g_free (name);
}

/* f is the first frame of cur: the index header, the message, the next
 * file of a set asked for. */
void
rtf_writer_begin_file (RtfWriter * w, RtfFrame * f)
{
  RtfIndexHeader h = { 0 };

  h.flags = (w->config.checksums ? RTF_INDEX_HAS_CHECKSUMS : 0) |
      RTF_INDEX_HAS_CLOCK_ANCHOR;
  rtf_clock_anchor (&h.anchor_realtime_ns, &h.anchor_monotonic_ns);
  if (w->out_config.name_later && !rtf_output_is_named (w->cur))
    name_timed_file (w, f, h.anchor_realtime_ns, h.anchor_monotonic_ns);
  h.frame_size = f->size;
  h.file_number = w->cur->number;
  h.deadline_ns = f->times.deadline_ns ?
      (guint64) (f->times.deadline_ns - f->times.arrival_ns) : 0;
  h.created_ns = g_get_real_time () * 1000;
  h.format = (gchar *) (f->format ? f->format : "");
  h.reference = (gchar *) f->reference;
  h.recording_id = w->out_config.recording_id;
  h.data_name = g_path_get_basename (w->cur->path);
  /* frames that may be written past the last record: those with writes
   * in flight, or with a backlog every frame taken */
  h.max_in_flight = w->config.backlog_frames ? w->ring_size : w->n_slots;
  h.block = (guint32) w->block;
  rtf_output_begin (w->cur, &h, f->seq, frame_time (f), f->times.running_time);
  g_free (h.data_name);
  rtf_writer_log_in (w, RTF_LOG_FILES, RTF_LOG_DEBUG, "%s begins with frame %"
      G_GUINT64_FORMAT " (file %" G_GUINT64_FORMAT " of the set)", w->cur->path,
      f->seq, w->cur->number);
  /* the header goes now, not with the first record */
  rtf_writer_submit_index (w, w->cur);
  file_opened (w, w->cur);
  rtf_writer_space_new_file (w);
  if (w->worker) {
    /* first: its frames are reported written once it has its name */
    if (!rtf_output_is_named (w->cur))
      rtf_file_worker_name (w->worker, w->cur);
    rtf_file_worker_current (w->worker, w->cur->number);
    rtf_writer_ring_file_begun (w);
    prepare_next (w, w->cur->number + 1);
  }
}

/* Whether f starts a new file of a set */
static gboolean
splits (RtfWriter * w, const RtfFrame * f)
{
  RtfOutput *o = w->cur;
  const RtfWriterConfig *c = &w->config;

  if (!c->rotate || !o->begun)
    return FALSE;
  if (f->split || o->closed)
    return TRUE;
  /* by text: a pointer the writer holds no reference to can be freed and
   * handed out again for other caps (seen: frames of new caps written to
   * the old file, 1 run in 5 under load) */
  if (g_strcmp0 (f->format, o->format) != 0)
    return TRUE;
  if (c->max_file_size && o->offset + f->size > c->max_file_size)
    return TRUE;
  if (c->max_file_duration && frame_time (f) >= o->first_time
      && frame_time (f) - o->first_time >= c->max_file_duration)
    return TRUE;
  return FALSE;
}

/* Whether f cannot go into cur now: it starts a new file, or the
 * free-space guard holds it until there is room for it (its ledger:
 * rtf_writer_space_admit()).  take_frames() then asks
 * rtf_writer_start_next_file(), which makes the split, or answers FALSE
 * and f waits (w->waiting), its deadline watched, for the next file or
 * for room. */
gboolean
rtf_writer_needs_split (RtfWriter * w, const RtfFrame * f)
{
  gboolean split = splits (w, f);

  if (!rtf_writer_space_admit (w, f, split))
    return TRUE;                /* (w->space_held, or the recording ended) */
  return split;
}

/* The previous file has no frame in flight and its index is written: the
 * helper finishes it (cut, fdatasync, close) off this thread. */
void
rtf_writer_retire_prev (RtfWriter * w)
{
  RtfOutput *o = w->prev;

  /* nothing in flight may still name it: frames, index writes, its
   * fallocate, an fdatasync (of it, submitted before the split) */
  if (o == NULL || o->frames_in_flight > 0 || !rtf_output_index_idle (o)
      || o->reserving || w->syncs_pending > 0)
    return;
  w->prev = NULL;
  rtf_file_worker_retire (w->worker, o);
}

/* The next file does not go with the others (another filesystem) */
static gboolean
refuse_next (RtfWriter * w, RtfOutput * next)
{
  if (next->file.block == w->block && next->file.stream == w->stream)
    return FALSE;
  rtf_writer_log_in (w, RTF_LOG_FILES, RTF_LOG_WARNING,
      "%s is on a filesystem with another "
      "block size (%zu, not %zu): the files of a set must share one",
      next->path, next->file.block, w->block);
  rtf_writer_fail_at (w, RTF_FAIL_OPEN, EXDEV, next->path, NULL);
  rtf_output_free (next, TRUE);
  return TRUE;
}

/* Makes the prepared file the current one.  FALSE when it is not ready
 * yet (or the previous one still has frames in flight): try again on the
 * next wake-up, which the helper rings when the file is open. */
gboolean
rtf_writer_start_next_file (RtfWriter * w)
{
  guint64 number = w->cur->number + 1;
  RtfFailStep step = RTF_FAIL_OPEN;
  RtfOutput *next;
  gint err;

  /* the frame waits for room, not for a file */
  if (w->space_held || w->error)
    return FALSE;
  rtf_writer_retire_prev (w);
  if (w->prev != NULL)
    return FALSE;
  next = rtf_file_worker_take (w->worker, number, &err, &step);
  if (next == NULL) {
    if (err != 0) {
      gchar *path = rtf_pattern_format (w->location, number);

      rtf_writer_fail_at (w, step, err, path, NULL);
      g_free (path);
    } else {
      prepare_next (w, number);
    }
    return FALSE;
  }
  if (refuse_next (w, next))
    return FALSE;
  g_mutex_lock (&w->lock);
  w->stats.bytes_preallocated += next->reserved_end;
  g_mutex_unlock (&w->lock);
  w->prev = w->cur;
  w->cur = next;
  w->carry_len = 0;
  w->last_planned = NULL;
  w->finish_pending = FALSE;
  rtf_writer_retire_prev (w);
  rtf_writer_log_in (w, RTF_LOG_FILES, RTF_LOG_DEBUG, "now writing %s",
      next->path);
  return TRUE;
}

/* An error of the file helper (naming or finishing a file) stops the
 * writer like its own */
void
rtf_writer_check_file_helper (RtfWriter * w)
{
  RtfFailStep step = RTF_FAIL_SYNC;
  gchar *path = NULL;
  gint err;

  if (w->worker == NULL || w->error)
    return;
  err = rtf_file_worker_error (w->worker, &path, &step);
  if (err)
    rtf_writer_fail_at (w, step, err, path, NULL);
  g_free (path);
}

/* ---- space reserved ahead ------------------------------------------ */

/* Of `want` bytes o may reserve with the free-space guard off: at most
 * half of what is free once what it holds reserved past its frames is
 * counted (an fstatfs: microseconds, once per refill).  With the guard
 * on, its limit keeps the line, and the line the room for the rest. */
static guint64
reserve_share (RtfWriter * w, RtfOutput * o, guint64 want)
{
  guint64 fs_free, fs_size;

  if (w->config.min_free_space != 0
      || rtf_space_statfs (o->file.fd, NULL, &fs_free, &fs_size) != 0)
    return want;                /* (no counts, ramfs: nothing to keep) */
  return rtf_space_guard_reserve_share (fs_free, o->reserved_end > o->offset
      ? o->reserved_end - o->offset : 0, want);
}

void
rtf_writer_reserve_ahead (RtfWriter * w)
{
  RtfOutput *o = w->cur;
  guint64 window = w->config.preallocate;

  if (window == 0 || o->reserve_off || o->reserving || w->error)
    return;
  /* Keep at least half a window reserved beyond the next frame. */
  if (o->offset + window / 2 < o->reserved_end)
    return;
  if (o->reserved_end < o->offset)
    o->reserved_end = o->offset;
  /* no further than the file may grow */
  if (w->config.rotate && w->config.max_file_size) {
    guint64 limit = w->config.max_file_size + w->block;

    if (o->reserved_end >= limit)
      return;
    window = MIN (window, limit - o->reserved_end);
  }
  /* never so much that the filesystem falls under min-free-space, nor
   * with the guard off more than half of the room (the index, other files
   * and the frames past the reservation keep the rest: issue 23, torture
   * F3) */
  if ((window = reserve_share (w, o, window)) == 0
      || (window = rtf_writer_space_reserve_limit (w, window)) == 0)
    return;
  o->reserving = TRUE;
  w->ops_in_flight++;
  w->engine->ops->fallocate (w->engine, o->file.fd, FALLOC_FL_KEEP_SIZE,
      o->reserved_end, window, &o->reserve_tag);
  o->reserve_len = window;
}

/* ---- durability ------------------------------------------------------ */

/* Whether frames written wait for a sync-interval fdatasync */
static gboolean
sync_wanted (RtfWriter * w)
{
  return w->config.sync_interval > 0 && w->syncs_pending == 0 && !w->error
      && !w->stream && w->released_written > w->stats.frames_durable;
}

/* Submits fdatasyncs of cur's data and index once sync-interval has passed
 * since the last, covering the frames released so far.  Only when every
 * write they must cover has completed: their frames are released and the
 * index holds nothing unwritten.  And only while no frame of this writer
 * is being written, unless that kept it back a whole interval more: a
 * sync asked behind writes waits for them - the device's flush, and the
 * log write, queue behind them.  Submitted as the next frame arrived (the
 * doorbell woke the writer then), each sync waited behind that frame and
 * the other cameras' (triggered together, every frame at once): the
 * user's 3 streams on this VM's disk, 5 rounds, sync p99 9.7-14.1 ms,
 * p99.9 11.4-24.8 ms; woken at the interval's end (rtf_writer_sync_wait())
 * and held back while a frame is written, 3.1-4.9 and 5.7-6.3 ms. */
void
rtf_writer_maybe_sync (RtfWriter * w)
{
  RtfOutput *o = w->cur;
  gint64 now, since;

  if (!sync_wanted (w) || w->prev != NULL || !rtf_output_index_idle (o))
    return;
  if (w->worker && !rtf_file_worker_idle (w->worker))
    return;                     /* a finished file is still being synced */
  now = rtf_clock_now_ns ();
  since = now - w->last_sync_ns;
  if (since < (gint64) w->config.sync_interval)
    return;
  if (w->frames_in_flight > 0 && since < 2 * (gint64) w->config.sync_interval)
    return;
  w->last_sync_ns = w->sync_started = now;
  w->sync_covers = w->released_written;
  w->syncs_pending = 1;
  w->ops_in_flight++;
  w->engine->ops->fdatasync (w->engine, o->file.fd, &o->sync_data_tag);
  if (o->index_fd >= 0) {
    w->syncs_pending++;
    w->ops_in_flight++;
    w->engine->ops->fdatasync (w->engine, o->index_fd, &o->sync_index_tag);
  }
}

/* wait, cut to when a sync falls due: the writer wakes at the interval's
 * end to sync in the quiet between frames, rather than at the next
 * frame's arrival (-1: no wait asked, as for wait) */
gint64
rtf_writer_sync_wait (RtfWriter * w, gint64 wait)
{
  gint64 left;

  if (!sync_wanted (w))
    return wait;
  left = w->last_sync_ns + (gint64) w->config.sync_interval -
      rtf_clock_now_ns ();
  if (left <= 0)
    return wait;                /* due: at the next completion */
  return wait < 0 ? left : MIN (wait, left);
}

/* ---- sealing ----------------------------------------------------------- */

/* Seals the file(s) being written, on this thread (the end, a failure):
 * 0 or the first errno (the failing file in fail_path). */
gint
rtf_writer_seal_outputs (RtfWriter * w)
{
  gint ret = 0, r;

  if (w->prev) {
    ret = rtf_output_seal (w->prev);
    if (ret == 0 && !w->prev->closed)
      rtf_writer_file_closed (w, w->prev, 0);
    rtf_output_free (w->prev, FALSE);
    w->prev = NULL;
  }
  /* a file no recording reached (an event recorder's) is not sealed: it
   * goes at the end (rtf_writer_close_files()) */
  r = w->cur->opened_ahead && !w->cur->begun ? 0 : rtf_output_seal (w->cur);
  if (r != 0 && ret == 0) {
    ret = r;
    g_free (w->fail_path);
    w->fail_path = g_strdup (w->cur->path);
  }
  return ret;
}

/* EOS: everything handed over is written; make the files whole and
 * durable.  The prepared next file goes: a set ends with a file that has
 * frames. */
gint
rtf_writer_end_at_eos (RtfWriter * w)
{
  RtfFailStep step = RTF_FAIL_SYNC;
  gint ret;

  if (w->worker) {
    /* a recording that ends with the stream: kept, and told */
    rtf_writer_ring_take (w, G_MAXUINT64);
    rtf_file_worker_drop_prepared (w->worker);
    rtf_file_worker_wait_idle (w->worker);
    g_free (w->fail_path);
    ret = rtf_file_worker_error (w->worker, &w->fail_path, &step);
    if (ret != 0) {
      w->fail_step = step;
      return ret;
    }
  }
  ret = rtf_writer_seal_outputs (w);
  /* the recording on ends with the stream */
  rtf_writer_recording_close (w);
  if (ret == 0) {
    g_mutex_lock (&w->lock);
    w->stats.frames_durable = w->released_written;
    g_mutex_unlock (&w->lock);
    /* a file of a set ends at EOS: reported closed now (before EOS
     * reaches the bus); frames after it start the next file */
    if (w->config.rotate && w->cur->begun && !w->cur->closed) {
      rtf_writer_file_closed (w, w->cur, 0);
      w->cur->closed = TRUE;
    }
  } else {
    rtf_writer_log_in (w, RTF_LOG_FILES, RTF_LOG_WARNING,
        "finishing %s failed: %s", w->cur->path, g_strerror (ret));
  }
  return ret;
}

/* The end of the thread: the last file closed, the helper stopped. */
void
rtf_writer_close_files (RtfWriter * w)
{
  if (w->waiting) {
    rtf_writer_release_lost (w, w->waiting);
    w->waiting = NULL;
  }
  rtf_writer_recording_close (w);
  if (w->worker)
    rtf_writer_ring_end (w);
  rtf_writer_seal_outputs (w);
  if (w->worker) {
    rtf_file_worker_free (w->worker);
    w->worker = NULL;
  }
  /* (a recording that ended on an error says which) */
  if (w->cur->begun && !w->cur->closed)
    rtf_writer_file_closed (w, w->cur, w->error);
  /* opened for a recording that never came: what the open made goes;
   * and the last file of a set that got no frame before an error (the
   * helper deletes such a file when it finishes one: kept here, it would
   * leave a set with a hole where the file before it went) */
  if ((w->cur->opened_ahead && !w->cur->begun) || (w->error
          && w->config.rotate && w->cur->begun && w->cur->frames == 0)) {
    rtf_output_free (w->cur, TRUE);
    w->cur = NULL;
  }
}

void
rtf_writer_finish_recording_file (RtfWriter * w)
{
  /* (no frame waits: none is held for room) */
  if (w->waiting == NULL)
    w->space_held = NULL;
  /* the next recording's first frame made the switch already, or waits
   * to make it */
  if (!w->cur->begun || w->cur->closed || w->waiting || w->error) {
    w->finish_pending = FALSE;
    return;
  }
  if (w->cur->frames_in_flight > 0)
    return;
  /* FALSE until the helper has the next one open: it wakes the thread */
  if (rtf_writer_start_next_file (w))
    rtf_writer_log_in (w, RTF_LOG_FILES, RTF_LOG_DEBUG,
        "recording ended: %s finished", w->prev ? w->prev->path : "the file");
}
