/* Issue 23's hostile readings: what the readers (rtframe-verify,
 * rtframe-recover, rtframe-dump, rtframesrc) are given that was made to
 * break them - a manifest naming itself, a FIFO or a link at a manifest's
 * name, a manifest of a gigabyte or naming one recording thousands of
 * times, a sparse index claiming billions of records - and what a user's
 * recording goes through: a disk of a spread dead or not mounted, a
 * recording moved or made with relative locations, a path that is not
 * UTF-8, a file missing in the middle of a set, a crash of a spread.
 *
 * Each reader is run as the user runs it: the tools as processes, each
 * under a time limit (SIGALRM) and, outside AddressSanitizer, an address
 * space limit, their peak RSS measured (wait4); rtframesrc in a pipeline
 * of this process, its frames compared byte for byte with the stamped
 * frames recorded (rtf_test_fill_frame()).  Recordings are made through
 * rtframesink where that is how the situation arises, by hand where the
 * input is hostile. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtf-file-mark.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-recording.h"
#include "rtf-spread-manifest.h"
#include "rtf-test-index.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

#define CAPS "video/x-raw,format=GRAY10_LE32,width=64,height=16,framerate=20/1"
#define FRAME 1408
#define ID_HEX "0123456789abcdef0123456789abcdef"

static const gchar *self_exe;

/* ---- running a reader, bounded ---------------------------------------- */

typedef struct
{
  gint status;                  /* exit status, or -signal */
  glong max_rss_kb;             /* its peak resident memory */
  gdouble seconds;
  gchar *out;                   /* stdout and stderr */
} Run;

typedef struct
{
  guint timeout_s;
  guint64 as_bytes;
} Limits;

/* In the child, before exec: stderr to the pipe, the limits set (an
 * alarm survives exec: SIGALRM ends a reader that hangs) */
static void
child_limits (gpointer data)
{
  const Limits *l = data;

  dup2 (1, 2);
  if (l->as_bytes) {
    struct rlimit rl = { l->as_bytes, l->as_bytes };

    setrlimit (RLIMIT_AS, &rl);
  }
  alarm (l->timeout_s);
}

/* Runs prog (a tool of the build, or a program in PATH) with the
 * arguments that follow, at most timeout_s seconds (scaled under
 * valgrind) and as_mb MiB of address space (0: no limit; none under
 * AddressSanitizer, which reserves terabytes) */
static gint
run_bounded (Run * r, guint timeout_s, guint64 as_mb, const gchar * prog, ...)
{
  const gchar *dir = g_getenv ("RTFRAME_TOOLS_DIR");
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  GString *out = g_string_new (NULL);
  Limits limits = { timeout_s * rtf_test_time_scale (), as_mb << 20 };
  const gchar *arg;
  struct rusage ru;
  gint64 start;
  gint fd, status;
  gchar buf[4096], *line;
  gssize got;
  GPid pid;
  va_list args;

#ifdef __SANITIZE_ADDRESS__
  limits.as_bytes = 0;
#endif
  fail_unless (dir != NULL);
  g_ptr_array_add (argv, g_str_has_prefix (prog, "rtframe-") ?
      g_build_filename (dir, prog, NULL) : g_find_program_in_path (prog));
  fail_unless (g_ptr_array_index (argv, 0) != NULL, "no %s", prog);
  va_start (args, prog);
  while ((arg = va_arg (args, const gchar *)) != NULL)
      g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (argv, NULL);
  start = g_get_monotonic_time ();
  fail_unless (g_spawn_async_with_pipes (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, child_limits, &limits, &pid, NULL, &fd,
          NULL, NULL));
  while ((got = read (fd, buf, sizeof (buf))) > 0 || (got < 0
          && errno == EINTR))
    if (got > 0 && out->len < (1 << 20))
      g_string_append_len (out, buf, got);
  close (fd);
  fail_unless (wait4 (pid, &status, 0, &ru) == pid);
  r->seconds = (g_get_monotonic_time () - start) / 1e6;
  r->max_rss_kb = ru.ru_maxrss;
  r->status = WIFEXITED (status) ? WEXITSTATUS (status) : -WTERMSIG (status);
  r->out = g_string_free (out, FALSE);
  line = g_strjoinv (" ", (gchar **) argv->pdata + 1);
  g_print ("$ %s %s\n%s[exit %d, %.2f s, max RSS %ld KB]\n", prog, line,
      r->out, r->status, r->seconds, r->max_rss_kb);
  g_free (line);
  g_ptr_array_unref (argv);
  return r->status;
}

static void
run_clear (Run * r)
{
  g_clear_pointer (&r->out, g_free);
}

/* prog ended by itself with status (no signal, no hang), saying `says` */
static void
assert_run (Run * r, gint status, const gchar * says)
{
  fail_unless (r->status >= 0, "killed by signal %d (%s): %s", -r->status,
      r->status == -SIGALRM ? "it hung" : g_strsignal (-r->status), r->out);
  fail_unless_equals_int (r->status, status);
  if (says)
    fail_unless (strstr (r->out, says) != NULL, "'%s' not in: %s", says,
        r->out);
}

/* Every command-line reader refuses location (exit 2) saying `says`,
 * promptly */
static void
assert_tools_refuse (const gchar * location, const gchar * says)
{
  const gchar *tools[] = { "rtframe-verify", "rtframe-recover",
    "rtframe-dump"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (tools); i++) {
    Run r = { 0 };

    run_bounded (&r, 10, 512, tools[i], location, NULL);
    assert_run (&r, 2, says);
    run_clear (&r);
  }
}

/* ---- playing with rtframesrc, in this process ------------------------- */

typedef struct
{
  gchar *error;                 /* the error it posted, or NULL */
  GString *warnings;            /* every warning, text and detail */
  gint64 frames;                /* whole stamped frames played, -1: a
                                 * frame was wrong */
  guint64 *seqs;                /* their numbers */
} Played;

static void
played_clear (Played * p)
{
  g_free (p->error);
  g_string_free (p->warnings, TRUE);
  g_free (p->seqs);
}

/* Plays location (set as a property: any bytes) into a file, until EOS or
 * an error, and reads back the frames played */
static void
play (const gchar * location, Played * p)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("rtframesrc", NULL);
  GstElement *sink = gst_element_factory_make ("filesink", NULL);
  gchar *out = rtf_test_tmp_path ("played.raw");
  GstBus *bus = gst_element_get_bus (pipe);
  gboolean done = FALSE;

  memset (p, 0, sizeof (*p));
  p->warnings = g_string_new (NULL);
  g_object_set (src, "location", location, NULL);
  g_object_set (sink, "location", out, NULL);
  gst_bin_add_many (GST_BIN (pipe), src, sink, NULL);
  fail_unless (gst_element_link (src, sink));
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus,
        30 * GST_SECOND * rtf_test_time_scale (), GST_MESSAGE_EOS |
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *err = NULL;
    gchar *dbg = NULL;

    fail_unless (msg != NULL, "%s: no EOS nor error in 30 s", location);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &err, &dbg);
      g_string_append_printf (p->warnings, "%s (%s)\n", err->message, dbg);
      g_print ("  WARNING: %s\n", err->message);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, &dbg);
      p->error = g_strdup (err->message);
      g_print ("  ERROR: %s\n", err->message);
      done = TRUE;
    } else {
      done = TRUE;
    }
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (msg);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  p->frames = p->error ? 0 : rtf_test_scan_frames (out, FRAME, 0, &p->seqs);
  g_unlink (out);
  g_free (out);
}

/* rtframesrc fails to start on location, posting an error saying `says` */
static void
assert_src_refuses (const gchar * location, const gchar * says)
{
  Played p;

  play (location, &p);
  fail_unless (p.error != NULL, "rtframesrc played %s", location);
  fail_unless (strstr (p.error, says) != NULL, "'%s' not in '%s'", says,
      p.error);
  played_clear (&p);
}

/* The frames played are exactly `want` (n numbers), byte-exact */
static void
assert_played (const Played * p, const guint64 * want, guint n)
{
  guint i;

  fail_unless (p->error == NULL, "%s", p->error);
  fail_unless_equals_int64 (p->frames, n);
  for (i = 0; i < n; i++)
    fail_unless_equals_uint64 (p->seqs[i], want[i]);
}

/* ---- recordings ------------------------------------------------------- */

/* An rtframesink recording to locs */
static GstElement *
spread_sink (gchar ** locs)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GValue arr = G_VALUE_INIT;
  guint i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  for (i = 0; locs[i]; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_STRING);
    g_value_set_string (&v, locs[i]);
    gst_value_array_append_and_take_value (&arr, &v);
  }
  /* (set as values: a location may hold any bytes) */
  g_object_set_property (G_OBJECT (sink), "locations", &arr);
  g_value_unset (&arr);
  g_object_set (sink, "location", locs[0], NULL);
  return sink;
}

/* A recording spread over locs by rtframesink (round robin, so each
 * location holds every other frame), `props` pairs of name, value after */
static Rec *
spread_start (gchar ** locs, const gchar * first, ...)
{
  GstElement *sink = spread_sink (locs);
  Rec *r = g_new0 (Rec, 1);
  const gchar *name;
  va_list args;

  gst_util_set_object_arg (G_OBJECT (sink), "placement", "round-robin");
  /* a location is never left for a slow write (valgrind): the frames
   * alternate, whatever the timing */
  gst_util_set_object_arg (G_OBJECT (sink), "location-timeout", "0");
  va_start (args, first);
  for (name = first; name; name = va_arg (args, const gchar *))
      gst_util_set_object_arg (G_OBJECT (sink), name, va_arg (args,
            const gchar *));
  va_end (args);
  r->bus = gst_bus_new ();
  gst_element_set_bus (sink, r->bus);
  r->h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_object_unref (sink);
  gst_harness_set_src_caps_str (r->h, CAPS);
  r->frame_size = FRAME;
  r->location = g_strdup (locs[0]);
  return r;
}

/* Frames 0..n-1 pushed, EOS; no error, no warning */
static void
spread_finish (Rec * r, guint64 n)
{
  guint64 i;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_WARNING);
  rtf_test_rec_stop (r);
}

/* Two locations "<dir>/a/<name>" and "<dir>/b/<name>" in the test's
 * directory, made */
static gchar **
two_locations (const gchar * name)
{
  gchar **v = g_new0 (gchar *, 3);
  guint i;

  for (i = 0; i < 2; i++) {
    gchar *dir = rtf_test_tmp_path (i ? "b" : "a");

    g_mkdir (dir, 0755);
    v[i] = g_build_filename (dir, name, NULL);
    g_free (dir);
  }
  return v;
}

/* n frames spread over two locations, files of 4 frames */
static gchar **
record_two (const gchar * name, guint64 n)
{
  gchar **locs = two_locations (name);

  spread_finish (spread_start (locs, "max-file-size", "5632", NULL), n);
  return locs;
}

static void
write_text (const gchar * path, const gchar * text)
{
  GError *error = NULL;

  fail_unless (g_file_set_contents (path, text, -1, &error), "%s",
      error ? error->message : "");
}

/* A manifest of version 1 (as the sink wrote before issue 23) at path,
 * naming recording `hex` (NULL: one made up) */
static void
write_manifest_v1 (const gchar * path, const gchar * hex,
    const gchar * locations)
{
  gchar *text = g_strdup_printf ("[rtframe-spread]\nrecording-id=%s\n"
      "start-index=0\nlocations=%s\n", hex ? hex : ID_HEX, locations);

  write_text (path, text);
  g_free (text);
}

/* The recording id the sink wrote in the manifest beside location */
static gchar *
recording_hex (const gchar * location)
{
  gchar *path = rtf_spread_manifest_path (location), *why = NULL, *hex;
  RtfSpreadManifest m;

  fail_unless (rtf_spread_manifest_read (path, &m, &why), "%s", why);
  hex = rtf_recording_id_to_string (&m.id);
  rtf_spread_manifest_clear (&m);
  g_free (path);
  return hex;
}

/* The numbers 0, step, 2 step, ... below n (the frames one location of a
 * round robin holds), in *count */
static guint64 *
every (guint64 from, guint64 step, guint64 n, guint * count)
{
  guint64 *v = g_new (guint64, n), k;

  *count = 0;
  for (k = from; k < n; k += step)
    v[(*count)++] = k;
  return v;
}


/* The peak RSS a reader may reach on any of these inputs: what it needs
 * for a few small files (AddressSanitizer's shadow memory adds its own) */
#ifdef __SANITIZE_ADDRESS__
#define MAX_RSS_KB (256 * 1024)
#else
#define MAX_RSS_KB (64 * 1024)
#endif

/* r stayed under MAX_RSS_KB.  Not asserted under valgrind (a time scale
 * above 1): the peak a child reaches counts the copy of this process it
 * was forked as before exec, which is valgrind's, ~80 MB; the address
 * space limit still holds there. */
static void
assert_small (const Run * r)
{
  if (rtf_test_time_scale () == 1)
    fail_unless (r->max_rss_kb < MAX_RSS_KB, "peak RSS %ld KB", r->max_rss_kb);
}

/* ---- 6: a manifest names recordings, never manifests ------------------ */

/* A manifest naming itself, two naming each other, one whose relative
 * location is itself: every reader refuses it at once (it recursed until
 * the stack ran out: SIGSEGV) */
GST_START_TEST (test_manifest_naming_itself_refused)
{
  gchar *self = rtf_test_tmp_path ("self.raw.rtfspread");
  gchar *a = rtf_test_tmp_path ("a.raw.rtfspread");
  gchar *b = rtf_test_tmp_path ("b.raw.rtfspread");
  gchar *rel = rtf_test_tmp_path ("rel.raw.rtfspread"), *list;
  const gchar *says = "a manifest names recordings, never manifests";

  list = g_strconcat (self, ";", NULL);
  write_manifest_v1 (self, NULL, list);
  g_free (list);
  assert_tools_refuse (self, says);
  assert_src_refuses (self, says);

  list = g_strconcat (b, ";", NULL);
  write_manifest_v1 (a, NULL, list);
  g_free (list);
  list = g_strconcat (a, ";", NULL);
  write_manifest_v1 (b, NULL, list);
  g_free (list);
  assert_tools_refuse (a, says);
  assert_src_refuses (b, says);

  write_text (rel, "[rtframe-spread]\nversion=2\nrecording-id=" ID_HEX
      "\nstart-index=0\nlocations=/nowhere/x.raw;\n"
      "relative-locations=rel.raw.rtfspread;\n");
  assert_tools_refuse (rel, says);
  g_free (self);
  g_free (a);
  g_free (b);
  g_free (rel);
}

GST_END_TEST;

/* A location that is a manifest under another name (a plain file holding
 * one) is no recording: not read, said */
GST_START_TEST (test_location_holding_a_manifest_not_read)
{
  gchar *m = rtf_test_tmp_path ("m.raw.rtfspread");
  gchar *other = rtf_test_tmp_path ("notes.raw"), *list;

  list = g_strconcat (other, ";", NULL);
  write_manifest_v1 (m, NULL, list);
  write_manifest_v1 (other, NULL, list);
  assert_tools_refuse (m, "a manifest, not a recording");
  g_free (list);
  g_free (m);
  g_free (other);
}

GST_END_TEST;

/* ---- 7: a FIFO, a link at a manifest's name ---------------------------- */

/* Watches a FIFO from another thread: after a second, whoever opens it
 * for reading is seen, and let go (a writer end opened and closed), so a
 * reader that blocks there is not left hanging, but hangs a second */
typedef struct
{
  const gchar *path;
  gint stop, opened;
  GThread *thread;
} FifoWatch;

static gpointer
fifo_watch_run (gpointer data)
{
  FifoWatch *w = data;
  gint64 start = g_get_monotonic_time ();

  while (!g_atomic_int_get (&w->stop)) {
    if (g_get_monotonic_time () - start < G_USEC_PER_SEC) {
      g_usleep (20 * 1000);
      continue;
    }
    gint fd = open (w->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd >= 0) {              /* (ENXIO while no one reads) */
      g_atomic_int_set (&w->opened, 1);
      close (fd);
    }
    g_usleep (20 * 1000);
  }
  return NULL;
}

static void
fifo_watch_start (FifoWatch * w, const gchar * path)
{
  memset (w, 0, sizeof (*w));
  w->path = path;
  fail_unless (mkfifo (path, 0644) == 0);
  w->thread = g_thread_new ("fifo-watch", fifo_watch_run, w);
}

/* Whether anyone opened the FIFO; it is still one, untouched */
static gboolean
fifo_watch_stop (FifoWatch * w)
{
  struct stat st;

  g_atomic_int_set (&w->stop, 1);
  g_thread_join (w->thread);
  fail_unless (lstat (w->path, &st) == 0 && S_ISFIFO (st.st_mode));
  return g_atomic_int_get (&w->opened);
}

/* A FIFO at a manifest's name: the readers say so and never open it (an
 * open for reading blocks until a writer comes: they hung) */
GST_START_TEST (test_manifest_fifo_not_opened)
{
  gchar *m = rtf_test_tmp_path ("f.raw.rtfspread");
  FifoWatch w;

  fail_unless (mkfifo (m, 0644) == 0);
  assert_tools_refuse (m, "is a FIFO");
  g_unlink (m);
  fifo_watch_start (&w, m);
  assert_src_refuses (m, "is a FIFO");
  fail_if (fifo_watch_stop (&w), "rtframesrc opened the FIFO");
  g_free (m);
}

GST_END_TEST;

/* A FIFO at the name of a location's manifest: the sink starts at once,
 * leaves it as it is with a warning, and records; the other manifest
 * reads the recording (its start opened the FIFO with GKeyFile and hung
 * until someone wrote to it) */
GST_START_TEST (test_sink_start_not_blocked_by_fifo_manifest)
{
  gchar **locs = two_locations ("f-%05d.raw");
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *m1 = rtf_spread_manifest_path (locs[1]);
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;
  FifoWatch w;
  Rec *r;
  guint64 i;
  Run run = { 0 };
  gint64 start;

  fifo_watch_start (&w, m1);
  start = g_get_monotonic_time ();
  r = spread_start (locs, NULL);
  g_print ("  the sink started in %.3f s\n", (g_get_monotonic_time () -
          start) / 1e6);
  fail_if (fifo_watch_stop (&w), "rtframesink opened the FIFO at the "
      "manifest's name: its start blocked until this test opened the other "
      "end");
  for (i = 0; i < 10; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  msg = gst_bus_pop_filtered (r->bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning about the FIFO");
  gst_message_parse_warning (msg, &err, &dbg);
  g_print ("  WARNING: %s (%s)\n", err->message, dbg);
  fail_unless (strstr (err->message, "Could not write the manifest") != NULL);
  fail_unless (strstr (dbg, "is a FIFO") != NULL, "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  run_bounded (&run, 20, 0, "rtframe-verify", m0, NULL);
  assert_run (&run, 0, " 10 frames in frame-number order");
  run_clear (&run);
  g_free (m0);
  g_free (m1);
  g_strfreev (locs);
}

GST_END_TEST;

/* A symbolic link to a manifest is not followed (the rule for every file
 * a reader opens); the manifest itself reads */
GST_START_TEST (test_manifest_link_not_followed)
{
  gchar **locs = record_two ("l-%05d.raw", 8);
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *link = rtf_test_tmp_path ("link.raw.rtfspread");
  Run r = { 0 };

  fail_unless (symlink (m0, link) == 0);
  assert_tools_refuse (link, "is a symbolic link");
  assert_src_refuses (link, "is a symbolic link");
  run_bounded (&r, 20, 0, "rtframe-verify", m0, NULL);
  assert_run (&r, 0, " 8 frames in frame-number order");
  run_clear (&r);
  g_free (link);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* ---- 8: bounded manifests, no location twice --------------------------- */

/* A sparse manifest of 1 GiB without a newline: refused by its size,
 * before a byte is read (it was read whole: 1 GB of memory) */
GST_START_TEST (test_manifest_size_bounded)
{
  gchar *m = rtf_test_tmp_path ("big.raw.rtfspread");
  const gchar head[] = "[rtframe-spread]\nlocations=/x";
  const gchar *tools[] = { "rtframe-verify", "rtframe-recover",
    "rtframe-dump"
  };
  gint fd = open (m, O_WRONLY | O_CREAT | O_EXCL, 0644);
  guint i;

  fail_unless (fd >= 0);
  fail_unless (write (fd, head, strlen (head)) == (gssize) strlen (head));
  fail_unless (ftruncate (fd, (off_t) 1 << 30) == 0);
  close (fd);
  for (i = 0; i < G_N_ELEMENTS (tools); i++) {
    Run r = { 0 };

    run_bounded (&r, 10, 256, tools[i], m, NULL);
    assert_run (&r, 2, "a manifest is at most 65536 bytes (64 KiB)");
    assert_small (&r);
    run_clear (&r);
  }
  assert_src_refuses (m, "a manifest is at most 65536 bytes");
  g_free (m);
}

GST_END_TEST;

/* A manifest naming one location twice, by the same string or as the
 * same place under other names, is refused: each frame would be read
 * twice (a 128 KB manifest naming one recording 4000 times made verify
 * open it 4000 times and print OK) */
GST_START_TEST (test_manifest_duplicate_locations_refused)
{
  gchar **locs = record_two ("d-%05d.raw", 8);
  gchar *m = rtf_test_tmp_path ("dup.raw.rtfspread");
  gchar *dir = rtf_test_tmp_path ("a"), *linked = rtf_test_tmp_path ("c");
  gchar *list, *dotdot, *via_link;
  GString *many = g_string_new (NULL);
  gchar *hex = recording_hex (locs[0]);
  Run r = { 0 };
  guint i;

  for (i = 0; i < 4000; i++)
    g_string_append_printf (many, "%s;", locs[0]);
  write_manifest_v1 (m, hex, many->str);
  run_bounded (&r, 5, 256, "rtframe-verify", m, NULL);
  assert_run (&r, 2, "a manifest is at most 65536 bytes");
  fail_unless (r.seconds < 2.0 * rtf_test_time_scale ());
  assert_small (&r);
  run_clear (&r);

  list = g_strdup_printf ("%s;%s;", locs[0], locs[0]);
  write_manifest_v1 (m, hex, list);
  assert_tools_refuse (m, "twice");
  assert_src_refuses (m, "twice");
  g_free (list);

  dotdot = rtf_test_tmp_path ("b/../a/d-%05d.raw");
  list = g_strdup_printf ("%s;%s;%s;", locs[0], locs[1], dotdot);
  write_manifest_v1 (m, hex, list);
  assert_tools_refuse (m, "are the same place");
  g_free (list);

  fail_unless (symlink (dir, linked) == 0);
  via_link = rtf_test_tmp_path ("c/d-%05d.raw");
  list = g_strdup_printf ("%s;%s;", via_link, locs[0]);
  write_manifest_v1 (m, hex, list);
  assert_tools_refuse (m, "are the same place");
  assert_src_refuses (m, "are the same place");
  g_free (list);

  g_string_free (many, TRUE);
  g_free (hex);
  g_free (via_link);
  g_free (dotdot);
  g_free (linked);
  g_free (dir);
  g_free (m);
  g_strfreev (locs);
}

GST_END_TEST;

/* ---- 9: an index claiming more records than memory holds --------------- */

/* An index header of frames of frame_size bytes for data_name at path,
 * the file then made `size` bytes long (sparse: a hole) */
static void
write_sparse_index (const gchar * path, const gchar * data_name,
    guint64 frame_size, guint64 size)
{
  RtfIndexHeader h = { 0 };
  guint8 *buf = g_malloc (RTF_INDEX_MAX_HEADER);
  gint fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  gsize n;

  fail_unless (fd >= 0);
  h.frame_size = frame_size;
  h.format = (gchar *) RTF_TEST_CAPS_TEXT;
  h.data_name = (gchar *) data_name;
  h.max_in_flight = 4;
  h.block = 4096;
  rtf_recording_id_new (&h.recording_id);
  n = rtf_index_encode_header (&h, buf);
  fail_unless (write (fd, buf, n) == (gssize) n);
  fail_unless (ftruncate (fd, (off_t) size) == 0);
  close (fd);
  g_free (buf);
}

/* A 200 GiB sparse data file and a 230 GB sparse index whose valid header
 * says frame_size=1 (84 KB on disk): the readers read the index in
 * bounded chunks, skipping its holes, and report it in bounded time and
 * memory (records were allocated up front, 232 GB: GLib-ERROR, SIGTRAP) */
GST_START_TEST (test_sparse_giant_index_bounded)
{
  gchar *data = rtf_test_tmp_path ("big.raw"), *idx = rtf_index_path (data);
  const guint64 data_size = (guint64) 200 << 30;
  const guint64 records = 2400000000ull;
  gint fd = open (data, O_WRONLY | O_CREAT | O_EXCL, 0644);
  struct stat st;
  Run r = { 0 };

  fail_unless (fd >= 0);
  fail_unless (ftruncate (fd, (off_t) data_size) == 0);
  close (fd);
  write_sparse_index (idx, "big.raw", 1, 4096 + records *
      RTF_INDEX_RECORD_SIZE);

  run_bounded (&r, 20, 1024, "rtframe-verify", data, NULL);
  assert_run (&r, 1, "damaged or torn");
  assert_small (&r);
  run_clear (&r);
  run_bounded (&r, 20, 1024, "rtframe-recover", "--dry-run", data, NULL);
  assert_run (&r, 1, "more than a killed recording leaves");
  assert_small (&r);
  run_clear (&r);
  run_bounded (&r, 20, 1024, "rtframe-dump", data, NULL);
  assert_run (&r, 0, "frame,file,");
  assert_small (&r);
  run_clear (&r);
  assert_src_refuses (data, "holds no frame");
  fail_unless (stat (data, &st) == 0 && (guint64) st.st_size == data_size);
  g_free (idx);
  g_free (data);
}

GST_END_TEST;

/* ---- 10: a location of a spread missing -------------------------------- */

/* Through the manifest, with the location `lost` gone: each reader names
 * it and why, and reads the other's frames (every even one of 20) */
static void
assert_location_reported (const gchar * manifest, const gchar * lost,
    const gchar * why)
{
  gchar *says = g_strdup_printf ("location %s of the recording is missing",
      lost);
  guint n, i, lines = 0;
  guint64 *evens = every (0, 2, 20, &n);
  gchar **out;
  Played p;
  Run r = { 0 };

  run_bounded (&r, 20, 0, "rtframe-verify", manifest, NULL);
  assert_run (&r, 1, says);
  fail_unless (strstr (r.out, why) != NULL, "%s", r.out);
  fail_unless (strstr (r.out, "9 frame numbers missing from the sequence: "
          "1, 3, 5, 7, 9, 11, 13, 15, 17 ") != NULL, "%s", r.out);
  fail_unless (strstr (r.out, " 10 frames in frame-number order") != NULL);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", manifest, NULL);
  assert_run (&r, 1, says);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", manifest, NULL);
  assert_run (&r, 1, says);
  fail_unless (strstr (r.out, "not whole: ") != NULL);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-dump", manifest, NULL);
  assert_run (&r, 1, says);
  out = g_strsplit (r.out, "\n", -1);
  for (i = 0; out[i]; i++)
    if (g_ascii_isdigit (out[i][0])) {
      fail_unless_equals_uint64 (g_ascii_strtoull (out[i], NULL, 10),
          evens[lines]);
      lines++;
    }
  fail_unless_equals_int (lines, n);
  g_strfreev (out);
  run_clear (&r);

  play (manifest, &p);
  fail_unless (strstr (p.warnings->str, says) != NULL, "%s", p.warnings->str);
  assert_played (&p, evens, n);
  played_clear (&p);
  g_free (evens);
  g_free (says);
}

/* A disk of a spread recording dead (its directory gone) or not mounted
 * (its mount point empty): the recording on the other is read, verified,
 * repaired and played through the manifest, the missing location and its
 * frames reported (verify and recover exited 2, rtframesrc failed) */
GST_START_TEST (test_missing_location_reported)
{
  gchar **locs = record_two ("m-%05d.raw", 20);
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *b = rtf_test_tmp_path ("b"), *rm = g_strdup_printf ("rm -rf '%s'", b);

  fail_unless_equals_int (rtf_test_run (rm), 0);
  assert_location_reported (m0, locs[1], "No such file or directory");
  fail_unless (g_mkdir (b, 0755) == 0);
  assert_location_reported (m0, locs[1], "no file named by");
  g_free (rm);
  g_free (b);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* A location holding a recording whose index (version 1) names no
 * recording is not taken for the manifest's (its frames were read as
 * the manifest's) */
GST_START_TEST (test_spread_location_without_id_refused)
{
  gchar **locs = record_two ("i-%05d.raw", 8);
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *c = rtf_test_tmp_path ("c"), *m = rtf_test_tmp_path ("m.rtfspread");
  gchar *old = rtf_test_tmp_path ("c/i-%05d.raw"), *text, *list, *hex;
  RtfTestRecording v1 = { "i-00000.raw", 0, 3, FRAME, FALSE, 1, 0, FALSE };
  RtfSpreadManifest sm;
  gchar *why = NULL, *path;
  Run r = { 0 };

  fail_unless (g_mkdir (c, 0755) == 0);
  path = rtf_test_index_write (c, &v1);
  fail_unless (rtf_spread_manifest_read (m0, &sm, &why), "%s", why);
  hex = rtf_recording_id_to_string (&sm.id);
  list = g_strdup_printf ("%s;%s;%s;", locs[0], locs[1], old);
  text = g_strdup_printf ("[rtframe-spread]\nrecording-id=%s\nstart-index=0"
      "\nlocations=%s\n", hex, list);
  write_text (m, text);
  run_bounded (&r, 20, 0, "rtframe-verify", m, NULL);
  assert_run (&r, 1, "has an index of version 1, which names no recording");
  fail_unless (strstr (r.out, " 8 frames in frame-number order, 0 found "
          "twice") != NULL, "%s", r.out);
  run_clear (&r);
  rtf_spread_manifest_clear (&sm);
  g_free (path);
  g_free (text);
  g_free (list);
  g_free (hex);
  g_free (old);
  g_free (m);
  g_free (c);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* ---- 11: relative locations -------------------------------------------- */

/* verify says OK with n frames, rtframesrc plays frames 0..n-1 */
static void
assert_whole (const gchar * manifest, guint n)
{
  gchar *says = g_strdup_printf (" %u frames in frame-number order", n);
  guint64 *all = every (0, 1, n, &n);
  Played p;
  Run r = { 0 };

  run_bounded (&r, 20, 0, "rtframe-verify", manifest, NULL);
  assert_run (&r, 0, says);
  run_clear (&r);
  play (manifest, &p);
  assert_played (&p, all, n);
  played_clear (&p);
  g_free (all);
  g_free (says);
}

/* Locations given relative to the recorder's working directory are
 * stored absolute, and relative to each manifest: read from any working
 * directory, and after the whole recording was moved (they were stored
 * as given, and read against the reader's working directory) */
GST_START_TEST (test_relative_locations_found_from_anywhere)
{
  gchar *top = rtf_test_tmp_path ("rec"), *moved = rtf_test_tmp_path ("mv");
  gchar *locs[] = { (gchar *) "a/r-%05d.raw", (gchar *) "./b/r-%05d.raw",
    NULL
  };
  gchar *cwd = g_get_current_dir (), *m, *text = NULL, *want;

  fail_unless (g_mkdir (top, 0755) == 0);
  fail_unless (chdir (top) == 0);
  fail_unless (g_mkdir ("a", 0755) == 0 && g_mkdir ("b", 0755) == 0);
  spread_finish (spread_start (locs, "max-file-size", "5632", NULL), 12);
  fail_unless (chdir ("/") == 0);

  m = g_build_filename (top, "a", "r-.raw.rtfspread", NULL);
  assert_whole (m, 12);
  fail_unless (g_file_get_contents (m, &text, NULL, NULL));
  g_print ("%s", text);
  want = g_strdup_printf ("\nlocations=%s/a/r-%%05d.raw;%s/b/r-%%05d.raw;\n"
      "relative-locations=r-%%05d.raw;../b/r-%%05d.raw;\n", top, top);
  fail_unless (strstr (text, want) != NULL, "%s", text);
  g_free (m);

  fail_unless (rename (top, moved) == 0);
  m = g_build_filename (moved, "b", "r-.raw.rtfspread", NULL);
  assert_whole (m, 12);
  fail_unless (chdir (cwd) == 0);
  g_free (m);
  g_free (want);
  g_free (text);
  g_free (cwd);
  g_free (moved);
  g_free (top);
}

GST_END_TEST;

/* A manifest of version 1 holding the locations as given (relative to
 * where it was recorded from) reads from any working directory: against
 * the directory it was recorded from, as the path it is read by shows */
GST_START_TEST (test_old_manifest_relative_locations)
{
  gchar **locs = record_two ("o-%05d.raw", 12);
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *m1 = rtf_spread_manifest_path (locs[1]);
  gchar *top = rtf_test_tmp_path (""), *cwd = g_get_current_dir ();
  gchar *hex = recording_hex (locs[0]);

  write_manifest_v1 (m0, hex, "a/o-%05d.raw;b/o-%05d.raw;");
  write_manifest_v1 (m1, hex, "a/o-%05d.raw;b/o-%05d.raw;");
  fail_unless (chdir ("/") == 0);
  assert_whole (m0, 12);
  assert_whole (m1, 12);
  fail_unless (chdir (top) == 0);
  assert_whole ("b/o-.raw.rtfspread", 12);
  fail_unless (chdir (cwd) == 0);
  g_free (hex);
  g_free (cwd);
  g_free (top);
  g_free (m0);
  g_free (m1);
  g_strfreev (locs);
}

GST_END_TEST;

/* ---- 12: paths that are not UTF-8 --------------------------------------- */

/* A location whose directory's name is not UTF-8 (legal on Linux): the
 * manifest is UTF-8 ("\xff" escapes), and reads back to the same bytes;
 * a version 1 manifest holding the raw bytes reads too (GKeyFile refused
 * both: the recording could not be read through its manifest) */
GST_START_TEST (test_non_utf8_location_readable)
{
  gchar *da = rtf_test_tmp_path ("a\xff\xfe"), *db = rtf_test_tmp_path ("b");
  gchar *locs[3], *m0, *m1, *text = NULL, *why = NULL, *raw, *hex;
  RtfSpreadManifest m;
  GstCheckLogFilter *filter;

  /* rtframesink's file-opened message carries the path as a string
   * (gstrtframemessages.c, not the readers'): GStreamer warns that it is
   * not UTF-8, which says nothing of the recording (reported) */
  filter = gst_check_add_log_filter ("GStreamer", G_LOG_LEVEL_WARNING,
      g_regex_new ("is not valid UTF-8", 0, 0, NULL), NULL, NULL, NULL);
  fail_unless (g_mkdir (da, 0755) == 0 && g_mkdir (db, 0755) == 0);
  locs[0] = g_build_filename (da, "u-%05d.raw", NULL);
  locs[1] = g_build_filename (db, "u-%05d.raw", NULL);
  locs[2] = NULL;
  spread_finish (spread_start (locs, "max-file-size", "5632", NULL), 12);
  m0 = rtf_spread_manifest_path (locs[0]);
  m1 = rtf_spread_manifest_path (locs[1]);
  assert_whole (m0, 12);
  fail_unless (g_file_get_contents (m1, &text, NULL, NULL));
  fail_unless (g_utf8_validate (text, -1, NULL), "the manifest is not UTF-8");
  fail_unless (strstr (text, "a\\\\xff\\\\xfe/u-%05d.raw") != NULL, "%s", text);
  fail_unless (rtf_spread_manifest_read (m1, &m, &why), "%s", why);
  fail_unless_equals_string (m.locations[0], locs[0]);
  hex = rtf_recording_id_to_string (&m.id);
  rtf_spread_manifest_clear (&m);
  assert_whole (m1, 12);

  /* as the sink wrote it before: the bytes as they are */
  raw = g_strdup_printf ("[rtframe-spread]\nrecording-id=%s\nstart-index=0\n"
      "locations=%s;%s;\n", hex, locs[0], locs[1]);
  write_text (m1, raw);
  assert_whole (m1, 12);
  g_free (raw);
  g_free (hex);
  g_free (text);
  g_free (m0);
  g_free (m1);
  g_free (locs[0]);
  g_free (locs[1]);
  g_free (da);
  g_free (db);
  gst_check_remove_log_filter (filter);
}

GST_END_TEST;

/* A spread over locs fails to start with a RESOURCE/OPEN_WRITE error
 * whose text holds substr */
static void
assert_spread_refused (gchar ** locs, const gchar * substr)
{
  GstElement *sink = spread_sink (locs);
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (sink, bus);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  rtf_test_assert_message (bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, substr);
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (sink);
}

/* What another recording left at the manifests' names - a version 1
 * manifest naming other locations (a path that is not UTF-8), one of a
 * later version this build cannot parse - is nothing that proves it
 * belongs to the new recording: the start is refused naming it, and it
 * keeps its bytes (the adversarial review, M1: it was replaced, and the
 * recording it named lost the file tying its locations together).  A
 * version 1 manifest naming the same locations (as they were given) is
 * an earlier take: replaced by the next recording, without a warning. */
GST_START_TEST (test_stale_manifest_left)
{
  gchar **locs = two_locations ("s-%05d.raw");
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *m1 = rtf_spread_manifest_path (locs[1]);
  const gchar *later = "[rtframe-spread]\nversion=9\nrecording-id=" ID_HEX
      "\nlocations=whatever a later build writes\n";
  gchar *same = g_strdup_printf ("%s;%s;", locs[0], locs[1]), *now = NULL;
  RtfSpreadManifest m;
  gchar *why = NULL;

  write_manifest_v1 (m0, NULL, "/old/\xff/s-%05d.raw;/old/b/s-%05d.raw;");
  assert_spread_refused (locs, "is the manifest of another recording");
  fail_unless (g_file_get_contents (m0, &now, NULL, NULL));
  fail_unless (strstr (now, "/old/\xff/s-%05d.raw") != NULL);
  g_free (now);
  write_manifest_v1 (m0, NULL, same);
  write_text (m1, later);
  assert_spread_refused (locs, "maybe another recording's");
  fail_unless (g_file_get_contents (m1, &now, NULL, NULL));
  fail_unless_equals_string (now, later);
  g_free (now);

  fail_unless (g_unlink (m1) == 0);
  spread_finish (spread_start (locs, NULL), 6);
  fail_unless (rtf_spread_manifest_read (m0, &m, &why), "%s", why);
  fail_unless_equals_int (m.version, RTF_SPREAD_MANIFEST_VERSION);
  rtf_spread_manifest_clear (&m);
  assert_whole (m0, 6);
  assert_whole (m1, 6);
  g_free (same);
  g_free (m0);
  g_free (m1);
  g_strfreev (locs);
}

GST_END_TEST;

/* ---- 15: a file missing in the middle of a set -------------------------- */

static void
remove_file (const gchar * pattern, guint64 number)
{
  gchar *path = rtf_pattern_format (pattern, number);
  gchar *idx = rtf_index_path (path);

  fail_unless (g_unlink (path) == 0 && g_unlink (idx) == 0);
  g_free (idx);
  g_free (path);
}

/* A set of 4 files of 5 frames copied without its second file: every
 * reader says file 1 is missing and reads the others (verify said "1
 * file, 5 frames ... OK", exit 0; rtframesrc played 5 frames) */
GST_START_TEST (test_missing_middle_file_reported)
{
  gchar *pattern = rtf_test_tmp_path ("cam0-%05d.raw");
  const gchar *says = "file 1 of the set";
  guint64 want[15];
  guint i, lines = 0;
  gchar **out;
  Played p;
  Run r = { 0 };

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 20);
  remove_file (pattern, 1);
  for (i = 0; i < 15; i++)
    want[i] = i < 5 ? i : i + 5;

  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 1, says);
  fail_unless (strstr (r.out, "is missing (") != NULL
      && strstr (r.out, "cam0-00001.raw") != NULL, "%s", r.out);
  fail_unless (strstr (r.out, "3 files, 15 frames") != NULL, "%s", r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", pattern, NULL);
  assert_run (&r, 1, says);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 1, says);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-dump", pattern, NULL);
  assert_run (&r, 1, says);
  out = g_strsplit (r.out, "\n", -1);
  for (i = 0; out[i]; i++)
    if (g_ascii_isdigit (out[i][0]))
      fail_unless_equals_uint64 (g_ascii_strtoull (out[i], NULL, 10),
          want[lines++]);
  fail_unless_equals_int (lines, 15);
  g_strfreev (out);
  run_clear (&r);
  play (pattern, &p);
  fail_unless (strstr (p.warnings->str, "cam0-00001.raw") != NULL, "%s",
      p.warnings->str);
  assert_played (&p, want, 15);
  played_clear (&p);
  g_free (pattern);
}

GST_END_TEST;

/* The first files of a set gone (max-files deleted them, as it says) is
 * no fault: the set starts at the first file there */
GST_START_TEST (test_first_files_gone_not_reported)
{
  gchar *pattern = rtf_test_tmp_path ("cam0-%05d.raw");
  Run r = { 0 };

  rtf_test_record (pattern, "max-file-size=7040 max-files=2", CAPS, 20);
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 0, "2 files, 10 frames");
  run_clear (&r);
  g_free (pattern);
}

GST_END_TEST;

/* A file after a gap in the numbers that is not proven the recording's
 * (another recording's, renamed into the set) ends the set, with a note:
 * nothing is reported missing on the strength of a stranger */
GST_START_TEST (test_file_after_gap_of_other_recording_not_read)
{
  gchar *pattern = rtf_test_tmp_path ("cam-%05d.raw");
  gchar *other = rtf_test_tmp_path ("other-%05d.raw");
  gchar *from = rtf_pattern_format (other, 0), *to;
  gchar *ifrom = rtf_index_path (from), *ito;
  Run r = { 0 };

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 10);
  rtf_test_record (other, "max-file-size=7040", CAPS, 5);
  to = rtf_pattern_format (pattern, 5);
  ito = rtf_index_path (to);
  fail_unless (rename (from, to) == 0 && rename (ifrom, ito) == 0);
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 0, "after a gap in the file numbers (2 to 4), is not "
      "read with this recording");
  fail_unless (strstr (r.out, "2 files, 10 frames") != NULL, "%s", r.out);
  run_clear (&r);
  g_free (ito);
  g_free (to);
  g_free (ifrom);
  g_free (from);
  g_free (other);
  g_free (pattern);
}

GST_END_TEST;

/* ---- a spread recording after a crash: verify and recover agree -------- */

/* Location `loc`'s last `k` records gone from its index, their frames
 * still in its file: what a kill leaves at a disk whose last frames were
 * in flight (written, never reported), while the other disk wrote later
 * frames */
static void
cut_last_records (const gchar * loc, guint k)
{
  gchar *path = rtf_pattern_format (loc, 0), *idx = rtf_index_path (path);
  struct stat st;

  fail_unless (stat (idx, &st) == 0);
  fail_unless (truncate (idx, st.st_size - k * RTF_INDEX_RECORD_SIZE) == 0);
  g_free (idx);
  g_free (path);
}

/* The manifests beside locs as a crash leaves them: as the sink wrote
 * them at start, without the final state it writes at EOS */
static void
as_crashed (gchar ** locs)
{
  guint i;

  for (i = 0; locs[i]; i++) {
    gchar *path = rtf_spread_manifest_path (locs[i]), *why = NULL;
    RtfSpreadManifest m;

    fail_unless (rtf_spread_manifest_read (path, &m, &why), "%s", why);
#ifdef RTF_SPREAD_MANIFEST_HAS_FINAL
    fail_unless (m.state == RTF_SPREAD_MANIFEST_FINAL, "%s: not final", path);
    m.state = RTF_SPREAD_MANIFEST_STARTED;
    g_clear_pointer (&m.ends, g_free);
#endif
    fail_unless (rtf_spread_manifest_write (locs[i], &m, &why), "%s", why);
    rtf_spread_manifest_clear (&m);
    g_free (path);
  }
}

/* A spread crashed with 2 frames in flight at one disk (numbers 16 and
 * 18 of 20, none reported written): rtframe-recover cuts the tail and,
 * like rtframe-verify, says the two numbers are missing and exits 1;
 * with --allow-gaps both exit 0 (recover said "whole now", exit 0, while
 * verify exited 1) */
GST_START_TEST (test_spread_crash_tools_agree)
{
  gchar **locs = two_locations ("c-%05d.raw");
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  const gchar *says = "2 frame numbers missing from the sequence: 16, 18 "
      "(no index of the recording holds them, so none was reported written";
  Run r = { 0 };

  spread_finish (spread_start (locs, "io-depth", "4", NULL), 20);
  as_crashed (locs);
  cut_last_records (locs[0], 2);
  run_bounded (&r, 20, 0, "rtframe-recover", m0, NULL);
  assert_run (&r, 1, says);
  fail_unless (strstr (r.out, "keeping 8 frames") != NULL, "%s", r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-verify", m0, NULL);
  assert_run (&r, 1, says);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, NULL);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, " 18 frames in frame-number order");
  run_clear (&r);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* The child of test_spread_sigkill_tools_agree: records to two locations
 * flat out, round robin, printing "W n" for each frame reported written
 * (no check macros: check does not run it) */
static GstBusSyncReply
child_bus (GstBus * bus, GstMessage * msg, gpointer data)
{
  if (gst_message_has_name (msg, "rtframesink-frame-written")) {
    guint64 frame = 0;
    gchar line[32];
    gint n;

    gst_structure_get_uint64 (gst_message_get_structure (msg), "frame", &frame);
    n = g_snprintf (line, sizeof (line), "W %" G_GUINT64_FORMAT "\n", frame);
    if (write (1, line, n) != n)
      _exit (3);
  }
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

static int
spread_crash_child (gchar ** locs)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstBus *bus = gst_bus_new ();
  gchar *value = g_strdup_printf ("<\"%s\",\"%s\">", locs[0], locs[1]);
  GstHarness *h;
  guint64 i;

  gst_util_set_object_arg (G_OBJECT (sink), "locations", value);
  gst_util_set_object_arg (G_OBJECT (sink), "placement", "round-robin");
  gst_util_set_object_arg (G_OBJECT (sink), "location-timeout", "0");
  g_object_set (sink, "location", locs[0], "frame-messages", TRUE,
      "io-depth", 4, "max-file-size", (guint64) 8 * FRAME, NULL);
  gst_element_set_bus (sink, bus);
  gst_bus_set_sync_handler (bus, child_bus, NULL, NULL);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  for (i = 0;; i++) {
    GstBuffer *buf = gst_harness_create_buffer (h, FRAME);
    GstMapInfo map;

    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    rtf_test_fill_frame (map.data, FRAME, 0, i);
    gst_buffer_unmap (buf, &map);
    if (gst_harness_push (h, buf) != GST_FLOW_OK)
      return 2;
  }
  return 0;
}

/* The frames reported written by a killed child ("W n" lines) */
static GHashTable *
reported (const gchar * lines)
{
  GHashTable *set = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, NULL);
  gchar **l = g_strsplit (lines, "\n", -1);
  guint i;

  for (i = 0; l[i]; i++)
    if (l[i][0] == 'W') {
      gint64 *n = g_new (gint64, 1);

      *n = g_ascii_strtoll (l[i] + 2, NULL, 10);
      g_hash_table_add (set, n);
    }
  g_strfreev (l);
  return set;
}

/* The child of test_spread_kill_before_first_frame: records one frame to
 * two locations (round robin: it goes to the first), prints "W 0" once it
 * is reported written, and waits to be killed - the second location has
 * had no frame (no check macros: check does not run it) */
static int
spread_one_frame_child (gchar ** locs)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstBus *bus = gst_bus_new ();
  gchar *value = g_strdup_printf ("<\"%s\",\"%s\">", locs[0], locs[1]);
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;

  gst_util_set_object_arg (G_OBJECT (sink), "locations", value);
  gst_util_set_object_arg (G_OBJECT (sink), "placement", "round-robin");
  g_object_set (sink, "location", locs[0], "frame-messages", TRUE, NULL);
  gst_element_set_bus (sink, bus);
  gst_bus_set_sync_handler (bus, child_bus, NULL, NULL);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  buf = gst_harness_create_buffer (h, FRAME);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  rtf_test_fill_frame (map.data, FRAME, 0, 0);
  gst_buffer_unmap (buf, &map);
  if (gst_harness_push (h, buf) != GST_FLOW_OK)
    return 2;
  for (;;)
    g_usleep (G_USEC_PER_SEC);
  return 0;
}

/* Kills a child recording to locs at a random moment: the frames it
 * reported written */
static GHashTable *
record_and_kill (gchar ** locs, guint kill_ms)
{
  gchar *argv[] = { (gchar *) self_exe, (gchar *) "--spread-crash-child",
    locs[0], locs[1], NULL
  };
  GString *lines = g_string_new (NULL);
  GHashTable *set;
  gchar buf[4096];
  gssize got;
  gint out, status;
  GPid pid;

  fail_unless (g_spawn_async_with_pipes (NULL, argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out, NULL, NULL));
  g_usleep (kill_ms * 1000);
  kill (pid, SIGKILL);
  while ((got = read (out, buf, sizeof (buf))) > 0)
    g_string_append_len (lines, buf, got);
  close (out);
  fail_unless (waitpid (pid, &status, 0) == pid);
  fail_unless (WIFSIGNALED (status), "the child ended on its own");
  g_spawn_close_pid (pid);
  set = reported (lines->str);
  g_string_free (lines, TRUE);
  return set;
}

/* Real kills of a spread recording (round robin, frames in flight at
 * both disks): each time rtframe-recover and rtframe-verify give the same
 * exit status, --allow-gaps makes both 0, every frame reported written is
 * read back through the manifest, and no frame number said missing was
 * reported written */
GST_START_TEST (test_spread_sigkill_tools_agree)
{
  GRand *rand = g_rand_new_with_seed (23);
  guint round, with_gaps = 0;

  for (round = 0; round < 4; round++) {
    gchar *name = g_strdup_printf ("k%u-%%05d.raw", round);
    gchar **locs = two_locations (name);
    gchar *m0 = rtf_spread_manifest_path (locs[0]);
    GHashTable *told = record_and_kill (locs, g_rand_int_range (rand, 150,
            400));
    GHashTableIter it;
    gpointer key;
    RtfRecording *rec;
    GError *error = NULL;
    Run rr = { 0 }, rv = { 0 }, r = { 0 };
    guint64 n;

    run_bounded (&rr, 30, 0, "rtframe-recover", m0, NULL);
    run_bounded (&rv, 30, 0, "rtframe-verify", m0, NULL);
    assert_run (&rv, rr.status, NULL);
    fail_unless (rr.status <= 1, "%s", rr.out);
    run_bounded (&r, 30, 0, "rtframe-recover", "--allow-gaps", m0, NULL);
    assert_run (&r, 0, NULL);
    run_clear (&r);
    run_bounded (&r, 30, 0, "rtframe-verify", "--allow-gaps", m0, NULL);
    assert_run (&r, 0, NULL);
    run_clear (&r);

    rec = rtf_recording_open (m0, 0, TRUE, &error);
    fail_unless (rec != NULL, "%s", error ? error->message : "");
    with_gaps += rec->missing > 0;
#ifdef RTF_SPREAD_MANIFEST_VERSION      /* (to run this on c8d0d25) */
    for (guint i = 0; i < rec->n_gaps; i++)
      for (n = rec->gaps[i].first; n <= rec->gaps[i].last; n++)
        fail_if (g_hash_table_contains (told, &(gint64) {
                n}
        ), "frame %" G_GUINT64_FORMAT " reported written, said " "missing", n);
#endif
    g_hash_table_iter_init (&it, told);
    while (g_hash_table_iter_next (&it, &key, NULL)) {
      gboolean found = FALSE;

      for (n = 0; n < rec->n_frames && !found; n++)
        found = (gint64) rtf_recording_frame (rec, n, NULL)->seq ==
            *(gint64 *) key;
      fail_unless (found, "frame %" G_GINT64_FORMAT " reported written is "
          "not in the recording", *(gint64 *) key);
    }
    g_print ("  kill %u: %u frames reported written, %" G_GUINT64_FORMAT
        " in the recording, %" G_GUINT64_FORMAT " numbers missing; recover "
        "and verify both exit %d\n", round, g_hash_table_size (told),
        rec->n_frames, rec->missing, rr.status);
    rtf_recording_free (rec);
    g_hash_table_unref (told);
    run_clear (&rr);
    run_clear (&rv);
    g_free (m0);
    g_strfreev (locs);
    g_free (name);
  }
  g_print ("  %u of 4 kills left frame numbers missing\n", with_gaps);
  g_rand_free (rand);
}

GST_END_TEST;

/* Starts the one-frame child on locs, kills it once frame 0 is reported
 * written */
static void
kill_after_first_frame (gchar ** locs)
{
  gchar *argv[] = { (gchar *) self_exe, (gchar *) "--spread-one-frame-child",
    locs[0], locs[1], NULL
  };
  GString *lines = g_string_new (NULL);
  gchar buf[256];
  gssize got;
  gint out, status;
  GPid pid;

  fail_unless (g_spawn_async_with_pipes (NULL, argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out, NULL, NULL));
  while (!strstr (lines->str, "W 0\n")
      && (got = read (out, buf, sizeof (buf))) > 0)
    g_string_append_len (lines, buf, got);
  kill (pid, SIGKILL);
  close (out);
  fail_unless (waitpid (pid, &status, 0) == pid);
  fail_unless (WIFSIGNALED (status), "the child ended on its own");
  g_spawn_close_pid (pid);
  fail_unless (strstr (lines->str, "W 0\n") != NULL, "%s", lines->str);
  g_string_free (lines, TRUE);
}

/* Removes every file at dir but the manifests (the user's "rm dir/ *
 * dir/.*p-*": the manifest stays, hidden) */
static void
remove_but_manifests (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  fail_unless (d != NULL);
  while ((name = g_dir_read_name (d)))
    if (!g_str_has_suffix (name, ".rtfspread")) {
      gchar *path = g_build_filename (dir, name, NULL);

      fail_unless (g_unlink (path) == 0, "%s", path);
      g_free (path);
    }
  g_dir_close (d);
}

/* A kill after the first frame, before the second location had one: the
 * second location holds its first file, made at start, with no frame,
 * which shows it held none - the recording is whole, through either
 * manifest, once rtframe-recover has cut the first location's tail (it
 * keeps that file: it deleted it, and the location was then "missing",
 * torture seeds 0x3cde76c42dc626a8, 0xc2f1d3577caf2677).  The same after
 * a second take over the first, where a set's first file at the second
 * location is still under the hidden name it was prepared under.  Its
 * files removed by the user (the manifest stays) are a fault again. */
GST_START_TEST (test_spread_kill_before_first_frame)
{
  const gchar *names[] = { "one.raw", "p-%05d.raw" };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (names); k++) {
    gchar **locs = two_locations (names[k]);
    gchar *m0 = rtf_spread_manifest_path (locs[0]);
    gchar *m1 = rtf_spread_manifest_path (locs[1]);
    gchar *dir1 = g_path_get_dirname (locs[1]);
    Run r = { 0 };
    Played p;

    kill_after_first_frame (locs);
    run_bounded (&r, 20, 0, "rtframe-recover", m0, NULL);
    assert_run (&r, 0, NULL);
    run_clear (&r);
    run_bounded (&r, 20, 0, "rtframe-verify", m0, NULL);
    assert_run (&r, 0, "1 frames in frame-number order");
    run_clear (&r);
    run_bounded (&r, 20, 0, "rtframe-recover", m1, NULL);
    assert_run (&r, 0, NULL);
    run_clear (&r);
    run_bounded (&r, 20, 0, "rtframe-verify", m1, NULL);
    assert_run (&r, 0, "1 frames in frame-number order");
    run_clear (&r);
    play (m0, &p);
    assert_played (&p, (const guint64[]) {
          0
        }, 1);
    played_clear (&p);
    /* a second take over the first: a set's first file at the second
     * location is prepared beside the first take's, and a kill leaves it
     * there, never named */
    kill_after_first_frame (locs);
    run_bounded (&r, 20, 0, "rtframe-recover", m0, NULL);
    assert_run (&r, 0, NULL);
    run_clear (&r);
    run_bounded (&r, 20, 0, "rtframe-verify", m0, NULL);
    assert_run (&r, 0, k ? "holds no frame of this recording: its first "
        "file" : "the location holds no frame");
    run_clear (&r);
    remove_but_manifests (dir1);
    run_bounded (&r, 20, 0, "rtframe-verify", m0, NULL);
    assert_run (&r, 1, "of the recording is missing");
    run_clear (&r);
    g_free (dir1);
    g_free (m1);
    g_free (m0);
    g_strfreev (locs);
  }
}

GST_END_TEST;

/* ---- recover and recordings whose indexes name no recording ------------ */

/* Marks an empty file at path as file `number` of recording (every byte
 * `id`); FALSE where the filesystem keeps no extended attributes */
static gboolean
make_marked_empty (const gchar * path, guint8 id, guint64 number)
{
  RtfRecordingId rid;
  gint fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0644), err;

  fail_unless (fd >= 0);
  memset (rid.bytes, id, sizeof (rid.bytes));
  err = rtf_file_mark_set (fd, &rid, number);
  close (fd);
  return err == 0;
}

/* A set recorded with index version 1 (no recording id), and after it an
 * empty file and a prepared hidden file the sink marked for another
 * recording: nothing shows they are the set's, so rtframe-recover leaves
 * them (it deleted them: with no id to compare, any mark passed) */
GST_START_TEST (test_v1_set_keeps_other_recordings_marked_files)
{
  gchar *dir = rtf_test_tmp_path ("");
  gchar *pattern = rtf_test_tmp_path ("v-%05d.raw");
  gchar *empty = rtf_test_tmp_path ("v-00002.raw");
  gchar *hidden = rtf_test_tmp_path (".v-00003.raw.1a2b3c4d.rtfprep");
  RtfTestRecording f0 = { "v-00000.raw", 0, 3, 128, FALSE, 1, 0, FALSE };
  RtfTestRecording f1 = { "v-00001.raw", 1, 3, 128, FALSE, 1, 0, FALSE };
  gchar *p0 = rtf_test_index_write (dir, &f0);
  gchar *p1 = rtf_test_index_write (dir, &f1);
  Run r = { 0 };

  if (!make_marked_empty (empty, 0x77, 2)) {
    g_print ("SKIP: %s keeps no extended attributes\n", dir);
  } else {
    fail_unless (make_marked_empty (hidden, 0x77, 3));
    run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
    assert_run (&r, 1, "nothing shows it is theirs");
    fail_unless (g_file_test (empty, G_FILE_TEST_EXISTS), "%s deleted", empty);
    fail_unless (g_file_test (hidden, G_FILE_TEST_EXISTS), "%s deleted",
        hidden);
    run_clear (&r);
  }
  g_free (p0);
  g_free (p1);
  g_free (hidden);
  g_free (empty);
  g_free (pattern);
  g_free (dir);
}

GST_END_TEST;

/* ---- issue 23 F1: what follows a set and is not the recording's -------- */

/* A path as lstat sees it, and a regular file's bytes: to show a reader
 * left it as it was */
typedef struct
{
  struct stat st;
  gchar *bytes;
  gsize len;
} Found;

static void
found_take (Found * f, const gchar * path)
{
  memset (f, 0, sizeof (*f));
  fail_unless (lstat (path, &f->st) == 0, "%s: %s", path, g_strerror (errno));
  if (S_ISREG (f->st.st_mode))
    fail_unless (g_file_get_contents (path, &f->bytes, &f->len, NULL));
}

static void
assert_found_alone (Found * f, const gchar * path)
{
  Found now;

  found_take (&now, path);
  fail_unless_equals_uint64 (now.st.st_ino, f->st.st_ino);
  fail_unless_equals_int (now.st.st_mode, f->st.st_mode);
  fail_unless_equals_uint64 (now.len, f->len);
  fail_unless (f->len == 0 || memcmp (now.bytes, f->bytes, f->len) == 0);
  g_free (now.bytes);
  g_free (f->bytes);
}

/* The frame lines of rtframe-dump's output are `want` (n numbers), in
 * that order */
static void
assert_dump_lines (const gchar * out, const guint64 * want, guint n)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  guint i, k = 0;

  for (i = 0; lines[i]; i++)
    if (g_ascii_isdigit (lines[i][0])) {
      fail_unless (k < n, "more frames than %u: %s", n, lines[i]);
      fail_unless_equals_uint64 (g_ascii_strtoull (lines[i], NULL, 10),
          want[k]);
      k++;
    }
  fail_unless_equals_int (k, n);
  g_strfreev (lines);
}

/* 0, 1, ..., n - 1 */
static guint64 *
upto (guint n)
{
  guint count;

  return every (0, 1, n, &count);
}

/* Every reader takes the recording at location as its frames `want`, says
 * `note`, and finds no fault: verify and recover exit 0, dump lists them,
 * rtframesrc plays them byte-exact without a warning */
static void
assert_read_with_note (const gchar * location, const guint64 * want, guint n,
    const gchar * note)
{
  Played p;
  Run r = { 0 };

  run_bounded (&r, 20, 0, "rtframe-verify", location, NULL);
  assert_run (&r, 0, note);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", location, NULL);
  assert_run (&r, 0, note);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-dump", location, NULL);
  assert_run (&r, 0, note);
  assert_dump_lines (r.out, want, n);
  run_clear (&r);
  play (location, &p);
  fail_unless (p.warnings->len == 0, "%s", p.warnings->str);
  assert_played (&p, want, n);
  played_clear (&p);
}

/* The recording id in the index of path */
static RtfRecordingId
index_id (const gchar * path)
{
  gchar *idx = rtf_index_path (path);
  gint fd = open (idx, O_RDONLY);
  GError *error = NULL;
  RtfIndex *index;
  RtfRecordingId id;

  fail_unless (fd >= 0);
  index = rtf_index_read (fd, G_MAXUINT64, &error);
  fail_unless (index != NULL, "%s", error ? error->message : "");
  id = index->header.recording_id;
  rtf_index_free (index);
  close (fd);
  g_free (idx);
  return id;
}

/* A file of `size` bytes at path, marked (the sink's xattr) as file
 * `number` of recording id */
static void
write_marked (const gchar * path, gsize size, const RtfRecordingId * id,
    guint64 number)
{
  gchar *bytes = g_malloc0 (MAX (size, 1));
  gint fd;

  fail_unless (g_file_set_contents (path, bytes, size, NULL));
  fd = open (path, O_RDWR);
  fail_unless (fd >= 0);
  fail_unless_equals_int (rtf_file_mark_set (fd, id, number), 0);
  close (fd);
  g_free (bytes);
}

/* Issue 23, F1 (torture seeds 0x814b196b81a41a86, 0x0ed8d5cbf8bcd5f0): at
 * the set's next name after its last file, something that is not the
 * recording's - a user's file without index or mark, a FIFO, a directory,
 * a file another recording marked - is no part of it (the sink leaves
 * such a file alone): every reader ends the set before it, says so in a
 * note and leaves it as it was.  On c8d0d25 and until this fix:
 * rtframesrc refused the whole recording ("Could not open recording
 * ...: no index"), verify FAULT and exit 1, recover and dump exit 1. */
GST_START_TEST (test_foreign_file_after_set_not_read)
{
  gchar *pattern = rtf_test_tmp_path ("c-%05d.raw");
  gchar *next = rtf_pattern_format (pattern, 2), *first;
  gchar *next_index = rtf_index_path (next), *first_index, *copy;
  gsize copy_len;
  guint64 *want = upto (10);
  RtfRecordingId theirs;
  Found f, fi;

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 10);
  first = rtf_pattern_format (pattern, 0);
  first_index = rtf_index_path (first);
  memset (theirs.bytes, 0x5a, sizeof (theirs.bytes));

  write_text (next, "someone's notes, not a recording\n");
  found_take (&f, next);
  assert_read_with_note (pattern, want, 10, "c-00002.raw is not this "
      "recording's: it has no index, and no mark of this recording; the set "
      "ends before it (it is left as it is)");
  assert_found_alone (&f, next);
  fail_unless (g_unlink (next) == 0);

  fail_unless (mkfifo (next, 0644) == 0);
  found_take (&f, next);
  assert_read_with_note (pattern, want, 10, "c-00002.raw is not this "
      "recording's: it is a FIFO, not a regular file; the set ends before it");
  assert_found_alone (&f, next);
  fail_unless (g_unlink (next) == 0);

  fail_unless (g_mkdir (next, 0755) == 0);
  assert_read_with_note (pattern, want, 10, "c-00002.raw is not this "
      "recording's: it is a directory");
  fail_unless (g_rmdir (next) == 0);

  /* a user's file at the index name too (torture seeds 0x04d8b7ea2b98720b,
   * 0xdddb56ee1e033f44): the file carries no mark while the set's do, so
   * it is not one the sink made, whatever lies at its index name.  Before:
   * verify FAULT and exit 1, rtframesrc refused the whole recording */
  write_text (next, "someone's notes, not a recording\n");
  write_text (next_index, "someone's index of the notes\n");
  found_take (&f, next);
  found_take (&fi, next_index);
  assert_read_with_note (pattern, want, 10, "c-00002.raw is not this "
      "recording's: it carries no rtframe mark while the set's files beside "
      "it do, and its index");
  assert_found_alone (&f, next);
  assert_found_alone (&fi, next_index);
  /* ... or a copy of an index of the set (another file's) */
  fail_unless (g_unlink (next_index) == 0);
  fail_unless (g_file_get_contents (first_index, &copy, &copy_len, NULL));
  fail_unless (g_file_set_contents (next_index, copy, copy_len, NULL));
  g_free (copy);
  found_take (&f, next);
  found_take (&fi, next_index);
  assert_read_with_note (pattern, want, 10, "c-00002.raw is not this "
      "recording's: it carries no rtframe mark while the set's files beside "
      "it do, and its index is of file number 0, not 2");
  assert_found_alone (&f, next);
  assert_found_alone (&fi, next_index);
  fail_unless (g_unlink (next) == 0);
  fail_unless (g_unlink (next_index) == 0);

  write_marked (next, FRAME, &theirs, 2);
  found_take (&f, next);
  assert_read_with_note (pattern, want, 10, "c-00002.raw belongs to another "
      "recording (5a5a5a5a");
  assert_found_alone (&f, next);
  fail_unless (g_unlink (next) == 0);
  g_free (want);
  g_free (first_index);
  g_free (next_index);
  g_free (first);
  g_free (next);
  g_free (pattern);
}

GST_END_TEST;

/* A user's file named like one the sink prepares (.c-00002.raw.*.rtfprep,
 * no mark, no index) is no crash's leftover: verify says what recover does
 * with it - leaves it.  Before: verify's note called it "left by a crash
 * ... rtframe-recover deletes it" (torture seed 0x04d8b7ea2b98720b) */
GST_START_TEST (test_user_file_at_hidden_name_noted)
{
  gchar *pattern = rtf_test_tmp_path ("h-%05d.raw");
  gchar *hidden = rtf_test_tmp_path (".h-00002.raw.54d20e1e.rtfprep");
  Found f;
  Run r = { 0 };

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 10);
  write_text (hidden, "x");
  found_take (&f, hidden);
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 0, ".h-00002.raw.54d20e1e.rtfprep: named like a file "
      "rtframesink prepares, but it carries no rtframe mark for that file: "
      "left as it is");
  fail_unless (strstr (r.out, "deletes it") == NULL, "%s", r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 1, ".h-00002.raw.54d20e1e.rtfprep: named like a file "
      "rtframesink prepares, but it carries no rtframe mark for that file: "
      "left as it is");
  run_clear (&r);
  assert_found_alone (&f, hidden);
  g_free (hidden);
  g_free (pattern);
}

GST_END_TEST;

/* ... but a file that carries the recording's own mark is the recording's,
 * whatever its index: one made empty and marked, whose index a crash kept
 * from existing, is an empty file opened ahead (verify OK, recover deletes
 * it); one with bytes and no index is a fault of the recording (verify
 * FAULT, recover leaves it, rtframesrc refuses to play past it) - never
 * left out with a note */
GST_START_TEST (test_marked_file_after_set_is_recordings)
{
  gchar *pattern = rtf_test_tmp_path ("c-%05d.raw");
  gchar *next = rtf_pattern_format (pattern, 2), *first;
  RtfRecordingId id;
  Found f;
  Run r = { 0 };

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 10);
  first = rtf_pattern_format (pattern, 0);
  id = index_id (first);

  write_marked (next, 0, &id, 2);
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 0, "c-00002.raw: empty, opened ahead");
  fail_unless (strstr (r.out, "not this recording's") == NULL, "%s", r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 0, "c-00002.raw: no frame of it was reported written");
  run_clear (&r);
  fail_unless (!g_file_test (next, G_FILE_TEST_EXISTS));

  write_marked (next, FRAME, &id, 2);
  found_take (&f, next);
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 1, "FAULT ");
  fail_unless (strstr (r.out, "c-00002.raw: its index") != NULL, "%s", r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 1, "c-00002.raw: its index");
  run_clear (&r);
  assert_found_alone (&f, next);
  assert_src_refuses (pattern, "c-00002.raw");
  g_free (first);
  g_free (next);
  g_free (pattern);
}

GST_END_TEST;

/* A writer whose current file got no frame (a stall held its first) has
 * the next one open ahead beside it: a kill leaves two empty files, both
 * marked, at the set's end.  Both are the recording's: recover deletes
 * both, the last first, and the set reads whole after (torture
 * 0x7e3fbac3a7829dbb: recover deleted the first only, and verify then
 * called it missing "between files proven to be the recording's") */
GST_START_TEST (test_two_files_opened_ahead_deleted)
{
  gchar *pattern = rtf_test_tmp_path ("c-%05d.raw"), *first, *path[2];
  RtfRecordingId id;
  Run r = { 0 };
  guint i;

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 10);
  first = rtf_pattern_format (pattern, 0);
  id = index_id (first);
  for (i = 0; i < 2; i++) {
    gchar *index;

    path[i] = rtf_pattern_format (pattern, 2 + i);
    index = rtf_index_path (path[i]);
    write_marked (path[i], 0, &id, 2 + i);
    fail_unless (g_file_set_contents (index, "", 0, NULL));
    g_free (index);
  }
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 0, "c-00003.raw: empty, opened ahead");
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 0, "c-00002.raw: no frame of it was reported written");
  fail_unless (strstr (r.out, "c-00003.raw: no frame of it was reported "
          "written") != NULL, "%s", r.out);
  fail_unless (strstr (r.out, "c-00003.raw") < strstr (r.out, "c-00002.raw"),
      "not deleted from the last back: %s", r.out);
  run_clear (&r);
  for (i = 0; i < 2; i++) {
    fail_unless (!g_file_test (path[i], G_FILE_TEST_EXISTS), "%s", path[i]);
    g_free (path[i]);
  }
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 0, "OK");
  run_clear (&r);
  g_free (first);
  g_free (pattern);
}

GST_END_TEST;

/* Sets file i of pattern's set to an empty file marked as file i of id,
 * its index empty (id NULL: unmarked) */
static gchar *
empty_file (const gchar * pattern, guint64 i, const RtfRecordingId * id)
{
  gchar *path = rtf_pattern_format (pattern, i), *index = rtf_index_path (path);

  if (id)
    write_marked (path, 0, id, i);
  else
    fail_unless (g_file_set_contents (path, "", 0, NULL));
  fail_unless (g_file_set_contents (index, "", 0, NULL));
  g_free (index);
  return path;
}

/* Adversarial read of ccd141f: the delete of the set's last empty file
 * fails (F1: the file before it was deleted anyway, leaving a hole verify
 * called missing); an unmarked empty file after the set's last one
 * starts no run of files opened ahead (F3: the marked empty file after
 * it joined, and a user's file before it was read as a FAULT) */
GST_START_TEST (test_opened_ahead_run_never_leaves_hole)
{
  gchar *pattern = rtf_test_tmp_path ("c-%05d.raw"), *first, *last, *user;
  RtfRecordingId id;
  Run r = { 0 };
  gint fd, flags = 0;

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 10);
  first = rtf_pattern_format (pattern, 0);
  id = index_id (first);

  /* F3: files 2 (a user's), 3 (unmarked, empty), 4 (marked, empty) */
  user = rtf_pattern_format (pattern, 2);
  fail_unless (g_file_set_contents (user, "hello", -1, NULL));
  g_free (empty_file (pattern, 3, NULL));
  g_free (empty_file (pattern, 4, &id));
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 0, "is not this recording's");
  run_clear (&r);
  fail_unless (g_unlink (user) == 0);
  g_free (user);
  g_free (empty_file (pattern, 3, &id));

  /* F1: the delete of file 3, the last, fails (an immutable file) */
  last = rtf_pattern_format (pattern, 4);
  fail_unless (g_unlink (last) == 0);
  g_free (last);
  g_free (empty_file (pattern, 2, &id));
  last = rtf_pattern_format (pattern, 3);
  fd = open (last, O_RDONLY);
  fail_unless (fd >= 0);
  flags = FS_IMMUTABLE_FL;
  if (ioctl (fd, FS_IOC_SETFLAGS, &flags) != 0) {
    GST_INFO ("F1 not tried: no immutable files here (%s; root and a "
        "filesystem that has them)", g_strerror (errno));
    close (fd);
  } else {
    run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
    assert_run (&r, 2, "c-00002.raw: holds no frame reported written, but a "
        "later file of its set stays");
    run_clear (&r);
    flags = 0;
    fail_unless (ioctl (fd, FS_IOC_SETFLAGS, &flags) == 0);
    close (fd);
    run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
    assert_run (&r, 0, "OK");
    run_clear (&r);
  }
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 0, "c-00002.raw: no frame of it was reported written");
  run_clear (&r);
  fail_unless (!g_file_test (last, G_FILE_TEST_EXISTS));
  g_free (last);
  g_free (first);
  g_free (pattern);
}

GST_END_TEST;

/* The manifest at path as written at start: its final state taken out
 * (what a kill before EOS leaves) */
static void
drop_final_state (const gchar * path)
{
  gchar *text = NULL, **lines;
  GString *kept = g_string_new (NULL);
  guint i;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++)
    if (!g_str_has_prefix (lines[i], "final=")
        && !g_str_has_prefix (lines[i], "location-"))
      g_string_append_printf (kept, "%s%s", lines[i], lines[i + 1] ? "\n" : "");
  write_text (path, kept->str);
  g_strfreev (lines);
  g_string_free (kept, TRUE);
  g_free (text);
}

/* max-files=1 over two locations, killed as a location's next file began:
 * its only file holding frames went (max-files) and the next one, empty,
 * is all the location holds.  rtframe-recover keeps that file - deleted,
 * the location would read as a disk lost (torture 0xc1caf5093a2a4d22:
 * verify FAULT "location ... is missing") - and verify finds the location */
GST_START_TEST (test_only_file_left_at_location_kept)
{
  gchar **locs = two_locations ("m-%05d.raw");
  gchar *dir0 = g_path_get_dirname (locs[0]), *m0, *m1, *newest, *next;
  RtfRecordingId id;
  GDir *d;
  const gchar *name;
  guint64 top = 0;
  Run r = { 0 };

  spread_finish (spread_start (locs, "max-file-size", "5632", "max-files",
          "1", NULL), 24);
  m0 = rtf_spread_manifest_path (locs[0]);
  m1 = rtf_spread_manifest_path (locs[1]);
  drop_final_state (m0);
  drop_final_state (m1);
  /* location 0's newest file (the one max-files kept) */
  d = g_dir_open (dir0, 0, NULL);
  fail_unless (d != NULL);
  while ((name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".raw"))
      top = MAX (top, g_ascii_strtoull (name + 2, NULL, 10));
  g_dir_close (d);
  fail_unless (top > 0);
  newest = rtf_pattern_format (locs[0], top);
  id = index_id (newest);
  remove_but_manifests (dir0);
  next = empty_file (locs[0], top + 1, &id);

  /* (--allow-gaps: the frames of the file max-files deleted there are
   * numbers missing between the other location's, as after any kill) */
  run_bounded (&r, 20, 0, "rtframe-recover", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, "the only file left at its location");
  run_clear (&r);
  fail_unless (g_file_test (next, G_FILE_TEST_EXISTS));
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, "OK");
  fail_unless (strstr (r.out, "of the recording is missing") == NULL, "%s",
      r.out);
  run_clear (&r);
  /* two empty files there (a stall on the current file's first frame,
   * the next open ahead): the last goes, the one left stays (the
   * adversarial read of 68ae2f7: both went, the location missing) */
  g_free (next);
  next = empty_file (locs[0], top + 2, &id);
  run_bounded (&r, 20, 0, "rtframe-recover", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, "the only file left at its location");
  run_clear (&r);
  fail_unless (!g_file_test (next, G_FILE_TEST_EXISTS));
  g_free (next);
  next = rtf_pattern_format (locs[0], top + 1);
  fail_unless (g_file_test (next, G_FILE_TEST_EXISTS));
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, "OK");
  run_clear (&r);
  /* that file killed with its first frame in flight: bytes of it in the
   * file, its index still empty.  Cut to nothing, not deleted (the
   * adversarial read of bb79aa8, H1: deleted, exit 0, then verify called
   * the location missing) */
  write_marked (next, 3000, &id, top + 1);
  run_bounded (&r, 20, 0, "rtframe-recover", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, "first frame was still being written");
  run_clear (&r);
  fail_unless (g_file_test (next, G_FILE_TEST_EXISTS));
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, "OK");
  fail_unless (strstr (r.out, "of the recording is missing") == NULL, "%s",
      r.out);
  run_clear (&r);
  /* the same, with rtframe-recover given the location's pattern, not the
   * manifest: kept as well, and the manifest beside it named (the
   * adversarial read of 70d174f: deleted, the keep-last rule knew only
   * recordings opened through their manifest) */
  write_marked (next, 3000, &id, top + 1);
  run_bounded (&r, 20, 0, "rtframe-recover", "--allow-gaps", locs[0], NULL);
  assert_run (&r, 0, "first frame was still being written");
  fail_unless (strstr (r.out, "is beside it") != NULL, "%s", r.out);
  run_clear (&r);
  fail_unless (g_file_test (next, G_FILE_TEST_EXISTS));
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", m0, NULL);
  assert_run (&r, 0, "OK");
  fail_unless (strstr (r.out, "of the recording is missing") == NULL, "%s",
      r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", locs[0], NULL);
  fail_unless (strstr (r.out, "is beside it") != NULL, "%s", r.out);
  run_clear (&r);
  g_free (next);
  g_free (newest);
  g_free (m1);
  g_free (m0);
  g_free (dir0);
  g_strfreev (locs);
}

GST_END_TEST;

/* The sink reaching a FIFO at its next name (a RESOURCE/OPEN_WRITE error,
 * the FIFO left alone): every frame it reported written is read back,
 * by every reader, and the FIFO is a note (torture seed
 * 0x814b196b81a41a86: none of the 51 frames reported written played) */
GST_START_TEST (test_fifo_reached_by_sink_not_read)
{
  gchar *pattern = rtf_test_tmp_path ("f-%05d.raw");
  gchar *fifo = rtf_pattern_format (pattern, 2);
  guint64 *want, written;
  GstStructure *st;
  Found f;
  Rec *r;
  guint64 i;

  fail_unless (mkfifo (fifo, 0644) == 0);
  found_take (&f, fifo);
  r = rtf_test_rec_start (pattern, "max-file-size=7040", CAPS);
  for (i = 0; i < 15 && rtf_test_rec_push (r, 0, i) == GST_FLOW_OK; i++);
  gst_harness_push_event (r->h, gst_event_new_eos ());
  rtf_test_assert_message (r->bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, "f-00002.raw");
  /* (the frames of file 1 after the one whose release saw the error are
   * lost with it, not reported written) */
  st = rtf_test_get_stats (r->h);
  written = rtf_test_stat_u64 (st, "frames-written");
  fail_unless (written >= 5 && written <= 10, "%" G_GUINT64_FORMAT, written);
  gst_structure_free (st);
  rtf_test_rec_stop (r);
  assert_found_alone (&f, fifo);
  want = upto (written);
  assert_read_with_note (pattern, want, written, "f-00002.raw is not this "
      "recording's: it is a FIFO");
  g_free (want);
  g_free (fifo);
  g_free (pattern);
}

GST_END_TEST;

/* ---- issue 23 F2: a location that holds no frame ----------------------- */

/* Frames 0..n-1 pushed, each taken */
static void
push_all (Rec * r, guint64 n)
{
  guint64 i;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
}

/* What the sink posted: errors counted, warnings of `code` counted
 * (printed), location-left messages counted */
typedef struct
{
  guint errors, warnings, left;
} Posted;

static void
pop_posted (GstBus * bus, gint code, Posted * p)
{
  GstMessage *msg;

  memset (p, 0, sizeof (*p));
  while ((msg = gst_bus_pop (bus))) {
    GError *err = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      p->errors++;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &err, NULL);
      g_print ("  WARNING: %s\n", err->message);
      p->warnings += err->domain == GST_RESOURCE_ERROR && err->code == code;
      g_error_free (err);
    }
    p->left += gst_message_has_name (msg, "rtframesink-location-left");
    gst_message_unref (msg);
  }
}

/* data (size bytes) is stamped frame seq, byte for byte */
static gboolean
frame_is (const guint8 * data, gsize size, guint64 seq)
{
  guint8 *want = g_malloc (size);
  gboolean same;

  rtf_test_fill_frame (want, size, 0, seq);
  same = memcmp (want, data, size) == 0;
  g_free (want);
  return same;
}

/* The names in dir but the manifest's, as one string */
static gchar *
files_in (const gchar * dir)
{
  GString *s = g_string_new (NULL);
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  fail_unless (d != NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    if (!g_str_has_suffix (name, RTF_SPREAD_MANIFEST_SUFFIX))
      g_string_append_printf (s, "%s ", name);
  g_dir_close (d);
  return g_string_free (s, FALSE);
}

/* The manifest beside location holds the final state: each location's
 * state and frames written there */
static void
assert_final (const gchar * location, const gchar * states,
    const gchar * frames)
{
  gchar *path = rtf_spread_manifest_path (location), *text = NULL;
  gchar *s = g_strdup_printf ("\nlocation-states=%s\n", states);
  gchar *f = g_strdup_printf ("\nlocation-frames=%s\n", frames);

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  fail_unless (strstr (text, "\nfinal=true\n") != NULL, "%s", text);
  fail_unless (strstr (text, s) != NULL && strstr (text, f) != NULL, "%s",
      text);
  g_free (f);
  g_free (s);
  g_free (text);
  g_free (path);
}

/* Issue 23, F2: a location the recording placed no frame at holds no
 * file once rtframe-recover deleted the empty one the sink had made; the
 * final state the sink writes in the manifests at EOS says it holds
 * none, so it is a note, not a fault, through either manifest.  After a crash (no final state:
 * the manifests as written at start) nothing tells it from a disk that
 * died: a fault, saying so.  Before: verify "FAULT location ... is
 * missing", exit 1; recover and dump exit 1; rtframesrc a warning. */
GST_START_TEST (test_location_without_frame_noted)
{
  gchar **locs = two_locations ("n-%05d.raw");
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *m1 = rtf_spread_manifest_path (locs[1]);
  gchar *b = rtf_test_tmp_path ("b"), *in_b, *note;
  const guint64 want[] = { 0 };
  Run r = { 0 };

  /* round robin: the only frame goes to a; b's first file, when it was
   * named at all (its start may come after the EOS: under valgrind), stays
   * empty, and rtframe-recover deletes it (marked, never written) */
  spread_finish (spread_start (locs, NULL), 1);
  assert_final (locs[0], "active;active;", "1;0;");
  assert_final (locs[1], "active;active;", "1;0;");
  run_bounded (&r, 20, 0, "rtframe-recover", m0, NULL);
  assert_run (&r, 0, NULL);
  run_clear (&r);
  in_b = files_in (b);
  fail_unless_equals_string (in_b, "");
  note = g_strdup_printf ("location %s holds no frame: the recording placed "
      "none there", locs[1]);
  assert_read_with_note (m0, want, 1, note);
  assert_read_with_note (m1, want, 1, note);

  as_crashed (locs);
  run_bounded (&r, 20, 0, "rtframe-verify", m0, NULL);
  assert_run (&r, 1, "no manifest holds the recording's final state");
  fail_unless (strstr (r.out, locs[1]) != NULL, "%s", r.out);
  run_clear (&r);
  g_free (note);
  g_free (in_b);
  g_free (b);
  g_free (m1);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* The same with a disk full from the start (torture seeds
 * 0xc4e4a7d018a3c5ae, 0xb22f077d3a30eadf; root: a tmpfs of 16 KiB with
 * someone's file leaving room for the manifest only): that location fails
 * at its first frame and leaves, all 20 frames are written at the other.
 * Read through either manifest (the full location's was written at start
 * and has no final state: the readers take the other's) every reader
 * finds all 20 frames and says why the location holds none; someone's
 * file is as it was.  Before: verify FAULT, exit 1. */
GST_START_TEST (test_full_location_at_start_noted)
{
  gchar **locs = two_locations ("full-%05d.raw");
  gchar *a = rtf_test_tmp_path ("a"), *cmd, *theirs, *note;
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *m1 = rtf_spread_manifest_path (locs[1]);
  guint64 *want = upto (20);
  GstStructure *st;
  Posted posted;
  Found f;
  Rec *r;

  if (!rtf_test_is_root ()) {
    g_print ("skipped: mounting a small tmpfs needs root\n");
    goto out;
  }
  cmd = g_strdup_printf ("mount -t tmpfs -o size=16k tmpfs '%s'", a);
  fail_unless_equals_int (rtf_test_run (cmd), 0);
  g_free (cmd);
  theirs = g_build_filename (a, "theirs.bin", NULL);
  cmd = g_strdup_printf ("dd if=/dev/urandom of='%s' bs=4096 count=3 "
      "2>/dev/null", theirs);
  fail_unless_equals_int (rtf_test_run (cmd), 0);
  g_free (cmd);
  found_take (&f, theirs);

  r = spread_start (locs, "min-free-space", "0", NULL);
  push_all (r, 20);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  pop_posted (r->bus, GST_RESOURCE_ERROR_NO_SPACE_LEFT, &posted);
  fail_unless_equals_int (posted.errors, 0);
  fail_unless_equals_int (posted.warnings, 1);
  fail_unless_equals_int (posted.left, 1);
  st = rtf_test_get_stats (r->h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 20);
  gst_structure_free (st);
  rtf_test_rec_stop (r);
  assert_found_alone (&f, theirs);
  assert_final (locs[1], "failed;active;", "0;20;");

  note = g_strdup_printf ("location %s holds no frame: it left the "
      "recording before its first", locs[0]);
  assert_read_with_note (m1, want, 20, note);
  if (g_file_test (m0, G_FILE_TEST_EXISTS))
    assert_read_with_note (m0, want, 20, note);
  g_free (note);
  fail_unless (rtf_test_umount (a));
  g_free (theirs);
out:
  g_free (want);
  g_free (m1);
  g_free (m0);
  g_free (a);
  g_strfreev (locs);
}

GST_END_TEST;

/* With the final state the readers know how many frames each location
 * holds: a location's last file removed after the recording (its tail: no
 * gap in the numbers shows it) is a fault, "holds 8 frames, 10 were
 * reported written there"; the location gone, its 10 frames are counted.
 * Before: the tail removed, verify said OK (exit 0). */
GST_START_TEST (test_final_state_counts_frames)
{
  gchar **locs = record_two ("t-%05d.raw", 20);
  gchar *m0 = rtf_spread_manifest_path (locs[0]);
  gchar *b = rtf_test_tmp_path ("b"), *says, *rm;
  Played p;
  Run r = { 0 };

  remove_file (locs[1], 2);
  says = g_strdup_printf ("location %s holds 8 frames, 10 were reported "
      "written there", locs[1]);
  run_bounded (&r, 20, 0, "rtframe-verify", m0, NULL);
  assert_run (&r, 1, says);
  fail_unless (strstr (r.out, "2 are missing") != NULL, "%s", r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-dump", m0, NULL);
  assert_run (&r, 1, says);
  run_clear (&r);
  play (m0, &p);
  fail_unless (strstr (p.warnings->str, says) != NULL, "%s", p.warnings->str);
  fail_unless_equals_int64 (p.frames, 18);
  played_clear (&p);
  g_free (says);

  rm = g_strdup_printf ("rm -rf '%s'", b);
  fail_unless_equals_int (rtf_test_run (rm), 0);
  run_bounded (&r, 20, 0, "rtframe-verify", m0, NULL);
  assert_run (&r, 1, "the 10 frames reported written there (the final state "
      "in ");
  run_clear (&r);
  g_free (rm);
  g_free (b);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* ---- issue 23 F8: frames failed over, read in number order ------------ */

static gint
by_number (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* The frame numbers rec's files hold, sorted, in *want (*n); how many of
 * them come after a higher one in the order of the files */
static guint64
b_frames (const RtfRecording * rec, guint64 ** want, guint * n)
{
  GArray *seqs = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 top = 0, late = 0, j;
  guint i;

  for (i = 0; i < rec->n_files; i++)
    for (j = 0; j < rec->files[i].walk.frames; j++) {
      guint64 seq = rec->files[i].index->records[j].seq;

      late += seqs->len > 0 && seq < top;
      top = MAX (top, seq);
      g_array_append_val (seqs, seq);
    }
  g_array_sort (seqs, by_number);
  *n = seqs->len;
  *want = (guint64 *) g_array_free (seqs, FALSE);
  return late;
}

/* A spread over two locations whose first (a) fails mid-run - a FIFO at
 * its second file's name - while frames go flat out, round robin: the
 * frames queued there are written at b after frames b took meanwhile.
 * Tries up to 5 recordings until b's files hold a frame after a later one
 * (as every one did by hand); the locations in *locs, b's frames in
 * number order in *want (*n). */
static void
record_failed_over (gchar *** locs, guint64 ** want, guint * n)
{
  guint round;

  for (round = 0; round < 5; round++) {
    gchar *name = g_strdup_printf ("o%u-%%05d.raw", round), *fifo;
    GError *error = NULL;
    RtfRecording *rec;
    Posted posted;
    guint64 k;
    Rec *r;

    *locs = two_locations (name);
    fifo = rtf_pattern_format ((*locs)[0], 1);
    fail_unless (mkfifo (fifo, 0644) == 0);
    r = spread_start (*locs, "max-file-size", "5632", NULL);
    push_all (r, 40);
    fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
    pop_posted (r->bus, GST_RESOURCE_ERROR_OPEN_WRITE, &posted);
    fail_unless_equals_int (posted.errors, 0);
    fail_unless_equals_int (posted.left, 1);
    rtf_test_rec_stop (r);
    rec = rtf_recording_open ((*locs)[1], 0, TRUE, &error);
    fail_unless (rec != NULL, "%s", error ? error->message : "");
    k = b_frames (rec, want, n);
    g_print ("  round %u: b holds %u frames, %" G_GUINT64_FORMAT " after a "
        "later one in its files\n", round, *n, k);
    rtf_recording_free (rec);
    g_free (fifo);
    g_free (name);
    if (k > 0)
      return;
    g_free (*want);
    g_strfreev (*locs);
  }
  fail ("no frame failed over landed after a later one in 5 recordings");
}

/* Issue 23, F8 (torture seeds 0x18f534e59c730443, 0x68307185efbc9e4e): a
 * location read alone (its pattern: the only way when no manifest could
 * be written) whose files hold frames failed over after later ones is
 * read in number order by every reader, verify and dump saying so;
 * rtframesrc seeks in it by frame and by time.  Through the manifest the
 * whole recording reads, a's FIFO a note (F1).  Before: rtframesrc played
 * 13 then 8 (pts going back), dump listed them so, verify said nothing. */
GST_START_TEST (test_failed_over_frames_in_number_order)
{
  gchar **locs, *m1, *says;
  guint64 *want, *all = upto (40);
  GRand *rand = g_rand_new_with_seed (23);
  GstElement *pipe, *sink;
  guint n, i;
  Played p;
  Run r = { 0 };

  record_failed_over (&locs, &want, &n);
  for (i = 1; i < n; i++)
    fail_unless (want[i] > want[i - 1]);
  says = g_strdup ("frames failed over from another location: ");
  run_bounded (&r, 20, 0, "rtframe-verify", "--allow-gaps", locs[1], NULL);
  assert_run (&r, 0, says);
  fail_unless (strstr (r.out, ", placed in number order") != NULL, "%s", r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-dump", locs[1], NULL);
  assert_run (&r, 0, says);
  assert_dump_lines (r.out, want, n);
  run_clear (&r);
  play (locs[1], &p);
  assert_played (&p, want, n);
  played_clear (&p);

  /* seeks land on the frame asked for: its number (the recording's, as
   * the buffer's offset says it), or its time */
  pipe = gst_parse_launch ("rtframesrc name=src ! appsink name=out "
      "sync=false", NULL);
  fail_unless (pipe != NULL);
  {
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");

    g_object_set (src, "location", locs[1], NULL);
    gst_object_unref (src);
  }
  sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, 5 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  for (i = 0; i < 16; i++) {
    guint k = g_rand_int_range (rand, 0, n);
    GstSample *sample;
    GstMapInfo map;

    if (i % 2 == 0)
      fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_DEFAULT,
              GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, want[k]));
    else                        /* 20 ms into the frame (pts seq / 20 s) */
      fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
              GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
              want[k] * GST_SECOND / 20 + 20 * GST_MSECOND));
    sample = gst_app_sink_pull_preroll (GST_APP_SINK (sink));
    fail_unless (sample != NULL);
    fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
            GST_MAP_READ));
    fail_unless (frame_is (map.data, map.size, want[k]),
        "seek %u to place %u: not frame %" G_GUINT64_FORMAT, i, k, want[k]);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (gst_sample_get_buffer
            (sample)), want[k]);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);

  /* the whole recording, through b's manifest (a's has no final state) */
  m1 = rtf_spread_manifest_path (locs[1]);
  assert_read_with_note (m1, all, 40, "-00001.raw is not this recording's: "
      "it is a FIFO");
  run_bounded (&r, 20, 0, "rtframe-verify", m1, NULL);
  assert_run (&r, 0, " 40 frames in frame-number order");
  run_clear (&r);
  g_free (m1);
  g_rand_free (rand);
  g_free (says);
  g_free (all);
  g_free (want);
  g_strfreev (locs);
}

GST_END_TEST;

/* ---- adversarial review 2: R1, U1, L1 ---------------------------------- */

/* One bit of the last record of the index of file `number` of pattern
 * flipped in place (bit rot, a bad sector): its checksum no longer
 * matches */
static void
damage_last_record (const gchar * pattern, guint64 number)
{
  gchar *path = rtf_pattern_format (pattern, number);
  gchar *idx = rtf_index_path (path);
  struct stat st;
  guint8 b;
  gint fd = open (idx, O_RDWR);

  fail_unless (fd >= 0 && fstat (fd, &st) == 0);
  fail_unless (pread (fd, &b, 1, st.st_size - 20) == 1);
  b ^= 0x01;
  fail_unless (pwrite (fd, &b, 1, st.st_size - 20) == 1);
  close (fd);
  g_free (idx);
  g_free (path);
}

/* File `number` of pattern and its index, as they are now */
static void
found_pair (Found * data, Found * index, const gchar * pattern, guint64 number)
{
  gchar *path = rtf_pattern_format (pattern, number);
  gchar *idx = rtf_index_path (path);

  found_take (data, path);
  found_take (index, idx);
  g_free (idx);
  g_free (path);
}

static void
assert_pair_alone (Found * data, Found * index, const gchar * pattern,
    guint64 number)
{
  gchar *path = rtf_pattern_format (pattern, number);
  gchar *idx = rtf_index_path (path);

  assert_found_alone (data, path);
  assert_found_alone (index, idx);
  g_free (idx);
  g_free (path);
}

/* Whether the sink's mark is on path (a filesystem keeping xattrs) */
static gboolean
marked (const gchar * path)
{
  RtfRecordingId id;
  guint64 number;
  gint fd = open (path, O_RDONLY);
  gboolean ret;

  fail_unless (fd >= 0);
  ret = rtf_file_mark_get (fd, &id, &number);
  close (fd);
  return ret;
}

/* R1: the last record of a file in the middle of a set damaged (one bit):
 * that file was closed before the next began, so its end is no crash's;
 * the frame it stood for lies whole in the file and was reported written.
 * rtframe-recover cut it (exit 0 with --allow-gaps), and said the record
 * it cut was "kept as it is"; now it cuts nothing, says so, exit 1. */
GST_START_TEST (test_damaged_last_record_of_closed_file_kept)
{
  gchar *pattern = rtf_test_tmp_path ("cam-%05d.raw");
  Found data, index;
  Run r = { 0 };

  rtf_test_record (pattern, "max-file-size=7040 checksums=true", CAPS, 20);
  damage_last_record (pattern, 1);
  found_pair (&data, &index, pattern, 1);
  run_bounded (&r, 20, 0, "rtframe-recover", "--allow-gaps", pattern, NULL);
  assert_run (&r, 1, "a later file of the recording holds frames");
  fail_unless (strstr (r.out,
          "Nothing is cut: the file and its index are left") != NULL, "%s",
      r.out);
  run_clear (&r);
  assert_pair_alone (&data, &index, pattern, 1);
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 1, "damaged or torn");
  run_clear (&r);
  g_free (pattern);
}

GST_END_TEST;

/* R1: the same at the last file of a location of a spread that ended with
 * EOS (its final state): no file of it has a crash's tail */
GST_START_TEST (test_damaged_last_record_after_eos_kept)
{
  gchar **locs = record_two ("s-%05d.raw", 16);
  gchar *manifest = rtf_spread_manifest_path (locs[0]);
  Found data, index;
  Run r = { 0 };

  damage_last_record (locs[1], 1);
  found_pair (&data, &index, locs[1], 1);
  run_bounded (&r, 20, 0, "rtframe-recover", manifest, NULL);
  assert_run (&r, 1, "the recording ended with EOS");
  fail_unless (strstr (r.out,
          "Nothing is cut: the file and its index are left") != NULL, "%s",
      r.out);
  run_clear (&r);
  assert_pair_alone (&data, &index, locs[1], 1);
  g_free (manifest);
  g_strfreev (locs);
}

GST_END_TEST;

/* The last file of a set recorded without a final state may end in a
 * torn record (a crash): its tail is cut, and the record is said to be
 * cut with it (it was said "kept as it is") */
GST_START_TEST (test_torn_last_record_of_last_file_cut)
{
  gchar *pattern = rtf_test_tmp_path ("cam-%05d.raw");
  gchar *last = rtf_test_tmp_path ("cam-00003.raw");
  struct stat st;
  Run r = { 0 };

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 20);
  damage_last_record (pattern, 3);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 0, "keeping 4 frames");
  fail_unless (strstr (r.out, "damaged or torn: cut with the tail") != NULL,
      "%s", r.out);
  fail_unless (strstr (r.out, "kept as it is") == NULL, "%s", r.out);
  run_clear (&r);
  fail_unless (stat (last, &st) == 0);
  fail_unless_equals_int64 (st.st_size, 4 * FRAME);
  g_free (last);
  g_free (pattern);
}

GST_END_TEST;

/* U1: a user's file (a new inode, no mark) at the name of a file in the
 * middle of a set whose other files carry the mark, the recording's index
 * still beside it.  Only the name tied them: recover cut the user's file
 * (exit 0), verify said OK and rtframesrc played its bytes as frames.
 * Now: not proven the recording's - left as it is, a fault, not played. */
GST_START_TEST (test_user_file_in_set_not_taken)
{
  gchar *pattern = rtf_test_tmp_path ("cam-%05d.raw");
  gchar *path = rtf_test_tmp_path ("cam-00001.raw");
  gchar *bytes = g_malloc (8000);
  Found data, index;
  Played p;
  Run r = { 0 };
  guint i;

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 20);
  if (!marked (path)) {
    g_print ("SKIP: %s keeps no extended attributes\n", path);
    goto out;
  }
  for (i = 0; i < 8000; i++)
    bytes[i] = (gchar) g_random_int ();
  /* exactly the frames' size: every reader took it as the file */
  fail_unless (g_unlink (path) == 0);
  fail_unless (g_file_set_contents (path, bytes, 5 * FRAME, NULL));
  run_bounded (&r, 20, 0, "rtframe-verify", "-q", pattern, NULL);
  assert_run (&r, 1, "carries no rtframe mark");
  run_clear (&r);
  play (pattern, &p);
  fail_unless (p.error != NULL && strstr (p.error, "cam-00001.raw"),
      "rtframesrc played %" G_GINT64_FORMAT " frames of %s", p.frames, path);
  played_clear (&p);
  /* longer than the frames: recover cut it to them */
  fail_unless (g_unlink (path) == 0);
  fail_unless (g_file_set_contents (path, bytes, 8000, NULL));
  found_pair (&data, &index, pattern, 1);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 1, "carries no rtframe mark");
  run_clear (&r);
  assert_pair_alone (&data, &index, pattern, 1);
out:
  g_free (bytes);
  g_free (path);
  g_free (pattern);
}

GST_END_TEST;

/* U1 (c): a user's note written over a file of the set (the same inode:
 * the mark stays), its index holding the records of the frames that
 * were there.  recover deleted both ("its index holds none"); a file
 * whose records lie past its data lost frames reported written: now it
 * and its index are left as they are. */
GST_START_TEST (test_file_written_over_in_set_not_deleted)
{
  gchar *pattern = rtf_test_tmp_path ("cam-%05d.raw");
  gchar *path = rtf_test_tmp_path ("cam-00001.raw");
  const gchar *note = "my notes, not a recording\n";
  Found data, index;
  Run r = { 0 };
  gint fd;

  rtf_test_record (pattern, "max-file-size=7040", CAPS, 20);
  if (!marked (path)) {
    g_print ("SKIP: %s keeps no extended attributes\n", path);
    goto out;
  }
  /* as cp does: the name opened with O_TRUNC, the inode kept */
  fd = open (path, O_WRONLY | O_TRUNC);
  fail_unless (fd >= 0 && write (fd, note, strlen (note)) > 0);
  close (fd);
  fail_unless (marked (path));
  found_pair (&data, &index, pattern, 1);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 1, "not by a crash");
  run_clear (&r);
  assert_pair_alone (&data, &index, pattern, 1);
out:
  g_free (path);
  g_free (pattern);
}

GST_END_TEST;

/* U1: with checksums, a file of the set written over in place (its mark
 * kept) with more bytes than its frames: its frames no longer match their
 * checksums - recover printed that, exit 1, and still cut the tail.  Now
 * nothing of it is cut. */
GST_START_TEST (test_checksum_mismatch_not_cut)
{
  gchar *pattern = rtf_test_tmp_path ("cam-%05d.raw");
  gchar *path = rtf_test_tmp_path ("cam-00001.raw");
  gchar *bytes = g_malloc (8000);
  Found data, index;
  Run r = { 0 };
  guint i;
  gint fd;

  rtf_test_record (pattern, "max-file-size=7040 checksums=true", CAPS, 20);
  for (i = 0; i < 8000; i++)
    bytes[i] = (gchar) g_random_int ();
  fd = open (path, O_WRONLY);
  fail_unless (fd >= 0);
  fail_unless (pwrite (fd, bytes, 8000, 0) == 8000);
  close (fd);
  found_pair (&data, &index, pattern, 1);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 1, "do not match their checksums");
  fail_unless (strstr (r.out, "nothing is cut") != NULL, "%s", r.out);
  run_clear (&r);
  assert_pair_alone (&data, &index, pattern, 1);
  g_free (bytes);
  g_free (path);
  g_free (pattern);
}

GST_END_TEST;

/* L1: a prepared file whose rename was lost (a power cut where the
 * directory was not synced), holding indexed frames reported written
 * (simulated: the last file and its index moved back to the hidden names
 * the sink prepares them under - the same inodes, the mark kept).  verify
 * said OK with a note "no frame of it was reported written", and recover
 * deleted both.  Now: a fault; recover leaves them, saying how to name
 * them. */
GST_START_TEST (test_leftover_with_frames_kept)
{
  gchar *pattern = rtf_test_tmp_path ("cam-%05d.raw");
  gchar *path = rtf_test_tmp_path ("cam-00003.raw");
  gchar *idx = rtf_index_path (path);
  gchar *hidden = rtf_test_tmp_path (".cam-00003.raw.1a2b3c4d.rtfprep");
  gchar *hidden_idx = rtf_index_path (hidden);
  Found data, index;
  Run r = { 0 };

  rtf_test_record (pattern, "max-file-size=7040 checksums=true", CAPS, 20);
  if (!marked (path)) {
    g_print ("SKIP: %s keeps no extended attributes\n", path);
    goto out;
  }
  fail_unless (rename (path, hidden) == 0 && rename (idx, hidden_idx) == 0);
  found_take (&data, hidden);
  found_take (&index, hidden_idx);
  run_bounded (&r, 20, 0, "rtframe-verify", pattern, NULL);
  assert_run (&r, 1, "its index holds 5 records");
  fail_unless (strstr (r.out, "no frame of it was reported written") == NULL,
      "%s", r.out);
  run_clear (&r);
  run_bounded (&r, 20, 0, "rtframe-recover", pattern, NULL);
  assert_run (&r, 1, "rename it to");
  fail_unless (strstr (r.out, "that name is free") != NULL, "%s", r.out);
  run_clear (&r);
  assert_found_alone (&data, hidden);
  assert_found_alone (&index, hidden_idx);
out:
  g_free (hidden_idx);
  g_free (hidden);
  g_free (idx);
  g_free (path);
  g_free (pattern);
}

GST_END_TEST;

static Suite *
hostile_readers_suite (void)
{
  Suite *s = suite_create ("hostile-readers");
  TCase *tc = rtf_test_tcase (s, "manifests");

  tcase_set_timeout (tc, 120 * rtf_test_time_scale ());
  tcase_add_test (tc, test_manifest_naming_itself_refused);
  tcase_add_test (tc, test_location_holding_a_manifest_not_read);
  tcase_add_test (tc, test_manifest_fifo_not_opened);
  tcase_add_test (tc, test_sink_start_not_blocked_by_fifo_manifest);
  tcase_add_test (tc, test_manifest_link_not_followed);
  tcase_add_test (tc, test_manifest_size_bounded);
  tcase_add_test (tc, test_manifest_duplicate_locations_refused);
  tc = rtf_test_tcase (s, "indexes");
  tcase_set_timeout (tc, 120 * rtf_test_time_scale ());
  tcase_add_test (tc, test_sparse_giant_index_bounded);
  tcase_add_test (tc, test_v1_set_keeps_other_recordings_marked_files);
  tc = rtf_test_tcase (s, "parts missing");
  tcase_set_timeout (tc, 120 * rtf_test_time_scale ());
  tcase_add_test (tc, test_missing_location_reported);
  tcase_add_test (tc, test_spread_location_without_id_refused);
  tcase_add_test (tc, test_missing_middle_file_reported);
  tcase_add_test (tc, test_first_files_gone_not_reported);
  tcase_add_test (tc, test_file_after_gap_of_other_recording_not_read);
  tcase_add_test (tc, test_spread_crash_tools_agree);
  tcase_add_test (tc, test_spread_sigkill_tools_agree);
  tc = rtf_test_tcase (s, "torture findings");
  tcase_set_timeout (tc, 120 * rtf_test_time_scale ());
  tcase_add_test (tc, test_foreign_file_after_set_not_read);
  tcase_add_test (tc, test_user_file_at_hidden_name_noted);
  tcase_add_test (tc, test_marked_file_after_set_is_recordings);
  tcase_add_test (tc, test_two_files_opened_ahead_deleted);
  tcase_add_test (tc, test_opened_ahead_run_never_leaves_hole);
  tcase_add_test (tc, test_only_file_left_at_location_kept);
  tcase_add_test (tc, test_fifo_reached_by_sink_not_read);
  tcase_add_test (tc, test_location_without_frame_noted);
  tcase_add_test (tc, test_full_location_at_start_noted);
  tcase_add_test (tc, test_final_state_counts_frames);
  tcase_add_test (tc, test_failed_over_frames_in_number_order);
  tc = rtf_test_tcase (s, "adversarial 2");
  tcase_set_timeout (tc, 120 * rtf_test_time_scale ());
  tcase_add_test (tc, test_damaged_last_record_of_closed_file_kept);
  tcase_add_test (tc, test_damaged_last_record_after_eos_kept);
  tcase_add_test (tc, test_torn_last_record_of_last_file_cut);
  tcase_add_test (tc, test_user_file_in_set_not_taken);
  tcase_add_test (tc, test_file_written_over_in_set_not_deleted);
  tcase_add_test (tc, test_checksum_mismatch_not_cut);
  tcase_add_test (tc, test_leftover_with_frames_kept);
  tc = rtf_test_tcase (s, "paths");
  tcase_set_timeout (tc, 120 * rtf_test_time_scale ());
  tcase_add_test (tc, test_relative_locations_found_from_anywhere);
  tcase_add_test (tc, test_old_manifest_relative_locations);
  tcase_add_test (tc, test_non_utf8_location_readable);
  tcase_add_test (tc, test_stale_manifest_left);
  tcase_add_test (tc, test_spread_kill_before_first_frame);
  return s;
}

int
main (int argc, char **argv)
{
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (argc == 4 && strcmp (argv[1], "--spread-crash-child") == 0) {
    gst_init (NULL, NULL);
    return spread_crash_child (argv + 2);
  }
  if (argc == 4 && strcmp (argv[1], "--spread-one-frame-child") == 0) {
    gst_init (NULL, NULL);
    return spread_one_frame_child (argv + 2);
  }
  /* under valgrind (a time scale above 1), as tools/test.sh --valgrind:
   * valgrind keeps its lock while a thread waits in io_uring_enter(), so
   * the writers' waits are cut short for the other threads to run (the
   * recordings took minutes) */
  if (rtf_test_time_scale () > 1)
    g_setenv ("RTFRAME_URING_MAX_WAIT_MS", "1", FALSE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (hostile_readers_suite (), "hostile-readers",
      __FILE__);
}
