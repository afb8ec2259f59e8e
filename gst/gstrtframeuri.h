/* rtframe: URIs of recordings, for the GstURIHandler of rtframesink and
 * rtframesrc - file:// as filesink and filesrc take it, and rtframe://,
 * the scheme of our own that names a recording (a file, a set's pattern,
 * a spread's manifest) so that gst_element_make_from_uri(), playbin and
 * gst-play-1.0 pick our elements: rtframe:///data/cam0-%2505d.raw is the
 * set /data/cam0-%05d.raw (a URI's '%' is written %25, as in any URI) */
#ifndef __GST_RTFRAME_URI_H__
#define __GST_RTFRAME_URI_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_RTFRAME_URI_SCHEME "rtframe"

/* The schemes both elements take */
const gchar *const *gst_rtframe_uri_protocols (void);
/* The location a file:// or rtframe:// URI names (absolute, unescaped);
 * NULL with *error (GST_URI_ERROR_BAD_URI: another scheme, a host other
 * than localhost, a relative path, a query or fragment) */
gchar *gst_rtframe_uri_to_location (const gchar * uri, GError ** error);
/* The rtframe:// URI of a location (a relative one taken from the current
 * directory), or NULL for NULL */
gchar *gst_rtframe_uri_from_location (const gchar * location);
/* The URI handler of an element with a "location" property: these
 * protocols, its URI from location, and a new one set as location while
 * it is not started (GST_URI_ERROR_BAD_STATE after); get_type says
 * whether it is a source or a sink */
void gst_rtframe_uri_handler_init (GstURIHandlerInterface * iface,
    GstURIType (*get_type) (GType type));

G_END_DECLS
#endif
