/* rtframe: rotated file names.  The pattern comes from a user: it is
 * parsed here rather than handed to printf, so "%s" or "%n" can never read
 * or write memory. */
#include "rtf-pattern.h"

#include <string.h>

/* Parses the conversion at p (just after '%'): flags "0", a width, "l" or
 * "ll", then d, i or u.  Returns its length, or 0 when it is not one. */
static gsize
parse_conversion (const gchar * p, gboolean * zero, guint * width)
{
  const gchar *s = p;
  guint w = 0;

  *zero = FALSE;
  if (*s == '0') {
    *zero = TRUE;
    s++;
  }
  while (g_ascii_isdigit (*s)) {
    w = w * 10 + (guint) (*s - '0');
    if (w > 64)
      return 0;
    s++;
  }
  if (*s == 'l')
    s++;
  if (*s == 'l')
    s++;
  if (*s != 'd' && *s != 'i' && *s != 'u')
    return 0;
  *width = w;
  return (gsize) (s - p) + 1;
}

RtfPatternKind
rtf_pattern_check (const gchar * location, gchar ** why)
{
  const gchar *p;
  guint conversions = 0;

  for (p = location; *p; p++) {
    gboolean zero;
    guint width;
    gsize n;

    if (*p != '%')
      continue;
    if (p[1] == '%') {
      p++;
      continue;
    }
    n = parse_conversion (p + 1, &zero, &width);
    if (n == 0) {
      if (why)
        *why = g_strdup_printf ("\"%s\": only one integer conversion (%%d, "
            "%%05d, %%u) and %%%% may follow a %%", location);
      return RTF_PATTERN_INVALID;
    }
    conversions++;
    p += n;
  }
  if (conversions > 1) {
    if (why)
      *why = g_strdup_printf ("\"%s\" has %u conversions: a pattern takes one",
          location, conversions);
    return RTF_PATTERN_INVALID;
  }
  return conversions == 1 ? RTF_PATTERN_OK : RTF_PATTERN_NONE;
}

gchar *
rtf_pattern_format (const gchar * pattern, guint64 n)
{
  GString *out = g_string_sized_new (strlen (pattern) + 24);
  const gchar *p;

  for (p = pattern; *p; p++) {
    gboolean zero;
    guint width;
    gsize len;

    if (*p != '%') {
      g_string_append_c (out, *p);
      continue;
    }
    if (p[1] == '%') {
      g_string_append_c (out, '%');
      p++;
      continue;
    }
    len = parse_conversion (p + 1, &zero, &width);
    if (len == 0) {
      g_string_append_c (out, '%');
      continue;
    }
    g_string_append_printf (out, zero ? "%0*" G_GUINT64_FORMAT :
        "%*" G_GUINT64_FORMAT, (gint) width, n);
    p += len;
  }
  return g_string_free (out, FALSE);
}
