/* rtframe tests: recording over several locations (locations=) and
 * reading it back through its manifest */
#ifndef __RTF_TEST_SPREAD_H__
#define __RTF_TEST_SPREAD_H__

#include "rtf-test-sink.h"

G_BEGIN_DECLS

/* "locations=<"a","b"> " + props */
gchar *rtf_test_spread_props (gchar ** locations, const gchar * props);
/* A Rec (rtf-test-sink.h) recording to every location */
Rec *rtf_test_spread_start (gchar ** locations, const gchar * props,
    const gchar * caps);
/* Pushes frames from..to-1 (stamped, stream 0) at fps (0: at once); every
 * push must give GST_FLOW_OK */
void rtf_test_spread_push (Rec * r, guint64 from, guint64 to, guint fps);
/* The manifest beside location */
gchar *rtf_test_spread_manifest (const gchar * location);
/* The recording read through manifest is frames 0..n-1, byte-exact:
 * rtframe-verify says OK with n frames, and rtframesrc plays them in
 * order into a file equal to them */
void rtf_test_spread_assert_whole (const gchar * manifest, gsize frame_size,
    guint64 n);
/* The same for a recording that may miss up to max_lost frames (a disk
 * shut down before they were durable): the rest byte-exact, in order */
void rtf_test_spread_assert_most (const gchar * manifest, gsize frame_size,
    guint64 n, guint64 max_lost);
/* The "location" structure of index i in the stats' "locations" */
const GstStructure *rtf_test_spread_location (const GstStructure * stats,
    guint i);

G_END_DECLS
#endif /* __RTF_TEST_SPREAD_H__ */
