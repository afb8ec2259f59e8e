/* rtframe: the writer engine.
 *
 * One thread (rtf_writer_run()) owns the file and the I/O engine.  It takes
 * frames from the queue in order, lays each out as block-aligned writes
 * (rtf-layout.c), keeps up to io_depth frames in flight (in its own FIFO),
 * and releases frames in order as their writes complete, so the file
 * always holds a whole prefix of the stream.  Its waits end at the earliest
 * deadline of the frames it holds or that are queued, so a frame that is
 * late is reported when its deadline passes, not when its write ends.  It
 * reserves file space ahead of the writes with fallocate(FALLOC_FL_KEEP_SIZE),
 * submitted like a write so it never holds up a frame.
 *
 * Each file it writes is an RtfOutput (rtf-output.c): a released frame's
 * index record follows its data, written through the same engine.  With
 * sync-interval, fdatasyncs go through the engine too, submitted once the
 * writes they cover have completed.  A rotated recording has a helper
 * thread (rtf-file-worker.c) that opens the next file before it is needed
 * and finishes the previous one, so at a split the writer only switches
 * file descriptors: frames of the old file may still be in flight while
 * the new one's are submitted. */
#include "rtf-writer.h"
#include "rtf-clock.h"
#include "rtf-crc32c.h"
#include "rtf-file-worker.h"
#include "rtf-layout.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest single write handed to the engine (io_uring takes 32-bit
 * lengths, pwrite stops at 2 GiB). */
#define MAX_IO_CHUNK ((gsize) 1 << 30)

typedef struct
{
  RtfIoKind kind;               /* RTF_IO_WRITE: tags are WriteOp or RtfIoTag */
  RtfFrame *frame;
  RtfOutput *out;
  const guint8 *buf;
  guint64 offset;
  gsize length, done;
  gboolean active;              /* submitted, completion pending */
} WriteOp;

typedef struct
{
  guint8 *staging;              /* copy of a frame that cannot go direct */
  gsize staging_size;
  guint8 *head_block;           /* previous tail + this frame's head */
  guint8 *tail_block;           /* this frame's last partial block */
  WriteOp ops[RTF_LAYOUT_MAX_SEGMENTS];
  guint n_ops;
  gboolean used;
  gboolean staging_registered;  /* staging is fixed buffer RTF_REGIONS_MAX + i */
} IoSlot;

struct _RtfWriter
{
  RtfWriterConfig config;
  gchar *location;
  RtfWriterCallbacks cb;
  gpointer user_data;
  RtfQueue *queue;
  RtfEngine *engine;
  gsize buf_align;
  /* of the first file; every file of a set has the same */
  gsize block, mem_align;
  gboolean stream;              /* a pipe or device: no index, no sync */
  gboolean device;              /* a block device: no index, no cut */

  /* files (writer thread, but cur is set before the thread runs) */
  RtfOutputConfig out_config;
  RtfOutput *cur;               /* where new frames go */
  RtfOutput *prev;              /* the previous file, frames in flight */
  RtfFileWorker *worker;        /* rotation only */
  RtfFrame *waiting;            /* popped, waits for the next file */
  const gchar *fail_op;         /* what failed, for the report */
  gchar *fail_path;

  /* durability (writer thread) */
  gint64 last_sync_ns;
  gint syncs_pending;           /* fdatasyncs in flight */
  gint64 sync_started;
  guint64 sync_covers;          /* frames the syncs in flight make durable */
  guint64 released_written;     /* frames released written, all files */

  /* thread start and end handshake */
  GMutex lock;
  GCond cond;
  gboolean started;
  gint start_error;
  gboolean finished;            /* rtf_writer_run() is done (under lock) */

  /* Given up by its owner (rtf_writer_abandon()): the thread finishes the
   * writes in flight, cuts the file back to the frames written before and
   * frees the writer.  Every callback but frame_done is off from then on;
   * cb_lock is held across each callback so the owner can turn them off. */
  GMutex cb_lock;
  gboolean abandoned;           /* under cb_lock and lock */
  gint refs;                    /* owner (+ thread once abandoned) */
  GDestroyNotify abandon_notify;
  gpointer abandon_data;

  /* writer-thread state */
  IoSlot *slots;
  guint n_slots;
  RtfFrame **in_flight;         /* taken frames, oldest first (a ring) */
  guint if_first;
  guint frames_in_flight;
  guint n_recorded;             /* of those, the first ones done and
                                 * recorded in their index */
  RtfFrameReport *misses;       /* scratch for rtf_queue_collect_missed() */
  guint max_misses;
  guint ops_in_flight;
  RtfFrame *blocked;            /* frame whose HEAD waits for an overlap */
  guint8 *carry;                /* file bytes of cur's last partial block */
  gsize carry_len;
  gint error;
  gboolean prefix_broken;       /* a frame was lost: no later one counts */
  gboolean failure_reported;
  gboolean files_closed;        /* close_files() ran */
  RtfCompletion *completions;
  /* fixed buffers: regions 0 .. n_regions - 1 of config.regions (those
   * seen so far), each registered when the first write from it goes out;
   * then each slot's staging memory */
  gpointer reg_base[RTF_REGIONS_MAX];
  gsize reg_size[RTF_REGIONS_MAX];
  gboolean reg_done[RTF_REGIONS_MAX];
  guint n_regions;
  gboolean registration_off;

  /* counters, under lock */
  RtfWriterStats stats;
  RtfWriterLatency latency;
};

static void
wlog (RtfWriter * w, RtfLogLevel level, const gchar * format, ...)
G_GNUC_PRINTF (3, 4);

     static void
         wlog (RtfWriter * w, RtfLogLevel level, const gchar * format, ...)
{
  gchar *msg;
  va_list args;

  if (w->cb.log == NULL)
    return;
  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_mutex_lock (&w->cb_lock);
  if (!w->abandoned)
    w->cb.log (level, msg, w->user_data);
  g_mutex_unlock (&w->cb_lock);
  g_free (msg);
}

/* Deadline callbacks, unless the owner is gone */
static void
emit_miss (RtfWriter * w, gboolean late, const RtfFrameReport * m)
{
  void (*cb) (const RtfFrameReport *, gpointer) =
      late ? w->cb.late_completion : w->cb.deadline_missed;

  if (cb == NULL)
    return;
  g_mutex_lock (&w->cb_lock);
  if (!w->abandoned)
    cb (m, w->user_data);
  g_mutex_unlock (&w->cb_lock);
}

static guint8 *
alloc_aligned (gsize align, gsize size)
{
  void *p = NULL;

  if (posix_memalign (&p, align, size) != 0)
    return NULL;
  memset (p, 0, size);
  return p;
}

static guint
engine_entries (RtfWriter * w)
{
  /* the frames' writes; per file a fallocate, an index write and two
   * fdatasyncs, for two files */
  return w->n_slots * RTF_LAYOUT_MAX_SEGMENTS + 8;
}

/* ---- file helper callbacks (its thread) -------------------------------- */

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

  if (w->cb.file_closed == NULL)
    return;
  g_mutex_lock (&w->cb_lock);
  if (!w->abandoned)
    w->cb.file_closed (info, w->user_data);
  g_mutex_unlock (&w->cb_lock);
}

static void
worker_deleted (const gchar * path, guint64 number, gpointer data)
{
  wlog (data, RTF_LOG_INFO, "deleted %s (max-files)", path);
}

static const RtfFileWorkerCallbacks worker_callbacks = {
  worker_wake, worker_closed, worker_deleted
};

RtfWriter *
rtf_writer_new (const RtfWriterConfig * config,
    const RtfWriterCallbacks * callbacks, gpointer user_data, gint * err,
    const gchar ** what)
{
  RtfWriter *w;
  RtfOutputStep step;
  gchar *path;
  guint i;

  g_return_val_if_fail (config->location != NULL, NULL);
  g_return_val_if_fail (config->io_depth >= 1, NULL);
  g_return_val_if_fail (config->max_frames >= 1, NULL);

  w = g_new0 (RtfWriter, 1);
  w->config = *config;
  if (config->regions)
    rtf_regions_ref (config->regions);
  w->location = g_strdup (config->location);
  w->config.location = w->location;
  w->cb = *callbacks;
  w->user_data = user_data;
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  g_mutex_init (&w->cb_lock);
  w->refs = 1;

  w->queue = rtf_queue_new (config->max_frames, config->max_bytes);
  if (what)
    *what = "open";
  if (w->queue == NULL) {
    *err = errno ? errno : ENOMEM;
    goto fail;
  }

  w->out_config.direct = config->direct;
  w->out_config.xflags = config->xflags;
  w->out_config.index = config->index;
  w->out_config.preallocate = config->preallocate;
  rtf_recording_id_new (&w->out_config.recording_id);
  if (config->rotate && config->max_file_size)
    w->out_config.preallocate = MIN (config->preallocate,
        config->max_file_size);
  path = config->rotate ? rtf_pattern_format (w->location,
      config->start_index) : g_strdup (w->location);
  w->cur = rtf_output_open (path, config->start_index, &w->out_config,
      RTF_FILE_REPLACE, err, &step);
  if (w->cur == NULL) {
    if (what)
      *what = rtf_output_step_name (step);
    g_free (path);
    goto fail;
  }
  g_free (path);
  w->block = w->cur->file.block;
  w->mem_align = w->cur->file.mem_align;
  w->stream = w->cur->file.stream;
  w->device = w->cur->file.device;

  w->buf_align = MAX (w->mem_align, (gsize) 4096);
  /* A pipe or device is written in order at its position: one write in
   * flight, or two frames' bytes would interleave. */
  w->n_slots = w->stream ? 1 : MIN (config->io_depth, config->max_frames);
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
  w->slots = g_new0 (IoSlot, w->n_slots);
  for (i = 0; i < w->n_slots; i++) {
    w->slots[i].head_block = alloc_aligned (w->buf_align, w->block);
    w->slots[i].tail_block = alloc_aligned (w->buf_align, w->block);
    if (!w->slots[i].head_block || !w->slots[i].tail_block) {
      *err = ENOMEM;
      goto fail;
    }
  }
  w->carry = g_malloc0 (w->block);
  w->in_flight = g_new0 (RtfFrame *, w->n_slots);
  w->max_misses = config->max_frames;
  w->misses = g_new0 (RtfFrameReport, w->max_misses);
  w->completions = g_new0 (RtfCompletion, engine_entries (w));

  w->stats.engine = config->engine == RTF_ENGINE_PSYNC ?
      RTF_ENGINE_PSYNC : RTF_ENGINE_IO_URING;
  w->stats.direct = w->cur->file.direct;
  w->stats.direct_errno = w->cur->file.direct_errno;
  w->stats.block = w->block;
  w->stats.mem_align = w->mem_align;
  w->stats.file_number = w->cur->number;
  w->stats.bytes_preallocated = w->cur->reserved_end;
  wlog (w, RTF_LOG_INFO, "opened %s: direct I/O %s, block %zu (%s), "
      "memory alignment %zu", w->cur->path, w->cur->file.direct ? "on" : "off",
      w->block, w->cur->file.align_source, w->mem_align);
  if (w->cur->mark_errno)
    wlog (w, RTF_LOG_INFO, "the files carry no rtframe mark (extended "
        "attributes: %s): the tools tell them by their index alone",
        g_strerror (w->cur->mark_errno));
  return w;

fail:
  rtf_writer_free (w);
  return NULL;
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

/* ---- writer thread ---------------------------------------------------- */

static IoSlot *
take_slot (RtfWriter * w, RtfFrame * f)
{
  guint i;

  for (i = 0; i < w->n_slots; i++) {
    if (!w->slots[i].used) {
      w->slots[i].used = TRUE;
      w->slots[i].n_ops = 0;
      f->io_slot = (gint) i;
      return &w->slots[i];
    }
  }
  g_assert_not_reached ();
  return NULL;
}

/* Copies frame bytes [from, from + len) out of its memory chunks. */
static void
gather (const RtfFrame * f, gsize from, gsize len, guint8 * dest)
{
  guint i;

  for (i = 0; i < f->n_iov && len > 0; i++) {
    gsize l = f->iov[i].iov_len;

    if (from >= l) {
      from -= l;
      continue;
    }
    l = MIN (l - from, len);
    memcpy (dest, (const guint8 *) f->iov[i].iov_base + from, l);
    dest += l;
    len -= l;
    from = 0;
  }
}

/* ---- fixed buffers ------------------------------------------------- */

static void
registration_failed (RtfWriter * w, gint res)
{
  w->registration_off = TRUE;
  wlog (w, RTF_LOG_INFO, "registered buffers refused (%s): writes pin their "
      "pages each time", g_strerror (-res));
}

/* Takes note of the regions the producer added since the last look.  They
 * are registered only when a write comes from them (fixed_buffer_index()):
 * registering pins the pages, and a buffer of a pool that upstream has not
 * filled yet has none, so registering it ahead would fault in 5.7 MB of
 * fresh memory while the first frame waits (measured: 20-45 ms for frame 0
 * with 3 streams, 2-9 ms a buffer, against 0.2-0.4 ms once it is filled). */
static void
learn_new_regions (RtfWriter * w)
{
  guint n;

  if (w->config.regions == NULL || w->registration_off
      || w->engine->ops->register_buffer == NULL)
    return;
  n = rtf_regions_count (w->config.regions);
  for (; w->n_regions < n; w->n_regions++)
    rtf_regions_get (w->config.regions, w->n_regions,
        &w->reg_base[w->n_regions], &w->reg_size[w->n_regions]);
}

/* The fixed buffer [buf, buf + len) lies in, its region registered now if
 * this is its first write; or -1. */
static gint
fixed_buffer_index (RtfWriter * w, const guint8 * buf, gsize len)
{
  guint i;

  for (i = 0; i < w->n_regions; i++) {
    const guint8 *b = w->reg_base[i];

    if (buf >= b && buf + len <= b + w->reg_size[i]) {
      if (!w->reg_done[i]) {
        gint res;

        /* refused once (RLIMIT_MEMLOCK): the regions registered before
         * stay fixed buffers, no new one is tried */
        if (w->registration_off)
          return -1;
        res = w->engine->ops->register_buffer (w->engine, i, w->reg_base[i],
            w->reg_size[i]);
        if (res < 0) {
          registration_failed (w, res);
          return -1;
        }
        w->reg_done[i] = TRUE;
      }
      return (gint) i;
    }
  }
  for (i = 0; i < w->n_slots; i++) {
    IoSlot *s = &w->slots[i];

    if (s->staging_registered && buf >= s->staging
        && buf + len <= s->staging + s->staging_size)
      return RTF_REGIONS_MAX + (gint) i;
  }
  return -1;
}

static gboolean
ensure_staging (RtfWriter * w, IoSlot * s, gsize size)
{
  guint index = RTF_REGIONS_MAX + (guint) (s - w->slots);

  if (s->staging_size >= size)
    return TRUE;
  /* Once per slot, for the largest frame seen: then reused.  The slot's
   * writes have all completed, so its old registration can go. */
  if (s->staging_registered) {
    w->engine->ops->register_buffer (w->engine, index, NULL, 0);
    s->staging_registered = FALSE;
  }
  free (s->staging);
  s->staging = alloc_aligned (w->buf_align, size);
  s->staging_size = s->staging ? size : 0;
  if (s->staging && !w->registration_off
      && w->engine->ops->register_buffer != NULL) {
    gint res = w->engine->ops->register_buffer (w->engine, index, s->staging,
        size);

    if (res < 0)
      registration_failed (w, res);
    s->staging_registered = res == 0;
  }
  return s->staging != NULL;
}

static void
submit_op (RtfWriter * w, WriteOp * op)
{
  gsize len = MIN (op->length - op->done, MAX_IO_CHUNK);
  gint index = fixed_buffer_index (w, op->buf + op->done, len);

  op->active = TRUE;
  w->ops_in_flight++;
  if (index >= 0) {
    g_mutex_lock (&w->lock);
    w->stats.writes_registered++;
    g_mutex_unlock (&w->lock);
  }
  w->engine->ops->write (w->engine, op->out->file.fd, op->buf + op->done,
      len, w->stream ? RTF_OFFSET_CURRENT : op->offset + op->done, index, op);
}

/* TRUE when a write in flight touches [offset, offset + length) of out. */
static gboolean
overlaps_in_flight (RtfWriter * w, RtfOutput * out, guint64 offset,
    gsize length)
{
  guint i, j;

  for (i = 0; i < w->n_slots; i++) {
    IoSlot *s = &w->slots[i];

    if (!s->used)
      continue;
    for (j = 0; j < s->n_ops; j++) {
      WriteOp *op = &s->ops[j];

      if (op->active && op->out == out && op->offset < offset + length
          && offset < op->offset + op->length)
        return TRUE;
    }
  }
  return FALSE;
}

static void fail (RtfWriter * w, gint err, RtfFrame * f);

/* Submits the HEAD of a frame whose other writes went already, once no
 * write in flight covers its block any more (that block still holds the
 * previous frame's zero-padded tail, in flight). */
static void
submit_blocked (RtfWriter * w)
{
  IoSlot *s;
  WriteOp *op;

  if (w->blocked == NULL)
    return;
  s = &w->slots[w->blocked->io_slot];
  op = &s->ops[0];
  if (overlaps_in_flight (w, op->out, op->offset, op->length))
    return;
  w->blocked = NULL;
  submit_op (w, op);
}

static void
submit_frame (RtfWriter * w, RtfFrame * f)
{
  RtfLayout layout;
  IoSlot *s = take_slot (w, f);
  RtfOutput *out = w->cur;
  gsize block = w->block;
  const guint8 *contiguous = f->n_iov == 1 ? f->iov[0].iov_base : NULL;
  gboolean head = FALSE;
  guint i;

  f->output = out;
  f->offset = out->offset;
  f->submit_ns = rtf_clock_now_ns ();
  out->frames_in_flight++;
  rtf_layout_plan (f->offset, f->size, block, w->mem_align, contiguous,
      &layout);

  for (i = 0; i < layout.n_seg; i++) {
    const RtfSegment *seg = &layout.seg[i];
    WriteOp *op = &s->ops[i];

    op->kind = RTF_IO_WRITE;
    op->frame = f;
    op->out = out;
    op->offset = seg->file_offset;
    op->length = seg->length;
    op->done = 0;
    op->active = FALSE;

    switch (seg->source) {
      case RTF_SEGMENT_FRAME:
        op->buf = contiguous + seg->frame_offset;
        break;
      case RTF_SEGMENT_TAIL:
        gather (f, seg->frame_offset, seg->frame_length, s->tail_block);
        memset (s->tail_block + seg->frame_length, 0,
            block - seg->frame_length);
        op->buf = s->tail_block;
        break;
      case RTF_SEGMENT_HEAD:
        memcpy (s->head_block, w->carry, layout.head_carry);
        gather (f, 0, seg->frame_length, s->head_block + layout.head_carry);
        memset (s->head_block + layout.head_carry + seg->frame_length, 0,
            block - layout.head_carry - seg->frame_length);
        op->buf = s->head_block;
        head = TRUE;
        break;
      case RTF_SEGMENT_STAGING:
        if (!ensure_staging (w, s, seg->length)) {
          s->used = FALSE;
          f->io_slot = -1;
          fail (w, ENOMEM, f);
          w->in_flight[(w->if_first + w->frames_in_flight) % w->n_slots] = f;
          w->frames_in_flight++;
          return;
        }
        gather (f, seg->frame_offset, seg->frame_length, s->staging);
        memset (s->staging + seg->frame_length, 0,
            seg->length - seg->frame_length);
        op->buf = s->staging;
        break;
    }
  }
  s->n_ops = layout.n_seg;
  f->pending = layout.n_seg;
  f->copied = !layout.zero_copy;

  /* Remember the file's bytes in the new last partial block: the next
   * frame's HEAD rewrites that block with them. */
  if (layout.end_carry > 0) {
    if (layout.end_block >= f->offset) {
      gather (f, layout.end_block - f->offset, layout.end_carry, w->carry);
    } else {
      /* the frame ends inside the block it started in */
      gather (f, 0, f->size, w->carry + layout.head_carry);
    }
  }
  w->carry_len = layout.end_carry;
  out->offset += f->size;
  w->in_flight[(w->if_first + w->frames_in_flight) % w->n_slots] = f;
  w->frames_in_flight++;

  /* Bulk first: it never overlaps anything in flight. */
  for (i = head ? 1 : 0; i < s->n_ops; i++)
    submit_op (w, &s->ops[i]);
  if (head) {
    w->blocked = f;
    submit_blocked (w);
  }
}

static void
reserve_ahead (RtfWriter * w)
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
  o->reserving = TRUE;
  w->ops_in_flight++;
  w->engine->ops->fallocate (w->engine, o->file.fd, FALLOC_FL_KEEP_SIZE,
      o->reserved_end, window, &o->reserve_tag);
  o->reserve_len = window;
}

static void
reserve_done (RtfWriter * w, RtfOutput * o, gint res)
{
  o->reserving = FALSE;
  if (res < 0) {
    /* Not fatal: the writes allocate as they go, and a full disk shows up
     * as ENOSPC on the write that needs the space. */
    o->reserve_off = TRUE;
    wlog (w, RTF_LOG_INFO, "preallocation stopped at %" G_GUINT64_FORMAT
        " of %s: %s", o->reserved_end, o->path, g_strerror (-res));
    return;
  }
  o->reserved_end += o->reserve_len;
  g_mutex_lock (&w->lock);
  w->stats.bytes_preallocated += o->reserve_len;
  g_mutex_unlock (&w->lock);
}

static void
describe_miss (RtfWriter * w, const RtfFrame * f, gint64 when,
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
    describe_miss (w, f, now, where, &m);
    emit_miss (w, FALSE, &m);
  }
}

/* The last write of f completed. */
static void
frame_written (RtfWriter * w, RtfFrame * f)
{
  gboolean late = f->times.deadline_ns != 0
      && f->complete_ns > f->times.deadline_ns;
  RtfFrameReport m;

  /* A deadline that passed while the thread was busy: reported now, just
   * before the completion. */
  if (late && !f->miss_reported)
    report_miss (w, f, f->complete_ns, RTF_FRAME_IN_FLIGHT);

  g_mutex_lock (&w->lock);
  rtf_histogram_add (&w->latency.arrival_to_done,
      f->complete_ns - f->times.arrival_ns);
  rtf_histogram_add (&w->latency.submit_to_done, f->complete_ns - f->submit_ns);
  if (late)
    w->stats.frames_late++;
  g_mutex_unlock (&w->lock);

  if (late && w->cb.late_completion) {
    describe_miss (w, f, f->complete_ns, RTF_FRAME_WRITTEN, &m);
    emit_miss (w, TRUE, &m);
  }
}

/* Reports the frames whose deadline has passed, and returns how long the
 * thread may wait before the next one passes (-1: no deadline pending). */
static gint64
check_deadlines (RtfWriter * w)
{
  gint64 now = rtf_clock_now_ns ();
  gint64 next = G_MAXINT64, queued_next;
  guint i, n;

  for (i = 0; i < w->frames_in_flight; i++) {
    RtfFrame *f = w->in_flight[(w->if_first + i) % w->n_slots];

    if (f->times.deadline_ns == 0 || f->miss_reported
        || f->state != RTF_FRAME_IN_FLIGHT)
      continue;
    if (f->times.deadline_ns <= now)
      report_miss (w, f, now, RTF_FRAME_IN_FLIGHT);
    else
      next = MIN (next, f->times.deadline_ns);
  }
  /* taken from the queue, waiting for the next file to be ready */
  if (w->waiting && w->waiting->times.deadline_ns != 0
      && !w->waiting->miss_reported) {
    if (w->waiting->times.deadline_ns <= now)
      report_miss (w, w->waiting, now, RTF_FRAME_QUEUED);
    else
      next = MIN (next, w->waiting->times.deadline_ns);
  }

  n = rtf_queue_collect_missed (w->queue, now, w->misses, w->max_misses,
      &queued_next);
  next = MIN (next, queued_next);
  if (n > 0) {
    g_mutex_lock (&w->lock);
    w->stats.frames_missed += n;
    g_mutex_unlock (&w->lock);
  }
  for (i = 0; i < n; i++)
    emit_miss (w, FALSE, &w->misses[i]);

  if (next == G_MAXINT64)
    return -1;
  now = rtf_clock_now_ns ();
  return next > now ? next - now : 0;
}

static void
op_done (RtfWriter * w, WriteOp * op, gint res)
{
  RtfFrame *f = op->frame;

  w->ops_in_flight--;
  op->active = FALSE;

  if (res == -EINTR || res == -EAGAIN) {
    submit_op (w, op);
    return;
  }
  if (res == 0)
    res = -ENOSPC;              /* no progress: the device took nothing */
  if (res > 0) {
    op->done += res;
    if (op->done < op->length) {
      if (op->done % w->block != 0) {
        fail (w, EIO, f);       /* cannot go on aligned */
      } else {
        submit_op (w, op);
        return;
      }
    }
  } else {
    fail (w, -res, f);
  }

  if (--f->pending == 0) {
    f->complete_ns = rtf_clock_now_ns ();
    w->slots[f->io_slot].used = FALSE;
    f->io_slot = -1;
    if (f->state == RTF_FRAME_IN_FLIGHT) {
      f->state = RTF_FRAME_WRITTEN;
      frame_written (w, f);
    }
  }
}

static void
fail (RtfWriter * w, gint err, RtfFrame * f)
{
  if (f) {
    f->state = RTF_FRAME_FAILED;
    f->error = err;
  }
  if (w->error == 0) {
    w->error = err;
    wlog (w, RTF_LOG_DEBUG, "write of frame %" G_GUINT64_FORMAT
        " failed: %s; stopping", f ? f->seq : 0, g_strerror (err));
  }
}

static void submit_index (RtfWriter * w, RtfOutput * o);
static void release_done (RtfWriter * w);

static void
sync_done (RtfWriter * w, gint res)
{
  gint64 took;

  if (res < 0) {
    w->fail_op = "sync";
    fail (w, -res, NULL);
  }
  if (--w->syncs_pending > 0 || w->error)
    return;
  took = rtf_clock_now_ns () - w->sync_started;
  g_mutex_lock (&w->lock);
  w->stats.frames_durable = MAX (w->stats.frames_durable, w->sync_covers);
  w->stats.syncs++;
  w->stats.sync_max_ns = MAX (w->stats.sync_max_ns, took);
  g_mutex_unlock (&w->lock);
}

static guint
reap (RtfWriter * w, gint64 timeout)
{
  gint n, i;

  n = w->engine->ops->reap (w->engine, timeout, w->completions,
      engine_entries (w));
  if (n < 0) {
    wlog (w, RTF_LOG_WARNING, "waiting for I/O failed: %s", g_strerror (-n));
    return 0;
  }
  for (i = 0; i < n; i++) {
    RtfIoKind *kind = w->completions[i].tag;
    gint res = w->completions[i].res;
    RtfIoTag *tag = (RtfIoTag *) kind;
    gint err;

    if (*kind != RTF_IO_WRITE)
      w->ops_in_flight--;
    switch (*kind) {
      case RTF_IO_WRITE:
        op_done (w, (WriteOp *) kind, res);
        break;
      case RTF_IO_RESERVE:
        reserve_done (w, tag->output, res);
        break;
      case RTF_IO_INDEX:
        if ((err = rtf_output_index_done (tag->output, res)) != 0) {
          w->fail_op = "write";
          g_free (w->fail_path);
          w->fail_path = g_strdup (tag->output->index_path);
          fail (w, err, NULL);
        } else {
          submit_index (w, tag->output);
        }
        break;
      case RTF_IO_SYNC_DATA:
      case RTF_IO_SYNC_INDEX:
        sync_done (w, res);
        break;
    }
  }
  return (guint) n;
}

/* The index records released frames left, once the last write is done */
static void
submit_index (RtfWriter * w, RtfOutput * o)
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
      RTF_INDEX_REC_MISSED : 0) | (f->copied ? RTF_INDEX_REC_COPIED : 0);
}

/* Decides the outcome of the frames whose writes are all done, in order,
 * and puts the record of each written one in its file's index.  After an
 * error every frame from the first failed one on is lost, even if its own
 * write went through: the file keeps only the whole prefix. */
static void
record_done (RtfWriter * w)
{
  gboolean abandoned;

  g_mutex_lock (&w->lock);
  abandoned = w->abandoned;
  g_mutex_unlock (&w->lock);

  while (w->n_recorded < w->frames_in_flight) {
    RtfFrame *f = w->in_flight[(w->if_first + w->n_recorded) % w->n_slots];
    RtfOutput *o = f->output;
    RtfIndexRecord r;

    if (f->pending > 0)
      break;
    /* abandoned: the owner was told every frame held is lost */
    if (f->state == RTF_FRAME_WRITTEN && (w->prefix_broken || abandoned))
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
    submit_index (w, w->prev);
  submit_index (w, w->cur);
}

/* Hands finished frames back, in order, once their index record is on
 * file too: a frame reported written can be found through its index
 * after a crash.  (After an error the records still held are written by
 * rtf_output_seal(); the frames go back at once.) */
static void
release_done (RtfWriter * w)
{
  record_done (w);
  while (w->n_recorded > 0) {
    RtfFrame *f = w->in_flight[w->if_first];
    RtfOutput *o = f->output;

    g_mutex_lock (&w->cb_lock);
    /* reported written once it can be found: its record on file, its
     * file at its name */
    if (f->state == RTF_FRAME_WRITTEN && !w->error && !w->abandoned
        && ((o->index_fd >= 0 && f->record_no > o->index_records_done)
            || !rtf_output_is_named (o))) {
      g_mutex_unlock (&w->cb_lock);
      break;
    }
    /* abandoned: the owner was told this frame is lost */
    if (f->state == RTF_FRAME_WRITTEN && w->abandoned)
      f->state = RTF_FRAME_FAILED;
    if (f->state == RTF_FRAME_WRITTEN) {
      w->released_written++;
      o->released_end = f->offset + f->size;
      o->released_records = f->record_no;
      g_mutex_lock (&w->lock);
      w->stats.bytes_written += f->size;
      if (f->copied)
        w->stats.frames_copied++;
      else
        w->stats.frames_zero_copy++;
      g_mutex_unlock (&w->lock);
    }
    o->frames_in_flight--;
    w->if_first = (w->if_first + 1) % w->n_slots;
    w->frames_in_flight--;
    w->n_recorded--;
    if (w->cb.frame_done)
      w->cb.frame_done (f, w->user_data);
    g_mutex_unlock (&w->cb_lock);
    rtf_queue_release (w->queue, f);
  }
}

static void
release_lost (RtfWriter * w, RtfFrame * f)
{
  f->state = RTF_FRAME_FAILED;
  g_mutex_lock (&w->cb_lock);
  if (w->cb.frame_done)
    w->cb.frame_done (f, w->user_data);
  g_mutex_unlock (&w->cb_lock);
  rtf_queue_release (w->queue, f);
}

/* Frames still queued after a failure: lost. */
static void
release_queued_as_lost (RtfWriter * w)
{
  RtfFrame *f;

  while ((f = rtf_queue_pop (w->queue)) != NULL)
    release_lost (w, f);
}

/* ---- files --------------------------------------------------------- */

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
  g_mutex_lock (&w->cb_lock);
  if (!w->abandoned)
    w->cb.file_opened (&info, w->user_data);
  g_mutex_unlock (&w->cb_lock);
}

/* f is the first frame of cur: the index header, the message. */
static void
begin_file (RtfWriter * w, RtfFrame * f)
{
  RtfIndexHeader h = { 0 };

  h.flags = w->config.checksums ? RTF_INDEX_HAS_CHECKSUMS : 0;
  h.frame_size = f->size;
  h.file_number = w->cur->number;
  h.deadline_ns =
      f->times.deadline_ns ? (guint64) (f->times.deadline_ns -
      f->times.arrival_ns)
      : 0;
  h.created_ns = g_get_real_time () * 1000;
  h.format = (gchar *) (f->format ? f->format : "");
  h.recording_id = w->out_config.recording_id;
  h.data_name = g_path_get_basename (w->cur->path);
  h.max_in_flight = w->n_slots;
  h.block = (guint32) w->block;
  rtf_output_begin (w->cur, &h, f->seq, frame_time (f), f->times.running_time);
  g_free (h.data_name);
  /* the header goes now, not with the first record */
  submit_index (w, w->cur);
  file_opened (w, w->cur);
  if (w->worker) {
    /* first: its frames are reported written once it has its name */
    if (!rtf_output_is_named (w->cur))
      rtf_file_worker_name (w->worker, w->cur);
    rtf_file_worker_current (w->worker, w->cur->number);
    rtf_file_worker_prepare (w->worker, w->cur->number + 1);
  }
}

static gboolean
needs_split (RtfWriter * w, const RtfFrame * f)
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

/* The previous file has no frame in flight and its index is written: the
 * helper finishes it (cut, fdatasync, close) off this thread. */
static void
retire_prev (RtfWriter * w)
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

/* Makes the prepared file the current one.  FALSE when it is not ready
 * yet (or the previous one still has frames in flight): try again on the
 * next wake-up, which the helper rings when the file is open. */
static gboolean
start_next_file (RtfWriter * w)
{
  guint64 number = w->cur->number + 1;
  RtfOutputStep step = RTF_OUTPUT_STEP_OPEN;
  RtfOutput *next;
  gint err;

  retire_prev (w);
  if (w->prev != NULL)
    return FALSE;
  next = rtf_file_worker_take (w->worker, number, &err, &step);
  if (next == NULL) {
    if (err != 0) {
      gchar *path = rtf_pattern_format (w->location, number);

      w->fail_op = rtf_output_step_name (step);
      g_free (w->fail_path);
      w->fail_path = path;
      fail (w, err, NULL);
    } else {
      rtf_file_worker_prepare (w->worker, number);
    }
    return FALSE;
  }
  if (next->file.block != w->block || next->file.stream != w->stream) {
    wlog (w, RTF_LOG_WARNING, "%s is on a filesystem with another block "
        "size (%zu, not %zu): the files of a set must share one", next->path,
        next->file.block, w->block);
    w->fail_op = "open";
    g_free (w->fail_path);
    w->fail_path = g_strdup (next->path);
    rtf_output_free (next, TRUE);
    fail (w, EXDEV, NULL);
    return FALSE;
  }
  g_mutex_lock (&w->lock);
  w->stats.bytes_preallocated += next->reserved_end;
  g_mutex_unlock (&w->lock);
  w->prev = w->cur;
  w->cur = next;
  w->carry_len = 0;
  retire_prev (w);
  wlog (w, RTF_LOG_DEBUG, "now writing %s", next->path);
  return TRUE;
}

/* Submits fdatasyncs of cur's data and index once sync-interval has passed
 * since the last, covering the frames released so far.  Only when every
 * write they must cover has completed: their frames are released and the
 * index holds nothing unwritten. */
static void
maybe_sync (RtfWriter * w)
{
  RtfOutput *o = w->cur;
  gint64 now;

  if (w->config.sync_interval == 0 || w->syncs_pending > 0 || w->error
      || w->stream || w->released_written <= w->stats.frames_durable
      || w->prev != NULL || !rtf_output_index_idle (o))
    return;
  if (w->worker && !rtf_file_worker_idle (w->worker))
    return;                     /* a finished file is still being synced */
  now = rtf_clock_now_ns ();
  if (now - w->last_sync_ns < (gint64) w->config.sync_interval)
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

/* Finishes the file(s) being written, on this thread (the end, a failure):
 * 0 or the first errno. */
static void
closed_info (RtfWriter * w, RtfOutput * o, gint err)
{
  RtfFileInfo info;

  rtf_output_info (o, &info);
  info.error = err;
  worker_closed (&info, w);
}

static gint
seal_outputs (RtfWriter * w)
{
  gint ret = 0, r;

  if (w->prev) {
    ret = rtf_output_seal (w->prev);
    if (ret == 0 && !w->prev->closed)
      closed_info (w, w->prev, 0);
    rtf_output_free (w->prev, FALSE);
    w->prev = NULL;
  }
  r = rtf_output_seal (w->cur);
  if (r != 0 && ret == 0) {
    ret = r;
    g_free (w->fail_path);
    w->fail_path = g_strdup (w->cur->path);
  }
  return ret;
}

static void
report_failure (RtfWriter * w)
{
  gint err = w->error;
  RtfQueueLevel level;
  guint64 lost, written;
  gint cut;
  gchar *detail, *path;

  if (w->waiting) {
    release_lost (w, w->waiting);
    w->waiting = NULL;
  }
  path = g_strdup (w->fail_path ? w->fail_path :
      w->prev ? w->prev->path : w->cur->path);
  cut = seal_outputs (w);
  if (w->worker)
    rtf_file_worker_drop_prepared (w->worker);
  w->failure_reported = TRUE;
  g_mutex_lock (&w->lock);
  w->stats.error = err;
  g_mutex_unlock (&w->lock);

  rtf_queue_get_level (w->queue, &level);
  lost = level.failed + level.held;
  written = level.written;
  detail = g_strdup_printf ("%s; %" G_GUINT64_FORMAT " frames written (the "
      "file%s cut back to whole frames: %s has %" G_GUINT64_FORMAT " bytes%s%s)"
      ", %" G_GUINT64_FORMAT " frames accepted but not written",
      g_strerror (err), written, w->config.rotate ? "s" : "", w->cur->path,
      w->cur->written_end, cut ? ", but that failed: " : "",
      cut ? g_strerror (cut) : "", lost);
  g_mutex_lock (&w->cb_lock);
  if (w->cb.failed && !w->abandoned)
    w->cb.failed (err, w->fail_op ? w->fail_op : "write", path, detail,
        w->user_data);
  g_mutex_unlock (&w->cb_lock);
  g_free (detail);
  g_free (path);
  rtf_queue_close (w->queue);
}

/* EOS: everything handed over is written; make the files whole and
 * durable.  The prepared next file goes: a set ends with a file that has
 * frames. */
static gint
end_at_eos (RtfWriter * w)
{
  gint ret;

  if (w->worker) {
    rtf_file_worker_drop_prepared (w->worker);
    rtf_file_worker_wait_idle (w->worker);
    g_free (w->fail_path);
    ret = rtf_file_worker_error (w->worker, &w->fail_path, &w->fail_op);
    if (ret != 0)
      return ret;
  }
  ret = seal_outputs (w);
  if (ret == 0) {
    g_mutex_lock (&w->lock);
    w->stats.frames_durable = w->released_written;
    g_mutex_unlock (&w->lock);
    /* a file of a set ends at EOS: reported closed now (before EOS
     * reaches the bus); frames after it start the next file */
    if (w->config.rotate && w->cur->begun && !w->cur->closed) {
      closed_info (w, w->cur, 0);
      w->cur->closed = TRUE;
    }
  } else {
    wlog (w, RTF_LOG_WARNING, "finishing %s failed: %s", w->cur->path,
        g_strerror (ret));
  }
  return ret;
}

/* The end of the thread: the last file closed, the helper stopped. */
static void
close_files (RtfWriter * w)
{
  if (w->waiting) {
    release_lost (w, w->waiting);
    w->waiting = NULL;
  }
  seal_outputs (w);
  if (w->worker) {
    rtf_file_worker_free (w->worker);
    w->worker = NULL;
  }
  /* (a recording that ended on an error says which) */
  if (w->cur->begun && !w->cur->closed)
    closed_info (w, w->cur, w->error);
  w->files_closed = TRUE;
}

static gboolean
setup_engine (RtfWriter * w)
{
  guint entries = engine_entries (w);
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
  wlog (w, RTF_LOG_INFO, "writer thread running: engine %s, %u frames in "
      "flight at most", w->engine->ops->name, w->n_slots);
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
  gboolean abandoned;

  g_mutex_lock (&w->lock);
  w->finished = TRUE;
  abandoned = w->abandoned;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  if (abandoned)
    writer_unref (w);
}

/* Takes frames while there is room in flight: a frame that must start a
 * new file waits (w->waiting) until the helper has it open. */
static void
take_frames (RtfWriter * w)
{
  while (w->blocked == NULL && w->frames_in_flight < w->n_slots) {
    RtfFrame *f = w->waiting;

    if (f == NULL && (f = rtf_queue_pop (w->queue)) == NULL)
      return;
    w->waiting = NULL;
    /* its memory may be in a region added after the top of the loop
     * (added before the frame was queued, so seen now) */
    learn_new_regions (w);
    if (needs_split (w, f) && !start_next_file (w)) {
      if (w->error)
        release_lost (w, f);
      else
        w->waiting = f;
      return;
    }
    if (!w->cur->begun)
      begin_file (w, f);
    reserve_ahead (w);
    submit_frame (w, f);
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

void
rtf_writer_run (RtfWriter * w)
{
  gboolean ok = setup_engine (w);

  g_mutex_lock (&w->lock);
  w->started = TRUE;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  if (!ok) {
    run_ended (w);
    return;
  }
  if (w->config.rotate)
    w->worker = rtf_file_worker_new (w->location, &w->out_config,
        w->config.max_files, w->config.threads, &worker_callbacks, w);
  w->last_sync_ns = rtf_clock_now_ns ();

  for (;;) {
    gboolean shutdown, abandoned;
    gint64 wait;

    rtf_queue_ack_doorbell (w->queue);
    shutdown = rtf_queue_is_shutdown (w->queue);
    learn_new_regions (w);

    reap (w, 0);
    submit_blocked (w);
    release_done (w);
    if (w->prev)
      retire_prev (w);
    if (w->worker && !w->error) {
      gchar *path = NULL;
      const gchar *op = NULL;
      gint err = rtf_file_worker_error (w->worker, &path, &op);

      if (err) {
        w->fail_op = op;
        g_free (w->fail_path);
        w->fail_path = path;
        fail (w, err, NULL);
      } else {
        g_free (path);
      }
    }

    g_mutex_lock (&w->lock);
    abandoned = w->abandoned;
    g_mutex_unlock (&w->lock);

    if (abandoned && !w->error) {
      /* the owner is gone: take nothing more, let the writes in flight
       * end, then keep only what the owner was told is written */
      if (w->waiting) {
        release_lost (w, w->waiting);
        w->waiting = NULL;
      }
      if (w->frames_in_flight == 0 && w->ops_in_flight == 0) {
        /* keep only what the owner was told is written */
        if (w->prev)
          rtf_output_keep_released (w->prev);
        rtf_output_keep_released (w->cur);
        break;
      }
      wait = -1;
    } else if (w->error) {
      if (w->ops_in_flight == 0 && !w->failure_reported) {
        release_done (w);
        report_failure (w);
      }
      if (w->failure_reported) {
        /* what is still handed over is lost */
        release_queued_as_lost (w);
        if (rtf_queue_barrier_pending (w->queue))
          rtf_queue_barrier_done (w->queue, w->error);
        if (shutdown)
          break;
      }
      wait = -1;
    } else {
      take_frames (w);
      maybe_sync (w);
      wait = check_deadlines (w);
      if (all_written (w)) {
        if (rtf_queue_barrier_pending (w->queue)) {
          rtf_queue_barrier_done (w->queue, end_at_eos (w));
          continue;
        }
        if (shutdown) {
          RtfQueueLevel level;

          rtf_queue_get_level (w->queue, &level);
          if (level.held == 0)
            break;
        }
      }
    }
    /* Nothing more to do now: wait for a completion, the doorbell, or the
     * next deadline. */
    reap (w, wait);
  }

  close_files (w);
  rtf_engine_free (w->engine);
  w->engine = NULL;
  run_ended (w);
}

gboolean
rtf_writer_wait_finished (RtfWriter * w, gint64 timeout_ns)
{
  gint64 end = g_get_monotonic_time () + timeout_ns / 1000;
  gboolean finished;

  g_mutex_lock (&w->lock);
  while (!w->finished) {
    if (timeout_ns < 0)
      g_cond_wait (&w->cond, &w->lock);
    else if (!g_cond_wait_until (&w->cond, &w->lock, end))
      break;
  }
  finished = w->finished;
  g_mutex_unlock (&w->lock);
  return finished;
}

gboolean
rtf_writer_abandon (RtfWriter * w, GDestroyNotify notify, gpointer data,
    RtfWriterStats * final, RtfWriterLatency * latency)
{
  g_mutex_lock (&w->cb_lock);
  g_mutex_lock (&w->lock);
  if (w->finished) {
    g_mutex_unlock (&w->lock);
    g_mutex_unlock (&w->cb_lock);
    return FALSE;
  }
  w->abandoned = TRUE;
  g_atomic_int_inc (&w->refs);  /* the thread's, dropped when it ends */
  w->abandon_notify = notify;
  w->abandon_data = data;
  g_mutex_unlock (&w->lock);
  g_mutex_unlock (&w->cb_lock);

  /* From here no frame is counted written any more (release_done()):
   * what is held is lost.  The frames not taken go back at once. */
  rtf_queue_close (w->queue);
  release_queued_as_lost (w);
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

gint
rtf_writer_wait_started (RtfWriter * w)
{
  gint ret;

  g_mutex_lock (&w->lock);
  while (!w->started)
    g_cond_wait (&w->cond, &w->lock);
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
  gint result = 0;

  switch (rtf_queue_barrier (w->queue, &result)) {
    case RTF_QUEUE_OK:
      return result;
    case RTF_QUEUE_CLOSED:
      return w->error ? w->error : EIO;
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
  g_assert (!w->abandoned);
  writer_destroy (w);
}

static void
writer_destroy (RtfWriter * w)
{
  guint i;

  /* Frames never taken by the thread (it never ran, or failed to start). */
  if (w->queue)
    release_queued_as_lost (w);
  g_assert (w->worker == NULL);
  /* The thread never got to close the first file (it could not start): it
   * still holds the space reserved at open.  Give it back, leaving what a
   * recording without frames leaves (an empty file and index). */
  if (!w->files_closed && w->cur)
    (void) rtf_output_seal (w->cur);
  rtf_output_free (w->prev, FALSE);
  rtf_output_free (w->cur, FALSE);
  g_free (w->fail_path);
  for (i = 0; w->slots && i < w->n_slots; i++) {
    free (w->slots[i].staging);
    free (w->slots[i].head_block);
    free (w->slots[i].tail_block);
  }
  g_free (w->slots);
  g_free (w->carry);
  g_free (w->in_flight);
  g_free (w->misses);
  g_free (w->completions);
  rtf_regions_unref (w->config.regions);
  rtf_queue_free (w->queue);
  g_free (w->location);
  if (w->abandon_notify)
    w->abandon_notify (w->abandon_data);
  g_cond_clear (&w->cond);
  g_mutex_clear (&w->lock);
  g_mutex_clear (&w->cb_lock);
  g_free (w);
}
