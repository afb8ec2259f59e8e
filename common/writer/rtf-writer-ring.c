/* rtframe: the writer as a ring (pre-record on disk) - every frame is
 * written into a rotated set whose oldest files go as the ring turns,
 * and a recording keeps the files holding its frames by linking them into
 * its own directory (rtf-file-keep.h), never by copying them.
 *
 * The producer decides which frames a recording keeps (the same rules as
 * a recording from memory: gst/gstrtframerecord.c) and tells the writer
 * through asks, each taking effect when the writer takes the first frame
 * numbered at or after the one it names: a recording's start (keep every
 * frame from `from_seq` on) and its end (no frame after `last_seq`), in a
 * queue; and the ring's floor (no recording will ever want a frame before
 * it), in one slot the newest replaces, taken whenever no recording's ask
 * waits.  Taken with the frames, in order, the asks reach the file
 * helper in order: the files a recording keeps are linked before any
 * later turn of the ring may delete them.
 *
 * A writer is a ring when its config names a keep_location.  Producer
 * calls under the writer's lock; the rest on the writer thread. */
#include "rtf-writer-private.h"

typedef enum
{
  ASK_KEEP_BEGIN,
  ASK_KEEP_END
} AskKind;

typedef struct
{
  AskKind kind;
  guint64 at_seq;               /* taken with the first frame numbered so */
  RtfKeepInfo info;             /* the recording */
} Ask;

static void
ask_free (Ask * a)
{
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
    guint64 from_rt, guint64 prerecorded, guint64 at_seq)
{
  Ask *a = g_new0 (Ask, 1);

  a->kind = ASK_KEEP_BEGIN;
  a->at_seq = at_seq;
  a->info.keep = keep;
  a->info.first_seq = from_seq;
  a->info.first_running_time = from_rt;
  a->info.prerecorded = prerecorded;
  push_ask (w, a);
}

void
rtf_writer_keep_end (RtfWriter * w, const RtfKeepInfo * info, guint64 at_seq)
{
  Ask *a = g_new0 (Ask, 1);

  a->kind = ASK_KEEP_END;
  a->at_seq = at_seq;
  a->info = *info;
  a->info.dir = a->info.why = NULL;
  push_ask (w, a);
}

/* Once a frame, so it takes no allocation: one slot, the newest floor
 * replacing one not yet taken.  The writer takes it whenever no
 * recording's ask waits: every recording asked before it is taken then,
 * and one asked after it starts at or after it.  (Taking it with a frame
 * number, as the recordings' asks are, never let it be taken while the
 * producer ran ahead: each frame moved it on.) */
void
rtf_writer_ring_floor (RtfWriter * w, guint64 floor)
{
  g_mutex_lock (&w->lock);
  if (floor > w->floor_asked) {
    w->floor_asked = floor;
    w->floor_pending = TRUE;
  }
  g_mutex_unlock (&w->lock);
}

/* ---- the writer thread -------------------------------------------------- */

static void
keep_begin (RtfWriter * w, Ask * a)
{
  RtfOutput *open[2] = { NULL, NULL };
  guint n = 0;

  /* the files being written with frames of it: the one before a split
   * if it took one (its last frames may still be in flight, and it is not
   * among the closed files yet: by the frames taken into it, not those
   * written, which move as writes end), and the current one once begun -
   * the frame being taken goes into it; a file that begins later is kept
   * as it begins */
  if (w->prev && w->prev->begun && w->prev->taken_last != G_MAXUINT64
      && w->prev->taken_last >= a->info.first_seq)
    open[n++] = w->prev;
  if (w->cur->begun)
    open[n++] = w->cur;
  rtf_file_worker_keep_begin (w->worker, &a->info, open, n);
  w->keep_open = TRUE;
  g_mutex_lock (&w->lock);
  w->stats.recordings++;
  g_mutex_unlock (&w->lock);
}

static void
keep_end (RtfWriter * w, Ask * a)
{
  if (!w->keep_open)
    return;
  w->keep_open = FALSE;
  rtf_file_worker_keep_end (w->worker, &a->info);
}

/* The asks due at frame seq (G_MAXUINT64: every one, at the end), in the
 * order they were made.  Before the frame begins a file: a recording that
 * ends before it does not keep the file it begins. */
void
rtf_writer_ring_take (RtfWriter * w, guint64 seq)
{
  guint64 floor = 0;
  gboolean floor_due;
  Ask *a;

  if (!w->config.keep_location)
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
      break;
    /* (after an error nothing more is kept, but a recording kept so far
     * is told ended: its files are what it has) */
    if (!w->error && a->kind == ASK_KEEP_BEGIN)
      keep_begin (w, a);
    else if (a->kind == ASK_KEEP_END)
      keep_end (w, a);
    ask_free (a);
  }
  /* the floor, once every recording asked before it is taken */
  g_mutex_lock (&w->lock);
  floor_due = w->floor_pending && g_queue_is_empty (&w->ring_asks);
  if (floor_due) {
    floor = w->floor_asked;
    w->floor_pending = FALSE;
  }
  g_mutex_unlock (&w->lock);
  if (floor_due && !w->error)
    rtf_file_worker_ring_floor (w->worker, floor);
}

/* cur begins (its name asked for): a recording on keeps it too */
void
rtf_writer_ring_file_begun (RtfWriter * w)
{
  if (w->config.keep_location && w->keep_open && !w->error)
    rtf_file_worker_keep_file (w->worker, w->cur);
}

/* The end: the asks no frame took (a recording that ends with the
 * stream), then what they hold goes */
void
rtf_writer_ring_end (RtfWriter * w)
{
  if (!w->config.keep_location)
    return;
  rtf_writer_ring_take (w, G_MAXUINT64);
}

void
rtf_writer_ring_clear (RtfWriter * w)
{
  g_queue_clear_full (&w->ring_asks, (GDestroyNotify) ask_free);
}
