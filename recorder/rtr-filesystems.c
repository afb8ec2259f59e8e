/* rtframe-record: the filesystems the cameras write to (rtr-filesystems.h) */
#include "rtr-filesystems.h"
#include "rtr-places.h"
#include "rtf-pattern.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

typedef struct
{
  RtrFilesystem fs;
  dev_t dev;
} Found;

static void
found_free (gpointer data)
{
  Found *found = data;

  g_free (found->fs.mount);
  g_free (found);
}

/* The mount point of a directory: up while the device stays the same */
static gchar *
mount_of (const gchar * dir, dev_t dev)
{
  gchar *at = g_strdup (dir);

  while (strcmp (at, "/") != 0) {
    gchar *up = g_path_get_dirname (at);
    struct stat st;

    if (stat (up, &st) != 0 || st.st_dev != dev) {
      g_free (up);
      break;
    }
    g_free (at);
    at = up;
  }
  return at;
}

/* Bytes a second the camera writes while it records: the size of its
 * frames (the sink's, from the caps: Bayer and every format it takes) at
 * the caps' frame rate, or at the rate frames arrive where the caps give
 * none (a variable rate, 0/1); 0 before the sink said */
static gdouble
camera_rate (const RtrCameraFigures * cf)
{
  guint64 size = 0;
  gdouble fps = 0;

  if (cf->stats == NULL
      || !gst_structure_get_uint64 (cf->stats, "frame-size", &size))
    return 0;
  if (!gst_structure_get_double (cf->stats, "frame-rate", &fps) || fps <= 0)
    fps = cf->arrival_rate;
  return size * fps;
}

/* The state the sink gives a location of its spread (NULL: none said) */
static const gchar *
location_state (const RtrCameraFigures * cf, guint k)
{
  const GValue *list = cf->stats ?
      gst_structure_get_value (cf->stats, "locations") : NULL;

  if (list == NULL || k >= gst_value_array_get_size (list))
    return NULL;
  return gst_structure_get_string (gst_value_get_structure
      (gst_value_array_get_value (list, k)), "state");
}

static guint64
min_free_space (const RtrCameraFigures * cf)
{
  guint64 v = 0;

  if (cf->stats)
    gst_structure_get_uint64 (cf->stats, "min-free-space", &v);
  return v == G_MAXUINT64 ? 0 : v;
}

static Found *
find_or_add (GPtrArray * out, const gchar * dir, const struct stat *st,
    const struct statvfs *vfs)
{
  Found *found;
  guint i;

  for (i = 0; i < out->len; i++) {
    found = g_ptr_array_index (out, i);
    if (found->dev == st->st_dev)
      return found;
  }
  found = g_new0 (Found, 1);
  found->dev = st->st_dev;
  found->fs.mount = mount_of (dir, st->st_dev);
  found->fs.free = (guint64) vfs->f_bavail * vfs->f_frsize;
  g_ptr_array_add (out, found);
  return found;
}

/* One place of a camera that writes `share` of its rate there */
static void
add_place (GPtrArray * out, const gchar * place, gdouble share,
    guint64 reserve, gboolean recycles)
{
  gchar *dir = g_path_get_dirname (place);
  gchar real[PATH_MAX];
  struct stat st;
  struct statvfs vfs;
  Found *found;

  if (realpath (dir, real) == NULL || stat (real, &st) != 0
      || statvfs (real, &vfs) != 0) {
    g_free (dir);
    return;
  }
  found = find_or_add (out, real, &st, &vfs);
  found->fs.recycling = (found->fs.writers == 0 || found->fs.recycling)
      && recycles;
  found->fs.rate += share;
  found->fs.reserve = MAX (found->fs.reserve, reserve);
  found->fs.writers++;
  g_free (dir);
}

GPtrArray *
rtr_filesystems_measure (const RtrFigures * f)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (found_free);
  guint i, k;

  for (i = 0; i < f->cameras->len; i++) {
    const RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
    gchar **places = rtr_places_of (cf->cam);
    guint n = g_strv_length (places), working = 0;

    /* a spread shares its frames over its locations that have not failed
     * about evenly (each takes the next frame when its queue is the
     * shortest); a failed one takes none: the others take its share (the
     * sink's locations are its property's, in order) */
    for (k = 0; k < n; k++)
      working += g_strcmp0 (location_state (cf, k), "failed") != 0;
    /* recycling by design: a continuous recording to a set whose guard
     * deletes its oldest files (a dashcam's loop); an event's or a take's
     * files deleted so are recordings lost, which the disk alerts tell */
    for (k = 0; k < n; k++)
      add_place (out, places[k],
          g_strcmp0 (location_state (cf, k), "failed") != 0 ?
          camera_rate (cf) / MAX (working, 1) : 0, min_free_space (cf),
          f->continuous && min_free_space (cf) > 0
          && rtf_pattern_check (places[k], NULL) != RTF_PATTERN_NONE);
    g_strfreev (places);
  }
  return out;
}

gdouble
rtr_filesystem_time_left (const RtrFilesystem * fs)
{
  if (fs->rate <= 0)
    return -1;
  return fs->free > fs->reserve ? (fs->free - fs->reserve) / fs->rate : 0;
}
