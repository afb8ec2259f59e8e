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

gint
rtf_xflags_apply (gint fd, const RtfXflags * want)
{
  struct fsxattr fa;
  RtfXflags have;
  gint err;

  if (!want->realtime && want->extent_size == 0)
    return 0;
  if (want->extent_size > G_MAXUINT32)
    return EINVAL;
  if (ioctl (fd, FS_IOC_FSGETXATTR, &fa) < 0)
    return errno;
  if (want->realtime)
    fa.fsx_xflags |= FS_XFLAG_REALTIME;
  if (want->extent_size) {
    fa.fsx_xflags |= FS_XFLAG_EXTSIZE;
    fa.fsx_extsize = (guint32) want->extent_size;
  }
  if (ioctl (fd, FS_IOC_FSSETXATTR, &fa) < 0)
    return errno;
  if ((err = rtf_xflags_get (fd, &have)) != 0)
    return err;
  if ((want->realtime && !have.realtime)
      || (want->extent_size && have.extent_size != want->extent_size))
    return ENOTSUP;
  return 0;
}
