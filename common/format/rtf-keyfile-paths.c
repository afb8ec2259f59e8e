/* rtframe: paths in the key files the recordings write (rtf-keyfile-paths.h) */
#include "rtf-keyfile-paths.h"

#include <string.h>

/* A location's bytes as UTF-8 text: a byte of no valid UTF-8 sequence,
 * and an ASCII control character, as "\xHH" (GKeyFile drops a value's
 * leading form feed: found by fuzz-manifest), a backslash as "\\" */
gchar *
rtf_keyfile_path_encode (const gchar * path)
{
  GString *s = g_string_new (NULL);
  const gchar *p = path, *end = path + strlen (path);

  while (p < end) {
    const gchar *valid_end;

    g_utf8_validate (p, end - p, &valid_end);
    for (; p < valid_end; p++) {
      if (*p == '\\')
        g_string_append (s, "\\\\");
      else if (g_ascii_iscntrl (*p))
        g_string_append_printf (s, "\\x%02x", (guint8) * p);
      else
        g_string_append_c (s, *p);
    }
    if (p < end)
      g_string_append_printf (s, "\\x%02x", (guint8) * p++);
  }
  return g_string_free (s, FALSE);
}

/* rtf_keyfile_path_encode() undone: NULL with *why for any other
 * escape, or a NUL byte */
gchar *
rtf_keyfile_path_decode (const gchar * text, gchar ** why)
{
  GString *s = g_string_new (NULL);
  const gchar *p;

  for (p = text; *p; p++) {
    gint hi, lo;

    if (*p != '\\') {
      g_string_append_c (s, *p);
      continue;
    }
    if (p[1] == '\\') {
      g_string_append_c (s, '\\');
      p++;
      continue;
    }
    hi = p[1] == 'x' ? g_ascii_xdigit_value (p[2]) : -1;
    lo = hi >= 0 ? g_ascii_xdigit_value (p[3]) : -1;
    if (lo < 0 || (hi == 0 && lo == 0)) {
      *why = g_strdup_printf ("a path holds \"%.4s\", neither \"\\\\\" "
          "nor a byte \"\\xHH\"", p);
      g_string_free (s, TRUE);
      return NULL;
    }
    g_string_append_c (s, (gchar) (hi << 4 | lo));
    p += 3;
  }
  return g_string_free (s, FALSE);
}

/* A raw GKeyFile list value taken apart as g_key_file_get_string_list()
 * does (an unescaped ';' ends an item; \s \n \t \r \\ \;), but on bytes,
 * and strictly: NULL with *why for any other escape */
gchar **
rtf_keyfile_split_list (const gchar * raw, gchar ** why)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_free);
  GString *item = g_string_new (NULL);
  const gchar *p;
  static const gchar from[] = "sntr\\;", to[] = " \n\t\r\\;";

  for (p = raw; *p; p++) {
    const gchar *esc;

    if (*p == ';') {
      g_ptr_array_add (items, g_strdup (item->str));
      g_string_truncate (item, 0);
    } else if (*p != '\\') {
      g_string_append_c (item, *p);
    } else if (p[1] != '\0' && (esc = strchr (from, p[1])) != NULL) {
      g_string_append_c (item, to[esc - from]);
      p++;
    } else {
      *why = g_strdup_printf ("a list holds \"\\%.1s\", no "
          "escape of a key file", p + 1);
      g_string_free (item, TRUE);
      g_ptr_array_unref (items);
      return NULL;
    }
  }
  if (item->len > 0)
    g_ptr_array_add (items, g_strdup (item->str));
  g_string_free (item, TRUE);
  g_ptr_array_add (items, NULL);
  return (gchar **) g_ptr_array_free (items, FALSE);
}
