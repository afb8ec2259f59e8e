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
  const gchar *p, *conversion = NULL;
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
    conversion = p;
    p += n;
  }
  if (conversions > 1) {
    if (why)
      *why = g_strdup_printf ("\"%s\" has %u conversions: a pattern takes one",
          location, conversions);
    return RTF_PATTERN_INVALID;
  }
  /* the readers list one directory: the number goes in the file name */
  if (conversion && strchr (conversion, '/')) {
    if (why)
      *why = g_strdup_printf ("\"%s\": the number must be in the file name, "
          "not in a directory (the files of a recording share one)", location);
    return RTF_PATTERN_INVALID;
  }
  return conversions == 1 ? RTF_PATTERN_OK : RTF_PATTERN_NONE;
}

/* Appends the literal text of pattern [from, to) to out, %% as %. */
static void
append_literal (GString * out, const gchar * from, const gchar * to)
{
  const gchar *p;

  for (p = from; p < to; p++) {
    g_string_append_c (out, *p);
    if (*p == '%' && p + 1 < to && p[1] == '%')
      p++;
  }
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

gboolean
rtf_pattern_parse (const gchar * pattern, RtfPattern * pat)
{
  const gchar *p, *conv = NULL;
  gsize conv_len = 0;
  GString *before;
  gchar *slash;

  memset (pat, 0, sizeof (*pat));
  if (rtf_pattern_check (pattern, NULL) != RTF_PATTERN_OK)
    return FALSE;
  for (p = pattern; *p && conv == NULL; p++) {
    if (*p != '%')
      continue;
    if (p[1] == '%') {
      p++;
      continue;
    }
    conv = p;
    conv_len = parse_conversion (p + 1, &pat->zero, &pat->width) + 1;
  }
  before = g_string_new (NULL);
  append_literal (before, pattern, conv);
  slash = strrchr (before->str, '/');
  if (slash) {
    pat->dir = g_strndup (before->str, MAX (slash - before->str, 1));
    pat->prefix = g_strdup (slash + 1);
  } else {
    pat->dir = g_strdup (".");
    pat->prefix = g_strdup (before->str);
  }
  g_string_free (before, TRUE);
  before = g_string_new (NULL);
  append_literal (before, conv + conv_len, conv + strlen (conv));
  pat->suffix = g_string_free (before, FALSE);
  return TRUE;
}

void
rtf_pattern_clear (RtfPattern * p)
{
  g_clear_pointer (&p->dir, g_free);
  g_clear_pointer (&p->prefix, g_free);
  g_clear_pointer (&p->suffix, g_free);
}

gboolean
rtf_pattern_match (const RtfPattern * p, const gchar * name, guint64 * number)
{
  gsize len = strlen (name), pre = strlen (p->prefix), suf = strlen (p->suffix);
  const gchar *digits = name + pre, *end = name + len - suf, *q;
  guint64 n = 0;
  gchar *want;
  gboolean same;

  if (len < pre + suf + 1 || strncmp (name, p->prefix, pre) != 0
      || strcmp (end, p->suffix) != 0)
    return FALSE;
  /* %5d pads with spaces */
  while (digits < end && *digits == ' ' && !p->zero)
    digits++;
  if (digits == end)
    return FALSE;
  for (q = digits; q < end; q++) {
    if (!g_ascii_isdigit (*q) || n > (G_MAXUINT64 - 9) / 10)
      return FALSE;
    n = n * 10 + (guint64) (*q - '0');
  }
  /* the number as the pattern writes it: width and padding as well */
  want = g_strdup_printf (p->zero ? "%0*" G_GUINT64_FORMAT :
      "%*" G_GUINT64_FORMAT, (gint) p->width, n);
  same = (gsize) (end - (name + pre)) == strlen (want)
      && strncmp (name + pre, want, strlen (want)) == 0;
  g_free (want);
  if (same)
    *number = n;
  return same;
}
