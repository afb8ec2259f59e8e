/* rtframe: a file's path in a message's structure (gstrtframepath.h) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframepath.h"

void
gst_rtframe_structure_set_path (GstStructure * s, const gchar * field,
    const gchar * path)
{
  gchar *text;

  if (path == NULL || g_utf8_validate (path, -1, NULL)) {
    gst_structure_set (s, field, G_TYPE_STRING, path, NULL);
    return;
  }
  text = g_filename_display_name (path);
  gst_structure_set (s, field, G_TYPE_STRING, text, NULL);
  g_free (text);
}
