/* rtframe tests: recording over several locations and reading it back
 * (see rtf-test-spread.h) */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <string.h>

#include "rtf-spread-manifest.h"
#include "rtf-test-spread.h"
#include "rtf-test-util.h"

gchar *
rtf_test_spread_props (gchar ** locations, const gchar * props)
{
  GString *s = g_string_new ("locations=<");
  guint i;

  for (i = 0; locations[i]; i++)
    g_string_append_printf (s, "%s\"%s\"", i ? "," : "", locations[i]);
  g_string_append_printf (s, "> %s", props ? props : "");
  return g_string_free (s, FALSE);
}

Rec *
rtf_test_spread_start (gchar ** locations, const gchar * props,
    const gchar * caps)
{
  gchar *all = rtf_test_spread_props (locations, props);
  Rec *r = rtf_test_rec_start (locations[0], all, caps);

  g_free (all);
  return r;
}

void
rtf_test_spread_push (Rec * r, guint64 from, guint64 to, guint fps)
{
  gint64 start = g_get_monotonic_time ();
  guint64 i;

  for (i = from; i < to; i++) {
    if (fps) {
      gint64 due = start + (gint64) (i - from) * G_USEC_PER_SEC / fps;
      gint64 now = g_get_monotonic_time ();

      if (due > now)
        g_usleep (due - now);
    }
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  }
}

gchar *
rtf_test_spread_manifest (const gchar * location)
{
  return rtf_spread_manifest_path (location);
}

void
rtf_test_spread_assert_whole (const gchar * manifest, gsize frame_size,
    guint64 n)
{
  gchar *out = NULL, *played = rtf_test_tmp_path ("played.raw");
  gchar *desc, *want, *why;
  GstElement *pipe;

  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify",
          manifest, NULL), 0);
  want = g_strdup_printf (" %" G_GUINT64_FORMAT " frames in frame-number "
      "order", n);
  fail_unless (strstr (out, want) != NULL, "rtframe-verify: %s", out);
  fail_unless (strstr (out, " 0 frames missing") != NULL, "%s", out);
  g_free (want);
  g_free (out);

  desc = g_strdup_printf ("rtframesrc location=%s ! filesink location=%s",
      manifest, played);
  pipe = rtf_test_play_to_eos (desc);
  rtf_test_stop_pipeline (pipe);
  why = rtf_test_check_file (played, frame_size, 0, n);
  fail_unless (why == NULL, "played back: %s", why);
  g_unlink (played);
  g_free (desc);
  g_free (played);
}

void
rtf_test_spread_assert_most (const gchar * manifest, gsize frame_size,
    guint64 n, guint64 max_lost)
{
  gchar *out = NULL, *played = rtf_test_tmp_path ("played.raw"), *desc;
  guint64 *seqs = NULL;
  GstElement *pipe;
  gint64 got;

  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify",
          "--allow-gaps", manifest, NULL), 0);
  g_free (out);
  desc = g_strdup_printf ("rtframesrc location=%s ! filesink location=%s",
      manifest, played);
  pipe = rtf_test_play_to_eos (desc);
  rtf_test_stop_pipeline (pipe);
  got = rtf_test_scan_frames (played, frame_size, 0, &seqs);
  fail_unless (got >= 0 && (guint64) got + max_lost >= n, "%" G_GINT64_FORMAT
      " frames of %" G_GUINT64_FORMAT ", at most %" G_GUINT64_FORMAT " lost",
      got, n, max_lost);
  fail_unless (got == 0 || seqs[got - 1] < n);
  g_unlink (played);
  g_free (seqs);
  g_free (desc);
  g_free (played);
}

const GstStructure *
rtf_test_spread_location (const GstStructure * stats, guint i)
{
  const GValue *list = gst_structure_get_value (stats, "locations");

  fail_unless (list != NULL && GST_VALUE_HOLDS_ARRAY (list), "no locations "
      "in %" GST_PTR_FORMAT, stats);
  fail_unless (i < gst_value_array_get_size (list));
  return gst_value_get_structure (gst_value_array_get_value (list, i));
}
