/* rtframe: rtframeindexdemux, a recording played through its index (or a
 * spread's manifest) as handed by a file source: what decodebin plugs
 * after the typefinders of gstrtframetypefind.c */
#ifndef __GST_RTFRAME_INDEX_DEMUX_H__
#define __GST_RTFRAME_INDEX_DEMUX_H__

#include <gst/gst.h>
#include <gst/base/gstadapter.h>

G_BEGIN_DECLS

#define GST_TYPE_RTFRAME_INDEX_DEMUX (gst_rtframe_index_demux_get_type ())
G_DECLARE_FINAL_TYPE (GstRtFrameIndexDemux, gst_rtframe_index_demux, GST,
    RTFRAME_INDEX_DEMUX, GstBin);

struct _GstRtFrameIndexDemux
{
  GstBin parent;

  GstPad *sinkpad;
  /* property, under the object lock */
  gboolean whole_recording;

  /* the sink pad's streaming thread (and the state changes, with the
   * pad inactive) */
  GstAdapter *adapter;          /* the index's bytes until its header */
  gboolean spread;              /* the caps: a manifest, not an index */
  gboolean decided;             /* the recording started, or an error */
  GstElement *src;              /* the internal rtframesrc, or NULL */
  GstPad *srcpad;               /* its ghost, "src_0", or NULL */
};

GST_ELEMENT_REGISTER_DECLARE (rtframeindexdemux);

G_END_DECLS
#endif /* __GST_RTFRAME_INDEX_DEMUX_H__ */
