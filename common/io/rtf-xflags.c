/* rtframe: XFS per-file allocation flags through FS_IOC_FS[GS]ETXATTR. */
#include "rtf-xflags.h"

#include <errno.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

gint
rtf_xflags_get (gint fd, RtfXflags * have)
{
  struct fsxattr fa;

  if (ioctl (fd, FS_IOC_FSGETXATTR, &fa) < 0)
    return errno;
  have->realtime = (fa.fsx_xflags & FS_XFLAG_REALTIME) != 0;
  have->extent_size = (fa.fsx_xflags & FS_XFLAG_EXTSIZE) ? fa.fsx_extsize : 0;
  return 0;
}

/* One FS_IOC_FSSETXATTR: the flag (and the extent size) added to what fd
 * has */
static gint
set_flag (gint fd, guint32 flag, guint32 extent_size)
{
  struct fsxattr fa;

  if (ioctl (fd, FS_IOC_FSGETXATTR, &fa) < 0)
    return errno;
  fa.fsx_xflags |= flag;
  if (flag == FS_XFLAG_EXTSIZE)
    fa.fsx_extsize = extent_size;
  return ioctl (fd, FS_IOC_FSSETXATTR, &fa) < 0 ? errno : 0;
}

/* The realtime flag first, then the hint, each on its own: set together,
 * a hint that is no multiple of the realtime extent made the one EINVAL
 * read as "no realtime section" (tests/kernel/xfs-realtime.sh, Debian
 * 12's kernel: a 1.5 MiB hint on 1 MiB realtime extents) */
gint
rtf_xflags_apply (gint fd, const RtfXflags * want, gboolean * hint_refused)
{
  struct fsxattr before;
  RtfXflags have;
  gint err;

  *hint_refused = FALSE;
  if (!want->realtime && want->extent_size == 0)
    return 0;
  if (ioctl (fd, FS_IOC_FSGETXATTR, &before) < 0)
    return errno;
  if (want->realtime && (err = set_flag (fd, FS_XFLAG_REALTIME, 0)) != 0)
    return err;
  if (want->extent_size) {
    *hint_refused = TRUE;
    err = want->extent_size > G_MAXUINT32 ? EINVAL :
        set_flag (fd, FS_XFLAG_EXTSIZE, (guint32) want->extent_size);
    if (err != 0) {
      /* the file as it was: a user's file emptied by a replacing open
       * (RTF_FILE_REPLACE) is left at its name, and not left realtime
       * (the adversarial read of issue 27); the flag goes on an empty
       * file as it came */
      ioctl (fd, FS_IOC_FSSETXATTR, &before);
      return err;
    }
    *hint_refused = FALSE;
  }
  if ((err = rtf_xflags_get (fd, &have)) != 0)
    return err;
  if (want->realtime && !have.realtime)
    return ENOTSUP;
  if (want->extent_size && have.extent_size != want->extent_size) {
    *hint_refused = TRUE;
    return ENOTSUP;
  }
  return 0;
}
