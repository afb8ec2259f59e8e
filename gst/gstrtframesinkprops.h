/* rtframe: rtframesink's properties (gstrtframesinkprops.c): installed by
 * class_init, their defaults set by init, GObject's set_property and
 * get_property */
#ifndef __GST_RTFRAME_SINK_PROPS_H__
#define __GST_RTFRAME_SINK_PROPS_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

void gst_rtframe_sink_install_properties (GObjectClass * gobject_class);
void gst_rtframe_sink_init_properties (GstRtFrameSink * self);
void gst_rtframe_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_rtframe_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_PROPS_H__ */
