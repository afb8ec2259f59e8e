/* rtframe: how the readers and tools open a file found at a path - never
 * through a symbolic link, never blocking (a FIFO), never a device - and
 * the advisory lock a recording holds on each file while it writes it. */
#ifndef __RTF_SAFE_OPEN_H__
#define __RTF_SAFE_OPEN_H__

#include <glib.h>
#include <sys/stat.h>

G_BEGIN_DECLS

/* Opens path, a regular file, for reading (or reading and writing): a
 * descriptor, with its fstat in *st; or -1 with *why saying what was
 * found instead (a link, a FIFO, a device, a directory, or the errno's
 * text), and errno set. */
gint rtf_safe_open (const gchar * path, gboolean writable, struct stat *st,
    gchar ** why);

/* Takes flock(2) on fd without waiting: 0, or EWOULDBLOCK when another
 * open of the file holds a conflicting lock (a recording writing it, a
 * tool repairing it), or another errno. */
gint rtf_lock (gint fd, gboolean exclusive);

/* Whether a and b are the same inode, unchanged in between (its ctime:
 * a number the filesystem reuses for a new file does not pass) */
gboolean rtf_same_inode (const struct stat *a, const struct stat *b);

/* Whether path is still the inode st describes (lstat, no link
 * followed): what a file is deleted or renamed on the strength of. */
gboolean rtf_same_file (const gchar * path, const struct stat *st);

/* Reads [offset, offset + len) of fd whole: 0, or an errno (EIO for a
 * file that ends before: *short_read TRUE then). */
gint rtf_read_full (gint fd, guint64 offset, gpointer buf, gsize len,
    gboolean * short_read);

G_END_DECLS

#endif /* __RTF_SAFE_OPEN_H__ */
