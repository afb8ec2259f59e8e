/* Issue 23, the writing side: what rtframesink may replace, lock and
 * delete, and what it does flat out.  Each case is one of the issue's
 * reproductions (or one found while fixing them), on real files: $TMPDIR,
 * and as root a tmpfs of its own, XFS and ext4 on loop devices.
 *
 *   4   a location (or a file a pattern reaches) that is an rtframe index
 *       or a manifest; indexes are locked like data files
 *   5   a user's file that appears at a prepared file's index name
 *   13  frames still queued after a write error (use after free)
 *   14  the free-space guard flat out on a 200 MB tmpfs and a 320 MB XFS (its smallest)
 *   +   a file in use when the guard or max-files wants to delete it
 *   F3  (torture) the index full while frames still fit their reservation;
 *       a preallocation larger than the disk (one file, a set, a spread)
 *   F5  (torture) frames larger than a quarter of min-free-space
 *
 * (F3 and F5 failed at c82650a, the rest at c8d0d25.)  Root-only cases
 * skip with the reason otherwise. */
#include <gst/check/gstcheck.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* 64x16 GRAY10_LE32: 1408 bytes, not a multiple of any block */
#define CAPS "video/x-raw,format=GRAY10_LE32,width=64,height=16,framerate=20/1"
#define FRAME 1408
/* the issue's frames: GRAY8 640x480, 307200 bytes (75 blocks) */
#define BIG_CAPS "video/x-raw,format=GRAY8,width=640,height=480," \
    "framerate=30/1"
#define BIG_FRAME G_GUINT64_CONSTANT (307200)
#define MB G_GUINT64_CONSTANT (1000000)

/* ---- files: what one is, to tell it untouched ------------------------- */

/* Its content (SHA-256), size, inode, modification and change times */
static gchar *
identity (const gchar * path)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 *buf = g_malloc (1 << 20);
  struct stat st;
  gchar *out;
  ssize_t n;
  gint fd = open (path, O_RDONLY);

  fail_unless (fd >= 0, "%s: %s", path, g_strerror (errno));
  fail_unless (fstat (fd, &st) == 0);
  while ((n = read (fd, buf, 1 << 20)) > 0)
    g_checksum_update (sum, buf, n);
  fail_unless (n == 0);
  close (fd);
  out = g_strdup_printf ("%s size %" G_GINT64_FORMAT " inode %"
      G_GUINT64_FORMAT " mtime %ld.%09ld ctime %ld.%09ld",
      g_checksum_get_string (sum), (gint64) st.st_size, (guint64) st.st_ino,
      (long) st.st_mtim.tv_sec, (long) st.st_mtim.tv_nsec,
      (long) st.st_ctim.tv_sec, (long) st.st_ctim.tv_nsec);
  g_checksum_free (sum);
  g_free (buf);
  return out;
}

static void
assert_identity (const gchar * path, const gchar * before)
{
  gchar *now = identity (path);

  fail_unless_equals_string (now, before);
  g_free (now);
}

/* A user's file: text of theirs */
static gchar *
plant (const gchar * name, const gchar * text)
{
  gchar *path = rtf_test_tmp_path (name);

  fail_unless (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* No hidden file of a prepared split is left in dir */
static void
assert_no_hidden_files (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  fail_unless (d != NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    fail_if (strstr (name, ".rtfprep") != NULL, "%s left behind", name);
  g_dir_close (d);
}

static guint64
fs_free (const gchar * dir)
{
  struct statvfs st;

  fail_unless (statvfs (dir, &st) == 0);
  return (guint64) st.f_bavail * st.f_frsize;
}

/* ... root's reserve too (ext4 keeps 5% for root; a filler run by root
 * takes it) */
static guint64
fs_free_all (const gchar * dir)
{
  struct statvfs st;

  fail_unless (statvfs (dir, &st) == 0);
  return (guint64) st.f_bfree * st.f_frsize;
}

/* `pattern`'s file `number` holds exactly frames first .. first + n - 1 */
static void
assert_set_file (const gchar * pattern, guint64 number, gsize size,
    guint64 first, guint64 n)
{
  gchar *path = rtf_pattern_format (pattern, number);

  rtf_test_assert_frames (path, size, first, n);
  g_free (path);
}

static gboolean
set_file_exists (const gchar * pattern, guint64 number)
{
  gchar *path = rtf_pattern_format (pattern, number);
  gboolean there = g_file_test (path, G_FILE_TEST_EXISTS);

  g_free (path);
  return there;
}

/* rtframe-verify on a recording: exit 0, and its summary says `says` */
static void
assert_verifies (const gchar * location, const gchar * says)
{
  gchar *out = NULL;

  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify",
          location, NULL), 0);
  if (says)
    fail_unless (strstr (out, says) != NULL, "'%s' not in: %s", says, out);
  g_free (out);
}

/* ---- a tmpfs of the test's own (root) -------------------------------- */

static gchar *
tmpfs_new (guint size_mb)
{
  gchar *dir = g_dir_make_tmp ("rtframe-tmpfs-XXXXXX", NULL);
  gchar *opts = g_strdup_printf ("size=%um", size_mb);

  fail_unless (dir != NULL);
  fail_unless (mount ("tmpfs", dir, "tmpfs", 0, opts) == 0, "mount: %s",
      g_strerror (errno));
  g_free (opts);
  return dir;
}

static void
tmpfs_free (gchar * dir)
{
  fail_unless (rtf_test_umount (dir));
  g_rmdir (dir);
  g_free (dir);
}

/* ---- the bus, as it happens ------------------------------------------ */

/* Copies of the element messages and the first error, kept on the
 * posting thread (the element's reporter, the writer's) */
typedef struct
{
  GMutex lock;
  GPtrArray *msgs;              /* GstStructure copies, in order */
  GQuark err_domain;
  gint err_code;
  gchar *err_text;
} Watch;

static Watch *
watch_new (void)
{
  Watch *w = g_new0 (Watch, 1);

  g_mutex_init (&w->lock);
  w->msgs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  return w;
}

static void
watch_free (Watch * w)
{
  g_ptr_array_unref (w->msgs);
  g_free (w->err_text);
  g_mutex_clear (&w->lock);
  g_free (w);
}

static GstBusSyncReply
watch_bus (GstBus * bus, GstMessage * msg, gpointer data)
{
  Watch *w = data;
  const GstStructure *s = gst_message_get_structure (msg);

  g_mutex_lock (&w->lock);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT && s) {
    g_ptr_array_add (w->msgs, gst_structure_copy (s));
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && w->err_text == NULL) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    w->err_domain = err->domain;
    w->err_code = err->code;
    w->err_text = g_strdup (err->message);
    g_error_free (err);
  }
  g_mutex_unlock (&w->lock);
  return GST_BUS_PASS;
}

/* The messages `name` so far, copies (free the array) */
static GPtrArray *
watch_get (Watch * w, const gchar * name)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  guint i;

  g_mutex_lock (&w->lock);
  for (i = 0; i < w->msgs->len; i++) {
    GstStructure *s = g_ptr_array_index (w->msgs, i);

    if (gst_structure_has_name (s, name))
      g_ptr_array_add (out, gst_structure_copy (s));
  }
  g_mutex_unlock (&w->lock);
  return out;
}

/* Whether a file-deleted message names file `index` */
static gboolean
watch_deleted (Watch * w, guint64 index)
{
  GPtrArray *d = watch_get (w, "rtframesink-file-deleted");
  gboolean found = FALSE;
  guint i;

  for (i = 0; i < d->len && !found; i++) {
    guint64 v = G_MAXUINT64;

    gst_structure_get_uint64 (g_ptr_array_index (d, i), "index", &v);
    found = v == index;
  }
  g_ptr_array_unref (d);
  return found;
}

/* Waits (up to 5 s, scaled) until file `index` is reported deleted */
static gboolean
watch_wait_deleted (Watch * w, guint64 index)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC *
      rtf_test_time_scale ();

  while (!watch_deleted (w, index) && g_get_monotonic_time () < end)
    g_usleep (2000);
  return watch_deleted (w, index);
}

/* A recording fed stamped frames of `size` bytes, its bus watched */
typedef struct
{
  GstHarness *h;
  GstBus *bus;
  Watch *watch;
  gsize size;
} Take;

static Take *
take_start (const gchar * location, const gchar * props, const gchar * caps)
{
  Take *t = g_new0 (Take, 1);

  t->watch = watch_new ();
  t->size = rtf_test_frame_size (caps);
  t->h = rtf_test_sink_new_full (location, props, caps, watch_bus, t->watch,
      &t->bus);
  return t;
}

static GstFlowReturn
take_push (Take * t, guint64 seq)
{
  GstBuffer *buf = gst_harness_create_buffer (t->h, t->size);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  rtf_test_fill_frame (map.data, t->size, 0, seq);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = seq * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return gst_harness_push (t->h, buf);
}

static guint64
take_u64 (Take * t, const gchar * prop)
{
  guint64 v;

  g_object_get (t->h->element, prop, &v, NULL);
  return v;
}

/* Waits (up to 5 s, scaled) until `n` frames are reported written */
static void
take_wait_written (Take * t, guint64 n)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC *
      rtf_test_time_scale ();

  while (take_u64 (t, "frames-written") < n && g_get_monotonic_time () < end)
    g_usleep (1000);
  fail_unless_equals_uint64 (take_u64 (t, "frames-written"), n);
}

/* The element to NULL; the watch stays for what was posted */
static void
take_stop (Take * t)
{
  rtf_test_sink_free (t->h, t->bus);
  t->h = NULL;
}

static void
take_free (Take * t)
{
  if (t->h)
    take_stop (t);
  watch_free (t->watch);
  g_free (t);
}

static void
assert_error (Take * t, GQuark domain, gint code, const gchar * substr)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC *
      rtf_test_time_scale ();
  gboolean got = FALSE;

  while (!got && g_get_monotonic_time () < end) {
    g_mutex_lock (&t->watch->lock);
    got = t->watch->err_text != NULL;
    g_mutex_unlock (&t->watch->lock);
    if (!got)
      g_usleep (2000);
  }
  fail_unless (got, "no error posted");
  g_print ("  error: %s\n", t->watch->err_text);
  fail_unless (t->watch->err_domain == domain, "domain %s",
      g_quark_to_string (t->watch->err_domain));
  fail_unless_equals_int (t->watch->err_code, code);
  if (substr)
    fail_unless (strstr (t->watch->err_text, substr) != NULL,
        "'%s' not in '%s'", substr, t->watch->err_text);
}

static void
assert_no_error (Take * t)
{
  g_mutex_lock (&t->watch->lock);
  fail_unless (t->watch->err_text == NULL, "error: %s", t->watch->err_text);
  g_mutex_unlock (&t->watch->lock);
}

/* ==== 4: indexes and manifests are not a recording's data ============= */

/* location=x.raw.idx while x.raw is being recorded: refused (the index is
 * locked: RESOURCE/BUSY), and every frame of x.raw reported written is
 * read back through its index.  At c8d0d25 the second sink emptied the
 * live index: 100 frames reported, 0 readable. */
GST_START_TEST (test_location_is_live_index)
{
  gchar *x = rtf_test_tmp_path ("x.raw");
  gchar *idx = rtf_index_path (x);
  Take *a = take_start (x, NULL, CAPS);
  guint64 i;

  for (i = 0; i < 50; i++)
    fail_unless_equals_int (take_push (a, i), GST_FLOW_OK);
  rtf_test_assert_start_fails ("rtframesink", idx, NULL,
      GST_RESOURCE_ERROR_BUSY, "being written by another recording");
  for (; i < 100; i++)
    fail_unless_equals_int (take_push (a, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (a->h, gst_event_new_eos ()));
  assert_no_error (a);
  fail_unless_equals_uint64 (take_u64 (a, "frames-written"), 100);
  take_free (a);
  rtf_test_assert_frames (x, FRAME, 0, 100);
  assert_verifies (x, "100 frames");
  g_free (idx);
  g_free (x);
}

GST_END_TEST;

/* A finished recording's index, and a spread's manifest, as location:
 * RESOURCE/OPEN_WRITE, each file exactly as it was (content, size, inode,
 * times); the recording still reads whole.  At c8d0d25 both were emptied
 * and recorded over. */
GST_START_TEST (test_location_is_index_or_manifest)
{
  gchar *x = rtf_test_tmp_path ("x.raw");
  gchar *idx = rtf_index_path (x);
  gchar *a = rtf_test_tmp_path ("a"), *b = rtf_test_tmp_path ("b");
  gchar *desc, *manifest, *idx_id, *man_id;
  GstElement *pipe;

  rtf_test_record (x, NULL, CAPS, 10);
  idx_id = identity (idx);
  rtf_test_assert_start_fails ("rtframesink", idx, NULL,
      GST_RESOURCE_ERROR_OPEN_WRITE, "is an rtframe index");
  assert_identity (idx, idx_id);
  rtf_test_assert_frames (x, FRAME, 0, 10);
  assert_verifies (x, "10 frames");

  /* a recording over two locations: a manifest beside each */
  fail_unless (g_mkdir (a, 0755) == 0 && g_mkdir (b, 0755) == 0);
  desc = g_strdup_printf ("videotestsrc num-buffers=3 ! %s ! rtframesink "
      "locations=<\"%s/s.raw\",\"%s/s.raw\">", CAPS, a, b);
  pipe = rtf_test_play_to_eos (desc);
  rtf_test_stop_pipeline (pipe);
  manifest = g_strdup_printf ("%s/s.raw.rtfspread", a);
  fail_unless (g_file_test (manifest, G_FILE_TEST_IS_REGULAR), "no %s",
      manifest);
  man_id = identity (manifest);
  rtf_test_assert_start_fails ("rtframesink", manifest, NULL,
      GST_RESOURCE_ERROR_OPEN_WRITE, "is the manifest");
  assert_identity (manifest, man_id);

  g_free (man_id);
  g_free (manifest);
  g_free (desc);
  g_free (idx_id);
  g_free (a);
  g_free (b);
  g_free (idx);
  g_free (x);
}

GST_END_TEST;

/* Two recordings whose patterns meet (c-%05d.raw, c-%05d.raw.idx: what
 * locations=<"d/c-%05d.raw","d/c-%05d.raw.idx"> makes), two sinks.  The
 * second one's files reach the first one's indexes: a closed one when the
 * set reaches it (prepared ahead: refused, RESOURCE/OPEN_WRITE, left as
 * it was), the live one of the file the first has opened ahead (locked:
 * RESOURCE/BUSY at start).  Every frame either reported written reads
 * back.  At c8d0d25 the closed index was renamed over, and the second
 * recording wrote into the first's prepared index. */
GST_START_TEST (test_patterns_meet)
{
  gchar *pa = rtf_test_tmp_path ("c-%05d.raw");
  gchar *pb = rtf_test_tmp_path ("c-%05d.raw.idx");
  gchar *idx1 = rtf_test_tmp_path ("c-00001.raw.idx");
  gchar *dir = rtf_test_tmp_path (""), *id1, *props;
  Take *a, *b;
  guint64 i;

  /* A: files 1, 2, 3 of 2 frames, closed */
  props = g_strdup_printf ("max-file-size=%d start-index=1", 2 * FRAME);
  rtf_test_record (pa, props, CAPS, 6);
  g_free (props);
  id1 = identity (idx1);

  /* B from 0: file 0 is free, file 1 is A's index of file 1 */
  b = take_start (pb, "max-file-size=2816", CAPS);
  fail_unless_equals_int (take_push (b, 0), GST_FLOW_OK);
  fail_unless_equals_int (take_push (b, 1), GST_FLOW_OK);
  take_wait_written (b, 2);
  take_push (b, 2);
  assert_error (b, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
      "c-00001.raw.idx");
  fail_unless_equals_uint64 (take_u64 (b, "frames-written"), 2);
  take_free (b);
  assert_identity (idx1, id1);
  assert_set_file (pb, 0, FRAME, 0, 2);
  for (i = 1; i <= 3; i++)
    assert_set_file (pa, i, FRAME, 2 * (i - 1), 2);
  assert_verifies (pa, "6 frames");
  assert_no_hidden_files (dir);

  /* A live, its file 5 opened ahead (with its index, empty and locked);
   * B starting at 5 would write into that index */
  props = g_strdup_printf ("max-file-size=%d start-index=4", 2 * FRAME);
  a = take_start (pa, props, CAPS);
  g_free (props);
  for (i = 0; i < 2; i++)       /* file 4: 0, 1; file 5 opened ahead */
    fail_unless_equals_int (take_push (a, i), GST_FLOW_OK);
  take_wait_written (a, 2);
  {
    gchar *idx5 = rtf_test_tmp_path ("c-00005.raw.idx");
    guint n;

    for (n = 0; n < 5000 && !g_file_test (idx5, G_FILE_TEST_EXISTS); n++)
      g_usleep (1000);
    fail_unless (n < 5000, "file 5 was not opened ahead");
    g_free (idx5);
  }
  rtf_test_assert_start_fails ("rtframesink", pb, "start-index=5",
      GST_RESOURCE_ERROR_BUSY, "being written by another recording");
  for (; i < 6; i++)            /* file 5: 2, 3; file 6: 4, 5 */
    fail_unless_equals_int (take_push (a, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (a->h, gst_event_new_eos ()));
  assert_no_error (a);
  take_free (a);
  for (i = 4; i <= 6; i++)
    assert_set_file (pa, i, FRAME, 2 * (i - 4), 2);
  {
    gchar *from4 = rtf_test_tmp_path ("c-00004.raw");

    assert_verifies (from4, "2 frames");
    g_free (from4);
  }

  g_free (id1);
  g_free (dir);
  g_free (idx1);
  g_free (pa);
  g_free (pb);
}

GST_END_TEST;

/* ==== 5: the index name, checked when the file is named ================ */

/* An event recorder stays prepared while idle: ev-0.raw held an earlier
 * take, so file 0 waits under a hidden name.  Meanwhile a user's file
 * appears at ev-0.raw.idx.  At the next event the recording is refused
 * (RESOURCE/OPEN_WRITE naming the index: "exists and is not an rtframe
 * index"), the user's file and the earlier take stay exactly as they
 * were, no hidden file is left, and no frame is reported written (none
 * could be found).  At c8d0d25 the user's file was renamed over. */
GST_START_TEST (test_index_appears_while_prepared)
{
  gchar *pattern = rtf_test_tmp_path ("ev-%d.raw");
  gchar *dir = rtf_test_tmp_path ("");
  gchar *old = plant ("ev-0.raw", "an earlier take of the user's");
  gchar *idx0 = rtf_test_tmp_path ("ev-0.raw.idx");
  gchar *user, *old_id;
  gboolean ok = FALSE;
  Take *t = take_start (pattern, "record=false", CAPS);
  guint64 i;

  fail_unless_equals_int (take_push (t, 0), GST_FLOW_OK);
  old_id = identity (old);
  g_free (plant ("ev-0.raw.idx", "my notes on take 0, not an index"));
  user = identity (idx0);
  g_signal_emit_by_name (t->h->element, "start-recording",
      GST_CLOCK_TIME_NONE, &ok);
  fail_unless (ok);
  for (i = 1; i < 4; i++)
    take_push (t, i);
  assert_error (t, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
      "exists and is not an rtframe index");
  fail_unless_equals_uint64 (take_u64 (t, "frames-written"), 0);
  take_free (t);
  assert_identity (idx0, user);
  assert_identity (old, old_id);
  assert_no_hidden_files (dir);
  g_free (old_id);
  g_free (user);
  g_free (idx0);
  g_free (old);
  g_free (dir);
  g_free (pattern);
}

GST_END_TEST;

/* ==== 13: frames queued after a write error ============================ */

/* A 20 MB tmpfs filled flat out, one frame a file, no guard, nothing
 * reserved: the write error comes on a file's first frame, with frames
 * queued (and one waiting for its file) whose queue cells were last used
 * for files the helper has finished and freed.  The error is
 * RESOURCE/NO_SPACE_LEFT naming the file; every frame reported written is
 * in its file byte for byte; the recording-stopped message names that
 * file.  At c8d0d25 those frames were released through the freed files:
 * AddressSanitizer "heap-use-after-free" in rtf_writer_recording_release
 * (3 runs of 3), a crash or a "location" that is not UTF-8 without it. */
GST_START_TEST (test_write_error_with_frames_queued)
{
  gchar *dir, *pattern, *props, *failed = NULL;
  GPtrArray *stopped;
  guint round;

  if (!rtf_test_is_root ()) {
    g_print ("  skipped: mounting a tmpfs needs root\n");
    return;
  }
  dir = tmpfs_new (20);
  pattern = g_build_filename (dir, "cam0-%05d.raw", NULL);
  props = g_strdup_printf ("max-file-size=%" G_GUINT64_FORMAT
      " min-free-space=0 preallocate=0", BIG_FRAME);
  for (round = 0; round < 3; round++) {
    Take *t = take_start (pattern, props, BIG_CAPS);
    const gchar *location;
    guint64 i, written;

    for (i = 0; i < 1000 && take_push (t, i) == GST_FLOW_OK; i++);
    fail_unless (i < 1000, "the filesystem never filled");
    assert_error (t, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "No space left to write to file");
    written = take_u64 (t, "frames-written");
    take_stop (t);
    g_print ("  round %u: %" G_GUINT64_FORMAT " frames pushed, %"
        G_GUINT64_FORMAT " written\n", round, i, written);
    fail_unless (written > 40);
    for (i = 0; i < written; i++)
      assert_set_file (pattern, i, BIG_FRAME, i, 1);
    /* the recording told stopped, naming the file of its last frame
     * written; no file after it (one without a frame goes) */
    failed = rtf_pattern_format (pattern, written - 1);
    stopped = watch_get (t->watch, "rtframesink-recording-stopped");
    fail_unless_equals_int (stopped->len, 1);
    location = gst_structure_get_string (g_ptr_array_index (stopped, 0),
        "location");
    fail_unless (location != NULL && g_utf8_validate (location, -1, NULL),
        "the location is not text");
    g_print ("  stopped in %s\n", location);
    fail_unless_equals_string (location, failed);
    fail_if (set_file_exists (pattern, written));
    fail_if (set_file_exists (pattern, written + 1));
    g_ptr_array_unref (stopped);
    g_free (failed);
    take_free (t);
    fail_unless (rtf_test_run_tool (NULL, "rtframe-verify", pattern,
            NULL) == 0);
    {
      gchar *cmd = g_strdup_printf ("rm -f '%s'/cam0-*", dir);

      fail_unless_equals_int (rtf_test_run (cmd), 0);
      g_free (cmd);
    }
  }
  g_free (props);
  g_free (pattern);
  tmpfs_free (dir);
}

GST_END_TEST;

/* ==== 14: the free-space guard flat out =============================== */

/* The issue's pipeline, as it was given (default min-free-space: 10 MB
 * of a 200 MB tmpfs, rotation at 20 MB): 460 MB flat out, 5 runs, each
 * to EOS without an error, the oldest files deleted, what is kept
 * verifying.  At c8d0d25: "No space left to write to file
 * ...cam0-00011.raw" in 5 runs of 6 (8 of 10 here). */
GST_START_TEST (test_guard_flat_out_issue_pipeline)
{
  gchar *dir, *pattern, *desc;
  guint run;

  if (!rtf_test_is_root ()) {
    g_print ("  skipped: mounting a tmpfs needs root\n");
    return;
  }
  dir = tmpfs_new (200);
  pattern = g_build_filename (dir, "cam0-%05d.raw", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=1500 ! %s ! "
      "rtframesink location=%s max-file-size=20000000", BIG_CAPS, pattern);
  for (run = 0; run < 5; run++) {
    gint64 start = g_get_monotonic_time ();
    GstElement *pipe = rtf_test_play_to_eos (desc);
    gchar *cmd;

    rtf_test_stop_pipeline (pipe);
    g_print ("  run %u: %.2f s, %" G_GUINT64_FORMAT " MB free at the end\n",
        run, (g_get_monotonic_time () - start) / 1e6, fs_free (dir) / MB);
    fail_if (set_file_exists (pattern, 0), "the oldest file was kept");
    fail_unless (set_file_exists (pattern, 22));
    fail_unless (fs_free (dir) >= 10 * (1 << 20));
    assert_verifies (pattern, NULL);
    cmd = g_strdup_printf ("rm -f '%s'/cam0-*", dir);
    fail_unless_equals_int (rtf_test_run (cmd), 0);
    g_free (cmd);
  }
  g_free (desc);
  g_free (pattern);
  tmpfs_free (dir);
}

GST_END_TEST;

/* The same flat out with stamped frames pushed as fast as the sink takes
 * them, on a 200 MB tmpfs and a 320 MB XFS (its smallest): no error, the newest files
 * kept byte for byte up to the last frame, the oldest deleted in order,
 * each announced, the free space never under the line at the end */
static void
guard_flat_out_stamped (const gchar * dir)
{
  gchar *pattern = g_build_filename (dir, "cam0-%05d.raw", NULL);
  const guint64 per_file = 20000000 / BIG_FRAME, frames = 1500;
  Take *t = take_start (pattern, "max-file-size=20000000", BIG_CAPS);
  GPtrArray *deleted;
  gint64 start = g_get_monotonic_time ();
  guint64 i, n, last_file = (frames - 1) / per_file, min_free;
  GstStructure *st = NULL;

  for (i = 0; i < frames; i++)
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (t->h, gst_event_new_eos ()));
  assert_no_error (t);
  g_object_get (t->h->element, "stats", &st, NULL);
  fail_unless (gst_structure_get_uint64 (st, "min-free-space", &min_free));
  gst_structure_free (st);
  fail_unless_equals_uint64 (take_u64 (t, "frames-written"), frames);
  take_stop (t);
  deleted = watch_get (t->watch, "rtframesink-file-deleted");
  g_print ("  %s: %.2f s, %u files deleted, %" G_GUINT64_FORMAT
      " MB free at the end (min-free-space %" G_GUINT64_FORMAT " MB)\n", dir,
      (g_get_monotonic_time () - start) / 1e6, deleted->len,
      fs_free (dir) / MB, min_free / MB);
  fail_unless (deleted->len > 0);
  for (i = 0; i < deleted->len; i++) {
    guint64 index = G_MAXUINT64;

    gst_structure_get_uint64 (g_ptr_array_index (deleted, i), "index", &index);
    fail_unless_equals_uint64 (index, i);
    fail_if (set_file_exists (pattern, i));
  }
  for (i = deleted->len; i <= last_file; i++) {
    n = i == last_file ? frames - i * per_file : per_file;
    assert_set_file (pattern, i, BIG_FRAME, i * per_file, n);
  }
  fail_unless (fs_free (dir) >= min_free);
  assert_verifies (pattern, NULL);
  g_ptr_array_unref (deleted);
  take_free (t);
  g_free (pattern);
}

GST_START_TEST (test_guard_flat_out_stamped)
{
  RtfTestFs *fs;
  gchar *dir;

  if (!rtf_test_is_root ()) {
    g_print ("  skipped: mounting filesystems needs root\n");
    return;
  }
  dir = tmpfs_new (200);
  guard_flat_out_stamped (dir);
  tmpfs_free (dir);
  fs = rtf_test_fs_new ("xfs", 320);
  guard_flat_out_stamped (fs->dir);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

/* ==== a file in use when it is due to go ============================== */

/* max-files=2: file 0 is due to go when file 2 starts, but a tool holds
 * its lock: it stays (never deleted in use), and is deleted once let go,
 * at the next trim.  At c8d0d25 it was dropped from the list for good
 * and stayed. */
GST_START_TEST (test_max_files_waits_for_file_in_use)
{
  gchar *pattern = rtf_test_tmp_path ("k-%05d.raw");
  gchar *f0 = rtf_pattern_format (pattern, 0);
  Take *t = take_start (pattern, "max-file-size=2816 max-files=2", CAPS);
  guint64 i;
  guint j;
  gint fd;

  for (i = 0; i < 4; i++)       /* files 0, 1 */
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  /* a tool takes file 0 once the sink has closed it */
  fd = open (f0, O_RDONLY);
  fail_unless (fd >= 0);
  for (j = 0; j < 5000 && flock (fd, LOCK_SH | LOCK_NB) < 0; j++)
    g_usleep (1000);
  fail_unless (j < 5000, "file 0 was never let go by the sink");
  for (; i < 8; i++)            /* files 2, 3: 0 and then 1 are due */
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  fail_unless (watch_wait_deleted (t->watch, 1));
  fail_unless (g_file_test (f0, G_FILE_TEST_EXISTS), "deleted in use");
  fail_if (watch_deleted (t->watch, 0));
  close (fd);                   /* the tool lets go */
  for (; i < 10; i++)           /* file 4: a trim */
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  fail_unless (watch_wait_deleted (t->watch, 0), "file 0 was forgotten");
  fail_if (g_file_test (f0, G_FILE_TEST_EXISTS));
  fail_unless (gst_harness_push_event (t->h, gst_event_new_eos ()));
  assert_no_error (t);
  take_free (t);
  assert_set_file (pattern, 3, FRAME, 6, 2);
  assert_set_file (pattern, 4, FRAME, 8, 2);
  g_free (f0);
  g_free (pattern);
}

GST_END_TEST;

/* min-free-space on a 100 MB tmpfs: the oldest file is held by a tool
 * when room is needed: the next oldest go instead, the held one stays;
 * once let go it is the next to go.  At c8d0d25 it was left for good. */
GST_START_TEST (test_guard_waits_for_file_in_use)
{
  gchar *dir, *pattern, *f0;
  Take *t;
  guint64 i;
  gint fd = -1;

  if (!rtf_test_is_root ()) {
    g_print ("  skipped: mounting a tmpfs needs root\n");
    return;
  }
  dir = tmpfs_new (100);
  pattern = g_build_filename (dir, "g-%05d.raw", NULL);
  f0 = rtf_pattern_format (pattern, 0);
  /* 5 MB kept (5%), files of 13 frames (4 MB) */
  t = take_start (pattern, "max-file-size=4000000", BIG_CAPS);
  for (i = 0; i < 500 && !watch_deleted (t->watch, 1); i++) {
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
    /* once file 0 is closed (the sink's lock let go) a tool takes it */
    if (fd < 0 && set_file_exists (pattern, 2)) {
      fd = open (f0, O_RDONLY);
      fail_unless (fd >= 0);
      if (flock (fd, LOCK_SH | LOCK_NB) < 0) {
        close (fd);
        fd = -1;
      }
    }
  }
  fail_unless (fd >= 0, "file 0 was never let go by the sink");
  fail_unless (watch_deleted (t->watch, 1), "the next oldest never went");
  fail_unless (g_file_test (f0, G_FILE_TEST_EXISTS), "deleted in use");
  fail_if (watch_deleted (t->watch, 0));
  close (fd);
  for (; i < 1000 && !watch_deleted (t->watch, 0); i++)
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  fail_unless (watch_deleted (t->watch, 0), "file 0 was forgotten");
  fail_if (g_file_test (f0, G_FILE_TEST_EXISTS));
  fail_unless (gst_harness_push_event (t->h, gst_event_new_eos ()));
  assert_no_error (t);
  take_free (t);
  assert_verifies (pattern, NULL);
  g_free (f0);
  g_free (pattern);
  tmpfs_free (dir);
}

GST_END_TEST;

/* ==== F3 (torture): frames reported written, and the index full ======== */

/* Fills dir's filesystem with a file of the test's own (a user's file:
 * it must stay as it is), written until ENOSPC, then made durable */
static gchar *
fill_up (const gchar * dir)
{
  gchar *path = g_build_filename (dir, "filler", NULL);
  guint8 *buf = g_malloc0 (1 << 20);
  gint fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  gsize chunk;

  fail_unless (fd >= 0, "%s: %s", path, g_strerror (errno));
  for (chunk = 1 << 20; chunk >= 512; chunk /= 2)
    while (write (fd, buf, chunk) == (ssize_t) chunk);
  fail_unless (fsync (fd) == 0);
  close (fd);
  g_free (buf);
  return path;
}

/* The index's own write fails with ENOSPC while the frames still go
 * into the space reserved for them: 5 frames written with room, then the
 * filesystem filled by another file, then frames until the sink stops.
 * Its error names the index; every frame reported written (its record on
 * file) is read back byte for byte, the data file cut to exactly those
 * frames, rtframe-verify counts as many, the reservation past them given
 * back, the other file untouched.  Before (torture F3, seeds
 * 0x3ff1181d6f54f961 ...): after the error a frame whose record was only
 * buffered was reported written (the index then could not take it), and
 * sealing stopped at the index's ENOSPC without cutting the data: more
 * frames reported than the index holds, a data file longer than them,
 * the reservation kept - and rtframe-recover deleted a file whose index
 * was empty although a frame of it had been reported. */
static void
index_full (const gchar * dir)
{
  gchar *location = g_build_filename (dir, "cam.raw", NULL);
  gchar *says, *filler, *filler_id;
  Take *t = take_start (location, "preallocate=4194304 min-free-space=0 "
      "sync-interval=0", CAPS);
  guint64 i, written;

  for (i = 0; i < 5; i++)
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  take_wait_written (t, 5);
  filler = fill_up (dir);
  filler_id = identity (filler);
  g_print ("  %s: filled, %" G_GUINT64_FORMAT " bytes free\n", dir,
      fs_free_all (dir));
  for (; i < 1000 && take_push (t, i) == GST_FLOW_OK; i++);
  fail_unless (i < 1000, "the index never ran out of room");
  assert_error (t, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
      ".idx");
  written = take_u64 (t, "frames-written");
  take_stop (t);
  g_print ("  %" G_GUINT64_FORMAT " frames pushed, %" G_GUINT64_FORMAT
      " reported written, %" G_GUINT64_FORMAT " bytes free after\n", i,
      written, fs_free_all (dir));
  fail_unless (written >= 5);
  rtf_test_assert_frames (location, FRAME, 0, written);
  says = g_strdup_printf ("%" G_GUINT64_FORMAT " frames", written);
  assert_verifies (location, says);
  /* the reservation past the frames was given back */
  fail_unless (fs_free_all (dir) >= 4194304 - written * FRAME - 65536,
      "%" G_GUINT64_FORMAT " bytes free", fs_free_all (dir));
  assert_identity (filler, filler_id);
  take_free (t);
  g_free (says);
  g_free (filler_id);
  g_free (filler);
  g_free (location);
}

GST_START_TEST (test_index_full)
{
  RtfTestFs *fs;
  gchar *dir;

  if (!rtf_test_is_root ()) {
    g_print ("  skipped: mounting filesystems needs root\n");
    return;
  }
  dir = tmpfs_new (16);
  index_full (dir);
  tmpfs_free (dir);
  fs = rtf_test_fs_new ("ext4", 64);
  index_full (fs->dir);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

/* P010 1048x137: 433872 bytes, the seeds' frames */
#define F3_CAPS "video/x-raw,format=P010_10LE,width=1048,height=137," \
    "framerate=20/1"
#define F3_FRAME G_GUINT64_CONSTANT (433872)

/* preallocate=128 MiB on a 64 MB ext4, the guard off: 40 frames (17 MB)
 * of one file, of a set, and of a spread over two such filesystems are
 * all written, to EOS, and read back; the space reserved past them is
 * given back (free after >= free before - the frames - 1 MB).  Before
 * (torture F3, seeds 0x3ff1181d6f54f961, 0xeb80c8d1ac357aeb): the
 * fallocate failed with ENOSPC after taking every free block (ext4 keeps
 * them), counted as nothing reserved; the index's first write failed with
 * ENOSPC: the recording ended at frame 0 (in the spread: the first
 * location left, then the second's failure ended the recording) - and
 * that frame had been reported written. */
static void
record_f3 (Take * t, const gchar * what)
{
  guint64 i;

  for (i = 0; i < 40; i++)
    fail_unless (take_push (t, i) == GST_FLOW_OK, "%s: frame %"
        G_GUINT64_FORMAT " refused", what, i);
  fail_unless (gst_harness_push_event (t->h, gst_event_new_eos ()));
  assert_no_error (t);
  fail_unless_equals_uint64 (take_u64 (t, "frames-written"), 40);
  take_free (t);
}

static void
assert_given_back (const gchar * dir, guint64 before, guint64 frames)
{
  guint64 now = fs_free (dir);

  g_print ("  %s: %" G_GUINT64_FORMAT " MB free before, %" G_GUINT64_FORMAT
      " MB after %" G_GUINT64_FORMAT " frames\n", dir, before / MB, now / MB,
      frames);
  fail_unless (now + frames * F3_FRAME + 1048576 >= before);
}

GST_START_TEST (test_preallocation_larger_than_disk)
{
  const gchar *props = "preallocate=134217728 min-free-space=0 "
      "sync-interval=1000000000";
  RtfTestFs *a, *b;
  gchar *location, *pattern, *all, *manifest;
  guint64 free_a, free_b;

  if (!rtf_test_is_root ()) {
    g_print ("  skipped: mounting filesystems needs root\n");
    return;
  }
  a = rtf_test_fs_new ("ext4", 64);
  b = rtf_test_fs_new ("ext4", 64);
  free_a = fs_free (a->dir);
  free_b = fs_free (b->dir);

  /* one file */
  location = g_build_filename (a->dir, "cam.raw", NULL);
  record_f3 (take_start (location, props, F3_CAPS), "one file");
  rtf_test_assert_frames (location, F3_FRAME, 0, 40);
  assert_verifies (location, "40 frames");
  assert_given_back (a->dir, free_a, 40);
  g_unlink (location);
  g_free (location);
  location = g_build_filename (a->dir, "cam.raw.idx", NULL);
  g_unlink (location);
  g_free (location);

  /* a set: each file opened ahead reserves too */
  pattern = g_build_filename (a->dir, "c-%03d.raw", NULL);
  all = g_strdup_printf ("%s max-file-size=%" G_GUINT64_FORMAT, props,
      10 * F3_FRAME);
  record_f3 (take_start (pattern, all, F3_CAPS), "a set");
  assert_set_file (pattern, 0, F3_FRAME, 0, 10);
  assert_set_file (pattern, 3, F3_FRAME, 30, 10);
  fail_if (set_file_exists (pattern, 4));
  assert_verifies (pattern, "40 frames");
  assert_given_back (a->dir, free_a, 40);
  g_free (all);
  {
    gchar *cmd = g_strdup_printf ("rm -f '%s'/c-*", a->dir);

    fail_unless_equals_int (rtf_test_run (cmd), 0);
    g_free (cmd);
  }
  g_free (pattern);

  /* a spread over both */
  location = g_build_filename (a->dir, "s.raw", NULL);
  manifest = g_build_filename (b->dir, "s.raw", NULL);
  all = g_strdup_printf ("%s locations=<\"%s\",\"%s\">", props, location,
      manifest);
  g_free (manifest);
  record_f3 (take_start (location, all, F3_CAPS), "a spread");
  manifest = g_build_filename (a->dir, "s.raw.rtfspread", NULL);
  assert_verifies (manifest, "40 frames");
  assert_given_back (a->dir, free_a, 40);
  assert_given_back (b->dir, free_b, 40);
  g_free (manifest);
  g_free (all);
  g_free (location);
  rtf_test_fs_free (b);
  rtf_test_fs_free (a);
}

GST_END_TEST;

/* ==== F5 (torture): frames larger than the ledger's share ============= */

/* The by-hand reproduction (on any disk): 1024x600 GRAY8 frames (614 kB)
 * with min-free-space=1000000 preallocate=1048576, and frames more than
 * twice min-free-space (300000), with gigabytes free: every frame written
 * to EOS, no error.  Before: "Recording to .../c-000.raw ended before its
 * filesystem was full: 2 frames (1.2 MB) written, 78.6 GB left" - the
 * ledger's budget was capped at a quarter of min-free-space whatever the
 * room, so a larger frame never fitted. */
GST_START_TEST (test_guard_frames_larger_than_share)
{
  static const gchar *lines[] = { "1000000", "300000" };
  guint i;

  if (fs_free (g_get_tmp_dir ()) < G_GUINT64_CONSTANT (2000000000)) {
    g_print ("  skipped: less than 2 GB free in %s\n", g_get_tmp_dir ());
    return;
  }
  for (i = 0; i < G_N_ELEMENTS (lines); i++) {
    gchar *name = g_strdup_printf ("f5-%u-%%03d.raw", i);
    gchar *pattern = rtf_test_tmp_path (name);
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=20 ! "
        "video/x-raw,format=GRAY8,width=1024,height=600 ! rtframesink "
        "location=%s min-free-space=%s preallocate=1048576 "
        "max-file-size=6144000", pattern, lines[i]);
    GstElement *pipe = rtf_test_play_to_eos (desc);

    rtf_test_stop_pipeline (pipe);
    assert_verifies (pattern, "20 frames");
    g_free (desc);
    g_free (pattern);
    g_free (name);
  }
}

GST_END_TEST;

static Suite *
hostile_files_suite (void)
{
  Suite *s = suite_create ("hostile-files");
  TCase *tc = rtf_test_tcase (s, "general");

  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_location_is_live_index);
  tcase_add_test (tc, test_location_is_index_or_manifest);
  tcase_add_test (tc, test_patterns_meet);
  tcase_add_test (tc, test_index_appears_while_prepared);
  tcase_add_test (tc, test_write_error_with_frames_queued);
  tcase_add_test (tc, test_guard_flat_out_issue_pipeline);
  tcase_add_test (tc, test_guard_flat_out_stamped);
  tcase_add_test (tc, test_max_files_waits_for_file_in_use);
  tcase_add_test (tc, test_guard_waits_for_file_in_use);
  tcase_add_test (tc, test_index_full);
  tcase_add_test (tc, test_preallocation_larger_than_disk);
  tcase_add_test (tc, test_guard_frames_larger_than_share);
  return s;
}

GST_CHECK_MAIN (hostile_files);
