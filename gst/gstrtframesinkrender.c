/* rtframe: rtframesink's render - each buffer taken as one frame of the
 * negotiated size (a strided one repacked into the tight layout), stamped
 * with its times and what upstream says of it (its offset, a gap before
 * it, its reference timestamp), and handed to the writer, or with
 * locations to the one placed: no I/O, no allocation once warm.  What
 * becomes of a frame that finds no room (leaky) the writer decides;
 * unlock() ends a wait for room.  (Events and queries:
 * gstrtframesinkevents.c.) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframesinkrender.h"
#include "gstrtframesplits.h"
#include "gstrtframesink-private.h"
#include "gstrtframememory.h"
#include "gstrtframerecord.h"
#include "gstrtframespread.h"
#include "rtf-clock.h"

#include <string.h>
#include <gst/video/video.h>

#define GST_CAT_DEFAULT gst_rtframe_sink_debug

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

/* The reference timestamps kept, and their caps as text for the index
 * header: `caps` (NULL: not known yet) */
void
gst_rtframe_sink_reference_set (GstRtFrameSink * self, GstCaps * caps)
{
  gst_caps_replace (&self->reference_caps, caps);
  g_clear_pointer (&self->reference_text, g_ref_string_release);
  if (caps) {
    gchar *text = gst_caps_to_string (caps);

    self->reference_text = g_ref_string_new (text);
    g_free (text);
  }
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
 * it (common/frames/rtf-upstream-gap.c), its reference timestamp.  Streaming
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
    gst_rtframe_sink_reference_set (self, meta->reference);
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
    const RtfFrameOrigin * origin, RtfFrame ** frame, RtfWriter ** w,
    gint * index)
{
  if (self->spread)
    return gst_rtframe_sink_spread_offer (self, leaky, times, origin, frame, w,
        index);
  *w = self->writer;
  *index = 0;
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
    RtfWriter ** w, gint * index, GstFlowReturn * ret)
{
  for (;;) {
    RtfOffer res = offer_frame (self, leaky, times, origin, frame, w, index);

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
GstFlowReturn
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
  gboolean due;
  gint index;

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
  /* frames of a location that left go first, whether this one is written
   * or not (a recording that ended with them would otherwise wait for the
   * next to be written); a location that stalls is seen between
   * recordings too */
  if (self->spread)
    rtf_spread_watch (self->spread);
  if ((ret = redo_until_done (self)) != GST_FLOW_OK) {
    gst_buffer_unref (frame_buf);
    return ret;
  }
  /* not recording: held for pre-record, or let go */
  if (!gst_rtframe_sink_record_frame (self, frame_buf, &times, &origin,
          &flags, &ret))
    return ret;

  switch (offer_until_taken (self, leaky_of[leaky], &times, &origin, &frame,
          &w, &index, &ret)) {
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
  /* with locations: the first frame of a recording at its location */
  if (self->spread)
    flags |= gst_rtframe_sink_record_taken (self, index,
        rtf_spread_last_taken (self->spread), flags);
  frame->flags |= flags;
  /* a split asked for, or a recording's first frame (at its location):
   * a new file */
  due = gst_rtframe_sink_split_due (self, frame->times.running_time);
  due |= g_atomic_int_compare_and_exchange (&self->split_pending, 1, 0);
  due = gst_rtframe_sink_split_at (self, index, due);
  frame->split = self->rotate
      && (due || (flags & (RTF_FRAME_EVENT_START | RTF_FRAME_PART_START)));
  gst_rtframe_sink_record_committed (self, rtf_writer_commit (w, frame));
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

gboolean
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

gboolean
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
