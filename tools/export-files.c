/* rtframe-export: the files a run writes (export-files.h) */
#include "export-files.h"
#include "rtf-file.h"
#include "rtf-file-mark.h"

#include <errno.h>
#include <sys/file.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct
{
  gchar *path;                  /* its name */
  gchar *tmp;                   /* the hidden name it is written under */
  gint fd;                      /* while written, else -1 */
  gboolean named;               /* it took its name */
  gboolean holds_original;      /* --overwrite: the file it replaced is
                                 * at tmp (RENAME_EXCHANGE), put back if
                                 * the run fails, deleted if it succeeds */
} ExportFile;

struct ExportFiles
{
  gboolean overwrite;
  GArray *files;                /* of ExportFile, in the order made */
  GArray *protected;            /* struct stat: the recording's files */
};

ExportFiles *
export_files_new (gboolean overwrite)
{
  ExportFiles *files = g_new0 (ExportFiles, 1);

  files->overwrite = overwrite;
  files->files = g_array_new (FALSE, TRUE, sizeof (ExportFile));
  files->protected = g_array_new (FALSE, TRUE, sizeof (struct stat));
  return files;
}

void
export_files_protect (ExportFiles * files, const gchar * path)
{
  struct stat st;

  if (stat (path, &st) == 0)
    g_array_append_val (files->protected, st);
}

/* Why the regular file at path is never replaced, even with --overwrite
 * (the adversarial read of issue 26: -o one.raw --overwrite replaced the
 * recording being exported, and recover then cut its frames): a file of
 * the recording read, an rtframe index or manifest, a file carrying a
 * recording's mark, a file someone holds locked (a recording going on) */
static gchar *
never_replaced (ExportFiles * files, const gchar * path, const struct stat *st)
{
  RtfRecordingId id;
  guint64 number;
  gchar *why = NULL;
  guint i;
  gint fd;

  for (i = 0; i < files->protected->len; i++) {
    const struct stat *p = &g_array_index (files->protected, struct stat, i);

    if (p->st_dev == st->st_dev && p->st_ino == st->st_ino)
      return g_strdup_printf ("%s is a file of the recording exported", path);
  }
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return g_strdup_printf ("%s: %s", path, g_strerror (errno));
  if (rtf_file_kind (fd) != RTF_FILE_KIND_OTHER)
    why = g_strdup_printf ("%s is an rtframe index or manifest: never "
        "replaced", path);
  else if (rtf_file_mark_get (fd, &id, &number))
    why = g_strdup_printf ("%s is a file of an rtframe recording (it "
        "carries its mark): never replaced", path);
  else if (flock (fd, LOCK_SH | LOCK_NB) != 0)
    why = g_strdup_printf ("%s is in use (locked: a recording?): not "
        "replaced", path);
  close (fd);
  return why;
}

gboolean
export_files_may_write (ExportFiles * files, const gchar * path, gchar ** why)
{
  gchar *dir = g_path_get_dirname (path);
  struct stat st;

  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    *why = g_strdup_printf ("%s: its directory %s does not exist", path, dir);
  else if (lstat (path, &st) != 0) {
    if (errno != ENOENT)
      *why = g_strdup_printf ("%s: %s", path, g_strerror (errno));
  } else if (S_ISLNK (st.st_mode))
    *why = g_strdup_printf ("%s is a symbolic link: never written through, "
        "nor replaced", path);
  else if (!S_ISREG (st.st_mode))
    *why = g_strdup_printf ("%s exists and is not a regular file", path);
  else if (!files->overwrite)
    *why = g_strdup_printf ("%s exists (--overwrite replaces it)", path);
  else
    *why = never_replaced (files, path, &st);
  g_free (dir);
  return *why == NULL;
}

/* The hidden name beside path: <dir>/.<name>.XXXXXX.part */
static gchar *
tmp_template (const gchar * path)
{
  gchar *dir = g_path_get_dirname (path), *base = g_path_get_basename (path);
  gchar *name = g_strdup_printf (".%s.XXXXXX.part", base);
  gchar *tmp = g_build_filename (dir, name, NULL);

  g_free (dir);
  g_free (base);
  g_free (name);
  return tmp;
}

gint
export_files_create (ExportFiles * files, const gchar * path, gchar ** why)
{
  ExportFile f = { g_strdup (path), tmp_template (path), -1, FALSE };

  /* (O_CREAT | O_EXCL: a new file, never through a link) */
  f.fd = g_mkstemp_full (f.tmp, O_RDWR | O_CLOEXEC, 0666);
  if (f.fd < 0) {
    *why = g_strdup_printf ("cannot create a file beside %s: %s", path,
        g_strerror (errno));
    g_free (f.path);
    g_free (f.tmp);
    return -1;
  }
  g_array_append_val (files->files, f);
  return f.fd;
}

gboolean
export_files_write (gint fd, gconstpointer data, gsize len, gchar ** why)
{
  const guint8 *p = data;

  while (len > 0) {
    ssize_t n = write (fd, p, len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      *why = g_strdup_printf ("writing: %s", n < 0 ? g_strerror (errno) :
          "nothing written");
      return FALSE;
    }
    p += n;
    len -= n;
  }
  return TRUE;
}

static ExportFile *
file_of (ExportFiles * files, gint fd)
{
  guint i;

  for (i = 0; i < files->files->len; i++)
    if (g_array_index (files->files, ExportFile, i).fd == fd)
      return &g_array_index (files->files, ExportFile, i);
  g_return_val_if_reached (NULL);
}

/* The temporary file takes its name: without --overwrite never over
 * anything (RENAME_NOREPLACE; a link where the filesystem has no such
 * rename); with it, only over a regular file that may be replaced
 * (checked again here), which is kept under the temporary name until the
 * run ends (RENAME_EXCHANGE): a run that fails puts it back (the
 * adversarial read of issue 26: an interrupted --overwrite run deleted
 * the user's file it had replaced) */
static gboolean
take_name (ExportFiles * files, ExportFile * f, gchar ** why)
{
  struct stat st;
  gint err = 0;

  if (files->overwrite && lstat (f->path, &st) == 0) {
    if (export_files_may_write (files, f->path, why)) {
      if (renameat2 (AT_FDCWD, f->tmp, AT_FDCWD, f->path, RENAME_EXCHANGE) == 0)
        f->holds_original = TRUE;
      else
        err = errno;
    }
  } else if (renameat2 (AT_FDCWD, f->tmp, AT_FDCWD, f->path,
          RENAME_NOREPLACE) != 0) {
    err = errno;
    if (err == EINVAL || err == ENOSYS || err == ENOTSUP) {
      err = link (f->tmp, f->path) == 0 ? 0 : errno;
      if (err == 0)
        unlink (f->tmp);
    }
  }
  if (*why == NULL && err != 0)
    *why = g_strdup_printf ("%s: %s", f->path, err == EEXIST ?
        "it appeared while exporting (not replaced)" : g_strerror (err));
  return *why == NULL;
}

gboolean
export_files_commit (ExportFiles * files, gint fd, gchar ** why)
{
  ExportFile *f = file_of (files, fd);

  if (fsync (fd) != 0 || close (fd) != 0) {
    *why = g_strdup_printf ("%s: %s", f->path, g_strerror (errno));
    f->fd = -1;
    return FALSE;
  }
  f->fd = -1;
  f->named = take_name (files, f, why);
  return f->named;
}

void
export_files_abandon (ExportFiles * files)
{
  guint i;

  for (i = 0; i < files->files->len; i++) {
    ExportFile *f = &g_array_index (files->files, ExportFile, i);

    if (f->fd >= 0)
      close (f->fd);
    f->fd = -1;
    /* (what took its name is this run's too: a partial export goes; a
     * file it replaced comes back) */
    if (f->named && f->holds_original
        && renameat2 (AT_FDCWD, f->tmp, AT_FDCWD, f->path,
            RENAME_EXCHANGE) == 0)
      unlink (f->tmp);
    else if (!f->holds_original)
      unlink (f->named ? f->path : f->tmp);
    f->named = f->holds_original = FALSE;
  }
}

void
export_files_finish (ExportFiles * files)
{
  guint i;

  for (i = 0; i < files->files->len; i++) {
    ExportFile *f = &g_array_index (files->files, ExportFile, i);

    if (f->named && f->holds_original)
      unlink (f->tmp);          /* the file --overwrite replaced */
    f->holds_original = FALSE;
  }
}

void
export_files_free (ExportFiles * files)
{
  guint i;

  for (i = 0; i < files->files->len; i++) {
    ExportFile *f = &g_array_index (files->files, ExportFile, i);

    if (f->fd >= 0)
      close (f->fd);
    g_free (f->path);
    g_free (f->tmp);
  }
  g_array_free (files->files, TRUE);
  g_array_free (files->protected, TRUE);
  g_free (files);
}
