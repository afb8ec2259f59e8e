/* rtframe: a file's path in a message's structure, which GStreamer
 * wants as UTF-8 text while Linux allows any bytes in a name */
#ifndef __GST_RTFRAME_PATH_H__
#define __GST_RTFRAME_PATH_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Sets field of s to path as text: itself, or where it holds bytes that
 * are not UTF-8 its display form (each such byte as U+FFFD); NULL stays
 * NULL */
void gst_rtframe_structure_set_path (GstStructure * s, const gchar * field,
    const gchar * path);

G_END_DECLS
#endif /* __GST_RTFRAME_PATH_H__ */
