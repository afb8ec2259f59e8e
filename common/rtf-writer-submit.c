/* rtframe: the writer's I/O - its slots (one per frame in flight), the
 * aligned writes a frame is laid out as (rtf-layout.c), staging and fixed
 * buffers, and the completions that come back from the engine.
 *
 * Everything here runs on the writer thread. */
#include "rtf-writer-private.h"
#include "rtf-clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static guint8 *
alloc_aligned (gsize align, gsize size)
{
  void *p = NULL;

  if (posix_memalign (&p, align, size) != 0)
    return NULL;
  memset (p, 0, size);
  return p;
}

guint
rtf_writer_engine_entries (RtfWriter * w)
{
  /* the frames' writes; per file a fallocate, an index write and two
   * fdatasyncs, for two files */
  return w->n_slots * RTF_LAYOUT_MAX_SEGMENTS + 8;
}

/* The slots, their head and tail blocks, and the scratch of the thread */
gboolean
rtf_writer_slots_new (RtfWriter * w)
{
  guint i;

  w->slots = g_new0 (IoSlot, w->n_slots);
  for (i = 0; i < w->n_slots; i++) {
    w->slots[i].head_block = alloc_aligned (w->buf_align, w->block);
    w->slots[i].tail_block = alloc_aligned (w->buf_align, w->block);
    if (!w->slots[i].head_block || !w->slots[i].tail_block)
      return FALSE;
  }
  w->carry = g_malloc0 (w->block);
  w->in_flight = g_new0 (RtfFrame *, w->n_slots);
  w->completions = g_new0 (RtfCompletion, rtf_writer_engine_entries (w));
  return TRUE;
}

void
rtf_writer_slots_free (RtfWriter * w)
{
  guint i;

  for (i = 0; w->slots && i < w->n_slots; i++) {
    free (w->slots[i].staging);
    free (w->slots[i].head_block);
    free (w->slots[i].tail_block);
  }
  g_free (w->slots);
  g_free (w->carry);
  g_free (w->in_flight);
  g_free (w->completions);
}

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
  rtf_writer_log (w, RTF_LOG_INFO, "registered buffers refused (%s): writes "
      "pin their pages each time", g_strerror (-res));
}

/* Takes note of the regions the producer added since the last look.  They
 * are registered only when a write comes from them (fixed_buffer_index()):
 * registering pins the pages, and a buffer of a pool that upstream has not
 * filled yet has none, so registering it ahead would fault in 5.7 MB of
 * fresh memory while the first frame waits (measured: 20-45 ms for frame 0
 * with 3 streams, 2-9 ms a buffer, against 0.2-0.4 ms once it is filled). */
void
rtf_writer_learn_new_regions (RtfWriter * w)
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

/* ---- writes ---------------------------------------------------------- */

static void
submit_op (RtfWriter * w, WriteOp * op)
{
  gsize len = MIN (op->length - op->done, RTF_WRITER_MAX_IO_CHUNK);
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

/* Submits the HEAD of a frame whose other writes went already, once no
 * write in flight covers its block any more (that block still holds the
 * previous frame's zero-padded tail, in flight). */
void
rtf_writer_submit_blocked (RtfWriter * w)
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

/* Where a segment's bytes come from: the frame's own memory, or one of
 * the slot's buffers filled now.  FALSE: no staging memory. */
static gboolean
fill_op (RtfWriter * w, IoSlot * s, RtfFrame * f, const RtfLayout * layout,
    const RtfSegment * seg, WriteOp * op, const guint8 * contiguous)
{
  gsize block = w->block;

  switch (seg->source) {
    case RTF_SEGMENT_FRAME:
      op->buf = contiguous + seg->frame_offset;
      break;
    case RTF_SEGMENT_TAIL:
      gather (f, seg->frame_offset, seg->frame_length, s->tail_block);
      memset (s->tail_block + seg->frame_length, 0, block - seg->frame_length);
      op->buf = s->tail_block;
      break;
    case RTF_SEGMENT_HEAD:
      memcpy (s->head_block, w->carry, layout->head_carry);
      gather (f, 0, seg->frame_length, s->head_block + layout->head_carry);
      memset (s->head_block + layout->head_carry + seg->frame_length, 0,
          block - layout->head_carry - seg->frame_length);
      op->buf = s->head_block;
      break;
    case RTF_SEGMENT_STAGING:
      if (!ensure_staging (w, s, seg->length))
        return FALSE;
      gather (f, seg->frame_offset, seg->frame_length, s->staging);
      memset (s->staging + seg->frame_length, 0,
          seg->length - seg->frame_length);
      op->buf = s->staging;
      break;
  }
  return TRUE;
}

static void
push_in_flight (RtfWriter * w, RtfFrame * f)
{
  w->in_flight[(w->if_first + w->frames_in_flight) % w->n_slots] = f;
  w->frames_in_flight++;
}

/* Lays f out as aligned writes at the end of the current file and submits
 * them; it joins the frames in flight (even when it failed at once). */
void
rtf_writer_submit_frame (RtfWriter * w, RtfFrame * f)
{
  RtfLayout layout;
  IoSlot *s = take_slot (w, f);
  RtfOutput *out = w->cur;
  const guint8 *contiguous = f->n_iov == 1 ? f->iov[0].iov_base : NULL;
  gboolean head = FALSE;
  guint i;

  f->output = out;
  f->offset = out->offset;
  f->submit_ns = rtf_clock_now_ns ();
  out->frames_in_flight++;
  rtf_layout_plan (f->offset, f->size, w->block, w->mem_align, contiguous,
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
    if (!fill_op (w, s, f, &layout, seg, op, contiguous)) {
      s->used = FALSE;
      f->io_slot = -1;
      rtf_writer_fail_at (w, RTF_FAIL_WRITE, ENOMEM, NULL, f);
      push_in_flight (w, f);
      return;
    }
    head |= seg->source == RTF_SEGMENT_HEAD;
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
  push_in_flight (w, f);

  /* Bulk first: it never overlaps anything in flight. */
  for (i = head ? 1 : 0; i < s->n_ops; i++)
    submit_op (w, &s->ops[i]);
  if (head) {
    w->blocked = f;
    rtf_writer_submit_blocked (w);
  }
}

/* ---- completions --------------------------------------------------- */

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
        /* cannot go on aligned */
        rtf_writer_fail_at (w, RTF_FAIL_WRITE, EIO, NULL, f);
      } else {
        submit_op (w, op);
        return;
      }
    }
  } else {
    rtf_writer_fail_at (w, RTF_FAIL_WRITE, -res, NULL, f);
  }

  if (--f->pending == 0) {
    f->complete_ns = rtf_clock_now_ns ();
    w->slots[f->io_slot].used = FALSE;
    f->io_slot = -1;
    if (f->state == RTF_FRAME_IN_FLIGHT) {
      f->state = RTF_FRAME_WRITTEN;
      rtf_writer_frame_written (w, f);
    }
  }
}

static void
index_written (RtfWriter * w, RtfOutput * o, gint res)
{
  gint err = rtf_output_index_done (o, res);

  if (err != 0)
    rtf_writer_fail_at (w, RTF_FAIL_WRITE, err, o->index_path, NULL);
  else
    rtf_writer_submit_index (w, o);
}

guint
rtf_writer_reap (RtfWriter * w, gint64 timeout)
{
  gint n, i;

  n = w->engine->ops->reap (w->engine, timeout, w->completions,
      rtf_writer_engine_entries (w));
  if (n < 0) {
    rtf_writer_log (w, RTF_LOG_WARNING, "waiting for I/O failed: %s",
        g_strerror (-n));
    return 0;
  }
  for (i = 0; i < n; i++) {
    RtfIoKind *kind = w->completions[i].tag;
    gint res = w->completions[i].res;
    RtfIoTag *tag = (RtfIoTag *) kind;

    if (*kind != RTF_IO_WRITE)
      w->ops_in_flight--;
    switch (*kind) {
      case RTF_IO_WRITE:
        op_done (w, (WriteOp *) kind, res);
        break;
      case RTF_IO_RESERVE:
        rtf_writer_reserve_done (w, tag->output, res);
        break;
      case RTF_IO_INDEX:
        index_written (w, tag->output, res);
        break;
      case RTF_IO_SYNC_DATA:
      case RTF_IO_SYNC_INDEX:
        rtf_writer_sync_done (w, res);
        break;
    }
  }
  return (guint) n;
}
