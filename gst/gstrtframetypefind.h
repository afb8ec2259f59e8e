/* rtframe: typefinders for what a player may be handed instead of a
 * recording - an rtframesink index ("<file>.idx") and a spread's manifest
 * (".rtfspread") - so that decodebin plugs rtframeindexdemux for them */
#ifndef __GST_RTFRAME_TYPEFIND_H__
#define __GST_RTFRAME_TYPEFIND_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_RTFRAME_INDEX_CAPS "application/x-rtframe-index"
#define GST_RTFRAME_SPREAD_CAPS "application/x-rtframe-spread"

gboolean gst_rtframe_typefind_register (GstPlugin * plugin);

G_END_DECLS
#endif /* __GST_RTFRAME_TYPEFIND_H__ */
