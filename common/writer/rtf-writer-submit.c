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

/* The plans (one per queue cell, with their head and tail blocks), the
 * staging buffers, the ring of taken frames, the scratch of the thread.
 * The blocks are one allocation, left untouched until a frame's layout
 * fills them (and pads them with zeros): with the cells of a pre-record
 * backlog (up to 4096) a block each, apart and zeroed, cost 66 MB of
 * resident memory for 12 frames of 230 KB held (measured). */
gboolean
rtf_writer_plans_new (RtfWriter * w)
{
  gsize stride = (w->block + w->buf_align - 1) / w->buf_align * w->buf_align;
  void *blocks = NULL;
  guint i;

  w->ring_size = rtf_queue_capacity (w->queue);
  w->plans = g_new0 (FramePlan, w->ring_size);
  if (posix_memalign (&blocks, w->buf_align, 2 * stride * w->ring_size) != 0)
    return FALSE;
  w->blocks = blocks;
  for (i = 0; i < w->ring_size; i++) {
    w->plans[i].head_block = w->blocks + 2 * i * stride;
    w->plans[i].tail_block = w->plans[i].head_block + stride;
    w->plans[i].staging = -1;
  }
  w->staging = g_new0 (Staging, w->n_slots);
  w->carry = g_malloc0 (w->block);
  w->in_flight = g_new0 (RtfFrame *, w->ring_size);
  w->completions = g_new0 (RtfCompletion, rtf_writer_engine_entries (w));
  return TRUE;
}

void
rtf_writer_plans_free (RtfWriter * w)
{
  guint i;

  free (w->blocks);
  for (i = 0; w->staging && i < w->n_slots; i++)
    free (w->staging[i].buf);
  g_free (w->plans);
  g_free (w->staging);
  g_free (w->carry);
  g_free (w->in_flight);
  g_free (w->completions);
}

static inline FramePlan *
plan_of (RtfWriter * w, const RtfFrame * f)
{
  return &w->plans[f->cell];
}

static inline RtfFrame *
ring_at (RtfWriter * w, guint i)
{
  return w->in_flight[(w->if_first + i) % w->ring_size];
}

static inline gboolean
is_backlog (const RtfFrame * f)
{
  return (f->flags & RTF_FRAME_PRERECORDED) != 0;
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
    Staging *st = &w->staging[i];

    if (st->registered && buf >= st->buf && buf + len <= st->buf + st->size)
      return RTF_REGIONS_MAX + (gint) i;
  }
  return -1;
}

/* A staging buffer of at least size bytes for f's plan: once per buffer,
 * for the largest frame seen, then reused.  FALSE: no memory. */
static gboolean
take_staging (RtfWriter * w, FramePlan * p, gsize size)
{
  Staging *st = NULL;
  guint i, index;

  for (i = 0; i < w->n_slots && st == NULL; i++)
    if (!w->staging[i].used)
      st = &w->staging[i];
  g_assert (st != NULL);        /* one per turn, and p has one */
  index = RTF_REGIONS_MAX + (guint) (st - w->staging);
  st->used = TRUE;
  p->staging = (gint) (st - w->staging);
  if (st->size >= size)
    return TRUE;
  /* its writes have all completed, so its old registration can go */
  if (st->registered) {
    w->engine->ops->register_buffer (w->engine, index, NULL, 0);
    st->registered = FALSE;
  }
  free (st->buf);
  st->buf = alloc_aligned (w->buf_align, size);
  st->size = st->buf ? size : 0;
  if (st->buf && !w->registration_off
      && w->engine->ops->register_buffer != NULL) {
    gint res = w->engine->ops->register_buffer (w->engine, index, st->buf,
        size);

    if (res < 0)
      registration_failed (w, res);
    st->registered = res == 0;
  }
  return st->buf != NULL;
}

static void
put_staging (RtfWriter * w, FramePlan * p)
{
  if (p->staging >= 0)
    w->staging[p->staging].used = FALSE;
  p->staging = -1;
}

/* ---- writes ---------------------------------------------------------- */

static void
submit_op (RtfWriter * w, WriteOp * op)
{
  gsize len = MIN (op->length - op->done, RTF_WRITER_MAX_IO_CHUNK);
  gint index = fixed_buffer_index (w, op->buf + op->done, len);

  op->state = RTF_OP_ACTIVE;
  w->ops_in_flight++;
  if (index >= 0) {
    g_mutex_lock (&w->lock);
    w->stats.writes_registered++;
    g_mutex_unlock (&w->lock);
  }
  w->engine->ops->write (w->engine, op->out->file.fd, op->buf + op->done,
      len, w->stream ? RTF_OFFSET_CURRENT : op->offset + op->done, index, op);
}

static inline gboolean
op_pending (const WriteOp * op)
{
  return op->state == RTF_OP_PLANNED || op->state == RTF_OP_ACTIVE;
}

/* The write of an earlier frame that still has to land in [offset,
 * offset + length) of f's file (submitted and not completed, or - also
 * with only_unsubmitted - of a frame whose turn has not come): its frame,
 * or NULL.  Frames lie in the file in ring order, so the search ends at
 * the first frame wholly before the range. */
static RtfFrame *
earlier_write_to (RtfWriter * w, RtfFrame * f, guint64 offset, gsize length,
    gboolean only_unsubmitted)
{
  guint i, at;

  for (at = 0; at < w->frames_in_flight && ring_at (w, at) != f; at++);
  for (i = at; i-- > 0;) {
    RtfFrame *g = ring_at (w, i);
    FramePlan *p = plan_of (w, g);
    guint j;

    if (g->output != f->output || g->offset + g->size + w->block <= offset)
      break;
    if (only_unsubmitted && g->submitted)
      continue;
    for (j = 0; j < p->n_ops; j++) {
      WriteOp *op = &p->ops[j];

      if (op_pending (op) && op->offset < offset + length
          && offset < op->offset + op->length)
        return g;
    }
  }
  return NULL;
}

/* f may take a turn: no write of a frame whose turn has not come still
 * has to land in its HEAD's block (f's HEAD would wait for it while f
 * holds a turn, and that frame might find none: frames get their turns
 * in the order of the blocks they share) */
static gboolean
may_take_turn (RtfWriter * w, RtfFrame * f)
{
  WriteOp *head = &plan_of (w, f)->ops[0];

  return head->source != RTF_SEGMENT_HEAD
      || earlier_write_to (w, f, head->offset, head->length, TRUE) == NULL;
}

/* Where a segment's bytes come from: the frame's own memory, or one of
 * its plan's blocks filled now.  (STAGING is filled when submitted.) */
static void
fill_op (RtfWriter * w, FramePlan * p, RtfFrame * f, const RtfLayout * layout,
    const RtfSegment * seg, WriteOp * op, const guint8 * contiguous)
{
  gsize block = w->block;

  op->buf = NULL;
  switch (seg->source) {
    case RTF_SEGMENT_FRAME:
      op->buf = contiguous + seg->frame_offset;
      break;
    case RTF_SEGMENT_TAIL:
      gather (f, seg->frame_offset, seg->frame_length, p->tail_block);
      memset (p->tail_block + seg->frame_length, 0, block - seg->frame_length);
      op->buf = p->tail_block;
      break;
    case RTF_SEGMENT_HEAD:
      memcpy (p->head_block, w->carry, layout->head_carry);
      gather (f, 0, seg->frame_length, p->head_block + layout->head_carry);
      memset (p->head_block + layout->head_carry + seg->frame_length, 0,
          block - layout->head_carry - seg->frame_length);
      op->buf = p->head_block;
      break;
    case RTF_SEGMENT_STAGING:
      break;
  }
}

/* f's HEAD rewrites the last block of the frame laid out before it.  If
 * that frame is a backlog frame whose TAIL has not been submitted, it
 * never will be: f's HEAD carries its bytes and completes it (op->also).
 * Only a TAIL alone in its block can go so (a frame of at least a block
 * before it).  (A live frame is complete on its own: it never waits for
 * the frame after it.) */
static void
take_over_tail (RtfWriter * w, RtfFrame * f, WriteOp * head)
{
  RtfFrame *prev = w->last_planned;
  FramePlan *pp;
  WriteOp *tail;

  if (prev == NULL || prev->output != f->output || prev->submitted
      || !is_backlog (prev))
    return;
  pp = plan_of (w, prev);
  tail = &pp->ops[pp->n_ops - 1];
  if (tail->source != RTF_SEGMENT_TAIL || tail->state != RTF_OP_PLANNED
      || tail->offset != head->offset || prev->offset >= head->offset)
    return;
  tail->state = RTF_OP_CANCELLED;
  pp->own_left--;
  head->also = prev;            /* prev->pending counts it instead */
}

/* A backlog frame's last partial block as a TAIL of its own, not the end
 * of its STAGING write: the next frame's HEAD can then take it over while
 * the backlog frame waits for its turn, so a live frame after a backlog
 * never waits for the backlog (one more block written per copied backlog
 * frame). */
static void
tail_apart (RtfWriter * w, RtfLayout * layout)
{
  RtfSegment *last = &layout->seg[layout->n_seg - 1];
  gsize rest;

  if (last->source != RTF_SEGMENT_STAGING || w->block <= 1
      || last->frame_length % w->block == 0)
    return;
  rest = last->frame_length % w->block;
  if (last->length > w->block) {
    g_assert (layout->n_seg < RTF_LAYOUT_MAX_SEGMENTS);
    layout->seg[layout->n_seg++] = (RtfSegment) {
    RTF_SEGMENT_TAIL, last->file_offset + last->length - w->block, w->block,
          last->frame_offset + last->frame_length - rest, rest};
    last->length -= w->block;
    last->frame_length -= rest;
  } else {
    last->source = RTF_SEGMENT_TAIL;
  }
}

static void
push_in_flight (RtfWriter * w, RtfFrame * f)
{
  w->in_flight[(w->if_first + w->frames_in_flight) % w->ring_size] = f;
  w->frames_in_flight++;
}

/* Lays f out at the end of the current file: its writes, the blocks its
 * HEAD and TAIL write, the bytes the next frame's HEAD carries. */
static void
plan_frame (RtfWriter * w, RtfFrame * f)
{
  RtfLayout layout;
  FramePlan *p = plan_of (w, f);
  RtfOutput *out = w->cur;
  const guint8 *contiguous = f->n_iov == 1 ? f->iov[0].iov_base : NULL;
  guint i;

  f->output = out;
  f->offset = out->offset;
  f->submitted = FALSE;
  out->frames_in_flight++;
  rtf_layout_plan (f->offset, f->size, w->block, w->mem_align, contiguous,
      &layout);
  if (is_backlog (f))
    tail_apart (w, &layout);
  for (i = 0; i < layout.n_seg; i++) {
    const RtfSegment *seg = &layout.seg[i];
    WriteOp *op = &p->ops[i];

    op->kind = RTF_IO_WRITE;
    op->frame = f;
    op->also = NULL;
    op->out = out;
    op->source = seg->source;
    op->frame_offset = seg->frame_offset;
    op->frame_length = seg->frame_length;
    op->offset = seg->file_offset;
    op->length = seg->length;
    op->done = 0;
    op->state = RTF_OP_PLANNED;
    fill_op (w, p, f, &layout, seg, op, contiguous);
    if (seg->source == RTF_SEGMENT_HEAD)
      take_over_tail (w, f, op);
  }
  p->n_ops = p->own_left = layout.n_seg;
  p->staging = -1;
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
  w->last_planned = f;
  push_in_flight (w, f);
}

/* Submits f's HEAD once no earlier write still has to land in its block
 * (that block holds the previous frame's zero-padded tail): TRUE when it
 * went (or f has none waiting).  *blocker: the frame it waits for. */
static gboolean
submit_head (RtfWriter * w, RtfFrame * f, RtfFrame ** blocker)
{
  FramePlan *p = plan_of (w, f);
  WriteOp *head = &p->ops[0];
  RtfFrame *g;

  if (head->source != RTF_SEGMENT_HEAD || head->state != RTF_OP_PLANNED)
    return TRUE;
  if ((g = earlier_write_to (w, f, head->offset, head->length, FALSE))) {
    if (blocker)
      *blocker = g;
    return FALSE;
  }
  w->heads_waiting--;
  submit_op (w, head);
  return TRUE;
}

/* f's turn: its staging copy, its bulk (it never overlaps an earlier
 * write), its HEAD when its block is free. */
static void
submit_frame (RtfWriter * w, RtfFrame * f)
{
  FramePlan *p = plan_of (w, f);
  guint i;

  f->submitted = TRUE;
  f->submit_ns = rtf_clock_now_ns ();
  w->n_unsubmitted--;
  w->frames_active++;
  if (is_backlog (f))
    w->backlog_active++;
  for (i = 0; i < p->n_ops; i++) {
    WriteOp *op = &p->ops[i];

    if (op->source != RTF_SEGMENT_STAGING || op->state != RTF_OP_PLANNED)
      continue;
    if (!take_staging (w, p, op->length)) {
      /* (f stays lost: drop_planned() ends its writes) */
      rtf_writer_fail_at (w, RTF_FAIL_WRITE, ENOMEM, NULL, f);
      return;
    }
    gather (f, op->frame_offset, op->frame_length, w->staging[p->staging].buf);
    memset (w->staging[p->staging].buf + op->frame_length, 0,
        op->length - op->frame_length);
    op->buf = w->staging[p->staging].buf;
  }
  for (i = 0; i < p->n_ops; i++) {
    WriteOp *op = &p->ops[i];

    if (op->state == RTF_OP_PLANNED && op->source != RTF_SEGMENT_HEAD)
      submit_op (w, op);
  }
  if (p->ops[0].source == RTF_SEGMENT_HEAD && p->ops[0].state == RTF_OP_PLANNED) {
    w->heads_waiting++;
    submit_head (w, f, NULL);
  }
}

gboolean
rtf_writer_has_turn (RtfWriter * w)
{
  return w->frames_active < w->n_slots;
}

gboolean
rtf_writer_may_take_live (RtfWriter * w)
{
  /* Without a backlog, no more frames taken than have turns: a crash
   * leaves at most n_slots frames past the last index record (the index
   * header's max_in_flight).  Behind a backlog, live frames are written
   * while the backlog's records wait: the header says so. */
  return rtf_writer_has_turn (w) && (w->backlog_taken > 0
      || w->frames_in_flight < w->n_slots);
}

void
rtf_writer_take_frame (RtfWriter * w, RtfFrame * f)
{
  plan_frame (w, f);
  w->n_unsubmitted++;
  if (is_backlog (f))
    w->backlog_taken++;
  if (!is_backlog (f) && rtf_writer_has_turn (w) && may_take_turn (w, f))
    submit_frame (w, f);
}

/* The HEADs waiting for their block, oldest first */
static void
submit_waiting_heads (RtfWriter * w)
{
  guint i;

  for (i = 0; i < w->frames_in_flight && w->heads_waiting > 0; i++) {
    RtfFrame *f = ring_at (w, i);

    if (f->submitted)
      submit_head (w, f, NULL);
  }
}

void
rtf_writer_submit_ready (RtfWriter * w)
{
  guint i;

  if (w->error)
    return;
  submit_waiting_heads (w);
  /* live frames first, then the backlog while it has turns; each in
   * order */
  for (i = 0; i < w->frames_in_flight && w->n_unsubmitted > 0; i++) {
    RtfFrame *f = ring_at (w, i);

    if (f->submitted || is_backlog (f) || f->state != RTF_FRAME_IN_FLIGHT)
      continue;
    if (!rtf_writer_has_turn (w))
      return;
    if (!may_take_turn (w, f))
      break;                    /* (the ones after it share its wait) */
    submit_frame (w, f);
  }
  for (i = 0; i < w->frames_in_flight && w->n_unsubmitted > 0; i++) {
    RtfFrame *f = ring_at (w, i);

    if (f->submitted || !is_backlog (f) || f->state != RTF_FRAME_IN_FLIGHT)
      continue;
    if (!rtf_writer_has_turn (w) || w->backlog_active >= w->backlog_turns
        || !may_take_turn (w, f))
      return;
    submit_frame (w, f);
  }
}

/* ---- completions --------------------------------------------------- */

/* Every write f needs has completed (its own, and the next frame's HEAD
 * that carries its tail) */
static void
frame_complete (RtfWriter * w, RtfFrame * f)
{
  f->complete_ns = rtf_clock_now_ns ();
  if (f->state != RTF_FRAME_IN_FLIGHT)
    return;
  f->state = RTF_FRAME_WRITTEN;
  rtf_writer_frame_written (w, f);
  /* frames ahead of it are still being written (a backlog): what holds
   * its bytes may go now, it is reported in order later */
  if (f != ring_at (w, 0) && w->cb.frame_unpinned
      && (!w->config.unpin_behind_backlog
          || (ring_at (w, 0)->flags & RTF_FRAME_PRERECORDED)))
    RTF_WRITER_CALLBACK (w, frame_unpinned, f);
}

/* One of f's own writes is over: its turn ends with the last */
static void
own_op_over (RtfWriter * w, RtfFrame * f)
{
  FramePlan *p = plan_of (w, f);

  if (--p->own_left > 0)
    return;
  put_staging (w, p);
  if (f->submitted) {
    w->frames_active--;
    if (is_backlog (f))
      w->backlog_active--;
  }
}

static void
op_done (RtfWriter * w, WriteOp * op, gint res)
{
  RtfFrame *f = op->frame;

  w->ops_in_flight--;
  op->state = RTF_OP_DONE;

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
    if (op->also)
      rtf_writer_fail_at (w, RTF_FAIL_WRITE, -res, NULL, op->also);
  }

  own_op_over (w, f);
  if (--f->pending == 0)
    frame_complete (w, f);
  if (op->also && op->also->pending > 0 && --op->also->pending == 0)
    frame_complete (w, op->also);
}

void
rtf_writer_drop_planned (RtfWriter * w)
{
  guint i, j;

  if (w->n_unsubmitted == 0 && w->heads_waiting == 0)
    return;
  for (i = 0; i < w->frames_in_flight; i++) {
    RtfFrame *f = ring_at (w, i);
    FramePlan *p = plan_of (w, f);

    for (j = 0; j < p->n_ops; j++) {
      WriteOp *op = &p->ops[j];

      if (op->state != RTF_OP_PLANNED)
        continue;
      op->state = RTF_OP_CANCELLED;
      f->state = RTF_FRAME_FAILED;
      if (op->also) {
        op->also->state = RTF_FRAME_FAILED;
        if (op->also->pending > 0)
          op->also->pending--;
      }
      if (f->submitted)
        own_op_over (w, f);
      else
        p->own_left--;
      f->pending--;
    }
    if (!f->submitted) {
      f->submitted = TRUE;      /* (it will not be) */
      w->n_unsubmitted--;
    }
  }
  w->heads_waiting = 0;
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

/* A preallocation (rtf-writer-files.c reserve_ahead()) completed */
static void
reserve_done (RtfWriter * w, RtfOutput * o, gint res)
{
  o->reserving = FALSE;
  if (res < 0) {
    /* Not fatal: the writes allocate as they go, and a full disk shows up
     * as ENOSPC on the write that needs the space.  What it allocated
     * before failing (ext4, XFS keep it) is given back when the file is
     * sealed: not now, while frames are written there (on ext4 only a
     * truncate to the size frees blocks past EOF, which would cut a write
     * that just grew the file).  A refill takes at most half of the room
     * (reserve_ahead()), so this is another writer filling the disk. */
    o->reserve_off = TRUE;
    o->alloc_end = MAX (o->alloc_end, o->reserved_end + o->reserve_len);
    rtf_writer_log (w, RTF_LOG_INFO, "preallocation stopped at %"
        G_GUINT64_FORMAT " of %s: %s", o->reserved_end, o->path,
        g_strerror (-res));
    return;
  }
  o->reserved_end += o->reserve_len;
  g_mutex_lock (&w->lock);
  w->stats.bytes_preallocated += o->reserve_len;
  g_mutex_unlock (&w->lock);
}

/* One of the fdatasyncs rtf-writer-files.c submitted completed: the
 * frames it covers are durable once all have */
static void
sync_done (RtfWriter * w, gint res)
{
  gint64 took;

  if (res < 0)
    rtf_writer_fail_at (w, RTF_FAIL_SYNC, -res, NULL, NULL);
  if (--w->syncs_pending > 0 || w->error)
    return;
  took = rtf_clock_now_ns () - w->sync_started;
  g_mutex_lock (&w->lock);
  w->stats.frames_durable = MAX (w->stats.frames_durable, w->sync_covers);
  w->stats.syncs++;
  w->stats.sync_max_ns = MAX (w->stats.sync_max_ns, took);
  rtf_histogram_add (&w->latency.sync_to_done, (guint64) MAX (took, 0));
  g_mutex_unlock (&w->lock);
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
        reserve_done (w, tag->output, res);
        break;
      case RTF_IO_INDEX:
        index_written (w, tag->output, res);
        break;
      case RTF_IO_SYNC_DATA:
      case RTF_IO_SYNC_INDEX:
        sync_done (w, res);
        break;
    }
  }
  return (guint) n;
}
