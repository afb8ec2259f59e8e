/* rtframe: one camera's part of an event or take, read through the take's
 * manifest (rtf-take-manifest.h) as a recording of its own: the camera's
 * files named there, each identified as rtf_recording_open() identifies a
 * file, and of their frames those the take holds (first-frame ..
 * last-frame), in frame-number order (a camera recording to several
 * locations has files at each, their frames interleaved; a frame written
 * again at another location after its own failed is read once) - what
 * rtframesrc plays and rtframe-export writes for "camera center of event
 * 12". */
#include "rtf-recording.h"
#include "rtf-take-manifest.h"

#include <string.h>

static RtfRecording *
refuse (GError ** error, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

     static RtfRecording *refuse (GError ** error, const gchar * fmt, ...)
{
  va_list ap;
  gchar *text;

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, text);
  g_free (text);
  return NULL;
}

/* The camera named, or the take's only one when none is */
static const RtfTakeCamera *
pick_camera (const RtfTakeManifest * m, const gchar * camera, gchar ** why)
{
  GString *names = g_string_new (NULL);
  const RtfTakeCamera *c = NULL;
  guint i;

  if (camera && *camera)
    c = rtf_take_manifest_camera (m, camera);
  else if (m->cameras->len == 1)
    c = g_ptr_array_index (m->cameras, 0);
  for (i = 0; c == NULL && i < m->cameras->len; i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "",
        ((const RtfTakeCamera *) g_ptr_array_index (m->cameras, i))->name);
  if (c == NULL && camera && *camera)
    *why = g_strdup_printf ("%s %s has no camera %s (its cameras: %s)",
        m->kind, m->id, camera, names->str);
  else if (c == NULL)
    *why = g_strdup_printf ("%s %s has more than one camera: name one "
        "(%s)", m->kind, m->id, names->str);
  g_string_free (names, TRUE);
  return c;
}

/* Of the frames in frame-number order, those of the take (first..last) */
static void
keep_the_takes (RtfRecording * rec, const RtfTakeCamera * c)
{
  guint64 n, k = 0;

  for (n = 0; n < rec->n_frames; n++) {
    guint64 seq = rtf_recording_frame (rec, n, NULL)->seq;

    if ((c->first_frame != RTF_TAKE_NONE && seq < c->first_frame)
        || (c->last_frame != RTF_TAKE_NONE && seq > c->last_frame))
      continue;
    rec->order[k++] = rec->order[n];
  }
  rec->n_frames = k;
}

/* A file named twice (the manifest's own fault: its frames would count
 * twice), or NULL */
static const gchar *
named_twice (gchar ** files)
{
  guint i, j;

  for (i = 0; files[i]; i++)
    for (j = 0; j < i; j++)
      if (g_str_equal (files[i], files[j]))
        return files[i];
  return NULL;
}

RtfRecording *
rtf_take_recording_open (const gchar * manifest, const gchar * camera,
    gboolean require_index, GError ** error)
{
  RtfTakeManifest *m = rtf_take_manifest_load (manifest, error);
  const RtfTakeCamera *c;
  RtfRecording *rec;
  const gchar *twice;
  gchar *why = NULL;
  guint f, n;

  if (m == NULL)
    return NULL;
  if ((c = pick_camera (m, camera, &why)) == NULL) {
    rtf_take_manifest_free (m);
    refuse (error, "%s: %s", manifest, why);
    g_free (why);
    return NULL;
  }
  if ((twice = named_twice (c->files)) != NULL) {
    refuse (error, "%s: camera %s's file %s is named twice", manifest,
        c->name, twice);
    rtf_take_manifest_free (m);
    return NULL;
  }
  n = g_strv_length (c->files);
  rec = g_new0 (RtfRecording, 1);
  rec->files = g_new0 (RtfRecordingFile, MAX (n, 1));
  for (f = 0; f < n; f++) {
    gchar *path = rtf_take_manifest_file_path (manifest, c->files[f]);
    RtfRecording *one = rtf_recording_open (path, 0, require_index, error);

    g_free (path);
    if (one == NULL || one->n_files != 1) {
      if (one)
        refuse (error, "%s: camera %s's file %s is a set, not a file",
            manifest, c->name, c->files[f]);
      else
        g_prefix_error (error, "%s: camera %s: ", manifest, c->name);
      rtf_recording_free (one);
      goto failed;
    }
    /* the file moves into rec */
    rec->files[rec->n_files] = one->files[0];
    memset (&one->files[0], 0, sizeof one->files[0]);
    one->n_files = 0;
    rtf_recording_free (one);
    rec->n_files++;
  }
  rtf_recording_order_by_number (rec);
  keep_the_takes (rec, c);
  rtf_take_manifest_free (m);
  return rec;

failed:
  rtf_recording_free (rec);
  rtf_take_manifest_free (m);
  return NULL;
}
