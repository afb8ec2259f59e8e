/* The power-cut test's disks at a point (powercut-image.h) */
#include "powercut-image.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "powercut-run.h"

static gboolean
fail_errno (GError ** error, const gchar * what, const gchar * path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
      "%s %s: %s", what, path, g_strerror (errno));
  return FALSE;
}

PcImage *
pc_image_new (const PcScenario * sc, const gchar * work, guint64 size,
    GError ** error)
{
  PcImage *im = g_new0 (PcImage, 1);

  im->sc = sc;
  im->work = g_strdup (work);
  im->root = g_build_filename (work, "mnt", NULL);
  im->base_path = g_build_filename (work, "base.img", NULL);
  im->scratch_path = g_build_filename (work, "point.img", NULL);
  im->size = size;
  g_mkdir_with_parents (im->root, 0755);
  im->base_fd = open (im->base_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
      0644);
  if (im->base_fd < 0 || ftruncate (im->base_fd, (off_t) size) != 0) {
    fail_errno (error, "the base image", im->base_path);
    pc_image_free (im);
    return NULL;
  }
  return im;
}

void
pc_image_free (PcImage * im)
{
  if (im == NULL)
    return;
  pc_image_unmount (im, NULL);
  if (im->base_fd >= 0)
    close (im->base_fd);
  g_unlink (im->base_path);
  g_unlink (im->scratch_path);
  g_free (im->base_path);
  g_free (im->scratch_path);
  g_free (im->root);
  g_free (im->work);
  g_free (im);
}

gboolean
pc_image_advance (PcImage * im, const RtfLogWrites * log, guint64 to,
    GError ** error)
{
  if (to < im->applied)
    return TRUE;
  if (!rtf_log_writes_apply_range (log, im->applied, to, im->base_fd, error))
    return FALSE;
  im->applied = to + 1;
  return TRUE;
}

/* The data of the base into the scratch copy, range by range: holes are
 * not written (a replayed image is mostly holes) */
static gboolean
copy_data (gint from, gint to, guint64 size, GError ** error)
{
  off_t pos = 0;

  while ((guint64) pos < size) {
    off_t data = lseek (from, pos, SEEK_DATA), hole;

    if (data < 0 && errno == ENXIO)
      break;
    if (data < 0 || (hole = lseek (from, data, SEEK_HOLE)) < 0)
      return fail_errno (error, "seeking in", "the base image");
    while (data < hole) {
      off_t in = data, out = data;
      ssize_t n = copy_file_range (from, &in, to, &out, hole - data, 0);

      if (n <= 0)
        return fail_errno (error, "copying", "the base image");
      data += n;
    }
    pos = hole;
  }
  return TRUE;
}

gboolean
pc_image_scratch (PcImage * im, gint * fd, GError ** error)
{
  gint out = open (im->scratch_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
      0644);
  gboolean ok;

  if (out < 0 || ftruncate (out, (off_t) im->size) != 0) {
    if (out >= 0)
      close (out);
    return fail_errno (error, "the scratch image", im->scratch_path);
  }
  ok = copy_data (im->base_fd, out, im->size, error);
  if (ok && fd)
    *fd = out;
  else
    close (out);
  return ok;
}

static gboolean
attach (PcImage * im, guint i, GString * why)
{
  guint64 start, len;
  gchar *off, *lim, *out = NULL;
  const gchar *argv[] = { "losetup", "--find", "--show", "--offset", NULL,
    "--sizelimit", NULL, NULL, NULL
  };
  gint status;

  pc_slice_extent (&im->sc->slices[i], im->size / 512, &start, &len);
  off = g_strdup_printf ("%" G_GUINT64_FORMAT, start * 512);
  lim = g_strdup_printf ("%" G_GUINT64_FORMAT, len * 512);
  argv[4] = off;
  argv[6] = lim;
  argv[7] = im->scratch_path;
  status = pc_run_argv (argv, 60, &out);
  if (status == 0)
    im->loop[i] = g_strstrip (g_strdup (out));
  else
    g_string_append_printf (why, "losetup of slice %s: %s\n",
        im->sc->slices[i].name, out);
  g_free (out);
  g_free (off);
  g_free (lim);
  return status == 0;
}

static gboolean
mount_slice (PcImage * im, guint i, GString * why)
{
  const PcSlice *s = &im->sc->slices[i];
  gchar *dir = g_build_filename (im->root, s->name, NULL), *out = NULL;
  gchar *opts = NULL;
  guint j;
  gint status;

  for (j = 0; j < im->sc->n_slices; j++)
    if (g_strcmp0 (im->sc->slices[j].rt_of, s->name) == 0)
      opts = g_strdup_printf ("rtdev=%s", im->loop[j]);
  g_mkdir_with_parents (dir, 0755);
  {
    const gchar *argv[] = { "mount", "-t", "xfs", "-o", opts ? opts :
          "defaults", im->loop[i], dir, NULL
    };
    status = pc_run_argv (argv, 120, &out);
  }
  if (status == 0)
    im->mounted[i] = TRUE;
  else
    g_string_append_printf (why, "the XFS of slice %s does not mount: %s\n",
        s->name, out);
  g_free (out);
  g_free (opts);
  g_free (dir);
  return status == 0;
}

gboolean
pc_image_mount (PcImage * im, GString * why)
{
  guint i;

  for (i = 0; i < im->sc->n_slices; i++)
    if (!attach (im, i, why))
      return FALSE;
  for (i = 0; i < im->sc->n_slices; i++)
    if (im->sc->slices[i].rt_of == NULL && !mount_slice (im, i, why))
      return FALSE;
  return TRUE;
}

gboolean
pc_image_unmount (PcImage * im, GString * why)
{
  gboolean ok = TRUE;
  guint i;

  for (i = 0; i < im->sc->n_slices; i++) {
    gchar *dir = g_build_filename (im->root, im->sc->slices[i].name, NULL);

    if (im->mounted[i] && umount (dir) != 0) {
      ok = FALSE;
      if (why)
        g_string_append_printf (why, "umount %s: %s\n", dir,
            g_strerror (errno));
    } else {
      im->mounted[i] = FALSE;
    }
    g_free (dir);
  }
  for (i = 0; i < im->sc->n_slices; i++) {
    if (im->loop[i] && !im->mounted[i]) {
      pc_run (NULL, "losetup", "-d", im->loop[i], NULL);
      g_clear_pointer (&im->loop[i], g_free);
    }
  }
  return ok;
}
