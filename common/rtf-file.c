/* rtframe: opening the output file for direct I/O and closing it whole. */
#include "rtf-file.h"
#include "rtf-safe-open.h"

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

/* The file's kind; a regular one locked, and for REPLACE emptied */
static gint
claim (RtfFile * file, RtfFileOpenMode how)
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
  if (S_ISREG (st.st_mode) && how == RTF_FILE_REPLACE && st.st_size > 0
      && ftruncate (file->fd, 0) < 0)
    return errno;
  return 0;
}

gboolean
rtf_file_open (RtfFile * file, const gchar * path, RtfFileOpenMode how,
    RtfDirectMode mode, const RtfXflags * xflags, gint * err)
{
  const gint base = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
  gint fd, ret;

  memset (file, 0, sizeof (*file));
  file->fd = -1;
  fd = open_once (path, base | O_CREAT | O_EXCL, mode, &file->direct,
      &file->direct_errno, &file->created);
  /* REPLACE: what is there is used (a regular file is emptied below) */
  if (fd < 0 && errno == EEXIST && how == RTF_FILE_REPLACE)
    fd = open_once (path, base, mode, &file->direct, &file->direct_errno,
        &file->created);
  if (fd < 0) {
    *err = errno;
    return FALSE;
  }
  file->fd = fd;
  if ((ret = claim (file, how)) != 0) {
    rtf_file_unlink_created (file, path);
    rtf_file_close (file);
    *err = ret;
    return FALSE;
  }

  /* before the alignment probe: a realtime file's direct I/O alignment is
   * the realtime extent's */
  if (xflags && !file->stream && !file->device)
    file->xflags_errno = rtf_xflags_apply (fd, xflags);

  if (file->direct) {
    rtf_file_probe_alignment (fd, &file->block, &file->mem_align,
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
