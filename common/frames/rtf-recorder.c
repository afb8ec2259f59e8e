/* rtframe: an event recorder's decisions (rtf-recorder.h).
 *
 * One lock guards everything: requests come from any thread (an action
 * signal, a property, an event), frames from the producer's.  The frames
 * held are a ring, oldest first, in three runs: those expired (to let go),
 * then those of the backlog of a recording that started (to hand over),
 * then those still held.  The producer empties the first two runs before
 * it handles the next frame. */
#include "rtf-recorder.h"

#include <string.h>

typedef enum
{
  REC_IDLE,                     /* not recording: frames held or let go */
  REC_RECORDING                 /* frames are written */
} RecState;

struct _RtfRecorder
{
  GMutex lock;
  RecState state;
  /* asked for, not reached yet.  Recording: a stop, then perhaps a start
   * after it, then perhaps a stop of that next recording (later_stop).
   * Idle: a start, then perhaps its stop. */
  gboolean start_asked, stop_asked, later_stop_asked;
  guint64 start_rt, stop_rt, later_stop_rt;     /* NEXT: the next frame */

  /* the frames held */
  guint64 pre_record_ns;
  guint max_frames;             /* held at most (<= capacity) */
  guint capacity;
  guint64 max_bytes;
  RtfHeldFrame *ring;           /* capacity of them */
  guint first, count;           /* count: all three runs */
  guint n_expired, n_backlog;   /* the first runs */
  guint64 bytes;                /* of all count frames */
  gint64 backlog_arrival0;      /* the backlog's first frame's arrival */
};

RtfRecorder *
rtf_recorder_new (gboolean recording, guint64 pre_record_ns, guint max_frames,
    guint64 max_bytes)
{
  RtfRecorder *r = g_new0 (RtfRecorder, 1);

  g_mutex_init (&r->lock);
  r->state = recording ? REC_RECORDING : REC_IDLE;
  r->pre_record_ns = pre_record_ns;
  r->max_frames = r->capacity = pre_record_ns ? max_frames : 0;
  r->max_bytes = max_bytes;
  r->ring = g_new0 (RtfHeldFrame, MAX (r->capacity, 1));
  return r;
}

void
rtf_recorder_set_max_frames (RtfRecorder * r, guint n)
{
  g_mutex_lock (&r->lock);
  g_assert (r->count == 0);
  r->max_frames = MIN (n, r->capacity);
  r->first = 0;
  g_mutex_unlock (&r->lock);
}

void
rtf_recorder_free (RtfRecorder * r)
{
  if (r == NULL)
    return;
  g_assert (r->count == 0);     /* the producer let go of every frame */
  g_free (r->ring);
  g_mutex_clear (&r->lock);
  g_free (r);
}

/* ---- requests ---------------------------------------------------------- */

/* a is at or before b (NEXT, "now", comes before any running time) */
static inline gboolean
not_after (guint64 a, guint64 b)
{
  return a == RTF_RECORDER_NEXT || (b != RTF_RECORDER_NEXT && a <= b);
}

gboolean
rtf_recorder_start (RtfRecorder * r, guint64 running_time, gchar ** why)
{
  gboolean ok = TRUE;

  g_mutex_lock (&r->lock);
  if (r->state == REC_RECORDING && !r->stop_asked) {
    *why = g_strdup ("a recording is on already");
    ok = FALSE;
  } else if (r->state == REC_RECORDING && (running_time == RTF_RECORDER_NEXT
          ? r->stop_rt != RTF_RECORDER_NEXT
          : !not_after (r->stop_rt, running_time))) {
    /* before the stop asked for (the next frame is, unless the stop is
     * at it too): the recording simply goes on */
    r->stop_asked = r->start_asked = r->later_stop_asked = FALSE;
  } else {
    /* idle, or after the stop asked for: the next recording */
    r->start_asked = TRUE;
    r->start_rt = running_time;
    /* a stop of it asked before no longer applies if not after it */
    if (r->state == REC_RECORDING && r->later_stop_asked
        && not_after (r->later_stop_rt, running_time))
      r->later_stop_asked = FALSE;
    if (r->state == REC_IDLE && r->stop_asked
        && not_after (r->stop_rt, running_time))
      r->stop_asked = FALSE;
  }
  g_mutex_unlock (&r->lock);
  return ok;
}

gboolean
rtf_recorder_stop (RtfRecorder * r, guint64 running_time, gchar ** why)
{
  gboolean ok = TRUE;

  g_mutex_lock (&r->lock);
  if (r->state == REC_IDLE && !r->start_asked) {
    *why = g_strdup ("no recording is on or asked for");
    ok = FALSE;
  } else if (r->state == REC_IDLE) {
    if (not_after (running_time, r->start_rt)) {
      /* at or before the start asked for: nothing is recorded */
      r->start_asked = r->stop_asked = FALSE;
    } else {
      r->stop_asked = TRUE;
      r->stop_rt = running_time;
    }
  } else if (!r->stop_asked) {
    r->stop_asked = TRUE;
    r->stop_rt = running_time;
  } else if (r->start_asked && !not_after (running_time, r->start_rt)) {
    /* after the next recording's start: that one's stop */
    r->later_stop_asked = TRUE;
    r->later_stop_rt = running_time;
  } else {
    /* the recording on stops at the earlier of the two; a start asked
     * after it goes */
    if (not_after (running_time, r->stop_rt))
      r->stop_rt = running_time;
    r->start_asked = r->later_stop_asked = FALSE;
  }
  g_mutex_unlock (&r->lock);
  return ok;
}

gboolean
rtf_recorder_wanted (RtfRecorder * r)
{
  gboolean wanted;

  g_mutex_lock (&r->lock);
  wanted = r->start_asked || (r->state == REC_RECORDING && !r->stop_asked);
  g_mutex_unlock (&r->lock);
  return wanted;
}

guint
rtf_recorder_held (RtfRecorder * r, guint64 * bytes)
{
  guint n;

  g_mutex_lock (&r->lock);
  n = r->count;
  if (bytes)
    *bytes = r->bytes;
  g_mutex_unlock (&r->lock);
  return n;
}

/* ---- frames (under the lock) ------------------------------------------- */

static inline RtfHeldFrame *
held_at (RtfRecorder * r, guint i)
{
  return &r->ring[(r->first + i) % r->capacity];
}

/* rt reached a running time asked for (NEXT: any frame does) */
static inline gboolean
reached (guint64 rt, guint64 asked)
{
  return asked == RTF_RECORDER_NEXT || (rt != G_MAXUINT64 && rt >= asked);
}

/* A frame of unknown running time counts as recent */
static inline gboolean
older_than (const RtfHeldFrame * f, guint64 limit)
{
  return f->times.running_time != G_MAXUINT64 && f->times.running_time < limit;
}

/* A recording starts at `from`: the held frames before it expire, those
 * after it (and before a stop asked for) are its backlog */
static void
start_backlog (RtfRecorder * r, guint64 from)
{
  guint64 until = r->stop_asked && r->stop_rt != RTF_RECORDER_NEXT ?
      r->stop_rt : G_MAXUINT64;
  guint i = r->n_expired + r->n_backlog;

  g_assert (r->n_backlog == 0);
  for (; i < r->count && older_than (held_at (r, i), from); i++)
    r->n_expired++;
  for (; i < r->count && !(held_at (r, i)->times.running_time != G_MAXUINT64
          && held_at (r, i)->times.running_time >= until); i++)
    r->n_backlog++;
  if (r->n_backlog > 0)
    r->backlog_arrival0 = held_at (r, r->n_expired)->times.arrival_ns;
}

RtfRecordAction
rtf_recorder_next_frame (RtfRecorder * r, guint64 rt, RtfRecordTurn * turn)
{
  RtfRecordAction action;

  memset (turn, 0, sizeof (*turn));
  g_mutex_lock (&r->lock);
  g_assert (r->n_expired == 0 && r->n_backlog == 0);
  for (;;) {
    if (r->state == REC_RECORDING && r->stop_asked && reached (rt, r->stop_rt)) {
      r->state = REC_IDLE;
      r->stop_asked = FALSE;
      /* the recording that started in this turn ends in it too: its
       * backlog, and not this frame */
      if (turn->started) {
        turn->ended = TRUE;
        turn->end_asked = r->stop_rt;
      } else {
        turn->stopped = TRUE;
        turn->stop_asked = r->stop_rt;
      }
      continue;
    }
    if (r->state == REC_IDLE && r->start_asked && reached (rt, r->start_rt)) {
      guint64 at = r->start_rt == RTF_RECORDER_NEXT ? rt : r->start_rt;

      r->state = REC_RECORDING;
      r->start_asked = FALSE;
      if (r->later_stop_asked) {
        r->stop_asked = TRUE;
        r->stop_rt = r->later_stop_rt;
        r->later_stop_asked = FALSE;
      }
      turn->started = TRUE;
      turn->start_asked = r->start_rt;
      turn->start_from = at == G_MAXUINT64 ? G_MAXUINT64 :
          at > r->pre_record_ns ? at - r->pre_record_ns : 0;
      start_backlog (r, turn->start_from);
      turn->backlog = r->n_backlog;
      continue;
    }
    break;
  }
  if (r->state == REC_RECORDING)
    action = RTF_RECORD_WRITE;
  else
    action = r->max_frames > 0 ? RTF_RECORD_HOLD : RTF_RECORD_LET_GO;
  g_mutex_unlock (&r->lock);
  return action;
}

gboolean
rtf_recorder_make_room (RtfRecorder * r, gsize size, guint64 rt)
{
  gboolean ok;

  g_mutex_lock (&r->lock);
  g_assert (r->n_backlog == 0);
  ok = r->max_frames > 0 && (r->max_bytes == 0 || size <= r->max_bytes);
  if (ok) {
    guint i = r->n_expired;
    guint64 bytes = r->bytes;

    for (; i < r->count; i++) {
      RtfHeldFrame *f = held_at (r, i);
      gboolean too_many = r->count - i + 1 > r->max_frames;
      gboolean too_big = r->max_bytes && bytes + size > r->max_bytes;
      gboolean too_old = rt != G_MAXUINT64 && rt > r->pre_record_ns
          && older_than (f, rt - r->pre_record_ns);

      if (!too_many && !too_big && !too_old)
        break;
      bytes -= f->size;
      r->n_expired++;
    }
  }
  g_mutex_unlock (&r->lock);
  return ok;
}

void
rtf_recorder_hold (RtfRecorder * r, const RtfHeldFrame * f)
{
  g_mutex_lock (&r->lock);
  g_assert (r->n_expired == 0 && r->n_backlog == 0);
  g_assert (r->count < r->max_frames);
  *held_at (r, r->count) = *f;
  r->count++;
  r->bytes += f->size;
  g_mutex_unlock (&r->lock);
}

gboolean
rtf_recorder_expire_oldest (RtfRecorder * r)
{
  gboolean ok;

  g_mutex_lock (&r->lock);
  g_assert (r->n_backlog == 0);
  ok = r->n_expired < r->count;
  if (ok)
    r->n_expired++;
  g_mutex_unlock (&r->lock);
  return ok;
}

/* The oldest frame held, out of the ring */
static void
pop_first (RtfRecorder * r, RtfHeldFrame * out)
{
  *out = *held_at (r, 0);
  r->first = (r->first + 1) % r->capacity;
  r->count--;
  r->bytes -= out->size;
}

gboolean
rtf_recorder_pop_expired (RtfRecorder * r, RtfHeldFrame * out)
{
  gboolean ok;

  g_mutex_lock (&r->lock);
  ok = r->n_expired > 0;
  if (ok) {
    pop_first (r, out);
    r->n_expired--;
  }
  g_mutex_unlock (&r->lock);
  return ok;
}

gboolean
rtf_recorder_pop_backlog (RtfRecorder * r, gint64 now, guint64 deadline,
    RtfHeldFrame * out)
{
  gboolean ok;

  g_mutex_lock (&r->lock);
  g_assert (r->n_expired == 0);
  ok = r->n_backlog > 0;
  if (ok) {
    gint64 replayed;

    pop_first (r, out);
    r->n_backlog--;
    replayed = now + (out->times.arrival_ns - r->backlog_arrival0);
    out->times.deadline_ns = deadline ? replayed + (gint64) deadline : 0;
  }
  g_mutex_unlock (&r->lock);
  return ok;
}

gboolean
rtf_recorder_pop_all (RtfRecorder * r, RtfHeldFrame * out)
{
  gboolean ok;

  g_mutex_lock (&r->lock);
  ok = r->count > 0;
  if (ok) {
    pop_first (r, out);
    if (r->n_expired > 0)
      r->n_expired--;
    else if (r->n_backlog > 0)
      r->n_backlog--;
  }
  g_mutex_unlock (&r->lock);
  return ok;
}
