/* rtframe: a spread recording read back as one stream - every location
 * its manifest names is opened as a recording of its own (a file or a
 * set), proven to carry the manifest's recording id, and their frames are
 * put in frame-number order (RtfRecording.order): the readers
 * (rtframesrc, rtframe-verify, rtframe-recover) then see one recording. */
#include "rtf-recording.h"
#include "rtf-spread-manifest.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  guint64 seq;
  RtfFrameRef ref;
} SeqRef;

static gint
by_seq (gconstpointer a, gconstpointer b)
{
  const SeqRef *x = a, *y = b;

  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  if (x->ref.file != y->ref.file)
    return x->ref.file < y->ref.file ? -1 : 1;
  return x->ref.record < y->ref.record ? -1 : x->ref.record > y->ref.record;
}

/* Moves the files of one location's recording into the spread's */
static void
take_files (GArray * files, GArray * leftovers, RtfRecording * one)
{
  g_array_append_vals (files, one->files, one->n_files);
  g_array_append_vals (leftovers, one->leftovers, one->n_leftovers);
  one->n_files = one->n_leftovers = 0;
}

/* Frame-number order over every OK file; a number twice is read once */
static void
merge_order (RtfRecording * rec)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (SeqRef));
  guint i, k;
  guint64 j;

  for (i = 0; i < rec->n_files; i++) {
    RtfRecordingFile *f = &rec->files[i];

    if (f->state != RTF_FILE_OK)
      continue;
    for (j = 0; j < f->walk.frames; j++) {
      SeqRef s = { f->index->records[j].seq, {i, j}
      };

      g_array_append_val (all, s);
    }
  }
  g_array_sort (all, by_seq);
  rec->order = g_new (RtfFrameRef, MAX (all->len, 1));
  for (i = 0, k = 0; i < all->len; i++) {
    SeqRef *s = &g_array_index (all, SeqRef, i);

    if (k > 0 && g_array_index (all, SeqRef, i - 1).seq == s->seq) {
      rec->duplicates++;
      continue;
    }
    if (k > 0)
      rec->missing += s->seq - g_array_index (all, SeqRef, i - 1).seq - 1;
    rec->order[k++] = s->ref;
  }
  rec->n_frames = k;
  g_array_free (all, TRUE);
}

/* One location: a recording whose id is the manifest's; FALSE with
 * *error otherwise */
static RtfRecording *
open_location (const RtfSpreadManifest * m, const gchar * location,
    gboolean require_index, GError ** error)
{
  RtfRecording *one = rtf_recording_open (location, m->start_index,
      require_index, error);

  if (one == NULL)
    return NULL;
  if (!rtf_recording_id_is_zero (&one->id)
      && !rtf_recording_id_equal (&one->id, &m->id)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s belongs to "
        "another recording than its manifest names: not read", location);
    rtf_recording_free (one);
    return NULL;
  }
  return one;
}

RtfRecording *
rtf_spread_recording_open (const gchar * manifest, gboolean require_index,
    GError ** error)
{
  RtfSpreadManifest m;
  RtfRecording *rec;
  GArray *files, *leftovers;
  gchar *why = NULL;
  guint i;

  if (!rtf_spread_manifest_read (manifest, &m, &why)) {
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, why);
    g_free (why);
    return NULL;
  }
  rec = g_new0 (RtfRecording, 1);
  files = g_array_new (FALSE, TRUE, sizeof (RtfRecordingFile));
  leftovers = g_array_new (FALSE, TRUE, sizeof (RtfRecordingFile));
  for (i = 0; m.locations[i]; i++) {
    RtfRecording *one = open_location (&m, m.locations[i], require_index,
        error);

    if (one == NULL)
      goto failed;
    take_files (files, leftovers, one);
    rtf_recording_free (one);
  }
  rec->id = m.id;
  rec->locations = m.locations;
  m.locations = NULL;
  rec->n_files = files->len;
  rec->files = (RtfRecordingFile *) g_array_free (files, FALSE);
  rec->n_leftovers = leftovers->len;
  rec->leftovers = (RtfRecordingFile *) g_array_free (leftovers, FALSE);
  merge_order (rec);
  return rec;

  /* ERRORS */
failed:
  {
    for (i = 0; i < files->len; i++)
      rtf_recording_file_clear (&g_array_index (files, RtfRecordingFile, i));
    for (i = 0; i < leftovers->len; i++)
      rtf_recording_file_clear (&g_array_index (leftovers, RtfRecordingFile,
              i));
    g_array_free (files, TRUE);
    g_array_free (leftovers, TRUE);
    g_free (rec);
    rtf_spread_manifest_clear (&m);
    return NULL;
  }
}
