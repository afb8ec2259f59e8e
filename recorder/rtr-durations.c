/* rtframe-record: times with their units (rtr-durations.h) */
#include "rtr-durations.h"

#include <math.h>

static const struct
{
  const gchar *unit;
  gdouble seconds;
} units[] = {
  {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"min", 60},
  {"h", 3600},
};

/* The number and the seconds its unit is ("" : none given) */
static gboolean
split (const gchar * text, gdouble * v, gdouble * unit, gboolean * has_unit)
{
  gchar *end = NULL;
  guint i;

  *v = g_ascii_strtod (text, &end);
  if (end == text || !isfinite (*v) || *v < 0)
    return FALSE;
  while (*end == ' ')
    end++;
  *has_unit = *end != '\0';
  if (!*has_unit) {
    *unit = 1;
    return TRUE;
  }
  for (i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_equal (end, units[i].unit)) {
      *unit = units[i].seconds;
      return TRUE;
    }
  return FALSE;
}

gboolean
rtr_duration_seconds (const gchar * text, gdouble * seconds)
{
  gdouble v, unit;
  gboolean has_unit;

  if (text == NULL || !split (text, &v, &unit, &has_unit))
    return FALSE;
  *seconds = v * unit;
  return TRUE;
}

gchar *
rtr_duration_ns_text (const gchar * text, gboolean negative_ok)
{
  gboolean negative = negative_ok && text[0] == '-';
  gdouble v, unit, ns;
  gboolean has_unit;

  if (!split (text + negative, &v, &unit, &has_unit) || !has_unit)
    return NULL;
  ns = v * unit * 1e9 + 0.5;
  if (ns >= (negative_ok ? 9.2e18 : 1.8e19) || (v > 0 && ns < 1))
    return NULL;
  return g_strdup_printf ("%s%" G_GUINT64_FORMAT, negative ? "-" : "",
      (guint64) ns);
}
