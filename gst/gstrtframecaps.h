/* rtframe: which caps rtframesink takes, and the frame size they give */
#ifndef __GST_RTFRAME_CAPS_H__
#define __GST_RTFRAME_CAPS_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean is_video;            /* video/x-raw: info is valid */
  GstVideoInfo info;
  gsize frame_size;             /* bytes of one frame, tightly packed */
  gint fps_n, fps_d;
  const gchar *name;            /* format name, static */
  gint width, height;
} GstRtFrameFormat;

/* Largest frame recorded (2 GiB): more is refused as a caps error */
#define GST_RTFRAME_MAX_FRAME_SIZE ((gsize) G_MAXINT32)

GstCaps *gst_rtframe_caps_template (void);
gboolean gst_rtframe_format_from_caps (GstRtFrameFormat * format,
    const GstCaps * caps);
/* The same; when the caps cannot be recorded, *why (g_free) says why,
 * naming the format ("video/x-raw format \"DMA_DRM\" has no frame of a
 * fixed size in GStreamer 1.26.2") */
gboolean gst_rtframe_format_from_caps_full (GstRtFrameFormat * format,
    const GstCaps * caps, gchar ** why);
/* Copies a frame's pixels without the row padding, on any GStreamer */
void gst_rtframe_copy_pixels (GstVideoFrame * dest, const GstVideoFrame * src);

G_END_DECLS

#endif /* __GST_RTFRAME_CAPS_H__ */
