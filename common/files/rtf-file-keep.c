/* rtframe: keeping a file of a ring by linking it into a recording's
 * directory (rtf-file-keep.h).  The file is linked through a descriptor
 * opened on the name and proven to be the ring's inode, so a file put at
 * the ring's name meanwhile is never the one kept. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rtf-file-keep.h"
#include "rtf-index.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

gint
rtf_file_keep_new_dir (const gchar * pattern, guint64 * next, gchar ** dir,
    gchar ** why)
{
  gchar *parent = g_path_get_dirname (pattern);
  guint tries;
  gint err = 0;

  *dir = NULL;
  if (g_mkdir_with_parents (parent, 0755) != 0) {
    err = errno;
    *why = g_strdup_printf ("could not make the directory %s: %s", parent,
        g_strerror (err));
    g_free (parent);
    return err;
  }
  g_free (parent);
  for (tries = 0; tries < RTF_FILE_KEEP_MAX_TRIES; tries++, (*next)++) {
    gchar *path = rtf_pattern_format (pattern, *next);

    if (mkdir (path, 0755) == 0) {
      (*next)++;
      *dir = path;
      return 0;
    }
    err = errno;
    g_free (path);
    if (err != EEXIST)
      break;
  }
  *why = g_strdup_printf ("could not make a directory of %s: %s", pattern,
      err == EEXIST ? "every number tried is taken" : g_strerror (err));
  return err;
}

/* The inode open at fd linked at `to` (AT_EMPTY_PATH needs
 * CAP_DAC_READ_SEARCH; /proc's name of the descriptor does not) */
static gint
link_fd (gint fd, const gchar * to)
{
  gchar proc[64];

  if (linkat (fd, "", AT_FDCWD, to, AT_EMPTY_PATH) == 0)
    return 0;
  if (errno != ENOENT && errno != EPERM && errno != EINVAL)
    return errno;
  g_snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (linkat (AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) == 0)
    return 0;
  return errno;
}

/* One name: path (the inode of st) linked at dir/<its base name> */
static gint
link_one (const gchar * path, const struct stat *st, const gchar * dir,
    gchar ** kept_path, gchar ** why)
{
  gchar *base = g_path_get_basename (path);
  gchar *to = g_build_filename (dir, base, NULL);
  struct stat now, there;
  gint err = 0, fd = open (path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

  g_free (base);
  if (fd < 0 || fstat (fd, &now) != 0) {
    err = errno;
    *why = g_strdup_printf ("%s could not be opened to keep it: %s", path,
        g_strerror (err));
  } else if (now.st_dev != st->st_dev || now.st_ino != st->st_ino
      || !S_ISREG (now.st_mode)) {
    err = ESTALE;
    *why = g_strdup_printf ("%s is no longer the file the ring wrote: not "
        "kept", path);
  } else if ((err = link_fd (fd, to)) == EEXIST && lstat (to, &there) == 0
      && there.st_dev == now.st_dev && there.st_ino == now.st_ino) {
    err = 0;                    /* kept already (an earlier recording) */
  } else if (err == EEXIST) {
    *why = g_strdup_printf ("%s holds another file: left as it is, and %s "
        "not kept there", to, path);
  } else if (err == EXDEV) {
    *why = g_strdup_printf ("%s is on another filesystem than %s: a ring "
        "keeps its files by linking them, never by copying", dir, path);
  } else if (err != 0) {
    *why = g_strdup_printf ("could not link %s at %s: %s", path, to,
        g_strerror (err));
  }
  if (fd >= 0)
    close (fd);
  if (err == 0 && kept_path)
    *kept_path = to;
  else
    g_free (to);
  return err;
}

gint
rtf_file_keep_link (const gchar * path, const struct stat *st,
    const struct stat *index_st, const gchar * dir, gchar ** kept_path,
    gchar ** why)
{
  gboolean has_index = index_st != NULL;
  gchar *index = NULL, *kept_index = NULL, *kept = NULL;
  struct stat ist, made;
  gboolean was_there;
  gint err;

  *kept_path = NULL;
  if (has_index) {
    index = rtf_index_path (path);
    if (lstat (index, &ist) != 0) {
      err = errno;
      *why = g_strdup_printf ("the index %s is not there: %s not kept",
          index, path);
      g_free (index);
      return err;
    }
    /* (linked only while it is the index the ring wrote: link_one()) */
    ist.st_dev = index_st->st_dev;
    ist.st_ino = index_st->st_ino;
  }
  /* the data first: a name in dir that holds another file stops it
   * before anything is made there */
  kept = g_build_filename (dir, path + strlen (path) -
      strlen (strrchr (path, '/') ? strrchr (path, '/') + 1 : path), NULL);
  was_there = lstat (kept, &made) == 0;
  g_free (kept);
  kept = NULL;
  err = link_one (path, st, dir, &kept, why);
  if (err == 0 && has_index
      && (err = link_one (index, &ist, dir, &kept_index, why)) != 0) {
    /* no data file without its index: the link just made goes (only
     * that name, only while it is still that inode) */
    if (!was_there && lstat (kept, &made) == 0 && made.st_ino == st->st_ino
        && made.st_dev == st->st_dev)
      (void) unlink (kept);
    g_clear_pointer (&kept, g_free);
  }
  g_free (kept_index);
  g_free (index);
  *kept_path = kept;
  return err;
}
