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
#include "gstrtframeallocator.h"

#include <errno.h>
#include <string.h>
#include <gst/video/video.h>

#include "gstrtframemessages.h"
#include "rtf-clock.h"
#include "rtf-pattern.h"
#include "rtf-thread.h"

GST_DEBUG_CATEGORY_STATIC (gst_rtframe_sink_debug);
#define GST_CAT_DEFAULT gst_rtframe_sink_debug

/* What the element attached to a queue slot: the buffer and its mappings,
 * kept until the writer is done with the frame. */
struct _GstRtFrameSlot
{
  GstBuffer *buffer;
  GstMemory *mem[RTF_FRAME_MAX_IOV];
  GstMapInfo map[RTF_FRAME_MAX_IOV];
  guint n_map;
};

#define DEFAULT_LOCATION NULL
#define DEFAULT_MAX_SIZE_BUFFERS 16
#define DEFAULT_MAX_SIZE_BYTES (256 * 1024 * 1024)
#define DEFAULT_IO_DEPTH 4
#define DEFAULT_IO_ENGINE GST_RTFRAME_IO_ENGINE_AUTO
#define DEFAULT_DIRECT GST_RTFRAME_DIRECT_AUTO
#define DEFAULT_PREALLOCATE (128 * 1024 * 1024)
#define DEFAULT_DEADLINE (50 * GST_MSECOND)
#define DEFAULT_LEAKY GST_RTFRAME_LEAKY_NO
#define DEFAULT_STATS_INTERVAL 0
#define DEFAULT_FRAME_MESSAGES FALSE
#define DEFAULT_THREAD_POLICY GST_RTFRAME_THREAD_POLICY_DEFAULT
#define DEFAULT_THREAD_PRIORITY 10
#define DEFAULT_THREAD_CPUS NULL
#define DEFAULT_STOP_TIMEOUT (5 * GST_SECOND)
#define DEFAULT_MAX_FILE_SIZE 0
#define DEFAULT_MAX_FILE_DURATION 0
#define DEFAULT_MAX_FILES 0
#define DEFAULT_START_INDEX 0
#define DEFAULT_INDEX TRUE
#define DEFAULT_CHECKSUMS FALSE
#define DEFAULT_SYNC_INTERVAL (100 * GST_MSECOND)
#define DEFAULT_REALTIME FALSE
#define DEFAULT_EXTENT_SIZE_HINT 0

/* frame events waiting to be posted; more in a burst are counted */
#define EVENT_RING_SIZE 4096
#define EVENT_BATCH 64

#define MAX_MAX_SIZE_BUFFERS 4096
#define MAX_IO_DEPTH 64

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_MAX_SIZE_BUFFERS,
  PROP_MAX_SIZE_BYTES,
  PROP_IO_DEPTH,
  PROP_IO_ENGINE,
  PROP_DIRECT,
  PROP_PREALLOCATE,
  PROP_DEADLINE,
  PROP_LEAKY,
  PROP_STATS,
  PROP_STATS_INTERVAL,
  PROP_FRAME_MESSAGES,
  PROP_THREAD_POLICY,
  PROP_THREAD_PRIORITY,
  PROP_THREAD_CPUS,
  PROP_STOP_TIMEOUT,
  PROP_MAX_FILE_SIZE,
  PROP_MAX_FILE_DURATION,
  PROP_MAX_FILES,
  PROP_START_INDEX,
  PROP_INDEX,
  PROP_CHECKSUMS,
  PROP_SYNC_INTERVAL,
  PROP_REALTIME,
  PROP_EXTENT_SIZE_HINT,
  PROP_CURRENT_IO_ENGINE,
  PROP_CURRENT_DIRECT,
  PROP_WRITE_ALIGNMENT,
  PROP_FRAMES_WRITTEN,
  PROP_BYTES_WRITTEN,
  PROP_FRAMES_ZERO_COPY,
  PROP_FRAMES_COPIED,
  PROP_FRAMES_REPACKED,
  PROP_FRAMES_LOST
};

#define gst_rtframe_sink_parent_class parent_class
G_DEFINE_TYPE (GstRtFrameSink, gst_rtframe_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (rtframesink, "rtframesink", GST_RANK_NONE,
    GST_TYPE_RTFRAME_SINK);

enum
{
  SIGNAL_SPLIT_NOW,
  LAST_SIGNAL
};

static guint gst_rtframe_sink_signals[LAST_SIGNAL] = { 0 };

static void gst_rtframe_sink_finalize (GObject * object);
static void gst_rtframe_sink_split_now (GstRtFrameSink * self);
static void gst_rtframe_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_rtframe_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_rtframe_sink_start (GstBaseSink * sink);
static gboolean gst_rtframe_sink_stop (GstBaseSink * sink);
static gboolean gst_rtframe_sink_set_caps (GstBaseSink * sink, GstCaps * caps);
static gboolean gst_rtframe_sink_propose_allocation (GstBaseSink * sink,
    GstQuery * query);
static gboolean gst_rtframe_sink_event (GstBaseSink * sink, GstEvent * event);
static GstFlowReturn gst_rtframe_sink_render (GstBaseSink * sink,
    GstBuffer * buffer);
static gboolean gst_rtframe_sink_unlock (GstBaseSink * sink);
static gboolean gst_rtframe_sink_unlock_stop (GstBaseSink * sink);
static gpointer helper_start (const gchar * role, GThreadFunc func,
    gpointer arg, gpointer data);
static void helper_join (gpointer handle, gpointer data);
static GstStructure *stats_structure (GstRtFrameSink * self,
    const gchar * name, gboolean interval);
static GstStructure *stats_structure_of (GstRtFrameSink * self,
    const gchar * name, gboolean interval, const RtfWriterStats * st,
    const RtfWriterLatency * latency);

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

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "File Location",
          "Path of the file to record to (created, or truncated), or a "
          "pattern with one integer conversion (cam0-%05d.raw) for a "
          "recording split into several files",
          DEFAULT_LOCATION, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_SIZE_BUFFERS,
      g_param_spec_uint ("max-size-buffers", "Max. size (frames)",
          "Most frames held at once, queued or being written; when reached "
          "the streaming thread waits", 1, MAX_MAX_SIZE_BUFFERS,
          DEFAULT_MAX_SIZE_BUFFERS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_SIZE_BYTES,
      g_param_spec_uint64 ("max-size-bytes", "Max. size (bytes)",
          "Most bytes of frames held at once, queued or being written "
          "(0 = no byte limit); one frame is always taken", 0, G_MAXUINT64,
          DEFAULT_MAX_SIZE_BYTES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_IO_DEPTH,
      g_param_spec_uint ("io-depth", "I/O depth",
          "Most frames with writes in flight at once", 1, MAX_IO_DEPTH,
          DEFAULT_IO_DEPTH, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_IO_ENGINE,
      g_param_spec_enum ("io-engine", "I/O engine",
          "How the writer thread submits writes", GST_TYPE_RTFRAME_IO_ENGINE,
          DEFAULT_IO_ENGINE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DIRECT,
      g_param_spec_enum ("direct", "Direct I/O",
          "Write with O_DIRECT, bypassing the page cache",
          GST_TYPE_RTFRAME_DIRECT, DEFAULT_DIRECT, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PREALLOCATE,
      g_param_spec_uint64 ("preallocate", "Preallocate (bytes)",
          "File space reserved ahead of the writes with "
          "fallocate(KEEP_SIZE), in bytes (0 = off)", 0, G_MAXINT64,
          DEFAULT_PREALLOCATE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEADLINE,
      g_param_spec_uint64 ("deadline", "Deadline (ns)",
          "Time from a frame's arrival in render until its last byte must be "
          "written, in nanoseconds (0 = none).  A frame that misses it is "
          "reported on the bus when the deadline passes.  A change applies "
          "to frames arriving after it", 0, G_MAXINT64, DEFAULT_DEADLINE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_LEAKY,
      g_param_spec_enum ("leaky", "Leaky",
          "What render does when max-size-buffers/bytes frames are held: "
          "wait (no), drop the new frame (upstream) or drop the oldest frame "
          "not yet being written (downstream)", GST_TYPE_RTFRAME_LEAKY,
          DEFAULT_LEAKY, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Frame counters, throughput, latency percentiles, queue and wait "
          "figures (see docs/reference.md)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint64 ("stats-interval", "Stats interval (ns)",
          "Post a rtframesink-stats element message this often, in "
          "nanoseconds (0 = only at EOS)", 0, G_MAXINT64,
          DEFAULT_STATS_INTERVAL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
          | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_FRAME_MESSAGES,
      g_param_spec_boolean ("frame-messages", "Frame messages",
          "Post an element message \"" GST_RTFRAME_MSG_WRITTEN "\" for "
          "every frame written, with its offset and write times (for "
          "benchmarks and per-frame indexes)", DEFAULT_FRAME_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_THREAD_POLICY,
      g_param_spec_enum ("thread-policy", "Writer thread policy",
          "Scheduling policy the writer thread and its helpers (pwrite, "
          "files) ask for (real-time policies need CAP_SYS_NICE or an "
          "RLIMIT_RTPRIO; if refused: one warning)",
          GST_TYPE_RTFRAME_THREAD_POLICY, DEFAULT_THREAD_POLICY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_THREAD_PRIORITY,
      g_param_spec_int ("thread-priority", "Writer thread priority",
          "Real-time priority for thread-policy fifo or rr", 1, 99,
          DEFAULT_THREAD_PRIORITY, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_THREAD_CPUS,
      g_param_spec_string ("thread-cpus", "Writer thread CPUs",
          "CPUs the writer thread and its helpers may run on, as a list "
          "like \"1\" or \"0,2-3\" (NULL = any)", DEFAULT_THREAD_CPUS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_STOP_TIMEOUT,
      g_param_spec_uint64 ("stop-timeout", "Stop timeout (ns)",
          "Longest wait, when the element stops, for the disk to finish the "
          "frames it holds, in nanoseconds (0 = no limit).  Frames not "
          "written by then are reported lost (error message, frames-lost) "
          "and the stop goes on; the file is cut back to the frames "
          "written when the stalled writes end", 0, G_MAXINT64,
          DEFAULT_STOP_TIMEOUT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  g_object_class_install_property (gobject_class, PROP_MAX_FILE_SIZE,
      g_param_spec_uint64 ("max-file-size", "Max. file size (bytes)",
          "Start a new file before a frame that would make the file larger "
          "than this, in bytes (0 = no limit; needs a pattern in location)",
          0, G_MAXUINT64, DEFAULT_MAX_FILE_SIZE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_FILE_DURATION,
      g_param_spec_uint64 ("max-file-duration", "Max. file duration (ns)",
          "Start a new file with the first frame whose running time is this "
          "far from the file's first, in nanoseconds (0 = no limit; needs a "
          "pattern in location)", 0, G_MAXUINT64, DEFAULT_MAX_FILE_DURATION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_FILES,
      g_param_spec_uint ("max-files", "Max. files",
          "Files kept, the one being written included: the oldest is "
          "deleted (with its index) once closed (0 = keep all; needs a "
          "pattern in location)", 0, G_MAXUINT, DEFAULT_MAX_FILES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_START_INDEX,
      g_param_spec_uint ("start-index", "Start index",
          "Number of the first file of a pattern", 0, G_MAXUINT,
          DEFAULT_START_INDEX, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_INDEX,
      g_param_spec_boolean ("index", "Index",
          "Write a frame index beside each file (<file>.idx: caps, and per "
          "frame its number, timestamps, offset, size, write times): what "
          "rtframesrc, rtframe-verify and rtframe-recover read",
          DEFAULT_INDEX, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CHECKSUMS,
      g_param_spec_boolean ("checksums", "Checksums",
          "Put a CRC32C of each frame in its index record (computed by the "
          "writer thread while the frame's write is in flight)",
          DEFAULT_CHECKSUMS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SYNC_INTERVAL,
      g_param_spec_uint64 ("sync-interval", "Sync interval (ns)",
          "fdatasync the file and its index this often, in nanoseconds, "
          "after the writes they cover have completed: a power cut loses "
          "at most about this much (0 = only at EOS and stop)", 0,
          G_MAXINT64, DEFAULT_SYNC_INTERVAL, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_REALTIME,
      g_param_spec_boolean ("realtime", "XFS realtime",
          "Put each file's data on the XFS realtime section "
          "(FS_XFLAG_REALTIME, set on the new empty file); an error when "
          "the filesystem has none", DEFAULT_REALTIME, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_EXTENT_SIZE_HINT,
      g_param_spec_uint64 ("extent-size-hint", "Extent size hint (bytes)",
          "XFS extent size hint of each file (FS_XFLAG_EXTSIZE), in bytes, "
          "a multiple of the filesystem block (0 = the filesystem's "
          "default); an error where it is refused", 0, G_MAXUINT32,
          DEFAULT_EXTENT_SIZE_HINT, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  /**
   * GstRtFrameSink::split-now:
   *
   * Starts a new file with the next frame (location must be a pattern).
   */
  gst_rtframe_sink_signals[SIGNAL_SPLIT_NOW] =
      g_signal_new_class_handler ("split-now", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rtframe_sink_split_now), NULL, NULL, NULL,
      G_TYPE_NONE, 0);

  g_object_class_install_property (gobject_class, PROP_CURRENT_IO_ENGINE,
      g_param_spec_enum ("current-io-engine", "Current I/O engine",
          "The I/O engine in use (io-uring or psync; auto before start)",
          GST_TYPE_RTFRAME_IO_ENGINE, GST_RTFRAME_IO_ENGINE_AUTO,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CURRENT_DIRECT,
      g_param_spec_boolean ("current-direct", "Current direct I/O",
          "TRUE when the file is written with O_DIRECT", FALSE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_WRITE_ALIGNMENT,
      g_param_spec_uint ("write-alignment", "Write alignment",
          "Alignment of every write's offset and length in bytes (1 when "
          "buffered, 0 before start)", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FRAMES_WRITTEN,
      g_param_spec_uint64 ("frames-written", "Frames written",
          "Whole frames written to the file, in order", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BYTES_WRITTEN,
      g_param_spec_uint64 ("bytes-written", "Bytes written",
          "Bytes of whole frames written to the file", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FRAMES_ZERO_COPY,
      g_param_spec_uint64 ("frames-zero-copy", "Zero-copy frames",
          "Frames written from their own memory", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FRAMES_COPIED,
      g_param_spec_uint64 ("frames-copied", "Copied frames",
          "Frames copied to aligned staging memory by the writer thread "
          "(memory not aligned for direct I/O, or in several pieces)", 0,
          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FRAMES_REPACKED,
      g_param_spec_uint64 ("frames-repacked", "Repacked frames",
          "Strided frames (GstVideoMeta with padding) repacked to the tight "
          "layout by the streaming thread", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FRAMES_LOST,
      g_param_spec_uint64 ("frames-lost", "Frames lost",
          "Frames accepted but not written because of a write error", 0,
          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

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

  basesink_class->start = GST_DEBUG_FUNCPTR (gst_rtframe_sink_start);
  basesink_class->stop = GST_DEBUG_FUNCPTR (gst_rtframe_sink_stop);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (gst_rtframe_sink_set_caps);
  basesink_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_rtframe_sink_propose_allocation);
  basesink_class->event = GST_DEBUG_FUNCPTR (gst_rtframe_sink_event);
  basesink_class->render = GST_DEBUG_FUNCPTR (gst_rtframe_sink_render);
  basesink_class->unlock = GST_DEBUG_FUNCPTR (gst_rtframe_sink_unlock);
  basesink_class->unlock_stop =
      GST_DEBUG_FUNCPTR (gst_rtframe_sink_unlock_stop);

  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_IO_ENGINE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_DIRECT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_LEAKY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_RTFRAME_THREAD_POLICY, 0);
}

static void
gst_rtframe_sink_init (GstRtFrameSink * self)
{
  self->allocator = gst_rtframe_allocator_new ();
  self->helper_threads.start = helper_start;
  self->helper_threads.join = helper_join;
  self->helper_threads.data = self;
  self->location = g_strdup (DEFAULT_LOCATION);
  self->max_size_buffers = DEFAULT_MAX_SIZE_BUFFERS;
  self->max_size_bytes = DEFAULT_MAX_SIZE_BYTES;
  self->io_depth = DEFAULT_IO_DEPTH;
  self->io_engine = DEFAULT_IO_ENGINE;
  self->direct = DEFAULT_DIRECT;
  self->preallocate = DEFAULT_PREALLOCATE;
  self->deadline = DEFAULT_DEADLINE;
  self->leaky = DEFAULT_LEAKY;
  self->stats_interval = DEFAULT_STATS_INTERVAL;
  self->frame_messages = DEFAULT_FRAME_MESSAGES;
  self->thread_policy = DEFAULT_THREAD_POLICY;
  self->thread_priority = DEFAULT_THREAD_PRIORITY;
  self->thread_cpus = g_strdup (DEFAULT_THREAD_CPUS);
  self->stop_timeout = DEFAULT_STOP_TIMEOUT;
  self->max_file_size = DEFAULT_MAX_FILE_SIZE;
  self->max_file_duration = DEFAULT_MAX_FILE_DURATION;
  self->max_files = DEFAULT_MAX_FILES;
  self->start_index = DEFAULT_START_INDEX;
  self->index = DEFAULT_INDEX;
  self->checksums = DEFAULT_CHECKSUMS;
  self->sync_interval = DEFAULT_SYNC_INTERVAL;
  self->realtime = DEFAULT_REALTIME;
  self->extent_size_hint = DEFAULT_EXTENT_SIZE_HINT;
  g_mutex_init (&self->file_messages_lock);
  g_queue_init (&self->file_messages);
  g_rec_mutex_init (&self->reporter_task_lock);
  g_mutex_init (&self->report_lock);
  g_mutex_init (&self->stats_lock);

  /* A recorder writes as fast as it can; it never waits for the clock. */
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}

static void
gst_rtframe_sink_finalize (GObject * object)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (object);

  g_free (self->location);
  g_free (self->thread_cpus);
  if (self->last_stats_structure)
    gst_structure_free (self->last_stats_structure);
  g_rec_mutex_clear (&self->reporter_task_lock);
  g_mutex_clear (&self->report_lock);
  g_mutex_clear (&self->stats_lock);
  g_mutex_clear (&self->file_messages_lock);
  g_queue_clear_full (&self->file_messages, (GDestroyNotify) gst_message_unref);
  if (self->format_text)
    g_ref_string_release (self->format_text);
  gst_object_unref (self->allocator);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_rtframe_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (object);

  GST_OBJECT_LOCK (self);
  if (self->writer != NULL && (pspec->flags & GST_PARAM_MUTABLE_READY)) {
    GST_OBJECT_UNLOCK (self);
    /* The file is open and the writer set up: a change cannot apply. */
    GST_WARNING_OBJECT (self, "cannot change '%s' while recording; set the "
        "element to READY or NULL first", pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_MAX_SIZE_BUFFERS:
      self->max_size_buffers = g_value_get_uint (value);
      break;
    case PROP_MAX_SIZE_BYTES:
      self->max_size_bytes = g_value_get_uint64 (value);
      break;
    case PROP_IO_DEPTH:
      self->io_depth = g_value_get_uint (value);
      break;
    case PROP_IO_ENGINE:
      self->io_engine = g_value_get_enum (value);
      break;
    case PROP_DIRECT:
      self->direct = g_value_get_enum (value);
      break;
    case PROP_PREALLOCATE:
      self->preallocate = g_value_get_uint64 (value);
      break;
    case PROP_DEADLINE:
      self->deadline = g_value_get_uint64 (value);
      break;
    case PROP_LEAKY:
      self->leaky = g_value_get_enum (value);
      break;
    case PROP_STATS_INTERVAL:
      self->stats_interval = g_value_get_uint64 (value);
      break;
    case PROP_FRAME_MESSAGES:
      g_atomic_int_set (&self->frame_messages, g_value_get_boolean (value));
      break;
    case PROP_THREAD_POLICY:
      self->thread_policy = g_value_get_enum (value);
      break;
    case PROP_THREAD_PRIORITY:
      self->thread_priority = g_value_get_int (value);
      break;
    case PROP_THREAD_CPUS:
      g_free (self->thread_cpus);
      self->thread_cpus = g_value_dup_string (value);
      break;
    case PROP_MAX_FILE_SIZE:
      self->max_file_size = g_value_get_uint64 (value);
      break;
    case PROP_MAX_FILE_DURATION:
      self->max_file_duration = g_value_get_uint64 (value);
      break;
    case PROP_MAX_FILES:
      self->max_files = g_value_get_uint (value);
      break;
    case PROP_START_INDEX:
      self->start_index = g_value_get_uint (value);
      break;
    case PROP_INDEX:
      self->index = g_value_get_boolean (value);
      break;
    case PROP_CHECKSUMS:
      self->checksums = g_value_get_boolean (value);
      break;
    case PROP_SYNC_INTERVAL:
      self->sync_interval = g_value_get_uint64 (value);
      break;
    case PROP_REALTIME:
      self->realtime = g_value_get_boolean (value);
      break;
    case PROP_EXTENT_SIZE_HINT:
      self->extent_size_hint = g_value_get_uint64 (value);
      break;
    case PROP_STOP_TIMEOUT:
      self->stop_timeout = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rtframe_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (object);
  RtfWriterStats st;

  GST_OBJECT_LOCK (self);
  if (self->writer)
    rtf_writer_get_stats (self->writer, &st);
  else
    st = self->last_stats;

  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_MAX_SIZE_BUFFERS:
      g_value_set_uint (value, self->max_size_buffers);
      break;
    case PROP_MAX_SIZE_BYTES:
      g_value_set_uint64 (value, self->max_size_bytes);
      break;
    case PROP_IO_DEPTH:
      g_value_set_uint (value, self->io_depth);
      break;
    case PROP_IO_ENGINE:
      g_value_set_enum (value, self->io_engine);
      break;
    case PROP_DIRECT:
      g_value_set_enum (value, self->direct);
      break;
    case PROP_PREALLOCATE:
      g_value_set_uint64 (value, self->preallocate);
      break;
    case PROP_DEADLINE:
      g_value_set_uint64 (value, self->deadline);
      break;
    case PROP_LEAKY:
      g_value_set_enum (value, self->leaky);
      break;
    case PROP_STATS:
      if (self->writer)
        g_value_take_boxed (value, stats_structure (self,
                GST_RTFRAME_MSG_STATS, FALSE));
      else if (self->last_stats_structure)
        g_value_set_boxed (value, self->last_stats_structure);
      else
        g_value_take_boxed (value,
            gst_structure_new_empty (GST_RTFRAME_MSG_STATS));
      break;
    case PROP_STATS_INTERVAL:
      g_value_set_uint64 (value, self->stats_interval);
      break;
    case PROP_FRAME_MESSAGES:
      g_value_set_boolean (value, g_atomic_int_get (&self->frame_messages));
      break;
    case PROP_THREAD_POLICY:
      g_value_set_enum (value, self->thread_policy);
      break;
    case PROP_THREAD_PRIORITY:
      g_value_set_int (value, self->thread_priority);
      break;
    case PROP_THREAD_CPUS:
      g_value_set_string (value, self->thread_cpus);
      break;
    case PROP_STOP_TIMEOUT:
      g_value_set_uint64 (value, self->stop_timeout);
      break;
    case PROP_MAX_FILE_SIZE:
      g_value_set_uint64 (value, self->max_file_size);
      break;
    case PROP_MAX_FILE_DURATION:
      g_value_set_uint64 (value, self->max_file_duration);
      break;
    case PROP_MAX_FILES:
      g_value_set_uint (value, self->max_files);
      break;
    case PROP_START_INDEX:
      g_value_set_uint (value, self->start_index);
      break;
    case PROP_INDEX:
      g_value_set_boolean (value, self->index);
      break;
    case PROP_CHECKSUMS:
      g_value_set_boolean (value, self->checksums);
      break;
    case PROP_SYNC_INTERVAL:
      g_value_set_uint64 (value, self->sync_interval);
      break;
    case PROP_REALTIME:
      g_value_set_boolean (value, self->realtime);
      break;
    case PROP_EXTENT_SIZE_HINT:
      g_value_set_uint64 (value, self->extent_size_hint);
      break;
    case PROP_CURRENT_IO_ENGINE:
      g_value_set_enum (value, st.engine);
      break;
    case PROP_CURRENT_DIRECT:
      g_value_set_boolean (value, st.direct);
      break;
    case PROP_WRITE_ALIGNMENT:
      g_value_set_uint (value, (guint) st.block);
      break;
    case PROP_FRAMES_WRITTEN:
      g_value_set_uint64 (value, st.frames_written);
      break;
    case PROP_BYTES_WRITTEN:
      g_value_set_uint64 (value, st.bytes_written);
      break;
    case PROP_FRAMES_ZERO_COPY:
      g_value_set_uint64 (value, st.frames_zero_copy);
      break;
    case PROP_FRAMES_COPIED:
      g_value_set_uint64 (value, st.frames_copied);
      break;
    case PROP_FRAMES_REPACKED:
      g_value_set_uint64 (value, self->frames_repacked);
      break;
    case PROP_FRAMES_LOST:
      g_value_set_uint64 (value, st.frames_lost);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- statistics ------------------------------------------------------- */

/* Call with the object lock held (self->writer set).  With `interval`, the
 * interval figures restart from now (periodic messages). */
static GstStructure *
stats_structure (GstRtFrameSink * self, const gchar * name, gboolean interval)
{
  RtfWriterLatency *latency = g_new (RtfWriterLatency, 1);
  RtfWriterStats st;
  GstStructure *s;

  rtf_writer_get_stats (self->writer, &st);
  rtf_writer_get_latency (self->writer, latency);
  s = stats_structure_of (self, name, interval, &st, latency);
  g_free (latency);
  return s;
}

/* The same from a snapshot of the writer's figures */
static GstStructure *
stats_structure_of (GstRtFrameSink * self, const gchar * name,
    gboolean interval, const RtfWriterStats * st,
    const RtfWriterLatency * latency)
{
  GstRtFrameStatsInput in = { 0 };
  gint64 now = rtf_clock_now_ns ();

  in.writer = *st;
  in.latency = latency;
  in.location = self->location;
  in.deadline = self->deadline;
  in.frames_repacked = self->frames_repacked;
  g_mutex_lock (&self->stats_lock);
  in.elapsed_ns = now - self->start_ns;
  in.wait_total_ns = self->wait_total;
  in.wait_max_ns = self->wait_max;
  in.waits = self->waits;
  in.drops_missed = self->drops_missed;
  in.events_overflowed = self->events_overflowed;
  in.interval_bytes = in.writer.bytes_written - self->interval_bytes;
  in.interval_ns = now - self->interval_start;
  if (interval) {
    self->interval_bytes = in.writer.bytes_written;
    self->interval_start = now;
  }
  g_mutex_unlock (&self->stats_lock);
  return gst_rtframe_stats_new (name, &in);
}

static void
post_stats (GstRtFrameSink * self)
{
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  if (self->writer == NULL) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  s = stats_structure (self, GST_RTFRAME_MSG_STATS, TRUE);
  GST_OBJECT_UNLOCK (self);
  gst_element_post_message (GST_ELEMENT_CAST (self),
      gst_message_new_element (GST_OBJECT_CAST (self), s));
}

/* ---- deadline events -------------------------------------------------- */

static void
post_event (GstRtFrameSink * self, const RtfEvent * e)
{
  GstObject *src = GST_OBJECT_CAST (self);
  GstElement *el = GST_ELEMENT_CAST (self);

  switch (e->kind) {
    case RTF_EVENT_MISSED:
      gst_element_post_message (el, gst_rtframe_message_missed (src, &e->miss));
      break;
    case RTF_EVENT_LATE_DONE:
      gst_element_post_message (el, gst_rtframe_message_late (src, &e->miss));
      break;
    case RTF_EVENT_DROPPED:
    case RTF_EVENT_DROPPED_AFTER_MISS:{
      RtfWriterStats st = { 0 };

      if (e->kind == RTF_EVENT_DROPPED)
        gst_element_post_message (el, gst_rtframe_message_missed (src,
                &e->miss));
      GST_OBJECT_LOCK (self);
      if (self->writer)
        rtf_writer_get_stats (self->writer, &st);
      GST_OBJECT_UNLOCK (self);
      gst_element_post_message (el, gst_rtframe_message_qos_drop (src,
              &e->miss, st.frames_written, st.frames_dropped));
      break;
    }
    case RTF_EVENT_WRITTEN:
      gst_element_post_message (el, gst_rtframe_message_written (src, e));
      break;
  }
}

/* Posts what the event ring holds, in order. */
static void
post_events (GstRtFrameSink * self)
{
  guint64 overflowed = 0;
  guint n, i;

  g_mutex_lock (&self->report_lock);
  do {
    n = rtf_events_pop (self->events, self->event_batch, EVENT_BATCH,
        &overflowed);
    for (i = 0; i < n; i++)
      post_event (self, &self->event_batch[i]);
    if (overflowed) {
      g_mutex_lock (&self->stats_lock);
      self->events_overflowed += overflowed;
      g_mutex_unlock (&self->stats_lock);
      GST_WARNING_OBJECT (self, "%" G_GUINT64_FORMAT " deadline messages "
          "not posted: more than %d at once", overflowed, EVENT_RING_SIZE);
    }
  } while (n == EVENT_BATCH);
  for (;;) {
    GstMessage *msg;

    g_mutex_lock (&self->file_messages_lock);
    msg = g_queue_pop_head (&self->file_messages);
    g_mutex_unlock (&self->file_messages_lock);
    if (msg == NULL)
      break;
    gst_element_post_message (GST_ELEMENT_CAST (self), msg);
  }
  g_mutex_unlock (&self->report_lock);
}

/* The reporter task: turns deadline events into bus messages and posts the
 * periodic statistics, so the writer thread never calls into the bus (or
 * an application's sync handler). */
static void
reporter_func (gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);
  gint64 interval_us = self->stats_interval / 1000;
  gint64 next_stats = g_get_monotonic_time () + interval_us;

  while (!g_atomic_int_get (&self->reporter_stop)) {
    gint64 until = interval_us > 0 ? next_stats :
        g_get_monotonic_time () + G_USEC_PER_SEC;

    rtf_events_wait (self->events, until);
    post_events (self);
    if (interval_us > 0 && g_get_monotonic_time () >= next_stats) {
      post_stats (self);
      next_stats += interval_us;
      if (next_stats < g_get_monotonic_time ())
        next_stats = g_get_monotonic_time () + interval_us;
    }
  }
  post_events (self);
  gst_task_stop (self->reporter);
}

/* ---- writer callbacks (writer thread) --------------------------------- */

static void
slot_clear (GstRtFrameSlot * slot)
{
  guint i;

  for (i = 0; i < slot->n_map; i++)
    gst_memory_unmap (slot->mem[i], &slot->map[i]);
  slot->n_map = 0;
  gst_clear_buffer (&slot->buffer);
}

/* What the element attached to a frame goes back */
static void
frame_clear (RtfFrame * frame)
{
  slot_clear ((GstRtFrameSlot *) frame->user);
  if (frame->format) {
    g_ref_string_release ((gchar *) frame->format);
    frame->format = NULL;
  }
}

static void
writer_frame_done (RtfFrame * frame, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  frame_clear (frame);
  if (frame->state == RTF_FRAME_WRITTEN
      && g_atomic_int_get (&self->frame_messages))
    rtf_events_push_written (self->events, frame);
}

/* A file (the first, or the next of a set) could not be opened as asked:
 * `what` says which step ("open", "xflags", "index").  One RESOURCE error
 * (OPEN_WRITE, or BUSY when the file is being written), the same words
 * whenever it happens; `detail` (may be NULL) for the debug text. */
static void
post_open_error (GstRtFrameSink * self, const gchar * what,
    const gchar * path, gint err, RtfDirectMode direct,
    const RtfXflags * xflags, const gchar * detail)
{
  const gchar *e = g_strerror (err);
  gchar *dbg = g_strdup_printf ("%s: %s%s%s", what, e, detail ? "; " : "",
      detail ? detail : "");

  if (err == EWOULDBLOCK) {
    /* the lock every recording holds on its files (rtf-file.c) */
    GST_ELEMENT_ERROR (self, RESOURCE, BUSY,
        ("Cannot record to \"%s\": it is being written by another "
            "recording (another pipeline or process, or an earlier recording "
            "of this one whose writes are still stalled in the kernel) or "
            "repaired by rtframe-recover.", path), ("%s", dbg));
  } else if (g_str_equal (what, "xflags") && err == ENOTTY
      && (xflags->realtime || xflags->extent_size)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot set XFS file flags (realtime, extent-size-hint) on \"%s\": "
            "it is not a regular file.", path), ("%s", dbg));
  } else if (g_str_equal (what, "xflags") && xflags->realtime
      && (err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not make file \"%s\" an XFS realtime file (realtime=true): "
            "the filesystem has no realtime section, is not XFS, or the "
            "kernel lacks XFS realtime support.", path),
        ("FS_IOC_FSSETXATTR(FS_XFLAG_REALTIME): %s", dbg));
  } else if (g_str_equal (what, "xflags")) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not set an extent size hint of %" G_GUINT64_FORMAT
            " bytes on file \"%s\": the filesystem is not XFS or the hint "
            "is no multiple of its block size.", xflags->extent_size, path),
        ("FS_IOC_FSSETXATTR(FS_XFLAG_EXTSIZE): %s", dbg));
  } else if (g_str_equal (what, "index") && (err == EEXIST || err == ELOOP)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not create the index of file \"%s\": \"%s%s\" %s; remove "
            "it, or record with index=false.", path, path, RTF_INDEX_SUFFIX,
            err == ELOOP ? "is a symbolic link (never followed)" :
            "exists and is not an rtframe index"), ("%s", dbg));
  } else if (g_str_equal (what, "index")) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not create the index of file \"%s\": %s.", path, e),
        ("%s", dbg));
  } else if (err == ELOOP) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot record to \"%s\": it is a symbolic link, and rtframesink "
            "never writes through one (name the file it points to).", path),
        ("%s", dbg));
  } else if (err == EEXIST) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot record to \"%s\": it exists and is not a regular file "
            "(the files of a recording split by a pattern are regular "
            "files), or its index name holds a file that is not an rtframe "
            "index.", path), ("%s", dbg));
  } else if (err == EINVAL && direct == RTF_DIRECT_ON) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open file \"%s\" for direct I/O: the filesystem does "
            "not support O_DIRECT (direct=on).", path),
        ("open(O_DIRECT): %s", dbg));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open file \"%s\" for writing: %s.", path, e), ("%s", dbg));
  }
  g_free (dbg);
}

static void
writer_failed (gint err, const gchar * operation, const gchar * path,
    const gchar * detail, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  if (g_str_equal (operation, "xflags") || g_str_equal (operation, "open")
      || (g_str_equal (operation, "index") && err != ENOSPC)) {
    /* the next file of a set: said as at start */
    RtfXflags xflags;
    RtfDirectMode direct;

    GST_OBJECT_LOCK (self);
    xflags.realtime = self->realtime;
    xflags.extent_size = self->extent_size_hint;
    direct = (RtfDirectMode) self->direct;
    GST_OBJECT_UNLOCK (self);
    post_open_error (self, operation, path, err, direct, &xflags, detail);
  } else if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("No space left to write to file \"%s\".", path),
        ("%s failed: %s", operation, detail));
  } else {
    /* a write, or an fdatasync of sync-interval: the same to the user */
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Error while writing to file \"%s\": %s.", path,
            g_strerror (err)), ("%s failed: %s", operation, detail));
  }
}

/* file-opened/closed: made here (a file changes a few times an hour at
 * most), posted by the reporter task in order */
static void
push_file_message (GstRtFrameSink * self, gboolean opened,
    const RtfFileInfo * info)
{
  GstMessage *msg;

  GST_INFO_OBJECT (self, "%s %s", opened ? "opened" : "closed", info->path);
  /* one file: EOS says it all */
  if (!self->rotate)
    return;
  msg = gst_rtframe_message_file (GST_OBJECT_CAST (self), opened, info);
  g_mutex_lock (&self->file_messages_lock);
  g_queue_push_tail (&self->file_messages, msg);
  g_mutex_unlock (&self->file_messages_lock);
  rtf_events_wake (self->events);
}

static void
writer_file_opened (const RtfFileInfo * info, gpointer user_data)
{
  push_file_message (GST_RTFRAME_SINK (user_data), TRUE, info);
}

static void
writer_file_closed (const RtfFileInfo * info, gpointer user_data)
{
  push_file_message (GST_RTFRAME_SINK (user_data), FALSE, info);
}

static void
writer_log (RtfLogLevel level, const gchar * message, gpointer user_data)
{
  static const GstDebugLevel levels[] = {
    GST_LEVEL_ERROR, GST_LEVEL_WARNING, GST_LEVEL_INFO, GST_LEVEL_DEBUG
  };

  GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, levels[level], user_data, "%s", message);
}

static void
writer_deadline_missed (const RtfMiss * miss, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  rtf_events_push (self->events, RTF_EVENT_MISSED, miss);
}

static void
writer_late_completion (const RtfMiss * miss, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  rtf_events_push (self->events, RTF_EVENT_LATE_DONE, miss);
}

static const RtfWriterCallbacks writer_callbacks = {
  writer_frame_done, writer_failed, writer_log, writer_deadline_missed,
  writer_late_completion, writer_file_opened, writer_file_closed
};

/* ---- writer thread ---------------------------------------------------- */

static void
post_stream_status (GstRtFrameSink * self, GstTask * task,
    GstStreamStatusType type)
{
  GstMessage *msg;
  GValue val = G_VALUE_INIT;

  msg = gst_message_new_stream_status (GST_OBJECT_CAST (self), type,
      GST_ELEMENT_CAST (self));
  g_value_init (&val, GST_TYPE_TASK);
  g_value_set_object (&val, task);
  gst_message_set_stream_status_object (msg, &val);
  g_value_unset (&val);
  gst_element_post_message (GST_ELEMENT_CAST (self), msg);
}

/* Gives the calling thread the scheduling asked for (thread-policy,
 * thread-priority, thread-cpus); FALSE with *why when it was refused. */
static gboolean
apply_thread_scheduling (GstRtFrameSink * self, gchar ** why)
{
  RtfSchedPolicy policy;
  gint priority;
  gchar *cpus;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  policy = (RtfSchedPolicy) self->thread_policy;
  priority = self->thread_priority;
  cpus = g_strdup (self->thread_cpus);
  GST_OBJECT_UNLOCK (self);
  if (policy != RTF_SCHED_DEFAULT || cpus)
    ok = rtf_thread_apply (policy, priority, cpus, why);
  g_free (cpus);
  return ok;
}

/* In the writer thread, before it runs: the scheduling asked for, then
 * ENTER so an application's sync handler has the last word. */
static void
writer_thread_enter (GstTask * task, GThread * thread, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);
  gchar *why = NULL;

  if (!apply_thread_scheduling (self, &why)) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("Could not set the writer thread's scheduling (%s); recording goes "
            "on with the default.", why), (NULL));
    g_free (why);
  }
  post_stream_status (self, task, GST_STREAM_STATUS_TYPE_ENTER);
}

static void
task_enter (GstTask * task, GThread * thread, gpointer user_data)
{
  post_stream_status (GST_RTFRAME_SINK (user_data), task,
      GST_STREAM_STATUS_TYPE_ENTER);
}

static void
task_leave (GstTask * task, GThread * thread, gpointer user_data)
{
  post_stream_status (GST_RTFRAME_SINK (user_data), task,
      GST_STREAM_STATUS_TYPE_LEAVE);
}

/* The writer's helper threads (common/rtf-thread.h): the pwrite engine's
 * and the file helper of a rotated recording.  They run as tasks like the
 * writer's, named rtframesink-pwrite and rtframesink-files, so they too are
 * announced with STREAM_STATUS (CREATE and DESTROY from the writer thread,
 * which starts and joins them) and get the writer's scheduling. */
typedef struct
{
  GstRtFrameSink *sink;
  GThreadFunc func;
  gpointer arg;
  GstTask *task;
  GRecMutex lock;
} GstRtFrameHelper;

static void
helper_func (gpointer data)
{
  GstRtFrameHelper *helper = data;

  helper->func (helper->arg);
  gst_task_stop (helper->task);
}

/* The writer thread already warned if the scheduling was refused. */
static void
helper_enter (GstTask * task, GThread * thread, gpointer user_data)
{
  GstRtFrameHelper *helper = user_data;
  gchar *why = NULL;

  if (!apply_thread_scheduling (helper->sink, &why)) {
    GST_INFO_OBJECT (helper->sink, "%s keeps the default scheduling: %s",
        GST_OBJECT_NAME (task), why);
    g_free (why);
  }
  post_stream_status (helper->sink, task, GST_STREAM_STATUS_TYPE_ENTER);
}

static void
helper_free (GstRtFrameHelper * helper)
{
  gst_object_unref (helper->task);
  g_rec_mutex_clear (&helper->lock);
  g_free (helper);
}

static gpointer
helper_start (const gchar * role, GThreadFunc func, gpointer arg, gpointer data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (data);
  GstRtFrameHelper *helper = g_new0 (GstRtFrameHelper, 1);
  gchar *name = g_strdup_printf ("rtframesink-%s", role);

  helper->sink = self;
  helper->func = func;
  helper->arg = arg;
  g_rec_mutex_init (&helper->lock);
  helper->task = gst_task_new (helper_func, helper, NULL);
  gst_object_set_name (GST_OBJECT_CAST (helper->task), name);
  g_free (name);
  gst_task_set_lock (helper->task, &helper->lock);
  gst_task_set_enter_callback (helper->task, helper_enter, helper, NULL);
  gst_task_set_leave_callback (helper->task, task_leave, self, NULL);
  post_stream_status (self, helper->task, GST_STREAM_STATUS_TYPE_CREATE);
  if (!gst_task_start (helper->task)) {
    GST_WARNING_OBJECT (self, "could not start task %s: a plain thread "
        "runs it", GST_OBJECT_NAME (helper->task));
    post_stream_status (self, helper->task, GST_STREAM_STATUS_TYPE_DESTROY);
    helper_free (helper);
    return NULL;
  }
  return helper;
}

static void
helper_join (gpointer handle, gpointer data)
{
  GstRtFrameHelper *helper = handle;

  gst_task_join (helper->task);
  post_stream_status (helper->sink, helper->task,
      GST_STREAM_STATUS_TYPE_DESTROY);
  helper_free (helper);
}

/* What the writer thread holds of its own: it outlives a stop that gave
 * up on a stalled disk (stop-timeout), so it keeps the element alive and
 * has its own task lock. */
struct _GstRtFrameWriterRun
{
  /* a ref only once abandoned: until then stop() joins the thread (it
   * posts STREAM_STATUS on the element), after it the thread may outlive
   * the application's last ref */
  GstRtFrameSink *sink;
  gboolean sink_ref;
  RtfWriter *writer;
  GstTask *task;                /* its task (no ref: the task owns this) */
  GRecMutex task_lock;
  GstRtFrameSlot *slots;        /* given to an abandoned writer */
  gchar *location;
};

static GstRtFrameWriterRun *
writer_run_new (GstRtFrameSink * self, RtfWriter * writer)
{
  GstRtFrameWriterRun *run = g_new0 (GstRtFrameWriterRun, 1);

  run->sink = self;
  run->writer = writer;
  g_rec_mutex_init (&run->task_lock);
  return run;
}

/* When the task is finalized: its thread has ended */
static void
writer_run_free (gpointer data)
{
  GstRtFrameWriterRun *run = data;

  g_rec_mutex_clear (&run->task_lock);
  if (run->sink_ref)
    gst_object_unref (run->sink);
  g_free (run);
}

/* From another thread (gst_element_call_async()): waits for the task of an
 * abandoned writer to end, which gives its thread back to the pool */
static void
join_abandoned_task (GstElement * element, gpointer data)
{
  GstTask *task = data;

  gst_task_join (task);
  post_stream_status (GST_RTFRAME_SINK (element), task,
      GST_STREAM_STATUS_TYPE_DESTROY);
}

/* An abandoned writer is done: its frames are released, its file closed */
static void
writer_run_abandoned_done (gpointer data)
{
  GstRtFrameWriterRun *run = data;
  GstRtFrameSink *self = run->sink;

  /* its task cannot join itself: another thread does, once it ends */
  gst_element_call_async (GST_ELEMENT_CAST (self), join_abandoned_task,
      gst_object_ref (run->task), gst_object_unref);

  g_free (run->slots);
  run->slots = NULL;
  GST_INFO_OBJECT (self, "the stalled writes to %s have ended; the file "
      "holds the frames reported written", run->location);
  g_free (run->location);
  run->location = NULL;
}

static void
writer_thread_func (gpointer user_data)
{
  GstRtFrameWriterRun *run = user_data;

  /* Runs until rtf_writer_shutdown(); then the task ends.  An abandoned
   * writer is freed by the time it returns. */
  rtf_writer_run (run->writer);
  gst_task_stop (run->task);
}

/* ---- GstBaseSink vfuncs ----------------------------------------------- */

static void
free_running_state (GstRtFrameSink * self)
{
  RtfWriter *writer;

  GST_OBJECT_LOCK (self);
  writer = self->writer;
  if (writer)
    rtf_writer_get_stats (writer, &self->last_stats);
  self->writer = NULL;
  GST_OBJECT_UNLOCK (self);

  /* releases (and unrefs) frames the writer never took */
  rtf_writer_free (writer);
  g_free (self->slots);
  self->slots = NULL;
  if (self->task) {
    gst_object_unref (self->task);
    self->task = NULL;
    self->run = NULL;
  }
  if (self->reporter) {
    gst_object_unref (self->reporter);
    self->reporter = NULL;
  }
  rtf_events_free (self->events);
  self->events = NULL;
  g_free (self->event_batch);
  self->event_batch = NULL;
}

static gboolean
start_reporter (GstRtFrameSink * self)
{
  g_atomic_int_set (&self->reporter_stop, 0);
  self->reporter = gst_task_new (reporter_func, self, NULL);
  gst_object_set_name (GST_OBJECT_CAST (self->reporter),
      "rtframesink-reporter");
  gst_task_set_lock (self->reporter, &self->reporter_task_lock);
  gst_task_set_enter_callback (self->reporter, task_enter, self, NULL);
  gst_task_set_leave_callback (self->reporter, task_leave, self, NULL);
  post_stream_status (self, self->reporter, GST_STREAM_STATUS_TYPE_CREATE);
  return gst_task_start (self->reporter);
}

static void
stop_reporter (GstRtFrameSink * self)
{
  if (self->reporter == NULL)
    return;
  g_atomic_int_set (&self->reporter_stop, 1);
  rtf_events_wake (self->events);
  gst_task_join (self->reporter);
  post_stream_status (self, self->reporter, GST_STREAM_STATUS_TYPE_DESTROY);
}

static gboolean
gst_rtframe_sink_start (GstBaseSink * sink)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);
  RtfWriterConfig config = { 0 };
  RtfWriterStats st;
  RtfWriter *writer;
  RtfQueue *queue;
  const gchar *what = "open";
  gchar *why = NULL, *first, *location;
  guint i;
  gint err = 0;

  GST_OBJECT_LOCK (self);
  if (self->location == NULL || self->location[0] == '\0') {
    GST_OBJECT_UNLOCK (self);
    goto no_location;
  }
  /* our own copy: the property may change as soon as the lock is let go
   * (set_property refuses only once the writer exists) */
  location = g_strdup (self->location);
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
  config.start_index = self->start_index;
  config.max_file_size = self->max_file_size;
  config.max_file_duration = self->max_file_duration;
  config.max_files = self->max_files;
  config.threads = &self->helper_threads;
  switch (rtf_pattern_check (self->location, &why)) {
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
  g_atomic_int_set (&self->split_pending, 0);
  memset (&self->last_stats, 0, sizeof (self->last_stats));
  self->frames_repacked = 0;
  if (self->last_stats_structure) {
    gst_structure_free (self->last_stats_structure);
    self->last_stats_structure = NULL;
  }
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->stats_lock);
  self->start_ns = self->interval_start = rtf_clock_now_ns ();
  self->wait_total = self->wait_max = self->waits = 0;
  self->drops_missed = self->events_overflowed = self->interval_bytes = 0;
  g_mutex_unlock (&self->stats_lock);
  self->events = rtf_events_new (EVENT_RING_SIZE);
  self->event_batch = g_new (RtfEvent, EVENT_BATCH);

  writer = rtf_writer_new (&config, &writer_callbacks, self, &err, &what);
  if (writer == NULL) {
    free_running_state (self);
    goto open_failed;
  }
  g_clear_pointer (&location, g_free);

  queue = rtf_writer_get_queue (writer);
  self->slots = g_new0 (GstRtFrameSlot, rtf_queue_capacity (queue));
  for (i = 0; i < rtf_queue_capacity (queue); i++)
    rtf_queue_slot (queue, i)->user = &self->slots[i];

  GST_OBJECT_LOCK (self);
  self->writer = writer;
  GST_OBJECT_UNLOCK (self);

  rtf_writer_get_stats (writer, &st);
  if (!st.direct && st.direct_errno != 0) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("Direct I/O is not supported for \"%s\" (%s); writing through the "
            "page cache instead.", config.location,
            g_strerror (st.direct_errno)), ("open(O_DIRECT) refused"));
  }

  self->run = writer_run_new (self, writer);
  self->task = gst_task_new (writer_thread_func, self->run, writer_run_free);
  self->run->task = self->task;
  gst_object_set_name (GST_OBJECT_CAST (self->task), "rtframesink-writer");
  gst_task_set_lock (self->task, &self->run->task_lock);
  gst_task_set_enter_callback (self->task, writer_thread_enter, self, NULL);
  gst_task_set_leave_callback (self->task, task_leave, self, NULL);
  /* Posted synchronously: a sync bus handler can set a task pool or
   * prepare scheduling before the thread exists. */
  post_stream_status (self, self->task, GST_STREAM_STATUS_TYPE_CREATE);
  if (!gst_task_start (self->task))
    goto thread_failed;

  err = rtf_writer_wait_started (writer);
  if (err != 0)
    goto io_uring_failed;
  if (!start_reporter (self))
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
      config.start_index) : g_strdup (location);
  post_open_error (self, what, first, err, config.direct, &config.xflags, NULL);
  g_free (first);
  g_free (location);
  return FALSE;
thread_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not start the writer thread."), (NULL));
    free_running_state (self);
    return FALSE;
  }
reporter_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not start the reporter thread."), (NULL));
    rtf_writer_shutdown (self->writer);
    gst_task_join (self->task);
    post_stream_status (self, self->task, GST_STREAM_STATUS_TYPE_DESTROY);
    free_running_state (self);
    return FALSE;
  }
io_uring_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("io_uring is not available (%s) and io-engine=io-uring was "
            "requested.", g_strerror (err)), ("io_uring_queue_init failed"));
    gst_task_join (self->task);
    post_stream_status (self, self->task, GST_STREAM_STATUS_TYPE_DESTROY);
    free_running_state (self);
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

/* stop() waited stop-timeout and the writer still holds frames: leave it
 * to finish in the kernel on its own, report the frames it holds lost. */
static gboolean
abandon_writer (GstRtFrameSink * self, guint64 timeout)
{
  GstRtFrameWriterRun *run = self->run;
  RtfWriter *writer;
  RtfWriterLatency *latency;
  RtfWriterStats final;
  gchar *location;

  /* Once abandoned the writer may be gone at any moment: nobody may reach
   * it through self->writer (get_property) from before the call on, and
   * only copies of what the thread frees are used after it. */
  run->sink_ref = TRUE;
  gst_object_ref (self);
  GST_OBJECT_LOCK (self);
  writer = self->writer;
  self->writer = NULL;
  rtf_writer_get_stats (writer, &self->last_stats);
  location = g_strdup (self->location);
  run->slots = self->slots;
  run->location = g_strdup (location);
  GST_OBJECT_UNLOCK (self);

  latency = g_new (RtfWriterLatency, 1);
  if (!rtf_writer_abandon (writer, writer_run_abandoned_done, run, &final,
          latency)) {
    /* it finished just now */
    GST_OBJECT_LOCK (self);
    self->writer = writer;
    GST_OBJECT_UNLOCK (self);
    run->slots = NULL;
    g_clear_pointer (&run->location, g_free);
    run->sink_ref = FALSE;
    gst_object_unref (self);
    g_free (latency);
    g_free (location);
    return FALSE;
  }
  /* the writer, its frames and the slots are the thread's now */
  GST_OBJECT_LOCK (self);
  self->slots = NULL;
  self->last_stats = final;
  GST_OBJECT_UNLOCK (self);
  gst_task_stop (self->task);

  GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
      ("Stopped before the disk finished writing file \"%s\": %"
          G_GUINT64_FORMAT " frames accepted were not written.", location,
          final.frames_lost), ("the writes did not end within stop-timeout "
          "(%" GST_TIME_FORMAT "); %" G_GUINT64_FORMAT " frames written, %"
          G_GUINT64_FORMAT " bytes; the file is cut back to them when the "
          "stalled writes end", GST_TIME_ARGS (timeout),
          final.frames_written, final.bytes_written));

  stop_reporter (self);
  GST_OBJECT_LOCK (self);
  self->last_stats_structure = stats_structure_of (self,
      GST_RTFRAME_MSG_STATS, FALSE, &final, latency);
  GST_OBJECT_UNLOCK (self);
  g_free (latency);
  g_free (location);
  return TRUE;
}

static gboolean
gst_rtframe_sink_stop (GstBaseSink * sink)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);

  if (self->writer) {
    guint64 timeout;

    GST_OBJECT_LOCK (self);
    timeout = self->stop_timeout;
    GST_OBJECT_UNLOCK (self);

    /* The writer writes what it still holds, finishes the file and
     * returns: nothing accepted is dropped by a stop, unless the disk does
     * not take it within stop-timeout. */
    rtf_writer_shutdown (self->writer);
    if (rtf_writer_wait_finished (self->writer, timeout ? (gint64) timeout : -1)
        || !abandon_writer (self, timeout)) {
      gst_task_join (self->task);
      post_stream_status (self, self->task, GST_STREAM_STATUS_TYPE_DESTROY);
      stop_reporter (self);
      GST_OBJECT_LOCK (self);
      self->last_stats_structure = stats_structure (self,
          GST_RTFRAME_MSG_STATS, FALSE);
      GST_OBJECT_UNLOCK (self);
    }
    free_running_state (self);
  }
  gst_clear_object (&self->repack_pool);
  memset (&self->format, 0, sizeof (self->format));
  return TRUE;
}

static guint64
frames_accepted (GstRtFrameSink * self)
{
  RtfWriterStats st = { 0 };

  GST_OBJECT_LOCK (self);
  if (self->writer)
    rtf_writer_get_stats (self->writer, &st);
  GST_OBJECT_UNLOCK (self);
  return st.frames_received;
}

static gboolean
same_frame_layout (const GstRtFrameFormat * a, const GstRtFrameFormat * b)
{
  return a->frame_size == b->frame_size && a->is_video == b->is_video
      && a->name == b->name && a->width == b->width && a->height == b->height;
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
  return TRUE;

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

static gsize
pool_alignment (GstRtFrameSink * self)
{
  RtfWriterStats st;
  gsize align = 4096;

  GST_OBJECT_LOCK (self);
  if (self->writer) {
    rtf_writer_get_stats (self->writer, &st);
    align = MAX (align, st.mem_align);
  }
  GST_OBJECT_UNLOCK (self);
  return align;
}

static GstBufferPool *
new_aligned_pool (GstRtFrameSink * self, GstCaps * caps,
    const GstRtFrameFormat * format, guint min_buffers,
    GstAllocationParams * params)
{
  GstBufferPool *pool;
  GstStructure *config;

  gst_allocation_params_init (params);
  params->align = pool_alignment (self) - 1;

  pool = format->is_video ? gst_video_buffer_pool_new () :
      gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, format->frame_size,
      min_buffers, 0);
  /* memory the writer can register with its io_uring ring */
  gst_buffer_pool_config_set_allocator (config, self->allocator, params);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
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

  min_buffers = MIN (self->io_depth, self->max_size_buffers) + 1;
  if (need_pool) {
    pool = new_aligned_pool (self, caps, &format, min_buffers, &params);
    if (pool == NULL)
      return FALSE;
  } else {
    gst_allocation_params_init (&params);
    params.align = pool_alignment (self) - 1;
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

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->writer) {
    gint ret = rtf_writer_sync (self->writer);

    if (ret < 0) {
      GST_DEBUG_OBJECT (self, "flushing while waiting for the writer");
      gst_event_unref (event);
      return FALSE;
    }
    if (ret > 0) {
      RtfWriterStats st;

      rtf_writer_get_stats (self->writer, &st);
      if (st.error == 0)
        GST_ELEMENT_ERROR (self, RESOURCE, SYNC,
            ("Could not finish file \"%s\": %s.", self->location,
                g_strerror (ret)), ("ftruncate/fdatasync failed"));
      /* else the writer already posted the error */
      gst_event_unref (event);
      return FALSE;
    }
    /* every deadline message before the final stats, and both before EOS */
    post_events (self);
    post_stats (self);
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

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

    self->repack_pool = new_aligned_pool (self, caps, &self->format,
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
stamp_frame (GstRtFrameSink * self, RtfFrame * f, GstBuffer * buf,
    gint64 arrival, guint64 deadline)
{
  GstSegment *segment = &GST_BASE_SINK (self)->segment;
  GstClockTime pts = GST_BUFFER_PTS (buf);

  memset (f, 0, sizeof (*f));
  f->size = self->format.frame_size;
  f->arrival_ns = arrival;
  f->deadline_ns = deadline ? arrival + (gint64) deadline : 0;
  f->pts = pts;
  f->duration = GST_BUFFER_DURATION (buf);
  f->running_time = f->stream_time = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (pts) && segment->format == GST_FORMAT_TIME) {
    f->running_time = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        pts);
    f->stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME, pts);
  }
}

/* A frame leaves without being written: a missed deadline (reported once
 * per frame) and a QoS message, like GstBaseSink's for its drops.  Called
 * once the drop is counted (the frame released), with the frame as it was
 * (the streaming thread is the only one that reuses it). */
static void
report_drop (GstRtFrameSink * self, const RtfFrame * f)
{
  RtfMiss m;
  RtfQueueLevel level;
  gboolean reported = f->miss_reported;

  rtf_queue_get_level (rtf_writer_get_queue (self->writer), &level);
  rtf_miss_init (&m, f, rtf_clock_now_ns (), RTF_FRAME_DROPPED,
      level.queued, level.queued_bytes, level.held);
  if (!reported) {
    g_mutex_lock (&self->stats_lock);
    self->drops_missed++;
    g_mutex_unlock (&self->stats_lock);
  }
  GST_DEBUG_OBJECT (self, "dropped frame %" G_GUINT64_FORMAT, m.seq);
  rtf_events_push (self->events, reported ? RTF_EVENT_DROPPED_AFTER_MISS :
      RTF_EVENT_DROPPED, &m);
}

/* render waited for room and was then refused (a flush, or the writer
 * failed).  A frame whose miss was reported while it waited already has
 * its number: it is counted as received and dropped under it, so the
 * numbers of the frames after it stay right. */
static void
drop_refused (GstRtFrameSink * self, RtfQueue * queue, RtfFrame * stamp)
{
  if (!stamp->miss_reported)
    return;
  stamp->seq = rtf_queue_count_dropped_incoming (queue, NULL);
  report_drop (self, stamp);
}

static GstFlowReturn
gst_rtframe_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);
  gint64 arrival = rtf_clock_now_ns ();
  GstBuffer *frame_buf = NULL;
  GstVideoMeta *meta = NULL;
  GstRtFrameSlot *slot;
  RtfQueue *queue;
  RtfFrame *frame, stamp;
  GstRtFrameLeaky leaky;
  guint64 deadline;
  gsize size;
  guint i, n_mem;

  if (self->writer == NULL || self->format.frame_size == 0)
    goto not_negotiated;

  /* An empty buffer (a GAP, a heartbeat) holds no frame: nothing to write.
   * A GAP buffer with a frame's bytes is recorded like any frame. */
  size = gst_buffer_get_size (buffer);
  if (size == 0) {
    GST_LOG_OBJECT (self, "skipping empty buffer");
    return GST_FLOW_OK;
  }

  if (self->format.is_video)
    meta = gst_buffer_get_video_meta (buffer);
  if (meta && !layout_is_tight (&self->format.info, meta)) {
    if ((gint) meta->width != GST_VIDEO_INFO_WIDTH (&self->format.info)
        || (gint) meta->height != GST_VIDEO_INFO_HEIGHT (&self->format.info)
        || meta->format != GST_VIDEO_INFO_FORMAT (&self->format.info))
      goto wrong_meta;
    frame_buf = repack (self, buffer);
    if (frame_buf == NULL)
      goto repack_failed;
  } else {
    if (size != self->format.frame_size)
      goto wrong_size;
    frame_buf = gst_buffer_ref (buffer);
  }

  GST_OBJECT_LOCK (self);
  deadline = self->deadline;
  leaky = self->leaky;
  GST_OBJECT_UNLOCK (self);
  stamp_frame (self, &stamp, frame_buf, arrival, deadline);

  queue = rtf_writer_get_queue (self->writer);
  for (;;) {
    gint64 waited = 0;
    RtfFrame *old;

    switch (rtf_queue_reserve (queue, self->format.frame_size,
            leaky == GST_RTFRAME_LEAKY_NO, &stamp, &frame, &waited)) {
      case RTF_QUEUE_OK:
        break;
      case RTF_QUEUE_FULL:
        if (leaky == GST_RTFRAME_LEAKY_DOWNSTREAM
            && (old = rtf_queue_drop_oldest (queue)) != NULL) {
          frame_clear (old);
          rtf_queue_release (queue, old);
          report_drop (self, old);
          continue;
        }
        /* upstream, or nothing left to drop but this frame */
        stamp.seq = rtf_queue_count_dropped_incoming (queue, NULL);
        report_drop (self, &stamp);
        gst_buffer_unref (frame_buf);
        return GST_FLOW_OK;
      case RTF_QUEUE_FLUSHING:
        drop_refused (self, queue, &stamp);
        gst_buffer_unref (frame_buf);
        return GST_FLOW_FLUSHING;
      default:
        drop_refused (self, queue, &stamp);
        gst_buffer_unref (frame_buf);
        return GST_FLOW_ERROR;  /* the writer posted the error */
    }
    if (waited > 0) {
      g_mutex_lock (&self->stats_lock);
      self->wait_total += waited;
      self->wait_max = MAX (self->wait_max, (guint64) waited);
      self->waits++;
      g_mutex_unlock (&self->stats_lock);
    }
    break;
  }

  slot = frame->user;
  n_mem = gst_buffer_n_memory (frame_buf);
  g_assert (n_mem <= RTF_FRAME_MAX_IOV);
  slot->buffer = frame_buf;
  for (i = 0; i < n_mem; i++) {
    slot->mem[i] = gst_buffer_peek_memory (frame_buf, i);
    if (!gst_memory_map (slot->mem[i], &slot->map[i], GST_MAP_READ))
      goto map_failed;
    slot->n_map = i + 1;
    frame->iov[i].iov_base = slot->map[i].data;
    frame->iov[i].iov_len = slot->map[i].size;
  }
  frame->n_iov = n_mem;
  frame->arrival_ns = stamp.arrival_ns;
  frame->deadline_ns = stamp.deadline_ns;
  frame->pts = stamp.pts;
  frame->duration = stamp.duration;
  frame->running_time = stamp.running_time;
  frame->stream_time = stamp.stream_time;
  frame->format = g_ref_string_acquire (self->format_text);
  frame->split = self->rotate
      && g_atomic_int_compare_and_exchange (&self->split_pending, 1, 0);
  rtf_queue_commit (queue, frame);
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer received before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
wrong_size:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Buffer of %" G_GSIZE_FORMAT " bytes does not hold one frame of "
            "%" G_GSIZE_FORMAT " bytes.", size, self->format.frame_size),
        ("buffer %" GST_PTR_FORMAT " refused: a frame's size follows from "
            "the caps; nothing of it was written", buffer));
    return GST_FLOW_ERROR;
  }
wrong_meta:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Frame of %ux%u does not match the caps (%dx%d).", meta->width,
            meta->height, GST_VIDEO_INFO_WIDTH (&self->format.info),
            GST_VIDEO_INFO_HEIGHT (&self->format.info)), (NULL));
    return GST_FLOW_ERROR;
  }
repack_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Could not repack a strided frame."), (NULL));
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    slot_clear (slot);
    rtf_queue_cancel (queue, frame);
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
  if (self->writer)
    rtf_queue_set_flushing (rtf_writer_get_queue (self->writer), TRUE);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_rtframe_sink_unlock_stop (GstBaseSink * sink)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (sink);

  GST_OBJECT_LOCK (self);
  if (self->writer)
    rtf_queue_set_flushing (rtf_writer_get_queue (self->writer), FALSE);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}
