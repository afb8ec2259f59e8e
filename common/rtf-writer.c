/* rtframe: the writer engine.
 *
 * One thread (rtf_writer_run()) owns the file and the I/O engine.  It takes
 * frames from the queue in order, lays each out as block-aligned writes
 * (rtf-layout.c), keeps up to io_depth frames in flight (in its own FIFO),
 * and releases frames in order as their writes complete, so the file
 * always holds a whole prefix of the stream.  Its waits end at the earliest
 * deadline of the frames it holds or that are queued, so a frame that is
 * late is reported when its deadline passes, not when its write ends.  It reserves file space ahead of the writes
 * with fallocate(FALLOC_FL_KEEP_SIZE), submitted like a write so it never
 * holds up a frame. */
#include "rtf-writer.h"
#include "rtf-clock.h"
#include "rtf-layout.h"

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
  RtfFrame *frame;
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
  RtfFile file;
  RtfEngine *engine;
  gsize buf_align;

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
  RtfMiss *misses;              /* scratch for rtf_queue_collect_missed() */
  guint max_misses;
  guint ops_in_flight;
  RtfFrame *blocked;            /* frame whose HEAD waits for an overlap */
  guint64 offset;               /* where the next frame starts */
  guint8 *carry;                /* file bytes of the block at carry_block */
  gsize carry_len;
  guint64 written_end;          /* end of the whole prefix of frames */
  guint64 reserved_end;         /* fallocate'd up to here */
  gboolean reserving;           /* a fallocate is in flight */
  gboolean reserve_off;
  gint error;
  gboolean prefix_broken;       /* a frame was lost: no later one counts */
  gboolean failure_reported;
  RtfCompletion *completions;
  /* fixed buffers: regions 0 .. n_registered - 1 of config.regions, then
   * each slot's staging memory */
  gpointer reg_base[RTF_REGIONS_MAX];
  gsize reg_size[RTF_REGIONS_MAX];
  guint n_registered;
  gboolean registration_off;

  /* counters, under lock */
  RtfWriterStats stats;
  RtfWriterLatency latency;
};

/* tag of the fallocate requests; write ops are tagged with their WriteOp */
static const gint reserve_tag_storage = 0;
#define RESERVE_TAG ((gpointer) & reserve_tag_storage)

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
emit_miss (RtfWriter * w, gboolean late, const RtfMiss * m)
{
  void (*cb) (const RtfMiss *, gpointer) =
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

RtfWriter *
rtf_writer_new (const RtfWriterConfig * config,
    const RtfWriterCallbacks * callbacks, gpointer user_data, gint * err)
{
  RtfWriter *w;
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
  w->file.fd = -1;
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  g_mutex_init (&w->cb_lock);
  w->refs = 1;

  w->queue = rtf_queue_new (config->max_frames, config->max_bytes);
  if (w->queue == NULL) {
    *err = errno ? errno : ENOMEM;
    goto fail;
  }
  if (!rtf_file_open (&w->file, w->location, config->direct, err))
    goto fail;

  w->buf_align = MAX (w->file.mem_align, (gsize) 4096);
  /* A pipe or device is written in order at its position: one write in
   * flight, or two frames' bytes would interleave. */
  w->n_slots = w->file.stream ? 1 : MIN (config->io_depth, config->max_frames);
  if (w->file.stream)
    w->config.preallocate = 0;
  w->slots = g_new0 (IoSlot, w->n_slots);
  for (i = 0; i < w->n_slots; i++) {
    w->slots[i].head_block = alloc_aligned (w->buf_align, w->file.block);
    w->slots[i].tail_block = alloc_aligned (w->buf_align, w->file.block);
    if (!w->slots[i].head_block || !w->slots[i].tail_block) {
      *err = ENOMEM;
      goto fail;
    }
  }
  w->carry = g_malloc0 (w->file.block);
  w->in_flight = g_new0 (RtfFrame *, w->n_slots);
  w->max_misses = config->max_frames;
  w->misses = g_new0 (RtfMiss, w->max_misses);
  w->completions = g_new0 (RtfCompletion,
      w->n_slots * RTF_LAYOUT_MAX_SEGMENTS + 2);

  w->stats.engine = config->engine == RTF_ENGINE_PSYNC ?
      RTF_ENGINE_PSYNC : RTF_ENGINE_IO_URING;
  w->stats.direct = w->file.direct;
  w->stats.direct_errno = w->file.direct_errno;
  w->stats.block = w->file.block;
  w->stats.mem_align = w->file.mem_align;
  wlog (w, RTF_LOG_INFO, "opened %s: direct I/O %s, block %zu (%s), "
      "memory alignment %zu", w->location, w->file.direct ? "on" : "off",
      w->file.block, w->file.align_source, w->file.mem_align);
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

/* Registers the regions the producer added since the last look. */
static void
register_new_regions (RtfWriter * w)
{
  guint n;

  if (w->config.regions == NULL || w->registration_off
      || w->engine->ops->register_buffer == NULL)
    return;
  n = rtf_regions_count (w->config.regions);
  while (w->n_registered < n) {
    gpointer base;
    gsize size;
    gint res;

    rtf_regions_get (w->config.regions, w->n_registered, &base, &size);
    res = w->engine->ops->register_buffer (w->engine, w->n_registered, base,
        size);
    if (res < 0) {
      registration_failed (w, res);
      return;
    }
    w->reg_base[w->n_registered] = base;
    w->reg_size[w->n_registered] = size;
    w->n_registered++;
  }
}

/* The fixed buffer [buf, buf + len) lies in, or -1. */
static gint
buffer_index (RtfWriter * w, const guint8 * buf, gsize len)
{
  guint i;

  for (i = 0; i < w->n_registered; i++) {
    const guint8 *b = w->reg_base[i];

    if (buf >= b && buf + len <= b + w->reg_size[i])
      return (gint) i;
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
  gint index = buffer_index (w, op->buf + op->done, len);

  op->active = TRUE;
  w->ops_in_flight++;
  if (index >= 0) {
    g_mutex_lock (&w->lock);
    w->stats.writes_registered++;
    g_mutex_unlock (&w->lock);
  }
  w->engine->ops->write (w->engine, w->file.fd, op->buf + op->done, len,
      w->file.stream ? RTF_OFFSET_CURRENT : op->offset + op->done, index, op);
}

/* TRUE when a write in flight touches [offset, offset + length). */
static gboolean
overlaps_in_flight (RtfWriter * w, guint64 offset, gsize length)
{
  guint i, j;

  for (i = 0; i < w->n_slots; i++) {
    IoSlot *s = &w->slots[i];

    if (!s->used)
      continue;
    for (j = 0; j < s->n_ops; j++) {
      WriteOp *op = &s->ops[j];

      if (op->active && op->offset < offset + length
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
  if (overlaps_in_flight (w, op->offset, op->length))
    return;
  w->blocked = NULL;
  submit_op (w, op);
}

static void
submit_frame (RtfWriter * w, RtfFrame * f)
{
  RtfLayout layout;
  IoSlot *s = take_slot (w, f);
  gsize block = w->file.block;
  const guint8 *contiguous = f->n_iov == 1 ? f->iov[0].iov_base : NULL;
  gboolean head = FALSE;
  guint i;

  f->offset = w->offset;
  f->submit_ns = rtf_clock_now_ns ();
  rtf_layout_plan (f->offset, f->size, block, w->file.mem_align, contiguous,
      &layout);

  for (i = 0; i < layout.n_seg; i++) {
    const RtfSegment *seg = &layout.seg[i];
    WriteOp *op = &s->ops[i];

    op->frame = f;
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
  w->offset += f->size;
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
  guint64 window = w->config.preallocate;

  if (window == 0 || w->reserve_off || w->reserving || w->error)
    return;
  /* Keep at least half a window reserved beyond the next frame. */
  if (w->offset + window / 2 < w->reserved_end)
    return;
  if (w->reserved_end < w->offset)
    w->reserved_end = w->offset;
  w->reserving = TRUE;
  w->ops_in_flight++;
  w->engine->ops->fallocate (w->engine, w->file.fd, FALLOC_FL_KEEP_SIZE,
      w->reserved_end, window, RESERVE_TAG);
}

static void
reserve_done (RtfWriter * w, gint res)
{
  w->reserving = FALSE;
  if (res < 0) {
    /* Not fatal: the writes allocate as they go, and a full disk shows up
     * as ENOSPC on the write that needs the space. */
    w->reserve_off = TRUE;
    wlog (w, RTF_LOG_INFO, "preallocation stopped at %" G_GUINT64_FORMAT
        ": %s", w->reserved_end, g_strerror (-res));
    return;
  }
  w->reserved_end += w->config.preallocate;
  g_mutex_lock (&w->lock);
  w->stats.bytes_preallocated += w->config.preallocate;
  g_mutex_unlock (&w->lock);
}

static void
describe_miss (RtfWriter * w, const RtfFrame * f, gint64 when,
    RtfFrameState where, RtfMiss * m)
{
  RtfQueueLevel level;

  rtf_queue_get_level (w->queue, &level);
  rtf_miss_init (m, f, when, where, level.queued, level.queued_bytes,
      level.held);
}

static void
report_miss (RtfWriter * w, RtfFrame * f, gint64 now)
{
  RtfMiss m;

  f->miss_reported = TRUE;
  g_mutex_lock (&w->lock);
  w->stats.frames_missed++;
  g_mutex_unlock (&w->lock);
  if (w->cb.deadline_missed) {
    describe_miss (w, f, now, RTF_FRAME_IN_FLIGHT, &m);
    emit_miss (w, FALSE, &m);
  }
}

/* The last write of f completed. */
static void
frame_written (RtfWriter * w, RtfFrame * f)
{
  gboolean late = f->deadline_ns != 0 && f->complete_ns > f->deadline_ns;
  RtfMiss m;

  /* A deadline that passed while the thread was busy: reported now, just
   * before the completion. */
  if (late && !f->miss_reported)
    report_miss (w, f, f->complete_ns);

  g_mutex_lock (&w->lock);
  rtf_histogram_add (&w->latency.arrival_to_done,
      f->complete_ns - f->arrival_ns);
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

    if (f->deadline_ns == 0 || f->miss_reported
        || f->state != RTF_FRAME_IN_FLIGHT)
      continue;
    if (f->deadline_ns <= now)
      report_miss (w, f, now);
    else
      next = MIN (next, f->deadline_ns);
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
      if (op->done % w->file.block != 0) {
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

static guint
reap (RtfWriter * w, gint64 timeout)
{
  gint n, i;

  n = w->engine->ops->reap (w->engine, timeout, w->completions,
      w->n_slots * RTF_LAYOUT_MAX_SEGMENTS + 2);
  if (n < 0) {
    wlog (w, RTF_LOG_WARNING, "waiting for I/O failed: %s", g_strerror (-n));
    return 0;
  }
  for (i = 0; i < n; i++) {
    if (w->completions[i].tag == RESERVE_TAG) {
      w->ops_in_flight--;
      reserve_done (w, w->completions[i].res);
    } else {
      op_done (w, w->completions[i].tag, w->completions[i].res);
    }
  }
  return (guint) n;
}

/* Hands finished frames back, in order.  After an error every frame from
 * the first failed one on is lost, even if its own write went through: the
 * file keeps only the whole prefix. */
static void
release_done (RtfWriter * w)
{
  while (w->frames_in_flight > 0) {
    RtfFrame *f = w->in_flight[w->if_first];

    if (f->pending > 0)
      break;
    g_mutex_lock (&w->cb_lock);
    /* abandoned: the owner was told this frame is lost */
    if (f->state == RTF_FRAME_WRITTEN && (w->prefix_broken || w->abandoned))
      f->state = RTF_FRAME_FAILED;
    if (f->state == RTF_FRAME_FAILED)
      w->prefix_broken = TRUE;

    if (f->state == RTF_FRAME_WRITTEN) {
      g_assert (f->offset == w->written_end);
      w->written_end = f->offset + f->size;
      g_mutex_lock (&w->lock);
      w->stats.bytes_written = w->written_end;
      if (f->copied)
        w->stats.frames_copied++;
      else
        w->stats.frames_zero_copy++;
      g_mutex_unlock (&w->lock);
    }
    w->if_first = (w->if_first + 1) % w->n_slots;
    w->frames_in_flight--;
    if (w->cb.frame_done)
      w->cb.frame_done (f, w->user_data);
    g_mutex_unlock (&w->cb_lock);
    rtf_queue_release (w->queue, f);
  }
}

/* Frames still queued after a failure: lost. */
static void
release_queued_as_lost (RtfWriter * w)
{
  RtfFrame *f;

  while ((f = rtf_queue_pop (w->queue)) != NULL) {
    f->state = RTF_FRAME_FAILED;
    g_mutex_lock (&w->cb_lock);
    if (w->cb.frame_done)
      w->cb.frame_done (f, w->user_data);
    g_mutex_unlock (&w->cb_lock);
    rtf_queue_release (w->queue, f);
  }
}

/* After a failure, once nothing is in flight: cut the file back to the
 * whole frames, tell the owner, refuse further frames. */
static void
report_failure (RtfWriter * w)
{
  gint err = w->error;
  RtfQueueLevel level;
  guint64 lost, written;
  gint cut;
  gchar *detail;

  cut = rtf_file_finish (&w->file, w->written_end, w->reserved_end);
  w->failure_reported = TRUE;
  g_mutex_lock (&w->lock);
  w->stats.error = err;
  g_mutex_unlock (&w->lock);

  rtf_queue_get_level (w->queue, &level);
  lost = level.failed + level.held;
  written = level.written;
  detail = g_strdup_printf ("%s; %" G_GUINT64_FORMAT " frames written (file "
      "cut back to their %" G_GUINT64_FORMAT " bytes%s%s), %" G_GUINT64_FORMAT
      " frames accepted but not written", g_strerror (err), written,
      w->written_end, cut ? ", but that failed: " : "",
      cut ? g_strerror (cut) : "", lost);
  g_mutex_lock (&w->cb_lock);
  if (w->cb.failed && !w->abandoned)
    w->cb.failed (err, "write", detail, w->user_data);
  g_mutex_unlock (&w->cb_lock);
  g_free (detail);
  rtf_queue_close (w->queue);
}

static gint
finish_file (RtfWriter * w)
{
  gint ret = rtf_file_finish (&w->file, w->offset, w->reserved_end);

  /* the reserved space past the end is gone: reserve again when needed */
  w->reserved_end = w->offset;
  if (ret != 0)
    wlog (w, RTF_LOG_WARNING, "finishing %s failed: %s", w->location,
        g_strerror (ret));
  return ret;
}

static gboolean
setup_engine (RtfWriter * w)
{
  guint entries = w->n_slots * RTF_LAYOUT_MAX_SEGMENTS + 2;
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
    w->engine = rtf_engine_psync_new (entries, doorbell);

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
writer_finished (RtfWriter * w)
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

void
rtf_writer_run (RtfWriter * w)
{
  gboolean ok = setup_engine (w);

  g_mutex_lock (&w->lock);
  w->started = TRUE;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  if (!ok) {
    writer_finished (w);
    return;
  }

  for (;;) {
    RtfFrame *f;
    gboolean shutdown, abandoned;
    gint64 wait;

    rtf_queue_ack_doorbell (w->queue);
    shutdown = rtf_queue_is_shutdown (w->queue);
    register_new_regions (w);

    reap (w, 0);
    submit_blocked (w);
    release_done (w);

    g_mutex_lock (&w->lock);
    abandoned = w->abandoned;
    g_mutex_unlock (&w->lock);

    if (abandoned && !w->error) {
      /* the owner is gone: take nothing more, let the writes in flight
       * end, then keep only what the owner was told is written */
      if (w->frames_in_flight == 0 && w->ops_in_flight == 0) {
        rtf_file_finish (&w->file, w->written_end, w->reserved_end);
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
      while (w->blocked == NULL && w->frames_in_flight < w->n_slots
          && (f = rtf_queue_pop (w->queue)) != NULL) {
        /* its memory may be in a region added after the top of the loop
         * (added before the frame was queued, so seen now) */
        register_new_regions (w);
        reserve_ahead (w);
        submit_frame (w, f);
      }
      wait = check_deadlines (w);
      if (w->frames_in_flight == 0 && w->ops_in_flight == 0) {
        if (rtf_queue_barrier_pending (w->queue)) {
          rtf_queue_barrier_done (w->queue, finish_file (w));
          continue;
        }
        if (shutdown) {
          RtfQueueLevel level;

          rtf_queue_get_level (w->queue, &level);
          if (level.held == 0) {
            finish_file (w);
            break;
          }
        }
      }
    }
    /* Nothing more to do now: wait for a completion, the doorbell, or the
     * next deadline. */
    reap (w, wait);
  }

  rtf_engine_free (w->engine);
  w->engine = NULL;
  writer_finished (w);
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
  rtf_file_close (&w->file);
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
