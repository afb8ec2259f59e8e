/* rtframe: rtframesink, the recording element
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-rtframesink
 * @title: rtframesink
 *
 * Records raw 10-bit video to a file without letting a slow write stall the
 * streaming thread.  render() only checks the frame and hands a reference
 * to a bounded queue; a writer thread of the element's own appends the
 * frames with block-aligned O_DIRECT writes through io_uring, straight from
 * the frame's memory when it is aligned (upstream uses the proposed pool),
 * with file space reserved ahead.  The file is the exact concatenation of
 * the frames: play it back with filesrc ! rawvideoparse.
 *
 * When EOS reaches the bus the file has its exact size and is on disk
 * (fdatasync).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! \
 *     video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1 ! \
 *     rtframesink location=cam0.raw
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframesink-private.h"
#include "gstrtframeallocator.h"
#include "gstrtframefigures.h"
#include "gstrtframememory.h"
#include "gstrtframesinkcallbacks.h"

#include <errno.h>
#include <string.h>
#include <gst/video/video.h>

#include "gstrtframemessages.h"
#include "rtf-clock.h"
#include "rtf-pattern.h"

GST_DEBUG_CATEGORY (gst_rtframe_sink_debug);
#define GST_CAT_DEFAULT gst_rtframe_sink_debug


#define gst_rtframe_sink_parent_class parent_class
G_DEFINE_TYPE (GstRtFrameSink, gst_rtframe_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (rtframesink, "rtframesink", GST_RANK_NONE,
    GST_TYPE_RTFRAME_SINK);

enum
{
  SIGNAL_SPLIT_NOW,
  SIGNAL_START_RECORDING,
  SIGNAL_STOP_RECORDING,
  LAST_SIGNAL
};

static guint gst_rtframe_sink_signals[LAST_SIGNAL] = { 0 };

static void gst_rtframe_sink_finalize (GObject * object);
static void gst_rtframe_sink_split_now (GstRtFrameSink * self);
static gboolean gst_rtframe_sink_start_recording (GstRtFrameSink * self,
    guint64 running_time);
static gboolean gst_rtframe_sink_stop_recording (GstRtFrameSink * self,
    guint64 running_time);
static gboolean gst_rtframe_sink_start (GstBaseSink * sink);
static gboolean gst_rtframe_sink_stop (GstBaseSink * sink);
static gboolean gst_rtframe_sink_set_caps (GstBaseSink * sink, GstCaps * caps);
static gboolean gst_rtframe_sink_propose_allocation (GstBaseSink * sink,
    GstQuery * query);
static gboolean gst_rtframe_sink_event (GstBaseSink * sink, GstEvent * event);
static gboolean gst_rtframe_sink_query (GstBaseSink * sink, GstQuery * query);
static gboolean gst_rtframe_sink_send_event (GstElement * element,
    GstEvent * event);
static GstFlowReturn gst_rtframe_sink_render (GstBaseSink * sink,
    GstBuffer * buffer);
static gboolean gst_rtframe_sink_unlock (GstBaseSink * sink);
static gboolean gst_rtframe_sink_unlock_stop (GstBaseSink * sink);
static void reference_set (GstRtFrameSink * self, GstCaps * caps);

static void
gst_rtframe_sink_class_init (GstRtFrameSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);
  GstCaps *caps;

  GST_DEBUG_CATEGORY_INIT (gst_rtframe_sink_debug, "rtframesink", 0,
      "rtframesink: raw video recorder with direct I/O");

  gobject_class->finalize = gst_rtframe_sink_finalize;
  gobject_class->set_property = gst_rtframe_sink_set_property;
  gobject_class->get_property = gst_rtframe_sink_get_property;

  gst_rtframe_sink_install_properties (gobject_class);

  gst_rtframe_sink_signals[SIGNAL_SPLIT_NOW] =
      g_signal_new_class_handler ("split-now", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rtframe_sink_split_now), NULL, NULL, NULL,
      G_TYPE_NONE, 0);

  /**
   * GstRtFrameSink::start-recording:
   * @sink: the sink
   * @running_time: where the recording starts: its first frame is the first
   *   whose running time is at or after it, the frames held from
   *   running_time - pre-record-time on going first (GST_CLOCK_TIME_NONE:
   *   now, by the pipeline clock)
   *
   * Starts a recording (an event).  Give every camera's sink the same
   * running time to record the same instant on all.  With a pattern in
   * location each recording starts a new file.
   *
   * Returns: %FALSE when a recording is on already (nothing changes)
   */
  gst_rtframe_sink_signals[SIGNAL_START_RECORDING] =
      g_signal_new_class_handler ("start-recording",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rtframe_sink_start_recording), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_UINT64);
  /**
   * GstRtFrameSink::stop-recording:
   * @sink: the sink
   * @running_time: the recording ends with the last frame before it
   *   (GST_CLOCK_TIME_NONE: now, by the pipeline clock)
   *
   * Ends the recording on (or asked for).
   *
   * Returns: %FALSE when no recording is on or asked for
   */
  gst_rtframe_sink_signals[SIGNAL_STOP_RECORDING] =
      g_signal_new_class_handler ("stop-recording",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rtframe_sink_stop_recording), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_UINT64);

  gst_element_class_set_static_metadata (element_class,
      "Real-time raw video recorder", "Sink/File/Video",
      "Records raw video to a file with aligned direct I/O from a writer "
      "thread of its own: video/x-raw in every format of fixed frame size "
      "(10-bit first), video/x-bayer 8-bit and, from GStreamer 1.24, "
      "10 to 16-bit", "rtframe developers");

  caps = gst_rtframe_caps_template ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  element_class->send_event = GST_DEBUG_FUNCPTR (gst_rtframe_sink_send_event);
  basesink_class->start = GST_DEBUG_FUNCPTR (gst_rtframe_sink_start);
  basesink_class->stop = GST_DEBUG_FUNCPTR (gst_rtframe_sink_stop);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (gst_rtframe_sink_set_caps);
  basesink_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_rtframe_sink_propose_allocation);
  basesink_class->event = GST_DEBUG_FUNCPTR (gst_rtframe_sink_event);
  basesink_class->query = GST_DEBUG_FUNCPTR (gst_rtframe_sink_query);
  basesink_class->render = GST_DEBUG_FUNCPTR (gst_rtframe_sink_render);
  basesink_class->unlock = GST_DEBUG_FUNCPTR (gst_rtframe_sink_unlock);
  basesink_class->unlock_stop =
      GST_DEBUG_FUNCPTR (gst_rtframe_sink_unlock_stop);

  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_IO_ENGINE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_DIRECT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_LEAKY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_THREAD_POLICY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_PLACEMENT, 0);
}

static void
gst_rtframe_sink_init (GstRtFrameSink * self)
{
  self->allocator = gst_rtframe_allocator_new ();
  gst_rtframe_sink_init_threads (self);
  gst_rtframe_sink_init_properties (self);
  g_mutex_init (&self->file_messages_lock);
  g_queue_init (&self->file_messages);
  g_rec_mutex_init (&self->reporter_task_lock);
  g_mutex_init (&self->report_lock);
  g_mutex_init (&self->stats_lock);
  g_mutex_init (&self->record_lock);
  g_mutex_init (&self->redo_lock);
  g_queue_init (&self->redo);

  /* A recorder writes as fast as it can; it never waits for the clock. */
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}

static void
gst_rtframe_sink_finalize (GObject * object)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (object);

  g_free (self->location);
  g_strfreev (self->locations);
  g_mutex_clear (&self->redo_lock);
  g_free (self->thread_cpus);
  if (self->last_stats_structure)
    gst_structure_free (self->last_stats_structure);
  g_rec_mutex_clear (&self->reporter_task_lock);
  g_mutex_clear (&self->report_lock);
  g_mutex_clear (&self->stats_lock);
  g_mutex_clear (&self->record_lock);
  g_mutex_clear (&self->file_messages_lock);
  g_queue_clear_full (&self->file_messages, (GDestroyNotify) gst_message_unref);
  if (self->format_text)
    g_ref_string_release (self->format_text);
  gst_clear_caps (&self->reference_timestamp_caps);
  reference_set (self, NULL);
  gst_object_unref (self->allocator);
  g_free (self->refused_caps);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- start and stop --------------------------------------------------- */

/* The reference timestamps kept, and their caps as text for the index
 * header: `caps` (NULL: not known yet) */
static void
reference_set (GstRtFrameSink * self, GstCaps * caps)
{
  gst_caps_replace (&self->reference_caps, caps);
  g_clear_pointer (&self->reference_text, g_ref_string_release);
  if (caps) {
    gchar *text = gst_caps_to_string (caps);

    self->reference_text = g_ref_string_new (text);
    g_free (text);
  }
}

/* What start() made goes: the recorder, the writer (or the spread), the
 * mappings, the tasks' objects, the event ring */
static void
free_running_state (GstRtFrameSink * self)
{
  RtfWriter *writer;

  /* the event recorder (a failed start never reached stop()) */
  gst_rtframe_sink_record_end (self);
  GST_OBJECT_LOCK (self);
  writer = self->writer;
  if (writer)
    gst_rtframe_sink_writer_stats (self, &self->last_stats, NULL);
  self->writer = NULL;
  GST_OBJECT_UNLOCK (self);

  /* releases (and unrefs) frames the writer never took; a spread frees
   * every location's writer, the first (joined by now) included */
  if (self->spread)
    gst_rtframe_sink_spread_free (self);
  else
    rtf_writer_free (writer);
  g_free (self->mappings);
  self->mappings = NULL;
  gst_rtframe_sink_release_tasks (self);
  rtf_events_free (self->events);
  self->events = NULL;
  g_free (self->event_batch);
  self->event_batch = NULL;
}

static gboolean
gst_rtframe_sink_start (GstBaseSink * sink)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);
  RtfWriterConfig config = { 0 };
  RtfWriterStats st;
  RtfWriter *writer;
  RtfFailStep step = RTF_FAIL_OPEN;
  gchar *why = NULL, *first, *location;
  gint err = 0;

  GST_OBJECT_LOCK (self);
  if (self->locations && (!self->record || self->pre_record_time > 0)) {
    GST_OBJECT_UNLOCK (self);
    goto record_spread;
  }
  /* our own copy: the property may change as soon as the lock is let go
   * (set_property refuses only once the writer exists); with locations
   * the first stands for them all in what is checked alike */
  location = g_strdup (self->locations ? self->locations[0] : self->location);
  if (location == NULL || location[0] == '\0') {
    GST_OBJECT_UNLOCK (self);
    g_free (location);
    goto no_location;
  }
  config.location = location;
  config.engine = (RtfEngineKind) self->io_engine;
  config.direct = (RtfDirectMode) self->direct;
  config.io_depth = self->io_depth;
  config.max_frames = self->max_size_buffers;
  config.max_bytes = self->max_size_bytes;
  config.preallocate = self->preallocate;
  config.regions = gst_rtframe_allocator_get_regions (self->allocator);
  config.xflags.realtime = self->realtime;
  config.xflags.extent_size = self->extent_size_hint;
  config.index = self->index;
  config.checksums = self->checksums;
  config.sync_interval = self->sync_interval;
  config.first_file_number = self->start_index;
  config.max_file_size = self->max_file_size;
  config.max_file_duration = self->max_file_duration;
  config.max_files = self->max_files;
  config.min_free_space = self->min_free_space < 0 ? RTF_SPACE_AUTO :
      (guint64) self->min_free_space;
  config.threads = &self->helper_threads;
  config.backlog_frames = gst_rtframe_sink_backlog_cells (self);
  switch (rtf_pattern_check (location, &why)) {
    case RTF_PATTERN_OK:
      config.rotate = TRUE;
      break;
    case RTF_PATTERN_NONE:
      if (self->max_file_size || self->max_file_duration || self->max_files) {
        why = g_strdup_printf ("max-file-size, max-file-duration and "
            "max-files split the recording into files named by a pattern: "
            "\"%s\" has no %%d", location);
        GST_OBJECT_UNLOCK (self);
        goto bad_location;
      }
      break;
    case RTF_PATTERN_INVALID:
      GST_OBJECT_UNLOCK (self);
      goto bad_location;
  }
  self->rotate = config.rotate;
  /* the first file of a set waits for its first frame like every later
   * one: what its name holds (an earlier take, a user's file) is left as
   * it was until a frame goes there - an event recorder's until its first
   * recording, any recorder's that ends (an error, a stop) before its
   * first frame (the torture test, seed 0xebb47e45377703b3: a user's file
   * at a set's first name was replaced at start, then deleted when the
   * recording ended with no frame).  One file (no pattern) is named at
   * start, as filesink does. */
  config.first_file_ahead = TRUE;
  g_atomic_int_set (&self->split_pending, 0);
  memset (&self->last_stats, 0, sizeof (self->last_stats));
  self->frames_repacked = 0;
  if (self->last_stats_structure) {
    gst_structure_free (self->last_stats_structure);
    self->last_stats_structure = NULL;
  }
  /* what upstream says of the frames, from the first on: gaps (set_caps
   * sets the frame duration) and the reference timestamps the property
   * names (NULL: those of the first a buffer carries) */
  rtf_gap_detector_reset (&self->gaps, 0);
  reference_set (self, self->reference_timestamp_caps);
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->stats_lock);
  self->start_ns = self->interval_start = rtf_clock_now_ns ();
  self->events_overflowed = self->interval_bytes = 0;
  g_mutex_unlock (&self->stats_lock);
  self->events = rtf_events_new (EVENT_RING_SIZE);
  self->event_batch = g_new (RtfEvent, EVENT_BATCH);

  if (self->locations) {
    gchar *failed = NULL;

    writer = gst_rtframe_sink_spread_new (self, &config,
        &gst_rtframe_sink_writer_callbacks, &failed, &err, &step, &why);
    if (writer == NULL && why) {
      free_running_state (self);
      goto bad_location;
    }
    if (writer == NULL && failed == NULL) {
      /* a manifest's name refused: the error is posted */
      free_running_state (self);
      g_free (location);
      return FALSE;
    }
    if (writer == NULL) {
      g_free (location);
      location = failed;
    }
  } else {
    writer = rtf_writer_new (&config, &gst_rtframe_sink_writer_callbacks,
        self, &err, &step);
  }
  if (writer == NULL) {
    free_running_state (self);
    goto open_failed;
  }

  self->mappings = gst_rtframe_sink_mappings_new (rtf_writer_get_queue
      (writer));

  GST_OBJECT_LOCK (self);
  self->writer = writer;
  GST_OBJECT_UNLOCK (self);
  gst_rtframe_sink_record_begin (self);

  rtf_writer_get_stats (writer, &st);
  if (!st.direct && st.direct_errno != 0) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("Direct I/O is not supported for \"%s\" (%s); writing through the "
            "page cache instead.", config.location,
            g_strerror (st.direct_errno)), ("open(O_DIRECT) refused"));
  }

  if (!gst_rtframe_sink_start_writer_task (self))
    goto thread_failed;

  err = rtf_writer_wait_started (writer);
  if (err == 0 && self->spread)
    err = gst_rtframe_sink_spread_run (self);
  if (err != 0)
    goto io_uring_failed;
  if (!gst_rtframe_sink_start_reporter (self))
    goto reporter_failed;

  rtf_writer_get_stats (writer, &st);
  if (st.engine == RTF_ENGINE_PSYNC && st.engine_errno != 0) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("io_uring is not available (%s); writing with pwrite() instead.",
            g_strerror (st.engine_errno)), ("io_uring_queue_init failed"));
  }
  GST_INFO_OBJECT (self, "recording to %s: engine %s, direct %d, block %zu",
      GST_STR_NULL (self->location),
      st.engine == RTF_ENGINE_PSYNC ? "psync" : "io_uring", st.direct,
      st.block);
  g_free (location);
  return TRUE;

  /* ERRORS */
no_location:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for writing."), (NULL));
    return FALSE;
  }
record_spread:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Event recording (record=false, pre-record-time) records to one "
            "location: locations is for a continuous recording."),
        ("start-recording, stop-recording, the record property and the "
            "rtframe-record event are refused while recording to several "
            "locations"));
    return FALSE;
  }
bad_location:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot record to \"%s\": %s.", location, why), (NULL));
    g_free (why);
    g_free (location);
    return FALSE;
  }
open_failed:
  first = config.rotate ? rtf_pattern_format (location,
      config.first_file_number) : g_strdup (location);
  gst_rtframe_sink_post_open_error (self, step, first, err, config.direct,
      &config.xflags, NULL);
  g_free (first);
  g_free (location);
  return FALSE;
thread_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not start the writer thread."), (NULL));
    free_running_state (self);
    g_free (location);
    return FALSE;
  }
reporter_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not start the reporter thread."), (NULL));
    if (self->spread)
      rtf_spread_shutdown (self->spread);
    else
      rtf_writer_shutdown (self->writer);
    gst_rtframe_sink_join_writer_task (self);
    free_running_state (self);
    g_free (location);
    return FALSE;
  }
io_uring_failed:
  {
    if (self->spread)
      rtf_spread_shutdown (self->spread);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("io_uring is not available (%s) and io-engine=io-uring was "
            "requested.", g_strerror (err)), ("io_uring_queue_init failed"));
    gst_rtframe_sink_join_writer_task (self);
    free_running_state (self);
    g_free (location);
    return FALSE;
  }
}

static void
gst_rtframe_sink_split_now (GstRtFrameSink * self)
{
  GST_OBJECT_LOCK (self);
  if (self->writer == NULL || !self->rotate) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "split-now ignored: recording to a pattern "
        "(location with %%d) only");
    return;
  }
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "the next frame starts a new file");
  g_atomic_int_set (&self->split_pending, 1);
}

static gboolean
gst_rtframe_sink_start_recording (GstRtFrameSink * self, guint64 running_time)
{
  return gst_rtframe_sink_request (self, TRUE, running_time, FALSE,
      "start-recording");
}

static gboolean
gst_rtframe_sink_stop_recording (GstRtFrameSink * self, guint64 running_time)
{
  return gst_rtframe_sink_request (self, FALSE, running_time, FALSE,
      "stop-recording");
}

static gboolean
gst_rtframe_sink_stop (GstBaseSink * sink)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);

  /* frames held for a recording that did not come go first */
  gst_rtframe_sink_record_end (self);
  if (self->writer) {
    guint64 timeout;

    GST_OBJECT_LOCK (self);
    timeout = self->stop_timeout;
    GST_OBJECT_UNLOCK (self);

    /* The writer writes what it still holds, finishes the file and
     * returns: nothing accepted is dropped by a stop, unless the disk does
     * not take it within stop-timeout (every location's disk, at once). */
    gint64 end_us = timeout ? g_get_monotonic_time () +
        (gint64) (timeout / 1000) : -1;
    gboolean finished;

    if (self->spread)
      rtf_spread_shutdown (self->spread);
    else
      rtf_writer_shutdown (self->writer);
    finished = rtf_writer_wait_finished (self->writer,
        timeout ? (gint64) timeout : -1);
    gst_rtframe_sink_spread_finish (self, end_us, finished);
    if (finished || !gst_rtframe_sink_abandon_writer (self, timeout)) {
      gst_rtframe_sink_join_writer_task (self);
      gst_rtframe_sink_stop_reporter (self);
      GST_OBJECT_LOCK (self);
      self->last_stats_structure = gst_rtframe_sink_stats (self,
          GST_RTFRAME_MSG_STATS, FALSE);
      GST_OBJECT_UNLOCK (self);
    }
    free_running_state (self);
  }
  gst_clear_object (&self->repack_pool);
  memset (&self->format, 0, sizeof (self->format));
  reference_set (self, NULL);
  return TRUE;
}

/* ---- caps and memory ------------------------------------------------- */

static guint64
frames_accepted (GstRtFrameSink * self)
{
  RtfWriterStats st = { 0 };

  GST_OBJECT_LOCK (self);
  if (self->writer)
    gst_rtframe_sink_writer_stats (self, &st, NULL);
  GST_OBJECT_UNLOCK (self);
  return st.frames_received;
}

/* ns a frame at the caps' frame rate, 0 without one (or 0/1): then
 * timestamps say nothing of lost frames */
static guint64
frame_duration_of (GstCaps * caps)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint num = 0, den = 1;

  if (!gst_structure_get_fraction (s, "framerate", &num, &den) || num <= 0
      || den <= 0)
    return 0;
  return gst_util_uint64_scale_int (GST_SECOND, den, num);
}

static gboolean
same_frame_layout (const GstRtFrameFormat * a, const GstRtFrameFormat * b)
{
  return a->frame_size == b->frame_size && a->is_video == b->is_video
      && a->name == b->name && a->width == b->width && a->height == b->height;
}

/* Fixed caps upstream offers and the template refuses (a format this
 * GStreamer does not know, or without a frame of a fixed size): upstream
 * only says not-negotiated, so the sink names the format, once per caps.
 * A warning: an accept-caps query may be a probe among other caps. */
static void
warn_refused_caps (GstRtFrameSink * self, GstCaps * caps)
{
  GstRtFrameFormat format;
  gchar *why = NULL, *text = gst_caps_to_string (caps);
  gboolean told;

  GST_OBJECT_LOCK (self);
  told = g_strcmp0 (self->refused_caps, text) == 0;
  if (!told) {
    g_free (self->refused_caps);
    self->refused_caps = g_strdup (text);
  }
  GST_OBJECT_UNLOCK (self);
  if (!told && !gst_rtframe_format_from_caps_full (&format, caps, &why))
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Cannot record these "
            "caps: %s.", why), ("refused caps: %s", text));
  g_free (why);
  g_free (text);
}

/* An rtframe-record event sent upstream from the application (to the
 * pipeline: a bin hands an upstream event to each of its sinks) starts or
 * stops every rtframesink of the pipeline without a handle to any: taken
 * here, not sent on upstream.  Other events go as GstBaseSink sends them. */
static gboolean
gst_rtframe_sink_send_event (GstElement * element, GstEvent * event)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (element);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM
      && gst_event_has_name (event, "rtframe-record")) {
    gboolean ok = gst_rtframe_sink_record_event (self, event);

    gst_event_unref (event);
    return ok;
  }
  return GST_ELEMENT_CLASS (parent_class)->send_event (element, event);
}

static gboolean
gst_rtframe_sink_query (GstBaseSink * sink, GstQuery * query)
{
  gboolean ret = GST_BASE_SINK_CLASS (parent_class)->query (sink, query);
  gboolean accepted = TRUE;
  GstCaps *caps = NULL;

  GstCaps *result = NULL;

  /* a source (basesrc) asks with its caps as the filter and stops when
   * nothing is left; a pushed CAPS event is checked with ACCEPT_CAPS */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    gst_query_parse_caps (query, &caps);
    gst_query_parse_caps_result (query, &result);
    accepted = !ret || result == NULL || !gst_caps_is_empty (result);
  } else if (GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS) {
    gst_query_parse_accept_caps (query, &caps);
    gst_query_parse_accept_caps_result (query, &accepted);
  }
  if (!accepted && caps && gst_caps_is_fixed (caps))
    warn_refused_caps (GST_RTFRAME_SINK (sink), caps);
  return ret;
}

static gboolean
gst_rtframe_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);
  GstRtFrameFormat format;

  if (!gst_rtframe_format_from_caps (&format, caps))
    goto invalid_caps;

  GST_INFO_OBJECT (self, "frame size %zu bytes for %" GST_PTR_FORMAT,
      format.frame_size, caps);
  /* One file holds frames of one layout: a change of size or format after
   * the first frame would make it unreadable.  (framerate, colorimetry and
   * the like may change.) */
  if (self->format.frame_size != 0 && frames_accepted (self) > 0
      && !same_frame_layout (&format, &self->format) && !self->rotate)
    goto layout_changed;
  /* the index header of the file its frames go to; with a pattern in
   * location, frames of other caps start a new file */
  {
    gchar *text = gst_caps_to_string (caps);

    if (self->format_text == NULL || !g_str_equal (text, self->format_text)) {
      if (self->format_text)
        g_ref_string_release (self->format_text);
      self->format_text = g_ref_string_new (text);
    }
    g_free (text);
  }
  if (self->format.frame_size != 0
      && !gst_video_info_is_equal (&format.info, &self->format.info))
    gst_clear_object (&self->repack_pool);
  self->format = format;
  rtf_gap_detector_set_frame_duration (&self->gaps, frame_duration_of (caps));
  return gst_rtframe_sink_record_caps (self, caps);

  /* ERRORS */
invalid_caps:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
        ("cannot record caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
layout_changed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The video changed from %s %dx%d (%" G_GSIZE_FORMAT " bytes a "
            "frame) to %s %dx%d (%" G_GSIZE_FORMAT " bytes) in the middle "
            "of recording \"%s\"; one file holds one frame layout.",
            self->format.name, self->format.width, self->format.height,
            self->format.frame_size, format.name, format.width,
            format.height, format.frame_size, self->location),
        ("new caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
}

/* Offers frames in memory aligned for direct I/O, so the writer can write
 * them from where upstream put them. */
static gboolean
gst_rtframe_sink_propose_allocation (GstBaseSink * sink, GstQuery * query)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);
  GstRtFrameFormat format;
  GstAllocationParams params;
  GstBufferPool *pool = NULL;
  GstCaps *caps;
  gboolean need_pool;
  guint min_buffers;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (caps == NULL || !gst_rtframe_format_from_caps (&format, caps))
    return FALSE;

  /* with pre-record, the frames held stay out of the pool: it makes them
   * when it starts, not one by one on the streaming thread as they are
   * held (hold_frames: set at caps, before this query) */
  min_buffers = MIN (self->io_depth, self->max_size_buffers) + 1 +
      self->hold_frames;
  if (need_pool) {
    pool = gst_rtframe_sink_new_aligned_pool (self, caps, &format,
        min_buffers, &params);
    if (pool == NULL)
      return FALSE;
    /* its buffers can be held for pre-record without a copy: it has
     * hold_frames more, and grows past that if need be */
    gst_rtframe_sink_mark_proposed_pool (pool);
  } else {
    gst_allocation_params_init (&params);
    params.align = gst_rtframe_sink_memory_alignment (self) - 1;
  }
  gst_query_add_allocation_pool (query, pool, format.frame_size, min_buffers,
      0);
  /* upstream that makes its own pool (or sets the pool's allocator from
   * these params, like GstBaseSrc) still gets registrable memory */
  gst_query_add_allocation_param (query, self->allocator, &params);
  if (format.is_video)
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (pool)
    gst_object_unref (pool);
  GST_DEBUG_OBJECT (self, "proposed a pool aligned to %zu bytes",
      params.align + 1);
  return TRUE;
}

static gboolean
gst_rtframe_sink_event (GstBaseSink * sink, GstEvent * event)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CUSTOM_DOWNSTREAM:
    case GST_EVENT_CUSTOM_DOWNSTREAM_OOB:
    case GST_EVENT_CUSTOM_BOTH:
    case GST_EVENT_CUSTOM_BOTH_OOB:
      if (gst_event_has_name (event, "rtframe-record")) {
        gboolean ok = gst_rtframe_sink_record_event (self, event);

        gst_event_unref (event);
        return ok;
      }
      break;
    case GST_EVENT_FLUSH_STOP:
      /* after a flush the stream starts afresh: its first buffer's
       * DISCONT, counter and timestamp say nothing of frames lost */
      rtf_gap_detector_reset (&self->gaps, self->gaps.frame_duration);
      if (self->writer)
        gst_rtframe_sink_record_flush (self);
      break;
    default:
      break;
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->writer) {
    gint ret;

    gst_rtframe_sink_record_eos (self);
    ret = self->spread ? gst_rtframe_sink_spread_sync (self) :
        rtf_writer_sync (self->writer);

    if (ret < 0) {
      GST_DEBUG_OBJECT (self, "flushing while waiting for the writer");
      gst_event_unref (event);
      return FALSE;
    }
    if (ret > 0) {
      RtfWriterStats st;

      GST_OBJECT_LOCK (self);
      gst_rtframe_sink_writer_stats (self, &st, NULL);
      GST_OBJECT_UNLOCK (self);
      if (st.error == 0 && ret != ENODEV)
        GST_ELEMENT_ERROR (self, RESOURCE, SYNC,
            ("Could not finish file \"%s\": %s.", self->location,
                g_strerror (ret)), ("ftruncate/fdatasync failed"));
      /* else the writer already posted the error */
      gst_event_unref (event);
      return FALSE;
    }
    /* every deadline message before the final stats, and both before EOS */
    gst_rtframe_sink_post_events (self);
    gst_rtframe_sink_post_stats (self);
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

/* ---- frames ---------------------------------------------------------- */

static gboolean
layout_is_tight (const GstVideoInfo * info, const GstVideoMeta * meta)
{
  guint i;

  if (meta->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    return FALSE;
  for (i = 0; i < meta->n_planes; i++) {
    if (meta->offset[i] != GST_VIDEO_INFO_PLANE_OFFSET (info, i)
        || meta->stride[i] != GST_VIDEO_INFO_PLANE_STRIDE (info, i))
      return FALSE;
  }
  return TRUE;
}

/* Copies a strided frame into the default tight layout.  Streaming thread:
 * memory copy only, from a pool (no allocation once it is warm). */
static GstBuffer *
repack (GstRtFrameSink * self, GstBuffer * buffer)
{
  GstVideoFrame in, out;
  GstBuffer *outbuf = NULL;
  GstAllocationParams params;

  if (self->repack_pool == NULL) {
    GstCaps *caps = gst_video_info_to_caps (&self->format.info);

    self->repack_pool = gst_rtframe_sink_new_aligned_pool (self, caps,
        &self->format,
        MIN (self->io_depth, self->max_size_buffers) + 1, &params);
    gst_caps_unref (caps);
    if (self->repack_pool == NULL
        || !gst_buffer_pool_set_active (self->repack_pool, TRUE))
      return NULL;
  }
  if (gst_buffer_pool_acquire_buffer (self->repack_pool, &outbuf,
          NULL) != GST_FLOW_OK)
    return NULL;
  if (!gst_video_frame_map (&in, &self->format.info, buffer, GST_MAP_READ)) {
    gst_buffer_unref (outbuf);
    return NULL;
  }
  if (!gst_video_frame_map (&out, &self->format.info, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    gst_buffer_unref (outbuf);
    return NULL;
  }
  /* The tight layout may still pad rows (to 4 bytes): zero that padding so
   * the file does not depend on what the pool's memory held before, nor
   * (gst_rtframe_copy_pixels()) on what the input's padding held. */
  memset (GST_VIDEO_FRAME_PLANE_DATA (&out, 0), 0,
      GST_VIDEO_INFO_SIZE (&self->format.info));
  gst_rtframe_copy_pixels (&out, &in);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  gst_buffer_copy_into (outbuf, buffer, GST_BUFFER_COPY_METADATA, 0, -1);
  self->frames_repacked++;
  return outbuf;
}

/* The times a frame carries into the writer and into its reports. */
static void
stamp_times (GstRtFrameSink * self, RtfFrameTimes * t, GstBuffer * buf,
    gint64 arrival, guint64 deadline)
{
  GstSegment *segment = &GST_BASE_SINK (self)->segment;
  GstClockTime pts = GST_BUFFER_PTS (buf);

  rtf_frame_times_clear (t);
  t->arrival_ns = arrival;
  t->deadline_ns = deadline ? arrival + (gint64) deadline : 0;
  t->pts = pts;
  t->duration = GST_BUFFER_DURATION (buf);
  if (GST_CLOCK_TIME_IS_VALID (pts) && segment->format == GST_FORMAT_TIME) {
    t->running_time = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        pts);
    t->stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME, pts);
  }
}

/* What upstream says of the buffer: its offset, the frames lost before
 * it (common/rtf-upstream-gap.c), its reference timestamp.  Streaming
 * thread: no allocation but once, when the first reference timestamp
 * fixes which ones are kept (reference-timestamp-caps unset). */
static void
origin_of (GstRtFrameSink * self, GstBuffer * buf, RtfFrameOrigin * o)
{
  GstReferenceTimestampMeta *meta;
  RtfUpstreamFrame u;

  rtf_frame_origin_clear (o);
  o->offset = u.offset = GST_BUFFER_OFFSET (buf);
  u.offset_end = GST_BUFFER_OFFSET_END (buf);
  u.pts = GST_BUFFER_PTS (buf);
  u.discont = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT);
  if (rtf_gap_detector_check (&self->gaps, &u, &o->gap))
    GST_DEBUG_OBJECT (self, "upstream lost %" G_GUINT64_FORMAT " frames "
        "before %" GST_PTR_FORMAT " (%s)", o->gap.missing, buf,
        rtf_gap_how_name (o->gap.how));
  meta = gst_buffer_get_reference_timestamp_meta (buf, self->reference_caps);
  if (meta == NULL)
    return;
  if (self->reference_caps == NULL)
    reference_set (self, meta->reference);
  o->reference_ns = meta->timestamp;
}

/* The buffer as one frame of the tight layout: itself, or (strided, with a
 * GstVideoMeta) a repacked copy.  NULL with the error posted. */
static GstBuffer *
frame_buffer_of (GstRtFrameSink * self, GstBuffer * buffer, gsize size)
{
  GstVideoMeta *meta = NULL;
  GstBuffer *out;

  if (self->format.is_video)
    meta = gst_buffer_get_video_meta (buffer);
  if (meta == NULL || layout_is_tight (&self->format.info, meta)) {
    if (size == self->format.frame_size)
      return gst_buffer_ref (buffer);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Buffer of %" G_GSIZE_FORMAT " bytes does not hold one frame of "
            "%" G_GSIZE_FORMAT " bytes.", size, self->format.frame_size),
        ("buffer %" GST_PTR_FORMAT " refused: a frame's size follows from "
            "the caps; nothing of it was written", buffer));
    return NULL;
  }
  if ((gint) meta->width != GST_VIDEO_INFO_WIDTH (&self->format.info)
      || (gint) meta->height != GST_VIDEO_INFO_HEIGHT (&self->format.info)
      || meta->format != GST_VIDEO_INFO_FORMAT (&self->format.info)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Frame of %ux%u does not match the caps (%dx%d).", meta->width,
            meta->height, GST_VIDEO_INFO_WIDTH (&self->format.info),
            GST_VIDEO_INFO_HEIGHT (&self->format.info)), (NULL));
    return NULL;
  }
  if ((out = repack (self, buffer)) == NULL)
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Could not repack a strided frame."), (NULL));
  return out;
}

static const RtfLeaky leaky_of[] = {
  [GST_RTFRAME_LEAKY_NO] = RTF_LEAKY_NO,
  [GST_RTFRAME_LEAKY_UPSTREAM] = RTF_LEAKY_UPSTREAM,
  [GST_RTFRAME_LEAKY_DOWNSTREAM] = RTF_LEAKY_DOWNSTREAM,
};

/* The writer, or with locations the one placed, takes the frame (or
 * drops it, or refuses) */
static RtfOffer
offer_frame (GstRtFrameSink * self, RtfLeaky leaky, const RtfFrameTimes * times,
    const RtfFrameOrigin * origin, RtfFrame ** frame, RtfWriter ** w)
{
  if (self->spread)
    return gst_rtframe_sink_spread_offer (self, leaky, times, origin, frame, w);
  *w = self->writer;
  return rtf_writer_offer (self->writer, self->format.frame_size, leaky, times,
      origin, frame);
}

/* A wait for room ended by unlock(): for a flush or a stop (FALSE, *ret
 * FLUSHING), or for a state change (PLAYING -> PAUSED), after which
 * render waits in gst_base_sink_wait_preroll() as GstBaseSink wants and
 * goes on once PLAYING again (TRUE).  Returning FLUSHING with no flush
 * going on stopped upstream for good (the torture test, seed
 * 0xd03411eabe027661). */
static gboolean
resume_after_unlock (GstRtFrameSink * self, GstFlowReturn * ret)
{
  GstBaseSink *sink = GST_BASE_SINK_CAST (self);

  *ret = GST_FLOW_FLUSHING;
  if (GST_PAD_IS_FLUSHING (GST_BASE_SINK_PAD (sink)))
    return FALSE;
  *ret = gst_base_sink_wait_preroll (sink);
  return *ret == GST_FLOW_OK;
}

/* offer_frame(), again after a state change ended its wait */
static RtfOffer
offer_until_taken (GstRtFrameSink * self, RtfLeaky leaky,
    const RtfFrameTimes * times, RtfFrameOrigin * origin, RtfFrame ** frame,
    RtfWriter ** w, GstFlowReturn * ret)
{
  for (;;) {
    RtfOffer res = offer_frame (self, leaky, times, origin, frame, w);

    if (res != RTF_OFFER_FLUSHING || !resume_after_unlock (self, ret))
      return res;
    /* its upstream gap was told and goes with the next frame taken */
    rtf_upstream_gap_clear (&origin->gap);
  }
}

/* The frames of a location that left, offered again first (a state
 * change may end their wait too) */
static GstFlowReturn
redo_until_done (GstRtFrameSink * self)
{
  GstFlowReturn ret;

  for (;;) {
    ret = gst_rtframe_sink_spread_redo (self);
    if (ret != GST_FLOW_FLUSHING || !resume_after_unlock (self, &ret))
      return ret;
  }
}

/* Checks the frame, hands it to the writer's queue: no I/O, no
 * allocation (a repack takes its buffer from a pool).  What becomes of
 * frames that find no room (leaky) the writer decides and reports. */
static GstFlowReturn
gst_rtframe_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);
  gint64 arrival = rtf_clock_now_ns ();
  GstBuffer *frame_buf;
  RtfFrameTimes times;
  RtfFrameOrigin origin;
  RtfFrame *frame;
  RtfWriter *w;
  GstRtFrameLeaky leaky;
  GstFlowReturn ret;
  guint64 deadline;
  guint flags;
  gsize size;

  if (self->writer == NULL || self->format.frame_size == 0)
    goto not_negotiated;

  /* An empty buffer (a GAP, a heartbeat) holds no frame: nothing to write.
   * A GAP buffer with a frame's bytes is recorded like any frame. */
  size = gst_buffer_get_size (buffer);
  if (size == 0) {
    GST_LOG_OBJECT (self, "skipping empty buffer");
    return GST_FLOW_OK;
  }
  if ((frame_buf = frame_buffer_of (self, buffer, size)) == NULL)
    return GST_FLOW_ERROR;

  GST_OBJECT_LOCK (self);
  deadline = self->deadline;
  leaky = self->leaky;
  GST_OBJECT_UNLOCK (self);
  stamp_times (self, &times, frame_buf, arrival, deadline);
  origin_of (self, buffer, &origin);
  /* not recording: held for pre-record, or let go */
  if (!gst_rtframe_sink_record_frame (self, frame_buf, &times, &origin,
          &flags, &ret))
    return ret;

  if ((ret = redo_until_done (self)) != GST_FLOW_OK) {
    gst_buffer_unref (frame_buf);
    return ret;
  }
  switch (offer_until_taken (self, leaky_of[leaky], &times, &origin, &frame,
          &w, &ret)) {
    case RTF_OFFER_TAKEN:
      break;
    case RTF_OFFER_DROPPED:
      gst_rtframe_sink_record_not_taken (self, flags);
      gst_buffer_unref (frame_buf);
      return GST_FLOW_OK;
    case RTF_OFFER_FLUSHING:
      gst_rtframe_sink_record_not_taken (self, flags);
      gst_buffer_unref (frame_buf);
      return ret;
    case RTF_OFFER_FLUSHING_DROPPED:
      /* dropped under its number (its miss was told): after a state
       * change the stream goes on */
      gst_rtframe_sink_record_not_taken (self, flags);
      gst_buffer_unref (frame_buf);
      return GST_PAD_IS_FLUSHING (GST_BASE_SINK_PAD (self)) ?
          GST_FLOW_FLUSHING : GST_FLOW_OK;
    case RTF_OFFER_CLOSED:
    default:
      gst_buffer_unref (frame_buf);
      return GST_FLOW_ERROR;    /* the writer posted the error */
  }

  if (!gst_rtframe_sink_attach (self, frame, frame_buf))
    goto map_failed;
  frame->flags |= flags;
  /* a split asked for, or a recording's first frame: a new file */
  frame->split = self->rotate
      && (g_atomic_int_compare_and_exchange (&self->split_pending, 1, 0)
      || (flags & RTF_FRAME_EVENT_START));
  rtf_writer_commit (w, frame);
  gst_rtframe_sink_record_committed (self, frame->seq);
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer received before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
map_failed:
  {
    gst_rtframe_sink_frame_clear (frame);
    rtf_writer_cancel (w, frame);
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not read the frame's memory."), (NULL));
    return GST_FLOW_ERROR;
  }
}

static gboolean
gst_rtframe_sink_unlock (GstBaseSink * sink)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);

  GST_OBJECT_LOCK (self);
  if (self->spread)
    rtf_spread_set_flushing (self->spread, TRUE);
  else if (self->writer)
    rtf_writer_set_flushing (self->writer, TRUE);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_rtframe_sink_unlock_stop (GstBaseSink * sink)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);

  GST_OBJECT_LOCK (self);
  if (self->spread)
    rtf_spread_set_flushing (self->spread, FALSE);
  else if (self->writer)
    rtf_writer_set_flushing (self->writer, FALSE);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}
