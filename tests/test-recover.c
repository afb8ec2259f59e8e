/* Unit tests of the data-safety rule (docs/reliability.md): what the
 * readers identify as a file of a recording, and what rtframe-recover may
 * cut - only a proven file's tail, never more than a crash leaves, never a
 * good frame for a bad one before it, nothing that is not the
 * recording's.  Real files in $TMPDIR; the block device node case needs
 * root (it skips, saying so, otherwise). */
#include "rtf-check.h"
#include "rtf-file-mark.h"
#include "rtf-output.h"
#include "rtf-recording.h"
#include "rtf-recover.h"
#include "rtf-safe-open.h"
#include "rtf-test-index.h"
#include "rtf-test-util.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define FRAME 100

static gchar *dir;

static void
setup (void)
{
  dir = rtf_test_tmpdir_new ("rtf-recover");
}

static void
teardown (void)
{
  rtf_test_tmpdir_free (dir);
  dir = NULL;
}

static gchar *
in_dir (const gchar * name)
{
  return g_build_filename (dir, name, NULL);
}

/* "cam.raw": n frames, an index of the current version, marked as the
 * sink marks */
static gchar *
recording (guint n, gboolean sums)
{
  RtfTestRecording t = { "cam.raw", 0, n, FRAME, sums, 0, 0x11, TRUE };

  return rtf_test_index_write (dir, &t);
}

static gchar *
contents (const gchar * path, gsize * len)
{
  gchar *data = NULL;

  g_assert_true (g_file_get_contents (path, &data, len, NULL));
  return data;
}

static void
append (const gchar * path, gsize n, guint8 byte)
{
  gint fd = open (path, O_WRONLY | O_APPEND);
  guint8 *buf = g_malloc (n);

  memset (buf, byte, n);
  g_assert_cmpint (write (fd, buf, n), ==, (gssize) n);
  close (fd);
  g_free (buf);
}

/* Plans for the one file at location (the first file of the set) */
typedef struct
{
  RtfRecording *rec;
  RtfRecordingFile *f;
  RtfRecoverPlan plan;
  RtfCheck check;
} Look;

static void
look (Look * l, const gchar * location)
{
  GError *error = NULL;

  l->rec = rtf_recording_open (location, 0, FALSE, &error);
  g_assert_no_error (error);
  l->f = &l->rec->files[0];
  rtf_check_file (l->f, TRUE, 0, &l->check);
  rtf_recover_plan (l->rec, l->f, &l->plan);
  rtf_recover_plan_sums (l->rec, l->f, &l->check, &l->plan);
}

static void
look_done (Look * l)
{
  rtf_check_clear (&l->check);
  rtf_recover_plan_clear (&l->plan);
  rtf_recording_free (l->rec);
}

/* Whatever was found at path stays byte for byte */
static void
assert_refused_untouched (const gchar * location, const gchar * path,
    RtfFileState state, const gchar * why)
{
  gsize before_len, after_len;
  gchar *before = contents (path, &before_len), *after;
  Look l;

  look (&l, location);
  g_assert_cmpint (l.f->state, ==, state);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_REFUSE);
  if (why)
    g_assert_nonnull (strstr (l.plan.why, why));
  look_done (&l);
  after = contents (path, &after_len);
  g_assert_cmpuint (after_len, ==, before_len);
  g_assert_true (memcmp (before, after, before_len) == 0);
  g_free (before);
  g_free (after);
}

/* 1: a file with no index beside it (a user's file, a recording made
 * with index=false) is no file of a recording rtframe-recover can tell */
static void
test_no_index_refused (void)
{
  gchar *path = in_dir ("important.mkv");
  guint8 noise[4096];
  guint i;

  for (i = 0; i < sizeof (noise); i++)
    noise[i] = (guint8) g_random_int ();
  g_assert_true (g_file_set_contents (path, (gchar *) noise, sizeof (noise),
          NULL));
  assert_refused_untouched (path, path, RTF_FILE_NO_INDEX, "does not exist");
  g_free (path);
}

/* 1: a FIFO at the name: seen for what it is, never opened (no hang) */
static void
test_fifo_refused (void)
{
  gchar *path = in_dir ("cam.raw");
  GError *error = NULL;
  RtfRecording *rec;
  RtfRecoverPlan plan;

  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  rec = rtf_recording_open (path, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rec->files[0].state, ==, RTF_FILE_NOT_REGULAR);
  g_assert_nonnull (strstr (rec->files[0].why, "FIFO"));
  rtf_recover_plan (rec, &rec->files[0], &plan);
  g_assert_cmpint (plan.action, ==, RTF_RECOVER_REFUSE);
  rtf_recover_plan_clear (&plan);
  rtf_recording_free (rec);
  /* a player is told, too */
  g_assert_null (rtf_recording_open (path, 0, TRUE, &error));
  g_assert_nonnull (strstr (error->message, "FIFO"));
  g_clear_error (&error);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
}

/* 1: a block device node (root: mknod) stays, whatever index is beside */
static void
test_device_node_refused (void)
{
  gchar *path = in_dir ("cam.raw"), *ipath, *oidx;
  RtfTestRecording t = { "other.raw", 0, 3, FRAME, FALSE, 0, 0x22, FALSE };
  gchar *other;
  GError *error = NULL;
  RtfRecording *rec;
  RtfRecoverPlan plan;
  struct stat st;

  if (!rtf_test_is_root ()) {
    g_test_skip ("mknod of a block device node needs root");
    g_free (path);
    return;
  }
  /* /dev/loop7's numbers; nothing is ever opened through it */
  g_assert_cmpint (mknod (path, S_IFBLK | 0600, makedev (7, 7)), ==, 0);
  other = rtf_test_index_write (dir, &t);
  oidx = rtf_index_path (other);
  ipath = rtf_index_path (path);
  g_assert_cmpint (g_rename (oidx, ipath), ==, 0);
  g_free (oidx);
  rec = rtf_recording_open (path, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rec->files[0].state, ==, RTF_FILE_NOT_REGULAR);
  g_assert_nonnull (strstr (rec->files[0].why, "device"));
  rtf_recover_plan (rec, &rec->files[0], &plan);
  g_assert_cmpint (plan.action, ==, RTF_RECOVER_REFUSE);
  rtf_recover_plan_clear (&plan);
  rtf_recording_free (rec);
  g_assert_cmpint (lstat (path, &st), ==, 0);
  g_assert_true (S_ISBLK (st.st_mode));
  g_free (other);
  g_free (ipath);
  g_free (path);
}

/* 2: cam.raw a link to a victim, another recording's index copied to
 * cam.raw.idx: the link is never followed, the victim never cut */
static void
test_symlink_and_foreign_index (void)
{
  RtfTestRecording t = { "other.raw", 0, 2, FRAME, FALSE, 0, 0x33, TRUE };
  gchar *other = rtf_test_index_write (dir, &t), *oidx = rtf_index_path (other);
  gchar *victim = in_dir ("victim.bin"), *path = in_dir ("cam.raw");
  gchar *ipath = rtf_index_path (path), *data;
  gsize len;

  data = g_malloc0 (1 << 20);
  g_assert_true (g_file_set_contents (victim, data, 1 << 20, NULL));
  g_free (data);
  g_assert_cmpint (symlink (victim, path), ==, 0);
  data = contents (oidx, &len);
  g_assert_true (g_file_set_contents (ipath, data, len, NULL));
  g_free (data);
  assert_refused_untouched (path, victim, RTF_FILE_NOT_REGULAR,
      "symbolic link");

  /* the same index beside a real file: it names other.raw, not cam.raw */
  g_unlink (path);
  data = g_malloc0 (1 << 20);
  g_assert_true (g_file_set_contents (path, data, 1 << 20, NULL));
  g_free (data);
  assert_refused_untouched (path, path, RTF_FILE_FOREIGN_INDEX,
      "of file \"other.raw\"");

  g_free (other);
  g_free (oidx);
  g_free (victim);
  g_free (ipath);
  g_free (path);
}

/* The file's mark names another recording than its index: refused */
static void
test_mark_mismatch (void)
{
  gchar *path = recording (3, FALSE);
  RtfRecordingId other;
  gint fd = open (path, O_RDONLY);

  memset (other.bytes, 0x99, sizeof (other.bytes));
  g_assert_cmpint (rtf_file_mark_set (fd, &other, 0), ==, 0);
  close (fd);
  append (path, 10, 0);
  assert_refused_untouched (path, path, RTF_FILE_FOREIGN_INDEX,
      "of recording 9999");
  g_free (path);
}

/* 3: one bad byte in frame 2 of 10, checksums on: frame 2 is reported, no
 * frame goes (the seven after it are as good as ever) */
static void
test_damaged_middle_frame_kept (void)
{
  gchar *path = recording (10, TRUE);
  gsize len;
  gchar *before, *after;
  Look l;

  rtf_test_poke (path, 2 * FRAME + 50, '#');
  before = contents (path, &len);
  look (&l, path);
  g_assert_cmpint (l.f->proof, ==, RTF_PROOF_MARK);
  g_assert_cmpuint (l.check.bad_sums, ==, 1);
  g_assert_cmpuint (l.check.good_frames, ==, 10);
  g_assert_nonnull (strstr (g_ptr_array_index (l.check.faults, 0),
          "frame 2 (bytes 200..300) is corrupt"));
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_WHOLE);
  look_done (&l);
  after = contents (path, &len);
  g_assert_cmpuint (len, ==, 10 * FRAME);
  g_assert_true (memcmp (before, after, len) == 0);
  g_free (before);
  g_free (after);
  g_free (path);
}

/* n bytes at `at` of path read as zeros: a direct write whose data never
 * reached the disk, over a new (unwritten) extent */
static void
zero (const gchar * path, guint64 at, gsize n)
{
  gint fd = open (path, O_WRONLY);
  guint8 *buf = g_malloc0 (n);

  g_assert_cmpint (pwrite (fd, buf, n, at), ==, (gssize) n);
  close (fd);
  g_free (buf);
}

/* A power cut kept the records of the last two frames and not their
 * bytes (and 40 bytes of a frame in flight): those two are cut with the
 * tail, every frame before them kept.  Without the rule rtframe-verify
 * found them corrupt after recover (power-cut replay, point 5012 of a
 * spread's log) */
static void
test_torn_tail_cut (void)
{
  gchar *path = recording (6, TRUE), *ipath = rtf_index_path (path);
  gchar *why = NULL, *before, *after;
  gsize len, ilen;
  Look l;

  zero (path, 4 * FRAME, 2 * FRAME);
  append (path, 40, 0);
  before = contents (path, &len);
  look (&l, path);
  g_assert_cmpuint (l.check.bad_sums, ==, 2);
  g_assert_cmpuint (l.check.first_bad, ==, 4);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_CUT);
  g_assert_false (l.plan.needs_force);
  g_assert_cmpuint (l.plan.keep_frames, ==, 4);
  g_assert_cmpuint (l.plan.torn_frames, ==, 2);
  g_assert_cmpuint (l.plan.keep_bytes, ==, 4 * FRAME);
  g_assert_cmpuint (l.plan.cut_records, ==, 2);
  g_assert_nonnull (strstr (l.plan.why, "a power cut kept their records"));
  g_assert_cmpint (rtf_recover_apply (l.f, &l.plan, &why), ==, 0);
  look_done (&l);
  after = contents (path, &len);
  g_assert_cmpuint (len, ==, 4 * FRAME);
  g_assert_true (memcmp (before, after, len) == 0);
  g_free (contents (ipath, &ilen));
  look (&l, path);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_WHOLE);
  g_assert_cmpuint (l.check.bad_sums, ==, 0);
  g_assert_cmpuint (l.f->walk.frames, ==, 4);
  look_done (&l);
  g_free (before);
  g_free (after);
  g_free (ipath);
  g_free (path);
}

/* Plans the file at path of the recording at location, its checksums
 * compared from from_frame on: some mismatch, and no frame cut for it */
static void
assert_not_torn (const gchar * location, const gchar * path, guint64 from_frame)
{
  GError *error = NULL;
  RtfRecording *rec = rtf_recording_open (location, 0, FALSE, &error);
  RtfRecordingFile *f = NULL;
  RtfRecoverPlan plan;
  RtfCheck c;
  guint i;

  g_assert_no_error (error);
  for (i = 0; i < rec->n_files; i++)
    if (g_strcmp0 (rec->files[i].path, path) == 0)
      f = &rec->files[i];
  g_assert_nonnull (f);
  rtf_check_file (f, TRUE, from_frame, &c);
  rtf_recover_plan (rec, f, &plan);
  rtf_recover_plan_sums (rec, f, &c, &plan);
  g_assert_cmpuint (c.bad_sums, >, 0);
  g_assert_cmpuint (plan.torn_frames, ==, 0);
  g_assert_true (plan.action != RTF_RECOVER_CUT
      || plan.keep_frames == f->walk.frames);
  rtf_recover_plan_clear (&plan);
  rtf_check_clear (&c);
  rtf_recording_free (rec);
}

/* A set of two: cam-00000.raw (4 frames), cam-00001.raw (3); the path of
 * the one asked for */
static gchar *
set_of_two (guint which)
{
  RtfTestRecording t[2] = {
    {"cam-00000.raw", 0, 4, FRAME, TRUE, 0, 0x11, TRUE},
    {"cam-00001.raw", 1, 3, FRAME, TRUE, 0, 0x11, TRUE},
  };
  gchar *paths[2];

  paths[0] = rtf_test_index_write (dir, &t[0]);
  paths[1] = rtf_test_index_write (dir, &t[1]);
  g_free (paths[1 - which]);
  return paths[which];
}

/* What is not a torn tail keeps every byte: a file whose every frame
 * reads as zeros (nothing before matched: a file written over, cp keeps
 * the inode and its mark), also when only its last frames are compared
 * (--verify-tail); a byte flipped in the last frame (no zeros); more
 * zeroed frames than the writer had in flight; a bad frame a good one
 * follows (test_damaged_middle_frame_kept) */
static void
test_torn_tail_only_zeros_in_flight (void)
{
  gchar *path = recording (3, TRUE);

  zero (path, 0, 3 * FRAME);
  assert_not_torn (path, path, 0);
  g_free (path);
  path = recording (20, TRUE);
  zero (path, 0, 20 * FRAME);
  assert_not_torn (path, path, 16);
  g_free (path);
  path = recording (6, TRUE);
  rtf_test_poke (path, 5 * FRAME + 50, '#');
  assert_not_torn (path, path, 0);
  g_free (path);
  path = recording (12, TRUE);
  zero (path, 4 * FRAME, 8 * FRAME);
  assert_not_torn (path, path, 0);
  g_free (path);
}

/* ... nor a file whose end is not surely a crash's: one a later file of
 * its set follows, even one with no index; a file of a set given by its
 * own name; a file with a second name (a ring's file a recording kept) */
static void
test_torn_tail_only_crash_end (void)
{
  gchar *pattern = in_dir ("cam-%05d.raw"), *path, *later, *other;

  path = set_of_two (0);
  zero (path, 3 * FRAME, FRAME);
  assert_not_torn (pattern, path, 0);
  later = in_dir ("cam-00001.raw.idx");
  g_assert_cmpint (g_unlink (later), ==, 0);
  assert_not_torn (pattern, path, 0);
  g_free (later);
  g_free (path);
  path = in_dir ("cam-00001.raw");
  g_unlink (path);
  g_free (path);

  path = set_of_two (1);
  zero (path, 2 * FRAME, FRAME);
  assert_not_torn (path, path, 0);
  g_free (path);

  path = recording (6, TRUE);
  zero (path, 5 * FRAME, FRAME);
  other = in_dir ("kept.raw");
  g_assert_cmpint (link (path, other), ==, 0);
  assert_not_torn (path, path, 0);
  g_free (other);
  g_free (path);
  g_free (pattern);
}

/* A kept file of a ring whose index link a power cut lost (the data is
 * linked first): refused, left as it is, and the reason says where its
 * index is */
static void
test_kept_without_index (void)
{
  gchar *path = recording (4, TRUE), *ipath = rtf_index_path (path);
  gchar *ring = in_dir ("ring.raw");
  gsize len;
  Look l;

  g_assert_cmpint (link (path, ring), ==, 0);
  g_assert_cmpint (g_unlink (ipath), ==, 0);
  look (&l, path);
  g_assert_cmpint (l.f->state, ==, RTF_FILE_NO_INDEX);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_REFUSE);
  g_assert_nonnull (strstr (l.plan.why, "2 names: a file a ring kept"));
  look_done (&l);
  g_free (contents (path, &len));
  g_assert_cmpuint (len, ==, 4 * FRAME);
  g_free (ring);
  g_free (ipath);
  g_free (path);
}

/* A damaged index record in the middle: the frames of the records after
 * it are kept; only the tail after the last whole frame goes */
static void
test_damaged_middle_record_kept (void)
{
  gchar *path = recording (6, FALSE), *ipath = rtf_index_path (path);
  gsize len;
  RtfIndex *idx = rtf_index_load (ipath, NULL);
  gchar *why = NULL;
  Look l;

  rtf_test_poke (ipath, idx->header.header_size + 2 * RTF_INDEX_RECORD_SIZE +
      5, '!');
  rtf_index_free (idx);
  append (path, 30, 0);
  look (&l, path);
  g_assert_cmpuint (l.f->index->n_damaged, ==, 1);
  g_assert_cmpuint (l.f->walk.frames, ==, 5);
  g_assert_cmpuint (l.f->walk.end, ==, 6 * FRAME);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_CUT);
  g_assert_cmpuint (l.plan.keep_bytes, ==, 6 * FRAME);
  g_assert_false (l.plan.needs_force);
  g_assert_cmpint (rtf_recover_apply (l.f, &l.plan, &why), ==, 0);
  look_done (&l);
  g_free (contents (path, &len));
  g_assert_cmpuint (len, ==, 6 * FRAME);
  g_free (ipath);
  g_free (path);
}

/* What a crash leaves past the last record is cut; more than a crash can
 * leave (max-in-flight frames and a block) needs --force */
static void
test_tail_cut_and_limit (void)
{
  gchar *path = recording (5, TRUE), *ipath = rtf_index_path (path);
  gchar *why = NULL, *data;
  gsize len, ilen;
  Look l;

  /* a frame and a half in flight at the kill, zero padded to a block */
  append (path, 150, 0x5a);
  append (ipath, 30, 0x77);     /* a torn record */
  look (&l, path);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_CUT);
  g_assert_cmpuint (l.plan.cut_bytes, ==, 150);
  g_assert_cmpuint (l.plan.cut_records, ==, 1);
  g_assert_cmpuint (l.plan.limit, ==, 4 * FRAME + 4096);
  g_assert_false (l.plan.needs_force);
  g_assert_cmpint (rtf_recover_apply (l.f, &l.plan, &why), ==, 0);
  look_done (&l);
  data = contents (path, &len);
  g_assert_cmpuint (len, ==, 5 * FRAME);
  g_free (data);
  g_free (contents (ipath, &ilen));
  look (&l, path);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_WHOLE);
  g_assert_cmpuint (l.f->index->file_bytes, ==, ilen);
  look_done (&l);

  /* 10 MB after 5 indexed frames: no crash leaves that */
  append (path, 10 << 20, 0x5a);
  look (&l, path);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_CUT);
  g_assert_true (l.plan.needs_force);
  g_assert_nonnull (strstr (l.plan.why, "more than a killed recording leaves"));
  look_done (&l);
  g_free (contents (path, &len));
  g_assert_cmpuint (len, ==, 5 * FRAME + (10 << 20));
  g_free (ipath);
  g_free (path);
}

/* A version 1 index still cuts a crash's tail, with the bound of the
 * default io-depth; records past the data (nothing names the file) need
 * --force */
static void
test_legacy_index (void)
{
  RtfTestRecording t = { "old.raw", 0, 6, FRAME, FALSE, 1, 0, FALSE };
  gchar *path = rtf_test_index_write (dir, &t);
  Look l;

  append (path, 60, 0);
  look (&l, path);
  g_assert_cmpint (l.f->proof, ==, RTF_PROOF_LEGACY);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_CUT);
  g_assert_cmpuint (l.plan.limit, ==, RTF_RECOVER_LEGACY_IN_FLIGHT * FRAME +
      RTF_RECOVER_MAX_BLOCK);
  g_assert_false (l.plan.needs_force);
  look_done (&l);
  g_assert_cmpint (truncate (path, 3 * FRAME + 20), ==, 0);
  look (&l, path);
  g_assert_cmpint (l.f->walk.stop, ==, RTF_INDEX_BEYOND_DATA);
  g_assert_true (l.plan.needs_force);
  look_done (&l);
  g_free (path);
}

/* A version 2 index (72-byte records, made before version 3) is paired
 * by its name and mark, and a crash's tail is cut at its own record size:
 * the data after the last record's frame, the torn record after it */
static void
test_version_2_index (void)
{
  RtfTestRecording t = { "cam2.raw", 0, 5, FRAME, TRUE, 2, 0x22, TRUE };
  gchar *path = rtf_test_index_write (dir, &t), *ipath = rtf_index_path (path);
  gchar *why = NULL;
  guint64 header;
  gsize len;
  Look l;

  append (path, 150, 0x5a);
  append (ipath, 30, 0x77);
  look (&l, path);
  g_assert_cmpuint (l.f->index->header.version, ==, 2);
  g_assert_cmpint (l.f->proof, ==, RTF_PROOF_MARK);
  header = l.f->index->header.header_size;
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_CUT);
  g_assert_cmpuint (l.plan.keep_bytes, ==, 5 * FRAME);
  g_assert_cmpuint (l.plan.keep_index_bytes, ==, header + 5 * 72);
  g_assert_false (l.plan.needs_force);
  g_assert_cmpint (rtf_recover_apply (l.f, &l.plan, &why), ==, 0);
  look_done (&l);
  g_free (contents (path, &len));
  g_assert_cmpuint (len, ==, 5 * FRAME);
  g_free (contents (ipath, &len));
  g_assert_cmpuint (len, ==, header + 5 * 72);
  /* whole again, still version 2 */
  look (&l, path);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_WHOLE);
  g_assert_cmpuint (l.f->walk.frames, ==, 5);
  g_assert_cmpint (l.f->walk.stop, ==, RTF_INDEX_WHOLE);
  look_done (&l);
  g_free (why);
  g_free (ipath);
  g_free (path);
}

/* A file being recorded (its writer holds the lock) is in use: nothing
 * is cut, and applying an old plan finds the lock too */
static void
test_in_use (void)
{
  gchar *path = recording (4, FALSE), *why = NULL;
  gint fd;
  Look l;

  append (path, 50, 0);
  fd = open (path, O_WRONLY);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), ==, 0);
  look (&l, path);
  g_assert_true (l.f->in_use);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_REFUSE);
  g_assert_nonnull (strstr (l.plan.why, "in use"));
  /* planned before the recording started, applied after */
  l.plan.action = RTF_RECOVER_CUT;
  l.plan.keep_bytes = 4 * FRAME;
  g_assert_cmpint (rtf_recover_apply (l.f, &l.plan, &why), ==, EWOULDBLOCK);
  g_assert_nonnull (strstr (why, "in use"));
  g_free (why);
  look_done (&l);
  close (fd);
  g_free (contents (path, NULL));
  g_free (path);
}

/* A file replaced between the check and the cut is not cut */
static void
test_replaced_between (void)
{
  gchar *path = recording (4, FALSE), *why = NULL, *data;
  gsize len;
  Look l;

  append (path, 50, 0);
  look (&l, path);
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_CUT);
  g_unlink (path);
  data = g_malloc0 (4 * FRAME + 50);
  g_assert_true (g_file_set_contents (path, data, 4 * FRAME + 50, NULL));
  g_free (data);
  g_assert_cmpint (rtf_recover_apply (l.f, &l.plan, &why), !=, 0);
  g_free (why);
  look_done (&l);
  g_free (contents (path, &len));
  g_assert_cmpuint (len, ==, 4 * FRAME + 50);
  g_free (path);
}

/* 8: an index that is a FIFO, or a link to /dev/zero: said, in bounded
 * time and memory */
static void
test_hostile_index (void)
{
  gchar *path = recording (3, FALSE), *ipath = rtf_index_path (path);
  gint64 t0;
  Look l;

  g_unlink (ipath);
  g_assert_cmpint (mkfifo (ipath, 0600), ==, 0);
  t0 = g_get_monotonic_time ();
  look (&l, path);
  g_assert_cmpint (l.f->state, ==, RTF_FILE_NO_INDEX);
  g_assert_nonnull (strstr (l.f->why, "FIFO"));
  g_assert_cmpint (l.plan.action, ==, RTF_RECOVER_REFUSE);
  look_done (&l);
  g_unlink (ipath);
  g_assert_cmpint (symlink ("/dev/zero", ipath), ==, 0);
  look (&l, path);
  g_assert_cmpint (l.f->state, ==, RTF_FILE_NO_INDEX);
  g_assert_nonnull (strstr (l.f->why, "symbolic link"));
  look_done (&l);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_free (ipath);
  g_free (path);
}

/* An index far longer than its data file explains is read no further
 * than that */
static void
test_index_length_bounded (void)
{
  gchar *path = recording (2, FALSE), *ipath = rtf_index_path (path);
  Look l;

  append (ipath, (RTF_INDEX_SLACK_RECORDS + 100) * RTF_INDEX_RECORD_SIZE, 0);
  look (&l, path);
  g_assert_true (l.f->index->capped);
  g_assert_cmpuint (l.f->index->n_records, ==, 2);
  g_assert_cmpuint (l.f->index->n_damaged, ==, 0);
  look_done (&l);
  g_free (ipath);
  g_free (path);
}

/* A file opened ahead for a split that never came: deleted only when
 * the sink's mark says it made it */
static void
test_never_written (void)
{
  gchar *pattern = in_dir ("set-%d.raw"), *f0 = in_dir ("set-0.raw");
  gchar *f1 = in_dir ("set-1.raw"), *i1 = rtf_index_path (f1), *why = NULL;
  RtfTestRecording t = { "set-0.raw", 0, 3, FRAME, FALSE, 0, 0x44, TRUE };
  RtfRecordingId id;
  RtfRecording *rec;
  RtfRecoverPlan plan;
  GError *error = NULL;
  gint fd;

  g_free (rtf_test_index_write (dir, &t));
  /* unmarked: nothing shows it is the sink's */
  g_assert_true (g_file_set_contents (f1, "", 0, NULL));
  g_assert_true (g_file_set_contents (i1, "", 0, NULL));
  rec = rtf_recording_open (pattern, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rec->n_files, ==, 2);
  g_assert_cmpint (rec->files[1].state, ==, RTF_FILE_NEVER_WRITTEN);
  rtf_recover_plan (rec, &rec->files[1], &plan);
  g_assert_cmpint (plan.action, ==, RTF_RECOVER_REFUSE);
  rtf_recover_plan_clear (&plan);
  rtf_recording_free (rec);

  /* marked as file 1 of this recording: it goes */
  memset (id.bytes, 0x44, sizeof (id.bytes));
  fd = open (f1, O_RDONLY);
  g_assert_cmpint (rtf_file_mark_set (fd, &id, 1), ==, 0);
  close (fd);
  rec = rtf_recording_open (pattern, 0, FALSE, &error);
  rtf_recover_plan (rec, &rec->files[1], &plan);
  g_assert_cmpint (plan.action, ==, RTF_RECOVER_DELETE);
  g_assert_cmpint (rtf_recover_apply (&rec->files[1], &plan, &why), ==, 0);
  rtf_recover_plan_clear (&plan);
  rtf_recording_free (rec);
  g_assert_false (g_file_test (f1, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (i1, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (f0, G_FILE_TEST_EXISTS));

  /* killed while its first frame was in flight: bytes of it in the file,
   * its index still empty - no frame of it was reported written */
  g_assert_true (g_file_set_contents (f1, "frame bytes", 11, NULL));
  g_assert_true (g_file_set_contents (i1, "", 0, NULL));
  rec = rtf_recording_open (pattern, 0, FALSE, &error);
  g_assert_cmpint (rec->files[1].state, ==, RTF_FILE_NO_INDEX);
  rtf_recover_plan (rec, &rec->files[1], &plan);
  g_assert_cmpint (plan.action, ==, RTF_RECOVER_REFUSE);
  rtf_recover_plan_clear (&plan);
  rtf_recording_free (rec);
  fd = open (f1, O_RDONLY);
  g_assert_cmpint (rtf_file_mark_set (fd, &id, 1), ==, 0);
  close (fd);
  rec = rtf_recording_open (pattern, 0, FALSE, &error);
  rtf_recover_plan (rec, &rec->files[1], &plan);
  g_assert_cmpint (plan.action, ==, RTF_RECOVER_DELETE);
  g_assert_nonnull (strstr (plan.why, "index is empty"));
  g_assert_cmpint (rtf_recover_apply (&rec->files[1], &plan, &why), ==, 0);
  rtf_recover_plan_clear (&plan);
  rtf_recording_free (rec);
  g_assert_false (g_file_test (f1, G_FILE_TEST_EXISTS));
  g_free (pattern);
  g_free (f0);
  g_free (f1);
  g_free (i1);
}

/* A hidden file prepared for a split while its name held an earlier
 * take's file, left by a crash before it got its name: its index holds no
 * record, so no frame of it was reported written; deleted when its mark
 * proves it, else left (one holding records: test-hostile-readers, L1) */
static void
test_leftover_prepared_file (void)
{
  RtfTestRecording a = { "lo-0.raw", 0, 2, FRAME, FALSE, 0, 0x77, TRUE };
  RtfTestRecording h = { "lo-1.raw", 1, 0, FRAME, FALSE, 0, 0x77, TRUE };
  gchar *pattern = in_dir ("lo-%d.raw"), *hidden, *hidx, *made, *why = NULL;
  gchar *stray = in_dir (".lo-2.raw.0badc0de.rtfprep");
  RtfRecording *rec;
  RtfRecoverPlan plan;
  GError *error = NULL;

  g_free (rtf_test_index_write (dir, &a));
  /* what the sink prepared: its index names the file it was for */
  made = rtf_test_index_write (dir, &h);
  hidden = in_dir (".lo-1.raw.0badc0de.rtfprep");
  hidx = rtf_index_path (hidden);
  g_assert_cmpint (g_rename (made, hidden), ==, 0);
  g_free (made);
  {
    gchar *lo1 = in_dir ("lo-1.raw");

    made = rtf_index_path (lo1);
    g_free (lo1);
  }
  g_assert_cmpint (g_rename (made, hidx), ==, 0);
  /* one of the same form nothing marked */
  g_assert_true (g_file_set_contents (stray, "x", 1, NULL));

  rec = rtf_recording_open (pattern, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rec->n_files, ==, 1);
  g_assert_cmpuint (rec->n_leftovers, ==, 2);
  {
    RtfRecordingFile *f = &rec->leftovers[0], *g = &rec->leftovers[1];

    if (g_str_has_suffix (g->path, hidden + strlen (dir))) {
      RtfRecordingFile *t = f;

      f = g;
      g = t;
    }
    g_assert_cmpuint (f->number, ==, 1);
    rtf_recover_plan_leftover (rec, f, &plan);
    g_assert_cmpint (plan.action, ==, RTF_RECOVER_DELETE);
    g_assert_cmpint (rtf_recover_apply (f, &plan, &why), ==, 0);
    rtf_recover_plan_clear (&plan);
    rtf_recover_plan_leftover (rec, g, &plan);
    g_assert_cmpint (plan.action, ==, RTF_RECOVER_REFUSE);
    rtf_recover_plan_clear (&plan);
  }
  rtf_recording_free (rec);
  g_assert_false (g_file_test (hidden, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (hidx, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (stray, G_FILE_TEST_EXISTS));
  g_free (made);
  g_free (stray);
  g_free (hidden);
  g_free (hidx);
  g_free (pattern);
}

/* The files of another recording found after a set end it (a note), and
 * are never counted in it */
static void
test_set_ends_at_another_recording (void)
{
  RtfTestRecording a = { "s-0.raw", 0, 2, FRAME, FALSE, 0, 0x55, TRUE };
  RtfTestRecording b = { "s-1.raw", 1, 3, FRAME, FALSE, 0, 0x66, TRUE };
  gchar *pattern = in_dir ("s-%d.raw");
  GError *error = NULL;
  RtfRecording *rec;

  g_free (rtf_test_index_write (dir, &a));
  g_free (rtf_test_index_write (dir, &b));
  rec = rtf_recording_open (pattern, 0, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rec->n_files, ==, 1);
  g_assert_cmpuint (rec->n_frames, ==, 2);
  g_assert_nonnull (strstr (rec->note, "another recording"));
  rtf_recording_free (rec);
  g_free (pattern);
}

/* rtf_safe_open() never follows a link, never blocks on a FIFO */
static void
test_safe_open (void)
{
  gchar *file = in_dir ("f"), *link = in_dir ("l"), *fifo = in_dir ("p");
  gchar *why = NULL;
  struct stat st;
  gint fd;

  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  g_assert_cmpint (symlink (file, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  fd = rtf_safe_open (file, FALSE, &st, &why);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (rtf_same_file (file, &st));
  g_assert_false (rtf_same_file (link, &st));
  close (fd);
  g_assert_cmpint (rtf_safe_open (link, TRUE, &st, &why), ==, -1);
  g_assert_cmpint (errno, ==, ELOOP);
  g_assert_nonnull (strstr (why, "symbolic link"));
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (rtf_safe_open (fifo, FALSE, &st, &why), ==, -1);
  g_assert_nonnull (strstr (why, "FIFO"));
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (rtf_safe_open (dir, FALSE, &st, &why), ==, -1);
  g_clear_pointer (&why, g_free);
  g_free (file);
  g_free (link);
  g_free (fifo);
}

/* ramfs keeps no extended attributes: a file the sink prepared there
 * beside a user's file, then killed before its first frame (torture
 * 0x4d1ae2f5c6c97ffd), is empty, its index empty, and unmarked - nothing
 * tells it from a file anyone made.  Left as it is (the data safety rule),
 * saying so and how to remove it; the user's file untouched. */
static void
test_leftover_prepared_ramfs (void)
{
  RtfTestRecording a = { "lo-0.raw", 0, 2, FRAME, FALSE, 0, 0x77, FALSE };
  RtfOutputConfig config = { 0 };
  RtfFailStep step;
  RtfTestFs *fs;
  RtfRecording *rec;
  RtfRecoverPlan plan;
  GError *error = NULL;
  gchar *pattern, *user;
  gint status, err;
  pid_t pid;

  if (!rtf_test_is_root ()) {
    g_test_skip ("mounting ramfs needs root");
    return;
  }
  fs = rtf_test_fs_new ("ramfs", 16);
  g_free (rtf_test_index_write (fs->dir, &a));
  pattern = g_build_filename (fs->dir, "lo-%d.raw", NULL);
  user = g_build_filename (fs->dir, "lo-1.raw", NULL);
  g_assert_true (g_file_set_contents (user, "the user's", -1, NULL));
  config.direct = RTF_DIRECT_AUTO;
  config.index = TRUE;
  memset (config.recording_id.bytes, 0x77, RTF_RECORDING_ID_SIZE);
  /* the sink prepares lo-1 and is killed: nothing of it cleaned up (a
   * real SIGKILL: an exit would also run valgrind's leak check on it) */
  pid = fork ();
  if (pid == 0) {
    RtfOutput *o = rtf_output_open (user, 1, &config, RTF_FILE_CREATE_NEW,
        &err, &step);

    if (o && o->tmp_path && o->mark_errno != 0)
      raise (SIGKILL);
    _exit (1);
  }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);

  rec = rtf_recording_open (pattern, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rec->n_leftovers, ==, 1);
  g_assert_true (rec->leftovers[0].no_marks);
  rtf_recover_plan_leftover (rec, &rec->leftovers[0], &plan);
  g_assert_cmpint (plan.action, ==, RTF_RECOVER_REFUSE);
  g_assert_nonnull (strstr (plan.why, "keeps no marks"));
  g_assert_nonnull (strstr (plan.why, "delete it and its .idx by hand"));
  rtf_recover_plan_clear (&plan);
  g_assert_true (g_file_test (rec->leftovers[0].path, G_FILE_TEST_EXISTS));
  rtf_recording_free (rec);
  {
    gchar *text = NULL;

    g_assert_true (g_file_get_contents (user, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, "the user's");
    g_free (text);
  }
  g_free (user);
  g_free (pattern);
  rtf_test_fs_free (fs);
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
  add ("/recover/no-index-refused", test_no_index_refused);
  add ("/recover/fifo-refused", test_fifo_refused);
  add ("/recover/device-node-refused", test_device_node_refused);
  add ("/recover/symlink-and-foreign-index", test_symlink_and_foreign_index);
  add ("/recover/mark-mismatch", test_mark_mismatch);
  add ("/recover/damaged-middle-frame-kept", test_damaged_middle_frame_kept);
  add ("/recover/torn-tail-cut", test_torn_tail_cut);
  add ("/recover/torn-tail-only-zeros-in-flight",
      test_torn_tail_only_zeros_in_flight);
  add ("/recover/torn-tail-only-crash-end", test_torn_tail_only_crash_end);
  add ("/recover/kept-without-index", test_kept_without_index);
  add ("/recover/damaged-middle-record-kept", test_damaged_middle_record_kept);
  add ("/recover/tail-cut-and-limit", test_tail_cut_and_limit);
  add ("/recover/legacy-index", test_legacy_index);
  add ("/recover/version-2-index", test_version_2_index);
  add ("/recover/in-use", test_in_use);
  add ("/recover/replaced-between", test_replaced_between);
  add ("/recover/hostile-index", test_hostile_index);
  add ("/recover/index-length-bounded", test_index_length_bounded);
  add ("/recover/never-written", test_never_written);
  add ("/recover/leftover-prepared-file", test_leftover_prepared_file);
  add ("/recover/leftover-prepared-ramfs", test_leftover_prepared_ramfs);
  add ("/recover/set-ends-at-another-recording",
      test_set_ends_at_another_recording);
  add ("/recover/safe-open", test_safe_open);
  return g_test_run ();
}
