/* rtframe-bench: the GStreamer sinks under test, fed like a camera feeds
 * them.
 *
 * Each stream is a pipeline holding only the sink (rtframesink, filesink)
 * or queue ! filesink.  The producer thread plays the camera: it pushes
 * through its own source pad, linked to the pipeline's first element, so
 * the time gst_pad_push() takes is exactly the time the camera's streaming
 * thread would be blocked.  Like a real camera it takes its buffers from
 * the pool the sink proposes in the ALLOCATION query (rtframesink's aligned
 * pool: zero-copy) and otherwise from a GstVideoBufferPool of its own.
 *
 * When a frame is written:
 *   rtframesink     its rtframesink-frame-written message (frame-messages)
 *   filesink        gst_pad_push() returned (filesink writes in render)
 *   queue ! filesink  the queue's push to filesink returned, seen with the
 *                   tracer hooks pad-push-pre/post on the queue's src pad
 * The run is durable at EOS for rtframesink (it fdatasyncs before EOS) and
 * after the bench's own fdatasync of each file for the filesinks. */
#include "bench.h"

#include <gst/video/video.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct _BenchStream BenchStream;

struct _BenchStream
{
  BenchSinkRun *run;
  guint index;
  gchar *path;
  GstElement *pipeline, *sink, *queue;
  GstPad *src;
  GstBufferPool *pool;
  guint8 *pattern;              /* a whole frame of this stream's pattern */
  GThread *thread;
  BenchLog *log;
  gboolean log_handed_over;     /* to the result, by run_finish */
  gboolean event;               /* rtframesink with record=false */
  guint64 pre_record_ns;        /* ... its pre-record-time */
  gboolean ring;                /* ... with keep-location: every frame
                                 * written, into a ring of files */
  guint next_trigger;           /* triggers emitted so far */
  gint written;                 /* atomic */
  gint misses;                  /* atomic: seen so far, for the progress */
  guint64 lost_camera;
  gint64 make_cpu_ns;           /* this thread's CPU making frames */
  gint64 thread_cpu_ns;         /* ... in all, set as it ends */
  guint64 fills;                /* buffers given their pattern mid-run */
  guint64 made;                 /* frames made */
  gint64 prefill_cpu_ns;        /* the pattern before the clock */
  GstFlowReturn flow;
  /* queue ! filesink: the frame filesink is writing (tracer) */
  guint64 cur_frame;
  gint64 cur_start;
  /* under run->lock */
  gboolean eos;
  gint64 t_eos;
  GstStructure *final_stats;
  gchar *error;
};

struct _BenchSinkRun
{
  const BenchConfig *cfg;
  const BenchSinkSpec *spec;
  BenchStream *streams;
  guint n;
  GstCaps *caps;
  gint64 t0;
  gchar *keep;                  /* keep-location, resolved (NULL: none) */
  BenchRing *ring;              /* its events, checked as they stop */
  GMutex lock;
  GCond cond;
};

static GQuark stream_quark, filled_quark;

/* ---- the tracer for queue ! filesink ------------------------------- */

typedef struct
{
  GstTracer parent;
} BenchTracer;

typedef struct
{
  GstTracerClass parent_class;
} BenchTracerClass;

static GType bench_tracer_get_type (void);
G_DEFINE_TYPE (BenchTracer, bench_tracer, GST_TYPE_TRACER);

static void
on_push_pre (GObject * tracer, GstClockTime ts, GstPad * pad, GstBuffer * buf)
{
  BenchStream *s = g_object_get_qdata (G_OBJECT (pad), stream_quark);

  if (s == NULL)
    return;
  s->cur_frame = GST_BUFFER_OFFSET (buf);
  s->cur_start = bench_now ();
}

static void
on_push_post (GObject * tracer, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  BenchStream *s = g_object_get_qdata (G_OBJECT (pad), stream_quark);
  BenchFrame *f;
  gint64 now;

  if (s == NULL || res != GST_FLOW_OK)
    return;
  now = bench_now ();
  f = bench_log_frame (s->log, s->cur_frame);
  f->service = now - s->cur_start;
  f->done = now - s->run->t0;
  if (f->done - f->offer > (gint64) s->run->cfg->deadline_ns)
    g_atomic_int_inc (&s->misses);
  g_atomic_int_inc (&s->written);
}

static void
bench_tracer_class_init (BenchTracerClass * klass)
{
}

static void
bench_tracer_init (BenchTracer * self)
{
  gst_tracing_register_hook (GST_TRACER (self), "pad-push-pre",
      G_CALLBACK (on_push_pre));
  gst_tracing_register_hook (GST_TRACER (self), "pad-push-post",
      G_CALLBACK (on_push_post));
}

void
bench_sink_init (void)
{
  stream_quark = g_quark_from_static_string ("rtframe-bench-stream");
  filled_quark = g_quark_from_static_string ("rtframe-bench-filled");
  /* lives as long as the process: hooks stay registered */
  g_object_ref_sink (g_object_new (bench_tracer_get_type (), NULL));
}

/* ---- the bus ------------------------------------------------------- */

static void
on_frame_written (BenchStream * s, const GstStructure * st)
{
  guint64 pts, frame;
  guint64 completed, dev;
  BenchFrame *f;

  /* the element numbers the frames it received; frames lost at the camera
   * have none, so find ours by its timestamp (frame * period) */
  if (!gst_structure_get_uint64 (st, "pts", &pts)
      || !gst_structure_get_uint64 (st, "completed", &completed)
      || !gst_structure_get_uint64 (st, "device-latency", &dev))
    return;
  frame = gst_util_uint64_scale_round (pts, s->run->cfg->fps, GST_SECOND);
  f = bench_log_frame (s->log, frame);
  if (f == NULL)
    return;
  f->done = completed - s->run->t0;
  f->service = dev;
  if (f->done - f->offer > (gint64) s->run->cfg->deadline_ns)
    g_atomic_int_inc (&s->misses);
  g_atomic_int_inc (&s->written);
}

static GstBusSyncReply
bus_sync (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  BenchStream *s = user_data;
  BenchSinkRun *r = s->run;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *st = gst_message_get_structure (msg);

      if (gst_structure_has_name (st, "rtframesink-frame-written"))
        on_frame_written (s, st);
      else if (r->ring && (gst_structure_has_name (st,
                  "rtframesink-recording-started")
              || gst_structure_has_name (st, "rtframesink-recording-stopped")
              || gst_structure_has_name (st, "rtframesink-file-kept")
              || gst_structure_has_name (st, "rtframesink-file-closed")))
        bench_ring_message (r->ring, s->index, st);
      else if (gst_structure_has_name (st, "rtframesink-stats")) {
        g_mutex_lock (&r->lock);
        if (s->final_stats)
          gst_structure_free (s->final_stats);
        s->final_stats = gst_structure_copy (st);
        g_mutex_unlock (&r->lock);
      }
      break;
    }
    case GST_MESSAGE_EOS:
      g_mutex_lock (&r->lock);
      s->eos = TRUE;
      s->t_eos = bench_now ();
      g_cond_broadcast (&r->cond);
      g_mutex_unlock (&r->lock);
      break;
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      g_mutex_lock (&r->lock);
      if (s->error == NULL)
        s->error = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
      g_cond_broadcast (&r->cond);
      g_mutex_unlock (&r->lock);
      g_clear_error (&err);
      g_free (dbg);
      break;
    }
    default:
      break;
  }
  /* a sync handler that drops a message owns it: each message holds its
   * source, so one kept would keep the element (and its pool) alive */
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* ---- building a stream --------------------------------------------- */

static GstElement *
make_element (const gchar * factory, const gchar * name, gchar ** error)
{
  GstElement *e = gst_element_factory_make (factory, name);

  if (e == NULL && *error == NULL)
    *error = g_strdup_printf ("no element \"%s\" (is GST_PLUGIN_PATH set?)",
        factory);
  return e;
}

static gboolean
set_props (GstElement * e, gchar ** props, gchar ** error)
{
  for (; props && *props; props++) {
    gchar **kv = g_strsplit (*props, "=", 2);

    if (kv[0] == NULL || kv[1] == NULL
        || g_object_class_find_property (G_OBJECT_GET_CLASS (e), kv[0]) ==
        NULL) {
      *error = g_strdup_printf ("%s has no property \"%s\"",
          GST_OBJECT_NAME (e), *props);
      g_strfreev (kv);
      return FALSE;
    }
    gst_util_set_object_arg (G_OBJECT (e), kv[0], kv[1]);
    g_strfreev (kv);
  }
  return TRUE;
}

static gboolean
build_stream (BenchSinkRun * r, BenchStream * s, gchar ** error)
{
  const BenchConfig *cfg = r->cfg;
  GstPad *first;
  gchar *name = g_strdup_printf ("bench%u", s->index);

  s->pipeline = gst_pipeline_new (name);
  g_free (name);
  switch (r->spec->kind) {
    case BENCH_RTFRAMESINK:
      s->sink = make_element ("rtframesink", NULL, error);
      if (s->sink == NULL)
        return FALSE;
      g_object_set (s->sink, "location", s->path, "frame-messages", TRUE,
          "deadline", cfg->deadline_ns, NULL);
      /* --rotate, before the spec's own properties (which may override) */
      if (cfg->rotate_frames)
        g_object_set (s->sink, "max-file-size",
            (guint64) (cfg->rotate_frames * cfg->frame_size), "max-files", 1,
            NULL);
      break;
    case BENCH_QUEUE_FILESINK:
      s->queue = make_element ("queue", NULL, error);
      if (s->queue == NULL)
        return FALSE;
      /* the same budget as rtframesink's queue; queue's default of 10 MB
       * would hold one frame of the user's */
      g_object_set (s->queue, "max-size-buffers", cfg->queue_buffers,
          "max-size-bytes", (guint) MIN (cfg->queue_bytes, G_MAXUINT),
          "max-size-time", (guint64) 0, NULL);
      /* fall through */
    case BENCH_FILESINK:
      s->sink = make_element ("filesink", NULL, error);
      if (s->sink == NULL)
        return FALSE;
      g_object_set (s->sink, "location", s->path, NULL);
      break;
    case BENCH_FIO:
      g_assert_not_reached ();
  }
  if (!set_props (s->sink, r->spec->props, error))
    return FALSE;
  /* keep-location=@NAME: a directory in the bench's own */
  if (r->keep)
    g_object_set (s->sink, "keep-location", r->keep, NULL);
  if (r->spec->kind == BENCH_RTFRAMESINK) {
    gboolean record = TRUE;

    g_object_get (s->sink, "record", &record, "pre-record-time",
        &s->pre_record_ns, NULL);
    s->event = !record;
    s->ring = r->keep != NULL;
  }
  if (s->queue) {
    GstPad *qsrc;

    gst_bin_add_many (GST_BIN (s->pipeline), s->queue, s->sink, NULL);
    gst_element_link (s->queue, s->sink);
    qsrc = gst_element_get_static_pad (s->queue, "src");
    g_object_set_qdata (G_OBJECT (qsrc), stream_quark, s);
    gst_object_unref (qsrc);
    first = gst_element_get_static_pad (s->queue, "sink");
  } else {
    gst_bin_add (GST_BIN (s->pipeline), s->sink);
    first = gst_element_get_static_pad (s->sink, "sink");
  }
  {
    GstBus *bus = gst_element_get_bus (s->pipeline);

    gst_bus_set_sync_handler (bus, bus_sync, s, NULL);
    gst_object_unref (bus);
  }

  s->src = gst_pad_new ("camera", GST_PAD_SRC);
  gst_pad_set_active (s->src, TRUE);
  if (gst_pad_link (s->src, first) != GST_PAD_LINK_OK) {
    *error = g_strdup ("cannot link the camera pad");
    gst_object_unref (first);
    return FALSE;
  }
  gst_object_unref (first);
  if (gst_element_set_state (s->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_mutex_lock (&r->lock);
    *error = g_strdup_printf ("cannot start: %s", s->error ? s->error :
        "state change failed");
    g_mutex_unlock (&r->lock);
    return FALSE;
  }
  return TRUE;
}

/* CPU time of the calling thread, ns */
static gint64
thread_cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

/* A buffer of the pool gets the stream's pattern once (the stamps are
 * rewritten for every frame); marked so it is not filled again when it
 * comes back. */
static gboolean
fill_buffer (BenchStream * s, GstBuffer * buf, GstMapInfo * map)
{
  if (gst_mini_object_get_qdata (GST_MINI_OBJECT (buf), filled_quark) == s)
    return FALSE;
  memcpy (map->data, s->pattern, s->run->cfg->frame_size);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (buf), filled_quark, s, NULL);
  return TRUE;
}

/* The buffers get their pattern before the clock starts, as a camera's
 * buffers exist before its first frame: the camera's, as many as the
 * sink can hold (negotiate) and one being made.  Filled as the pool grew
 * mid-run instead, flat out spent 12 pattern copies of 5.7 MB a stream,
 * 36 new buffers' first page faults, inside the measurement: the camera
 * took 49% of the process's CPU (342 us a frame), against 70 us a frame
 * at the user's rate. */
static void
prefill_pool (BenchStream * s, guint n)
{
  GstBuffer **bufs = g_new0 (GstBuffer *, n);
  guint i;

  for (i = 0; i < n; i++) {
    GstBufferPoolAcquireParams params = { 0 };
    GstMapInfo map;

    params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
    if (gst_buffer_pool_acquire_buffer (s->pool, &bufs[i], &params) !=
        GST_FLOW_OK)
      break;
    if (gst_buffer_map (bufs[i], &map, GST_MAP_WRITE)) {
      fill_buffer (s, bufs[i], &map);
      gst_buffer_unmap (bufs[i], &map);
    }
  }
  for (i = 0; i < n && bufs[i]; i++)
    gst_buffer_unref (bufs[i]);
  g_free (bufs);
}

/* The caps and segment, and the pool: the sink's if it proposes one. */
static gboolean
negotiate (BenchStream * s, gchar ** error)
{
  BenchSinkRun *r = s->run;
  const BenchConfig *cfg = r->cfg;
  GstQuery *q;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  GstStructure *config;
  GstSegment seg;
  gchar *id = g_strdup_printf ("bench-%u", s->index);

  gst_pad_push_event (s->src, gst_event_new_stream_start (id));
  g_free (id);
  if (!gst_pad_push_event (s->src, gst_event_new_caps (r->caps))) {
    *error = g_strdup ("the sink refused the caps");
    return FALSE;
  }
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (s->src, gst_event_new_segment (&seg));

  q = gst_query_new_allocation (r->caps, TRUE);
  if (gst_pad_peer_query (s->src, q) && gst_query_get_n_allocation_pools (q)
      && !r->spec->own_pool)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  gst_query_unref (q);
  if (pool == NULL)
    pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, r->caps, (guint) cfg->frame_size,
      MAX (min, cfg->camera_buffers), max);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    *error = g_strdup ("cannot set up the buffer pool");
    gst_object_unref (pool);
    return FALSE;
  }
  s->pool = pool;
  s->pattern = g_malloc (cfg->frame_size);
  bench_frame_fill (s->pattern, cfg->frame_size, s->index);
  {
    /* what the sink can hold: its frame and byte budget (queue !
     * filesink's queue, rtframesink's max-size-buffers/bytes), or the
     * one frame filesink writes in render */
    guint held = r->spec->kind == BENCH_FILESINK ? 1 :
        MIN (cfg->queue_buffers, MAX (cfg->queue_bytes / cfg->frame_size, 1));
    gint64 t = thread_cpu_now ();

    prefill_pool (s, MAX (min, cfg->camera_buffers) + held + 1);
    s->prefill_cpu_ns = thread_cpu_now () - t;
  }
  return TRUE;
}

/* ---- the camera ---------------------------------------------------- */

static GstBuffer *
make_frame (BenchStream * s, guint64 k, GstClockTime period)
{
  GstBuffer *buf = NULL;
  GstMapInfo map;
  gsize size = s->run->cfg->frame_size;

  if (gst_buffer_pool_acquire_buffer (s->pool, &buf, NULL) != GST_FLOW_OK)
    return NULL;
  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    gst_buffer_unref (buf);
    return NULL;
  }
  if (fill_buffer (s, buf, &map))
    s->fills++;
  bench_frame_stamp (map.data, size, s->index, k);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = k * period;
  GST_BUFFER_DURATION (buf) = period;
  GST_BUFFER_OFFSET (buf) = k;
  return buf;
}

static void
sleep_until (gint64 t)
{
  struct timespec ts;

  ts.tv_sec = t / GST_SECOND;
  ts.tv_nsec = t % GST_SECOND;
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0);
}

/* Which part of an event recording frame k (captured at running time
 * pts) is, and of which trigger's (*event): everything is live on a sink
 * that records all the time, and on a ring (keep-location), which writes
 * every frame.  With --post a recording is [Tk, Tk + post), its held
 * frames [Tk - pre-record-time, Tk). */
static BenchFramePart
part_of (BenchStream * s, GstClockTime pts, gint * event)
{
  const BenchConfig *cfg = s->run->cfg;
  guint n = bench_trigger_count (cfg), k;
  gint held = -1;

  *event = -1;
  if (!s->event || s->ring)
    return BENCH_FRAME_LIVE;
  for (k = 0; k < n; k++) {
    guint64 t = bench_trigger_at (cfg, k);
    guint64 end = cfg->post_ns ? t + cfg->post_ns : G_MAXUINT64;

    if (pts >= t && pts < end) {
      *event = k;
      return BENCH_FRAME_LIVE;
    }
    if (held < 0 && pts < t && pts + s->pre_record_ns >= t)
      held = k;
  }
  *event = held;
  return held >= 0 ? BENCH_FRAME_HELD : BENCH_FRAME_UNRECORDED;
}

/* --trigger (--trigger-every, --post): as the first frame at or after a
 * trigger comes, the application asks for the recording to start at the
 * trigger's running time and, with --post, to stop post after it (the
 * same instants on every stream's sink) */
static void
maybe_trigger (BenchStream * s, GstClockTime pts)
{
  const BenchConfig *cfg = s->run->cfg;
  guint n = bench_trigger_count (cfg);

  while (s->event && s->next_trigger < n
      && pts >= bench_trigger_at (cfg, s->next_trigger)) {
    guint64 t = bench_trigger_at (cfg, s->next_trigger);
    gboolean ok = FALSE;

    g_signal_emit_by_name (s->sink, "start-recording", t, &ok);
    if (!ok)
      g_printerr ("rtframe-bench: stream %u: start-recording at %.3f s "
          "refused\n", s->index, t / 1e9);
    if (cfg->post_ns) {
      ok = FALSE;
      g_signal_emit_by_name (s->sink, "stop-recording", t + cfg->post_ns,
          &ok);
      if (!ok)
        g_printerr ("rtframe-bench: stream %u: stop-recording at %.3f s "
            "refused\n", s->index, (t + cfg->post_ns) / 1e9);
    }
    s->next_trigger++;
  }
}

/* Live: frame k is captured at t0 + k * period (with --stagger, plus
 * index/streams of a period).  A camera holds only
 * camera-buffers frames: when the producer comes back from a blocked push
 * later than that, the frames in between were overwritten (lost at the
 * camera, like a V4L2 driver with no free buffer).  Flat-out: the next
 * frame as soon as the last push returned. */
static gpointer
camera_thread (gpointer user_data)
{
  BenchStream *s = user_data;
  BenchSinkRun *r = s->run;
  const BenchConfig *cfg = r->cfg;
  GstClockTime period = GST_SECOND / cfg->fps;
  gint64 end = r->t0 + (gint64) (cfg->duration * GST_SECOND);
  gint64 phase = cfg->stagger && !cfg->flat_out ?
      (gint64) (period * s->index / cfg->streams) : 0;
  guint64 k;
  gint64 cpu, cpu0 = thread_cpu_now ();

  sleep_until (r->t0 + phase);
  for (k = 0; cfg->max_frames == 0 || k < cfg->max_frames; k++) {
    gint64 due = r->t0 + phase + (gint64) (k * period), before, after;
    BenchFrame *f;
    GstBuffer *buf;

    if (cfg->flat_out ? bench_now () >= end : due >= end)
      break;
    f = bench_log_add (s->log);
    f->part = part_of (s, k * period, &f->event);
    maybe_trigger (s, k * period);
    if (!cfg->flat_out) {
      if (bench_now () < due)
        sleep_until (due);
      else if (bench_now () > due + (gint64) (cfg->camera_buffers * period)) {
        f->offer = due - r->t0;
        f->lost = TRUE;
        s->lost_camera++;
        g_atomic_int_inc (&s->misses);
        continue;
      }
    }
    before = bench_now ();
    f->offer = before - r->t0;
    cpu = thread_cpu_now ();
    buf = make_frame (s, k, period);
    s->make_cpu_ns += thread_cpu_now () - cpu;
    if (buf)
      s->made++;
    if (buf == NULL) {
      s->flow = GST_FLOW_ERROR;
      break;
    }
    s->flow = gst_pad_push (s->src, buf);
    after = bench_now ();
    f->block = after - before;
    if (s->flow != GST_FLOW_OK)
      break;
    if (r->spec->kind == BENCH_FILESINK) {
      f->done = after - r->t0;
      f->service = f->block;
      if (f->block > (gint64) cfg->deadline_ns)
        g_atomic_int_inc (&s->misses);
      g_atomic_int_inc (&s->written);
    }
  }
  if (s->flow == GST_FLOW_OK)
    gst_pad_push_event (s->src, gst_event_new_eos ());
  s->thread_cpu_ns = thread_cpu_now () - cpu0;
  return NULL;
}

/* ---- the run ------------------------------------------------------- */

BenchSinkRun *
bench_sink_run_new (const BenchConfig * cfg, const BenchSinkSpec * spec,
    const gchar * const *paths, gchar ** error)
{
  BenchSinkRun *r = g_new0 (BenchSinkRun, 1);
  guint i;

  r->cfg = cfg;
  r->spec = spec;
  r->n = cfg->streams;
  r->streams = g_new0 (BenchStream, r->n);
  g_mutex_init (&r->lock);
  g_cond_init (&r->cond);
  r->caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, cfg->format,
      "width", G_TYPE_INT, cfg->width, "height", G_TYPE_INT, cfg->height,
      "framerate", GST_TYPE_FRACTION, cfg->fps, 1, NULL);
  for (i = 0; i < r->n; i++) {
    BenchStream *s = &r->streams[i];

    s->run = r;
    s->index = i;
    s->path = g_strdup (paths[i]);
    s->log = g_new0 (BenchLog, 1);
    s->flow = GST_FLOW_OK;
  }
  /* a ring sink: its events followed from its first message */
  r->keep = bench_keep_pattern (cfg, spec);
  if (r->keep) {
    BenchLog **logs = g_new (BenchLog *, r->n);

    for (i = 0; i < r->n; i++)
      logs[i] = r->streams[i].log;
    r->ring = bench_ring_new (cfg, r->keep, (gchar **) paths, logs);
    g_free (logs);
  }
  for (i = 0; i < r->n; i++) {
    BenchStream *s = &r->streams[i];

    if (!build_stream (r, s, error) || !negotiate (s, error))
      return r;
  }
  return r;
}

void
bench_sink_run_start (BenchSinkRun * r, gint64 t0)
{
  guint i;

  r->t0 = t0;
  if (r->ring)
    bench_ring_start (r->ring, t0, r->streams[0].pre_record_ns);
  for (i = 0; i < r->n; i++)
    r->streams[i].thread = g_thread_new ("camera", camera_thread,
        &r->streams[i]);
}

void
bench_sink_run_progress (BenchSinkRun * r, guint64 * written,
    guint64 * offered, guint64 * misses)
{
  guint i;

  *written = *offered = *misses = 0;
  for (i = 0; i < r->n; i++) {
    *written += g_atomic_int_get (&r->streams[i].written);
    *offered += r->streams[i].log->n;
    *misses += g_atomic_int_get (&r->streams[i].misses);
  }
}

static gint64
sync_file (const gchar * path)
{
  gint fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd >= 0) {
    fdatasync (fd);
    close (fd);
  }
  return bench_now ();
}

static guint64
stat_u64 (const GstStructure * st, const gchar * name)
{
  guint64 v = 0;

  if (st)
    gst_structure_get_uint64 (st, name, &v);
  return v;
}

void
bench_sink_run_finish (BenchSinkRun * r, BenchResult * res)
{
  gint64 durable = r->t0, wait_until;
  guint i;

  for (i = 0; i < r->n; i++)
    if (r->streams[i].thread)
      g_thread_join (r->streams[i].thread);

  /* every stream to EOS (or an error); a sink that takes longer than a
   * minute after its last frame is reported stuck */
  wait_until = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  g_mutex_lock (&r->lock);
  for (i = 0; i < r->n; i++) {
    BenchStream *s = &r->streams[i];

    while (!s->eos && s->error == NULL && s->flow == GST_FLOW_OK)
      if (!g_cond_wait_until (&r->cond, &r->lock, wait_until))
        break;
    if (!s->eos && s->error == NULL)
      s->error = g_strdup_printf ("no EOS from stream %u (flow %s)", i,
          gst_flow_get_name (s->flow));
  }
  g_mutex_unlock (&r->lock);

  for (i = 0; i < r->n; i++) {
    BenchStream *s = &r->streams[i];
    gint64 t = r->spec->kind == BENCH_RTFRAMESINK ? s->t_eos :
        sync_file (s->path);

    durable = MAX (durable, t);
  }
  res->seconds = (durable - r->t0) / 1e9;
  /* every event checked (the last ones after EOS) */
  if (r->ring)
    bench_ring_finish (r->ring, res);

  res->logs = g_new0 (BenchLog *, r->n);
  res->n_logs = r->n;
  for (i = 0; i < r->n; i++) {
    BenchStream *s = &r->streams[i];

    gst_element_set_state (s->pipeline, GST_STATE_NULL);
    if (s->error && res->error == NULL)
      res->error = g_strdup_printf ("stream %u: %s", i, s->error);
    if (s->final_stats) {
      res->element_misses += stat_u64 (s->final_stats, "frames-missed");
      res->dropped += stat_u64 (s->final_stats, "frames-dropped");
      res->zero_copy += stat_u64 (s->final_stats, "frames-zero-copy");
      res->syncs += stat_u64 (s->final_stats, "syncs");
      res->sync_max = MAX (res->sync_max,
          stat_u64 (s->final_stats, "sync-max") / 1e6);
      /* the worst stream's, as fio's worst job's */
      res->sync_p99 = MAX (res->sync_p99,
          stat_u64 (s->final_stats, "sync-latency-p99") / 1e6);
      res->sync_p999 = MAX (res->sync_p999,
          stat_u64 (s->final_stats, "sync-latency-p99.9") / 1e6);
    }
    res->lost_camera += s->lost_camera;
    res->producer_make_cpu += s->make_cpu_ns / 1e9;
    res->producer_cpu += s->thread_cpu_ns / 1e9;
    res->producer_fills += s->fills;
    res->producer_frames += s->made;
    res->producer_prefill_cpu += s->prefill_cpu_ns / 1e9;
    /* the result owns the log now; s->log stays for the progress sampler,
     * which reads it until the run is freed */
    res->logs[i] = s->log;
    s->log_handed_over = TRUE;
  }
}

void
bench_sink_run_free (BenchSinkRun * r)
{
  guint i;

  for (i = 0; i < r->n; i++) {
    BenchStream *s = &r->streams[i];

    if (s->pipeline) {
      gst_element_set_state (s->pipeline, GST_STATE_NULL);
      gst_object_unref (s->pipeline);
    }
    if (s->pool) {
      gst_buffer_pool_set_active (s->pool, FALSE);
      gst_object_unref (s->pool);
    }
    if (s->src) {
      gst_pad_set_active (s->src, FALSE);
      gst_object_unref (s->src);
    }
    if (s->final_stats)
      gst_structure_free (s->final_stats);
    if (s->log && !s->log_handed_over) {
      bench_log_clear (s->log);
      g_free (s->log);
    }
    g_free (s->error);
    g_free (s->path);
    g_free (s->pattern);
  }
  g_free (r->streams);
  if (r->ring)
    bench_ring_free (r->ring);
  g_free (r->keep);
  gst_caps_unref (r->caps);
  g_mutex_clear (&r->lock);
  g_cond_clear (&r->cond);
  g_free (r);
}
