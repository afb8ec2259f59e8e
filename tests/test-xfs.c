/* rtframesink's XFS flags on filesystems the test makes on loop devices:
 * the extent size hint set on every file of a set and read back, refused
 * where the filesystem has no such thing, and the realtime flag on an XFS
 * with a realtime section (skipped, with the reason, on a kernel built
 * without CONFIG_XFS_RT).  Needs root: exits 77 (skip) otherwise. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rtf-test-sink.h"
#include "rtf-test-util.h"

#define CAPS "video/x-raw,format=P010_10LE,width=640,height=480,framerate=20/1"
#define FRAME (640 * 480 * 3)

/* What the kernel says of the file (not through rtframe's code) */
static struct fsxattr
xattr_of (const gchar * path)
{
  struct fsxattr fa = { 0 };
  gint fd = open (path, O_RDONLY);

  fail_unless (fd >= 0, "%s: %s", path, g_strerror (errno));
  fail_unless (ioctl (fd, FS_IOC_FSGETXATTR, &fa) == 0);
  close (fd);
  return fa;
}

static void
record (const gchar * location, const gchar * props, guint frames)
{
  Rec *r = rtf_test_rec_start (location, props, CAPS);
  guint i;

  for (i = 0; i < frames; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
}

/* The start fails with OPEN_WRITE, saying `substr`, and leaves no file */
static void
assert_start_fails (const gchar * location, const gchar * props,
    const gchar * substr)
{
  rtf_test_assert_start_fails ("rtframesink", location, props,
      GST_RESOURCE_ERROR_OPEN_WRITE, substr);
  fail_if (g_file_test (location, G_FILE_TEST_EXISTS), "%s left", location);
}

GST_START_TEST (test_extent_size_hint_xfs)
{
  RtfTestFs *fs = rtf_test_fs_new ("xfs", 300);
  gchar *pattern = g_build_filename (fs->dir, "hint-%d.raw", NULL);
  gchar *props = g_strdup_printf ("extent-size-hint=%u max-file-size=%u",
      16 << 20, 6 * FRAME);
  guint k;

  record (pattern, props, 10);
  for (k = 0; k < 2; k++) {
    gchar *path = g_strdup_printf ("%s/hint-%u.raw", fs->dir, k);
    struct fsxattr fa = xattr_of (path);
    guint64 *seqs = NULL;

    fail_unless (fa.fsx_xflags & FS_XFLAG_EXTSIZE, "%s: no hint", path);
    fail_unless_equals_int (fa.fsx_extsize, 16 << 20);
    fail_if (fa.fsx_xflags & FS_XFLAG_REALTIME);
    /* frames 0-5, then 6-9, each whole */
    fail_unless_equals_int64 (rtf_test_scan_frames (path, FRAME, 0, &seqs),
        k == 0 ? 6 : 4);
    fail_unless_equals_uint64 (seqs[0], k == 0 ? 0 : 6);
    g_free (seqs);
    g_free (path);
  }
  g_print ("  XFS: extent size hint of 16 MiB set on both files and read "
      "back\n");
  g_free (props);
  g_free (pattern);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

GST_START_TEST (test_extent_size_hint_refused_ext4)
{
  RtfTestFs *fs = rtf_test_fs_new ("ext4", 200);
  gchar *path = g_build_filename (fs->dir, "hint.raw", NULL);

  assert_start_fails (path, "extent-size-hint=1048576", "extent size hint");
  g_free (path);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

GST_START_TEST (test_realtime_without_rt_section)
{
  RtfTestFs *fs = rtf_test_fs_new ("xfs", 300);
  gchar *path = g_build_filename (fs->dir, "rt.raw", NULL);

  assert_start_fails (path, "realtime=true", "realtime");
  g_free (path);
  rtf_test_fs_free (fs);
}

GST_END_TEST;

static gchar *
losetup_new (const gchar * image)
{
  gchar *cmd = g_strdup_printf ("losetup -f --show %s", image), *out = NULL;
  gint status = -1;

  fail_unless (g_spawn_command_line_sync (cmd, &out, NULL, &status, NULL));
  fail_unless_equals_int (status, 0);
  g_free (cmd);
  return g_strstrip (out);
}

GST_START_TEST (test_realtime_section)
{
  gchar *dir = g_dir_make_tmp ("rtframe-rt-XXXXXX", NULL);
  gchar *data_img = g_strdup_printf ("%s.data", dir);
  gchar *rt_img = g_strdup_printf ("%s.rt", dir);
  gchar *data_dev, *rt_dev, *cmd, *err = NULL, *path;
  gint status = -1;
  struct fsxattr fa;

  cmd = g_strdup_printf ("truncate -s 300M %s %s", data_img, rt_img);
  fail_unless_equals_int (rtf_test_run (cmd), 0);
  g_free (cmd);
  data_dev = losetup_new (data_img);
  rt_dev = losetup_new (rt_img);
  cmd = g_strdup_printf ("mkfs.xfs -q -f -r rtdev=%s %s", rt_dev, data_dev);
  fail_unless_equals_int (rtf_test_run (cmd), 0);
  g_free (cmd);
  cmd = g_strdup_printf ("mount -o rtdev=%s %s %s", rt_dev, data_dev, dir);
  fail_unless (g_spawn_command_line_sync (cmd, NULL, &err, &status, NULL));
  g_free (cmd);
  if (status != 0) {
    g_print ("  SKIP realtime: this kernel cannot mount an XFS realtime "
        "section (built without CONFIG_XFS_RT?): %s", err);
    goto out;
  }

  path = g_build_filename (dir, "rt.raw", NULL);
  record (path, "realtime=true", 8);
  fa = xattr_of (path);
  fail_unless (fa.fsx_xflags & FS_XFLAG_REALTIME);
  rtf_test_assert_file (path, FRAME, 0, 8);
  g_print ("  XFS realtime: file on the realtime section, 8 frames exact\n");
  g_free (path);
  cmd = g_strdup_printf ("umount %s", dir);
  rtf_test_run (cmd);
  g_free (cmd);

out:
  cmd = g_strdup_printf ("losetup -d %s %s; rm -f %s %s; rmdir %s", data_dev,
      rt_dev, data_img, rt_img, dir);
  rtf_test_run (cmd);
  g_free (cmd);
  g_free (err);
  g_free (data_dev);
  g_free (rt_dev);
  g_free (data_img);
  g_free (rt_img);
  g_free (dir);
}

GST_END_TEST;

static Suite *
xfs_suite (void)
{
  Suite *s = suite_create ("xfs");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_extent_size_hint_xfs);
  tcase_add_test (tc, test_extent_size_hint_refused_ext4);
  tcase_add_test (tc, test_realtime_without_rt_section);
  tcase_add_test (tc, test_realtime_section);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  gst_check_init (&argc, &argv);
  if (!rtf_test_is_root ()) {
    g_print ("SKIP: needs root (loop devices, mkfs.xfs, mount)\n");
    return 77;
  }
  s = xfs_suite ();
  return gst_check_run_suite (s, "xfs", __FILE__);
}
