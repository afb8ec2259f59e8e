/* rtframe tools: writing one JSON document (json-out.h) */
#include "json-out.h"

#include <math.h>
#include <string.h>

void
json_out_init (JsonOut * j)
{
  memset (j, 0, sizeof (*j));
  j->text = g_string_new (NULL);
}

gchar *
json_out_finish (JsonOut * j)
{
  gchar *text;

  g_string_append_c (j->text, '\n');
  text = g_string_free (j->text, FALSE);
  j->text = NULL;
  return text;
}

/* value as a JSON string: quotes, backslashes and control characters
 * escaped, bytes that are no UTF-8 as U+FFFD */
static void
put_escaped (GString * out, const gchar * value)
{
  const gchar *p = value, *end = value + strlen (value), *bad;

  g_string_append_c (out, '"');
  while (p < end) {
    gunichar c;

    if (!g_utf8_validate (p, end - p, &bad) && bad == p) {
      g_string_append (out, "\\ufffd");
      p++;
      continue;
    }
    c = g_utf8_get_char (p);
    if (c == '"' || c == '\\')
      g_string_append_printf (out, "\\%c", (gchar) c);
    else if (c < 0x20)
      g_string_append_printf (out, "\\u%04x", c);
    else
      g_string_append_len (out, p, g_utf8_next_char (p) - p);
    p = g_utf8_next_char (p);
  }
  g_string_append_c (out, '"');
}

/* The comma before an item, and its name in an object */
static void
item (JsonOut * j, const gchar * key)
{
  if (j->depth > 0) {
    if (j->has_items[j->depth])
      g_string_append_c (j->text, ',');
    j->has_items[j->depth] = TRUE;
  }
  if (key) {
    put_escaped (j->text, key);
    g_string_append_c (j->text, ':');
  }
}

static void
open_one (JsonOut * j, const gchar * key, gchar bracket)
{
  item (j, key);
  g_string_append_c (j->text, bracket);
  g_assert (j->depth + 1 < JSON_OUT_MAX_DEPTH);
  j->depth++;
  j->has_items[j->depth] = FALSE;
}

void
json_out_begin_object (JsonOut * j, const gchar * key)
{
  open_one (j, key, '{');
}

void
json_out_end_object (JsonOut * j)
{
  j->depth--;
  g_string_append_c (j->text, '}');
}

void
json_out_begin_array (JsonOut * j, const gchar * key)
{
  open_one (j, key, '[');
}

void
json_out_end_array (JsonOut * j)
{
  j->depth--;
  g_string_append_c (j->text, ']');
}

void
json_out_string (JsonOut * j, const gchar * key, const gchar * value)
{
  item (j, key);
  if (value)
    put_escaped (j->text, value);
  else
    g_string_append (j->text, "null");
}

void
json_out_take_string (JsonOut * j, const gchar * key, gchar * value)
{
  json_out_string (j, key, value);
  g_free (value);
}

void
json_out_u64 (JsonOut * j, const gchar * key, guint64 value)
{
  item (j, key);
  g_string_append_printf (j->text, "%" G_GUINT64_FORMAT, value);
}

void
json_out_double (JsonOut * j, const gchar * key, gdouble value)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  item (j, key);
  if (isfinite (value))
    /* (7 significant digits: a time in ms to the ns, not dtostr's 17) */
    g_string_append (j->text, g_ascii_formatd (buf, sizeof buf, "%.7g",
            value));
  else
    g_string_append (j->text, "null");  /* (JSON has no inf, no NaN) */
}

void
json_out_bool (JsonOut * j, const gchar * key, gboolean value)
{
  item (j, key);
  g_string_append (j->text, value ? "true" : "false");
}
