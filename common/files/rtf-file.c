/* rtframe: opening the output file for direct I/O and closing it whole. */
#include "rtf-file.h"
#include "rtf-index.h"
#include "rtf-safe-open.h"
#include "rtf-spread-manifest.h"
#include "rtf-take-manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define FALLBACK_BLOCK 4096
#define MAX_BLOCK (1024 * 1024)

static gboolean
is_pow2 (guint64 v)
{
  return v > 0 && (v & (v - 1)) == 0;
}

/* The logical block size of the block device holding the file, from sysfs
 * (what BLKSSZGET answers, without needing the device node). */
static gsize
device_logical_block (dev_t dev)
{
  gchar path[96], buf[32];
  gsize v = 0;
  FILE *f;

  g_snprintf (path, sizeof (path),
      "/sys/dev/block/%u:%u/queue/logical_block_size", major (dev),
      minor (dev));
  f = fopen (path, "re");
  if (f == NULL) {
    /* a partition: the queue is its parent's */
    g_snprintf (path, sizeof (path),
        "/sys/dev/block/%u:%u/../queue/logical_block_size", major (dev),
        minor (dev));
    f = fopen (path, "re");
  }
  if (f) {
    if (fgets (buf, sizeof (buf), f))
      v = g_ascii_strtoull (buf, NULL, 10);
    fclose (f);
  }
  return is_pow2 (v) ? v : 0;
}

/* Alignment for direct I/O on fd: statx(STATX_DIOALIGN) (Linux 6.1+), else
 * the device's logical block size, else 4096.  The block we use is raised
 * to the filesystem block (st_blksize) when that is a larger power of two
 * that the minimum divides: sub-block direct writes make XFS and ext4
 * serialise and zero, so whole filesystem blocks are the fast path. */
void
rtf_file_probe_alignment (gint fd, gsize * block, gsize * mem_align,
    const gchar ** source)
{
  struct statx stx = { 0 };
  gsize off_align = 0, mem = 0;
  const gchar *src = "default";

  if (statx (fd, "", AT_EMPTY_PATH, STATX_DIOALIGN | STATX_BASIC_STATS,
          &stx) == 0) {
    if ((stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > 0) {
      off_align = stx.stx_dio_offset_align;
      mem = stx.stx_dio_mem_align;
      src = "statx";
    } else {
      off_align = device_logical_block (makedev (stx.stx_dev_major,
              stx.stx_dev_minor));
      if (off_align)
        src = "device";
    }
  }
  if (!is_pow2 (off_align))
    off_align = FALLBACK_BLOCK;
  if (!is_pow2 (mem))
    mem = off_align;

  if (is_pow2 (stx.stx_blksize) && stx.stx_blksize <= MAX_BLOCK
      && stx.stx_blksize > off_align)
    off_align = stx.stx_blksize;

  *block = off_align;
  *mem_align = mem;
  if (source)
    *source = src;
}

/* One open(2): with O_DIRECT unless mode says not, and without it where
 * the filesystem refuses it (*direct_errno).  *created: O_CREAT made it. */
static gint
open_once (const gchar * path, gint flags, RtfDirectMode mode,
    gboolean * direct, gint * direct_errno, gboolean * created)
{
  gint fd;

  *direct = FALSE;
  *created = FALSE;
  if (mode != RTF_DIRECT_OFF) {
    fd = open (path, flags | O_DIRECT, 0666);
    if (fd >= 0) {
      *direct = TRUE;
      *created = (flags & O_EXCL) != 0;
      return fd;
    }
    if (errno != EINVAL && errno != EOPNOTSUPP)
      return -1;
    /* the filesystem refuses O_DIRECT (ramfs, some FUSE): open(2) may
     * have created the file before it said so */
    *direct_errno = errno;
    if (mode == RTF_DIRECT_ON)
      return -1;
    if (flags & O_EXCL) {
      struct stat st;

      if (lstat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_size == 0) {
        flags &= ~(O_CREAT | O_EXCL);
        *created = TRUE;
      }
    }
  }
  fd = open (path, flags, 0666);
  if (fd >= 0 && (flags & O_EXCL))
    *created = TRUE;
  return fd;
}

RtfFileKind
rtf_file_kind (gint fd)
{
  gchar magic[sizeof (RTF_INDEX_MAGIC) - 1];
  gboolean short_read;

  if (rtf_read_full (fd, 0, magic, sizeof (magic), &short_read) == 0
      && memcmp (magic, RTF_INDEX_MAGIC, sizeof (magic)) == 0)
    return RTF_FILE_KIND_INDEX;
  if (rtf_spread_manifest_probe (fd))
    return RTF_FILE_KIND_MANIFEST;
  if (rtf_take_manifest_probe (fd))
    return RTF_FILE_KIND_TAKE_MANIFEST;
  return RTF_FILE_KIND_OTHER;
}

gchar *
rtf_file_refusal (const gchar * path)
{
  RtfIndexHeader h = { 0 };
  struct stat st;
  gchar *why = NULL, *out = NULL;
  guint8 *head;
  ssize_t n;
  gint fd = rtf_safe_open (path, FALSE, &st, &why);

  g_clear_pointer (&why, g_free);
  if (fd < 0)
    return NULL;
  switch (rtf_file_kind (fd)) {
    case RTF_FILE_KIND_INDEX:
      /* its header names the data file it describes (version 2 on) */
      head = g_malloc (RTF_INDEX_MAX_HEADER);
      n = pread (fd, head, RTF_INDEX_MAX_HEADER, 0);
      if (n > 0 && rtf_index_decode_header (head, n, &h, &why)
          && h.data_name && h.data_name[0])
        out = g_strdup_printf ("is an rtframe index (of \"%s\")", h.data_name);
      else
        out = g_strdup ("is an rtframe index");
      rtf_index_header_clear (&h);
      g_clear_pointer (&why, g_free);
      g_free (head);
      break;
    case RTF_FILE_KIND_MANIFEST:
      out = g_strdup ("is the manifest of a recording over several "
          "locations");
      break;
    case RTF_FILE_KIND_TAKE_MANIFEST:
      out = g_strdup ("is the manifest of an event or take");
      break;
    default:
      break;
  }
  close (fd);
  return out;
}

/* Whether the regular file open for writing at fd (st: its fstat), at
 * path, is an rtframe index or manifest: read through a descriptor of
 * its own on the same inode (fd may be write-only) */
static gboolean
holds_rtframe_file (gint fd, const struct stat *st, const gchar * path)
{
  RtfFileKind kind = RTF_FILE_KIND_OTHER;
  struct stat rst;
  gchar proc[32], *why = NULL;
  gint rfd;

  g_snprintf (proc, sizeof (proc), "/proc/self/fd/%d", fd);
  rfd = open (proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (rfd < 0)
    rfd = rtf_safe_open (path, FALSE, &rst, &why);
  g_free (why);
  if (rfd < 0)
    return FALSE;               /* cannot be read: not known to be one */
  if (fstat (rfd, &rst) == 0 && rst.st_dev == st->st_dev
      && rst.st_ino == st->st_ino)
    kind = rtf_file_kind (rfd);
  close (rfd);
  return kind != RTF_FILE_KIND_OTHER;
}

/* The file's kind; a regular one locked, and for REPLACE emptied - not
 * when it is an index or a manifest (issue 23: location=x.raw.idx emptied
 * the index of a live recording of x.raw) */
static gint
claim (RtfFile * file, const gchar * path, RtfFileOpenMode how)
{
  struct stat st;

  if (fstat (file->fd, &st) < 0)
    return errno;
  file->device = S_ISBLK (st.st_mode);
  file->stream = !S_ISREG (st.st_mode) && !S_ISBLK (st.st_mode);
  /* a character device (/dev/null) is anyone's to write */
  if (S_ISCHR (st.st_mode) || S_ISSOCK (st.st_mode))
    return 0;
  /* another recording writing it (frames of two would interleave, or be
   * cut by the other), or a tool repairing it */
  if (rtf_lock (file->fd, TRUE) != 0)
    return EWOULDBLOCK;
  if (!S_ISREG (st.st_mode) || how != RTF_FILE_REPLACE || st.st_size == 0)
    return 0;
  if (holds_rtframe_file (file->fd, &st, path))
    return EEXIST;
  if (ftruncate (file->fd, 0) < 0)
    return errno;
  return 0;
}

/* A regular file's XFS flags and mark, set while it is empty; the flags
 * before the alignment probe: a realtime file's direct I/O alignment is
 * the realtime extent's */
static void
prepare_regular (RtfFile * file, const RtfXflags * xflags,
    const RtfRecordingId * mark_id, guint64 mark_number)
{
  if (file->stream || file->device)
    return;
  if (xflags)
    file->xflags_errno = rtf_xflags_apply (file->fd, xflags,
        &file->xflags_hint_refused);
  if (mark_id)
    file->mark_errno = rtf_file_mark_set (file->fd, mark_id, mark_number);
}

/* O_TMPFILE in dir: a new file with no name, with O_DIRECT unless mode
 * says not.  An EINVAL with O_DIRECT does not say which flag was refused:
 * the open without it tells.  -1 (errno) where there are no unnamed
 * files (an old kernel; ramfs of older kernels, FUSE, NFS); -1 and
 * *direct_errno when O_DIRECT was refused and mode insists on it. */
static gint
open_unnamed (const gchar * dir, RtfDirectMode mode, gboolean * direct,
    gint * direct_errno)
{
  const gint flags = O_TMPFILE | O_WRONLY | O_CLOEXEC;
  gint fd, refused = 0;

  if (mode != RTF_DIRECT_OFF) {
    fd = open (dir, flags | O_DIRECT, 0666);
    if (fd >= 0) {
      *direct = TRUE;
      return fd;
    }
    if (errno != EINVAL && errno != EOPNOTSUPP)
      return -1;
    refused = errno;
  }
  fd = open (dir, flags, 0666);
  if (fd < 0 || !refused)
    return fd;
  /* unnamed files are made here: it was O_DIRECT that was refused */
  *direct_errno = refused;
  if (mode == RTF_DIRECT_ON) {
    close (fd);
    return -1;
  }
  return fd;
}

/* Gives the unnamed file fd the name path, which no open can see before:
 * through /proc/self/fd (any user), else, /proc not mounted (a chroot, a
 * container), with AT_EMPTY_PATH (older kernels allow that only with
 * CAP_DAC_READ_SEARCH).  0, EEXIST when path is taken (what O_EXCL
 * says), or the errno of the last attempt. */
static gint
link_unnamed (gint fd, const gchar * path)
{
  gchar proc[32];

  g_snprintf (proc, sizeof (proc), "/proc/self/fd/%d", fd);
  if (linkat (AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
    return 0;
  if (errno == EEXIST)
    return EEXIST;
  if (linkat (fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0)
    return 0;
  return errno;
}

/* A new file made whole before it has a name - locked, flagged, marked -
 * then linked at path, so that a crash (SIGKILL) never leaves an unmarked
 * file there, one rtframe-recover may not delete.  0; EEXIST when path is
 * taken; -1 where unnamed files cannot be made or linked here (the file is
 * then created by its name); or an errno that ends the open. */
static gint
create_unnamed (RtfFile * file, const gchar * path, RtfDirectMode mode,
    const RtfXflags * xflags, const RtfRecordingId * mark_id,
    guint64 mark_number)
{
  gchar *dir = g_path_get_dirname (path);
  gint ret;

  file->fd = open_unnamed (dir, mode, &file->direct, &file->direct_errno);
  g_free (dir);
  if (file->fd < 0)
    return mode == RTF_DIRECT_ON && file->direct_errno ?
        file->direct_errno : -1;
  if ((ret = claim (file, path, RTF_FILE_CREATE_NEW)) == 0) {
    prepare_regular (file, xflags, mark_id, mark_number);
    ret = link_unnamed (file->fd, path);
  }
  if (ret == 0) {
    file->created = file->unnamed = TRUE;
    return 0;
  }
  /* the unnamed file goes with its descriptor */
  rtf_file_close (file);
  memset (file, 0, sizeof (*file));
  file->fd = -1;
  return ret == EEXIST ? EEXIST : -1;
}

/* The file by its name, as before O_TMPFILE: created with O_EXCL (a
 * crash before the mark leaves it unmarked), or with REPLACE what is
 * there (a regular file is emptied once locked).  0 or an errno. */
static gint
open_named (RtfFile * file, const gchar * path, RtfFileOpenMode how,
    RtfDirectMode mode)
{
  const gint base = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
  gint fd, ret;

  fd = open_once (path, base | O_CREAT | O_EXCL, mode, &file->direct,
      &file->direct_errno, &file->created);
  if (fd < 0 && errno == EEXIST && how == RTF_FILE_REPLACE)
    fd = open_once (path, base, mode, &file->direct, &file->direct_errno,
        &file->created);
  if (fd < 0)
    return errno;
  file->fd = fd;
  if ((ret = claim (file, path, how)) != 0) {
    rtf_file_unlink_created (file, path);
    rtf_file_close (file);
  }
  return ret;
}

gboolean
rtf_file_open (RtfFile * file, const gchar * path, RtfFileOpenMode how,
    RtfDirectMode mode, const RtfXflags * xflags,
    const RtfRecordingId * mark_id, guint64 mark_number, gint * err)
{
  struct stat st;
  gint ret = -1;

  memset (file, 0, sizeof (*file));
  file->fd = -1;
  /* REPLACE of a name that holds something uses it: no new file to make */
  if (how != RTF_FILE_REPLACE || lstat (path, &st) < 0)
    ret = create_unnamed (file, path, mode, xflags, mark_id, mark_number);
  if (ret == -1 || (ret == EEXIST && how == RTF_FILE_REPLACE)) {
    ret = open_named (file, path, how, mode);
    if (ret == 0)
      prepare_regular (file, xflags, mark_id, mark_number);
  }
  if (ret != 0) {
    *err = ret;
    return FALSE;
  }
  if (file->direct) {
    rtf_file_probe_alignment (file->fd, &file->block, &file->mem_align,
        &file->align_source);
  } else {
    file->block = 1;
    file->mem_align = 1;
    file->align_source = "buffered";
  }
  return TRUE;
}

void
rtf_file_unlink_created (RtfFile * file, const gchar * path)
{
  struct stat st;

  if (!file->created || file->fd < 0 || fstat (file->fd, &st) < 0)
    return;
  if (rtf_same_file (path, &st))
    (void) unlink (path);
  file->created = FALSE;
}

void
rtf_file_close (RtfFile * file)
{
  if (file->fd >= 0)
    close (file->fd);
  file->fd = -1;
}

/* Cuts the file to exactly `size` bytes: drops the zero padding after the
 * last frame.  Returns 0 or an errno. */
gint
rtf_file_cut (RtfFile * file, guint64 size)
{
  if (file->stream || file->device)
    return 0;                   /* a device's size is its own */
  if (ftruncate (file->fd, (off_t) size) < 0)
    return errno;
  return 0;
}

/* Makes the file whole and durable: exact size, the preallocated space
 * after it given back, data and size on stable storage.  Returns 0 or the
 * errno of the step that failed. */
gint
rtf_file_make_whole (RtfFile * file, guint64 size, guint64 reserved_end)
{
  guint64 keep = file->block > 1 ? size + (file->block - size % file->block)
      % file->block : size;
  gint ret;

  if (file->stream)
    return 0;                   /* nothing to cut, nothing to sync */
  if (file->device)             /* a disk: its size is its own */
    return fdatasync (file->fd) < 0 ? errno : 0;
  if ((ret = rtf_file_cut (file, size)) != 0)
    return ret;
  /* fallocate(KEEP_SIZE) blocks past EOF stay allocated after a truncate
   * that does not change the size; punch them out. */
  if (reserved_end > keep)
    (void) fallocate (file->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
        (off_t) keep, (off_t) (reserved_end - keep));
  if (fdatasync (file->fd) < 0)
    return errno;
  return 0;
}
