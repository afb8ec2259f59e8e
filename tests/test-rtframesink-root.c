/* rtframesink on real filesystems the test makes: ramfs (no O_DIRECT),
 * small XFS and ext4 on loop devices (a new file marked before it is
 * named, disk full, the user's workload), and
 * io_uring switched off by sysctl.  Needs root: exits 77 (skip) with the
 * reason otherwise.  Never run in parallel with other tests (the sysctl is
 * system-wide). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rtf-file.h"
#include "rtf-index.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

#define USER_CAPS "video/x-raw,format=P010_10LE,width=2048,height=928," \
    "framerate=20/1"
#define USER_FRAME_SIZE 5701632
#define IO_URING_SYSCTL "/proc/sys/kernel/io_uring_disabled"

static gchar *saved_io_uring_disabled;

/* ---- no O_DIRECT: ramfs ----------------------------------------------- */

GST_START_TEST (test_ramfs_falls_back_to_buffered)
{
  RtfTestFs *fs = rtf_test_fs_new ("ramfs", 0);
  gchar *path = g_build_filename (fs->dir, "cam.raw", NULL);
  Rec *r = rtf_test_rec_start (path, NULL, USER_CAPS);
  gboolean direct = TRUE;
  guint i;

  /* announced once, at start */
  rtf_test_assert_message (r->bus, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "page cache");
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_WARNING);
  g_object_get (r->h->element, "current-direct", &direct, NULL);
  fail_if (direct);
  for (i = 0; i < 10; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  fail_unless_equals_uint64 (rtf_test_rec_u64 (r, "frames-written"), 10);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_WARNING);
  rtf_test_rec_stop (r);
  rtf_test_assert_file (path, USER_FRAME_SIZE, 0, 10);
  g_unlink (path);
  g_free (path);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

GST_START_TEST (test_ramfs_direct_on_is_an_error)
{
  RtfTestFs *fs = rtf_test_fs_new ("ramfs", 0);
  gchar *path = g_build_filename (fs->dir, "cam.raw", NULL);
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstBus *bus = gst_bus_new ();

  g_object_set (sink, "location", path, NULL);
  gst_util_set_object_arg (G_OBJECT (sink), "direct", "on");
  gst_element_set_bus (sink, bus);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  rtf_test_assert_message (bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, "O_DIRECT");
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (sink);
  gst_object_unref (bus);
  g_free (path);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

/* ---- no io_uring: kernel.io_uring_disabled=2 -------------------------- */

/* /proc files are written in place (g_file_set_contents renames) */
static gboolean
write_sysctl (const gchar * value)
{
  FILE *f = fopen (IO_URING_SYSCTL, "w");
  gboolean ok;

  if (f == NULL)
    return FALSE;
  ok = fputs (value, f) >= 0;
  return fclose (f) == 0 && ok;
}

static void
set_io_uring_disabled (const gchar * value)
{
  fail_unless (write_sysctl (value));
}

static void
save_io_uring_sysctl (void)
{
  g_file_get_contents (IO_URING_SYSCTL, &saved_io_uring_disabled, NULL, NULL);
}

/* The value saved before the tests, put back (and kept for the next
 * test: without fork, CK_FORK=no, the tests share this process, and the
 * second one that disabled io_uring left it disabled for every test after
 * it, which then hung in gst_task_cleanup_all()) */
static void
put_back_io_uring_sysctl (void)
{
  if (saved_io_uring_disabled)
    write_sysctl (saved_io_uring_disabled);
}

/* Runs in the parent process, also after a test that failed. */
static void
restore_io_uring_sysctl (void)
{
  put_back_io_uring_sysctl ();
  g_clear_pointer (&saved_io_uring_disabled, g_free);
}

GST_START_TEST (test_no_io_uring_falls_back_to_pwrite)
{
  gchar *dir, *path;
  Rec *r;
  gint engine = -1;
  guint i;

  if (!g_file_test (IO_URING_SYSCTL, G_FILE_TEST_EXISTS)) {
    g_print ("  skipped: this kernel has no %s\n", IO_URING_SYSCTL);
    return;
  }
  dir = rtf_test_tmpdir_new ("rtframe-nouring");
  path = g_build_filename (dir, "cam.raw", NULL);
  set_io_uring_disabled ("2");
  r = rtf_test_rec_start (path, NULL, USER_CAPS);
  rtf_test_assert_message (r->bus, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "io_uring");
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_WARNING);
  g_object_get (r->h->element, "current-io-engine", &engine, NULL);
  fail_unless_equals_int (engine, 2);   /* psync */
  for (i = 0; i < 10; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  rtf_test_rec_stop (r);
  put_back_io_uring_sysctl ();
  rtf_test_assert_file (path, USER_FRAME_SIZE, 0, 10);
  rtf_test_tmpdir_free (dir);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_no_io_uring_forced_is_an_error)
{
  GstElement *sink;
  GstBus *bus;
  gchar *dir, *path, *index;
  struct stat st;

  if (!g_file_test (IO_URING_SYSCTL, G_FILE_TEST_EXISTS)) {
    g_print ("  skipped: this kernel has no %s\n", IO_URING_SYSCTL);
    return;
  }
  dir = rtf_test_tmpdir_new ("rtframe-nouring");
  path = g_build_filename (dir, "cam.raw", NULL);
  sink = gst_element_factory_make ("rtframesink", NULL);
  bus = gst_bus_new ();
  g_object_set (sink, "location", path, NULL);
  gst_util_set_object_arg (G_OBJECT (sink), "io-engine", "io-uring");
  gst_element_set_bus (sink, bus);
  set_io_uring_disabled ("2");
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  put_back_io_uring_sysctl ();
  rtf_test_assert_message (bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "io_uring");
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (sink);
  gst_object_unref (bus);
  /* what a recording without frames leaves: the space reserved at open
   * (preallocate, 128 MB) given back, an empty index */
  fail_unless (stat (path, &st) == 0);
  fail_unless_equals_int64 (st.st_size, 0);
  fail_unless_equals_int64 (st.st_blocks, 0);
  index = g_strconcat (path, ".idx", NULL);
  fail_unless (stat (index, &st) == 0);
  fail_unless_equals_int64 (st.st_size, 0);
  g_free (index);
  rtf_test_tmpdir_free (dir);
  g_free (path);
}

GST_END_TEST;

/* ---- a new file: whole before it is named ------------------------------ */

/* On a filesystem the kernel makes unnamed files on (O_TMPFILE), a new
 * data file is made unnamed, flagged and marked, then linked at its name
 * (tests/test-file.c watches the link itself): found at its name with
 * direct I/O, the mark and, on XFS, the extent size hint */
static void
new_file_marked (const gchar * fstype, guint size_mb)
{
  RtfTestFs *fs = rtf_test_fs_new (fstype, size_mb);
  gchar *path = g_build_filename (fs->dir, "cam-00001.raw", NULL);
  RtfRecordingId id, got;
  RtfXflags want = { FALSE, 0 }, have;
  RtfFile f;
  gint err = 0, probe, fd;
  guint64 number;

  probe = open (fs->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (probe >= 0)
    close (probe);
  if (g_strcmp0 (fstype, "xfs") == 0)
    want.extent_size = 1 << 20;
  rtf_recording_id_new (&id);
  fail_unless (rtf_file_open (&f, path, RTF_FILE_CREATE_NEW, RTF_DIRECT_AUTO,
          &want, &id, 1, &err), "%s", g_strerror (err));
  g_print ("  %s: %s, direct I/O %s\n", fstype, f.unnamed ? "made unnamed "
      "(O_TMPFILE), flagged and marked, then linked" : "made by its name "
      "(no O_TMPFILE here)", f.direct ? "on" : "off");
  fail_unless_equals_int (f.unnamed, probe >= 0);
  fail_unless (f.created && f.direct);
  fail_unless_equals_int (f.xflags_errno, 0);
  fail_unless_equals_int (f.mark_errno, 0);
  rtf_file_close (&f);

  fd = open (path, O_RDONLY | O_CLOEXEC);
  fail_unless (fd >= 0);
  fail_unless (rtf_file_mark_get (fd, &got, &number));
  fail_unless (rtf_recording_id_equal (&got, &id));
  fail_unless_equals_uint64 (number, 1);
  fail_unless_equals_int (rtf_xflags_get (fd, &have), 0);
  fail_unless_equals_uint64 (have.extent_size, want.extent_size);
  close (fd);
  g_unlink (path);
  g_free (path);
  rtf_test_fs_free (fs);
}

GST_START_TEST (test_new_file_marked_xfs)
{
  new_file_marked ("xfs", 320);
}

GST_END_TEST;

GST_START_TEST (test_new_file_marked_ext4)
{
  new_file_marked ("ext4", 64);
}

GST_END_TEST;

/* ---- disk full -------------------------------------------------------- */

/* Records until the filesystem is full: NO_SPACE_LEFT naming the file, the
 * file cut back to whole frames, each byte-exact, counters that add up.
 * With the free-space guard off: this is the write's own ENOSPC (another
 * writer filling the disk); the guard's clean end is test-disk-space's. */
static void
fill_disk (const gchar * fstype, guint size_mb, guint leave_mb,
    const gchar * props)
{
  RtfTestFs *fs = rtf_test_fs_new (fstype, size_mb);
  gchar *path = g_build_filename (fs->dir, "cam.raw", NULL);
  gchar *cmd;
  Rec *r;
  GstFlowReturn ret = GST_FLOW_OK;
  guint64 pushed = 0, received, written, lost, queued, in_flight;
  GstStructure *st = NULL;
  struct stat sb;

  /* leave `leave_mb` MiB free, so the recording fills it mid-frame */
  cmd = g_strdup_printf ("fallocate -l $(( $(df -B1 --output=avail %s | "
      "tail -1) - %u * 1048576 )) %s/filler", fs->dir, leave_mb, fs->dir);
  fail_unless_equals_int (rtf_test_run (cmd), 0);
  g_free (cmd);

  r = rtf_test_rec_start (path, props, USER_CAPS);
  while (ret == GST_FLOW_OK && pushed < 1000) {
    ret = rtf_test_rec_push (r, 0, pushed);
    if (ret == GST_FLOW_OK)
      pushed++;
  }
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  rtf_test_assert_message (r->bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NO_SPACE_LEFT, path);
  /* EOS after the error does not claim a complete file */
  fail_if (gst_harness_push_event (r->h, gst_event_new_eos ()));
  /* one snapshot: a frame accepted just before the error may still be
   * queued, on its way to being counted lost */
  g_object_get (r->h->element, "stats", &st, NULL);
  gst_structure_get_uint64 (st, "frames-received", &received);
  gst_structure_get_uint64 (st, "frames-written", &written);
  gst_structure_get_uint64 (st, "frames-lost", &lost);
  gst_structure_get_uint64 (st, "frames-queued", &queued);
  gst_structure_get_uint64 (st, "frames-in-flight", &in_flight);
  gst_structure_free (st);
  fail_unless_equals_uint64 (received, pushed);
  fail_unless_equals_uint64 (written + lost + queued + in_flight, received);
  rtf_test_rec_stop (r);


  g_print ("  %s: %" G_GUINT64_FORMAT " frames accepted, %" G_GUINT64_FORMAT
      " written, %" G_GUINT64_FORMAT " lost to the error\n", fstype, pushed,
      written, lost);
  fail_unless (written > 0);
  fail_unless (stat (path, &sb) == 0);
  fail_unless_equals_uint64 (sb.st_size, written * USER_FRAME_SIZE);
  rtf_test_assert_file (path, USER_FRAME_SIZE, 0, written);
  g_free (path);
  rtf_test_fs_free (fs);
}

GST_START_TEST (test_disk_full_xfs)
{
  fill_disk ("xfs", 320, 40, "min-free-space=0");
}

GST_END_TEST;

GST_START_TEST (test_disk_full_ext4)
{
  fill_disk ("ext4", 64, 30, "min-free-space=0");
}

GST_END_TEST;

GST_START_TEST (test_disk_full_xfs_psync)
{
  fill_disk ("xfs", 320, 40, "min-free-space=0 io-engine=psync");
}

GST_END_TEST;

/* ---- the user's workload on XFS --------------------------------------- */

typedef struct
{
  Rec *r;
  guint stream;
  guint n;
} StreamData;

/* One camera: frames at 20 Hz from a live clock. */
static gpointer
camera (gpointer user_data)
{
  StreamData *d = user_data;
  gint64 start = g_get_monotonic_time ();
  guint i;

  for (i = 0; i < d->n; i++) {
    gint64 due = start + (gint64) i * G_USEC_PER_SEC / 20;
    gint64 now = g_get_monotonic_time ();

    if (due > now)
      g_usleep (due - now);
    fail_unless_equals_int (rtf_test_rec_push (d->r, d->stream, i),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (d->r->h, gst_event_new_eos ()));
  return NULL;
}

GST_START_TEST (test_user_workload_xfs)
{
  RtfTestFs *fs = rtf_test_fs_new ("xfs", 2048);
  StreamData d[3];
  GThread *t[3];
  guint s, n = 60;              /* 3 s at 20 Hz */

  for (s = 0; s < 3; s++) {
    gchar *path = g_strdup_printf ("%s/cam%u.raw", fs->dir, s);

    d[s].r = rtf_test_rec_start (path, NULL, USER_CAPS);
    d[s].stream = s;
    d[s].n = n;
    g_free (path);
  }
  for (s = 0; s < 3; s++)
    t[s] = g_thread_new ("camera", camera, &d[s]);
  for (s = 0; s < 3; s++)
    g_thread_join (t[s]);
  for (s = 0; s < 3; s++) {
    gchar *path = g_strdup (d[s].r->location);
    gboolean direct = FALSE;

    g_object_get (d[s].r->h->element, "current-direct", &direct, NULL);
    fail_unless (direct);
    fail_unless_equals_uint64 (rtf_test_rec_u64 (d[s].r, "frames-written"), n);
    fail_unless_equals_uint64 (rtf_test_rec_u64 (d[s].r, "frames-zero-copy"),
        n);
    rtf_test_assert_no_message (d[s].r->bus, GST_MESSAGE_WARNING);
    rtf_test_assert_no_message (d[s].r->bus, GST_MESSAGE_ERROR);
    rtf_test_rec_stop (d[s].r);
    rtf_test_assert_file (path, USER_FRAME_SIZE, s, n);
    g_free (path);
  }
  rtf_test_fs_free (fs);
}

GST_END_TEST;

/* ---- a really slow disk: blkio-throttled loop device ------------------ */

#define SLOW_CAPS "video/x-raw,format=P010_10LE,width=640,height=480," \
    "framerate=20/1"
#define SLOW_FRAME_SIZE 921600

static void
slow_disk (const gchar * leaky)
{
  RtfTestFs *fs;
  gchar *path, *props, *cg;
  Rec *r;
  GstStructure *st = NULL;
  GstMessage *msg;
  guint i, n = 40, missed_msgs = 0, qos_msgs = 0, dropped_msgs = 0;
  guint64 *seqs = NULL, received, written, dropped, missed, waited;
  gint64 start, kept, lateness, latest = 0;

  if (!rtf_test_have_blkio ())
    return;
  fs = rtf_test_fs_new ("xfs", 320);
  path = g_build_filename (fs->dir, "slow.raw", NULL);
  props = g_strdup_printf ("leaky=%s max-size-buffers=4", leaky);
  /* 8 MB/s for 18 MB/s of frames: the disk cannot keep up */
  cg = rtf_test_throttle_new (fs->loopdev, 8 * 1000 * 1000);
  r = rtf_test_rec_start (path, props, SLOW_CAPS);
  start = g_get_monotonic_time ();
  for (i = 0; i < n; i++) {
    gint64 due = start + (gint64) i * G_USEC_PER_SEC / 20;
    gint64 now = g_get_monotonic_time ();

    if (due > now)
      g_usleep (due - now);
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  g_object_get (r->h->element, "stats", &st, NULL);
  while ((msg = gst_bus_pop (r->bus))) {
    if (gst_message_has_name (msg, "rtframesink-deadline-missed")) {
      const GstStructure *s = gst_message_get_structure (msg);

      missed_msgs++;
      if (g_strcmp0 (gst_structure_get_string (s, "where"), "dropped") == 0)
        dropped_msgs++;
      else if (gst_structure_get_int64 (s, "lateness", &lateness))
        latest = MAX (latest, lateness);
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_QOS)
      qos_msgs++;
    gst_message_unref (msg);
  }
  rtf_test_rec_stop (r);
  rtf_test_throttle_free (cg);

  gst_structure_get_uint64 (st, "frames-received", &received);
  gst_structure_get_uint64 (st, "frames-written", &written);
  gst_structure_get_uint64 (st, "frames-dropped", &dropped);
  gst_structure_get_uint64 (st, "frames-missed", &missed);
  gst_structure_get_uint64 (st, "wait-total", &waited);
  g_print ("  slow disk, leaky=%s: %" G_GUINT64_FORMAT " received, %"
      G_GUINT64_FORMAT " written, %" G_GUINT64_FORMAT " dropped, %"
      G_GUINT64_FORMAT " missed (%u messages, seen at most %.1f ms late), "
      "streaming thread waited %" G_GUINT64_FORMAT " ms\n", leaky, received,
      written, dropped, missed, missed_msgs, latest / 1e6, waited / 1000000);
  fail_unless_equals_uint64 (received, n);
  fail_unless_equals_uint64 (written + dropped, received);
  fail_unless (missed > 0);
  fail_unless_equals_uint64 (missed_msgs, missed);
  fail_unless_equals_uint64 (qos_msgs, dropped);
  /* each miss seen when its deadline passed, wherever the frame was (with
   * leaky=no most wait in render) */
  fail_unless (latest < 20 * GST_MSECOND * rtf_test_time_scale (),
      "a miss was seen %" G_GINT64_FORMAT " ns after its deadline", latest);

  kept = rtf_test_scan_frames (path, SLOW_FRAME_SIZE, 0, &seqs);
  fail_unless_equals_int64 (kept, written);
  if (g_strcmp0 (leaky, "no") == 0) {
    fail_unless_equals_uint64 (dropped, 0);
    fail_unless (waited > 0);   /* it waited instead, and said so */
    for (i = 0; i < n; i++)
      fail_unless_equals_uint64 (seqs[i], i);
  } else {
    fail_unless (dropped > 0);
    fail_unless_equals_uint64 (waited, 0);      /* never waited */
    fail_unless (dropped_msgs <= dropped);
  }
  g_free (seqs);
  gst_structure_free (st);
  g_free (props);
  g_free (path);
  rtf_test_fs_free (fs);
}

GST_START_TEST (test_slow_disk_leaky_no)
{
  slow_disk ("no");
}

GST_END_TEST;

GST_START_TEST (test_slow_disk_leaky_upstream)
{
  slow_disk ("upstream");
}

GST_END_TEST;

GST_START_TEST (test_slow_disk_leaky_downstream)
{
  slow_disk ("downstream");
}

GST_END_TEST;

GST_START_TEST (test_thread_realtime_as_root)
{
  gchar *dir = rtf_test_tmpdir_new ("rtframe-rt");
  gchar *path = g_build_filename (dir, "rt.raw", NULL);
  Rec *r = rtf_test_rec_start (path, "thread-policy=fifo thread-priority=20 "
      "thread-cpus=0", USER_CAPS);
  guint i;

  /* root may: no warning, and it records */
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_WARNING);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_WARNING);
  rtf_test_rec_stop (r);
  rtf_test_assert_file (path, USER_FRAME_SIZE, 0, 5);
  rtf_test_tmpdir_free (dir);   /* the file and its index */
  g_free (path);
}

GST_END_TEST;

/* ---- a block device as location -------------------------------------- */

#define SMALL_CAPS "video/x-raw,format=GRAY10_LE32,width=64,height=16," \
    "framerate=20/1"
#define SMALL_FRAME 1408

/* A loop device over a fresh 16 MB image: its path (g_free), and the
 * image's in *image */
static gchar *
raw_loop_device (gchar ** image)
{
  gchar *dir = rtf_test_tmpdir_new ("rtframe-dev"), *cmd, *out = NULL;
  gint status;

  *image = g_build_filename (dir, "disk.img", NULL);
  g_free (dir);
  cmd = g_strdup_printf ("truncate -s 16M %s", *image);
  fail_unless_equals_int (rtf_test_run (cmd), 0);
  g_free (cmd);
  cmd = g_strdup_printf ("losetup -f --show %s", *image);
  fail_unless (g_spawn_command_line_sync (cmd, &out, NULL, &status, NULL));
  fail_unless_equals_int (status, 0);
  g_free (cmd);
  return g_strstrip (out);
}

static void
raw_loop_device_free (gchar * dev, gchar * image)
{
  gchar *cmd = g_strdup_printf ("losetup -d %s", dev), *dir;

  rtf_test_run (cmd);
  g_free (cmd);
  dir = g_path_get_dirname (image);
  rtf_test_tmpdir_free (dir);
  g_free (image);
  g_free (dev);
}

/* location=/dev/loopN records onto the device: the frames from byte 0, no
 * cut at EOS (a device's size is its own), no index made beside it in
 * /dev; and XFS flags asked for on a device are refused without touching
 * the node */
GST_START_TEST (test_block_device_location)
{
  gchar *image, *dev = raw_loop_device (&image), *idx = rtf_index_path (dev);
  gchar *node, *dir, *data = NULL;
  guint8 want[SMALL_FRAME];
  gsize len;
  struct stat sb;
  guint i;

  rtf_test_record (dev, NULL, SMALL_CAPS, 10);
  fail_if (g_file_test (idx, G_FILE_TEST_EXISTS), "%s was made", idx);
  fail_unless (stat (dev, &sb) == 0 && S_ISBLK (sb.st_mode));
  /* read back through the image: the frames, then the zero padding of
   * the last block */
  fail_unless (g_file_get_contents (image, &data, &len, NULL));
  fail_unless_equals_uint64 (len, 16 << 20);
  for (i = 0; i < 10; i++) {
    rtf_test_fill_frame (want, SMALL_FRAME, 0, i);
    fail_unless (memcmp (data + i * SMALL_FRAME, want, SMALL_FRAME) == 0,
        "frame %u", i);
  }
  g_free (data);

  /* the same device through a node of the test's own */
  dir = rtf_test_tmpdir_new ("rtframe-node");
  node = g_build_filename (dir, "disk", NULL);
  fail_unless (mknod (node, S_IFBLK | 0600, sb.st_rdev) == 0);
  rtf_test_assert_start_fails ("rtframesink", node, "extent-size-hint=1048576",
      GST_RESOURCE_ERROR_OPEN_WRITE, "not a regular file");
  fail_unless (stat (node, &sb) == 0 && S_ISBLK (sb.st_mode));
  rtf_test_tmpdir_free (dir);
  g_free (node);
  g_free (idx);
  raw_loop_device_free (dev, image);
}

GST_END_TEST;

static Suite *
rtframesink_root_suite (void)
{
  Suite *s = suite_create ("rtframesink-root");
  TCase *tc = tcase_create ("filesystems");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 180);
  tcase_add_unchecked_fixture (tc, save_io_uring_sysctl,
      restore_io_uring_sysctl);
  tcase_add_test (tc, test_ramfs_falls_back_to_buffered);
  tcase_add_test (tc, test_ramfs_direct_on_is_an_error);
  tcase_add_test (tc, test_no_io_uring_falls_back_to_pwrite);
  tcase_add_test (tc, test_no_io_uring_forced_is_an_error);
  tcase_add_test (tc, test_new_file_marked_xfs);
  tcase_add_test (tc, test_new_file_marked_ext4);
  tcase_add_test (tc, test_disk_full_xfs);
  tcase_add_test (tc, test_disk_full_ext4);
  tcase_add_test (tc, test_disk_full_xfs_psync);
  tcase_add_test (tc, test_user_workload_xfs);
  tcase_add_test (tc, test_slow_disk_leaky_no);
  tcase_add_test (tc, test_slow_disk_leaky_upstream);
  tcase_add_test (tc, test_slow_disk_leaky_downstream);
  tcase_add_test (tc, test_thread_realtime_as_root);
  tcase_add_test (tc, test_block_device_location);
  return s;
}

int
main (int argc, char **argv)
{
  static const gchar *const tools[] = { "losetup", "mkfs.xfs", "mkfs.ext4",
    "fallocate", "mount"
  };
  guint i;

  if (!rtf_test_is_root ()) {
    g_print ("SKIP: needs root (mounts ramfs, makes XFS/ext4 on loop "
        "devices, sets %s)\n", IO_URING_SYSCTL);
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
  return gst_check_run_suite (rtframesink_root_suite (), "rtframesink-root",
      __FILE__);
}
