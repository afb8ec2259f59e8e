/* rtframe: the writer as a ring (pre-record on disk) - every frame is
 * written into a rotated set whose oldest files go as the ring turns,
 * and a recording keeps the files holding its frames by linking them into
 * its own directory (rtf-file-keep.h), never by copying them.
 *
 * The producer decides which frames a recording keeps (the same rules as
 * a recording from memory: gst/gstrtframerecord.c) and tells the writer
 * through asks, each taking effect when the writer takes the first frame
 * numbered at or after the one it names: a recording's start (keep every
 * frame from `from_seq` on), its end (no frame after `last_seq`), and the
 * ring's floor (no recording will ever want a frame before it).  Taken
 * with the frames, in order, the asks reach the file helper in order:
 * the files a recording keeps are linked before any later turn of the
 * ring may delete them.
 *
 * Producer calls under the writer's lock; the rest on the writer thread. */
#include "rtf-writer-private.h"

typedef enum
{
  ASK_KEEP_BEGIN,
  ASK_KEEP_END,
  ASK_FLOOR
} AskKind;

typedef struct
{
  AskKind kind;
  guint64 at_seq;               /* taken with the first frame numbered so */
  guint64 seq;                  /* BEGIN: its first frame; END: its last;
                                 * FLOOR: the floor */
  guint64 keep;                 /* the recording's number */
  guint64 running_time;         /* BEGIN: of its first frame; END: of its
                                 * last (NONE: not known) */
  gchar *dir;                   /* BEGIN: where it keeps its files */
  guint64 frames, bytes, prerecorded;   /* END: what it holds */
} Ask;

static void
ask_free (Ask * a)
{
  g_free (a->dir);
  g_free (a);
}

/* ---- the producer's side ------------------------------------------------ */

static void
push_ask (RtfWriter * w, Ask * a)
{
  g_mutex_lock (&w->lock);
  g_queue_push_tail (&w->ring_asks, a);
  g_mutex_unlock (&w->lock);
  rtf_queue_wake_consumer (w->queue);
}

void
rtf_writer_keep_begin (RtfWriter * w, guint64 keep, guint64 from_seq,
    guint64 from_rt, const gchar * dir, guint64 at_seq)
{
  Ask *a = g_new0 (Ask, 1);

  a->kind = ASK_KEEP_BEGIN;
  a->running_time = from_rt;
  a->at_seq = at_seq;
  a->seq = from_seq;
  a->keep = keep;
  a->dir = g_strdup (dir);
  push_ask (w, a);
}

void
rtf_writer_keep_end (RtfWriter * w, guint64 last_seq, guint64 last_rt,
    guint64 frames, guint64 bytes, guint64 prerecorded, guint64 at_seq)
{
  Ask *a = g_new0 (Ask, 1);

  a->kind = ASK_KEEP_END;
  a->running_time = last_rt;
  a->at_seq = at_seq;
  a->seq = last_seq;
  a->frames = frames;
  a->bytes = bytes;
  a->prerecorded = prerecorded;
  push_ask (w, a);
}

/* Once a frame: the newest floor replaces one not yet taken (a floor
 * taken early is still safe: the recordings asked after it start at or
 * after it), so the asks never grow with the frames */
void
rtf_writer_ring_floor (RtfWriter * w, guint64 floor, guint64 at_seq)
{
  Ask *tail;

  g_mutex_lock (&w->lock);
  tail = g_queue_peek_tail (&w->ring_asks);
  if (tail && tail->kind == ASK_FLOOR) {
    tail->seq = MAX (tail->seq, floor);
    g_mutex_unlock (&w->lock);
    return;
  }
  g_mutex_unlock (&w->lock);
  tail = g_new0 (Ask, 1);
  tail->kind = ASK_FLOOR;
  tail->at_seq = at_seq;
  tail->seq = floor;
  push_ask (w, tail);
}

/* ---- the writer thread -------------------------------------------------- */

static void
keep_begin (RtfWriter * w, Ask * a)
{
  RtfOutput *open[2] = { NULL, NULL };
  RtfRecordingInfo info = { 0 };
  guint n = 0;

  /* the files being written with frames of it: the one before a split
   * (still finishing its writes) and the current one once it has begun;
   * a file that begins later is kept as it begins */
  if (w->prev && w->prev->frames > 0 && w->prev->last_seq >= a->seq)
    open[n++] = w->prev;
  if (w->cur->begun)
    open[n++] = w->cur;
  rtf_file_worker_keep (w->worker, a->keep, a->dir, a->seq, open, n);
  g_free (w->keep_dir);
  w->keep_dir = g_strdup (a->dir);
  w->keep_number = a->keep;
  w->keep_first_seq = a->seq;
  w->keep_first_rt = a->running_time;
  w->keep_open = TRUE;
  g_mutex_lock (&w->lock);
  w->stats.recordings++;
  g_mutex_unlock (&w->lock);
  info.number = a->keep;
  info.path = a->dir;
  info.first_seq = a->seq;
  info.first_running_time = a->running_time;
  info.last_seq = info.last_running_time = G_MAXUINT64;
  RTF_WRITER_CALLBACK (w, recording_started, &info);
}

static void
keep_end (RtfWriter * w, Ask * a)
{
  RtfRecordingInfo info = { 0 };

  if (!w->keep_open)
    return;
  w->keep_open = FALSE;
  info.number = w->keep_number;
  info.path = w->keep_dir;
  info.first_seq = w->keep_first_seq;
  info.last_seq = a->seq;
  info.first_running_time = w->keep_first_rt;
  info.last_running_time = a->running_time;
  info.frames = a->frames;
  info.bytes = a->bytes;
  info.prerecorded = a->prerecorded;
  RTF_WRITER_CALLBACK (w, recording_stopped, &info);
}

/* The asks due at frame seq (G_MAXUINT64: every one, at the end), in the
 * order they were made.  Before the frame begins a file: a recording that
 * ends before it does not keep the file it begins. */
void
rtf_writer_ring_take (RtfWriter * w, guint64 seq)
{
  Ask *a;

  if (!w->config.ring)
    return;
  for (;;) {
    g_mutex_lock (&w->lock);
    a = g_queue_peek_head (&w->ring_asks);
    if (a && a->at_seq <= seq)
      g_queue_pop_head (&w->ring_asks);
    else
      a = NULL;
    g_mutex_unlock (&w->lock);
    if (a == NULL)
      return;
    switch (a->kind) {
      case ASK_KEEP_BEGIN:
        keep_begin (w, a);
        break;
      case ASK_KEEP_END:
        keep_end (w, a);
        break;
      case ASK_FLOOR:
        rtf_file_worker_ring_floor (w->worker, a->seq);
        break;
    }
    ask_free (a);
  }
}

/* cur begins (its name asked for): a recording on keeps it too */
void
rtf_writer_ring_file_begun (RtfWriter * w)
{
  RtfOutput *open[1] = { w->cur };

  if (w->config.ring && w->keep_open)
    rtf_file_worker_keep (w->worker, w->keep_number, w->keep_dir,
        G_MAXUINT64, open, 1);
}

/* The end: the asks no frame took (a recording that ends with the
 * stream), then what they hold goes */
void
rtf_writer_ring_end (RtfWriter * w)
{
  if (!w->config.ring)
    return;
  rtf_writer_ring_take (w, G_MAXUINT64);
  g_clear_pointer (&w->keep_dir, g_free);
}

void
rtf_writer_ring_clear (RtfWriter * w)
{
  g_queue_clear_full (&w->ring_asks, (GDestroyNotify) ask_free);
  g_clear_pointer (&w->keep_dir, g_free);
}
