/* rtframe: rtframesink's properties - what each is, its default and its
 * range (docs/reference.md has them all), and reading and setting them.
 * A property marked GST_PARAM_MUTABLE_READY is refused (with a warning in
 * the log) while the writer runs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframesinkprops.h"
#include "gstrtframesink-private.h"
#include "gstrtframefigures.h"
#include "gstrtframemessages.h"
#include "gstrtframerecord.h"

#define GST_CAT_DEFAULT gst_rtframe_sink_debug

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
#define DEFAULT_RECORD TRUE
#define DEFAULT_PRE_RECORD_TIME 0
#define DEFAULT_PRE_RECORD_MAX_BYTES (512 * 1024 * 1024)
#define DEFAULT_KEEP_LOCATION NULL
#define DEFAULT_REFERENCE_TIMESTAMP_CAPS NULL
/* auto: 1 GiB, or 5% of the filesystem when that is less
 * (common/files/rtf-space-guard.h) */
#define DEFAULT_MIN_FREE_SPACE (-1)
#define DEFAULT_PLACEMENT GST_RTFRAME_PLACEMENT_SOONEST
#define DEFAULT_LOCATION_TIMEOUT (2 * GST_SECOND)


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
  PROP_RECORD,
  PROP_PRE_RECORD_TIME,
  PROP_PRE_RECORD_MAX_BYTES,
  PROP_KEEP_LOCATION,
  PROP_REFERENCE_TIMESTAMP_CAPS,
  PROP_MIN_FREE_SPACE,
  PROP_LOCATIONS,
  PROP_PLACEMENT,
  PROP_LOCATION_TIMEOUT,
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


void
gst_rtframe_sink_install_properties (GObjectClass * gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "File Location",
          "Path of the file to record to (created, or truncated), or a "
          "pattern with one integer conversion (cam0-%05d.raw) for a "
          "recording split into several files",
          DEFAULT_LOCATION, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_LOCATIONS,
      gst_param_spec_array ("locations", "Locations",
          "Several disks, one stream: a file or pattern per disk "
          "(<\"/mnt/a/cam0-%05d.raw\",\"/mnt/b/cam0-%05d.raw\">); each frame "
          "goes to the one that will finish it soonest; location is not used "
          "when set", g_param_spec_string ("location", "Location",
              "A file or pattern on one disk", NULL, G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS), G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PLACEMENT,
      g_param_spec_enum ("placement", "Placement",
          "Which of the locations takes each frame",
          GST_TYPE_RTFRAME_PLACEMENT, DEFAULT_PLACEMENT, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_LOCATION_TIMEOUT,
      g_param_spec_uint64 ("location-timeout", "Location timeout",
          "With locations: a location where no write completes for this long "
          "(ns) while it holds frames leaves the recording, its frames "
          "written at the others (0 = never)", 0, G_MAXUINT64,
          DEFAULT_LOCATION_TIMEOUT, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
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
          "after the writes they cover have completed, between frames: a "
          "power cut loses about this much, at most about twice it (0 = "
          "only at EOS and stop)", 0,
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
  g_object_class_install_property (gobject_class,
      PROP_REFERENCE_TIMESTAMP_CAPS,
      g_param_spec_boxed ("reference-timestamp-caps",
          "Reference timestamp caps",
          "Which GstReferenceTimestampMeta of a buffer goes into its index "
          "record as its camera timestamp: the first whose reference caps "
          "are a subset of these (NULL: the first meta of the first buffer "
          "that has one fixes the caps for the recording); the index "
          "header names them", GST_TYPE_CAPS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  g_object_class_install_property (gobject_class, PROP_MIN_FREE_SPACE,
      g_param_spec_int64 ("min-free-space", "Min. free space (bytes)",
          "Free space to keep on the recording's filesystem, in bytes "
          "(-1 = auto: 1 GiB, or 5% of the filesystem when that is less; "
          "0 = off).  Checked at least once a second and at every new file "
          "(space reserved ahead counts as the recording's): with a pattern "
          "in location the oldest files of this recording are deleted to "
          "stay above it, else the recording ends with a NO_SPACE_LEFT "
          "error, every frame whole, before the filesystem is full.  The "
          "auto value covers one preallocation step (128 MiB) and about "
          "2.5 s of three 2048x928 10-bit streams at 20 fps (342 MB/s) "
          "between two checks: for a faster recording keep preallocate "
          "plus a few seconds of its rate", -1, G_MAXINT64,
          DEFAULT_MIN_FREE_SPACE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
          | GST_PARAM_MUTABLE_READY));

  /**
   * GstRtFrameSink::split-now:
   *
   * Starts a new file with the next frame (location must be a pattern).
   */
  g_object_class_install_property (gobject_class, PROP_RECORD,
      g_param_spec_boolean ("record", "Record",
          "Write the frames received.  FALSE: frames are held for "
          "pre-record-time, or let go.  Set while running, it starts or "
          "stops a recording now (the pipeline clock's running time; the "
          "start-recording and stop-recording signals take one); set "
          "before, whether the first frame starts one", DEFAULT_RECORD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PRE_RECORD_TIME,
      g_param_spec_uint64 ("pre-record-time", "Pre-record time (ns)",
          "While not recording, keep the frames of the last this many "
          "nanoseconds in memory: a recording starts with them (0 = keep "
          "none)", 0, G_MAXUINT64, DEFAULT_PRE_RECORD_TIME,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PRE_RECORD_MAX_BYTES,
      g_param_spec_uint64 ("pre-record-max-bytes", "Pre-record max. bytes",
          "Most memory for the frames kept for pre-record-time: a frame that "
          "does not fit pushes out the oldest.  Allocated at caps, as many "
          "frames as pre-record-time holds at the frame rate", 0,
          G_MAXUINT64, DEFAULT_PRE_RECORD_MAX_BYTES, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_KEEP_LOCATION,
      g_param_spec_string ("keep-location", "Keep location",
          "Pre-record on disk: a directory pattern with one integer "
          "conversion (events/event-%05d).  Set, every frame is written at "
          "location (a pattern) as a ring holding pre-record-time, and each "
          "recording keeps the files holding its frames by linking them "
          "(never copying) into a directory of its own, numbered on from "
          "the highest there; on location's filesystem",
          DEFAULT_KEEP_LOCATION, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
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
}

void
gst_rtframe_sink_init_properties (GstRtFrameSink * self)
{
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
  self->record = DEFAULT_RECORD;
  self->pre_record_time = DEFAULT_PRE_RECORD_TIME;
  self->pre_record_max_bytes = DEFAULT_PRE_RECORD_MAX_BYTES;
  self->reference_timestamp_caps = DEFAULT_REFERENCE_TIMESTAMP_CAPS;
  self->min_free_space = DEFAULT_MIN_FREE_SPACE;
  self->locations = NULL;
  self->placement = DEFAULT_PLACEMENT;
  self->location_timeout = DEFAULT_LOCATION_TIMEOUT;
}

/* locations from a GstValueArray of strings (NULL when empty) */
static gchar **
locations_from_value (const GValue * value)
{
  guint i, n = gst_value_array_get_size (value);
  gchar **v;

  if (n == 0)
    return NULL;
  v = g_new0 (gchar *, n + 1);
  for (i = 0; i < n; i++)
    v[i] = g_value_dup_string (gst_value_array_get_value (value, i));
  return v;
}

static void
locations_to_value (gchar ** locations, GValue * value)
{
  guint i;

  for (i = 0; locations && locations[i]; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_STRING);
    g_value_set_string (&v, locations[i]);
    gst_value_array_append_and_take_value (value, &v);
  }
}

void
gst_rtframe_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (object);

  /* a request to the recorder (it may read the clock: no lock held) */
  if (prop_id == PROP_RECORD) {
    gst_rtframe_sink_request (self, g_value_get_boolean (value),
        GST_CLOCK_TIME_NONE, FALSE, "record property");
    return;
  }
  GST_OBJECT_LOCK (self);
  if (self->writer != NULL && (pspec->flags & GST_PARAM_MUTABLE_READY)) {
    gchar *wanted = g_strdup_value_contents (value);

    GST_OBJECT_UNLOCK (self);
    /* The file is open and the writer set up: a change cannot apply.
     * Said on the bus, where an application looks (issue 26: a
     * GST_DEBUG=2 line only, while filesink warns visibly) */
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("Property \"%s\" cannot change once the element has started: %s is "
            "ignored. Set it in the READY or NULL state.", pspec->name,
            wanted), ("the writer is set up with the value it had at start"));
    g_free (wanted);
    return;
  }
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_LOCATIONS:
      g_strfreev (self->locations);
      self->locations = locations_from_value (value);
      break;
    case PROP_PLACEMENT:
      self->placement = g_value_get_enum (value);
      break;
    case PROP_LOCATION_TIMEOUT:
      self->location_timeout = g_value_get_uint64 (value);
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
    case PROP_PRE_RECORD_TIME:
      self->pre_record_time = g_value_get_uint64 (value);
      break;
    case PROP_KEEP_LOCATION:
      g_free (self->keep_location);
      self->keep_location = g_value_dup_string (value);
      break;
    case PROP_PRE_RECORD_MAX_BYTES:
      self->pre_record_max_bytes = g_value_get_uint64 (value);
      break;
    case PROP_REFERENCE_TIMESTAMP_CAPS:
      gst_caps_replace (&self->reference_timestamp_caps,
          (GstCaps *) gst_value_get_caps (value));
      break;
    case PROP_MIN_FREE_SPACE:
      self->min_free_space = g_value_get_int64 (value);
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

void
gst_rtframe_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (object);
  RtfWriterStats st;

  GST_OBJECT_LOCK (self);
  if (self->writer)
    gst_rtframe_sink_writer_stats (self, &st, NULL);
  else
    st = self->last_stats;

  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_LOCATIONS:
      locations_to_value (self->locations, value);
      break;
    case PROP_PLACEMENT:
      g_value_set_enum (value, self->placement);
      break;
    case PROP_LOCATION_TIMEOUT:
      g_value_set_uint64 (value, self->location_timeout);
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
        g_value_take_boxed (value, gst_rtframe_sink_stats (self,
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
    case PROP_RECORD:
      g_value_set_boolean (value, gst_rtframe_sink_record_wanted (self));
      break;
    case PROP_PRE_RECORD_TIME:
      g_value_set_uint64 (value, self->pre_record_time);
      break;
    case PROP_KEEP_LOCATION:
      g_value_set_string (value, self->keep_location);
      break;
    case PROP_PRE_RECORD_MAX_BYTES:
      g_value_set_uint64 (value, self->pre_record_max_bytes);
      break;
    case PROP_REFERENCE_TIMESTAMP_CAPS:
      gst_value_set_caps (value, self->reference_timestamp_caps);
      break;
    case PROP_MIN_FREE_SPACE:
      g_value_set_int64 (value, self->min_free_space);
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
