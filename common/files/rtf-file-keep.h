/* rtframe: keeping a file of a ring - a file of the recording (and its
 * index) linked, under the same names, into a recording's directory, so
 * that the ring's turning, which deletes the ring's name, never takes
 * its frames.  A hard link: the frames are never copied, and a file two
 * overlapping recordings keep is on the disk once. */
#ifndef __RTF_FILE_KEEP_H__
#define __RTF_FILE_KEEP_H__

#include <glib.h>
#include <sys/stat.h>

G_BEGIN_DECLS

/* What linking one file into a recording's directory came to */
typedef struct
{
  guint64 keep;                 /* the recording (the owner's number) */
  const gchar *dir;             /* its directory */
  const gchar *path;            /* the ring's file */
  const gchar *kept_path;       /* ... its name in dir (NULL: none) */
  guint64 number;               /* in the set */
  guint64 first_seq, last_seq;  /* its frames (G_MAXUINT64: not known:
                                 * the last of a file being written, the
                                 * first of one that has none yet) */
  gint error;                   /* 0: linked, with its index */
  const gchar *why;             /* when error: what failed, for a person */
} RtfFileKept;

/* Makes dir (and its parents) if it is not there: 0 or an errno, with
 * *why.  A directory already there is used as it is; anything else at
 * the name is an error (ENOTDIR). */
gint rtf_file_keep_dir (const gchar * dir, gchar ** why);

/* Links path, and its index (rtf_index_path()) when has_index, into dir
 * under their own base names - only while path is still the inode `st`
 * names (dev and inode: the file being written changes its times) and
 * is on dir's filesystem.  A name in dir already holding that inode is
 * linked already; any other file there is left as it is (EEXIST).
 * 0 or an errno, *why saying what; *kept_path the name in dir. */
gint rtf_file_keep_link (const gchar * path, const struct stat *st,
    gboolean has_index, const gchar * dir, gchar ** kept_path, gchar ** why);

G_END_DECLS
#endif /* __RTF_FILE_KEEP_H__ */
