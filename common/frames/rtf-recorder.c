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

struct _RtfRecorder
{
  GMutex lock;
  RtfSchedule schedule;         /* the recordings asked for */
  /* the producer's place: the newest frame's position (NONE: no frame
   * yet), and the recording it writes (its span's serial; 0: none) */
  guint64 position;
  guint64 recording;

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
  rtf_schedule_init (&r->schedule);
  r->position = RTF_RECORDER_NONE;
  if (recording) {
    RtfRequest q = { RTF_REQUEST_START, 0, 0, NULL };
    RtfAnswer a;

    rtf_schedule_apply (&r->schedule, &q, TRUE, &a);
  }
  r->pre_record_ns = pre_record_ns;
  r->max_frames = r->capacity = pre_record_ns ? max_frames : 0;
  r->max_bytes = max_bytes;
  r->ring = g_new0 (RtfHeldFrame, MAX (r->capacity, 1));
  return r;
}

void
rtf_recorder_name_first (RtfRecorder * r, const gchar * id)
{
  g_mutex_lock (&r->lock);
  if (r->schedule.n > 0 && r->schedule.spans[0].serial == 1
      && !r->schedule.spans[0].begun)
    g_strlcpy (r->schedule.spans[0].id, id, sizeof r->schedule.spans[0].id);
  g_mutex_unlock (&r->lock);
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
  rtf_schedule_clear (&r->schedule);
  g_mutex_clear (&r->lock);
  g_free (r);
}

/* ---- requests ---------------------------------------------------------- */

/* Where the next frame is, at the earliest: "now" for a request without a
 * clock */
static guint64
next_position (RtfRecorder * r)
{
  return r->position == RTF_RECORDER_NONE ? 0 : r->position + 1;
}

gboolean
rtf_recorder_request (RtfRecorder * r, const RtfRequest * q,
    gboolean commit, RtfRecordReply * reply)
{
  RtfRequest req = *q;
  gboolean ok;

  g_mutex_lock (&r->lock);
  if (req.running_time == RTF_RECORDER_NEXT)
    req.running_time = next_position (r);
  if (req.kind == RTF_REQUEST_EXTEND && req.recording_at == RTF_RECORDER_NEXT)
    req.recording_at = next_position (r);
  ok = rtf_schedule_apply (&r->schedule, &req, commit, &reply->answer);
  reply->running_time = req.running_time;
  reply->recording_at = req.recording_at;
  reply->position = r->position;
  /* a time the frames passed: from the next frame on */
  reply->passed = r->position != RTF_RECORDER_NONE
      && req.running_time <= r->position;
  g_mutex_unlock (&r->lock);
  return ok;
}

gboolean
rtf_recorder_start (RtfRecorder * r, guint64 running_time, gchar ** why)
{
  RtfRequest q = { RTF_REQUEST_START, running_time, 0, NULL };
  RtfRecordReply reply;

  if (rtf_recorder_request (r, &q, TRUE, &reply))
    return TRUE;
  *why = g_strdup (reply.answer.reason);
  return FALSE;
}

gboolean
rtf_recorder_stop (RtfRecorder * r, guint64 running_time, gchar ** why)
{
  RtfRequest q = { RTF_REQUEST_STOP, running_time, 0, NULL };
  RtfRecordReply reply;

  if (rtf_recorder_request (r, &q, TRUE, &reply))
    return TRUE;
  *why = g_strdup (reply.answer.reason);
  return FALSE;
}

gboolean
rtf_recorder_wanted (RtfRecorder * r)
{
  const RtfSchedule *s = &r->schedule;
  gboolean wanted;
  guint64 next;
  gint k;

  g_mutex_lock (&r->lock);
  next = next_position (r);
  k = rtf_schedule_at (s, next);
  /* a recording on with no stop asked, or one asked ahead */
  wanted = (k >= 0 && s->spans[k].stop == RTF_SCHEDULE_OPEN)
      || (s->n > 0 && s->spans[s->n - 1].start > next);
  g_mutex_unlock (&r->lock);
  return wanted;
}

guint64
rtf_recorder_position (RtfRecorder * r)
{
  guint64 p;

  g_mutex_lock (&r->lock);
  p = r->position;
  g_mutex_unlock (&r->lock);
  return p;
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

guint64
rtf_recorder_held_span (RtfRecorder * r)
{
  guint64 span;

  g_mutex_lock (&r->lock);
  span = r->count > 0 ? held_at (r, r->count - 1)->position -
      held_at (r, r->n_expired < r->count ? r->n_expired : 0)->position : 0;
  g_mutex_unlock (&r->lock);
  return span;
}

guint64
rtf_recorder_oldest_held (RtfRecorder * r)
{
  guint64 seq;

  g_mutex_lock (&r->lock);
  seq = r->count > 0 ? held_at (r, 0)->seq : G_MAXUINT64;
  g_mutex_unlock (&r->lock);
  return seq;
}

/* A frame's position: its running time, or, when it has none or is not
 * after the frame before it (a flushing seek starts running time over),
 * just after the frame before: the recorder's axis only goes forward */
static guint64
position_of (RtfRecorder * r, guint64 rt)
{
  if (r->position == RTF_RECORDER_NONE)
    return rt == G_MAXUINT64 ? 0 : rt;
  if (rt == G_MAXUINT64 || rt <= r->position)
    return r->position + 1;
  return rt;
}

/* A recording of span sp starts: the held frames before its start less
 * pre-record-time expire, those after it and before its stop are its
 * backlog */
static void
start_span (RtfRecorder * r, RtfSpan * sp, RtfRecordTurn * turn)
{
  guint64 from = sp->start > r->pre_record_ns ?
      sp->start - r->pre_record_ns : 0;
  guint i = r->n_expired + r->n_backlog;

  g_assert (r->n_backlog == 0);
  for (; i < r->count && held_at (r, i)->position < from; i++)
    r->n_expired++;
  for (; i < r->count && held_at (r, i)->position < sp->stop; i++)
    r->n_backlog++;
  if (r->n_backlog > 0)
    r->backlog_arrival0 = held_at (r, r->n_expired)->times.arrival_ns;
  sp->begun = TRUE;
  turn->started = TRUE;
  turn->start_asked = sp->start;
  turn->start_from = from;
  turn->backlog = r->n_backlog;
  turn->serial = sp->serial;
  g_strlcpy (turn->id, sp->id, sizeof turn->id);
}

/* One step of the turn at the newest frame (under the lock) */
static RtfRecordAction
step (RtfRecorder * r, RtfRecordTurn * turn)
{
  RtfSchedule *s = &r->schedule;
  gint k = rtf_schedule_at (s, r->position);
  guint i;

  memset (turn, 0, sizeof (*turn));
  /* the recording on ends before a frame its span does not hold (passed
   * its stop, or taken out by a stop) */
  if (r->recording) {
    gint c = rtf_schedule_find (s, r->recording);

    if (c < 0 || c != k) {
      turn->stopped = TRUE;
      turn->stop_asked = c >= 0 ? s->spans[c].stop : RTF_RECORDER_NEXT;
      r->recording = 0;
    }
  }
  /* a recording no frame reached the inside of (between two frames, or
   * asked after the frames passed it): its backlog alone, then this
   * frame's turn again */
  for (i = 0; i < s->n && s->spans[i].start <= r->position; i++) {
    if (s->spans[i].begun || (gint) i == k)
      continue;
    start_span (r, &s->spans[i], turn);
    turn->ended = TRUE;
    turn->end_asked = s->spans[i].stop;
    turn->more = TRUE;
    return RTF_RECORD_LET_GO;
  }
  if (k >= 0 && !r->recording) {
    start_span (r, &s->spans[k], turn);
    r->recording = s->spans[k].serial;
  }
  if (r->recording)
    return RTF_RECORD_WRITE;
  return r->max_frames > 0 ? RTF_RECORD_HOLD : RTF_RECORD_LET_GO;
}

RtfRecordAction
rtf_recorder_next_frame (RtfRecorder * r, guint64 rt, RtfRecordTurn * turn)
{
  RtfRecordAction action;

  g_mutex_lock (&r->lock);
  g_assert (r->n_expired == 0 && r->n_backlog == 0);
  r->position = position_of (r, rt);
  action = step (r, turn);
  g_mutex_unlock (&r->lock);
  return action;
}

RtfRecordAction
rtf_recorder_next_turn (RtfRecorder * r, RtfRecordTurn * turn)
{
  RtfRecordAction action;

  g_mutex_lock (&r->lock);
  g_assert (r->n_expired == 0 && r->n_backlog == 0);
  action = step (r, turn);
  g_mutex_unlock (&r->lock);
  return action;
}

gboolean
rtf_recorder_make_room (RtfRecorder * r, gsize size)
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
      gboolean too_old = r->position > r->pre_record_ns
          && f->position < r->position - r->pre_record_ns;

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
  held_at (r, r->count)->position = r->position;
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
