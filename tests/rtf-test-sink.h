/* rtframe tests: an rtframesink fed by a GstHarness, with a bus of its own */
#ifndef __RTF_TEST_SINK_H__
#define __RTF_TEST_SINK_H__

#include <gst/check/gstharness.h>

G_BEGIN_DECLS

GstHarness *rtf_test_sink_new (const gchar * location, const gchar * props,
    const gchar * caps, GstBus ** bus);
void rtf_test_sink_free (GstHarness * h, GstBus * bus);

G_END_DECLS

#endif
