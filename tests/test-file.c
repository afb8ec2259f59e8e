/* Unit tests of how a recording's data file comes to be (common/files/rtf-file.c
 * rtf_file_open, common/files/rtf-output.c rtf_output_open): a new file reaches
 * its name already locked and marked - made unnamed (O_TMPFILE), then
 * linked - so that a crash (SIGKILL) never leaves at the name an empty
 * file that nothing proves is the sink's, one rtframe-recover may not
 * delete.  A name already taken is refused (CREATE_NEW), used (REPLACE)
 * or prepared for under a hidden name (rtf_output_open) as before; where
 * the link is refused the file is made by its name, as before O_TMPFILE.
 * Real files in $TMPDIR and /dev/shm (tmpfs); ramfs when root (skipped,
 * saying so, otherwise).  linkat() is wrapped: it looks at the file the
 * moment it gets its name, and can refuse a way of linking or put a file
 * at the name first. */
#include "rtf-file.h"
#include "rtf-index.h"
#include "rtf-output.h"
#include "rtf-test-util.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#define TMPFS_MAGIC 0x01021994

static const RtfRecordingId test_id = { {0x52, 0x54, 0x46, 0x01, 0x02, 0x03,
    0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d}
};

/* ---- linkat(), watched ------------------------------------------------ */

typedef struct
{
  gint refuse_proc;             /* errno for a link through /proc, 0: none */
  gint refuse_empty_path;       /* the same for AT_EMPTY_PATH */
  gboolean squat;               /* a user's file put at the name first */
  guint calls, linked;
  /* the file, the moment it gets its name (the last call) */
  gboolean name_free, unnamed_empty, locked, marked;
  RtfRecordingId id;
  guint64 number;
} LinkWatch;

static LinkWatch watch;

static void
put_user_file (const gchar * path)
{
  g_assert_true (g_file_set_contents (path, "user data", -1, NULL));
}

static void
look_at (gint fd, const gchar * newpath)
{
  struct stat st;
  gchar proc[32];
  gint other;

  watch.name_free = lstat (newpath, &st) < 0 && errno == ENOENT;
  watch.unnamed_empty = fstat (fd, &st) == 0 && st.st_nlink == 0
      && st.st_size == 0;
  watch.marked = rtf_file_mark_get (fd, &watch.id, &watch.number);
  /* another open file description of the inode cannot lock it */
  g_snprintf (proc, sizeof (proc), "/proc/self/fd/%d", fd);
  other = open (proc, O_RDONLY | O_CLOEXEC);
  watch.locked = other >= 0 && flock (other, LOCK_EX | LOCK_NB) < 0
      && errno == EWOULDBLOCK;
  if (other >= 0)
    close (other);
}

int
linkat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
    int flags)
{
  static int (*real) (int, const char *, int, const char *, int);
  gint fd = -1, refuse = 0, ret;

  if (real == NULL)
    real = dlsym (RTLD_NEXT, "linkat");
  watch.calls++;
  if (flags & AT_EMPTY_PATH) {
    fd = olddirfd;
    refuse = watch.refuse_empty_path;
  } else if (g_str_has_prefix (oldpath, "/proc/self/fd/")) {
    fd = atoi (oldpath + strlen ("/proc/self/fd/"));
    refuse = watch.refuse_proc;
  }
  if (refuse) {
    errno = refuse;
    return -1;
  }
  if (watch.squat)
    put_user_file (newpath);
  if (fd >= 0)
    look_at (fd, newpath);
  ret = real (olddirfd, oldpath, newdirfd, newpath, flags);
  if (ret == 0)
    watch.linked++;
  return ret;
}

/* ---- helpers ------------------------------------------------------------ */

static void
assert_marked (const gchar * path, guint64 number)
{
  gint fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  RtfRecordingId id;
  guint64 n;

  g_assert_cmpint (fd, >=, 0);
  g_assert_true (rtf_file_mark_get (fd, &id, &n));
  g_assert_true (rtf_recording_id_equal (&id, &test_id));
  g_assert_cmpuint (n, ==, number);
  close (fd);
}

static void
assert_unmarked_user_file (const gchar * path)
{
  gchar *text = NULL, value[8];

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "user data");
  g_assert_cmpint (lgetxattr (path, RTF_FILE_MARK_XATTR, value,
          sizeof (value)), <, 0);
  g_free (text);
}

static guint
count_entries (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

static gboolean
open_file (RtfFile * f, const gchar * path, RtfFileOpenMode how,
    RtfDirectMode mode, gint * err)
{
  *err = 0;
  return rtf_file_open (f, path, how, mode, NULL, &test_id, 7, err);
}

/* ---- a new file: named once whole ------------------------------------- */

/* In dir: the file is linked at its name once, empty, locked, marked
 * (where the filesystem keeps extended attributes), and not before */
static void
check_new_file (const gchar * dir, gboolean xattrs)
{
  gchar *path = g_build_filename (dir, "cam.raw", NULL);
  RtfFile f;
  gint err;

  memset (&watch, 0, sizeof (watch));
  g_assert_true (open_file (&f, path, RTF_FILE_CREATE_NEW, RTF_DIRECT_AUTO,
          &err));
  g_test_message ("%s: %s, direct I/O %s, mark %s", dir, f.unnamed ?
      "made unnamed (O_TMPFILE), then linked" : "made by its name",
      f.direct ? "on" : "off", f.mark_errno ? g_strerror (f.mark_errno) :
      "set");
  g_assert_true (f.unnamed);
  g_assert_true (f.created);
  g_assert_cmpuint (watch.linked, ==, 1);
  g_assert_true (watch.name_free);
  g_assert_true (watch.unnamed_empty);
  g_assert_true (watch.locked);
  g_assert_cmpint (watch.marked, ==, xattrs);
  if (xattrs) {
    g_assert_true (rtf_recording_id_equal (&watch.id, &test_id));
    g_assert_cmpuint (watch.number, ==, 7);
    g_assert_cmpint (f.mark_errno, ==, 0);
    assert_marked (path, 7);
  } else {
    g_assert_cmpint (f.mark_errno, !=, 0);
  }
  /* an error path: the name goes with the file it made */
  rtf_file_unlink_created (&f, path);
  rtf_file_close (&f);
  g_assert_cmpuint (count_entries (dir), ==, 0);
  g_free (path);
}

static void
test_new_file_tmpdir (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtf-file");

  check_new_file (dir, TRUE);
  rtf_test_tmpdir_free (dir);
}

static void
test_new_file_tmpfs (void)
{
  gchar *dir = g_strdup ("/dev/shm/rtf-file-XXXXXX");
  struct statfs sf;

  if (statfs ("/dev/shm", &sf) < 0 || sf.f_type != TMPFS_MAGIC) {
    g_test_skip ("/dev/shm is not a tmpfs");
    g_free (dir);
    return;
  }
  g_assert_nonnull (g_mkdtemp (dir));
  check_new_file (dir, TRUE);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (dir);
}

/* ramfs: no O_DIRECT (buffered, or an error with direct=on that leaves
 * nothing behind), no extended attributes (no mark) */
static void
test_new_file_ramfs (void)
{
  gchar *dir, *cmd, *path;
  RtfFile f;
  gint err;

  if (!rtf_test_is_root ()) {
    g_test_skip ("mounting ramfs needs root");
    return;
  }
  dir = rtf_test_tmpdir_new ("rtf-file-ramfs");
  cmd = g_strdup_printf ("mount -t ramfs ramfs '%s'", dir);
  g_assert_cmpint (rtf_test_run (cmd), ==, 0);
  g_free (cmd);
  check_new_file (dir, FALSE);

  path = g_build_filename (dir, "on.raw", NULL);
  g_assert_false (open_file (&f, path, RTF_FILE_CREATE_NEW, RTF_DIRECT_ON,
          &err));
  g_assert_cmpint (err, ==, EINVAL);
  g_assert_cmpuint (count_entries (dir), ==, 0);
  g_free (path);

  cmd = g_strdup_printf ("umount '%s'", dir);
  g_assert_cmpint (rtf_test_run (cmd), ==, 0);
  g_free (cmd);
  rtf_test_tmpdir_free (dir);
}

/* ---- a name already taken ---------------------------------------------- */

static gchar *dir;

static void
setup (void)
{
  dir = rtf_test_tmpdir_new ("rtf-file");
  memset (&watch, 0, sizeof (watch));
}

static void
teardown (void)
{
  rtf_test_tmpdir_free (dir);
  dir = NULL;
}

/* CREATE_NEW at a file or a link: EEXIST, both untouched; REPLACE: the
 * file there is emptied and marked, through a link never */
static void
test_name_taken (void)
{
  gchar *path = g_build_filename (dir, "cam.raw", NULL);
  gchar *link = g_build_filename (dir, "link.raw", NULL);
  RtfFile f;
  gint err;
  struct stat st;

  put_user_file (path);
  g_assert_cmpint (symlink ("cam.raw", link), ==, 0);
  g_assert_false (open_file (&f, path, RTF_FILE_CREATE_NEW, RTF_DIRECT_AUTO,
          &err));
  g_assert_cmpint (err, ==, EEXIST);
  g_assert_false (open_file (&f, link, RTF_FILE_CREATE_NEW, RTF_DIRECT_AUTO,
          &err));
  g_assert_cmpint (err, ==, EEXIST);
  assert_unmarked_user_file (path);
  g_assert_cmpuint (count_entries (dir), ==, 2);

  g_assert_false (open_file (&f, link, RTF_FILE_REPLACE, RTF_DIRECT_AUTO,
          &err));
  g_assert_cmpint (err, ==, ELOOP);
  assert_unmarked_user_file (path);

  /* what is there is used: no new file is made for it */
  watch.calls = 0;
  g_assert_true (open_file (&f, path, RTF_FILE_REPLACE, RTF_DIRECT_AUTO, &err));
  g_assert_cmpuint (watch.calls, ==, 0);
  g_assert_false (f.created);
  g_assert_false (f.unnamed);
  g_assert_cmpint (fstat (f.fd, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);
  assert_marked (path, 7);
  rtf_file_unlink_created (&f, path);   /* not its file to delete */
  rtf_file_close (&f);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_free (link);
  g_free (path);
}

/* The name taken between the check and the link: linkat's EEXIST is what
 * O_EXCL's was - CREATE_NEW refused, REPLACE takes the file there - and
 * the unnamed file made for it is gone with its descriptor */
static void
test_name_taken_at_link (void)
{
  gchar *path = g_build_filename (dir, "cam.raw", NULL);
  RtfFile f;
  gint err;

  watch.squat = TRUE;
  g_assert_false (open_file (&f, path, RTF_FILE_CREATE_NEW, RTF_DIRECT_AUTO,
          &err));
  g_assert_cmpint (err, ==, EEXIST);
  g_assert_cmpuint (watch.linked, ==, 0);
  assert_unmarked_user_file (path);
  g_assert_cmpuint (count_entries (dir), ==, 1);

  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (open_file (&f, path, RTF_FILE_REPLACE, RTF_DIRECT_AUTO, &err));
  g_assert_false (f.unnamed);
  g_assert_false (f.created);
  g_assert_cmpuint (watch.linked, ==, 0);
  assert_marked (path, 7);
  rtf_file_close (&f);
  g_assert_cmpuint (count_entries (dir), ==, 1);
  g_free (path);
}

/* ---- the link refused ---------------------------------------------------- */

/* No /proc (a chroot, a container): linked with AT_EMPTY_PATH */
static void
test_link_without_proc (void)
{
  gchar *path = g_build_filename (dir, "cam.raw", NULL);
  RtfFile f;
  gint err;

  watch.refuse_proc = ENOENT;
  g_assert_true (open_file (&f, path, RTF_FILE_CREATE_NEW, RTF_DIRECT_AUTO,
          &err));
  g_assert_true (f.unnamed);
  g_assert_true (f.created);
  g_assert_cmpuint (watch.calls, ==, 2);
  g_assert_cmpuint (watch.linked, ==, 1);
  g_assert_true (watch.marked);
  assert_marked (path, 7);
  rtf_file_close (&f);
  g_free (path);
}

/* Neither way (no /proc, and a kernel that wants CAP_DAC_READ_SEARCH for
 * AT_EMPTY_PATH): made by its name, as before, marked right after */
static void
test_link_refused (void)
{
  gchar *path = g_build_filename (dir, "cam.raw", NULL);
  RtfFile f;
  gint err;

  watch.refuse_proc = ENOENT;
  watch.refuse_empty_path = ENOENT;
  g_assert_true (open_file (&f, path, RTF_FILE_CREATE_NEW, RTF_DIRECT_AUTO,
          &err));
  g_assert_false (f.unnamed);
  g_assert_true (f.created);
  g_assert_cmpint (f.mark_errno, ==, 0);
  assert_marked (path, 7);
  g_assert_cmpuint (count_entries (dir), ==, 1);
  rtf_file_unlink_created (&f, path);
  rtf_file_close (&f);
  g_assert_cmpuint (count_entries (dir), ==, 0);

  /* and a taken name is still refused the old way */
  put_user_file (path);
  g_assert_false (open_file (&f, path, RTF_FILE_CREATE_NEW, RTF_DIRECT_AUTO,
          &err));
  g_assert_cmpint (err, ==, EEXIST);
  assert_unmarked_user_file (path);
  g_free (path);
}

/* ---- rtf_output_open ----------------------------------------------------- */

static RtfOutput *
output_open (const gchar * path, guint64 number, RtfFileOpenMode how,
    gint * err)
{
  RtfOutputConfig config = { 0 };
  RtfFailStep step;

  config.direct = RTF_DIRECT_AUTO;
  config.index = TRUE;
  config.recording_id = test_id;
  *err = 0;
  return rtf_output_open (path, number, &config, how, err, &step);
}

/* A file of a set opened ahead: at a free name, made there marked; at a
 * name that holds a user's file, prepared marked under a hidden name, the
 * user's file untouched; either deleted when the recording never gets
 * there */
static void
test_output_opened_ahead (void)
{
  gchar *path = g_build_filename (dir, "cam-00003.raw", NULL);
  gchar *taken = g_build_filename (dir, "cam-00004.raw", NULL);
  RtfOutput *o;
  gint err;

  o = output_open (path, 3, RTF_FILE_CREATE_NEW, &err);
  g_assert_nonnull (o);
  g_assert_null (o->tmp_path);
  g_assert_true (o->file.unnamed);
  g_assert_cmpint (o->mark_errno, ==, 0);
  g_assert_true (watch.marked);
  assert_marked (path, 3);
  rtf_output_free (o, TRUE);
  g_assert_cmpuint (count_entries (dir), ==, 0);

  put_user_file (taken);
  memset (&watch, 0, sizeof (watch));
  o = output_open (taken, 4, RTF_FILE_CREATE_NEW, &err);
  g_assert_nonnull (o);
  g_assert_nonnull (o->tmp_path);
  g_assert_true (g_str_has_suffix (o->tmp_path, ".rtfprep"));
  g_assert_true (o->file.unnamed);
  g_assert_cmpuint (watch.linked, ==, 1);
  g_assert_true (watch.marked);
  assert_marked (o->tmp_path, 4);
  assert_unmarked_user_file (taken);
  /* the hidden data file, its index, the user's file */
  g_assert_cmpuint (count_entries (dir), ==, 3);
  rtf_output_free (o, TRUE);
  assert_unmarked_user_file (taken);
  g_assert_cmpuint (count_entries (dir), ==, 1);
  g_free (taken);
  g_free (path);
}

/* The file location names, free or a user's file: at its name from the
 * start, marked */
static void
test_output_location (void)
{
  gchar *path = g_build_filename (dir, "cam.raw", NULL);
  RtfOutput *o;
  gint err;

  o = output_open (path, 0, RTF_FILE_REPLACE, &err);
  g_assert_nonnull (o);
  g_assert_true (o->file.unnamed);
  g_assert_true (rtf_output_is_named (o));
  assert_marked (path, 0);
  rtf_output_free (o, FALSE);

  o = output_open (path, 0, RTF_FILE_REPLACE, &err);
  g_assert_nonnull (o);
  g_assert_false (o->file.unnamed);
  g_assert_true (rtf_output_is_named (o));
  assert_marked (path, 0);
  rtf_output_free (o, FALSE);
  g_free (path);
}

/* Whether another open of path can take its lock (flock, exclusive) */
static gboolean
lock_free (const gchar * path)
{
  gint fd = open (path, O_RDONLY);
  gboolean free_now;

  g_assert_cmpint (fd, >=, 0);
  free_now = flock (fd, LOCK_EX | LOCK_NB) == 0;
  close (fd);
  return free_now;
}

static gchar *
contents (const gchar * path)
{
  gchar *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* Issue 23: the index is locked like the data file while it is open, and
 * an index or a manifest is never emptied for a recording's data: REPLACE
 * of either is EEXIST, the file as it was; an index in use as location is
 * EWOULDBLOCK */
static void
test_output_index_locked (void)
{
  gchar *path = g_build_filename (dir, "x.raw", NULL);
  gchar *idx = g_build_filename (dir, "x.raw.idx", NULL);
  gchar *manifest = g_build_filename (dir, "x-.raw.rtfspread", NULL);
  gchar *text;
  RtfOutput *o, *other;
  gint err;

  o = output_open (path, 0, RTF_FILE_REPLACE, &err);
  g_assert_nonnull (o);
  g_assert_false (lock_free (path));
  g_assert_false (lock_free (idx));
  /* the live index as location */
  other = output_open (idx, 0, RTF_FILE_REPLACE, &err);
  g_assert_null (other);
  g_assert_cmpint (err, ==, EWOULDBLOCK);
  rtf_output_free (o, FALSE);
  g_assert_true (lock_free (idx));

  /* a closed index, a manifest: never emptied */
  g_assert_true (g_file_set_contents (idx, RTF_INDEX_MAGIC "and the rest "
          "of an index", -1, NULL));
  g_assert_true (g_file_set_contents (manifest, "[rtframe-spread]\n"
          "version=2\n", -1, NULL));
  other = output_open (idx, 0, RTF_FILE_REPLACE, &err);
  g_assert_null (other);
  g_assert_cmpint (err, ==, EEXIST);
  text = contents (idx);
  g_assert_cmpstr (text, ==, RTF_INDEX_MAGIC "and the rest of an index");
  g_free (text);
  other = output_open (manifest, 0, RTF_FILE_REPLACE, &err);
  g_assert_null (other);
  g_assert_cmpint (err, ==, EEXIST);
  text = contents (manifest);
  g_assert_cmpstr (text, ==, "[rtframe-spread]\nversion=2\n");
  g_free (text);
  text = rtf_file_refusal (manifest);
  g_assert_cmpstr (text, ==, "is the manifest of a recording over several "
      "locations");
  g_free (text);
  text = rtf_file_refusal (idx);
  g_assert_cmpstr (text, ==, "is an rtframe index");
  g_free (text);
  g_assert_null (rtf_file_refusal (path));
  g_free (manifest);
  g_free (idx);
  g_free (path);
}

/* Issue 23: a file prepared under a hidden name (the data's name holds an
 * earlier take) is named only if its index name still holds an index or
 * nothing: a user's file that appeared there since is left, and so is
 * the earlier take (EEXIST, step INDEX); the hidden files go with o */
static void
test_output_index_name_claimed (void)
{
  gchar *path = g_build_filename (dir, "ev-00000.raw", NULL);
  gchar *idx = g_build_filename (dir, "ev-00000.raw.idx", NULL);
  gchar *text;
  RtfOutput *o;
  gint err;

  put_user_file (path);
  o = output_open (path, 0, RTF_FILE_CREATE_NEW, &err);
  g_assert_nonnull (o);
  g_assert_nonnull (o->tmp_path);
  g_assert_true (g_file_set_contents (idx, "the user's notes", -1, NULL));
  g_assert_cmpint (rtf_output_name (o), ==, EEXIST);
  g_assert_cmpint (o->name_step, ==, RTF_FAIL_INDEX);
  g_assert_false (rtf_output_is_named (o));
  assert_unmarked_user_file (path);
  text = contents (idx);
  g_assert_cmpstr (text, ==, "the user's notes");
  g_free (text);
  /* both names, and the hidden data file and its index */
  g_assert_cmpuint (count_entries (dir), ==, 4);
  rtf_output_free (o, FALSE);
  g_assert_cmpuint (count_entries (dir), ==, 2);

  /* the same with an rtframe index there (the earlier take's): replaced */
  g_assert_cmpint (g_unlink (idx), ==, 0);
  o = output_open (path, 0, RTF_FILE_CREATE_NEW, &err);
  g_assert_nonnull (o);
  g_assert_true (g_file_set_contents (idx, RTF_INDEX_MAGIC, -1, NULL));
  g_assert_cmpint (rtf_output_name (o), ==, 0);
  g_assert_true (rtf_output_is_named (o));
  assert_marked (path, 0);
  g_assert_false (lock_free (idx));
  rtf_output_free (o, FALSE);
  g_assert_cmpuint (count_entries (dir), ==, 2);
  g_free (idx);
  g_free (path);
}

/* The directory moved away while a file is prepared in it (torture
 * 0x8cc4e23970e28c24): reaching it fails (its names are gone), and the
 * hidden file and index it made are deleted where the directory is now;
 * the user's file stays.  A new file at a free name, never reached, goes
 * the same way. */
static void
test_output_dir_moved (void)
{
  gchar *sub = g_build_filename (dir, "d", NULL);
  gchar *moved = g_build_filename (dir, "moved", NULL);
  gchar *taken = g_build_filename (sub, "cam-00004.raw", NULL);
  gchar *fresh = g_build_filename (sub, "cam-00005.raw", NULL);
  gchar *user = g_build_filename (moved, "cam-00004.raw", NULL);
  RtfOutput *o, *n;
  gint err;

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  put_user_file (taken);
  o = output_open (taken, 4, RTF_FILE_CREATE_NEW, &err);
  g_assert_nonnull (o);
  g_assert_nonnull (o->tmp_path);
  n = output_open (fresh, 5, RTF_FILE_CREATE_NEW, &err);
  g_assert_nonnull (n);
  g_assert_null (n->tmp_path);
  /* the user's, the hidden data and index, the new data and index */
  g_assert_cmpuint (count_entries (sub), ==, 5);
  g_assert_cmpint (g_rename (sub, moved), ==, 0);
  g_assert_cmpint (rtf_output_name (o), ==, ENOENT);
  rtf_output_free (o, TRUE);
  rtf_output_free (n, TRUE);
  g_assert_cmpuint (count_entries (moved), ==, 1);
  assert_unmarked_user_file (user);
  g_free (user);
  g_free (fresh);
  g_free (taken);
  g_free (moved);
  g_free (sub);
}

static void
add (const gchar * name, void (*func) (void))
{
  g_test_add_vtable (name, 0, NULL, (GTestFixtureFunc) setup,
      (GTestFixtureFunc) func, (GTestFixtureFunc) teardown);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file/new/tmpdir", test_new_file_tmpdir);
  g_test_add_func ("/file/new/tmpfs", test_new_file_tmpfs);
  g_test_add_func ("/file/new/ramfs", test_new_file_ramfs);
  add ("/file/name-taken", test_name_taken);
  add ("/file/name-taken-at-link", test_name_taken_at_link);
  add ("/file/link-without-proc", test_link_without_proc);
  add ("/file/link-refused", test_link_refused);
  add ("/file/output/opened-ahead", test_output_opened_ahead);
  add ("/file/output/location", test_output_location);
  add ("/file/output/dir-moved", test_output_dir_moved);
  add ("/file/output/index-locked", test_output_index_locked);
  add ("/file/output/index-name-claimed", test_output_index_name_claimed);
  return g_test_run ();
}
