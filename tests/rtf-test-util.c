/* rtframe tests: frame patterns, file checks and throwaway filesystems */
#include "rtf-test-util.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static inline guint64
mix (guint64 x)
{
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return x;
}

void
rtf_test_fill_frame (guint8 * data, gsize size, guint stream, guint64 seq)
{
  guint64 state = mix (((guint64) stream << 48) ^ (seq + 1));
  gsize i;

  for (i = 0; i + 8 <= size; i += 8) {
    state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
    guint64 v = mix (state);
    memcpy (data + i, &v, 8);
  }
  for (; i < size; i++)
    data[i] = (guint8) mix (state + i) | 1;
  /* a readable stamp at the start: "S<stream>F<seq>" */
  if (size >= 24)
    g_snprintf ((gchar *) data, 24, "S%02uF%019" G_GUINT64_FORMAT, stream, seq);
}

static gchar *
check_fd (gint fd, gsize frame_size, guint stream, guint64 n_frames,
    gint64 * whole)
{
  guint8 *want = g_malloc (frame_size), *got = g_malloc (frame_size);
  gchar *err = NULL;
  guint64 i;
  ssize_t r = 0;

  for (i = 0; n_frames == G_MAXUINT64 || i < n_frames; i++) {
    gsize done = 0;

    while (done < frame_size) {
      r = read (fd, got + done, frame_size - done);
      if (r <= 0)
        break;
      done += r;
    }
    if (done == 0 && n_frames == G_MAXUINT64)
      break;
    if (done < frame_size) {
      err = g_strdup_printf ("frame %" G_GUINT64_FORMAT " is short: %zu of "
          "%zu bytes", i, done, frame_size);
      break;
    }
    rtf_test_fill_frame (want, frame_size, stream, i);
    if (memcmp (want, got, frame_size) != 0) {
      gsize k = 0;

      while (want[k] == got[k])
        k++;
      err = g_strdup_printf ("frame %" G_GUINT64_FORMAT " differs at byte "
          "%zu", i, k);
      break;
    }
  }
  if (err == NULL && n_frames != G_MAXUINT64) {
    if (read (fd, got, 1) != 0)
      err = g_strdup ("file is longer than the frames");
  }
  if (whole)
    *whole = err ? -1 : (gint64) i;
  g_free (want);
  g_free (got);
  return err;
}

gchar *
rtf_test_check_file (const gchar * path, gsize frame_size, guint stream,
    guint64 n_frames)
{
  gint fd = open (path, O_RDONLY);
  gchar *err;

  if (fd < 0)
    return g_strdup_printf ("cannot open %s: %s", path, g_strerror (errno));
  err = check_fd (fd, frame_size, stream, n_frames, NULL);
  close (fd);
  return err;
}

gint64
rtf_test_count_whole_frames (const gchar * path, gsize frame_size, guint stream)
{
  gint fd = open (path, O_RDONLY);
  gint64 whole = -1;
  gchar *err;

  if (fd < 0)
    return -1;
  err = check_fd (fd, frame_size, stream, G_MAXUINT64, &whole);
  if (err)
    g_printerr ("%s: %s\n", path, err);
  g_free (err);
  close (fd);
  return whole;
}

void
rtf_test_inspect (const gchar * path, gsize frame_size, guint stream,
    RtfTestTail * t)
{
  gchar *data = NULL;
  gsize len = 0, off = 0;
  guint8 *want = g_malloc (frame_size);
  guint64 want_seq = G_MAXUINT64;
  gboolean broken = FALSE;

  memset (t, 0, sizeof (*t));
  if (!g_file_get_contents (path, &data, &len, NULL)) {
    g_free (want);
    t->missing = TRUE;
    return;
  }
  t->size = len;
  while (off < len) {
    guint64 seq = off / frame_size;
    gsize in_frame = off % frame_size;
    gsize n;

    if (seq != want_seq) {
      rtf_test_fill_frame (want, frame_size, stream, seq);
      want_seq = seq;
    }
    if (!broken && in_frame == 0 && len - off >= frame_size
        && memcmp (data + off, want, frame_size) == 0) {
      t->exact++;
      off += frame_size;
      continue;
    }
    broken = TRUE;
    /* block by block, not crossing a frame boundary */
    n = MIN (MIN ((gsize) 4096 - off % 4096, len - off), frame_size - in_frame);
    if (memcmp (data + off, want + in_frame, n) == 0) {
      t->tail_data += n;
    } else {
      gsize i;

      for (i = 0; i < n && data[off + i] == 0; i++);
      if (i == n)
        t->tail_zero += n;
      else
        t->garbage += n;
    }
    off += n;
  }
  t->tail = len - t->exact * frame_size;
  g_free (data);
  g_free (want);
}

gint64
rtf_test_scan_frames (const gchar * path, gsize frame_size, guint stream,
    guint64 ** seqs)
{
  gchar *data = NULL;
  gsize len, i, n;
  guint8 *want = g_malloc (frame_size);
  gint64 ret;

  *seqs = NULL;
  g_assert (frame_size >= 24);
  if (!g_file_get_contents (path, &data, &len, NULL) || len % frame_size) {
    g_printerr ("%s: unreadable, or not whole frames\n", path);
    g_free (data);
    g_free (want);
    return -1;
  }
  n = len / frame_size;
  *seqs = g_new0 (guint64, n + 1);
  ret = n;
  for (i = 0; i < n; i++) {
    const gchar *f = data + i * frame_size;
    guint s = 0;
    guint64 seq = 0;

    if (sscanf (f, "S%02uF%019" G_GUINT64_FORMAT, &s, &seq) != 2
        || s != stream || (i > 0 && seq <= (*seqs)[i - 1])) {
      g_printerr ("%s: frame %zu has no stamp of stream %u after %"
          G_GUINT64_FORMAT "\n", path, i, stream, i ? (*seqs)[i - 1] : 0);
      ret = -1;
      break;
    }
    rtf_test_fill_frame (want, frame_size, stream, seq);
    if (memcmp (want, f, frame_size) != 0) {
      g_printerr ("%s: frame %zu (number %" G_GUINT64_FORMAT ") differs\n",
          path, i, seq);
      ret = -1;
      break;
    }
    (*seqs)[i] = seq;
  }
  g_free (data);
  g_free (want);
  return ret;
}

gint64
rtf_test_time_scale (void)
{
  const gchar *env = g_getenv ("RTFRAME_TEST_TIME_SCALE");
  gint64 v = env ? g_ascii_strtoll (env, NULL, 10) : 1;

  return MAX (v, 1);
}

static guint
count_dir (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  guint n = 0;

  if (d == NULL)
    return 0;
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

guint
rtf_test_count_fds (void)
{
  return count_dir ("/proc/self/fd");
}

guint
rtf_test_count_threads (void)
{
  return count_dir ("/proc/self/task");
}

/* The names of this process's threads ("comm"), space-separated: what a
 * thread count that went up is made of (g_free it) */
gchar *
rtf_test_thread_names (void)
{
  GDir *d = g_dir_open ("/proc/self/task", 0, NULL);
  GString *s = g_string_new (NULL);
  const gchar *tid;

  while (d && (tid = g_dir_read_name (d))) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/comm", tid);
    gchar *comm = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL))
      g_string_append_printf (s, "%s%s", s->len ? " " : "", g_strstrip (comm));
    g_free (comm);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  return g_string_free (s, FALSE);
}

static void
no_work (gpointer data, gpointer user_data)
{
}

/* Threads that finished their work return to GLib's shared pool and leave
 * it some time later, so a count taken at once depends on timing.  Ask the
 * pool to stop its idle threads and wait (up to 5 s) until the count is at
 * most `limit` (G_MAXUINT: until it is stable for 100 ms).
 *
 * GLib 2.75.3 and later (2.76 on) start the shared pool's threads from a
 * thread of their own, "pool-spawner", made with the first shared
 * GThreadPool and kept until the process exits (2.74 has none: a pool
 * thread is started by the thread that needs it).  A baseline counted
 * before any pool existed would take it for a thread the code under test
 * left behind (Debian 13, GLib 2.84: "threads 2 > 1", the second being
 * pool-spawner), so a baseline count makes it exist first. */
guint
rtf_test_settled_threads (guint limit)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  guint n = G_MAXUINT, stable = 0;

  if (limit == G_MAXUINT)
    g_thread_pool_free (g_thread_pool_new (no_work, NULL, -1, FALSE, NULL),
        TRUE, TRUE);
  while (g_get_monotonic_time () < end) {
    guint now;

    g_thread_pool_stop_unused_threads ();
    now = rtf_test_count_threads ();
    if (now <= limit)
      return now;
    stable = now == n ? stable + 1 : 0;
    n = now;
    if (limit == G_MAXUINT && stable >= 10)
      return n;
    g_usleep (10000);
  }
  return n;
}

gboolean
rtf_test_is_root (void)
{
  return geteuid () == 0;
}

gint
rtf_test_run (const gchar * command)
{
  gint status = system (command);

  if (status == -1 || !WIFEXITED (status))
    return -1;
  return WEXITSTATUS (status);
}

/* Puts this process in a blkio cgroup limiting its writes to `device` to
 * bps bytes/s (the writer thread and io_uring's workers inherit it). */
gchar *
rtf_test_throttle_new (const gchar * loopdev, guint64 bps)
{
  gchar *dir = g_strdup_printf (RTF_TEST_BLKIO "/rtframe-test-%d", getpid ());
  gchar *cmd;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  cmd = g_strdup_printf ("echo \"$(lsblk -no MAJ:MIN %s | tr -d ' ') %"
      G_GUINT64_FORMAT "\" > %s/blkio.throttle.write_bps_device && "
      "echo %d > %s/cgroup.procs", loopdev, bps, dir, getpid (), dir);
  g_assert_cmpint (rtf_test_run (cmd), ==, 0);
  g_free (cmd);
  return dir;
}

void
rtf_test_throttle_free (gchar * dir)
{
  gchar *cmd = g_strdup_printf ("echo %d > " RTF_TEST_BLKIO "/cgroup.procs",
      getpid ());

  rtf_test_run (cmd);
  g_rmdir (dir);
  g_free (cmd);
  g_free (dir);
}

/* Changes the limit of a throttle (0: none) */
void
rtf_test_throttle_set (const gchar * dir, const gchar * loopdev, guint64 bps)
{
  gchar *cmd = g_strdup_printf ("echo \"$(lsblk -no MAJ:MIN %s | tr -d ' ') %"
      G_GUINT64_FORMAT "\" > %s/blkio.throttle.write_bps_device", loopdev,
      bps, dir);

  g_assert_cmpint (rtf_test_run (cmd), ==, 0);
  g_free (cmd);
}

/* FALSE (saying why, as a skip) when there is no blkio controller */
gboolean
rtf_test_have_blkio (void)
{
  if (g_file_test (RTF_TEST_BLKIO "/cgroup.procs", G_FILE_TEST_EXISTS))
    return TRUE;
  g_print ("  skipped: no cgroup v1 blkio controller at " RTF_TEST_BLKIO "\n");
  return FALSE;
}

RtfTestFs *
rtf_test_fs_new (const gchar * fstype, guint size_mb)
{
  return rtf_test_fs_new_in (fstype, size_mb, NULL);
}

RtfTestFs *
rtf_test_fs_new_in (const gchar * fstype, guint size_mb, const gchar * parent)
{
  RtfTestFs *fs = g_new0 (RtfTestFs, 1);
  gchar *cmd, *out = NULL;
  gint status;

  fs->dir = g_dir_make_tmp ("rtframe-fs-XXXXXX", NULL);
  g_assert (fs->dir);
  if (g_strcmp0 (fstype, "ramfs") == 0) {
    cmd = g_strdup_printf ("mount -t ramfs ramfs %s", fs->dir);
    g_assert_cmpint (rtf_test_run (cmd), ==, 0);
    g_free (cmd);
    return fs;
  }

  if (parent)
    fs->image = g_strdup_printf ("%s/%s.img", parent, strrchr (fs->dir,
            '/') + 1);
  else
    fs->image = g_strdup_printf ("%s.img", fs->dir);
  cmd = g_strdup_printf ("truncate -s %uM %s", size_mb, fs->image);
  g_assert_cmpint (rtf_test_run (cmd), ==, 0);
  g_free (cmd);
  cmd = g_strdup_printf ("losetup -f --show %s", fs->image);
  g_assert (g_spawn_command_line_sync (cmd, &out, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
  fs->loopdev = g_strstrip (out);
  g_free (cmd);
  if (g_strcmp0 (fstype, "xfs") == 0)
    cmd = g_strdup_printf ("mkfs.xfs -q -f %s", fs->loopdev);
  else
    cmd = g_strdup_printf ("mkfs.%s -q -F %s", fstype, fs->loopdev);
  g_assert_cmpint (rtf_test_run (cmd), ==, 0);
  g_free (cmd);
  cmd = g_strdup_printf ("mount %s %s", fs->loopdev, fs->dir);
  g_assert_cmpint (rtf_test_run (cmd), ==, 0);
  g_free (cmd);
  return fs;
}

gboolean
rtf_test_umount (const gchar * dir)
{
  gchar *cmd = g_strdup_printf ("umount %s 2>/dev/null", dir);
  guint tries;
  gboolean ok = FALSE;

  /* a process's io_uring ring is torn down after it has let go of it: the
   * files its writes were on stay referenced (the filesystem busy) until
   * those writes have ended, a few ms */
  for (tries = 0; tries < 250 && !ok; tries++) {
    ok = rtf_test_run (cmd) == 0;
    if (!ok)
      g_usleep (20 * 1000);
  }
  g_free (cmd);
  return ok;
}

/* Unmounts (lazily if it must) and mounts the filesystem again with
 * `options` (NULL: none): after a shutdown, this replays its log. */
void
rtf_test_fs_remount (RtfTestFs * fs, const gchar * options)
{
  gchar *cmd;

  if (!rtf_test_umount (fs->dir)) {
    cmd = g_strdup_printf ("umount -l %s", fs->dir);
    g_assert_cmpint (rtf_test_run (cmd), ==, 0);
    g_free (cmd);
  }
  cmd = g_strdup_printf ("mount %s%s %s %s", options ? "-o " : "",
      options ? options : "", fs->loopdev, fs->dir);
  g_assert_cmpint (rtf_test_run (cmd), ==, 0);
  g_free (cmd);
}

void
rtf_test_fs_free (RtfTestFs * fs)
{
  gchar *cmd;

  if (fs == NULL)
    return;
  if (!rtf_test_umount (fs->dir)) {
    cmd = g_strdup_printf ("umount -l %s", fs->dir);
    rtf_test_run (cmd);
    g_free (cmd);
  }
  if (fs->loopdev) {
    cmd = g_strdup_printf ("losetup -d %s", fs->loopdev);
    rtf_test_run (cmd);
    g_free (cmd);
  }
  if (fs->image)
    g_unlink (fs->image);
  g_rmdir (fs->dir);
  g_free (fs->dir);
  g_free (fs->image);
  g_free (fs->loopdev);
  g_free (fs);
}

gchar *
rtf_test_tmpdir_new (const gchar * prefix)
{
  gchar *tmpl = g_strconcat (prefix, "-XXXXXX", NULL);
  gchar *dir = g_dir_make_tmp (tmpl, NULL);

  g_assert (dir != NULL);
  g_free (tmpl);
  return dir;
}

void
rtf_test_tmpdir_free (gchar * dir)
{
  gchar *cmd;

  if (dir == NULL)
    return;
  cmd = g_strdup_printf ("rm -rf '%s'", dir);
  rtf_test_run (cmd);
  g_free (cmd);
  g_free (dir);
}

static gchar *test_dir;

void
rtf_test_tmp_setup (void)
{
  test_dir = rtf_test_tmpdir_new ("rtframe-test");
}

void
rtf_test_tmp_teardown (void)
{
  rtf_test_tmpdir_free (test_dir);
  test_dir = NULL;
}

gchar *
rtf_test_tmp_path (const gchar * name)
{
  g_assert (test_dir != NULL);
  return g_build_filename (test_dir, name, NULL);
}

gint
rtf_test_run_tool (gchar ** out, const gchar * tool, ...)
{
  const gchar *dir = g_getenv ("RTFRAME_TOOLS_DIR");
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  gchar *output = NULL, *line;
  const gchar *arg;
  gint status = -1;
  GError *error = NULL;
  va_list args;

  g_assert_nonnull (dir);
  g_ptr_array_add (argv, g_build_filename (dir, tool, NULL));
  va_start (args, tool);
  while ((arg = va_arg (args, const gchar *)) != NULL)
      g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &output, NULL, &status,
          &error))
    g_error ("%s: %s", tool, error->message);
  line = g_strjoinv (" ", (gchar **) argv->pdata + 1);
  if (out || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_print ("$ %s %s\n%s", tool, line, output);
  g_free (line);
  g_ptr_array_unref (argv);
  if (out)
    *out = output;
  else
    g_free (output);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}
