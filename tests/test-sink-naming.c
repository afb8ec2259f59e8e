/* gst-check tests of how rtframesink names the files of a set, the way
 * splitmuxsink users expect: time fields in the pattern, the
 * format-location and format-location-full signals (their names checked
 * against the pattern, so every reader finds the files by number), and
 * split-at-running-time.  Real files in $TMPDIR, read back byte by byte
 * and through rtframesrc and rtframe-verify. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <glib/gstdio.h>
#include <string.h>

#include "rtf-pattern.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* 64x16 GRAY10_LE32: 1408 bytes, not a multiple of any block */
#define CAPS "video/x-raw,format=GRAY10_LE32,width=64,height=16,framerate=20/1"
#define FRAME 1408

/* The files of pattern in its directory, by number: path per number */
static GPtrArray *
files_of (const gchar * pattern)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  RtfPattern p;
  GDir *d;
  const gchar *name;

  fail_unless (rtf_pattern_parse (pattern, &p));
  d = g_dir_open (p.dir, 0, NULL);
  fail_unless (d != NULL);
  while ((name = g_dir_read_name (d)) != NULL) {
    guint64 n;

    if (!rtf_pattern_match (&p, name, &n))
      continue;
    if (out->len <= n)
      g_ptr_array_set_size (out, (guint) n + 1);
    fail_unless (g_ptr_array_index (out, n) == NULL, "two files numbered %"
        G_GUINT64_FORMAT, n);
    g_ptr_array_index (out, n) = g_build_filename (p.dir, name, NULL);
  }
  g_dir_close (d);
  rtf_pattern_clear (&p);
  return out;
}

/* The files of pattern, by number, the first found for each */
static GPtrArray *
files_of_allowing_twins (const gchar * pattern)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  RtfPattern p;
  GDir *d;
  const gchar *name;

  fail_unless (rtf_pattern_parse (pattern, &p));
  d = g_dir_open (p.dir, 0, NULL);
  while (d && (name = g_dir_read_name (d)) != NULL) {
    guint64 n;

    if (!rtf_pattern_match (&p, name, &n) || g_str_has_prefix (name, "u-1999"))
      continue;
    if (out->len <= n)
      g_ptr_array_set_size (out, (guint) n + 1);
    if (g_ptr_array_index (out, n) == NULL)
      g_ptr_array_index (out, n) = g_build_filename (p.dir, name, NULL);
  }
  if (d)
    g_dir_close (d);
  rtf_pattern_clear (&p);
  return out;
}

static void
push_frames (Rec * r, guint64 from, guint64 to)
{
  guint64 i;

  for (i = from; i < to; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
}

static void
push_eos (Rec * r)
{
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
}

/* rtframe-verify on location: exit 0 and `expect` in what it says */
static void
assert_verifies (const gchar * location, const gchar * expect)
{
  gchar *tool = g_build_filename (g_getenv ("RTFRAME_TOOLS_DIR"),
      "rtframe-verify", NULL);
  const gchar *argv[] = { tool, location, NULL };
  gchar *out = NULL, *err = NULL;
  gint status;

  fail_unless (g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL, &out,
          &err, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL), "%s%s", out, err);
  fail_unless (strstr (out, expect) != NULL, "%s", out);
  g_free (out);
  g_free (err);
  g_free (tool);
}

/* Frames played from location by rtframesrc: their offsets, in order */
static GArray *
played_offsets (const gchar * location)
{
  GstHarness *h = gst_harness_new ("rtframesrc");
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint64));
  GstBuffer *b = NULL;

  g_object_set (h->element, "location", location, NULL);
  gst_harness_play (h);
  while (gst_harness_pull_until_eos (h, &b) && b != NULL) {
    guint64 off = GST_BUFFER_OFFSET (b);

    g_array_append_val (out, off);
    gst_buffer_unref (b);
    b = NULL;
  }
  gst_harness_teardown (h);
  return out;
}

/* Time fields: each file named at its first frame (today's date, local
 * time); found by number by the sink's ring, rtframe-verify and
 * rtframesrc */
GST_START_TEST (test_time_fields_in_names)
{
  gchar *pattern = rtf_test_tmp_path ("t-%F-%H%M%S-%05d.raw");
  gchar *props = g_strdup_printf ("max-file-size=%u max-files=3",
      3 * FRAME);
  GDateTime *now = g_date_time_new_now_local ();
  gchar *today = g_date_time_format (now, "t-%Y-%m-%d-");
  Rec *r = rtf_test_rec_start (pattern, props, CAPS);
  GPtrArray *files;
  GArray *played;
  guint i;

  push_frames (r, 0, 12);
  push_eos (r);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  /* 4 files of 3 frames; max-files=3 deleted the first */
  files = files_of (pattern);
  fail_unless_equals_int (files->len, 4);
  fail_unless (g_ptr_array_index (files, 0) == NULL);
  for (i = 1; i < 4; i++) {
    gchar *base = g_path_get_basename (g_ptr_array_index (files, i));

    /* (a test run across midnight would see yesterday's) */
    fail_unless (g_str_has_prefix (base, today) || g_date_time_get_hour (now)
        == 23, "%s", base);
    rtf_test_assert_frames (g_ptr_array_index (files, i), FRAME, i * 3, 3);
    g_free (base);
  }
  assert_verifies (pattern, "3 files, 9 frames");
  played = played_offsets (pattern);
  fail_unless_equals_int (played->len, 9);
  for (i = 0; i < played->len; i++)
    fail_unless_equals_uint64 (g_array_index (played, guint64, i), 3 + i);
  g_array_unref (played);
  g_ptr_array_unref (files);
  g_date_time_unref (now);
  g_free (today);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

typedef struct
{
  gchar *dir;
  guint calls;
  guint64 first_pts[8];
  gboolean had_caps;
  gchar *bad;                   /* a name to give file 1 instead */
} Namer;

/* Names file n by its first frame's timestamp: the seconds of the pts in
 * %S, the rest fixed (a camera's clock, say) */
static gchar *
name_by_pts (GstElement * sink, guint id, GstSample * sample, Namer * namer)
{
  GstBuffer *b = gst_sample_get_buffer (sample);
  GstCaps *caps = gst_sample_get_caps (sample);
  guint64 pts = GST_BUFFER_PTS (b);

  fail_unless (b != NULL);
  namer->had_caps = caps != NULL && gst_caps_is_fixed (caps);
  if (id < G_N_ELEMENTS (namer->first_pts))
    namer->first_pts[id] = pts;
  namer->calls++;
  if (id == 1 && namer->bad)
    return g_strdup (namer->bad);
  return g_strdup_printf ("%s/c-2001-02-03-0405%02u-%05u.raw", namer->dir,
      (guint) (pts / GST_SECOND), id);
}

/* format-location-full: the application's names, from the first sample;
 * a name the pattern does not make for the file's number is refused and
 * the sink's own is taken */
GST_START_TEST (test_format_location_full)
{
  gchar *pattern = rtf_test_tmp_path ("c-%F-%H%M%S-%05d.raw");
  gchar *props = g_strdup_printf ("max-file-size=%u", 20 * FRAME);
  Namer namer = { 0 };
  Rec *r;
  GPtrArray *files;
  gchar *base;
  const gchar *bad[] = {
    "/elsewhere/c-2001-02-03-040506-00001.raw", /* another directory */
    "c-2001-02-03-040506-00002.raw",    /* another number */
    "c-2001-0x-03-040506-00001.raw",    /* not digits */
    "c-2001-02-03-040506-00001.raw.idx",
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (bad); k++) {
    gchar *dir = g_path_get_dirname (pattern);

    memset (&namer, 0, sizeof (namer));
    namer.dir = dir;
    namer.bad = bad[k][0] == '/' ? g_strdup (bad[k]) :
        g_build_filename (dir, bad[k], NULL);
    r = rtf_test_rec_start (pattern, props, CAPS);
    g_signal_connect (r->h->element, "format-location-full",
        G_CALLBACK (name_by_pts), &namer);
    push_frames (r, 0, 50);
    push_eos (r);
    rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
    rtf_test_rec_stop (r);
    fail_unless_equals_int (namer.calls, 3);
    fail_unless (namer.had_caps);
    fail_unless_equals_uint64 (namer.first_pts[1], 20 * GST_SECOND / 20);
    files = files_of (pattern);
    fail_unless_equals_int (files->len, 3);
    /* files 0 and 2 as asked: second 0 and second 2 of the pts */
    base = g_path_get_basename (g_ptr_array_index (files, 0));
    fail_unless_equals_string (base, "c-2001-02-03-040500-00000.raw");
    g_free (base);
    base = g_path_get_basename (g_ptr_array_index (files, 2));
    fail_unless_equals_string (base, "c-2001-02-03-040502-00002.raw");
    g_free (base);
    /* file 1's name refused: the sink's own (this year's), never the
     * name asked */
    base = g_path_get_basename (g_ptr_array_index (files, 1));
    fail_if (g_str_has_prefix (base, "c-2001-"), "%s", base);
    g_free (base);
    rtf_test_assert_frames (g_ptr_array_index (files, 1), FRAME, 20, 20);
    fail_if (g_file_test (namer.bad, G_FILE_TEST_EXISTS));
    assert_verifies (pattern, "3 files, 50 frames");
    {
      guint i;

      for (i = 0; i < files->len; i++) {
        gchar *idx = g_strconcat (g_ptr_array_index (files, i), ".idx", NULL);

        g_unlink (g_ptr_array_index (files, i));
        g_unlink (idx);
        g_free (idx);
      }
    }
    g_ptr_array_unref (files);
    g_free (namer.bad);
    g_free (dir);
  }
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

static gchar *
name_plain (GstElement * sink, guint id, Namer * namer)
{
  namer->calls++;
  return NULL;                  /* the sink's own */
}

/* format-location alone; NULL keeps the sink's name */
GST_START_TEST (test_format_location)
{
  gchar *pattern = rtf_test_tmp_path ("p-%y%m%j-%05d.raw");
  gchar *props = g_strdup_printf ("max-file-size=%u", 4 * FRAME);
  Namer namer = { 0 };
  Rec *r = rtf_test_rec_start (pattern, props, CAPS);
  GPtrArray *files;

  g_signal_connect (r->h->element, "format-location",
      G_CALLBACK (name_plain), &namer);
  push_frames (r, 0, 10);
  push_eos (r);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  fail_unless_equals_int (namer.calls, 3);
  files = files_of (pattern);
  fail_unless_equals_int (files->len, 3);
  rtf_test_assert_frames (g_ptr_array_index (files, 2), FRAME, 8, 2);
  g_ptr_array_unref (files);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

/* A file of the pattern already there at a number the recording would
 * take: refused at start, the file as it was; start-index past it
 * records beside it */
GST_START_TEST (test_time_fields_never_take_a_number_twice)
{
  gchar *pattern = rtf_test_tmp_path ("o-%F-%05d.raw");
  gchar *old = rtf_test_tmp_path ("o-1999-12-31-00001.raw");
  gchar *contents = NULL;
  gsize len;
  GPtrArray *files;
  Rec *r;

  fail_unless (g_file_set_contents (old, "an earlier take", -1, NULL));
  rtf_test_assert_start_fails ("rtframesink", pattern, NULL,
      GST_RESOURCE_ERROR_SETTINGS, "1 file of it numbered 0 or more is there "
      "already (up to 1)");
  fail_unless (g_file_get_contents (old, &contents, &len, NULL));
  fail_unless_equals_string (contents, "an earlier take");
  g_free (contents);
  r = rtf_test_rec_start (pattern, "start-index=2", CAPS);
  push_frames (r, 0, 3);
  push_eos (r);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  files = files_of (pattern);
  fail_unless_equals_int (files->len, 3);
  fail_unless_equals_string (g_ptr_array_index (files, 1), old);
  rtf_test_assert_frames (g_ptr_array_index (files, 2), FRAME, 0, 3);
  g_ptr_array_unref (files);
  g_free (old);
  g_free (pattern);
}

GST_END_TEST;

/* A file of a number the recording will reach, or at the name a handler
 * asks, that appears while it records: never replaced, never a second
 * file of that number - the recording ends there with an error (the
 * adversarial read of issue 26: a user's file at a format-location name
 * was replaced, and a twin left the whole set unreadable) */
static gchar *
name_as_user_file (GstElement * sink, guint id, GstSample * sample,
    Namer * namer)
{
  return id == 1 ? g_strdup (namer->bad) : NULL;
}

GST_START_TEST (test_time_fields_never_replace)
{
  gchar *pattern = rtf_test_tmp_path ("u-%F-%05d.raw");
  gchar *twin = rtf_test_tmp_path ("u-1999-12-31-00002.raw");
  gchar *props = g_strdup_printf ("max-file-size=%u", 2 * FRAME);
  gchar *contents = NULL;
  Namer namer = { 0 };
  Rec *r = rtf_test_rec_start (pattern, props, CAPS);
  GPtrArray *files;
  guint64 i;

  push_frames (r, 0, 2);
  fail_unless (g_file_set_contents (twin, "USER DATA", -1, NULL));
  for (i = 2; i < 8; i++)
    if (rtf_test_rec_push (r, 0, i) != GST_FLOW_OK)
      break;
  rtf_test_assert_message (r->bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, NULL);
  rtf_test_rec_stop (r);
  fail_unless (g_file_get_contents (twin, &contents, NULL, NULL));
  fail_unless_equals_string (contents, "USER DATA");
  g_free (contents);
  files = files_of_allowing_twins (pattern);
  fail_unless (files->len >= 2);
  rtf_test_assert_frames (g_ptr_array_index (files, 0), FRAME, 0, 2);
  g_ptr_array_unref (files);
  g_unlink (twin);

  /* a handler's name where a user's file is: left, the recording ends */
  namer.bad = rtf_test_tmp_path ("v-2001-01-01-00001.raw");
  g_free (pattern);
  pattern = rtf_test_tmp_path ("v-%F-%05d.raw");
  r = rtf_test_rec_start (pattern, props, CAPS);
  g_signal_connect (r->h->element, "format-location-full",
      G_CALLBACK (name_as_user_file), &namer);
  push_frames (r, 0, 2);
  fail_unless (g_file_set_contents (namer.bad, "USER DATA", -1, NULL));
  for (i = 2; i < 8; i++)
    if (rtf_test_rec_push (r, 0, i) != GST_FLOW_OK)
      break;
  rtf_test_assert_message (r->bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, NULL);
  rtf_test_rec_stop (r);
  fail_unless (g_file_get_contents (namer.bad, &contents, NULL, NULL));
  fail_unless_equals_string (contents, "USER DATA");
  g_free (contents);
  g_free (namer.bad);
  g_free (props);
  g_free (twin);
  g_free (pattern);
}

GST_END_TEST;

/* Time fields that no reader could find, and several locations */
GST_START_TEST (test_time_fields_refused)
{
  gchar *a = rtf_test_tmp_path ("a-%F.raw");
  gchar *b = rtf_test_tmp_path ("%F/b-%05d.raw");
  gchar *c = rtf_test_tmp_path ("c-%F-%05d.raw");
  gchar *d = rtf_test_tmp_path ("d-%F-%05d.raw");
  gchar *props = g_strdup_printf ("locations=<\"%s\",\"%s\">", c, d);

  rtf_test_assert_start_fails ("rtframesink", a, NULL,
      GST_RESOURCE_ERROR_SETTINGS, "time fields need the file number");
  rtf_test_assert_start_fails ("rtframesink", b, NULL,
      GST_RESOURCE_ERROR_SETTINGS, "not in a directory");
  rtf_test_assert_start_fails ("rtframesink", c, props,
      GST_RESOURCE_ERROR_SETTINGS, "not taken with several locations");
  g_free (props);
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (d);
}

GST_END_TEST;

/* split-at-running-time: each time asked starts a file at the first
 * frame at or after it (frames are 50 ms apart), in any order asked */
GST_START_TEST (test_split_at_running_time)
{
  gchar *pattern = rtf_test_tmp_path ("s-%05d.raw");
  Rec *r = rtf_test_rec_start (pattern, NULL, CAPS);
  gchar *path;

  g_signal_emit_by_name (r->h->element, "split-at-running-time",
      (guint64) (420 * GST_MSECOND));
  g_signal_emit_by_name (r->h->element, "split-at-running-time",
      (guint64) (250 * GST_MSECOND));
  push_frames (r, 0, 12);
  push_eos (r);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  path = rtf_pattern_format (pattern, 0);
  rtf_test_assert_frames (path, FRAME, 0, 5);
  g_free (path);
  path = rtf_pattern_format (pattern, 1);
  rtf_test_assert_frames (path, FRAME, 5, 4);
  g_free (path);
  path = rtf_pattern_format (pattern, 2);
  rtf_test_assert_frames (path, FRAME, 9, 3);
  g_free (path);
  path = rtf_pattern_format (pattern, 3);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
  g_free (pattern);
}

GST_END_TEST;

static Suite *
naming_suite (void)
{
  Suite *s = suite_create ("naming");
  TCase *tc = rtf_test_tcase (s, "naming");

  tcase_add_test (tc, test_time_fields_in_names);
  tcase_add_test (tc, test_format_location_full);
  tcase_add_test (tc, test_format_location);
  tcase_add_test (tc, test_time_fields_never_take_a_number_twice);
  tcase_add_test (tc, test_time_fields_refused);
  tcase_add_test (tc, test_time_fields_never_replace);
  tcase_add_test (tc, test_split_at_running_time);
  return s;
}

GST_CHECK_MAIN (naming);
