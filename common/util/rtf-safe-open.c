/* rtframe: opening what is found at a path, without surprises. */
#include "rtf-safe-open.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

static gchar *
describe (const struct stat *st)
{
  if (S_ISLNK (st->st_mode))
    return g_strdup ("is a symbolic link (never followed: the file it "
        "points to is not known to belong to the recording)");
  if (S_ISFIFO (st->st_mode))
    return g_strdup ("is a FIFO, not a regular file");
  if (S_ISBLK (st->st_mode) || S_ISCHR (st->st_mode))
    return g_strdup ("is a device node, not a regular file");
  if (S_ISDIR (st->st_mode))
    return g_strdup ("is a directory");
  if (S_ISSOCK (st->st_mode))
    return g_strdup ("is a socket, not a regular file");
  return g_strdup ("is not a regular file");
}

gint
rtf_safe_open (const gchar * path, gboolean writable, struct stat *st,
    gchar ** why)
{
  struct stat lst;
  gint fd, err;

  /* what is there, before opening it: opening a device or a FIFO can
   * itself do something (rewind a tape, block for a writer) */
  if (lstat (path, &lst) < 0) {
    err = errno;
    *why = g_strdup (g_strerror (err));
    errno = err;
    return -1;
  }
  if (!S_ISREG (lst.st_mode)) {
    *why = describe (&lst);
    errno = S_ISLNK (lst.st_mode) ? ELOOP : EINVAL;
    return -1;
  }
  fd = open (path, (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK
      | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    err = errno;
    *why = g_strdup (g_strerror (err));
    errno = err;
    return -1;
  }
  /* the name may have been replaced in between */
  if (fstat (fd, st) < 0 || !S_ISREG (st->st_mode)
      || st->st_dev != lst.st_dev || st->st_ino != lst.st_ino) {
    close (fd);
    *why = g_strdup ("changed while it was being opened");
    errno = EAGAIN;
    return -1;
  }
  return fd;
}

gint
rtf_lock (gint fd, gboolean exclusive)
{
  while (flock (fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
    if (errno != EINTR)
      return errno;
  }
  return 0;
}

gboolean
rtf_same_inode (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino
      && (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT)
      && a->st_ctim.tv_sec == b->st_ctim.tv_sec
      && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

gboolean
rtf_same_file (const gchar * path, const struct stat *st)
{
  struct stat now;

  return lstat (path, &now) == 0 && rtf_same_inode (&now, st);
}

gint
rtf_read_full (gint fd, guint64 offset, gpointer buf, gsize len,
    gboolean * short_read)
{
  gsize done = 0;

  *short_read = FALSE;
  while (done < len) {
    ssize_t n = pread (fd, (guint8 *) buf + done, len - done,
        (off_t) (offset + done));

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno;
    if (n == 0) {
      *short_read = TRUE;
      return EIO;
    }
    done += n;
  }
  return 0;
}
