/* rtframe: XFS per-file allocation flags (realtime, extent size hint) */
#ifndef __RTF_XFLAGS_H__
#define __RTF_XFLAGS_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean realtime;            /* FS_XFLAG_REALTIME: data on the rt section */
  guint64 extent_size;          /* FS_XFLAG_EXTSIZE hint in bytes, 0: leave */
} RtfXflags;

/* Sets the flags asked for on fd, which must be an empty regular file
 * (XFS takes neither on a file with data), then reads them back.  0, or
 * an errno: EINVAL/EOPNOTSUPP/ENOTTY when the filesystem or kernel refuses
 * (no realtime section, not XFS, a hint that is no multiple of the
 * block or, on a realtime file, of the realtime extent); ENOTSUP when the
 * kernel accepted but did not keep them.  *hint_refused: the realtime
 * flag (if asked) was taken and the extent size hint was not. */
gint rtf_xflags_apply (gint fd, const RtfXflags * want,
    gboolean * hint_refused);

/* What fd has: 0 or an errno. */
gint rtf_xflags_get (gint fd, RtfXflags * have);

G_END_DECLS

#endif /* __RTF_XFLAGS_H__ */
