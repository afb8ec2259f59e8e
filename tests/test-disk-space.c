/* The free-space guard (min-free-space) on real filesystems: XFS and ext4
 * made on loop devices and filled by a filler file.  A rotating recording
 * of more than the filesystem holds runs its whole length, deleting only
 * its own oldest files, and keeps the newest frames; without rotation the
 * recording ends before the filesystem is full, whole; the disk-space
 * messages at their levels; max-files deletions announced.  A filler, a
 * file of another recording, a user's file matching the pattern and a
 * file renamed into the set are never touched.  Root only (skips
 * otherwise). */
#include <gst/check/gstcheck.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rtf-pattern.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* 921600-byte frames (225 blocks of 4 KiB) */
#define CAPS "video/x-raw,format=P010_10LE,width=640,height=480," \
    "framerate=25/1"
#define FRAME G_GUINT64_CONSTANT (921600)
#define MB G_GUINT64_CONSTANT (1000000)

static const gchar *const fstypes[] = { "xfs", "ext4" };

/* ---- the bus, as it happens ------------------------------------------ */

typedef struct
{
  GMutex lock;
  GPtrArray *deleted;           /* rtframesink-file-deleted, copies */
  GPtrArray *space;             /* rtframesink-disk-space, copies */
  /* when file `rename_index` is reported closed, rename_from is renamed
   * over it: a file renamed into the set */
  guint64 rename_index;
  gchar *rename_from;
  gboolean renamed;
  gint rename_errno;
} Watch;

static Watch *
watch_new (void)
{
  Watch *w = g_new0 (Watch, 1);

  g_mutex_init (&w->lock);
  w->deleted = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  w->space = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  return w;
}

static void
watch_free (Watch * w)
{
  g_ptr_array_unref (w->deleted);
  g_ptr_array_unref (w->space);
  g_free (w->rename_from);
  g_mutex_clear (&w->lock);
  g_free (w);
}

static guint
watch_count (Watch * w, GPtrArray * a)
{
  guint n;

  g_mutex_lock (&w->lock);
  n = a->len;
  g_mutex_unlock (&w->lock);
  return n;
}

/* Waits (up to 10 s) until a holds n: the element's reporter posts what
 * the writer told a moment later, so the stats at EOS can count a file
 * deleted whose message is still on its way (35 against 34, once, on a
 * loaded machine) */
static guint
watch_wait_count (Watch * w, GPtrArray * a, guint n)
{
  guint tries;

  for (tries = 0; tries < 1000 && watch_count (w, a) < n; tries++)
    g_usleep (10000);
  return watch_count (w, a);
}

/* On the thread that posts (the element's reporter): keeps what the test
 * looks at afterwards; everything stays on the bus too */
static GstBusSyncReply
watch_bus (GstBus * bus, GstMessage * msg, gpointer data)
{
  Watch *w = data;
  const GstStructure *s = gst_message_get_structure (msg);
  guint64 index;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT || s == NULL)
    return GST_BUS_PASS;
  g_mutex_lock (&w->lock);
  if (gst_structure_has_name (s, "rtframesink-file-deleted")) {
    g_ptr_array_add (w->deleted, gst_structure_copy (s));
  } else if (gst_structure_has_name (s, "rtframesink-disk-space")) {
    g_ptr_array_add (w->space, gst_structure_copy (s));
  } else if (w->rename_from && !w->renamed
      && gst_structure_has_name (s, "rtframesink-file-closed")
      && gst_structure_get_uint64 (s, "index", &index)
      && index == w->rename_index) {
    if (rename (w->rename_from, gst_structure_get_string (s, "location")) < 0)
      w->rename_errno = errno;
    w->renamed = TRUE;
  }
  g_mutex_unlock (&w->lock);
  return GST_BUS_PASS;
}

static gboolean
watch_renamed (Watch * w)
{
  gboolean renamed;

  g_mutex_lock (&w->lock);
  renamed = w->renamed;
  g_mutex_unlock (&w->lock);
  return renamed;
}

/* A recording fed frame by frame, its bus watched */
typedef struct
{
  GstHarness *h;
  GstBus *bus;
  Watch *watch;
  gchar *location;
} Take;

static Take *
take_start (const gchar * location, const gchar * props, Watch * watch)
{
  Take *t = g_new0 (Take, 1);

  t->watch = watch;
  t->location = g_strdup (location);
  t->h = rtf_test_sink_new_full (location, props, CAPS, watch_bus, watch,
      &t->bus);
  return t;
}

static GstFlowReturn
take_push (Take * t, guint64 seq)
{
  GstBuffer *buf = gst_harness_create_buffer (t->h, FRAME);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  rtf_test_fill_frame (map.data, FRAME, 0, seq);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = seq * GST_SECOND / 25;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 25;
  return gst_harness_push (t->h, buf);
}

static GstStructure *
take_stats (Take * t)
{
  GstStructure *s = NULL;

  g_object_get (t->h->element, "stats", &s, NULL);
  fail_unless (s != NULL);
  return s;
}

static guint64
field_u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, name, &v), "no %s in %s", name,
      gst_structure_get_name (s));
  return v;
}

static guint64
take_u64 (Take * t, const gchar * prop)
{
  guint64 v;

  g_object_get (t->h->element, prop, &v, NULL);
  return v;
}

static void
take_stop (Take * t)
{
  rtf_test_sink_free (t->h, t->bus);
  g_free (t->location);
  g_free (t);
}

/* ---- files: free space, a filler, what a file is ------------------- */

static guint64
fs_free (const gchar * dir)
{
  struct statvfs st;

  fail_unless (statvfs (dir, &st) == 0);
  return (guint64) st.f_bavail * st.f_frsize;
}

/* `n` bytes of random data at path */
static void
write_random (const gchar * path, gsize n)
{
  guint8 *data = g_malloc (n);
  gsize i;

  for (i = 0; i < n; i += 4)
    *(guint32 *) (data + i) = g_random_int ();
  fail_unless (g_file_set_contents (path, (gchar *) data, n, NULL));
  g_free (data);
}

/* A filler that leaves `leave` bytes free: 8 MiB of random data, then
 * allocated space (zeros) */
static gchar *
make_filler (const gchar * dir, guint64 leave)
{
  gchar *path = g_build_filename (dir, "filler", NULL);
  guint64 free_now;
  gint fd;

  write_random (path, 8 << 20);
  free_now = fs_free (dir);
  fail_unless (free_now > leave + (16 << 20), "only %" G_GUINT64_FORMAT
      " bytes free in %s", free_now, dir);
  fd = open (path, O_WRONLY);
  fail_unless (fd >= 0);
  fail_unless (fallocate (fd, 0, 0, (off_t) ((8 << 20) + free_now - leave))
      == 0, "fallocate: %s", g_strerror (errno));
  fail_unless (fsync (fd) == 0);
  close (fd);
  return path;
}

/* What a file is, to tell it untouched: its content (SHA-256), size and
 * inode, and with `times` its modification and change times too */
static gchar *
identity (const gchar * path, gboolean times)
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
  if (times)
    out = g_strdup_printf ("%s size %" G_GINT64_FORMAT " inode %"
        G_GUINT64_FORMAT " mtime %ld.%09ld ctime %ld.%09ld",
        g_checksum_get_string (sum), (gint64) st.st_size,
        (guint64) st.st_ino, (long) st.st_mtim.tv_sec,
        (long) st.st_mtim.tv_nsec, (long) st.st_ctim.tv_sec,
        (long) st.st_ctim.tv_nsec);
  else
    out = g_strdup_printf ("%s size %" G_GINT64_FORMAT " inode %"
        G_GUINT64_FORMAT, g_checksum_get_string (sum), (gint64) st.st_size,
        (guint64) st.st_ino);
  g_checksum_free (sum);
  g_free (buf);
  return out;
}

static void
assert_identity (const gchar * path, const gchar * before, gboolean times)
{
  gchar *now = identity (path, times);

  fail_unless_equals_string (now, before);
  g_free (now);
}

/* ---- rotation: a ring by space -------------------------------------- */

#define RING_MIN_FREE (40 * MB)
#define RING_FIRST 3            /* start-index */
#define RING_PER_FILE 8         /* frames a file */
#define RING_FRAMES 400         /* 369 MB: more than the filesystem holds */

/* A rotating recording of more than the filesystem holds runs its whole
 * length without an error and keeps the newest frames, byte-exact; it
 * deletes only its own oldest files, announcing each.  Another
 * recording's files and a user's file at the pattern's names, the filler,
 * and a file renamed over one of its closed files stay as they were. */
GST_START_TEST (test_rotation_deletes_oldest)
{
  const gchar *fstype = fstypes[__i__];
  RtfTestFs *fs = rtf_test_fs_new (fstype, 400);
  gchar *pattern = g_build_filename (fs->dir, "cam-%05d.raw", NULL);
  gchar *other_props = g_strdup_printf ("max-file-size=%" G_GUINT64_FORMAT
      " min-free-space=0", 2 * FRAME);
  gchar *props = g_strdup_printf ("max-file-size=%" G_GUINT64_FORMAT
      " start-index=%d min-free-space=%" G_GUINT64_FORMAT,
      RING_PER_FILE * FRAME, RING_FIRST, RING_MIN_FREE);
  const gchar *foreign_names[] = { "cam-00000.raw", "cam-00000.raw.idx",
    "cam-00001.raw", "cam-00001.raw.idx", "cam-00002.raw"
  };
  gchar *foreign[G_N_ELEMENTS (foreign_names)];
  gchar *foreign_id[G_N_ELEMENTS (foreign_names)];
  gchar *filler, *filler_id, *renamed, *renamed_id, *path, *out = NULL;
  gchar *start_arg;
  Watch *w = watch_new ();
  Take *t;
  GstStructure *st;
  guint64 i, free0, last_deleted = RING_FIRST, kept_first, kept_frames;
  guint j;

  /* another recording's two files at numbers 0 and 1 (with their index
   * and mark), a user's file at number 2: the pattern names them all */
  rtf_test_record (pattern, other_props, CAPS, 4);
  path = g_build_filename (fs->dir, "cam-00002.raw", NULL);
  write_random (path, 1 << 20);
  g_free (path);
  for (j = 0; j < G_N_ELEMENTS (foreign_names); j++) {
    foreign[j] = g_build_filename (fs->dir, foreign_names[j], NULL);
    foreign_id[j] = identity (foreign[j], TRUE);
  }
  /* a file that will be renamed over the recording's first file once it
   * is closed */
  renamed = g_build_filename (fs->dir, "elsewhere.bin", NULL);
  write_random (renamed, 3 << 20);
  renamed_id = identity (renamed, FALSE);
  w->rename_index = RING_FIRST;
  w->rename_from = g_strdup (renamed);

  filler = make_filler (fs->dir, 160 * MB);
  filler_id = identity (filler, TRUE);
  free0 = fs_free (fs->dir);

  t = take_start (pattern, props, w);
  for (i = 0; i < RING_FRAMES; i++)
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (t->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (t->bus, GST_MESSAGE_ERROR);
  st = take_stats (t);
  fail_unless_equals_uint64 (field_u64 (st, "frames-written"), RING_FRAMES);
  fail_unless_equals_uint64 (field_u64 (st, "frames-lost"), 0);
  fail_unless_equals_uint64 (field_u64 (st, "min-free-space"), RING_MIN_FREE);
  fail_unless_equals_uint64 (field_u64 (st, "files-deleted"),
      watch_wait_count (w, w->deleted, field_u64 (st, "files-deleted")));
  gst_structure_free (st);
  take_stop (t);

  /* the renamed file was in place before any deletion */
  fail_unless (w->renamed);
  fail_unless_equals_int (w->rename_errno, 0);

  /* deleted: the recording's own, oldest first, from the one after the
   * file renamed over its first; each announced, and gone */
  fail_unless (w->deleted->len > 0);
  for (j = 0; j < w->deleted->len; j++) {
    const GstStructure *d = g_ptr_array_index (w->deleted, j);
    guint64 index = field_u64 (d, "index");

    fail_unless_equals_string (gst_structure_get_string (d, "reason"),
        "min-free-space");
    fail_unless_equals_uint64 (index, last_deleted + 1);
    last_deleted = index;
    fail_unless_equals_uint64 (field_u64 (d, "frames"), RING_PER_FILE);
    fail_unless_equals_uint64 (field_u64 (d, "first-frame"),
        (index - RING_FIRST) * RING_PER_FILE);
    fail_unless_equals_uint64 (field_u64 (d, "bytes"), RING_PER_FILE * FRAME);
    fail_unless (field_u64 (d, "freed") >= RING_PER_FILE * FRAME);
    fail_if (g_file_test (gst_structure_get_string (d, "location"),
            G_FILE_TEST_EXISTS));
    fail_if (g_file_test (gst_structure_get_string (d, "index-location"),
            G_FILE_TEST_EXISTS));
  }

  /* kept: every file after the last deleted, the newest frames, each
   * byte-exact, up to the last frame */
  kept_first = last_deleted + 1;
  kept_frames = 0;
  for (i = kept_first; i < RING_FIRST + RING_FRAMES / RING_PER_FILE; i++) {
    path = g_strdup_printf ("%s/cam-%05" G_GUINT64_FORMAT ".raw", fs->dir, i);
    rtf_test_assert_frames (path, FRAME, (i - RING_FIRST) * RING_PER_FILE,
        RING_PER_FILE);
    kept_frames += RING_PER_FILE;
    g_free (path);
  }
  path = g_strdup_printf ("%s/cam-%05" G_GUINT64_FORMAT ".raw", fs->dir, i);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
  g_print ("  %s: %" G_GUINT64_FORMAT " bytes free at the start, "
      "min-free-space %" G_GUINT64_FORMAT "; %u files deleted, the newest %"
      G_GUINT64_FORMAT " frames (%" G_GUINT64_FORMAT " bytes) kept, %"
      G_GUINT64_FORMAT " bytes free at the end\n", fstype, free0,
      RING_MIN_FREE, w->deleted->len, kept_frames, kept_frames * FRAME,
      fs_free (fs->dir));
  /* a ring by space: it kept what the space held, less the margin and the
   * files in the making (the current one, one finished, one ahead) */
  fail_unless (kept_frames * FRAME + RING_MIN_FREE + RING_MIN_FREE / 8 +
      3 * RING_PER_FILE * FRAME >= free0);
  fail_unless (fs_free (fs->dir) + FRAME >= RING_MIN_FREE);

  /* what remains of the recording checks whole */
  start_arg = g_strdup_printf ("--start-index=%" G_GUINT64_FORMAT, kept_first);
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify",
          start_arg, pattern, NULL), 0);
  fail_unless (strstr (out, "OK") != NULL);
  g_free (out);
  g_free (start_arg);

  /* never touched: the filler, the other recording, the user's file, the
   * file renamed into the set (and the index left beside it) */
  assert_identity (filler, filler_id, TRUE);
  for (j = 0; j < G_N_ELEMENTS (foreign_names); j++) {
    assert_identity (foreign[j], foreign_id[j], TRUE);
    g_free (foreign[j]);
    g_free (foreign_id[j]);
  }
  path = g_strdup_printf ("%s/cam-%05d.raw", fs->dir, RING_FIRST);
  assert_identity (path, renamed_id, FALSE);
  g_free (path);
  path = g_strdup_printf ("%s/cam-%05d.raw.idx", fs->dir, RING_FIRST);
  fail_unless (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);

  g_free (renamed);
  g_free (renamed_id);
  g_free (filler);
  g_free (filler_id);
  g_free (props);
  g_free (other_props);
  g_free (pattern);
  watch_free (w);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

/* ---- one file: the clean end ------------------------------------------- */

#define END_MIN_FREE (40 * MB)

/* The next ERROR: RESOURCE/NO_SPACE_LEFT from the guard, saying how many
 * frames were written */
static void
assert_guard_error (GstBus * bus, guint64 written)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (bus,
      5 * GST_SECOND * rtf_test_time_scale (), GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *dbg = NULL, *frames;

  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, &dbg);
  g_print ("  error: %s\n", err->message);
  fail_unless (err->domain == GST_RESOURCE_ERROR);
  fail_unless_equals_int (err->code, GST_RESOURCE_ERROR_NO_SPACE_LEFT);
  fail_unless (strstr (err->message, "ended before its filesystem was full")
      != NULL);
  fail_unless (strstr (err->message, "would have taken it under "
          "min-free-space") != NULL, "%s", err->message);
  frames = g_strdup_printf (": %" G_GUINT64_FORMAT " frames (", written);
  fail_unless (strstr (err->message, frames) != NULL, "'%s' not in '%s'",
      frames, err->message);
  fail_unless (strstr (dbg, "bytes written") != NULL);
  g_free (frames);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (msg);
}

/* Without rotation the recording ends before the filesystem is full: the
 * error says so, the file holds whole frames and its index matches
 * (rtframe-verify), the space reserved ahead (128 MiB, more than there
 * is) neither ended it early nor let the disk fill: it stops within a few
 * frames under min-free-space. */
GST_START_TEST (test_end_before_full)
{
  const gchar *fstype = fstypes[__i__];
  RtfTestFs *fs = rtf_test_fs_new (fstype, 400);
  gchar *path = g_build_filename (fs->dir, "cam.raw", NULL);
  gchar *props = g_strdup_printf ("min-free-space=%" G_GUINT64_FORMAT,
      END_MIN_FREE);
  gchar *filler, *filler_id, *out = NULL, *frames;
  Watch *w = watch_new ();
  Take *t;
  GstStructure *st;
  GstFlowReturn ret = GST_FLOW_OK;
  guint64 pushed = 0, written, lost, queued, in_flight, free_end;
  struct stat sb;

  filler = make_filler (fs->dir, 120 * MB);
  filler_id = identity (filler, TRUE);

  t = take_start (path, props, w);
  while (ret == GST_FLOW_OK && pushed < 400) {
    ret = take_push (t, pushed);
    if (ret == GST_FLOW_OK)
      pushed++;
  }
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  /* the writer stops taking frames: EOS does not claim a whole file */
  fail_if (gst_harness_push_event (t->h, gst_event_new_eos ()));
  st = take_stats (t);
  written = field_u64 (st, "frames-written");
  lost = field_u64 (st, "frames-lost");
  queued = field_u64 (st, "frames-queued");
  in_flight = field_u64 (st, "frames-in-flight");
  fail_unless_equals_uint64 (field_u64 (st, "frames-received"), pushed);
  fail_unless_equals_uint64 (written + lost + queued + in_flight, pushed);
  fail_unless_equals_uint64 (field_u64 (st, "bytes-written"), written * FRAME);
  fail_unless_equals_uint64 (field_u64 (st, "min-free-space"), END_MIN_FREE);
  gst_structure_free (st);
  assert_guard_error (t->bus, written);
  take_stop (t);

  fail_unless (written > 0);
  fail_unless (stat (path, &sb) == 0);
  fail_unless_equals_uint64 (sb.st_size, written * FRAME);
  rtf_test_assert_file (path, FRAME, 0, written);
  /* the index matches: verify reads the frames through it */
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", path,
          NULL), 0);
  frames = g_strdup_printf ("%" G_GUINT64_FORMAT " frames, %"
      G_GUINT64_FORMAT " bytes", written, written * FRAME);
  fail_unless (strstr (out, frames) != NULL, "'%s' not in %s", frames, out);
  g_free (frames);
  g_free (out);

  free_end = fs_free (fs->dir);
  g_print ("  %s: %" G_GUINT64_FORMAT " frames written, %" G_GUINT64_FORMAT
      " lost; %" G_GUINT64_FORMAT " bytes free at the end, min-free-space %"
      G_GUINT64_FORMAT " (%.2f frames under it)\n", fstype, written, lost,
      free_end, END_MIN_FREE,
      ((gdouble) END_MIN_FREE - (gdouble) free_end) / FRAME);
  /* not early (the reservation counted as the recording's), not late */
  fail_unless (free_end <= END_MIN_FREE + FRAME);
  fail_unless (free_end + 8 * FRAME >= END_MIN_FREE);
  assert_identity (filler, filler_id, TRUE);

  g_free (filler);
  g_free (filler_id);
  g_free (props);
  g_free (path);
  watch_free (w);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

/* Under min-free-space from the start: the recording ends at once, with
 * an empty file, and reserves nothing on the way */
GST_START_TEST (test_under_the_line_at_start)
{
  const gchar *fstype = fstypes[__i__];
  RtfTestFs *fs = rtf_test_fs_new (fstype, 400);
  gchar *path = g_build_filename (fs->dir, "cam.raw", NULL);
  gchar *props = g_strdup_printf ("min-free-space=%" G_GUINT64_FORMAT,
      END_MIN_FREE);
  gchar *filler;
  Watch *w = watch_new ();
  Take *t;
  guint64 free0, i = 0;
  struct stat sb;
  const GstStructure *said;

  filler = make_filler (fs->dir, 20 * MB);
  free0 = fs_free (fs->dir);
  t = take_start (path, props, w);
  /* (a frame may be taken before the end reaches the queue: it is lost) */
  while (i < 20 && take_push (t, i) == GST_FLOW_OK)
    i++;
  fail_unless (i < 20);
  fail_unless_equals_uint64 (take_u64 (t, "frames-written"), 0);
  assert_guard_error (t->bus, 0);
  take_stop (t);
  fail_unless (stat (path, &sb) == 0);
  fail_unless_equals_uint64 (sb.st_size, 0);
  fail_unless_equals_uint64 (sb.st_blocks, 0);
  fail_unless (fs_free (fs->dir) + 64 * 1024 >= free0);
  /* the level was said at once */
  fail_unless (w->space->len >= 1);
  said = g_ptr_array_index (w->space, 0);
  fail_unless_equals_string (gst_structure_get_string (said, "level"),
      "critical");
  fail_unless_equals_string (gst_structure_get_string (said,
          "previous-level"), "ok");
  g_free (filler);
  g_free (props);
  g_free (path);
  watch_free (w);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

/* ---- the levels ------------------------------------------------------- */

#define LEVEL_MIN_FREE (16 * MB)

static const gchar *
level_of (const GstStructure * s)
{
  return gst_structure_get_string (s, "level");
}

/* The figures of a disk-space message agree with each other and with the
 * level they announce */
static void
check_space_message (const GstStructure * s)
{
  guint64 free = field_u64 (s, "free-space");
  guint64 rate = field_u64 (s, "write-rate");
  guint64 left = field_u64 (s, "time-left");
  const gchar *level = level_of (s);
  guint64 detected;

  fail_unless_equals_uint64 (field_u64 (s, "min-free-space"), LEVEL_MIN_FREE);
  fail_unless_equals_uint64 (field_u64 (s, "filesystem-free") +
      field_u64 (s, "reserved"), free);
  fail_unless (gst_structure_get_uint64 (s, "detected", &detected));
  fail_unless (detected > 0);
  if (g_str_equal (level, "low"))
    fail_unless (free < 4 * LEVEL_MIN_FREE && free >= 2 * LEVEL_MIN_FREE);
  else if (g_str_equal (level, "very-low"))
    fail_unless (free < 2 * LEVEL_MIN_FREE && free >= LEVEL_MIN_FREE);
  else if (g_str_equal (level, "critical"))
    /* under the line, or (the writer's ledger) too close to it for the
     * next frame */
    fail_unless (free < LEVEL_MIN_FREE + FRAME);
  else
    fail_unless (g_str_equal (level, "ok")
        && free >= 4 * LEVEL_MIN_FREE + LEVEL_MIN_FREE / 4);
  if (rate == 0) {
    fail_unless_equals_uint64 (left, GST_CLOCK_TIME_NONE);
  } else if (free <= LEVEL_MIN_FREE || g_str_equal (level, "critical")) {
    fail_unless_equals_uint64 (left, 0);
  } else {
    gdouble want = (gdouble) (free - LEVEL_MIN_FREE) * 1e9 / rate;

    fail_unless (left >= want * 0.99 && left <= want * 1.01 + 1);
  }
}

/* Paced at 23 MB/s: down through low and very-low; then the filler
 * shrinks and the level goes back up (ok); down again through every
 * level to critical - the next frame no longer fits above the line -
 * where the recording ends.  Each message once, its figures right. */
GST_START_TEST (test_levels)
{
  const gchar *fstype = fstypes[__i__];
  RtfTestFs *fs = rtf_test_fs_new (fstype, 400);
  gchar *path = g_build_filename (fs->dir, "cam.raw", NULL);
  gchar *props = g_strdup_printf ("min-free-space=%" G_GUINT64_FORMAT,
      LEVEL_MIN_FREE);
  static const gchar *const want[] = { "low", "very-low", "ok", "low",
    "very-low", "critical"
  };
  gchar *filler;
  Watch *w = watch_new ();
  Take *t;
  GstStructure *st;
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean shrunk = FALSE;
  guint64 pushed = 0;
  guint j;
  struct stat sb;

  filler = make_filler (fs->dir, 5 * LEVEL_MIN_FREE);
  t = take_start (path, props, w);
  while (ret == GST_FLOW_OK && pushed < 600) {
    ret = take_push (t, pushed);
    if (ret == GST_FLOW_OK)
      pushed++;
    g_usleep (40 * 1000);
    /* very-low: the filler gives back 64 MB */
    g_mutex_lock (&w->lock);
    if (!shrunk && w->space->len == 2) {
      fail_unless (stat (filler, &sb) == 0);
      fail_unless (truncate (filler, sb.st_size - 64 * (gint64) MB) == 0);
      shrunk = TRUE;
    }
    g_mutex_unlock (&w->lock);
  }
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  st = take_stats (t);
  assert_guard_error (t->bus, field_u64 (st, "frames-written"));
  /* it ends where the next frame no longer fits above the line */
  fail_unless (field_u64 (st, "free-space") < LEVEL_MIN_FREE + FRAME);
  fail_unless (field_u64 (st, "write-rate") > 0);
  fail_unless_equals_uint64 (field_u64 (st, "time-left"), 0);
  fail_unless_equals_uint64 (field_u64 (st, "files-deleted"), 0);
  gst_structure_free (st);
  take_stop (t);

  for (j = 0; j < w->space->len; j++) {
    const GstStructure *s = g_ptr_array_index (w->space, j);

    g_print ("  %s: %s (from %s): %" G_GUINT64_FORMAT " bytes free, %"
        G_GUINT64_FORMAT " bytes/s, %.1f s left\n", fstype, level_of (s),
        gst_structure_get_string (s, "previous-level"),
        field_u64 (s, "free-space"), field_u64 (s, "write-rate"),
        field_u64 (s, "time-left") == GST_CLOCK_TIME_NONE ? -1.0 :
        field_u64 (s, "time-left") / 1e9);
  }
  fail_unless_equals_int (w->space->len, G_N_ELEMENTS (want));
  for (j = 0; j < w->space->len; j++) {
    const GstStructure *s = g_ptr_array_index (w->space, j);

    fail_unless_equals_string (level_of (s), want[j]);
    fail_unless_equals_string (gst_structure_get_string (s,
            "previous-level"), j == 0 ? "ok" : want[j - 1]);
    check_space_message (s);
  }
  /* by the second message the rate is known: about the pace's 23 MB/s */
  fail_unless (field_u64 (g_ptr_array_index (w->space, 1), "write-rate") >
      2 * MB);

  g_free (filler);
  g_free (props);
  g_free (path);
  watch_free (w);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

/* ---- max-files, announced --------------------------------------------- */

/* max-files deletions are announced like the guard's, for that reason;
 * a file renamed over a closed one is not deleted */
GST_START_TEST (test_max_files_announced)
{
  RtfTestFs *fs = rtf_test_fs_new ("xfs", 300);
  gchar *pattern = g_build_filename (fs->dir, "m-%d.raw", NULL);
  gchar *props = g_strdup_printf ("max-file-size=%" G_GUINT64_FORMAT
      " max-files=2", 2 * FRAME);
  gchar *renamed = g_build_filename (fs->dir, "elsewhere.bin", NULL);
  gchar *renamed_id, *path;
  Watch *w = watch_new ();
  Take *t;
  GstStructure *st;
  guint64 i;
  guint j;

  write_random (renamed, 1 << 20);
  renamed_id = identity (renamed, FALSE);
  w->rename_index = 1;
  w->rename_from = g_strdup (renamed);
  t = take_start (pattern, props, w);
  /* files 0, 1 and the first frame of 2: file 1 is closed, and renamed
   * over before max-files reaches it (with file 3) */
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  for (j = 0; j < 500 && !watch_renamed (w); j++)
    g_usleep (10 * 1000);
  fail_unless (watch_renamed (w));
  for (; i < 12; i++)
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (t->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (t->bus, GST_MESSAGE_ERROR);
  st = take_stats (t);
  fail_unless_equals_uint64 (field_u64 (st, "files-deleted"), 3);
  gst_structure_free (st);
  take_stop (t);

  /* files 0..5; 4 and 5 kept; 1 renamed over: 0, 2, 3 deleted */
  fail_unless (w->renamed);
  fail_unless_equals_int (w->deleted->len, 3);
  for (j = 0; j < w->deleted->len; j++) {
    const GstStructure *d = g_ptr_array_index (w->deleted, j);
    guint64 index = field_u64 (d, "index");

    fail_unless_equals_uint64 (index, j == 0 ? 0 : j + 1);
    fail_unless_equals_string (gst_structure_get_string (d, "reason"),
        "max-files");
    fail_unless_equals_uint64 (field_u64 (d, "frames"), 2);
    fail_unless_equals_uint64 (field_u64 (d, "first-frame"), 2 * index);
    fail_unless_equals_uint64 (field_u64 (d, "last-frame"), 2 * index + 1);
    fail_unless_equals_uint64 (field_u64 (d, "bytes"), 2 * FRAME);
    fail_unless (field_u64 (d, "freed") >= 2 * FRAME);
    fail_unless (gst_structure_get_string (d, "index-location") != NULL);
  }
  path = g_build_filename (fs->dir, "m-1.raw", NULL);
  assert_identity (path, renamed_id, FALSE);
  g_free (path);
  for (i = 4; i < 6; i++) {
    path = g_strdup_printf ("%s/m-%" G_GUINT64_FORMAT ".raw", fs->dir, i);
    rtf_test_assert_frames (path, FRAME, 2 * i, 2);
    g_free (path);
  }
  g_free (renamed);
  g_free (renamed_id);
  g_free (props);
  g_free (pattern);
  watch_free (w);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

static gboolean
take_emit (Take * t, const gchar * signal)
{
  gboolean ok = FALSE;

  g_signal_emit_by_name (t->h->element, signal, GST_CLOCK_TIME_NONE, &ok);
  return ok;
}

/* An event recorder between recordings writes nothing: under
 * min-free-space it deletes none of its event files - the newest frames
 * are in the last one - and makes room again, oldest first, once a
 * recording comes (review of issue 17: every event file went while idle) */
GST_START_TEST (test_idle_event_recorder_keeps_files)
{
  RtfTestFs *fs = rtf_test_fs_new ("xfs", 300);
  gchar *pattern = g_build_filename (fs->dir, "ev-%03d.raw", NULL);
  gchar *props = g_strdup_printf ("record=false min-free-space=%"
      G_GUINT64_FORMAT " preallocate=0", 40 * MB);
  gchar *filler, *path;
  Watch *w = watch_new ();
  Take *t = take_start (pattern, props, w);
  guint64 i = 0, e;

  /* two events of 5 frames, 5 frames let go between them */
  for (e = 0; e < 2; e++) {
    fail_unless (take_emit (t, "start-recording"));
    for (; i < 10 * e + 5; i++)
      fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
    fail_unless (take_emit (t, "stop-recording"));
    for (; i < 10 * e + 10; i++)
      fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
  }
  /* the disk fills while nothing is recorded, to 41 MB free: within the
   * eighth over the line where a recording makes room (45 MB), and the
   * oldest event alone gives that back.  The guard looks at least once a
   * second. */
  filler = make_filler (fs->dir, 41 * MB);
  for (e = 0; e < 25; e++, i++) {
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
    g_usleep (100 * 1000);
  }
  fail_unless_equals_int (watch_count (w, w->deleted), 0);
  for (e = 0; e < 2; e++) {
    path = rtf_pattern_format (pattern, e);
    rtf_test_assert_frames (path, FRAME, 10 * e, 5);
    g_free (path);
  }
  /* a recording comes: now the oldest event goes for it */
  fail_unless (take_emit (t, "start-recording"));
  for (e = 0; e < 25 && watch_count (w, w->deleted) == 0; e++, i++) {
    fail_unless_equals_int (take_push (t, i), GST_FLOW_OK);
    g_usleep (100 * 1000);
  }
  /* oldest first (the second may follow as the recording's frames take
   * the space: those are the newest now) */
  fail_unless (watch_count (w, w->deleted) >= 1);
  fail_unless_equals_uint64 (field_u64 (g_ptr_array_index (w->deleted, 0),
          "index"), 0);
  fail_unless (gst_harness_push_event (t->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (t->bus, GST_MESSAGE_ERROR);
  take_stop (t);
  g_free (filler);
  g_free (props);
  g_free (pattern);
  watch_free (w);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

static Suite *
disk_space_suite (void)
{
  Suite *s = suite_create ("disk-space");
  TCase *tc = tcase_create ("disk-space");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 180);
  tcase_add_loop_test (tc, test_rotation_deletes_oldest, 0,
      G_N_ELEMENTS (fstypes));
  tcase_add_loop_test (tc, test_end_before_full, 0, G_N_ELEMENTS (fstypes));
  tcase_add_loop_test (tc, test_under_the_line_at_start, 0,
      G_N_ELEMENTS (fstypes));
  tcase_add_loop_test (tc, test_levels, 0, G_N_ELEMENTS (fstypes));
  tcase_add_test (tc, test_max_files_announced);
  tcase_add_test (tc, test_idle_event_recorder_keeps_files);
  return s;
}

int
main (int argc, char **argv)
{
  static const gchar *const tools[] = { "losetup", "mkfs.xfs", "mkfs.ext4",
    "mount"
  };
  guint i;

  if (!rtf_test_is_root ()) {
    g_print ("SKIP: needs root (makes XFS and ext4 on loop devices)\n");
    return 77;
  }
  for (i = 0; i < G_N_ELEMENTS (tools); i++) {
    gchar *p = g_find_program_in_path (tools[i]);

    if (p == NULL) {
      g_print ("SKIP: %s is not installed\n", tools[i]);
      return 77;
    }
    g_free (p);
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (disk_space_suite (), "disk-space", __FILE__);
}
