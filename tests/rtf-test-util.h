/* rtframe tests: frame patterns, file checks and throwaway filesystems */
#ifndef __RTF_TEST_UTIL_H__
#define __RTF_TEST_UTIL_H__

#include <glib.h>

G_BEGIN_DECLS

/* Fills a frame with bytes that depend on (stream, seq, position): every
 * frame differs, and a misplaced or torn frame is found by comparison. */
void rtf_test_fill_frame (guint8 * data, gsize size, guint stream, guint64 seq);

/* Checks that `path` holds exactly frames 0..n_frames-1 of `stream`.
 * Returns NULL when it does, else what is wrong (g_free it). */
gchar *rtf_test_check_file (const gchar * path, gsize frame_size,
    guint stream, guint64 n_frames);

/* Whole frames the file holds, checking each (-1 when one is wrong or a
 * partial frame trails). */
gint64 rtf_test_count_whole_frames (const gchar * path, gsize frame_size,
    guint stream);

/* For a file that may miss frames (drops): reads each frame's stamp,
 * checks the frame byte by byte against that number, and that numbers go
 * up.  Returns how many frames it holds, their numbers in *seqs (g_free),
 * or -1 (with a message on stderr) when one is wrong. */
gint64 rtf_test_scan_frames (const gchar * path, gsize frame_size,
    guint stream, guint64 ** seqs);

/* What a file holds after a crash or a fault: `exact` frames 0..exact-1
 * byte-exact from its start, then `tail` bytes, each either the bytes the
 * frame at that place should have (tail_data), zeros (tail_zero), or
 * anything else (garbage: stale or foreign data, never acceptable). */
typedef struct
{
  gboolean missing;             /* no such file */
  guint64 size, exact, tail;
  guint64 tail_data, tail_zero, garbage;
} RtfTestTail;

void rtf_test_inspect (const gchar * path, gsize frame_size, guint stream,
    RtfTestTail * t);

/* Factor for the time bounds of tests: RTFRAME_TEST_TIME_SCALE (set by
 * tools/test.sh --valgrind, which runs everything ~20-50x slower), else 1. */
gint64 rtf_test_time_scale (void);

guint rtf_test_count_fds (void);
guint rtf_test_count_threads (void);
guint rtf_test_settled_threads (guint limit);
gchar *rtf_test_thread_names (void);

gboolean rtf_test_is_root (void);

gint rtf_test_run (const gchar * command);
/* Runs an installed tool of the build (RTFRAME_TOOLS_DIR/<tool>) with the
 * arguments that follow (NULL-terminated): its exit status (-1 killed),
 * what it printed in *out (NULL: printed on failure only).  Prints the
 * command and its output as a log. */
gint rtf_test_run_tool (gchar ** out, const gchar * tool, ...)
    G_GNUC_NULL_TERMINATED;
/* A fresh directory in $TMPDIR, and removing it with all it holds */
gchar *rtf_test_tmpdir_new (const gchar * prefix);
void rtf_test_tmpdir_free (gchar * dir);
/* A directory of its own for each test: rtf_test_tmp_setup() and
 * rtf_test_tmp_teardown() as a check fixture, and a path in it. */
void rtf_test_tmp_setup (void);
void rtf_test_tmp_teardown (void);
gchar *rtf_test_tmp_path (const gchar * name);

/* A filesystem of `fstype` ("xfs", "ext4", "ramfs") on a loop device backed
 * by a sparse file of `size_mb` MiB (ramfs: no device), mounted on a fresh
 * directory.  Needs root. */
typedef struct
{
  gchar *dir;                   /* mount point */
  gchar *image;
  gchar *loopdev;
} RtfTestFs;

/* blkio (cgroup v1) write throttling of this process (the writer thread
 * and io_uring's workers inherit it) on one device */
#define RTF_TEST_BLKIO "/sys/fs/cgroup/blkio"
gboolean rtf_test_have_blkio (void);
gchar *rtf_test_throttle_new (const gchar * loopdev, guint64 bps);
void rtf_test_throttle_set (const gchar * dir, const gchar * loopdev,
    guint64 bps);
void rtf_test_throttle_free (gchar * dir);

RtfTestFs *rtf_test_fs_new (const gchar * fstype, guint size_mb);
/* Unmounts dir, trying again for up to 5 s while it is busy: FALSE if it
 * stays busy */
gboolean rtf_test_umount (const gchar * dir);
/* The same with the image in `parent` (a disk on another filesystem) */
RtfTestFs *rtf_test_fs_new_in (const gchar * fstype, guint size_mb,
    const gchar * parent);
void rtf_test_fs_remount (RtfTestFs * fs, const gchar * options);
void rtf_test_fs_free (RtfTestFs * fs);

G_END_DECLS

#endif
