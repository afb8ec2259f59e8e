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

/* The width a time field writes (0: c is none) */
static guint
time_field_width (gchar c)
{
  switch (c) {
    case 'Y':
      return 4;
    case 'j':
      return 3;
    case 'F':
      return 10;
    case 'y':
    case 'm':
    case 'H':
    case 'M':
    case 'S':
      return 2;
    default:
      return 0;
  }
}

/* Whether s (width chars) is what time field c writes: digits, and the
 * dashes of %F */
static gboolean
time_field_matches (gchar c, const gchar * s)
{
  guint i, width = time_field_width (c);

  for (i = 0; i < width; i++) {
    gboolean dash = c == 'F' && (i == 4 || i == 7);

    if (dash ? s[i] != '-' : !g_ascii_isdigit (s[i]))
      return FALSE;
  }
  return TRUE;
}

RtfPatternKind
rtf_pattern_check (const gchar * location, gchar ** why)
{
  const gchar *p, *conversion = NULL, *time_field = NULL;
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
    if (p[1] != '\0' && time_field_width (p[1])) {
      if (time_field == NULL)
        time_field = p;
      p++;
      continue;
    }
    n = parse_conversion (p + 1, &zero, &width);
    if (n == 0) {
      if (why)
        *why = g_strdup_printf ("\"%s\": only one integer conversion (%%d, "
            "%%05d, %%u), time fields (%%Y %%y %%m %%j %%H %%M %%S %%F) and "
            "%%%% may follow a %%", location);
      return RTF_PATTERN_INVALID;
    }
    conversions++;
    conversion = p;
    p += n;
  }
  if (time_field && conversions == 0) {
    if (why)
      *why = g_strdup_printf ("\"%s\": time fields need the file number "
          "too (%%05d): two files begun in one second would share a name",
          location);
    return RTF_PATTERN_INVALID;
  }
  if (time_field && strchr (time_field, '/')) {
    if (why)
      *why = g_strdup_printf ("\"%s\": time fields must be in the file "
          "name, not in a directory (the files of a recording share one)",
          location);
    return RTF_PATTERN_INVALID;
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

/* Appends time field c of t (NULL: zeros) */
static void
append_time_field (GString * out, gchar c, GDateTime * t)
{
  static const gchar zeros[] = "0000-00-00";
  gchar fmt[3] = { '%', c, '\0' };
  gchar *text;

  if (t == NULL) {
    g_string_append_len (out, zeros, time_field_width (c));
    return;
  }
  text = g_date_time_format (t, fmt);
  /* (a year past 9999 or before 1000 would not fit: zeros, still found) */
  if (text == NULL || strlen (text) != time_field_width (c)
      || !time_field_matches (c, text))
    g_string_append_len (out, zeros, time_field_width (c));
  else
    g_string_append (out, text);
  g_free (text);
}

static gchar *
format_with (const gchar * pattern, guint64 n, GDateTime * t)
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
    if (p[1] != '\0' && time_field_width (p[1])) {
      append_time_field (out, p[1], t);
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

gchar *
rtf_pattern_format (const gchar * pattern, guint64 n)
{
  return format_with (pattern, n, NULL);
}

gchar *
rtf_pattern_format_at (const gchar * pattern, guint64 n, gint64 unix_us)
{
  GDateTime *t = g_date_time_new_from_unix_local (unix_us / G_USEC_PER_SEC);
  gchar *name = format_with (pattern, n, t);

  if (t)
    g_date_time_unref (t);
  return name;
}

gboolean
rtf_pattern_is_timed (const gchar * pattern)
{
  RtfPattern p;
  gboolean timed;

  if (!rtf_pattern_parse (pattern, &p))
    return FALSE;
  timed = p.timed;
  rtf_pattern_clear (&p);
  return timed;
}

/* Walks template tpl: the width of what it writes; whether s (that many
 * chars) is something it writes, when s is given */
static gboolean
template_walk (const gchar * tpl, const gchar * s, gsize * width)
{
  const gchar *p;
  gsize w = 0;

  for (p = tpl; *p; p++) {
    if (*p == '%' && p[1] != '\0' && time_field_width (p[1])) {
      if (s && !time_field_matches (p[1], s + w))
        return FALSE;
      w += time_field_width (p[1]);
      p++;
      continue;
    }
    if (s && s[w] != *p)
      return FALSE;
    w++;
    if (*p == '%' && p[1] == '%')
      p++;
  }
  *width = w;
  return TRUE;
}

static gboolean
template_is_timed (const gchar * tpl)
{
  const gchar *p;

  for (p = tpl; *p; p++) {
    if (*p != '%')
      continue;
    if (p[1] != '\0' && time_field_width (p[1]))
      return TRUE;
    if (p[1] == '%')
      p++;
  }
  return FALSE;
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
    if (p[1] == '%' || time_field_width (p[1])) {
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
  /* the file name's part before the number, as written */
  slash = NULL;
  for (p = pattern; p < conv; p++)
    if (*p == '/')
      slash = (gchar *) p;
  pat->prefix_tpl = g_strndup (slash ? slash + 1 : pattern,
      conv - (slash ? slash + 1 : pattern));
  pat->suffix_tpl = g_strdup (conv + conv_len);
  pat->timed = template_is_timed (pat->prefix_tpl)
      || template_is_timed (pat->suffix_tpl);
  return TRUE;
}

void
rtf_pattern_clear (RtfPattern * p)
{
  g_clear_pointer (&p->dir, g_free);
  g_clear_pointer (&p->prefix, g_free);
  g_clear_pointer (&p->suffix, g_free);
  g_clear_pointer (&p->prefix_tpl, g_free);
  g_clear_pointer (&p->suffix_tpl, g_free);
}

gboolean
rtf_pattern_match (const RtfPattern * p, const gchar * name, guint64 * number)
{
  gsize len = strlen (name), pre, suf;
  const gchar *digits, *end, *q;
  guint64 n = 0;
  gchar *want;
  gboolean same;

  /* (the templates' widths are fixed: time fields have one each) */
  if (!template_walk (p->prefix_tpl, NULL, &pre)
      || !template_walk (p->suffix_tpl, NULL, &suf)
      || len < pre + suf + 1 || !template_walk (p->prefix_tpl, name, &pre)
      || !template_walk (p->suffix_tpl, name + len - suf, &suf))
    return FALSE;
  digits = name + pre;
  end = name + len - suf;
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

gboolean
rtf_pattern_names (const gchar * pattern, const gchar * path, guint64 n)
{
  RtfPattern p;
  gchar *dir, *base;
  guint64 found = 0;
  gboolean names;

  if (!rtf_pattern_parse (pattern, &p))
    return FALSE;
  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  names = strcmp (dir, p.dir) == 0 && rtf_pattern_match (&p, base, &found)
      && found == n;
  g_free (base);
  g_free (dir);
  rtf_pattern_clear (&p);
  return names;
}

guint
rtf_pattern_count_from (const gchar * pattern, guint64 from, guint64 * highest)
{
  RtfPattern p;
  GDir *d;
  const gchar *name;
  guint count = 0;

  if (!rtf_pattern_parse (pattern, &p))
    return 0;
  d = g_dir_open (p.dir, 0, NULL);
  while (d && (name = g_dir_read_name (d)) != NULL) {
    guint64 n;

    if (rtf_pattern_match (&p, name, &n) && n >= from) {
      if (count == 0 || n > *highest)
        *highest = n;
      count++;
    }
  }
  if (d)
    g_dir_close (d);
  rtf_pattern_clear (&p);
  return count;
}

gboolean
rtf_pattern_has_other (const gchar * pattern, guint64 n, const gchar * path)
{
  RtfPattern p;
  GDir *d;
  const gchar *name;
  gchar *own = g_path_get_basename (path);
  gboolean other = FALSE;

  if (!rtf_pattern_parse (pattern, &p)) {
    g_free (own);
    return FALSE;
  }
  d = g_dir_open (p.dir, 0, NULL);
  while (d && !other && (name = g_dir_read_name (d)) != NULL) {
    guint64 found;

    other = rtf_pattern_match (&p, name, &found) && found == n
        && strcmp (name, own) != 0;
  }
  if (d)
    g_dir_close (d);
  rtf_pattern_clear (&p);
  g_free (own);
  return other;
}
