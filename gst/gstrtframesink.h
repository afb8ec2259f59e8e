/* rtframe: rtframesink, the recording element: its registration.  Its type
 * and what an instance holds are for the element's files alone:
 * gstrtframesink-private.h */
#ifndef __GST_RTFRAME_SINK_H__
#define __GST_RTFRAME_SINK_H__

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (rtframesink);

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_H__ */
