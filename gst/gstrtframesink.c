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

#include "gstrtframesink.h"
#include "gstrtframesink-private.h"
#include "gstrtframeallocator.h"
#include "gstrtframefigures.h"
#include "gstrtframememory.h"
#include "gstrtframedebug.h"
#include "gstrtframesinkcallbacks.h"
#include "gstrtframesinkevents.h"
#include "gstrtframesinkprops.h"
#include "gstrtframesinkrender.h"
#include "gstrtframerecord.h"
#include "gstrtframering.h"
#include "gstrtframesplits.h"
#include "gstrtframespread.h"
#include "gstrtframetasks.h"
#include "gstrtframeuri.h"

#include <string.h>

#include "gstrtframemessages.h"
#include "rtf-clock.h"
#include "rtf-pattern.h"

GST_DEBUG_CATEGORY (gst_rtframe_sink_debug);
#define GST_CAT_DEFAULT gst_rtframe_sink_debug


static void gst_rtframe_sink_uri_handler_init (gpointer g_iface,
    gpointer iface_data);

#define gst_rtframe_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRtFrameSink, gst_rtframe_sink, GST_TYPE_BASE_SINK,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        gst_rtframe_sink_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (rtframesink, "rtframesink", GST_RANK_NONE,
    GST_TYPE_RTFRAME_SINK);

enum
{
  SIGNAL_SPLIT_NOW,
  SIGNAL_START_RECORDING,
  SIGNAL_STOP_RECORDING,
  SIGNAL_REQUEST_RECORDING,
  SIGNAL_SPLIT_AT_RUNNING_TIME,
  SIGNAL_FORMAT_LOCATION,
  SIGNAL_FORMAT_LOCATION_FULL,
  LAST_SIGNAL
};

static guint gst_rtframe_sink_signals[LAST_SIGNAL] = { 0 };

static void gst_rtframe_sink_finalize (GObject * object);
static void gst_rtframe_sink_split_now (GstRtFrameSink * self);
static gboolean gst_rtframe_sink_start_recording (GstRtFrameSink * self,
    guint64 running_time);
static GstStructure *gst_rtframe_sink_request_recording (GstRtFrameSink *
    self, const GstStructure * request);
static gboolean gst_rtframe_sink_stop_recording (GstRtFrameSink * self,
    guint64 running_time);
static void gst_rtframe_sink_split_at_running_time (GstRtFrameSink * self,
    GstClockTime running_time);
static gboolean gst_rtframe_sink_start (GstBaseSink * sink);
static gboolean gst_rtframe_sink_stop (GstBaseSink * sink);

static void
gst_rtframe_sink_class_init (GstRtFrameSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);
  GstCaps *caps;

  gst_rtframe_debug_init ();
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
   * location each recording starts a new file.  The recording rules
   * (docs/reference.md#recording-rules) decide from the requests alone.
   *
   * Returns: %FALSE when a recording is asked at running_time already
   *   (nothing changes)
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
   * Ends the recording at running_time, and cancels those asked to start
   * at or after it.
   *
   * Returns: %FALSE when no recording is asked at or after running_time
   */
  gst_rtframe_sink_signals[SIGNAL_STOP_RECORDING] =
      g_signal_new_class_handler ("stop-recording",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rtframe_sink_stop_recording), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_UINT64);
  /**
   * GstRtFrameSink::request-recording:
   * @sink: the sink
   * @request: "action" (string: "start", "stop" or "extend"),
   *   "running-time" (guint64 ns; absent: now), "recording-at" (guint64,
   *   extend: the recording on at it; absent: now), "id" (string, start:
   *   the recording's, at most 63 bytes of letters, digits, '.', '_',
   *   '-'), "check" (boolean: answer only, change nothing)
   *
   * A start, stop or extend of a recording by the recording rules, with
   * the answer in full: what a rig asks every camera before it commits
   * one running time to all (docs/reference.md#recording-rules).
   *
   * Returns: (transfer full): "accepted", "did", "reason",
   *   "running-time" (the time taken), "position" (the running time of
   *   the newest frame when it came), "passed" (the frames were past it:
   *   it takes effect from the next frame), and the recording made or
   *   changed: "serial", "start", "stop", "id".  %NULL: not a request.
   */
  gst_rtframe_sink_signals[SIGNAL_REQUEST_RECORDING] =
      g_signal_new_class_handler ("request-recording",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rtframe_sink_request_recording), NULL, NULL, NULL,
      GST_TYPE_STRUCTURE, 1, GST_TYPE_STRUCTURE);

  /**
   * GstRtFrameSink::split-at-running-time:
   * @sink: the sink
   * @running_time: the first frame whose running time is at or after it
   *   starts a new file
   *
   * Like splitmuxsink's: asks for a new file of the set (a location with
   * a pattern) at a running time; asked again, each is kept, in order.
   * Those not reached by the end of the stream are forgotten at READY.
   */
  gst_rtframe_sink_signals[SIGNAL_SPLIT_AT_RUNNING_TIME] =
      g_signal_new_class_handler ("split-at-running-time",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rtframe_sink_split_at_running_time), NULL, NULL, NULL,
      G_TYPE_NONE, 1, G_TYPE_UINT64);
  /**
   * GstRtFrameSink::format-location:
   * @sink: the sink
   * @fragment_id: the number of the file in the set
   *
   * Like splitmuxsink's, for a set whose location has time fields
   * (`cam0-%F-%H%M%S-%05d.raw`): the name of the file that begins now,
   * with those fields filled as the application wants (another clock, a
   * camera's).  Emitted on the writer thread when the file's first frame
   * is written, and only if no format-location-full handler gave a name:
   * return quickly, and never change the sink's state from it.  A name the
   * location does not make for @fragment_id (another directory, another
   * number, anything but digits where the fields are) is refused with a
   * warning and the sink's own name is taken, so that every reader finds
   * the file by its number.
   *
   * Returns: (transfer full) (nullable): the file's path, or %NULL for the
   *   sink's own (the fields at the first frame's arrival, local time)
   */
  gst_rtframe_sink_signals[SIGNAL_FORMAT_LOCATION] =
      g_signal_new ("format-location", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_STRING, 1, G_TYPE_UINT);
  /**
   * GstRtFrameSink::format-location-full:
   * @sink: the sink
   * @fragment_id: the number of the file in the set
   * @first_sample: the file's first frame: its buffer (unless it was held
   *   for pre-record and let go), its caps and the segment
   *
   * As #GstRtFrameSink::format-location, with the first frame, tried
   * first.
   *
   * Returns: (transfer full) (nullable): the file's path, or %NULL
   */
  gst_rtframe_sink_signals[SIGNAL_FORMAT_LOCATION_FULL] =
      g_signal_new ("format-location-full", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_STRING, 2, G_TYPE_UINT,
      GST_TYPE_SAMPLE);

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
  self->split_times = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  g_mutex_init (&self->file_messages_lock);
  g_queue_init (&self->file_messages);
  g_rec_mutex_init (&self->reporter_task_lock);
  g_mutex_init (&self->report_lock);
  g_mutex_init (&self->stats_lock);
  g_mutex_init (&self->record_lock);
  self->asked = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      g_free);
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
  g_free (self->keep_location);
  g_strfreev (self->locations);
  g_array_unref (self->split_times);
  g_free (self->split_owed);
  g_mutex_clear (&self->redo_lock);
  g_free (self->thread_cpus);
  if (self->last_stats_structure)
    gst_structure_free (self->last_stats_structure);
  g_rec_mutex_clear (&self->reporter_task_lock);
  g_mutex_clear (&self->report_lock);
  g_mutex_clear (&self->stats_lock);
  g_mutex_clear (&self->record_lock);
  g_hash_table_unref (self->asked);
  g_mutex_clear (&self->file_messages_lock);
  g_queue_clear_full (&self->file_messages, (GDestroyNotify) gst_message_unref);
  if (self->format_text)
    g_ref_string_release (self->format_text);
  gst_clear_caps (&self->reference_timestamp_caps);
  gst_rtframe_sink_reference_set (self, NULL);
  gst_object_unref (self->allocator);
  g_free (self->refused_caps);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- start and stop --------------------------------------------------- */

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
  gst_rtframe_sink_record_free (self);
  g_free (self->mappings);
  self->mappings = NULL;
  gst_rtframe_sink_release_tasks (self);
  rtf_events_free (self->events);
  self->events = NULL;
  g_free (self->event_batch);
  self->event_batch = NULL;
}

/* A set whose names have time fields never takes a number a file there
 * has already: its name would differ (another time), and the readers
 * refuse two files of one number.  (A set without them replaces such a
 * file, as filesink would.) */
static gboolean
timed_numbers_free (const gchar * location, guint64 start_index, gchar ** why)
{
  guint64 highest = 0;
  guint taken;

  if (!rtf_pattern_is_timed (location))
    return TRUE;
  taken = rtf_pattern_count_from (location, start_index, &highest);
  if (taken == 0)
    return TRUE;
  *why = g_strdup_printf ("%u file%s of it numbered %" G_GUINT64_FORMAT
      " or more %s there already (up to %" G_GUINT64_FORMAT "): with time "
      "fields in the name a recording never records over them; record with "
      "start-index=%" G_GUINT64_FORMAT ", or move them", taken,
      taken == 1 ? "" : "s", start_index, taken == 1 ? "is" : "are", highest,
      highest + 1);
  return FALSE;
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
      if (!timed_numbers_free (location, self->start_index, &why)) {
        GST_OBJECT_UNLOCK (self);
        goto bad_location;
      }
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
  if (!gst_rtframe_sink_ring_check (self, location, config.rotate, &why)) {
    GST_OBJECT_UNLOCK (self);
    goto bad_location;
  }
  if (self->ring) {
    /* every frame into the ring, in files a recording keeps whole: a
     * second a file unless the rotation says otherwise (the most a
     * recording keeps before its first frame and after its last) */
    config.backlog_frames = 0;
    config.keep_location = self->keep_location;
    config.keep_first_number = self->keep_next;
    config.first_file_number = self->ring_first_file;
    if (!config.max_file_size && !config.max_file_duration)
      config.max_file_duration = DEFAULT_RING_FILE_DURATION;
  }
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
  gst_rtframe_sink_reference_set (self, self->reference_timestamp_caps);
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


static void
gst_rtframe_sink_split_at_running_time (GstRtFrameSink * self,
    GstClockTime running_time)
{
  if (!GST_CLOCK_TIME_IS_VALID (running_time)) {
    GST_WARNING_OBJECT (self, "split-at-running-time: no time given");
    return;
  }
  GST_OBJECT_LOCK (self);
  if (self->location && rtf_pattern_check (self->location, NULL) !=
      RTF_PATTERN_OK) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "split-at-running-time ignored: recording to "
        "a pattern (location with %%d) only");
    return;
  }
  GST_OBJECT_UNLOCK (self);
  gst_rtframe_sink_split_add (self, running_time);
  GST_DEBUG_OBJECT (self, "a new file at running time %" GST_TIME_FORMAT,
      GST_TIME_ARGS (running_time));
}

static gboolean
gst_rtframe_sink_start_recording (GstRtFrameSink * self, guint64 running_time)
{
  return gst_rtframe_sink_request (self, TRUE, running_time, FALSE,
      "start-recording");
}

/* An id goes into replies, messages and manifests as it is */
static gboolean
id_is_valid (const gchar * id)
{
  const gchar *c;

  if (strlen (id) >= RTF_RECORDING_ID_MAX || !*id)
    return FALSE;
  for (c = id; *c; c++)
    if (!g_ascii_isalnum (*c) && !strchr ("._-", *c))
      return FALSE;
  return TRUE;
}

static GstStructure *
gst_rtframe_sink_request_recording (GstRtFrameSink * self,
    const GstStructure * request)
{
  RtfRequest q = { RTF_REQUEST_START, GST_CLOCK_TIME_NONE,
    GST_CLOCK_TIME_NONE, NULL
  };
  RtfRecordReply reply;
  const gchar *action;
  gboolean check = FALSE;

  if (request == NULL
      || (action = gst_structure_get_string (request, "action")) == NULL)
    goto bad;
  if (g_str_equal (action, "start"))
    q.kind = RTF_REQUEST_START;
  else if (g_str_equal (action, "stop"))
    q.kind = RTF_REQUEST_STOP;
  else if (g_str_equal (action, "extend"))
    q.kind = RTF_REQUEST_EXTEND;
  else
    goto bad;
  if ((gst_structure_has_field (request, "running-time")
          && !gst_structure_get_uint64 (request, "running-time",
              &q.running_time))
      || (gst_structure_has_field (request, "recording-at")
          && !gst_structure_get_uint64 (request, "recording-at",
              &q.recording_at))
      || (gst_structure_has_field (request, "check")
          && !gst_structure_get_boolean (request, "check", &check)))
    goto bad;
  q.id = gst_structure_get_string (request, "id");
  if (gst_structure_has_field (request, "id")
      && (q.id == NULL || !id_is_valid (q.id)))
    goto bad;
  gst_rtframe_sink_request_full (self, &q, FALSE, !check,
      "request-recording", &reply);
  return gst_rtframe_sink_reply_structure ("rtframesink-recording-reply", &q,
      &reply, "request-recording");

bad:
  GST_WARNING_OBJECT (self, "request-recording: not a request: %"
      GST_PTR_FORMAT " (\"action\": start, stop or extend; \"running-time\","
      " \"recording-at\": guint64; \"id\": up to 63 of [A-Za-z0-9._-]; "
      "\"check\": boolean)", request);
  return NULL;
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
  gst_rtframe_sink_split_clear (self);
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
  gst_rtframe_sink_reference_set (self, NULL);
  return TRUE;
}

/* ---- GstURIHandler: file:// and rtframe:// (gstrtframeuri.h) --------- */

static GstURIType
gst_rtframe_sink_uri_get_type (GType type)
{
  return GST_URI_SINK;
}

static void
gst_rtframe_sink_uri_handler_init (gpointer g_iface, gpointer iface_data)
{
  gst_rtframe_uri_handler_init ((GstURIHandlerInterface *) g_iface,
      gst_rtframe_sink_uri_get_type);
}
