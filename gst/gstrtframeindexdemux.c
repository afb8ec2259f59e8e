/* rtframe: rtframeindexdemux - plays the recording an index belongs to.
 *
 * SECTION:element-rtframeindexdemux
 * @title: rtframeindexdemux
 *
 * What decodebin (playbin, gst-play-1.0) plugs for an rtframesink index
 * ("<file>.idx", application/x-rtframe-index) or a spread's manifest
 * (".rtfspread", application/x-rtframe-spread), as the typefinders of
 * this plugin find them: the index's bytes are only looked at (its
 * header) and then let go - upstream's EOS is never passed on -, the
 * recording's files are read by an rtframesrc inside this bin, whose
 * pad is exposed as "src_0".  Seeking (by time or frame number), the
 * buffers' offsets (the recording's frame numbers), their reference
 * timestamp metas: everything rtframesrc does.
 *
 * Which file upstream reads comes from a URI query (filesrc answers it);
 * the data file is the index's name less ".idx".  Its header names the
 * recording (an id every file of it shares), the file's number and name,
 * not the set or spread it may be part of: with whole-recording (the
 * default), the spread whose manifest beside the file names that
 * recording, or the rotated set whose other files do, plays whole; else
 * the file alone.  Data pushed without a file behind it (fdsrc, a
 * network) has no recording to play: RESOURCE / NOT_FOUND, as for a data
 * file missing; bytes that are no index, STREAM / DEMUX.
 *
 * ## Example launch lines
 * |[
 * gst-play-1.0 /data/cam0-00004.raw.idx
 * gst-launch-1.0 playbin uri=file:///data/cam0.raw.idx
 * gst-launch-1.0 filesrc location=cam0.raw.idx ! rtframeindexdemux ! \
 *     videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframeindexdemux.h"

#include <string.h>

#include "gstrtframecaps.h"
#include "gstrtframesrc.h"
#include "gstrtframetypefind.h"
#include "gstrtframeuri.h"
#include "rtf-index-recording.h"

GST_DEBUG_CATEGORY_STATIC (gst_rtframe_index_demux_debug);
#define GST_CAT_DEFAULT gst_rtframe_index_demux_debug

#define DEFAULT_WHOLE_RECORDING TRUE
/* bytes of an index before its header's size is known */
#define SIZE_KNOWN_AT 16

enum
{
  PROP_0,
  PROP_WHOLE_RECORDING
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_RTFRAME_INDEX_CAPS "; " GST_RTFRAME_SPREAD_CAPS));

#define gst_rtframe_index_demux_parent_class parent_class
G_DEFINE_TYPE (GstRtFrameIndexDemux, gst_rtframe_index_demux, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE (rtframeindexdemux, "rtframeindexdemux",
    GST_RANK_SECONDARY, GST_TYPE_RTFRAME_INDEX_DEMUX);

static void gst_rtframe_index_demux_finalize (GObject * object);
static void gst_rtframe_index_demux_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_rtframe_index_demux_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static GstStateChangeReturn gst_rtframe_index_demux_change_state (GstElement *
    element, GstStateChange transition);
static GstFlowReturn gst_rtframe_index_demux_chain (GstPad * pad,
    GstObject * parent, GstBuffer * buf);
static gboolean gst_rtframe_index_demux_sink_event (GstPad * pad,
    GstObject * parent, GstEvent * event);
static gboolean gst_rtframe_index_demux_sink_query (GstPad * pad,
    GstObject * parent, GstQuery * query);

static void
gst_rtframe_index_demux_class_init (GstRtFrameIndexDemuxClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCaps *caps;

  GST_DEBUG_CATEGORY_INIT (gst_rtframe_index_demux_debug,
      "rtframeindexdemux", 0, "rtframeindexdemux: a recording by its index");

  gobject_class->finalize = gst_rtframe_index_demux_finalize;
  gobject_class->set_property = gst_rtframe_index_demux_set_property;
  gobject_class->get_property = gst_rtframe_index_demux_get_property;

  g_object_class_install_property (gobject_class, PROP_WHOLE_RECORDING,
      g_param_spec_boolean ("whole-recording", "Whole recording",
          "Play the whole recording the index's file is part of (its rotated "
          "set, or its spread, as the files' recording id proves), not the "
          "file alone", DEFAULT_WHOLE_RECORDING,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "Raw video recording index demuxer", "Codec/Demuxer",
      "Plays the rtframesink recording an index (or a spread's manifest) "
      "read from a file belongs to, through rtframesrc", "rtframe developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  caps = gst_rtframe_caps_template ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src_%u", GST_PAD_SRC, GST_PAD_SOMETIMES, caps));
  gst_caps_unref (caps);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_rtframe_index_demux_change_state);
}

static void
gst_rtframe_index_demux_init (GstRtFrameIndexDemux * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_rtframe_index_demux_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_rtframe_index_demux_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_rtframe_index_demux_sink_query));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  self->whole_recording = DEFAULT_WHOLE_RECORDING;
  self->adapter = gst_adapter_new ();
}

static void
gst_rtframe_index_demux_finalize (GObject * object)
{
  GstRtFrameIndexDemux *self = GST_RTFRAME_INDEX_DEMUX (object);

  g_object_unref (self->adapter);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_rtframe_index_demux_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRtFrameIndexDemux *self = GST_RTFRAME_INDEX_DEMUX (object);

  switch (prop_id) {
    case PROP_WHOLE_RECORDING:
      GST_OBJECT_LOCK (self);
      self->whole_recording = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_rtframe_index_demux_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRtFrameIndexDemux *self = GST_RTFRAME_INDEX_DEMUX (object);

  switch (prop_id) {
    case PROP_WHOLE_RECORDING:
      GST_OBJECT_LOCK (self);
      g_value_set_boolean (value, self->whole_recording);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* ---- the recording: an rtframesrc inside, its pad exposed ----------- */

static gboolean
start_recording (GstRtFrameIndexDemux * self, const gchar * location,
    guint64 start_index)
{
  GstElement *element = GST_ELEMENT (self);
  GstPadTemplate *templ;
  GstPad *target;

  self->src = g_object_new (GST_TYPE_RTFRAME_SRC, "location", location,
      "start-index", (guint) start_index, NULL);
  gst_bin_add (GST_BIN (self), self->src);
  target = gst_element_get_static_pad (self->src, "src");
  templ = gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self),
      "src_%u");
  self->srcpad = gst_ghost_pad_new_from_template ("src_0", target, templ);
  gst_object_unref (target);
  gst_pad_set_active (self->srcpad, TRUE);
  gst_element_add_pad (element, self->srcpad);
  gst_element_no_more_pads (element);
  /* (rtframesrc reads the recording as it starts: its errors are its
   * own, posted from inside this bin) */
  return gst_element_sync_state_with_parent (self->src);
}

/* The pad and the rtframesrc go with the stream (PAUSED -> READY): a new
 * one starts from the index again */
static void
stop_recording (GstRtFrameIndexDemux * self)
{
  if (self->src)
    gst_element_set_state (self->src, GST_STATE_NULL);
  if (self->srcpad)
    gst_element_remove_pad (GST_ELEMENT (self), self->srcpad);
  if (self->src)
    gst_bin_remove (GST_BIN (self), self->src);
  self->srcpad = NULL;
  self->src = NULL;
}

static void
reset (GstRtFrameIndexDemux * self)
{
  gst_adapter_clear (self->adapter);
  self->spread = FALSE;
  self->decided = FALSE;
}

static GstStateChangeReturn
gst_rtframe_index_demux_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRtFrameIndexDemux *self = GST_RTFRAME_INDEX_DEMUX (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    reset (self);
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  /* (the sink pad is inactive now: no chain function runs) */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    stop_recording (self);
    reset (self);
  }
  return ret;
}

/* ---- what upstream reads ---------------------------------------------- */

/* The file upstream reads (a URI query: filesrc answers it), or NULL
 * after an error */
static gchar *
upstream_path (GstRtFrameIndexDemux * self)
{
  GstQuery *query = gst_query_new_uri ();
  gchar *uri = NULL, *path = NULL;
  GError *error = NULL;

  if (gst_pad_peer_query (self->sinkpad, query))
    gst_query_parse_uri (query, &uri);
  gst_query_unref (query);
  if (uri != NULL)
    path = gst_rtframe_uri_to_location (uri, &error);
  if (path == NULL)
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Cannot find the recording of this %s: upstream does not say which "
            "file it reads%s%s.", self->spread ? "spread manifest" : "index",
            error ? ": " : "", error ? error->message : ""),
        ("the recording is found beside its index: read the index from a "
            "file (filesrc, a file:// URI), or play the recording with "
            "rtframesrc"));
  g_clear_error (&error);
  g_free (uri);
  return path;
}

/* Whether the adapter holds the index's header (or enough to say it is
 * none) */
static gboolean
header_complete (GstRtFrameIndexDemux * self)
{
  gsize have = gst_adapter_available (self->adapter);
  guint8 bytes[4];
  guint32 size;

  if (have < SIZE_KNOWN_AT)
    return FALSE;
  gst_adapter_copy (self->adapter, bytes, 12, 4);
  size = GST_READ_UINT32_LE (bytes);
  return size < RTF_INDEX_FIXED_HEADER_V1 || size > RTF_INDEX_MAX_HEADER
      || have >= size;
}

/* The index's header from the bytes upstream gave: FALSE after an error */
static gboolean
decode_header (GstRtFrameIndexDemux * self, RtfIndexHeader * h)
{
  gsize have = MIN (gst_adapter_available (self->adapter),
      RTF_INDEX_MAX_HEADER);
  const guint8 *bytes = have ? gst_adapter_map (self->adapter, have) : NULL;
  gchar *why = NULL;
  gboolean ok;

  ok = bytes && rtf_index_decode_header (bytes, have, h, &why);
  if (bytes)
    gst_adapter_unmap (self->adapter);
  if (!ok)
    GST_ELEMENT_ERROR (self, STREAM, DEMUX,
        ("Not an rtframe index that this build reads: %s.",
            why ? why : "no bytes"), (NULL));
  g_free (why);
  return ok;
}

/* What the index at path belongs to: FALSE after an error */
static gboolean
find_recording (GstRtFrameIndexDemux * self, const gchar * path,
    const RtfIndexHeader * h, RtfIndexRecording * rec)
{
  GError *error = NULL;
  gboolean whole;

  GST_OBJECT_LOCK (self);
  whole = self->whole_recording;
  GST_OBJECT_UNLOCK (self);
  if (rtf_index_recording_find (path, h, whole, rec, &error)) {
    GST_INFO_OBJECT (self, "%s: the %s %s (from file %" G_GUINT64_FORMAT
        ")", path, rtf_index_recording_kind_name (rec->kind), rec->location,
        rec->start_index);
    return TRUE;
  }
  if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Cannot play the recording of index \"%s\": %s.", path,
            error->message), (NULL));
  else
    GST_ELEMENT_ERROR (self, STREAM, DEMUX,
        ("Cannot play the recording of index \"%s\": %s.", path,
            error->message), (NULL));
  g_error_free (error);
  return FALSE;
}

static gboolean
play_index (GstRtFrameIndexDemux * self)
{
  RtfIndexHeader h;
  RtfIndexRecording rec;
  gchar *path;
  gboolean ok;

  if (!decode_header (self, &h))
    return FALSE;
  path = upstream_path (self);
  ok = path && find_recording (self, path, &h, &rec);
  rtf_index_header_clear (&h);
  g_free (path);
  if (!ok)
    return FALSE;
  if (rec.start_index > G_MAXUINT) {
    GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("The set \"%s\" begins at file "
            "number %" G_GUINT64_FORMAT ", above what rtframesrc takes.",
            rec.location, rec.start_index), (NULL));
    ok = FALSE;
  } else
    ok = start_recording (self, rec.location, rec.start_index);
  rtf_index_recording_clear (&rec);
  return ok;
}

/* A manifest is played by its name (rtframesrc tells it by its suffix) */
static gboolean
play_spread (GstRtFrameIndexDemux * self)
{
  gchar *path = upstream_path (self);
  gboolean ok;

  if (path == NULL)
    return FALSE;
  ok = rtf_spread_manifest_is_path (path);
  if (!ok)
    GST_ELEMENT_ERROR (self, STREAM, DEMUX,
        ("\"%s\" holds a spread recording's manifest, but is not named as "
            "one (...%s): play it by that name.", path,
            RTF_SPREAD_MANIFEST_SUFFIX), (NULL));
  else
    ok = start_recording (self, path, 0);
  g_free (path);
  return ok;
}

static GstFlowReturn
decide (GstRtFrameIndexDemux * self)
{
  gboolean ok;

  self->decided = TRUE;
  ok = self->spread ? play_spread (self) : play_index (self);
  gst_adapter_clear (self->adapter);
  /* (what upstream has more is not needed: it may stop) */
  return ok ? GST_FLOW_EOS : GST_FLOW_ERROR;
}

/* ---- the sink pad: the index's bytes, looked at, never passed on ---- */

static GstFlowReturn
gst_rtframe_index_demux_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buf)
{
  GstRtFrameIndexDemux *self = GST_RTFRAME_INDEX_DEMUX (parent);

  if (self->decided) {
    gst_buffer_unref (buf);
    return GST_FLOW_EOS;
  }
  gst_adapter_push (self->adapter, buf);
  if (!self->spread && !header_complete (self))
    return GST_FLOW_OK;
  return decide (self);
}

static gboolean
gst_rtframe_index_demux_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstRtFrameIndexDemux *self = GST_RTFRAME_INDEX_DEMUX (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;

      gst_event_parse_caps (event, &caps);
      self->spread = gst_structure_has_name (gst_caps_get_structure (caps,
              0), GST_RTFRAME_SPREAD_CAPS);
      break;
    }
    case GST_EVENT_EOS:
      /* an index cut short of its header: said so */
      if (!self->decided)
        decide (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      if (!self->decided)
        gst_adapter_clear (self->adapter);
      break;
    default:
      break;
  }
  /* (upstream's events are the index's: none goes downstream, where the
   * recording's own flow) */
  gst_event_unref (event);
  return TRUE;
}

static gboolean
gst_rtframe_index_demux_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
    case GST_QUERY_ACCEPT_CAPS:
      return gst_pad_query_default (pad, parent, query);
    default:
      return FALSE;
  }
}
