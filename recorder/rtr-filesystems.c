/* rtframe-record: the filesystems the cameras write to (rtr-filesystems.h) */
#include "rtr-filesystems.h"
#include "rtr-pipeline.h"
#include "rtr-places.h"

#include <gst/video/video.h>
#include <limits.h>
#include <stdlib.h>
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

/* Bytes a second the camera writes while it records: its frame size at
 * its frame rate from the caps it negotiated; else the rate it last
 * wrote at (a format without a frame rate) */
static gdouble
camera_rate (const RtrCameraFigures * cf, GstElement * pipeline)
{
  GstElement *sink = pipeline ? rtr_pipeline_sink (pipeline, cf->cam) : NULL;
  GstPad *pad = sink ? gst_element_get_static_pad (sink, "sink") : NULL;
  GstCaps *caps = pad ? gst_pad_get_current_caps (pad) : NULL;
  GstVideoInfo info;
  gdouble rate = cf->recording_rate;

  if (caps && gst_video_info_from_caps (&info, caps) && info.fps_n > 0
      && info.fps_d > 0)
    rate = (gdouble) info.size * info.fps_n / info.fps_d;
  gst_clear_caps (&caps);
  if (pad)
    gst_object_unref (pad);
  if (sink)
    gst_object_unref (sink);
  return rate;
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
add_place (GPtrArray * out, const gchar * place, gdouble share, guint64 reserve)
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
  found->fs.rate += share;
  found->fs.reserve = MAX (found->fs.reserve, reserve);
  found->fs.writers++;
  g_free (dir);
}

GPtrArray *
rtr_filesystems_measure (const RtrFigures * f, GstElement * pipeline)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (found_free);
  guint i, k;

  for (i = 0; i < f->cameras->len; i++) {
    const RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
    gchar **places = rtr_places_of (cf->cam);
    guint n = g_strv_length (places);

    /* a spread shares its frames over its locations about evenly (each
     * takes the next frame when its queue is the shortest) */
    for (k = 0; k < n; k++)
      add_place (out, places[k], camera_rate (cf, pipeline) / n,
          min_free_space (cf));
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
