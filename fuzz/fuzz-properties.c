/* rtframe fuzz target: property strings from outside (gst-launch lines,
 * gst_util_set_object_arg() in applications, GObject introspection):
 * "name=value" lines set on an rtframesink, then every property read back,
 * and the CPU list parsed as the writer thread would.  Nothing may crash,
 * and a CPU list that parses names only CPUs below the limit. */
#include <gst/gst.h>
#include <stdint.h>
#include <string.h>

#include "rtf-thread.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static GstElement *sink;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  gst_init (NULL, NULL);
  sink = gst_element_factory_make ("rtframesink", NULL);
  if (sink == NULL)
    g_error ("no rtframesink: set GST_PLUGIN_PATH to the build's gst/");
  return 0;
}

static void
log_nothing (const gchar * domain, GLogLevelFlags level, const gchar * msg,
    gpointer data)
{
}

/* What gst_util_set_object_arg() does (deserialize with the GParamSpec,
 * then g_object_set_property()), except with a value outside the
 * property's range: GObject would refuse it without calling rtframesink
 * (nothing of ours runs) and log it, as a WARNING before GLib 2.75 and as
 * a CRITICAL from 2.75 on (GLib !2852, "Replace most GObject warnings with
 * criticals"), which the suite's G_DEBUG=fatal-criticals turns into
 * SIGTRAP (Debian 13, GLib 2.84: "io-depth=0").  The nearest value the
 * range allows is set instead, so the edges of every range reach
 * set_property.  (That GObject refuses such values and the property keeps
 * its value is test_out_of_range_properties in tests/test-sink-errors.c.) */
static void
set_from_string (GObject * obj, GParamSpec * p, const gchar * text)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, p->value_type);
  if (gst_value_deserialize_with_pspec (&v, text, p)) {
    g_param_value_validate (p, &v);
    g_object_set_property (obj, p->name, &v);
  }
  g_value_unset (&v);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar *text = g_strndup ((const gchar *) data, size);
  gchar **lines = g_strsplit (text, "\n", 16);
  GParamSpec **specs;
  guint i, n;
  guint handler = g_log_set_handler ("GLib-GObject", G_LOG_LEVEL_WARNING |
      G_LOG_LEVEL_CRITICAL, log_nothing, NULL);

  for (i = 0; lines[i]; i++) {
    gchar *eq = strchr (lines[i], '=');
    GParamSpec *p;
    guint64 mask;

    if (eq == NULL)
      continue;
    *eq = '\0';
    p = g_object_class_find_property (G_OBJECT_GET_CLASS (sink), lines[i]);
    if (p == NULL || !(p->flags & G_PARAM_WRITABLE)
        || g_strcmp0 (lines[i], "name") == 0
        || g_strcmp0 (lines[i], "parent") == 0)
      continue;
    set_from_string (G_OBJECT (sink), p, eq + 1);
    if (rtf_thread_parse_cpus (eq + 1, &mask, 64))
      g_assert (mask != 0);
  }
  specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (sink), &n);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;

    if (!(specs[i]->flags & G_PARAM_READABLE))
      continue;
    g_value_init (&v, specs[i]->value_type);
    g_object_get_property (G_OBJECT (sink), specs[i]->name, &v);
    g_value_unset (&v);
  }
  g_free (specs);
  g_log_remove_handler ("GLib-GObject", handler);
  g_strfreev (lines);
  g_free (text);
  return 0;
}
