/* rtframe: the writer engine - its life cycle and its run loop.
 *
 * One thread (rtf_writer_run()) owns the files and the I/O engine.  It
 * takes frames from the queue in order, lays each out as block-aligned
 * writes (rtf-writer-submit.c), keeps up to io_depth frames in flight, and
 * releases frames in order as their writes complete (rtf-writer-release.c),
 * so the file always holds a whole prefix of the stream.  Its waits end at
 * the earliest deadline of the frames it holds or that are queued, so a
 * frame that is late is reported when its deadline passes, not when its
 * write ends.  Each file it writes is an RtfOutput (rtf-output.c): a
 * released frame's index record follows its data through the same engine;
 * the next file of a set is opened ahead by a helper thread
 * (rtf-writer-files.c, rtf-file-worker.c).
 *
 * What the loop does is its phase (RtfWriterPhase, rtf-writer-private.h):
 * running, failed (draining), failure reported, abandoned.  This file also
 * holds what the owner calls: make, stop, wait, abandon, free. */
#include "rtf-writer-private.h"
#include "rtf-clock.h"
#include "rtf-crc32c.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

RtfWriterPhase
rtf_writer_phase (RtfWriter * w)
{
  RtfWriterPhase phase;

  g_mutex_lock (&w->lock);
  phase = w->phase;
  g_mutex_unlock (&w->lock);
  return phase;
}

static void
set_phase (RtfWriter * w, RtfWriterPhase phase)
{
  g_mutex_lock (&w->lock);
  w->phase = phase;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

/* ---- the file helper's calls (its thread) ----------------------------- */

static void
worker_wake (gpointer data)
{
  RtfWriter *w = data;

  rtf_queue_wake_consumer (w->queue);
}

static void
worker_closed (const RtfFileInfo * info, gpointer data)
{
  RtfWriter *w = data;

  RTF_WRITER_CALLBACK (w, file_closed, info);
}

/* A deletion starts only while deletes_on, and the owner hears of every
 * one that started: the unlink and its file_deleted callback go together.
 * rtf_writer_retire() turns deletes_on off without waiting - a deletion
 * under way still tells the owner, who keeps a retired writer (waiting
 * held the streaming thread for as long as an unlink on the stalled disk
 * took: 15 s against location-timeout=0.3s, adversarial read 3);
 * rtf_writer_abandon() waits for it, the owner may go after.  No lock is
 * held across the unlink: the writer thread's callbacks (every frame's)
 * take cb_lock, and an unlink of a large file on ext4 frees its extents
 * before it returns.  Torture 0xc2dd404235fb5512: a retired location's
 * trim deleted a file of frames reported written, unannounced. */
static gboolean
worker_deleting (gboolean begin, gpointer data)
{
  RtfWriter *w = data;
  gboolean allowed = TRUE;

  g_mutex_lock (&w->cb_lock);
  if (begin) {
    allowed = w->deletes_on;
    w->deleting = allowed;
  } else {
    w->deleting = FALSE;
    g_cond_broadcast (&w->deleting_done);
  }
  g_mutex_unlock (&w->cb_lock);
  return allowed;
}

/* Between worker_deleting (TRUE) and (FALSE): told whether or not the
 * writer was retired meanwhile */
static void
worker_deleted (const RtfFileDeleted * info, gpointer data)
{
  RtfWriter *w = data;

  rtf_writer_log (w, RTF_LOG_INFO, "deleted %s (%s)", info->path,
      rtf_delete_reason_name (info->reason));
  g_mutex_lock (&w->lock);
  w->stats.files_deleted++;
  g_mutex_unlock (&w->lock);
  if (w->cb.file_deleted) {
    g_mutex_lock (&w->cb_lock);
    if (w->deleting)
      w->cb.file_deleted (info, w->user_data);
    g_mutex_unlock (&w->cb_lock);
  }
}

static void
worker_left (const gchar * path, const gchar * why, gpointer data)
{
  rtf_writer_log (data, RTF_LOG_WARNING, "not deleting %s: %s", path, why);
}

/* A ring's recording began or ended (the file helper's thread, in order
 * with its files) */
static void
worker_keep_told (const RtfKeepInfo * k, gboolean stopped, gpointer data)
{
  RtfWriter *w = data;
  RtfRecordingInfo info = { 0 };

  if (k->error) {
    RtfFileKept failed = { 0 };

    failed.keep = k->keep;
    failed.dir = w->config.keep_location;
    failed.first_seq = k->first_seq;
    failed.last_seq = G_MAXUINT64;
    failed.error = k->error;
    failed.why = k->why;
    rtf_writer_log (w, RTF_LOG_WARNING, "recording %" G_GUINT64_FORMAT
        ": %s", k->keep, k->why);
    RTF_WRITER_CALLBACK (w, file_kept, &failed);
  }
  info.number = k->keep;
  info.path = k->dir;
  info.first_seq = k->first_seq;
  info.first_running_time = k->first_running_time;
  info.last_seq = stopped ? k->last_seq : G_MAXUINT64;
  info.last_running_time = stopped ? k->last_running_time : G_MAXUINT64;
  info.frames = k->frames;
  info.bytes = k->bytes;
  info.prerecorded = k->prerecorded;
  info.lost = k->lost;
  if (stopped)
    RTF_WRITER_CALLBACK (w, recording_stopped, &info);
  else
    RTF_WRITER_CALLBACK (w, recording_started, &info);
}

static void
worker_kept (const RtfFileKept * info, gpointer data)
{
  RtfWriter *w = data;

  if (info->error)
    rtf_writer_log (w, RTF_LOG_WARNING, "recording %" G_GUINT64_FORMAT
        ": %s", info->keep, info->why);
  else
    rtf_writer_log_in (w, RTF_LOG_FILES, RTF_LOG_DEBUG, "recording %"
        G_GUINT64_FORMAT " keeps %s", info->keep, info->kept_path);
  RTF_WRITER_CALLBACK (w, file_kept, info);
}

static const RtfFileWorkerCallbacks worker_callbacks = {
  .wake = worker_wake,
  .closed = worker_closed,
  .deleted = worker_deleted,
  .left = worker_left,
  .deleting = worker_deleting,
  .kept = worker_kept,
  .keep_told = worker_keep_told,
};

/* ---- making one ------------------------------------------------------ */

/* The first file; what its kind (a pipe, a device) allows */
static gboolean
open_first_file (RtfWriter * w, gint * err, RtfFailStep * step)
{
  const RtfWriterConfig *config = &w->config;
  RtfOutputConfig first;
  gchar *path;

  w->out_config.direct = config->direct;
  w->out_config.xflags = config->xflags;
  w->out_config.index = config->index;
  w->out_config.preallocate = config->preallocate;
  w->out_config.recording_id = config->recording_id;
  w->out_config.name_later = config->rotate
      && rtf_pattern_is_timed (w->location);
  if (rtf_recording_id_is_zero (&w->out_config.recording_id))
    rtf_recording_id_new (&w->out_config.recording_id);
  if (config->rotate && config->max_file_size)
    w->out_config.preallocate = MIN (config->preallocate,
        config->max_file_size);
  path = config->rotate ? rtf_pattern_format (w->location,
      config->first_file_number) : g_strdup (w->location);
  first = w->out_config;
  first.preallocate = rtf_writer_space_first_reserve (w, path,
      first.preallocate);
  /* an event recorder's first file: only a recording that reaches it
   * replaces what its name holds */
  w->cur = rtf_output_open (path, config->first_file_number, &first,
      (config->rotate && config->first_file_ahead)
      || config->first_file_prepared || first.name_later ?
      RTF_FILE_CREATE_NEW : RTF_FILE_REPLACE, err, step);
  g_free (path);
  if (w->cur == NULL)
    return FALSE;
  w->block = w->cur->file.block;
  w->mem_align = w->cur->file.mem_align;
  w->stream = w->cur->file.stream;
  w->device = w->cur->file.device;
  w->buf_align = MAX (w->mem_align, (gsize) 4096);
  /* A pipe or device is written in order at its position: one write in
   * flight, or two frames' bytes would interleave. */
  w->n_slots = w->stream ? 1 : MIN (config->io_depth, config->max_frames);
  /* a backlog takes at most half the turns: a live frame finds one free
   * and shares the device with as few backlog writes as that */
  w->backlog_turns = MAX (1, w->n_slots / 2);
  if (w->stream) {
    w->config.preallocate = 0;
    w->config.rotate = FALSE;
    w->config.sync_interval = 0;
  }
  /* a disk written whole: no file to reserve space in or to split */
  if (w->device) {
    w->config.preallocate = 0;
    w->config.rotate = FALSE;
  }
  return TRUE;
}

static void
first_figures (RtfWriter * w)
{
  w->stats.engine = w->config.engine == RTF_ENGINE_PSYNC ?
      RTF_ENGINE_PSYNC : RTF_ENGINE_IO_URING;
  w->stats.direct = w->cur->file.direct;
  w->stats.direct_errno = w->cur->file.direct_errno;
  w->stats.block = w->block;
  w->stats.mem_align = w->mem_align;
  w->stats.file_number = w->cur->number;
  w->stats.bytes_preallocated = w->cur->reserved_end;
  w->stats.free_space = w->stats.time_left = RTF_SPACE_UNKNOWN;
}

RtfWriter *
rtf_writer_new (const RtfWriterConfig * config,
    const RtfWriterCallbacks * callbacks, gpointer user_data, gint * err,
    RtfFailStep * step)
{
  RtfFailStep open_step = RTF_FAIL_OPEN;
  RtfWriter *w;

  g_return_val_if_fail (config->location != NULL, NULL);
  g_return_val_if_fail (config->io_depth >= 1, NULL);
  g_return_val_if_fail (config->max_frames >= 1, NULL);

  w = g_new0 (RtfWriter, 1);
  w->config = *config;
  if (config->regions)
    rtf_regions_ref (config->regions);
  w->location = g_strdup (config->location);
  w->config.location = w->location;
  w->keep_location = g_strdup (config->keep_location);
  w->config.keep_location = w->keep_location;
  w->cb = *callbacks;
  w->user_data = user_data;
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  g_mutex_init (&w->cb_lock);
  g_cond_init (&w->deleting_done);
  w->callbacks_on = TRUE;
  w->deletes_on = TRUE;
  w->refs = 1;
  w->phase = RTF_PHASE_STARTING;
  w->end_seq = w->last_released_seq = G_MAXUINT64;
  rtf_upstream_gap_clear (&w->gap_carry);

  w->queue = rtf_queue_new (config->max_frames, config->max_bytes,
      w->stream ? 0 : config->backlog_frames);
  if (w->queue == NULL) {
    *err = errno ? errno : ENOMEM;
    goto fail;
  }
  if (!open_first_file (w, err, &open_step))
    goto fail;
  if (!rtf_writer_plans_new (w)) {
    *err = ENOMEM;
    goto fail;
  }
  w->max_misses = config->max_frames;
  w->misses = g_new0 (RtfFrameReport, w->max_misses);
  first_figures (w);
  rtf_writer_log (w, RTF_LOG_INFO, "opened %s: direct I/O %s, block %zu "
      "(%s), memory alignment %zu", w->cur->path,
      w->cur->file.direct ? "on" : "off", w->block,
      w->cur->file.align_source, w->mem_align);
  if (w->cur->mark_errno)
    rtf_writer_log (w, RTF_LOG_INFO, "the files carry no rtframe mark "
        "(extended attributes: %s): the tools tell them by their index "
        "alone", g_strerror (w->cur->mark_errno));
  return w;

fail:
  if (step)
    *step = open_step;
  rtf_writer_free (w);
  return NULL;
}

gint
rtf_writer_name_first_file (RtfWriter * w)
{
  gint err;

  g_return_val_if_fail (w->config.first_file_prepared, EINVAL);
  if ((err = rtf_output_name (w->cur)) != 0)
    return err;
  /* named: the recording's first file, kept even without a frame, as a
   * first file opened at its name is */
  w->cur->opened_ahead = FALSE;
  return 0;
}

RtfQueue *
rtf_writer_get_queue (RtfWriter * w)
{
  return w->queue;
}

void
rtf_writer_get_stats (RtfWriter * w, RtfWriterStats * stats)
{
  RtfQueueLevel level;

  g_mutex_lock (&w->lock);
  *stats = w->stats;
  g_mutex_unlock (&w->lock);

  /* frame accounting from one snapshot of the queue */
  rtf_queue_get_level (w->queue, &level);
  stats->frames_received = level.received;
  stats->frames_written = level.written;
  stats->frames_lost = level.failed;
  stats->frames_dropped = level.dropped;
  stats->frames_discarded = level.discarded;
  stats->pre_record_frames = level.outside;
  stats->pre_record_bytes = level.outside_bytes;
  stats->frames_queued = level.queued;
  stats->bytes_queued = level.queued_bytes;
  stats->frames_held = level.held;
  stats->frames_in_flight = level.held - level.queued - level.reserved;
  stats->frames_held_max = level.held_max;
  stats->bytes_held_max = level.held_bytes_max;
}

void
rtf_writer_get_latency (RtfWriter * w, RtfWriterLatency * latency)
{
  g_mutex_lock (&w->lock);
  *latency = w->latency;
  g_mutex_unlock (&w->lock);
}

/* ---- the writer thread ------------------------------------------------ */

static gboolean
setup_engine (RtfWriter * w)
{
  guint entries = rtf_writer_engine_entries (w);
  gint doorbell = rtf_queue_doorbell_fd (w->queue);
  gint err = 0;

  if (w->config.engine != RTF_ENGINE_PSYNC) {
    w->engine = rtf_engine_uring_new (entries, doorbell,
        RTF_REGIONS_MAX + w->n_slots, &err);
    if (w->engine == NULL && w->config.engine == RTF_ENGINE_IO_URING) {
      w->start_error = err;
      return FALSE;
    }
  }
  if (w->engine == NULL)
    w->engine = rtf_engine_psync_new (entries, doorbell, w->config.threads);

  /* for measuring what registration buys (docs/performance.md) */
  if (g_getenv ("RTFRAME_NO_FIXED_BUFFERS"))
    w->registration_off = TRUE;
  g_mutex_lock (&w->lock);
  w->stats.engine = w->engine->ops->kind;
  w->stats.engine_errno = err;
  g_mutex_unlock (&w->lock);
  rtf_writer_log (w, RTF_LOG_INFO, "writer thread running: engine %s, %u "
      "frames in flight at most", w->engine->ops->name, w->n_slots);
  return TRUE;
}

static void writer_destroy (RtfWriter * w);

static void
writer_unref (RtfWriter * w)
{
  if (g_atomic_int_dec_and_test (&w->refs))
    writer_destroy (w);
}

/* End of rtf_writer_run(): tells the owner; an abandoned writer is freed
 * by whichever of the thread and rtf_writer_abandon() is last. */
static void
run_ended (RtfWriter * w)
{
  gboolean thread_ref;

  g_mutex_lock (&w->lock);
  w->phase = RTF_PHASE_DONE;
  thread_ref = w->thread_holds_ref;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  if (thread_ref)
    writer_unref (w);
}

/* The next frame to take: a live frame while a turn is free, a backlog
 * frame whenever one is queued (laid out ahead of its turn, so that the
 * live frames behind it can be taken); first the one waiting for its
 * file. */
static RtfFrame *
next_frame (RtfWriter * w)
{
  RtfFrame *f = w->waiting;

  if (f != NULL) {
    w->waiting = NULL;
    return f;
  }
  return rtf_writer_may_take_live (w) ? rtf_queue_pop (w->queue) :
      rtf_queue_pop_backlog (w->queue);
}

/* f starts a recording: announced with its file */
static void
recording_started (RtfWriter * w, RtfFrame * f)
{
  RtfRecordingInfo info = { 0 };

  info.number = w->recordings_started++;
  info.part = (f->flags & RTF_FRAME_PART_START) != 0;
  /* a part is a recording's frames at one more location of a spread: the
   * stream's figure adds the locations' up, and counts each recording
   * once */
  if (!info.part) {
    g_mutex_lock (&w->lock);
    w->stats.recordings++;
    g_mutex_unlock (&w->lock);
  }
  info.path = w->cur->path;
  info.first_seq = f->seq;
  info.first_running_time = f->times.running_time;
  info.last_seq = info.last_running_time = G_MAXUINT64;
  RTF_WRITER_CALLBACK (w, recording_started, &info);
}

/* Takes frames: a frame that must start a new file waits (w->waiting)
 * until the helper has it open. */
static void
take_frames (RtfWriter * w)
{
  RtfFrame *f;

  while (w->frames_in_flight < w->ring_size && (f = next_frame (w)) != NULL) {
    /* its memory may be in a region added after the top of the loop
     * (added before the frame was queued, so seen now) */
    rtf_writer_learn_new_regions (w);
    if (rtf_writer_needs_split (w, f) && !rtf_writer_start_next_file (w)) {
      if (w->error)
        rtf_writer_release_lost (w, f);
      else
        w->waiting = f;
      return;
    }
    /* (a ring's asks: before the file begins) */
    rtf_writer_ring_take (w, f->seq);
    if (!w->cur->begun)
      rtf_writer_begin_file (w, f);
    if (rtf_frame_opens_recording (f->flags))
      recording_started (w, f);
    rtf_writer_reserve_ahead (w);
    w->cur->taken_last = f->seq;
    rtf_writer_take_frame (w, f);
    /* while its writes are in flight */
    if (w->config.checksums && f->state == RTF_FRAME_IN_FLIGHT) {
      guint32 crc = 0;
      guint i;

      for (i = 0; i < f->n_iov; i++)
        crc = rtf_crc32c (crc, f->iov[i].iov_base, f->iov[i].iov_len);
      f->checksum = crc;
    }
  }
}

/* Nothing of the recording is left on its way: every frame handed over is
 * released, every index record and finished file on disk. */
static gboolean
all_written (RtfWriter * w)
{
  return w->frames_in_flight == 0 && w->ops_in_flight == 0
      && w->waiting == NULL && w->prev == NULL
      && rtf_output_index_idle (w->cur);
}

/* RUNNING: take frames, sync, watch deadlines; at an EOS barrier with
 * everything written, seal the files; at shutdown with nothing held, stop.
 * Returns how long to wait, or RTF_WRITER_STOP. */
static gint64
step_running (RtfWriter * w, gboolean shutdown)
{
  gint64 wait;

  take_frames (w);
  rtf_writer_submit_ready (w);
  rtf_writer_recording_check_end (w);
  if (w->finish_pending)
    rtf_writer_finish_recording_file (w);
  rtf_writer_maybe_sync (w);
  wait = rtf_writer_check_deadlines (w);
  wait = rtf_writer_space_step (w, wait);
  wait = rtf_writer_sync_wait (w, wait);
  if (w->error)
    return 0;                   /* the guard ended it: FAILED next */
  if (!all_written (w))
    return wait;
  if (rtf_queue_barrier_pending (w->queue)) {
    rtf_queue_barrier_done (w->queue, rtf_writer_end_at_eos (w));
    return 0;                   /* look again at once */
  }
  if (shutdown) {
    RtfQueueLevel level;

    rtf_queue_get_level (w->queue, &level);
    if (level.held == 0)
      return RTF_WRITER_STOP;
  }
  return wait;
}

/* FAILED, once no operation is in flight: the files are cut back to the
 * whole prefix and sealed, the owner is told, the queue closed. */
static void
report_failure (RtfWriter * w)
{
  RtfFailure failure;
  RtfQueueLevel level;
  gboolean listens;
  gint cut;
  gchar *detail, *path;

  if (w->waiting) {
    rtf_writer_release_lost (w, w->waiting);
    w->waiting = NULL;
  }
  path = g_strdup (w->fail_path ? w->fail_path :
      w->prev ? w->prev->path : w->cur->path);
  /* given up or retired before: the files keep the frames the owner was
   * told are written, not those written since (handed back, written
   * elsewhere), whose records may be buffered or on file already */
  g_mutex_lock (&w->cb_lock);
  listens = w->callbacks_on;
  g_mutex_unlock (&w->cb_lock);
  if (!listens) {
    if (w->prev)
      rtf_output_keep_released (w->prev);
    rtf_output_keep_released (w->cur);
  }
  cut = rtf_writer_seal_outputs (w);
  if (w->worker)
    rtf_file_worker_drop_prepared (w->worker);
  set_phase (w, RTF_PHASE_REPORTED);
  g_mutex_lock (&w->lock);
  w->stats.error = w->error;
  g_mutex_unlock (&w->lock);

  rtf_queue_get_level (w->queue, &level);
  detail = g_strdup_printf ("%s; %" G_GUINT64_FORMAT " frames written (the "
      "file%s cut back to whole frames: %s has %" G_GUINT64_FORMAT " bytes%s%s)"
      ", %" G_GUINT64_FORMAT " frames accepted but not written",
      w->fail_step == RTF_FAIL_SPACE ? "the free space fell under "
      "min-free-space" : g_strerror (w->error), level.written,
      w->config.rotate ? "s" : "",
      w->cur->path, w->cur->written_end, cut ? ", but that failed: " : "",
      cut ? g_strerror (cut) : "", level.failed + level.held);
  memset (&failure, 0, sizeof (failure));
  failure.step = w->fail_step;
  failure.err = w->error;
  failure.path = path;
  failure.detail = detail;
  failure.frames_written = level.written;
  failure.xflags = w->config.xflags;
  failure.direct = w->config.direct;
  if (w->fail_step == RTF_FAIL_SPACE)
    rtf_writer_space_failure (w, &failure);
  RTF_WRITER_CALLBACK (w, failed, &failure);
  g_free (detail);
  g_free (path);
  rtf_queue_close (w->queue);
}

static gint64
step_failed (RtfWriter * w)
{
  if (w->ops_in_flight > 0)
    return -1;
  rtf_writer_release_done (w);
  report_failure (w);
  /* REPORTED at once: the frames still queued go back now, not at the
   * next doorbell (a spread places them elsewhere, and EOS waits for
   * them: rtf_queue_wait_released_until()) */
  return 0;
}

/* REPORTED: what is still handed over is lost; an EOS barrier gets the
 * error; stop at shutdown. */
static gint64
step_reported (RtfWriter * w, gboolean shutdown)
{
  rtf_writer_release_queued_as_lost (w);
  if (rtf_queue_barrier_pending (w->queue))
    rtf_queue_barrier_done (w->queue, w->error);
  return shutdown ? RTF_WRITER_STOP : -1;
}

/* ABANDONED: take nothing more, let the writes in flight end, then keep
 * only what the owner was told is written. */
static gint64
step_abandoned (RtfWriter * w)
{
  if (w->waiting) {
    rtf_writer_release_lost (w, w->waiting);
    w->waiting = NULL;
  }
  if (w->frames_in_flight > 0 || w->ops_in_flight > 0)
    return -1;
  if (w->prev)
    rtf_output_keep_released (w->prev);
  rtf_output_keep_released (w->cur);
  return RTF_WRITER_STOP;
}

/* What every turn of the loop does first: completions in, blocked heads
 * out, frames released, the previous file handed on, helper errors */
/* Retired (rtf_writer_retire()): the frames in flight, not written and
 * never to be counted written here, go back to the owner once, while
 * their writes go on reading their memory */
static void
give_back_in_flight (RtfWriter * w)
{
  guint i;

  if (g_atomic_int_get (&w->give_back) == 0)
    return;
  g_mutex_lock (&w->cb_lock);
  for (i = 0; i < w->frames_in_flight; i++) {
    RtfFrame *f = w->in_flight[(w->if_first + i) % w->ring_size];

    if (w->cb.frame_handed_back)
      f->handed_back = w->cb.frame_handed_back (f, w->user_data);
  }
  g_mutex_unlock (&w->cb_lock);
  g_mutex_lock (&w->lock);
  g_atomic_int_set (&w->give_back, 0);
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

static void
turn (RtfWriter * w)
{
  rtf_queue_ack_doorbell (w->queue);
  rtf_writer_learn_new_regions (w);
  rtf_writer_reap (w, 0);
  give_back_in_flight (w);
  if (w->error || rtf_writer_phase (w) == RTF_PHASE_ABANDONED)
    rtf_writer_drop_planned (w);
  else
    rtf_writer_submit_ready (w);
  rtf_writer_release_done (w);
  if (w->prev)
    rtf_writer_retire_prev (w);
  rtf_writer_check_file_helper (w);
}

void
rtf_writer_run (RtfWriter * w)
{
  gboolean ok = setup_engine (w);

  if (!ok) {
    run_ended (w);
    return;
  }
  g_mutex_lock (&w->lock);
  if (w->phase == RTF_PHASE_STARTING)   /* (not if abandoned meanwhile) */
    w->phase = RTF_PHASE_RUNNING;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  if (w->config.rotate)
    w->worker = rtf_file_worker_new (w->location, &w->out_config,
        w->config.max_files, w->config.threads, &worker_callbacks, w);
  if (w->worker && w->config.keep_location)
    rtf_file_worker_set_ring (w->worker, w->config.keep_location,
        w->config.keep_first_number);
  rtf_writer_space_start (w);
  w->last_sync_ns = rtf_clock_now_ns ();

  for (;;) {
    gboolean shutdown = rtf_queue_is_shutdown (w->queue);
    gint64 wait = -1;

    turn (w);
    switch (rtf_writer_phase (w)) {
      case RTF_PHASE_RUNNING:
        wait = step_running (w, shutdown);
        break;
      case RTF_PHASE_FAILED:
        wait = step_failed (w);
        break;
      case RTF_PHASE_REPORTED:
        wait = step_reported (w, shutdown);
        break;
      case RTF_PHASE_ABANDONED:
        wait = step_abandoned (w);
        break;
      default:
        g_assert_not_reached ();
    }
    if (wait == RTF_WRITER_STOP)
      break;
    /* Nothing more to do now: wait for a completion, the doorbell, or the
     * next deadline. */
    rtf_writer_reap (w, wait);
  }

  rtf_writer_close_files (w);
  rtf_engine_free (w->engine);
  w->engine = NULL;
  run_ended (w);
}

/* ---- the owner's calls ------------------------------------------------ */

gboolean
rtf_writer_wait_finished (RtfWriter * w, gint64 timeout_ns)
{
  gint64 end = g_get_monotonic_time () + timeout_ns / 1000;
  gboolean finished;

  g_mutex_lock (&w->lock);
  while (w->phase != RTF_PHASE_DONE) {
    if (timeout_ns < 0)
      g_cond_wait (&w->cond, &w->lock);
    else if (!g_cond_wait_until (&w->cond, &w->lock, end))
      break;
  }
  finished = w->phase == RTF_PHASE_DONE;
  g_mutex_unlock (&w->lock);
  return finished;
}

/* Under cb_lock: a deletion under way ends, and is told, first (the file
 * worker's unlink; a stalled disk can make abandon wait for it here, as
 * the writer's own finish already waits for the file worker) */
static void
wait_deletion (RtfWriter * w)
{
  while (w->deleting)
    g_cond_wait (&w->deleting_done, &w->cb_lock);
}

/* The owner stops listening: from here no frame is counted written
 * (release_done()), what is held is lost; FALSE when the thread has
 * finished (or, retiring, failed) already.  Both locks held. */
static gboolean
stop_listening (RtfWriter * w, gboolean retire)
{
  if (w->phase == RTF_PHASE_DONE)
    return FALSE;
  if (retire && w->phase != RTF_PHASE_RUNNING)
    return FALSE;
  w->callbacks_on = FALSE;
  if (w->phase == RTF_PHASE_RUNNING || w->phase == RTF_PHASE_STARTING)
    w->phase = RTF_PHASE_ABANDONED;
  return TRUE;
}

gboolean
rtf_writer_abandon (RtfWriter * w, GDestroyNotify notify, gpointer data,
    RtfWriterStats * final, RtfWriterLatency * latency)
{
  g_mutex_lock (&w->cb_lock);
  w->deletes_on = FALSE;
  wait_deletion (w);
  g_mutex_lock (&w->lock);
  if (!stop_listening (w, FALSE)) {
    g_mutex_unlock (&w->lock);
    g_mutex_unlock (&w->cb_lock);
    return FALSE;
  }
  w->thread_holds_ref = TRUE;
  g_atomic_int_inc (&w->refs);  /* the thread's, dropped when it ends */
  w->abandon_notify = notify;
  w->abandon_data = data;
  g_mutex_unlock (&w->lock);
  g_mutex_unlock (&w->cb_lock);

  /* The frames not taken go back at once (from this thread: not the
   * writer thread's recording figures) */
  rtf_queue_close (w->queue);
  rtf_writer_drop_queued (w);
  rtf_writer_get_stats (w, final);
  final->frames_lost += final->frames_queued + final->frames_in_flight;
  final->frames_queued = final->frames_in_flight = final->frames_held = 0;
  final->bytes_queued = 0;
  if (latency)
    rtf_writer_get_latency (w, latency);
  rtf_queue_shutdown (w->queue);        /* rings the thread's doorbell */
  writer_unref (w);
  return TRUE;
}

gboolean
rtf_writer_retire (RtfWriter * w)
{
  gboolean retired;

  g_mutex_lock (&w->cb_lock);
  w->deletes_on = FALSE;        /* one under way is still told */
  g_mutex_lock (&w->lock);
  retired = stop_listening (w, TRUE);
  if (retired)
    g_atomic_int_set (&w->give_back, 1);
  g_mutex_unlock (&w->lock);
  g_mutex_unlock (&w->cb_lock);
  if (!retired)
    return FALSE;
  rtf_queue_close (w->queue);
  rtf_writer_drop_queued (w);
  rtf_queue_wake_consumer (w->queue);
  return TRUE;
}

void
rtf_writer_wait_given_back (RtfWriter * w)
{
  g_mutex_lock (&w->lock);
  while (g_atomic_int_get (&w->give_back) && w->phase != RTF_PHASE_DONE)
    g_cond_wait (&w->cond, &w->lock);
  g_mutex_unlock (&w->lock);
}

gint
rtf_writer_wait_started (RtfWriter * w)
{
  gint ret;

  g_mutex_lock (&w->lock);
  while (w->phase == RTF_PHASE_STARTING)
    g_cond_wait (&w->cond, &w->lock);
  /* (abandoned before it ran: it started, and will end on its own) */
  ret = w->start_error;
  g_mutex_unlock (&w->lock);
  return ret;
}

void
rtf_writer_shutdown (RtfWriter * w)
{
  rtf_queue_shutdown (w->queue);
}

gint
rtf_writer_sync (RtfWriter * w)
{
  return rtf_writer_sync_until (w, -1);
}

gint
rtf_writer_sync_until (RtfWriter * w, gint64 end_us)
{
  gint result = 0;

  switch (rtf_queue_barrier_until (w->queue, &result, end_us)) {
    case RTF_QUEUE_OK:
      return result;
    case RTF_QUEUE_CLOSED:
      return w->error ? w->error : EIO;
    case RTF_QUEUE_TIMEOUT:
      return RTF_WRITER_SYNC_WAITING;
    default:
      return -1;
  }
}

void
rtf_writer_free (RtfWriter * w)
{
  if (w == NULL)
    return;
  g_assert (w->engine == NULL);
  g_assert (!w->thread_holds_ref);
  writer_destroy (w);
}

static void
writer_destroy (RtfWriter * w)
{
  /* Frames never taken by the thread (it never ran, or failed to start). */
  if (w->queue)
    rtf_writer_release_queued_as_lost (w);
  g_assert (w->worker == NULL);
  /* The thread never got to close the first file (it never ran, or could
   * not start): it still holds the space reserved at open.  Give it back,
   * leaving what a recording without frames leaves (an empty file and
   * index). */
  if (w->cur && w->cur->opened_ahead && !w->cur->begun) {
    rtf_output_free (w->cur, TRUE);     /* no recording reached it */
    w->cur = NULL;
  }
  if (w->cur && (w->phase == RTF_PHASE_STARTING || w->start_error))
    (void) rtf_output_seal (w->cur);
  rtf_output_free (w->prev, FALSE);
  rtf_output_free (w->cur, FALSE);
  g_free (w->fail_path);
  rtf_writer_plans_free (w);
  g_free (w->rec_path);
  rtf_writer_ring_clear (w);
  g_free (w->keep_location);
  g_free (w->misses);
  rtf_regions_unref (w->config.regions);
  rtf_queue_free (w->queue);
  g_free (w->location);
  if (w->abandon_notify)
    w->abandon_notify (w->abandon_data);
  g_cond_clear (&w->cond);
  g_mutex_clear (&w->lock);
  g_mutex_clear (&w->cb_lock);
  g_cond_clear (&w->deleting_done);
  g_free (w);
}
