/* rtframe: one camera's part of an event or take, read through the take's
 * manifest (rtf-take-manifest.h) as a recording of its own: the camera's
 * files named there, each identified as rtf_recording_open() identifies a
 * file, and of their frames those the take holds (first-frame ..
 * last-frame), in order - what rtframesrc plays and rtframe-export writes
 * for "camera center of event 12". */
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

RtfRecording *
rtf_take_recording_open (const gchar * manifest, const gchar * camera,
    gboolean require_index, GError ** error)
{
  RtfTakeManifest *m = rtf_take_manifest_load (manifest, error);
  const RtfTakeCamera *c;
  RtfRecording *rec;
  GArray *order;
  gchar *why = NULL;
  guint64 last_seq = 0;
  gboolean any = FALSE;
  guint f, n;

  if (m == NULL)
    return NULL;
  if ((c = pick_camera (m, camera, &why)) == NULL) {
    rtf_take_manifest_free (m);
    refuse (error, "%s: %s", manifest, why);
    g_free (why);
    return NULL;
  }
  n = g_strv_length (c->files);
  rec = g_new0 (RtfRecording, 1);
  rec->files = g_new0 (RtfRecordingFile, MAX (n, 1));
  order = g_array_new (FALSE, FALSE, sizeof (RtfFrameRef));
  for (f = 0; f < n; f++) {
    gchar *path = rtf_take_manifest_file_path (manifest, c->files[f]);
    RtfRecording *one = rtf_recording_open (path, 0, require_index, error);
    guint64 r;

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
    for (r = 0; rec->files[rec->n_files].index
        && r < rec->files[rec->n_files].index->n_records; r++) {
      guint64 seq = rec->files[rec->n_files].index->records[r].seq;
      RtfFrameRef ref = { rec->n_files, r };

      if ((c->first_frame != RTF_TAKE_NONE && seq < c->first_frame)
          || (c->last_frame != RTF_TAKE_NONE && seq > c->last_frame))
        continue;
      /* the files in the order of their frames, none twice */
      if (any && seq <= last_seq) {
        refuse (error, "%s: camera %s's file %s holds frame %"
            G_GUINT64_FORMAT ", not after frame %" G_GUINT64_FORMAT " of the "
            "files before it (the manifest's files are out of order, or "
            "one twice)", manifest, c->name, c->files[f], seq, last_seq);
        rec->n_files++;
        goto failed;
      }
      g_array_append_val (order, ref);
      last_seq = seq;
      any = TRUE;
    }
    rec->n_files++;
  }
  rec->n_frames = order->len;
  rec->order = (RtfFrameRef *) g_array_free (order, FALSE);
  rtf_take_manifest_free (m);
  return rec;

failed:
  g_array_unref (order);
  rtf_recording_free (rec);
  rtf_take_manifest_free (m);
  return NULL;
}
