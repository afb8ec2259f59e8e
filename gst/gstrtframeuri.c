/* rtframe: URIs of recordings (gstrtframeuri.h) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframeuri.h"

#include <string.h>

const gchar *const *
gst_rtframe_uri_protocols (void)
{
  static const gchar *protocols[] = { GST_RTFRAME_URI_SCHEME, "file", NULL };

  return protocols;
}

gchar *
gst_rtframe_uri_to_location (const gchar * uri, GError ** error)
{
  gchar *scheme = uri ? gst_uri_get_protocol (uri) : NULL, *as_file, *path;
  gchar *host = NULL;
  GError *err = NULL;

  if (scheme == NULL || (g_ascii_strcasecmp (scheme, "file") != 0
          && g_ascii_strcasecmp (scheme, GST_RTFRAME_URI_SCHEME) != 0)) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_UNSUPPORTED_PROTOCOL,
        "URI \"%s\": not file:// or " GST_RTFRAME_URI_SCHEME "://",
        GST_STR_NULL (uri));
    g_free (scheme);
    return NULL;
  }
  /* rtframe:// is read as file:// is (the host, the escapes) */
  as_file = g_strconcat ("file", uri + strlen (scheme), NULL);
  g_free (scheme);
  path = g_filename_from_uri (as_file, &host, &err);
  g_free (as_file);
  /* (a file on another machine is no recording we write or read) */
  if (path && host && g_ascii_strcasecmp (host, "localhost") != 0) {
    g_set_error (&err, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "the host \"%s\" is not this machine", host);
    g_clear_pointer (&path, g_free);
  }
  g_free (host);
  if (path == NULL) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "URI \"%s\": %s (a recording's URI is " GST_RTFRAME_URI_SCHEME
        ":///absolute/path, with '%%' written %%25)", uri, err->message);
    g_error_free (err);
  }
  return path;
}

gchar *
gst_rtframe_uri_from_location (const gchar * location)
{
  gchar *file_uri, *uri;

  if (location == NULL)
    return NULL;
  /* (escapes '%' as %25, makes a relative path absolute) */
  file_uri = gst_filename_to_uri (location, NULL);
  if (file_uri == NULL)
    return NULL;
  uri = g_strconcat (GST_RTFRAME_URI_SCHEME, file_uri + strlen ("file"), NULL);
  g_free (file_uri);
  return uri;
}

/* ---- the GstURIHandler both elements share ------------------------- */

static const gchar *const *
handler_get_protocols (GType type)
{
  return gst_rtframe_uri_protocols ();
}

static gchar *
handler_get_uri (GstURIHandler * handler)
{
  gchar *location = NULL, *uri;

  g_object_get (handler, "location", &location, NULL);
  uri = gst_rtframe_uri_from_location (location);
  g_free (location);
  return uri;
}

static gboolean
handler_set_uri (GstURIHandler * handler, const gchar * uri, GError ** error)
{
  GstState state;
  gchar *location;

  GST_OBJECT_LOCK (handler);
  state = GST_STATE (handler);
  GST_OBJECT_UNLOCK (handler);
  /* (location is read at start; the sink's property refuses a change
   * once its writer is set up, with a warning, whatever the state says) */
  if (state > GST_STATE_READY) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE,
        "Changing the URI of %s once it has started is not supported",
        GST_OBJECT_NAME (handler));
    return FALSE;
  }
  location = gst_rtframe_uri_to_location (uri, error);
  if (location == NULL)
    return FALSE;
  g_object_set (handler, "location", location, NULL);
  g_free (location);
  return TRUE;
}

void
gst_rtframe_uri_handler_init (GstURIHandlerInterface * iface,
    GstURIType (*get_type) (GType type))
{
  iface->get_type = get_type;
  iface->get_protocols = handler_get_protocols;
  iface->get_uri = handler_get_uri;
  iface->set_uri = handler_set_uri;
}
