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

/* A recording of a ring: what it is asked with (the writer's), and what
 * its start and end are told with (the file helper's: dir, error, lost) */
typedef struct
{
  guint64 keep;                 /* the recording (the owner's number) */
  const gchar *dir;             /* its directory (NULL: none could be
                                 * made: error, why) */
  guint64 first_seq, first_running_time;
  guint64 last_seq, last_running_time;  /* at its end */
  guint64 frames, bytes, prerecorded;   /* handed to the ring for it */
  guint64 lost;                 /* of those, deleted for min-free-space
                                 * before it could keep them */
  gint error;
  const gchar *why;
} RtfKeepInfo;

/* Names tried for a recording's directory before giving up */
#define RTF_FILE_KEEP_MAX_TRIES 10000

/* Makes a new directory of pattern (one integer conversion in its last
 * part) for a recording: numbered *next, or the next number whose name
 * is free - anything at a name (a directory, a link, a file: another
 * recording's, anyone's) is passed over and left as it is; the parents
 * are made as needed.  *next moves past the one made.  0 with *dir, or
 * an errno with *why. */
gint rtf_file_keep_new_dir (const gchar * pattern, guint64 * next,
    gchar ** dir, gchar ** why);

/* Links path, and its index (rtf_index_path()) when index_st is given,
 * into dir under their own base names - only while each is still the
 * inode `st` and `index_st` name (dev and inode: the file being written
 * changes its times) and is on dir's filesystem.  A name in dir already holding that inode is
 * linked already; any other file there is left as it is (EEXIST).
 * 0 or an errno, *why saying what; *kept_path the name in dir. */
gint rtf_file_keep_link (const gchar * path, const struct stat *st,
    const struct stat *index_st, const gchar * dir, gchar ** kept_path,
    gchar ** why);

G_END_DECLS
#endif /* __RTF_FILE_KEEP_H__ */
