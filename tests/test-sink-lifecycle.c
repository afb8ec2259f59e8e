/* gst-check tests of rtframesink's threads, properties and lifecycle:
 * STREAM_STATUS, properties, the caps template, start/stop cycles under
 * load, eight sinks in one pipeline.  Real files in $TMPDIR. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <fcntl.h>
#include <sched.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* ---- threads, properties, lifecycle ----------------------------------- */

GST_START_TEST (test_stream_status)
{
  gchar *path = rtf_test_tmp_path ("ss.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, rtf_test_formats[3], &bus);
  static const GstStreamStatusType want[] = { GST_STREAM_STATUS_TYPE_CREATE,
    GST_STREAM_STATUS_TYPE_ENTER, GST_STREAM_STATUS_TYPE_LEAVE,
    GST_STREAM_STATUS_TYPE_DESTROY
  };
  static const gchar *const tasks[] = { "rtframesink-writer",
    "rtframesink-reporter"
  };
  guint seen[2] = { 0, 0 };
  GstMessage *msg;
  guint t;

  gst_harness_teardown (h);
  /* for each of the element's two threads, in order */
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_STREAM_STATUS))) {
    GstStreamStatusType type;
    GstElement *owner;
    const GValue *obj = gst_message_get_stream_status_object (msg);
    gchar *name;

    gst_message_parse_stream_status (msg, &type, &owner);
    fail_unless_equals_string (GST_OBJECT_NAME (gst_element_get_factory
            (owner)), "rtframesink");
    fail_unless (G_VALUE_HOLDS (obj, GST_TYPE_TASK));
    name = gst_object_get_name (g_value_get_object (obj));
    for (t = 0; t < 2 && g_strcmp0 (name, tasks[t]) != 0; t++);
    fail_unless (t < 2, "unknown task %s", name);
    fail_unless (seen[t] < G_N_ELEMENTS (want));
    fail_unless_equals_int (type, want[seen[t]]);
    seen[t]++;
    g_free (name);
    gst_message_unref (msg);
  }
  fail_unless_equals_int (seen[0], G_N_ELEMENTS (want));
  fail_unless_equals_int (seen[1], G_N_ELEMENTS (want));
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  g_free (path);
}

GST_END_TEST;

/* With io-engine=psync and a rotated recording the writer has two helper
 * threads (pwrite, files): they are tasks announced like the writer's, and
 * they get the writer's scheduling (thread-cpus) before ENTER. */
typedef struct
{
  GMutex lock;
  GString *types[4];            /* per task: C E L D as posted */
  gboolean pinned[4];           /* at ENTER the thread ran on CPU 0 only */
} ThreadLog;

static const gchar *const all_tasks[] = { "rtframesink-writer",
  "rtframesink-reporter", "rtframesink-pwrite", "rtframesink-files"
};

static GstBusSyncReply
log_stream_status (GstBus * bus, GstMessage * msg, gpointer data)
{
  ThreadLog *log = data;
  GstStreamStatusType type;
  GstElement *owner;
  const GValue *obj;
  gchar *name;
  guint t;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_STREAM_STATUS)
    return GST_BUS_PASS;
  gst_message_parse_stream_status (msg, &type, &owner);
  obj = gst_message_get_stream_status_object (msg);
  fail_unless (G_VALUE_HOLDS (obj, GST_TYPE_TASK));
  name = gst_object_get_name (g_value_get_object (obj));
  for (t = 0; t < 4 && g_strcmp0 (name, all_tasks[t]) != 0; t++);
  fail_unless (t < 4, "unknown task %s", name);
  g_free (name);
  g_mutex_lock (&log->lock);
  g_string_append_c (log->types[t], "CELD"[type ==
          GST_STREAM_STATUS_TYPE_CREATE ? 0 : type ==
          GST_STREAM_STATUS_TYPE_ENTER ? 1 : type ==
          GST_STREAM_STATUS_TYPE_LEAVE ? 2 : 3]);
  if (type == GST_STREAM_STATUS_TYPE_ENTER) {
    cpu_set_t set;

    fail_unless (sched_getaffinity (0, sizeof (set), &set) == 0);
    log->pinned[t] = CPU_COUNT (&set) == 1 && CPU_ISSET (0, &set);
  }
  g_mutex_unlock (&log->lock);
  return GST_BUS_PASS;
}

GST_START_TEST (test_helper_threads_announced)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *pattern = rtf_test_tmp_path ("helpers-%d.raw");
  gchar *props = g_strdup_printf ("io-engine=psync thread-cpus=0 "
      "max-file-size=%" G_GSIZE_FORMAT, 2 * rtf_test_frame_size (caps));
  ThreadLog log = { 0 };
  GstBus *bus;
  GstHarness *h;
  guint i;

  g_mutex_init (&log.lock);
  for (i = 0; i < 4; i++)
    log.types[i] = g_string_new (NULL);
  h = rtf_test_sink_new_full (pattern, props, caps, log_stream_status, &log,
      &bus);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-written"), 5);
  rtf_test_sink_free (h, bus);

  for (i = 0; i < 4; i++) {
    fail_unless_equals_string (log.types[i]->str, "CELD");
    g_string_free (log.types[i], TRUE);
  }
  /* the reporter keeps the default; the writer and its helpers do not */
  fail_unless (log.pinned[0] && log.pinned[2] && log.pinned[3]);
  /* and the recording: frames 0-1, 2-3, 4 */
  for (i = 0; i < 3; i++) {
    gchar *name = g_strdup_printf ("helpers-%u.raw", i);
    gchar *file = rtf_test_tmp_path (name);
    guint64 *seqs = NULL;

    fail_unless_equals_int (rtf_test_scan_frames (file,
            rtf_test_frame_size (caps), 0, &seqs), i < 2 ? 2 : 1);
    fail_unless_equals_uint64 (seqs[0], 2 * i);
    g_free (seqs);
    g_free (file);
    g_free (name);
  }
  g_mutex_clear (&log.lock);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

/* The debug categories of the parts (issue 26: one category, the engine's
 * lines in the element's, none per frame): each part logs into its own,
 * and rtframe-writer has a LOG line for each frame handed over and each
 * written */
typedef struct
{
  GMutex lock;
  GHashTable *lines;            /* "category level" -> count */
  guint handed, written;
} DebugLog;

static void
collect_debug (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  DebugLog *d = data;
  const gchar *name = gst_debug_category_get_name (category), *text;
  gchar *key;

  if (!g_str_has_prefix (name, "rtframe"))
    return;
  text = gst_debug_message_get (message);
  /* (the level's name is padded with spaces) */
  key = g_strchomp (g_strdup_printf ("%s %s", name,
          gst_debug_level_get_name (level)));
  g_mutex_lock (&d->lock);
  g_hash_table_insert (d->lines, key, GUINT_TO_POINTER (GPOINTER_TO_UINT
          (g_hash_table_lookup (d->lines, key)) + 1));
  if (level == GST_LEVEL_LOG && g_str_equal (name, "rtframe-writer")) {
    d->handed += strstr (text, " handed over: ") != NULL;
    d->written += strstr (text, " written: ") != NULL;
  }
  g_mutex_unlock (&d->lock);
}

static guint
debug_lines (DebugLog * d, const gchar * key)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (d->lines, key));
}

GST_START_TEST (test_debug_categories_per_part)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *pattern = rtf_test_tmp_path ("dbg-%d.raw");
  gchar *props = g_strdup_printf ("max-file-size=%" G_GSIZE_FORMAT,
      2 * rtf_test_frame_size (caps));
  static const gchar *parts[] = { "rtframe-writer", "rtframe-files",
    "rtframe-space", "rtframe-spread", "rtframe-recorder"
  };
  DebugLog d = { 0 };
  GstBus *bus;
  GstHarness *h;
  guint i;

  g_mutex_init (&d.lock);
  d.lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gst_debug_set_active (TRUE);
  gst_debug_add_log_function (collect_debug, &d, NULL);
  gst_debug_set_threshold_from_string ("rtframe-*:6", FALSE);
  h = rtf_test_sink_new (pattern, props, caps, &bus);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-written"), 5);
  rtf_test_sink_free (h, bus);
  gst_debug_remove_log_function_by_data (&d);
  gst_debug_set_threshold_from_string ("rtframe-*:0", FALSE);

  for (i = 0; i < G_N_ELEMENTS (parts); i++) {
    GSList *all = gst_debug_get_all_categories (), *l;
    gboolean found = FALSE;

    for (l = all; l; l = l->next)
      found |= g_str_equal (gst_debug_category_get_name (l->data), parts[i]);
    g_slist_free (all);
    fail_unless (found, "no debug category %s", parts[i]);
  }
  fail_unless_equals_int (d.handed, 5);
  fail_unless_equals_int (d.written, 5);
  /* each part in its own: the files (three opened), the recorder (its
   * recording started and stopped), the writer's life cycle */
  fail_unless (debug_lines (&d, "rtframe-files DEBUG") >= 3);
  fail_unless (debug_lines (&d, "rtframe-recorder INFO") >= 2);
  fail_unless (debug_lines (&d, "rtframe-writer INFO") >= 1);
  g_hash_table_unref (d.lines);
  g_mutex_clear (&d.lock);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

GST_START_TEST (test_properties_locked_while_running)
{
  gchar *path = rtf_test_tmp_path ("p.raw"), *other =
      rtf_test_tmp_path ("other.raw");
  gchar *loc = NULL;
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, rtf_test_formats[3], &bus);
  guint depth = 0;

  GstMessage *msg;
  guint warnings = 0;

  g_object_set (h->element, "location", other, "io-depth", 9, NULL);
  g_object_get (h->element, "location", &loc, "io-depth", &depth, NULL);
  fail_unless_equals_string (loc, path);
  fail_unless_equals_int (depth, 4);
  g_free (loc);
  /* each refusal is a RESOURCE/SETTINGS warning on the bus, naming the
   * property and the value let go (issue 26: a GST_DEBUG line only) */
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *err = NULL;

    gst_message_parse_warning (msg, &err, NULL);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_SETTINGS), "%s", err->message);
    fail_unless (strstr (err->message, warnings ? "\"io-depth\"" :
            "\"location\"") != NULL, "%s", err->message);
    fail_unless (strstr (err->message, warnings ? "9 is ignored" :
            "other.raw") != NULL, "%s", err->message);
    warnings++;
    g_error_free (err);
    gst_message_unref (msg);
  }
  fail_unless_equals_int (warnings, 2);
  rtf_test_sink_free (h, bus);
  g_free (path);
  g_free (other);
}

GST_END_TEST;

GST_START_TEST (test_caps_template)
{
  GstElementFactory *f = gst_element_factory_find ("rtframesink");
  GstElement *sink = gst_element_factory_create (f, NULL);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);
  static const gchar *const yes[] = { "P010_10LE", "v210", "UYVP", "r210",
    "I420_10LE", "I422_10BE", "Y444_10LE", "GBR_10LE", "GBRA_10BE",
    "A420_10LE", "A444_10BE", "NV12_10LE32", "NV16_10LE32", "NV12_10LE40",
    "Y210", "Y410", "GRAY10_LE32", "RGB10A2_LE", "BGR10A2_LE"
  };
  /* every format of fixed frame size is taken (test-formats.c); these
   * are not formats GStreamer lays out, or not formats at all */
  static const gchar *const no[] = { "ENCODED", "DMA_DRM", "NOSUCH" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (yes); i++) {
    gchar *s = g_strdup_printf ("video/x-raw,format=%s,width=64,height=64,"
        "framerate=20/1", yes[i]);
    GstCaps *c = gst_caps_from_string (s);

    fail_unless (gst_caps_can_intersect (c, tmpl), "%s refused", yes[i]);
    gst_caps_unref (c);
    g_free (s);
  }
  for (i = 0; i < G_N_ELEMENTS (no); i++) {
    gchar *s = g_strdup_printf ("video/x-raw,format=%s,width=64,height=64",
        no[i]);
    GstCaps *c = gst_caps_from_string (s);

    fail_if (gst_caps_can_intersect (c, tmpl), "%s accepted", no[i]);
    gst_caps_unref (c);
    g_free (s);
  }
  /* 10-bit Bayer exists from GStreamer 1.24 on */
  {
    GstCaps *c = gst_caps_from_string ("video/x-bayer,format=bggr10le,"
        "width=64,height=64,framerate=20/1");
    guint maj, min, mic, nano;

    gst_version (&maj, &min, &mic, &nano);
    fail_unless_equals_int (gst_caps_can_intersect (c, tmpl), min >= 24);
    gst_caps_unref (c);
  }
  gst_caps_unref (tmpl);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (f);
}

GST_END_TEST;

/* Load beside the test: a CPU spinning and buffered writes to another file
 * of the same filesystem, until stop is set. */
typedef struct
{
  gint stop;
  gchar *path;
  GThread *cpu, *disk;
  guint64 spins, bytes;
} Load;

static gpointer
load_cpu (gpointer data)
{
  Load *l = data;
  volatile guint64 x = 0;

  while (!g_atomic_int_get (&l->stop))
    for (guint i = 0; i < 100000; i++)
      x += i;
  l->spins = x;
  return NULL;
}

static gpointer
load_disk (gpointer data)
{
  Load *l = data;
  guint8 *chunk = g_malloc0 (1 << 20);
  gint fd = open (l->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  while (fd >= 0 && !g_atomic_int_get (&l->stop)) {
    if (write (fd, chunk, 1 << 20) <= 0)
      break;
    l->bytes += 1 << 20;
    if (l->bytes % (64 << 20) == 0) {
      fdatasync (fd);
      ftruncate (fd, 0);
      lseek (fd, 0, SEEK_SET);
    }
  }
  if (fd >= 0)
    close (fd);
  g_free (chunk);
  return NULL;
}

static void
load_start (Load * l)
{
  l->stop = 0;
  l->path = rtf_test_tmp_path ("load.bin");
  l->cpu = g_thread_new ("load-cpu", load_cpu, l);
  l->disk = g_thread_new ("load-disk", load_disk, l);
}

static void
load_stop (Load * l)
{
  g_atomic_int_set (&l->stop, 1);
  g_thread_join (l->cpu);
  g_thread_join (l->disk);
  g_unlink (l->path);
  g_free (l->path);
}

/* 105 start/record/stop cycles while the CPU and the disk are busy with
 * other work: every file exact, no fd or thread left behind */
GST_START_TEST (test_cycles_no_leaks)
{
  const gchar *caps = rtf_test_formats[3];
  gsize fsize = rtf_test_frame_size (caps);
  gchar *path = rtf_test_tmp_path ("cyc.raw");
  guint fds = 0, threads = 0, n, i, k;
  /* valgrind runs everything ~50 times slower, on one CPU at a time: fewer
   * cycles there, and no load beside (it is there for memory errors) */
  gboolean valgrind = rtf_test_time_scale () >= 10;
  guint cycles = valgrind ? 35 : 105;
  Load load = { 0 };

  if (!valgrind)
    load_start (&load);
  for (i = 0; i < cycles; i++) {
    GstBus *bus;
    GstHarness *h;

    if (i == 5) {               /* after warm-up (thread pools, registry) */
      fds = rtf_test_count_fds ();
      threads = rtf_test_settled_threads (G_MAXUINT);
    }
    h = rtf_test_sink_new (path, NULL, caps, &bus);
    for (k = 0; k < 3; k++)
      fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                  k, INPUT_POOL)), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    rtf_test_sink_free (h, bus);
    rtf_test_assert_file (path, fsize, 0, 3);
  }
  fail_unless_equals_int (rtf_test_count_fds (), fds);
  /* GstTask threads come from GLib's shared pool and leave it a while
   * after their task ends; a thread leaked per cycle would show as 30 or
   * 100 more. */
  n = rtf_test_settled_threads (threads);
  fail_unless (n <= threads, "threads %u > %u", n, threads);
  if (!valgrind) {
    load_stop (&load);
    g_print ("cycles under load: %" G_GUINT64_FORMAT " MB written beside\n",
        load.bytes >> 20);
    fail_unless (load.bytes > 0);
  }
  g_free (path);
}

GST_END_TEST;

/* Eight recorders in one pipeline, each its own file: every file is the
 * same as filesink's from the same tee */
GST_START_TEST (test_eight_sinks_one_pipeline)
{
  GString *desc = g_string_new ("videotestsrc num-buffers=40 pattern=snow "
      "! video/x-raw,format=P010_10LE,width=320,height=240,framerate=20/1 "
      "! tee name=t ");
  gchar *ref = rtf_test_tmp_path ("ref.raw");
  gchar *paths[8];
  GstElement *pipe;
  struct stat sb;
  guint i;

  for (i = 0; i < 8; i++) {
    gchar *name = g_strdup_printf ("sink%u.raw", i);

    paths[i] = rtf_test_tmp_path (name);
    g_string_append_printf (desc, "t. ! queue ! rtframesink name=r%u "
        "location=%s ", i, paths[i]);
    g_free (name);
  }
  g_string_append_printf (desc, "t. ! queue ! filesink location=%s", ref);
  pipe = rtf_test_play_to_eos (desc->str);
  for (i = 0; i < 8; i++) {
    gchar *name = g_strdup_printf ("r%u", i);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), name);
    guint64 written;

    g_object_get (sink, "frames-written", &written, NULL);
    fail_unless_equals_uint64 (written, 40);
    gst_object_unref (sink);
    g_free (name);
  }
  rtf_test_stop_pipeline (pipe);

  fail_unless (g_stat (ref, &sb) == 0);
  fail_unless_equals_uint64 (sb.st_size, 40 * 320 * 240 * 3);
  for (i = 0; i < 8; i++) {
    rtf_test_assert_same_bytes (paths[i], ref);
    g_unlink (paths[i]);
    g_free (paths[i]);
  }
  g_unlink (ref);
  g_free (ref);
  g_string_free (desc, TRUE);
}

GST_END_TEST;

static Suite *
sink_lifecycle_suite (void)
{
  Suite *s = suite_create ("sink-lifecycle");
  TCase *tc;

  tc = rtf_test_tcase (s, "lifecycle");
  tcase_add_test (tc, test_stream_status);
  tcase_add_test (tc, test_helper_threads_announced);
  tcase_add_test (tc, test_properties_locked_while_running);
  tcase_add_test (tc, test_debug_categories_per_part);
  tcase_add_test (tc, test_caps_template);
  tcase_add_test (tc, test_cycles_no_leaks);
  tcase_add_test (tc, test_eight_sinks_one_pipeline);
  return s;
}

GST_CHECK_MAIN (sink_lifecycle);
