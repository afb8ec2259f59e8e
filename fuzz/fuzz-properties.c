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
    gst_util_set_object_arg (G_OBJECT (sink), lines[i], eq + 1);
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
