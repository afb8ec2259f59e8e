/* rtframe: rtframesink as an event recorder - the requests (the record
 * property, the start-recording and stop-recording signals, the
 * rtframe-record event) turned into the recorder's (common/frames/rtf-recorder.c),
 * frames held for pre-record in memory the sink owns, a start's backlog
 * handed to the writer ahead of the live frames, and the messages that
 * announce each recording.
 *
 * Frames held must never starve upstream: a camera's pool (v4l2src,
 * aravissrc) has a few buffers.  A frame from any pool but one this sink
 * proposed is copied into hold_pool, preallocated at caps (no allocation
 * while holding); a frame of a proposed pool is held as it is (that pool
 * is proposed with hold_frames buffers more, made when it starts, and
 * grows past that if need be; the sink owns it). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframedebug.h"
#include "gstrtframerecord.h"
#include "gstrtframesink-private.h"
#include "gstrtframememory.h"
#include "gstrtframesplits.h"
#include "gstrtframemessages.h"
#include "gstrtframeparts.h"
#include "gstrtframering.h"
#include "rtf-clock.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_rtframe_recorder_debug

/* Most frames held for pre-record, whatever the bytes allow: the writer
 * keeps a queue cell (about 1 KiB) for each */
#define MAX_HELD_FRAMES 4096
/* ... and with a ring on disk, whose memory holds a frame's number and
 * times only (about 100 bytes): 27 minutes at 20 Hz */
#define MAX_RING_FRAMES 16384

/* ---- the pools this sink proposes ------------------------------------- */

static GQuark
proposed_quark (void)
{
  static gsize q;

  if (g_once_init_enter (&q))
    g_once_init_leave (&q, g_quark_from_static_string ("rtframesink-pool"));
  return (GQuark) q;
}

void
gst_rtframe_sink_mark_proposed_pool (GstBufferPool * pool)
{
  g_object_set_qdata (G_OBJECT (pool), proposed_quark (), GINT_TO_POINTER (1));
}

/* A buffer that may be held as it is: from a pool this sink proposed (it
 * grows), or of no pool with memory of the sink's allocator only (what
 * upstream allocated with the allocation query's allocator: nobody's
 * scarce buffers).  Anything else - a camera's pool, memory wrapped from
 * a driver's or an SDK's buffers - is copied. */
static gboolean
ours_to_hold (GstRtFrameSink * self, GstBuffer * buf)
{
  guint i, n;

  if (buf->pool != NULL)
    return g_object_get_qdata (G_OBJECT (buf->pool), proposed_quark ()) != NULL;
  n = gst_buffer_n_memory (buf);
  for (i = 0; i < n; i++)
    if (gst_buffer_peek_memory (buf, i)->allocator != self->allocator)
      return FALSE;
  return n > 0;
}

/* ---- start, caps, stop ------------------------------------------------- */

guint
gst_rtframe_sink_backlog_cells (GstRtFrameSink * self)
{
  guint64 n;

  if (self->pre_record_time == 0)
    return 0;
  /* the bytes bound in frames of a block at least; the frame size is not
   * known before caps */
  n = self->pre_record_max_bytes / 4096;
  return (guint) CLAMP (n, 1, MAX_HELD_FRAMES);
}

void
gst_rtframe_sink_record_begin (GstRtFrameSink * self)
{
  RtfRecorder *rec;

  GST_OBJECT_LOCK (self);
  if (self->ring)
    rec = rtf_recorder_new (self->record, self->pre_record_time,
        MAX_RING_FRAMES, 0);
  else
    rec = rtf_recorder_new (self->record, self->pre_record_time,
        gst_rtframe_sink_backlog_cells (self), self->pre_record_max_bytes);
  if (self->record && self->record_id[0])
    rtf_recorder_name_first (rec, self->record_id);
  self->recorder = rec;
  GST_OBJECT_UNLOCK (self);
  if (self->spread)
    self->parts = gst_rtframe_parts_new (rtf_spread_n_locations (self->spread));
  self->recording_open = FALSE;
  self->last_seq = G_MAXUINT64;
  self->start_carry = 0;
  self->recordings_marked = 0;
  self->hold_copies = 0;
  self->hold_frames = 0;
  g_mutex_lock (&self->record_lock);
  g_hash_table_remove_all (self->asked);
  g_mutex_unlock (&self->record_lock);
}

/* A held frame goes, unwritten */
static void
let_go (GstRtFrameSink * self, const RtfHeldFrame * h)
{
  gst_buffer_unref (h->data);
  rtf_writer_discard (self->writer, h->size);
}

static void
let_go_expired (GstRtFrameSink * self)
{
  RtfHeldFrame h;

  while (rtf_recorder_pop_expired (self->recorder, &h))
    let_go (self, &h);
}

/* Every frame held goes (EOS, a flush, new caps, the end) */
static void
let_go_all (GstRtFrameSink * self)
{
  RtfHeldFrame h;
  guint n = 0;

  if (self->recorder == NULL)
    return;
  if (self->ring) {
    gst_rtframe_sink_ring_forget_all (self);
    return;
  }
  while (rtf_recorder_pop_all (self->recorder, &h)) {
    let_go (self, &h);
    n++;
  }
  if (n > 0)
    GST_DEBUG_OBJECT (self, "let go of %u frames held", n);
}

void
gst_rtframe_sink_record_end (GstRtFrameSink * self)
{
  RtfRecorder *rec;

  if (self->writer)
    let_go_all (self);
  /* with a ring, the recording on ends before the writer does */
  if (self->ring && self->recording_open && self->writer)
    gst_rtframe_sink_end_recording (self, G_MAXUINT64, "end");
  /* with locations the recording on ends as the writers finish */
  if (self->parts && self->recording_open && !self->start_carry)
    gst_rtframe_parts_end (self, self->recordings_marked - 1, G_MAXUINT64,
        "end", TRUE);
  self->recording_open = FALSE;
  GST_OBJECT_LOCK (self);
  rec = self->recorder;
  self->recorder = NULL;
  GST_OBJECT_UNLOCK (self);
  rtf_recorder_free (rec);
  if (self->hold_pool) {
    gst_buffer_pool_set_active (self->hold_pool, FALSE);
    gst_clear_object (&self->hold_pool);
  }
}

void
gst_rtframe_sink_record_free (GstRtFrameSink * self)
{
  gst_rtframe_parts_free (self->parts);
  self->parts = NULL;
}

/* Every page of hold_pool written once now, at caps: the first copy of a
 * camera's frame into fresh memory otherwise takes its page faults on the
 * streaming thread (on this VM a first write to 5.7 MB of new memory cost
 * up to 50 ms, docs/performance.md) */
static void
touch_hold_pool (GstRtFrameSink * self, guint n)
{
  GstBufferPoolAcquireParams params = { 0 };
  GstBuffer **bufs = g_new0 (GstBuffer *, n);
  GstMapInfo map;
  guint i;

  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  for (i = 0; i < n; i++) {
    if (gst_buffer_pool_acquire_buffer (self->hold_pool, &bufs[i], &params)
        != GST_FLOW_OK)
      break;
    if (gst_buffer_map (bufs[i], &map, GST_MAP_WRITE)) {
      memset (map.data, 0, map.size);
      gst_buffer_unmap (bufs[i], &map);
    }
  }
  while (i-- > 0)
    gst_buffer_unref (bufs[i]);
  g_free (bufs);
}

/* pre-record-time at the caps' rate needs more frames than the bounds let
 * the sink hold: said once at caps, with the seconds it holds, never cut
 * silently */
static void
warn_pre_record_cut (GstRtFrameSink * self, guint64 needed, guint64 n)
{
  const GstRtFrameFormat *fmt = &self->format;
  guint64 held_ns = gst_util_uint64_scale (n, GST_VIDEO_INFO_FPS_D
      (&fmt->info) * GST_SECOND, GST_VIDEO_INFO_FPS_N (&fmt->info));

  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
      ("pre-record-time is %.3f s, but only %.3f s (%" G_GUINT64_FORMAT
          " of %" G_GUINT64_FORMAT " frames of %" G_GSIZE_FORMAT " bytes) "
          "can be held: %s.", self->pre_record_time / 1e9, held_ns / 1e9, n,
          needed, fmt->frame_size, n * fmt->frame_size + fmt->frame_size >
          self->pre_record_max_bytes ? "raise pre-record-max-bytes" :
          "the sink holds 4096 frames at most"),
      ("pre-record-max-bytes %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
          " bytes wanted", self->pre_record_max_bytes,
          needed * fmt->frame_size));
}

/* Frames held so far are of other caps: they go; the memory to hold the
 * new ones is made now, preallocated */
gboolean
gst_rtframe_sink_record_caps (GstRtFrameSink * self, GstCaps * caps)
{
  const GstRtFrameFormat *fmt = &self->format;
  GstAllocationParams params;
  GstStructure *config;
  guint64 n;

  if (self->recorder == NULL || self->pre_record_time == 0)
    return TRUE;
  let_go_all (self);
  if (self->ring)
    return gst_rtframe_sink_ring_caps (self, MAX_RING_FRAMES);
  if (self->hold_pool) {
    gst_buffer_pool_set_active (self->hold_pool, FALSE);
    gst_clear_object (&self->hold_pool);
  }
  n = MIN (self->pre_record_max_bytes / fmt->frame_size,
      gst_rtframe_sink_backlog_cells (self));
  /* no more than pre-record-time holds at the caps' frame rate, and two */
  if (fmt->is_video && GST_VIDEO_INFO_FPS_N (&fmt->info) > 0
      && GST_VIDEO_INFO_FPS_D (&fmt->info) > 0) {
    guint64 needed = gst_util_uint64_scale_ceil (self->pre_record_time,
        GST_VIDEO_INFO_FPS_N (&fmt->info),
        GST_VIDEO_INFO_FPS_D (&fmt->info) * GST_SECOND);

    if (n > 0 && n < needed)
      warn_pre_record_cut (self, needed, n);
    n = MIN (n, needed + 2);
  }
  rtf_recorder_set_max_frames (self->recorder, (guint) n);
  self->hold_frames = (guint) n;
  if (n == 0) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("pre-record-max-bytes (%" G_GUINT64_FORMAT ") holds no frame of %"
            G_GSIZE_FORMAT " bytes: nothing is kept before a recording.",
            self->pre_record_max_bytes, fmt->frame_size), (NULL));
    return TRUE;
  }
  gst_allocation_params_init (&params);
  params.align = gst_rtframe_sink_memory_alignment (self) - 1;
  self->hold_pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (self->hold_pool);
  gst_buffer_pool_config_set_params (config, caps, fmt->frame_size, n, n);
  gst_buffer_pool_config_set_allocator (config, self->allocator, &params);
  if (!gst_buffer_pool_set_config (self->hold_pool, config)
      || !gst_buffer_pool_set_active (self->hold_pool, TRUE)) {
    gst_clear_object (&self->hold_pool);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate %" G_GUINT64_FORMAT " frames of %"
            G_GSIZE_FORMAT " bytes to hold before a recording "
            "(pre-record-time, pre-record-max-bytes).", n, fmt->frame_size),
        (NULL));
    return FALSE;
  }
  touch_hold_pool (self, (guint) n);
  GST_INFO_OBJECT (self, "pre-record: up to %" G_GUINT64_FORMAT " frames "
      "(%" G_GUINT64_FORMAT " bytes) held", n, n * fmt->frame_size);
  return TRUE;
}

/* ---- requests ------------------------------------------------------------ */

/* A running time asked for, or "now": the pipeline clock's running time
 * while PLAYING, else the next frame */
static guint64
asked_time (GstRtFrameSink * self, GstClockTime running_time)
{
  GstClock *clock;
  GstClockTime base, now;
  gboolean playing;

  if (GST_CLOCK_TIME_IS_VALID (running_time))
    return running_time;
  GST_OBJECT_LOCK (self);
  playing = GST_STATE (self) == GST_STATE_PLAYING;
  clock = GST_ELEMENT_CLOCK (self) ? gst_object_ref (GST_ELEMENT_CLOCK (self))
      : NULL;
  base = GST_ELEMENT_CAST (self)->base_time;
  GST_OBJECT_UNLOCK (self);
  if (clock == NULL)
    return RTF_RECORDER_NEXT;
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  if (!playing || now < base)
    return RTF_RECORDER_NEXT;
  return now - base;
}

static const gchar *
request_name (RtfRequestKind kind)
{
  switch (kind) {
    case RTF_REQUEST_START:
      return "start";
    case RTF_REQUEST_STOP:
      return "stop";
    case RTF_REQUEST_EXTEND:
      return "extend";
  }
  return "?";
}

/* The reply as a structure: the request-recording signal's return, the
 * recording-request message's fields */
GstStructure *
gst_rtframe_sink_reply_structure (const gchar * name, const RtfRequest * q,
    const RtfRecordReply * reply, const gchar * by)
{
  const RtfAnswer *a = &reply->answer;
  GstStructure *s = gst_structure_new (name,
      "action", G_TYPE_STRING, request_name (q->kind),
      "by", G_TYPE_STRING, by,
      "accepted", G_TYPE_BOOLEAN, a->accepted,
      "did", G_TYPE_STRING, a->did,
      "reason", G_TYPE_STRING, a->reason,
      "running-time", G_TYPE_UINT64, reply->running_time,
      "position", G_TYPE_UINT64, reply->position,
      "passed", G_TYPE_BOOLEAN, reply->passed, NULL);

  if (q->kind == RTF_REQUEST_EXTEND)
    gst_structure_set (s, "recording-at", G_TYPE_UINT64, reply->recording_at,
        NULL);
  if (a->span.serial != 0)
    gst_structure_set (s, "serial", G_TYPE_UINT64, a->span.serial,
        "start", G_TYPE_UINT64, a->span.start,
        "stop", G_TYPE_UINT64, a->span.stop,
        "id", G_TYPE_STRING, a->span.id, NULL);
  return s;
}

/* Not running: the request is where the next start begins (a start: a
 * recording from the first frame; a stop: none) */
static gboolean
request_before_start (GstRtFrameSink * self, const RtfRequest * q,
    gboolean commit, RtfRecordReply * reply)
{
  RtfAnswer *a = &reply->answer;

  memset (reply, 0, sizeof (*reply));
  reply->running_time = q->running_time;
  reply->recording_at = q->recording_at;
  reply->position = RTF_RECORDER_NONE;
  a->accepted = q->kind != RTF_REQUEST_EXTEND;
  a->did = !a->accepted ? "refused" : "at-start";
  g_strlcpy (a->reason, !a->accepted ? "not running: no recording to extend"
      : q->kind == RTF_REQUEST_START ? "recording from the first frame" :
      "no recording from the first frame", sizeof a->reason);
  if (a->accepted && commit) {
    self->record = q->kind == RTF_REQUEST_START;
    g_strlcpy (self->record_id, self->record && q->id ? q->id : "",
        sizeof self->record_id);
  }
  if (a->accepted && q->kind == RTF_REQUEST_START && q->id)
    g_strlcpy (a->span.id, q->id, sizeof a->span.id);
  return a->accepted;
}

gboolean
gst_rtframe_sink_request_full (GstRtFrameSink * self, const RtfRequest * q,
    gboolean serialized, gboolean commit, const gchar * by,
    RtfRecordReply * reply)
{
  RtfRequest req = *q;
  gboolean ok;

  if (!(serialized && !GST_CLOCK_TIME_IS_VALID (q->running_time)))
    req.running_time = asked_time (self, q->running_time);
  if (req.kind == RTF_REQUEST_EXTEND)
    req.recording_at = asked_time (self, q->recording_at);
  GST_OBJECT_LOCK (self);
  if (self->recorder == NULL) {
    ok = request_before_start (self, &req, commit, reply);
    GST_OBJECT_UNLOCK (self);
  } else {
    ok = rtf_recorder_request (self->recorder, &req, commit, reply);
    GST_OBJECT_UNLOCK (self);
  }
  if (!ok)
    GST_WARNING_OBJECT (self, "%s: %s refused: %s", by,
        request_name (q->kind), reply->answer.reason);
  else
    GST_INFO_OBJECT (self, "%s: %s%s: %s", by, request_name (q->kind),
        commit ? "" : " (check)", reply->answer.reason);
  if (commit)
    gst_element_post_message (GST_ELEMENT_CAST (self),
        gst_message_new_element (GST_OBJECT_CAST (self),
            gst_rtframe_sink_reply_structure
            (GST_RTFRAME_MSG_RECORDING_REQUEST, &req, reply, by)));
  return ok;
}

gboolean
gst_rtframe_sink_request (GstRtFrameSink * self, gboolean start,
    GstClockTime running_time, gboolean serialized, const gchar * by)
{
  RtfRequest q = { start ? RTF_REQUEST_START : RTF_REQUEST_STOP,
    running_time, 0, NULL
  };
  RtfRecordReply reply;

  return gst_rtframe_sink_request_full (self, &q, serialized, TRUE, by, &reply);
}

gboolean
gst_rtframe_sink_record_wanted (GstRtFrameSink * self)
{
  /* (object lock held) */
  return self->recorder ? rtf_recorder_wanted (self->recorder) : self->record;
}

/* The rtframe-record event: "record" (boolean), "running-time" (guint64,
 * optional).  In the stream (serialized) without a running time it takes
 * effect exactly at the next frame; out of band at the clock's now. */
gboolean
gst_rtframe_sink_record_event (GstRtFrameSink * self, GstEvent * event)
{
  const GstStructure *s = gst_event_get_structure (event);
  GstClockTime rt = GST_CLOCK_TIME_NONE;
  gboolean record;

  if (!gst_structure_get_boolean (s, "record", &record)) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("The rtframe-record event needs a boolean field \"record\"."),
        ("event %" GST_PTR_FORMAT, event));
    return FALSE;
  }
  if (gst_structure_has_field (s, "running-time")
      && !gst_structure_get_uint64 (s, "running-time", &rt)) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("The rtframe-record event's \"running-time\" must be a guint64 (ns)."),
        ("event %" GST_PTR_FORMAT, event));
    return FALSE;
  }
  return gst_rtframe_sink_request (self, record, rt,
      GST_EVENT_IS_SERIALIZED (event), "rtframe-record event");
}

/* ---- frames ------------------------------------------------------------ */

/* The ask of recording `number` (record_lock held); make: a new one */
static GstRtFrameRecordAsk *
ask_of (GstRtFrameSink * self, guint64 number, gboolean make)
{
  GstRtFrameRecordAsk *a = g_hash_table_lookup (self->asked, &number);

  if (a == NULL && make) {
    a = g_new0 (GstRtFrameRecordAsk, 1);
    g_hash_table_insert (self->asked, g_memdup2 (&number, sizeof number), a);
  }
  return a;
}

/* What recording `number` was asked with, copied (take: it is told
 * stopped, forgotten); defaults when none is known */
static GstRtFrameRecordAsk
ask_copy (GstRtFrameSink * self, guint64 number, gboolean take)
{
  GstRtFrameRecordAsk a = { G_MAXUINT64, G_MAXUINT64, G_MAXUINT64, 0,
    G_MAXUINT64, "end", 0, ""
  };
  GstRtFrameRecordAsk *known;

  g_mutex_lock (&self->record_lock);
  known = ask_of (self, number, FALSE);
  if (known)
    a = *known;
  if (known && take)
    g_hash_table_remove (self->asked, &number);
  g_mutex_unlock (&self->record_lock);
  return a;
}

/* The recording on ends with the last frame handed over */
void
gst_rtframe_sink_end_recording (GstRtFrameSink * self, guint64 asked,
    const gchar * reason)
{
  GstRtFrameRecordAsk *a;

  if (!self->recording_open)
    return;
  if (self->start_carry) {
    /* not one frame of it was taken: it never was, for the writer too */
    g_mutex_lock (&self->record_lock);
    self->recordings_marked--;
    g_hash_table_remove (self->asked, &self->recordings_marked);
    g_mutex_unlock (&self->record_lock);
    self->start_carry = 0;
    self->recording_open = FALSE;
    return;
  }
  self->recording_open = FALSE;
  if (self->parts) {
    gst_rtframe_parts_end (self, self->recordings_marked - 1, asked, reason,
        FALSE);
    return;
  }
  g_mutex_lock (&self->record_lock);
  a = ask_of (self, self->recordings_marked - 1, TRUE);
  a->stop_asked = asked;
  a->stop_reason = reason;
  g_mutex_unlock (&self->record_lock);
  if (self->ring)
    gst_rtframe_sink_ring_keep_end (self);
  else if (self->last_seq != G_MAXUINT64)
    rtf_writer_end_recording (self->writer, self->last_seq);
}

/* The first frame of a recording goes: what it was asked with is kept
 * for its messages */
guint
gst_rtframe_sink_mark_first (GstRtFrameSink * self, const RtfRecordTurn * turn,
    guint prerecorded, guint64 prerecorded_from)
{
  GstRtFrameRecordAsk *a;

  g_mutex_lock (&self->record_lock);
  a = ask_of (self, self->recordings_marked++, TRUE);
  memset (a, 0, sizeof (*a));
  a->start_asked = turn && turn->started ? turn->start_asked : G_MAXUINT64;
  a->start_from = turn && turn->started ? turn->start_from : G_MAXUINT64;
  a->serial = turn && turn->started ? turn->serial : 0;
  g_strlcpy (a->id, turn && turn->started ? turn->id : "", sizeof a->id);
  a->prerecorded = prerecorded;
  a->prerecorded_from = prerecorded_from;
  a->stop_asked = G_MAXUINT64;
  a->stop_reason = "end";
  g_mutex_unlock (&self->record_lock);
  self->recording_open = TRUE;
  return RTF_FRAME_EVENT_START;
}

/* A held frame handed over: to the writer, or placed at a location of
 * the spread like any frame (*w the writer that took it) */
static RtfOffer
offer_held (GstRtFrameSink * self, const RtfHeldFrame * h, RtfFrame ** f,
    RtfWriter ** w, gint * index)
{
  RtfOffer res;

  *index = 0;
  *w = self->writer;
  if (self->spread == NULL)
    return rtf_writer_offer_backlog (self->writer, h->size, h->seq, &h->times,
        &h->origin, f);
  res = rtf_spread_offer_backlog (self->spread, h->size, h->seq, &h->times,
      &h->origin, f, index);
  if (res != RTF_OFFER_CLOSED)
    *w = rtf_spread_writer (self->spread, *index);
  return res;
}

guint
gst_rtframe_sink_record_taken (GstRtFrameSink * self, gint index,
    guint64 seq, guint flags)
{
  if (self->parts == NULL || !self->recording_open)
    return 0;
  return gst_rtframe_parts_take (self, (guint) index, seq,
      self->recordings_marked - 1, flags);
}

/* A recording starts: the frames held for it go to the writer first,
 * oldest first, its first frame marked.  FALSE: the writer failed. */
static gboolean
hand_over_backlog (GstRtFrameSink * self, const RtfRecordTurn * turn)
{
  RtfHeldFrame h;
  gint64 now = rtf_clock_now_ns ();
  guint64 deadline;
  guint n = 0, lost = 0;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  deadline = self->deadline;
  GST_OBJECT_UNLOCK (self);
  while (rtf_recorder_pop_backlog (self->recorder, now, deadline, &h)) {
    RtfFrame *f;
    RtfWriter *w;
    gint index;

    if (!ok) {
      let_go (self, &h);
      continue;
    }
    switch (offer_held (self, &h, &f, &w, &index)) {
      case RTF_OFFER_TAKEN:
        break;
      case RTF_OFFER_DROPPED:
        /* no cell: an earlier backlog still fills them (counted let go) */
        gst_buffer_unref (h.data);
        lost++;
        continue;
      default:
        let_go (self, &h);      /* the writer failed (and says so) */
        ok = FALSE;
        continue;
    }
    if (!gst_rtframe_sink_attach (self, f, h.data)) {
      gst_rtframe_sink_frame_clear (f);
      rtf_writer_cancel (w, f);
      GST_ELEMENT_ERROR (self, RESOURCE, READ,
          ("Could not read a frame held for pre-record."), (NULL));
      ok = FALSE;
      continue;
    }
    if (n++ == 0) {
      /* how far back the recording reaches */
      /* (told before the writer can report the start) */
      f->flags |=
          gst_rtframe_sink_mark_first (self, turn, turn->backlog,
          h.times.running_time);
      f->split = self->rotate;
      /* a split asked for while idle, or at a running time up to the
       * recording's start: this new file is it (not one more at the
       * first live frame) */
      g_atomic_int_set (&self->split_pending, 0);
      gst_rtframe_sink_split_due (self, turn->start_asked);
    }
    f->flags |= gst_rtframe_sink_record_taken (self, index, h.seq, f->flags);
    /* (a split owed there since the recording before is this new file) */
    gst_rtframe_sink_split_at (self, index, FALSE);
    f->split |= self->rotate && (f->flags & RTF_FRAME_PART_START);
    rtf_writer_commit (w, f);
    self->last_seq = h.seq;
  }
  if (n > 0)
    GST_INFO_OBJECT (self, "recording started with %u of %u frames held", n,
        turn->backlog);
  if (lost > 0)
    GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
        ("%u of the %u frames held for this recording could not be written: "
            "the previous recording's held frames are still being written "
            "and take every cell the sink has for them (a shorter "
            "pre-record-time, or a smaller pre-record-max-bytes).", lost,
            turn->backlog), ("frames-discarded counts them"));
  return ok;
}

/* What to hold of a frame: itself (ours_to_hold()) or a copy in
 * hold_pool.  NULL: no memory free to hold it (frame_buf kept). */
static GstBuffer *
hold_buffer_of (GstRtFrameSink * self, GstBuffer * frame_buf)
{
  GstBufferPoolAcquireParams params = { 0 };
  GstBuffer *copy = NULL;
  GstMapInfo map;

  if (ours_to_hold (self, frame_buf))
    return frame_buf;
  if (self->hold_pool == NULL)
    return NULL;
  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  if (gst_buffer_pool_acquire_buffer (self->hold_pool, &copy, &params)
      != GST_FLOW_OK)
    return NULL;
  if (!gst_buffer_map (copy, &map, GST_MAP_WRITE)) {
    gst_buffer_unref (copy);
    return NULL;
  }
  gst_buffer_extract (frame_buf, 0, map.data, map.size);
  gst_buffer_unmap (copy, &map);
  gst_buffer_copy_into (copy, frame_buf, GST_BUFFER_COPY_METADATA, 0, -1);
  gst_buffer_unref (frame_buf);
  self->hold_copies++;
  return copy;
}

/* A frame kept outside the writer takes its number (counted held by the
 * writer, with locations by the first location's) */
static guint64
hold_number (GstRtFrameSink * self, gsize size, const RtfFrameOrigin * origin)
{
  if (self->spread)
    return rtf_spread_hold (self->spread, size, origin);
  return rtf_writer_hold (self->writer, size, origin);
}

/* Not recording: the frame is held for a recording that may start, or
 * let go.  Takes frame_buf. */
static void
hold_or_let_go (GstRtFrameSink * self, RtfRecordAction action,
    GstBuffer * frame_buf, const RtfFrameTimes * times,
    const RtfFrameOrigin * origin)
{
  gsize size = gst_buffer_get_size (frame_buf);
  RtfHeldFrame h;

  if (action == RTF_RECORD_HOLD
      && rtf_recorder_make_room (self->recorder, size)) {
    let_go_expired (self);
    /* hold_pool is shared with a backlog still being written: the oldest
     * held frames make room for the new one */
    while ((h.data = hold_buffer_of (self, frame_buf)) == NULL
        && rtf_recorder_expire_oldest (self->recorder))
      let_go_expired (self);
    if (h.data != NULL) {
      h.seq = hold_number (self, size, origin);
      h.size = size;
      h.times = *times;
      h.origin = *origin;
      rtf_recorder_hold (self->recorder, &h);
      return;
    }
    GST_DEBUG_OBJECT (self, "no memory free to hold a frame: let go");
  }
  gst_buffer_unref (frame_buf);
  hold_number (self, size, origin);
  rtf_writer_discard (self->writer, size);
}

gboolean
gst_rtframe_sink_take_turns (GstRtFrameSink * self, guint64 running_time,
    const GstRtFrameTurnOps * ops, RtfRecordAction * action,
    RtfRecordTurn * live, gboolean * has_live)
{
  RtfRecordTurn turn;

  *has_live = FALSE;
  *action = rtf_recorder_next_frame (self->recorder, running_time, &turn);
  for (;;) {
    if (turn.stopped)
      gst_rtframe_sink_end_recording (self, turn.stop_asked, "stop-recording");
    ops->expire (self);
    if (turn.started && !ops->start (self, &turn))
      return FALSE;
    if (turn.ended)
      gst_rtframe_sink_end_recording (self, turn.end_asked, "stop-recording");
    if (turn.started && !turn.ended) {
      *live = turn;
      *has_live = TRUE;
    }
    if (!turn.more)
      return TRUE;
    *action = rtf_recorder_next_turn (self->recorder, &turn);
  }
}

static const GstRtFrameTurnOps memory_turns = {
  let_go_expired, hand_over_backlog
};

gboolean
gst_rtframe_sink_record_frame (GstRtFrameSink * self, GstBuffer * frame_buf,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    guint * flags, GstFlowReturn * ret)
{
  RtfRecordAction action;
  RtfRecordTurn live;
  gboolean has_live;

  *flags = 0;
  *ret = GST_FLOW_OK;
  if (self->ring) {
    /* every frame goes into the ring */
    gst_rtframe_sink_ring_frame (self, times, gst_buffer_get_size (frame_buf));
    return TRUE;
  }
  if (!gst_rtframe_sink_take_turns (self, times->running_time, &memory_turns,
          &action, &live, &has_live)) {
    gst_buffer_unref (frame_buf);
    *ret = GST_FLOW_ERROR;      /* the writer failed and said why */
    return FALSE;
  }
  if (action != RTF_RECORD_WRITE) {
    hold_or_let_go (self, action, frame_buf, times, origin);
    return FALSE;
  }
  if (!self->recording_open)
    *flags = gst_rtframe_sink_mark_first (self, has_live ? &live : NULL, 0,
        G_MAXUINT64);
  /* the first frame was dropped or refused: this one starts it */
  *flags |= self->start_carry;
  self->start_carry = 0;
  return TRUE;
}

void
gst_rtframe_sink_record_not_taken (GstRtFrameSink * self, guint flags)
{
  if (self->ring)
    gst_rtframe_sink_ring_committed (self, G_MAXUINT64);
  self->start_carry |= flags & RTF_FRAME_EVENT_START;
}

void
gst_rtframe_sink_record_committed (GstRtFrameSink * self, guint64 seq)
{
  if (self->ring && self->recorder)
    gst_rtframe_sink_ring_committed (self, seq);
  self->last_seq = seq;
}

/* EOS: the writer ends the recording on with the file; frames held go */
void
gst_rtframe_sink_record_eos (GstRtFrameSink * self)
{
  let_go_all (self);
  if (self->recording_open && (self->start_carry || self->ring))
    gst_rtframe_sink_end_recording (self, G_MAXUINT64, "eos");  /* (no frame: undone; a ring's: ended now) */
  if (self->recording_open && self->parts)
    gst_rtframe_parts_end (self, self->recordings_marked - 1, G_MAXUINT64,
        "eos", TRUE);
  else if (self->recording_open) {
    g_mutex_lock (&self->record_lock);
    ask_of (self, self->recordings_marked - 1, TRUE)->stop_reason = "eos";
    g_mutex_unlock (&self->record_lock);
  }
  self->recording_open = FALSE;
}

void
gst_rtframe_sink_record_flush (GstRtFrameSink * self)
{
  let_go_all (self);
}

/* ---- messages (the writer's threads) ---------------------------------- */

/* posted in order with the file messages */
static void
push_message (GstRtFrameSink * self, GstStructure * s)
{
  gst_rtframe_sink_queue_message (self,
      gst_message_new_element (GST_OBJECT_CAST (self), s));
}

void
gst_rtframe_sink_recording_started (GstRtFrameSink * self,
    const RtfRecordingInfo * info)
{
  GstRtFrameRecordAsk a;

  if (self->parts) {
    gst_rtframe_parts_started (self, info);
    return;
  }
  a = ask_copy (self, info->number, FALSE);
  GST_INFO_OBJECT (self, "recording %" G_GUINT64_FORMAT " started at frame %"
      G_GUINT64_FORMAT " in %s", info->number, info->first_seq, info->path);
  push_message (self, gst_rtframe_structure_recording_started (&a, info,
          info->number));
}

void
gst_rtframe_sink_recording_stopped (GstRtFrameSink * self,
    const RtfRecordingInfo * info)
{
  GstRtFrameRecordAsk a;

  if (self->parts) {
    gst_rtframe_parts_stopped (self, info);
    return;
  }
  a = ask_copy (self, info->number, TRUE);
  GST_INFO_OBJECT (self, "recording %" G_GUINT64_FORMAT " stopped (%s): %"
      G_GUINT64_FORMAT " frames written", info->number,
      a.stop_reason ? a.stop_reason : "end", info->frames);
  push_message (self, gst_rtframe_structure_recording_stopped (&a, info,
          info->number));
}
