/* rtframe: what comes down rtframesink's pad besides buffers, and what it
 * is asked - caps (those it cannot record named on the bus; a frame layout
 * that must not change within a file), the allocation query (a pool of
 * memory aligned for direct I/O), the rtframe-record event (in the stream,
 * or sent to the element), a flush, and EOS, which goes on only once
 * every frame is written and the files are finished.  (Buffers:
 * gstrtframesinkrender.c.) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframesinkevents.h"
#include "gstrtframesink-private.h"
#include "gstrtframefigures.h"
#include "gstrtframememory.h"
#include "gstrtframerecord.h"
#include "gstrtframespread.h"
#include "gstrtframetasks.h"

#include <errno.h>
#include <gst/video/video.h>

#define GST_CAT_DEFAULT gst_rtframe_sink_debug

/* GstBaseSink's own methods, which these chain up to (the element's type
 * is final: its parent class is GstBaseSink's) */
static GstBaseSinkClass *
base_sink_class (void)
{
  return GST_BASE_SINK_CLASS (g_type_class_peek (GST_TYPE_BASE_SINK));
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
gboolean
gst_rtframe_sink_send_event (GstElement * element, GstEvent * event)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (element);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM
      && gst_event_has_name (event, "rtframe-record")) {
    gboolean ok = gst_rtframe_sink_record_event (self, event);

    gst_event_unref (event);
    return ok;
  }
  return GST_ELEMENT_CLASS (base_sink_class ())->send_event (element, event);
}

gboolean
gst_rtframe_sink_query (GstBaseSink * sink, GstQuery * query)
{
  gboolean ret = base_sink_class ()->query (sink, query);
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

gboolean
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
  g_mutex_lock (&self->stats_lock);
  self->frame_size = format.frame_size;
  self->frame_rate = format.fps_n > 0 && format.fps_d > 0 ?
      (gdouble) format.fps_n / format.fps_d : 0;
  g_mutex_unlock (&self->stats_lock);
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
gboolean
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

gboolean
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
  return base_sink_class ()->event (sink, event);
}
