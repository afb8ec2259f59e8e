/* rtframe tests: an rtframesink fed by a GstHarness, with a bus of its own */
#include "rtf-test-sink.h"

#include <gst/check/gstcheck.h>

/* rtframesink recording to `location` with `props` ("name=value ..."), a
 * bus set before the harness starts it (so start-time messages are kept),
 * and the harness's source pad sending `caps`. */
GstHarness *
rtf_test_sink_new (const gchar * location, const gchar * props,
    const gchar * caps, GstBus ** bus)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstHarness *h;

  fail_unless (sink != NULL);
  g_object_set (sink, "location", location, NULL);
  if (props) {
    gchar **kv = g_strsplit (props, " ", -1);
    guint i;

    for (i = 0; kv[i]; i++) {
      gchar **p = g_strsplit (kv[i], "=", 2);

      gst_util_set_object_arg (G_OBJECT (sink), p[0], p[1]);
      g_strfreev (p);
    }
    g_strfreev (kv);
  }
  *bus = gst_bus_new ();
  gst_element_set_bus (sink, *bus);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_object_unref (sink);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* Drops the messages still on the bus first: they hold references to the
 * element, which holds the bus. */
void
rtf_test_sink_free (GstHarness * h, GstBus * bus)
{
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}
