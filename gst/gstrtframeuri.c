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
