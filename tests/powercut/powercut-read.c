/* The power-cut test's readers at a point (powercut-read.h) */
#include "powercut-read.h"

#include <gst/app/gstappsink.h>
#include <gst/gst.h>

#include <stdio.h>
#include <string.h>

#include "powercut-run.h"
#include "rtf-spread-manifest.h"
#include "rtf-test-util.h"

#define TOOL_BOUND_S 120
#define PULL_BOUND (60 * GST_SECOND)

/* What to read: a spread's manifest (beside either location: a power cut
 * may have kept one and not the other), else each location's pattern */
static GPtrArray *
targets_of (const PcSink * k, const gchar * root)
{
  GPtrArray *t = g_ptr_array_new_with_free_func (g_free);
  guint i, n = pc_sink_n_locations (k);

  for (i = 0; n > 1 && i < n; i++) {
    gchar *loc = pc_sink_location (k, i, root);
    gchar *man = rtf_spread_manifest_path (loc);

    g_free (loc);
    if (g_file_test (man, G_FILE_TEST_IS_REGULAR)) {
      g_ptr_array_add (t, man);
      return t;
    }
    g_free (man);
  }
  for (i = 0; i < n; i++)
    g_ptr_array_add (t, pc_sink_location (k, i, root));
  return t;
}

gint
pc_read_tool (const gchar * tools, const gchar * name, const gchar * target,
    const gchar * extra, gchar ** out)
{
  gchar *path = g_build_filename (tools, name, NULL);
  const gchar *argv[] = { path, target, extra, NULL };
  gint status = pc_run_argv (argv, TOOL_BOUND_S, out);

  g_free (path);
  return status;
}

gboolean
pc_read_says_sanitizer (const gchar * text)
{
  return text && (strstr (text, "runtime error:")
      || strstr (text, "AddressSanitizer") || strstr (text, "LeakSanitizer"));
}

/* rtframe-verify's frame count, from its summary line */
static guint64
verified_frames (const gchar * out)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  guint64 frames = G_MAXUINT64;
  const gchar *at;
  guint files, i;

  if ((at = strstr (out, "spread over ")))
    sscanf (at, "spread over %u locations: %" G_GUINT64_FORMAT, &files,
        &frames);
  for (i = 0; frames == G_MAXUINT64 && lines[i]; i++)
    if (sscanf (lines[i], "%u file%*[s], %" G_GUINT64_FORMAT " frames",
            &files, &frames) != 2 && sscanf (lines[i], "%u file, %"
            G_GUINT64_FORMAT " frames", &files, &frames) != 2)
      frames = G_MAXUINT64;
  g_strfreev (lines);
  return frames;
}

static guint64
dump_rows (const gchar * out)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  guint64 n = 0;
  guint i;

  for (i = 1; lines[i]; i++)
    if (g_ascii_isdigit (lines[i][0]) && strchr (lines[i], ','))
      n++;
  g_strfreev (lines);
  return n;
}

/* The files rtframe-recover left a tail in because it was longer than a
 * killed recording leaves, after a power cut (a frame's data durable
 * before its record: --force cuts it): the line before its reason names
 * the file */
GPtrArray *
pc_read_tails_left (const gchar * out)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  gchar **lines = g_strsplit (out, "\n", -1);
  guint i;

  for (i = 1; lines[i]; i++)
    if (strstr (lines[i], "before their index records did")
        && strchr (lines[i - 1], ':'))
      g_ptr_array_add (files, g_strndup (lines[i - 1],
              strchr (lines[i - 1], ':') - lines[i - 1]));
  g_strfreev (lines);
  return files;
}

gboolean
pc_read_names_one_of (const gchar * line, GPtrArray * files)
{
  guint i;

  for (i = 0; i < files->len; i++) {
    gchar *as = g_strconcat ("FAULT ", g_ptr_array_index (files, i), ":",
        NULL);
    gboolean named = g_str_has_prefix (line, as);

    g_free (as);
    if (named)
      return TRUE;
  }
  return FALSE;
}

/* Whether every FAULT line of rtframe-verify is explained: it names one
 * of the user's files (a file at a name of the pattern that is not the
 * recording's: the tools say so, rightly, and leave it), or a file whose
 * tail rtframe-recover left for what a power cut makes it */
gboolean
pc_read_faults_explained (const PcScenario * sc, const gchar * root,
    const gchar * out, GPtrArray * tails)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  gboolean all = TRUE;
  guint i, j;

  for (i = 0; all && lines[i]; i++) {
    gboolean named = FALSE;

    if (!g_str_has_prefix (lines[i], "FAULT "))
      continue;
    if (strstr (lines[i], " bytes after the last indexed frame")
        && pc_read_names_one_of (lines[i], tails))
      continue;
    for (j = 0; j < sc->n_foreign && !named; j++) {
      gchar *path = g_build_filename (root, sc->foreign[j].path, NULL);
      gchar *as = g_strconcat ("FAULT ", path, ":", NULL);

      named = g_str_has_prefix (lines[i], as);
      g_free (as);
      g_free (path);
    }
    all = named;
  }
  g_strfreev (lines);
  return all;
}

/* What a tool said that is not a file's "OK": its faults and summary */
gchar *
pc_read_fault_lines (const gchar * out)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; lines[i]; i++)
    if (!g_str_has_suffix (lines[i], ", OK")
        && !strstr (lines[i], ": frames arrived from "))
      g_string_append_printf (s, "%s\n", lines[i]);
  g_strfreev (lines);
  return g_string_free (s, FALSE);
}

static void
run_tools (const PcScenario * sc, const PcSink * k, const gchar * root,
    const gchar * target, const gchar * tools, PcRead * r)
{
  gchar *out = NULL;
  GPtrArray *tails;
  gint code;

  code = pc_read_tool (tools, "rtframe-recover", target, NULL, &out);
  r->recover_exit = MAX (r->recover_exit, code);
  tails = pc_read_tails_left (out);
  if (code < 0 || pc_read_says_sanitizer (out))
    g_string_append_printf (r->problems, "rtframe-recover %s: exit %d:\n%s\n",
        target, code, out);
  else
    g_string_append_printf (r->notes, "rtframe-recover %s: exit %d %.600s\n",
        target, code, code ? out : "");
  g_free (out);

  code = pc_read_tool (tools, "rtframe-verify", target, "--allow-gaps", &out);
  r->verify_exit = MAX (r->verify_exit, code);
  if (code == 0 || code == 1) {
    guint64 n = verified_frames (out);

    r->verified = r->verified == G_MAXUINT64 || n == G_MAXUINT64 ?
        n : r->verified + n;
  }
  if (code < 0 || (code == 1
          && !pc_read_faults_explained (sc, root, out, tails))
      || pc_read_says_sanitizer (out)) {
    gchar *faults = pc_read_fault_lines (out);

    g_string_append_printf (r->problems, "rtframe-verify %s after "
        "rtframe-recover: exit %d:\n%.3000s\n", target, code, faults);
    g_free (faults);
  } else
    g_string_append_printf (r->notes, "rtframe-verify %s: exit %d\n", target,
        code);
  r->nothing = code == 2;
  g_ptr_array_unref (tails);
  g_free (out);

  code = pc_read_tool (tools, "rtframe-dump", target, NULL, &out);
  r->dump_exit = MAX (r->dump_exit, code);
  if (code == 0 || code == 1)
    r->dumped += dump_rows (out);
  if (code < 0 || pc_read_says_sanitizer (out))
    g_string_append_printf (r->problems, "rtframe-dump %s: exit %d:\n%.2000s\n",
        target, code, out);
  g_free (out);
}

/* "" or why the buffer is not the frame its stamp names */
static gchar *
check_buffer (const PcSink * k, GstBuffer * buf, guint8 * want, guint64 * n)
{
  GstMapInfo map;
  gchar *why = NULL;
  guint s = 0;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return g_strdup ("cannot be mapped");
  if (map.size != k->frame_size)
    why = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes, not a frame", map.size);
  else if (sscanf ((const gchar *) map.data, "S%02uF%019" G_GUINT64_FORMAT,
          &s, n) != 2 || s != k->stream)
    why = g_strdup_printf ("no stamp of stream %u (begins %02x %02x %02x "
        "%02x)", k->stream, map.data[0], map.data[1], map.data[2], map.data[3]);
  else if (*n >= k->n_frames)
    why = g_strdup_printf ("stamped %" G_GUINT64_FORMAT ", a frame never "
        "pushed", *n);
  else {
    rtf_test_fill_frame (want, k->frame_size, k->stream, *n);
    if (memcmp (want, map.data, k->frame_size) != 0) {
      gsize i = 0;

      while (want[i] == map.data[i])
        i++;
      why = g_strdup_printf ("stamped %" G_GUINT64_FORMAT " but differs at "
          "byte %" G_GSIZE_FORMAT, *n, i);
    }
  }
  gst_buffer_unmap (buf, &map);
  return why;
}

static void
play (const PcSink * k, const gchar * target, PcRead * r)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("rtframesrc", NULL);
  GstElement *sink = gst_element_factory_make ("appsink", NULL);
  guint8 *want = g_malloc (k->frame_size);
  GstBus *bus;
  GstMessage *msg;
  GstClockTime idle = 0;

  g_object_set (src, "location", target, NULL);
  g_object_set (sink, "sync", FALSE, "max-buffers", 4, NULL);
  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  gst_element_link (src, sink);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_pipeline_get_bus (GST_PIPELINE (pipeline));
  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        100 * GST_MSECOND);
    guint64 n = 0;
    gchar *why;

    if (sample == NULL) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        break;
      if ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
        r->src_error = TRUE;
        gst_message_unref (msg);
        break;
      }
      if ((idle += 100 * GST_MSECOND) > PULL_BOUND) {
        g_string_append_printf (r->problems, "rtframesrc %s: no buffer for "
            "%" G_GUINT64_FORMAT " s\n", target, PULL_BOUND / GST_SECOND);
        break;
      }
      continue;
    }
    idle = 0;
    why = check_buffer (k, gst_sample_get_buffer (sample), want, &n);
    if (why) {
      g_string_append_printf (r->problems, "rtframesrc %s: buffer %"
          G_GUINT64_FORMAT ": %s\n", target, r->n_played, why);
      g_free (why);
    } else {
      guint64 *key = g_memdup2 (&n, sizeof n);

      g_hash_table_insert (r->played, key, GUINT_TO_POINTER
          (GPOINTER_TO_UINT (g_hash_table_lookup (r->played, key)) + 1));
    }
    r->n_played++;
    gst_sample_unref (sample);
  }
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_free (want);
}

void
pc_read_sink (const PcScenario * sc, guint sink, const gchar * root,
    const gchar * tools, PcRead * r)
{
  const PcSink *k = &sc->sinks[sink];
  GPtrArray *targets = targets_of (k, root);
  gboolean nothing = TRUE;
  guint i;

  memset (r, 0, sizeof *r);
  r->played = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->problems = g_string_new (NULL);
  r->notes = g_string_new (NULL);
  for (i = 0; i < targets->len; i++) {
    const gchar *t = g_ptr_array_index (targets, i);

    run_tools (sc, k, root, t, tools, r);
    nothing = nothing && r->nothing;
    play (k, t, r);
    if (r->src_error && !r->nothing && r->verified != G_MAXUINT64
        && r->verified > 0)
      g_string_append_printf (r->problems, "rtframesrc %s: an error, on a "
          "recording rtframe-verify reads %" G_GUINT64_FORMAT " frames of\n",
          t, r->verified);
    if (r->dump_exit <= 1 && !r->src_error && r->dumped != r->n_played)
      g_string_append_printf (r->problems, "readers disagree on %s: "
          "rtframe-dump lists %" G_GUINT64_FORMAT " frames, rtframesrc "
          "played %" G_GUINT64_FORMAT "\n", t, r->dumped, r->n_played);
    if (r->verified != G_MAXUINT64 && !r->src_error
        && r->verified != r->n_played)
      g_string_append_printf (r->problems, "readers disagree on %s: "
          "rtframe-verify counts %" G_GUINT64_FORMAT " frames, rtframesrc "
          "played %" G_GUINT64_FORMAT "\n", t, r->verified, r->n_played);
  }
  r->nothing = nothing;
  g_ptr_array_unref (targets);
}

void
pc_read_clear (PcRead * r)
{
  if (r->played)
    g_hash_table_unref (r->played);
  if (r->problems)
    g_string_free (r->problems, TRUE);
  if (r->notes)
    g_string_free (r->notes, TRUE);
  memset (r, 0, sizeof *r);
}
