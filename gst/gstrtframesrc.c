/* rtframe: rtframesrc - plays a recording back through its index.
 *
 * SECTION:element-rtframesrc
 * @title: rtframesrc
 *
 * Reads what rtframesink recorded - one file, or a rotated set given by
 * the same pattern - as one stream: caps from the index header of each
 * file (a set whose caps change renegotiates at that file), every frame
 * with the timestamps it was recorded with, and seeking by time or by
 * frame number (GST_FORMAT_DEFAULT).  Frame numbers are the recording's,
 * the ones its index, rtframe-dump and rtframesink's messages use: a
 * buffer's offset is its frame's number, and after max-files deleted the
 * first files (or between event recordings) the first frame played is
 * not number 0.  Seeks land on the frame shown at the position asked for:
 * the last frame whose timestamp (or number) is not after it.
 * DISCONT marks each frame after frames missing (dropped while recording,
 * or lost upstream before the recorder, as the index says), and a frame
 * recorded with a camera timestamp gets it back as a
 * GstReferenceTimestampMeta of the caps its index header names.
 *
 * A recording with a part missing plays what exists, after a RESOURCE /
 * NOT_FOUND warning for each part: a location of a spread recording not
 * found (its disk dead or not mounted: named, with what was found where
 * it was looked for, and how many frames were written there when the
 * sink wrote the final state at EOS), files missing in the middle of a
 * set (named, with their numbers), a location holding fewer frames than
 * written there; the detail lists the frame numbers missing.  What is no
 * part of the recording is said in a RESOURCE / NOT_FOUND info message:
 * a file after a set's last one that is not the recording's (a FIFO, a
 * user's file: the set ends before it), a location of a spread that the
 * final state says holds no frame.  Frames failed over from a location
 * that left (appended after later frames where they were written again)
 * play in frame-number order, also when one location is played alone.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 rtframesrc location=cam0-%05d.raw ! videoconvert ! autovideosink
 * gst-launch-1.0 rtframesrc location=cam0.raw ! videoconvert ! \
 *     x264enc ! mp4mux ! filesink location=cam0.mp4
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframeuri.h"
#include "gstrtframesrc.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <gst/video/video.h>

#include "gstrtframecaps.h"
#include "rtf-check.h"
#include "rtf-safe-open.h"
#include "rtf-take-manifest.h"

GST_DEBUG_CATEGORY_STATIC (gst_rtframe_src_debug);
#define GST_CAT_DEFAULT gst_rtframe_src_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_START_INDEX 0
#define DEFAULT_CAMERA NULL

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_START_INDEX,
  PROP_CAMERA
};

static void gst_rtframe_src_uri_handler_init (gpointer g_iface,
    gpointer iface_data);

#define gst_rtframe_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRtFrameSrc, gst_rtframe_src, GST_TYPE_BASE_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        gst_rtframe_src_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (rtframesrc, "rtframesrc", GST_RANK_NONE,
    GST_TYPE_RTFRAME_SRC);

static void gst_rtframe_src_finalize (GObject * object);
static void gst_rtframe_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_rtframe_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_rtframe_src_start (GstBaseSrc * src);
static gboolean gst_rtframe_src_stop (GstBaseSrc * src);
static GstCaps *gst_rtframe_src_get_caps (GstBaseSrc * src, GstCaps * filter);
static gboolean gst_rtframe_src_is_seekable (GstBaseSrc * src);
static gboolean gst_rtframe_src_prepare_seek_segment (GstBaseSrc * src,
    GstEvent * seek, GstSegment * segment);
static gboolean gst_rtframe_src_do_seek (GstBaseSrc * src,
    GstSegment * segment);
static gboolean gst_rtframe_src_query (GstBaseSrc * src, GstQuery * query);
static GstFlowReturn gst_rtframe_src_create (GstBaseSrc * src,
    guint64 offset, guint size, GstBuffer ** buf);

static void
gst_rtframe_src_class_init (GstRtFrameSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstCaps *caps;

  GST_DEBUG_CATEGORY_INIT (gst_rtframe_src_debug, "rtframesrc", 0,
      "rtframesrc: plays back rtframesink recordings");

  gobject_class->finalize = gst_rtframe_src_finalize;
  gobject_class->set_property = gst_rtframe_src_set_property;
  gobject_class->get_property = gst_rtframe_src_get_property;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "File Location",
          "The recorded file, or the pattern a rotated set was recorded with "
          "(cam0-%05d.raw): its files are played in order as one stream; or "
          "the manifest of a recording over several locations "
          "(cam0-.raw.rtfspread): every location's frames, in frame-number "
          "order; or an event's or take's manifest (event-12.rtftake): the "
          "frames of it of the camera named by camera",
          DEFAULT_LOCATION, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_START_INDEX,
      g_param_spec_uint ("start-index", "Start index",
          "Lowest file number of a pattern to play (the set starts at the "
          "first file at or after it)", 0, G_MAXUINT, DEFAULT_START_INDEX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CAMERA,
      g_param_spec_string ("camera", "Camera",
          "With an event's or take's manifest as location: the camera whose "
          "part plays (NULL: the take's only camera)", DEFAULT_CAMERA,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "Raw video recording source", "Source/File/Video",
      "Plays back an rtframesink recording through its frame index, with "
      "accurate seeking by time and by frame", "rtframe developers");
  caps = gst_rtframe_caps_template ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_rtframe_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_rtframe_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_rtframe_src_get_caps);
  basesrc_class->is_seekable = GST_DEBUG_FUNCPTR (gst_rtframe_src_is_seekable);
  basesrc_class->prepare_seek_segment =
      GST_DEBUG_FUNCPTR (gst_rtframe_src_prepare_seek_segment);
  basesrc_class->do_seek = GST_DEBUG_FUNCPTR (gst_rtframe_src_do_seek);
  basesrc_class->query = GST_DEBUG_FUNCPTR (gst_rtframe_src_query);
  basesrc_class->create = GST_DEBUG_FUNCPTR (gst_rtframe_src_create);
}

static void
gst_rtframe_src_init (GstRtFrameSrc * self)
{
  self->location = g_strdup (DEFAULT_LOCATION);
  self->start_index = DEFAULT_START_INDEX;
  self->camera = g_strdup (DEFAULT_CAMERA);
  self->fd = -1;
  self->reference_file = G_MAXUINT;
  self->unix_caps = gst_caps_new_empty_simple ("timestamp/x-unix");
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}

static void
gst_rtframe_src_finalize (GObject * object)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (object);

  g_free (self->location);
  g_free (self->camera);
  gst_caps_unref (self->unix_caps);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_rtframe_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_START_INDEX:
      self->start_index = g_value_get_uint (value);
      break;
    case PROP_CAMERA:
      g_free (self->camera);
      self->camera = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rtframe_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_START_INDEX:
      g_value_set_uint (value, self->start_index);
      break;
    case PROP_CAMERA:
      g_value_set_string (value, self->camera);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* A frame's timestamp: its PTS, else its running time, else its place at
 * the caps' framerate (or 0). */
static GstClockTime
frame_time (const RtfIndexRecord * r, guint64 n, const GstCaps * caps)
{
  GstStructure *s;
  gint num = 0, den = 1;

  if (r->pts != RTF_INDEX_NONE)
    return r->pts;
  if (r->running_time != RTF_INDEX_NONE)
    return r->running_time;
  s = gst_caps_get_structure (caps, 0);
  if (gst_structure_get_fraction (s, "framerate", &num, &den) && num > 0)
    return gst_util_uint64_scale (n, den * GST_SECOND, num);
  return 0;
}

static void
free_parts (RtfRecording * rec, GstCaps ** caps, GstClockTime * times)
{
  guint i;

  for (i = 0; caps && rec && i < rec->n_files; i++)
    gst_clear_caps (&caps[i]);
  g_free (caps);
  g_free (times);
  rtf_recording_free (rec);
}

/* Queries read the recording under the object lock: it goes from under
 * them in one step, and is freed outside */
static void
free_recording (GstRtFrameSrc * self)
{
  RtfRecording *rec;
  GstCaps **caps;
  GstClockTime *times;

  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  gst_clear_caps (&self->reference);
  self->reference_file = G_MAXUINT;
  GST_OBJECT_LOCK (self);
  rec = self->rec;
  caps = self->caps;
  times = self->times;
  self->rec = NULL;
  self->caps = NULL;
  self->times = NULL;
  GST_OBJECT_UNLOCK (self);
  free_parts (rec, caps, times);
}

/* Each file's caps, from its index header (NULL for a file without
 * frames); FALSE with *bad the file whose caps cannot be played and *why
 * the reason (g_free) */
static gboolean
caps_of_files (RtfRecording * rec, GstCaps ** caps, guint * bad, gchar ** why)
{
  guint i;

  for (i = 0; i < rec->n_files && *why == NULL; i++) {
    const RtfRecordingFile *f = &rec->files[i];
    GstRtFrameFormat format;

    if (f->state != RTF_FILE_OK)
      continue;                 /* opened ahead, never written */
    *bad = i;
    caps[i] = gst_caps_from_string (f->index->header.format);
    if (caps[i] == NULL)
      *why = g_strdup ("not caps GStreamer can read");
    else if (gst_rtframe_format_from_caps_full (&format, caps[i], why)
        && format.frame_size != f->index->header.frame_size)
      *why = g_strdup_printf ("frames of %" G_GSIZE_FORMAT " bytes, where "
          "the index has %" G_GUINT64_FORMAT, format.frame_size,
          f->index->header.frame_size);
  }
  return *why == NULL;
}

/* A file whose index stops making sense (a record of another size, out
 * of place, past the data): its frames up to there play */
static void
warn_cut_files (GstRtFrameSrc * self, RtfRecording * rec)
{
  guint i;

  for (i = 0; i < rec->n_files; i++) {
    const RtfRecordingFile *f = &rec->files[i];

    if (f->state == RTF_FILE_OK && f->walk.stop != RTF_INDEX_WHOLE)
      GST_ELEMENT_WARNING (self, STREAM, DEMUX,
          ("File \"%s\" plays only its first %" G_GUINT64_FORMAT " frames: "
              "%s.", f->path, f->walk.frames, f->walk.why),
          ("rtframe-verify says more; rtframe-recover cuts a crashed "
              "recording back to its whole frames"));
  }
}

/* A part of the recording missing (a location, files): a warning each,
 * and what exists plays */
static void
warn_missing_parts (GstRtFrameSrc * self, RtfRecording * rec,
    const gchar * location)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  gchar *gaps = rtf_check_gaps_text (rec, 20);
  guint i;

  rtf_check_recording (rec, TRUE, parts);
  for (i = 0; i < parts->len; i++)
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("Recording \"%s\" is not whole: %s. The frames that exist play.",
            location, (const gchar *) g_ptr_array_index (parts, i)),
        ("%" G_GUINT64_FORMAT " frame numbers missing: %s (DISCONT after "
            "each gap)", rec->missing, gaps));
  g_free (gaps);
  g_ptr_array_unref (parts);
}

/* What the reader took care of, for the application: a file at a name
 * of the set that is not the recording's (the set ends before it), a
 * location of a spread that holds no frame, frames failed over (played
 * in number order) */
static void
tell_notes (GstRtFrameSrc * self, RtfRecording * rec, const gchar * location)
{
  if (rec->note)
    GST_ELEMENT_INFO (self, RESOURCE, NOT_FOUND,
        ("Recording \"%s\": %s.", location, rec->note), (NULL));
  if (rec->failed_over)
    GST_INFO_OBJECT (self, "%s: %" G_GUINT64_FORMAT " frames failed over "
        "from another location (%" G_GUINT64_FORMAT " after a later one in "
        "their file): played in number order", location, rec->failed_over,
        rec->out_of_order);
}

static gboolean
gst_rtframe_src_start (GstBaseSrc * src)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (src);
  GError *error = NULL;
  RtfRecording *rec = NULL;
  GstCaps **caps = NULL;
  GstClockTime *times = NULL;
  gchar *location, *camera, *why = NULL;
  guint start_index, bad = 0, first_ok = 0;
  guint64 n;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  start_index = self->start_index;
  camera = g_strdup (self->camera);
  GST_OBJECT_UNLOCK (self);
  if (location == NULL || location[0] == '\0')
    goto no_location;

  if (rtf_take_manifest_is_path (location))
    rec = rtf_take_recording_open (location, camera, TRUE, &error);
  else
    rec = rtf_recording_open (location, start_index, TRUE, &error);
  g_free (camera);
  if (rec == NULL)
    goto open_failed;
  warn_cut_files (self, rec);
  warn_missing_parts (self, rec, location);
  tell_notes (self, rec, location);
  if (rec->n_frames == 0)
    goto empty;

  caps = g_new0 (GstCaps *, rec->n_files);
  if (!caps_of_files (rec, caps, &bad, &why))
    goto bad_caps;
  times = g_new (GstClockTime, rec->n_frames);
  for (n = 0; n < rec->n_frames; n++) {
    guint file;
    const RtfIndexRecord *r = rtf_recording_frame (rec, n, &file);

    times[n] = frame_time (r, n, caps[file]);
  }
  rtf_recording_frame (rec, 0, &first_ok);
  GST_INFO_OBJECT (self, "%s: %u files, %" G_GUINT64_FORMAT " frames",
      location, rec->n_files, rec->n_frames);
  /* all at once, for the queries */
  GST_OBJECT_LOCK (self);
  self->rec = rec;
  self->caps = caps;
  self->times = times;
  self->first_file = first_ok;
  self->file = G_MAXUINT;
  self->caps_file = G_MAXUINT;
  self->next = 0;
  GST_OBJECT_UNLOCK (self);
  g_free (location);
  return TRUE;

  /* ERRORS */
no_location:
  {
    g_free (location);
    g_free (camera);
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for reading."), (NULL));
    return FALSE;
  }
open_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Could not open recording \"%s\": %s.", location, error->message),
        ("a recording is read through its index (<file>.idx); without one "
            "use filesrc ! rawvideoparse"));
    g_clear_error (&error);
    g_free (location);
    return FALSE;
  }
empty:
  {
    GST_ELEMENT_ERROR (self, STREAM, DEMUX,
        ("Recording \"%s\" holds no frame.", location), (NULL));
    free_parts (rec, caps, times);
    g_free (location);
    return FALSE;
  }
bad_caps:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The index of \"%s\" describes frames this build cannot play: "
            "\"%s\" (%s).", rec->files[bad].path,
            rec->files[bad].index->header.format, why), (NULL));
    g_free (why);
    free_parts (rec, caps, times);
    g_free (location);
    return FALSE;
  }
}

static gboolean
gst_rtframe_src_stop (GstBaseSrc * src)
{
  free_recording (GST_RTFRAME_SRC (src));
  return TRUE;
}

static GstCaps *
gst_rtframe_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (src);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  if (self->caps) {
    guint f = self->first_file;

    if (self->next < self->rec->n_frames)
      rtf_recording_frame (self->rec, self->next, &f);
    caps = gst_caps_ref (self->caps[f]);
  } else {
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  }
  GST_OBJECT_UNLOCK (self);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

static gboolean
gst_rtframe_src_is_seekable (GstBaseSrc * src)
{
  return TRUE;
}

/* The frame shown at time t: the last whose timestamp is not after it. */
static guint64
frame_at (GstRtFrameSrc * self, GstClockTime t)
{
  guint64 lo = 0, hi = self->rec->n_frames;

  if (t <= self->times[0])
    return 0;
  while (hi - lo > 1) {
    guint64 mid = lo + (hi - lo) / 2;

    if (self->times[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static GstClockTime
end_time (GstRtFrameSrc * self)
{
  guint64 last = self->rec->n_frames - 1;
  const RtfIndexRecord *r = rtf_recording_frame (self->rec, last, NULL);

  return self->times[last] + (r->duration != RTF_INDEX_NONE ? r->duration : 0);
}

/* The recording's number of the frame at a place in playback order: the
 * number the sink gave it, which its index record, rtframe-dump and the
 * bus messages use (after max-files, or between events, the first frame
 * played is not number 0) */
static guint64
number_at (GstRtFrameSrc * self, guint64 place)
{
  return rtf_recording_frame (self->rec, place, NULL)->seq;
}

/* The number after the last frame: the end, as a frame number */
static guint64
end_number (GstRtFrameSrc * self)
{
  return number_at (self, self->rec->n_frames - 1) + 1;
}

/* The place of the frame shown at a frame number: the last frame whose
 * number is not above it (a number not recorded - dropped, or between
 * events - shows the frame before it; one below the first, the first).
 * The numbers rise in playback order (a spread's and a set failed over
 * are read in frame-number order) */
static guint64
place_of_number (GstRtFrameSrc * self, guint64 number)
{
  guint64 lo = 0, hi = self->rec->n_frames;

  while (hi - lo > 1) {
    guint64 mid = lo + (hi - lo) / 2;

    if (number_at (self, mid) <= number)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* frame number <-> time */
static gboolean
convert (GstRtFrameSrc * self, GstFormat from, gint64 value, GstFormat to,
    gint64 * out)
{
  if (from == to || value == -1) {
    *out = value;
    return TRUE;
  }
  if (self->rec == NULL)
    return FALSE;
  if (from == GST_FORMAT_DEFAULT && to == GST_FORMAT_TIME) {
    *out = (guint64) value >= end_number (self) ? (gint64) end_time (self)
        : (gint64) self->times[place_of_number (self, value)];
    return TRUE;
  }
  if (from == GST_FORMAT_TIME && to == GST_FORMAT_DEFAULT) {
    /* the end (what DEFAULT -> TIME gives for the end number) is that
     * number: a duration converted by GstBaseSrc lands there */
    *out = (guint64) value >= end_time (self) ? (gint64) end_number (self)
        : (gint64) number_at (self, frame_at (self, value));
    return TRUE;
  }
  return FALSE;
}

static gboolean
gst_rtframe_src_prepare_seek_segment (GstBaseSrc * src, GstEvent * seek,
    GstSegment * segment)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (src);
  GstSeekFlags flags;
  GstSeekType start_type, stop_type;
  GstFormat format;
  gint64 start, stop;
  gdouble rate;

  gst_event_parse_seek (seek, &rate, &format, &flags, &start_type, &start,
      &stop_type, &stop);
  if (rate <= 0.0) {
    GST_WARNING_OBJECT (self, "reverse playback is not supported");
    return FALSE;
  }
  if (format != GST_FORMAT_TIME) {
    GST_OBJECT_LOCK (self);
    if (!convert (self, format, start, GST_FORMAT_TIME, &start)
        || !convert (self, format, stop, GST_FORMAT_TIME, &stop)) {
      GST_OBJECT_UNLOCK (self);
      GST_WARNING_OBJECT (self, "cannot seek in %s",
          gst_format_get_name (format));
      return FALSE;
    }
    GST_OBJECT_UNLOCK (self);
  }
  gst_segment_do_seek (segment, rate, GST_FORMAT_TIME, flags, start_type,
      start, stop_type, stop, NULL);
  return TRUE;
}

static gboolean
gst_rtframe_src_do_seek (GstBaseSrc * src, GstSegment * segment)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (src);

  if (segment->rate <= 0.0)
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (self->rec) {
    /* the first seek, at start: the stream starts at the first frame's
     * timestamp, so it plays at once */
    if (segment->start == 0 && segment->position == 0 && segment->time == 0) {
      segment->start = segment->position = segment->time = self->times[0];
      segment->duration = end_time (self);
    }
    self->next = frame_at (self, segment->start);
    GST_DEBUG_OBJECT (self, "seek to %" GST_TIME_FORMAT ": frame %"
        G_GUINT64_FORMAT, GST_TIME_ARGS (segment->start), self->next);
  }
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_rtframe_src_query (GstBaseSrc * src, GstQuery * query)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (src);
  gboolean ret = FALSE;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_DURATION:{
      GstFormat format;

      gst_query_parse_duration (query, &format, NULL);
      GST_OBJECT_LOCK (self);
      if (self->rec && format == GST_FORMAT_DEFAULT) {
        /* the end as a frame number, as positions are */
        gst_query_set_duration (query, format, end_number (self));
        ret = TRUE;
      } else if (self->rec && format == GST_FORMAT_TIME) {
        gst_query_set_duration (query, format, end_time (self));
        ret = TRUE;
      }
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case GST_QUERY_POSITION:{
      GstFormat format;

      gst_query_parse_position (query, &format, NULL);
      GST_OBJECT_LOCK (self);
      if (self->rec && format == GST_FORMAT_DEFAULT) {
        gst_query_set_position (query, format,
            self->next < self->rec->n_frames ? number_at (self, self->next) :
            end_number (self));
        ret = TRUE;
      }
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case GST_QUERY_CONVERT:{
      GstFormat from, to;
      gint64 value, out;

      gst_query_parse_convert (query, &from, &value, &to, NULL);
      GST_OBJECT_LOCK (self);
      ret = convert (self, from, value, to, &out);
      GST_OBJECT_UNLOCK (self);
      if (ret)
        gst_query_set_convert (query, from, value, to, out);
      break;
    }
    default:
      break;
  }
  if (!ret)
    ret = GST_BASE_SRC_CLASS (parent_class)->query (src, query);
  return ret;
}

/* The caps of file's camera timestamps (its index header's reference
 * caps, version 3), parsed when the file is reached: NULL when it names
 * none, or none GStreamer can read */
static GstCaps *
reference_of (GstRtFrameSrc * self, guint file)
{
  const gchar *text = self->rec->files[file].index->header.reference;

  if (file == self->reference_file)
    return self->reference;
  gst_clear_caps (&self->reference);
  self->reference_file = file;
  if (text != NULL && text[0] != '\0')
    self->reference = gst_caps_from_string (text);
  if (text != NULL && self->reference == NULL)
    GST_WARNING_OBJECT (self, "%s: camera timestamps of unreadable caps "
        "\"%s\" not attached", self->rec->files[file].path, text);
  return self->reference;
}

static GstFlowReturn
gst_rtframe_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** out)
{
  GstRtFrameSrc *self = GST_RTFRAME_SRC (src);
  GstSegment *segment = &src->segment;
  const RtfIndexRecord *r;
  GstBuffer *buf;
  GstMapInfo map;
  guint64 n;
  guint file;
  gboolean short_read;
  gchar *why = NULL;
  gint64 wall;
  gint err;

  GST_OBJECT_LOCK (self);
  n = self->next;
  if (n >= self->rec->n_frames) {
    GST_OBJECT_UNLOCK (self);
    return GST_FLOW_EOS;
  }
  if (GST_CLOCK_TIME_IS_VALID (segment->stop)
      && self->times[n] >= (GstClockTime) segment->stop) {
    GST_OBJECT_UNLOCK (self);
    return GST_FLOW_EOS;
  }
  self->next = n + 1;
  GST_OBJECT_UNLOCK (self);

  r = rtf_recording_frame (self->rec, n, &file);
  if (file != self->file) {
    if (self->fd >= 0)
      close (self->fd);
    self->file = file;
    /* the file as identified at start: no link, no FIFO, no other file
     * put at its name since */
    self->fd = rtf_recording_file_reopen (&self->rec->files[file], FALSE,
        FALSE, &why);
    if (self->fd < 0)
      goto open_failed;
  }
  if (file != self->caps_file) {
    if (self->caps_file == G_MAXUINT
        || !gst_caps_is_equal (self->caps[file], self->caps[self->caps_file]))
      gst_base_src_set_caps (src, self->caps[file]);
    self->caps_file = file;
  }

  buf = gst_buffer_new_allocate (NULL, r->size, NULL);
  if (buf == NULL)
    goto no_memory;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  err = rtf_read_full (self->fd, r->offset, map.data, r->size, &short_read);
  gst_buffer_unmap (buf, &map);
  if (err) {
    gst_buffer_unref (buf);
    goto read_failed;
  }

  GST_BUFFER_PTS (buf) = self->times[n];
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = r->duration != RTF_INDEX_NONE ? r->duration :
      GST_CLOCK_TIME_NONE;
  /* the recording's frame number, as the index and the bus say it */
  GST_BUFFER_OFFSET (buf) = r->seq;
  GST_BUFFER_OFFSET_END (buf) = r->seq + 1;
  /* frames missing: dropped while recording (a jump in frame numbers), or
   * lost before the recorder (its record says so) */
  if (n == 0 || rtf_recording_frame (self->rec, n - 1, NULL)->seq + 1 != r->seq
      || (r->flags & RTF_INDEX_REC_GAP))
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  /* the camera's timestamp, as it came */
  if (r->reference_ns != RTF_INDEX_NONE && reference_of (self, file) != NULL)
    gst_buffer_add_reference_timestamp_meta (buf, self->reference,
        r->reference_ns, GST_CLOCK_TIME_NONE);
  /* when it arrived, on the wall clock (a file made before issue 26 has no
   * clock anchor: none) */
  if (rtf_index_wall_clock (&self->rec->files[file].index->header,
          r->arrival_ns, &wall) && wall > 0)
    gst_buffer_add_reference_timestamp_meta (buf, self->unix_caps,
        (GstClockTime) wall, GST_CLOCK_TIME_NONE);
  *out = buf;
  return GST_FLOW_OK;

  /* ERRORS */
open_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Could not open file \"%s\" for reading: %s.",
            self->rec->files[file].path, why), (NULL));
    g_free (why);
    return GST_FLOW_ERROR;
  }
no_memory:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not allocate a frame of %u bytes.", r->size), (NULL));
    return GST_FLOW_ERROR;
  }
read_failed:
  {
    if (short_read)
      GST_ELEMENT_ERROR (self, RESOURCE, READ,
          ("Could not read frame %" G_GUINT64_FORMAT " from file \"%s\": the "
              "file ends before it does (cut short since it was opened).",
              r->seq, self->rec->files[file].path), (NULL));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, READ,
          ("Could not read frame %" G_GUINT64_FORMAT " from file \"%s\": "
              "%s.", r->seq, self->rec->files[file].path, g_strerror (err)),
          (NULL));
    return GST_FLOW_ERROR;
  }
}

/* ---- GstURIHandler: file:// and rtframe:// (gstrtframeuri.h) --------- */

static GstURIType
gst_rtframe_src_uri_get_type (GType type)
{
  return GST_URI_SRC;
}

static void
gst_rtframe_src_uri_handler_init (gpointer g_iface, gpointer iface_data)
{
  gst_rtframe_uri_handler_init ((GstURIHandlerInterface *) g_iface,
      gst_rtframe_src_uri_get_type);
}
