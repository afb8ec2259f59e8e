/* rtframe: a spread recording read back as one stream - every location
 * its manifest names is opened as a recording of its own (a file or a
 * set, never a manifest: a manifest names recordings only, so there is no
 * recursion at all), proven to carry the manifest's recording id, and
 * their frames are put in frame-number order (RtfRecording.order): the
 * readers (rtframesrc, rtframe-verify, rtframe-recover, rtframe-dump) then
 * see one recording.
 *
 * A location is looked for where rtf_spread_manifest_candidates() says
 * (relative to the manifest first, then as stored); one found nowhere -
 * a disk dead or not mounted, files gone, or files of another recording
 * there - is listed in missing_locations with what was found, and the
 * others are read: the frames it held are the numbers missing.  Two
 * locations that turn out to be the same place, or the same file found
 * twice, refuse the manifest (each frame would be read twice). */
#include "rtf-recording.h"
#include "rtf-pattern.h"
#include "rtf-safe-open.h"
#include "rtf-spread-manifest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* What is gathered from every location before it becomes the recording */
typedef struct
{
  GArray *files, *leftovers, *missing_files, *missing_locations;
  GString *notes;
  GHashTable *places;           /* each location's directory and name */
} Gathered;

/* Moves the files of one location's recording into the spread's */
static void
take_files (Gathered * g, RtfRecording * one)
{
  g_array_append_vals (g->files, one->files, one->n_files);
  g_array_append_vals (g->leftovers, one->leftovers, one->n_leftovers);
  g_array_append_vals (g->missing_files, one->missing_files,
      one->n_missing_files);
  one->n_files = one->n_leftovers = one->n_missing_files = 0;
  if (one->note)
    g_string_append_printf (g->notes, "%s%s", g->notes->len ? "; " : "",
        one->note);
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
    rec->order[k++] = s->ref;
  }
  rec->n_frames = k;
  g_array_free (all, TRUE);
}

/* Why the recording found at a location is not the manifest's, or NULL */
static gchar *
not_the_manifests (const RtfSpreadManifest * m, const RtfRecording * one)
{
  gchar *theirs = NULL, *why;
  guint i;

  for (i = 0; i < one->n_files; i++) {
    const RtfRecordingFile *f = &one->files[i];

    if (f->state == RTF_FILE_OK && f->index->header.version == 1)
      return g_strdup_printf ("%s has an index of version 1, which names no "
          "recording: nothing shows it is the manifest's", f->path);
    if (theirs == NULL && f->has_mark && !rtf_recording_id_equal (&f->mark_id,
            &m->id))
      theirs = rtf_recording_id_to_string (&f->mark_id);
  }
  if (!rtf_recording_id_is_zero (&one->id)
      && !rtf_recording_id_equal (&one->id, &m->id)) {
    g_free (theirs);
    theirs = rtf_recording_id_to_string (&one->id);
  }
  if (theirs == NULL)
    return NULL;
  why = g_strdup_printf ("its files belong to another recording (%s) than "
      "the manifest names", theirs);
  g_free (theirs);
  return why;
}

/* A plain file at path that is itself a manifest (a manifest is never a
 * location, also under another name) */
static gboolean
is_manifest_file (const gchar * path)
{
  struct stat st;
  gchar *why = NULL;
  gint fd;
  gboolean manifest;

  if (rtf_pattern_check (path, &why) != RTF_PATTERN_NONE) {
    g_free (why);
    return FALSE;
  }
  fd = rtf_safe_open (path, FALSE, &st, &why);
  g_free (why);
  if (fd < 0)
    return FALSE;
  manifest = rtf_spread_manifest_probe (fd);
  close (fd);
  return manifest;
}

/* The recording of the manifest at one candidate path, or NULL with what
 * was found appended to whys */
static RtfRecording *
open_candidate (const RtfSpreadManifest * m, const gchar * path,
    gboolean require_index, GString * whys)
{
  GError *error = NULL;
  RtfRecording *one;
  gchar *why;

  g_string_append_printf (whys, "%s%s: ", whys->len ? "; " : "", path);
  if (is_manifest_file (path)) {
    g_string_append (whys, "a manifest, not a recording");
    return NULL;
  }
  one = rtf_recording_open_files (path, m->start_index, require_index, &error);
  if (one == NULL) {
    g_string_append (whys, error->message);
    g_clear_error (&error);
    return NULL;
  }
  if ((why = not_the_manifests (m, one)) != NULL) {
    g_string_append (whys, why);
    g_free (why);
    rtf_recording_free (one);
    return NULL;
  }
  return one;
}

/* Where path is: its directory's device and inode, and its name */
static gchar *
place_of (const gchar * path)
{
  gchar *dir = g_path_get_dirname (path), *base = g_path_get_basename (path);
  gchar *key = NULL;
  struct stat st;

  if (stat (dir, &st) == 0)
    key = g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT "/%s",
        (guint64) st.st_dev, (guint64) st.st_ino, base);
  g_free (dir);
  g_free (base);
  return key;
}

/* Location i: its recording from the first candidate that holds the
 * manifest's; else listed as missing.  FALSE with *error when it is a
 * place another location named already. */
static gboolean
open_location (const gchar * manifest, const RtfSpreadManifest * m, guint i,
    gboolean require_index, Gathered * g, GError ** error)
{
  gchar **cands = rtf_spread_manifest_candidates (manifest, m, i), *key;
  GString *whys = g_string_new (NULL);
  RtfRecording *one = NULL;
  RtfMissingLocation lost;
  guint c;

  for (c = 0; cands[c] && one == NULL; c++)
    one = open_candidate (m, cands[c], require_index, whys);
  if (one == NULL) {
    lost.location = g_strdup (m->locations[i]);
    lost.why = g_string_free (whys, FALSE);
    g_array_append_val (g->missing_locations, lost);
    g_strfreev (cands);
    return TRUE;
  }
  g_string_free (whys, TRUE);
  key = place_of (cands[c - 1]);
  if (key && g_hash_table_contains (g->places, key)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s names one "
        "location twice: \"%s\" and \"%s\" are the same place: not read",
        manifest, (const gchar *) g_hash_table_lookup (g->places, key),
        m->locations[i]);
    g_free (key);
    rtf_recording_free (one);
    g_strfreev (cands);
    return FALSE;
  }
  if (key)
    g_hash_table_insert (g->places, key, g_strdup (m->locations[i]));
  take_files (g, one);
  rtf_recording_free (one);
  g_strfreev (cands);
  return TRUE;
}

static gint
by_inode (gconstpointer a, gconstpointer b)
{
  const RtfRecordingFile *x = *(RtfRecordingFile * const *) a;
  const RtfRecordingFile *y = *(RtfRecordingFile * const *) b;

  if (x->data_st.st_dev != y->data_st.st_dev)
    return x->data_st.st_dev < y->data_st.st_dev ? -1 : 1;
  return x->data_st.st_ino < y->data_st.st_ino ? -1 :
      x->data_st.st_ino > y->data_st.st_ino;
}

/* The same file found through two locations (a link, a bind mount, two
 * names of one directory): FALSE with *error */
static gboolean
each_file_once (const gchar * manifest, GArray * files, GError ** error)
{
  GPtrArray *opened = g_ptr_array_new ();
  gboolean ok = TRUE;
  guint i;

  for (i = 0; i < files->len; i++) {
    RtfRecordingFile *f = &g_array_index (files, RtfRecordingFile, i);

    if (f->data_st.st_ino != 0)
      g_ptr_array_add (opened, f);
  }
  g_ptr_array_sort (opened, by_inode);
  for (i = 1; i < opened->len && ok; i++) {
    RtfRecordingFile *a = g_ptr_array_index (opened, i - 1);
    RtfRecordingFile *b = g_ptr_array_index (opened, i);

    if (by_inode (&a, &b) == 0) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s names one "
          "file twice (%s and %s): not read", manifest, a->path, b->path);
      ok = FALSE;
    }
  }
  g_ptr_array_unref (opened);
  return ok;
}

static void
gathered_init (Gathered * g)
{
  g->files = g_array_new (FALSE, TRUE, sizeof (RtfRecordingFile));
  g->leftovers = g_array_new (FALSE, TRUE, sizeof (RtfRecordingFile));
  g->missing_files = g_array_new (FALSE, TRUE, sizeof (RtfMissingFiles));
  g->missing_locations = g_array_new (FALSE, TRUE, sizeof (RtfMissingLocation));
  g->notes = g_string_new (NULL);
  g->places = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
gathered_clear (Gathered * g)
{
  guint i;

  for (i = 0; i < g->files->len; i++)
    rtf_recording_file_clear (&g_array_index (g->files, RtfRecordingFile, i));
  for (i = 0; i < g->leftovers->len; i++)
    rtf_recording_file_clear (&g_array_index (g->leftovers,
            RtfRecordingFile, i));
  for (i = 0; i < g->missing_files->len; i++)
    g_free (g_array_index (g->missing_files, RtfMissingFiles, i).location);
  for (i = 0; i < g->missing_locations->len; i++) {
    g_free (g_array_index (g->missing_locations, RtfMissingLocation,
            i).location);
    g_free (g_array_index (g->missing_locations, RtfMissingLocation, i).why);
  }
  g_array_free (g->files, TRUE);
  g_array_free (g->leftovers, TRUE);
  g_array_free (g->missing_files, TRUE);
  g_array_free (g->missing_locations, TRUE);
  g_string_free (g->notes, TRUE);
  g_hash_table_unref (g->places);
}

/* Every location missing: what was found at each */
static void
none_read (const gchar * manifest, Gathered * g, GError ** error)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < g->missing_locations->len; i++) {
    RtfMissingLocation *l = &g_array_index (g->missing_locations,
        RtfMissingLocation, i);

    g_string_append_printf (s, "; location %s: %s", l->location, l->why);
  }
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "no location of %s "
      "holds its recording%s", manifest, s->str);
  g_string_free (s, TRUE);
}

/* The gathered parts become the recording's */
static RtfRecording *
gathered_recording (Gathered * g, RtfSpreadManifest * m)
{
  RtfRecording *rec = g_new0 (RtfRecording, 1);

  rec->id = m->id;
  rec->locations = m->locations;
  m->locations = NULL;
  rec->n_files = g->files->len;
  rec->files = (RtfRecordingFile *) g_array_free (g->files, FALSE);
  rec->n_leftovers = g->leftovers->len;
  rec->leftovers = (RtfRecordingFile *) g_array_free (g->leftovers, FALSE);
  rec->n_missing_files = g->missing_files->len;
  rec->missing_files = (RtfMissingFiles *) g_array_free (g->missing_files,
      FALSE);
  rec->n_missing_locations = g->missing_locations->len;
  rec->missing_locations = (RtfMissingLocation *)
      g_array_free (g->missing_locations, FALSE);
  rec->note = g->notes->len ? g_string_free (g->notes, FALSE) : NULL;
  if (rec->note == NULL)
    g_string_free (g->notes, TRUE);
  g_hash_table_unref (g->places);
  merge_order (rec);
  rtf_recording_find_gaps (rec);
  return rec;
}

RtfRecording *
rtf_spread_recording_open (const gchar * manifest, gboolean require_index,
    GError ** error)
{
  RtfSpreadManifest m;
  Gathered g;
  gchar *why = NULL;
  guint i, n;
  RtfRecording *rec = NULL;

  if (!rtf_spread_manifest_read (manifest, &m, &why)) {
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, why);
    g_free (why);
    return NULL;
  }
  gathered_init (&g);
  n = g_strv_length (m.locations);
  for (i = 0; i < n; i++)
    if (!open_location (manifest, &m, i, require_index, &g, error))
      goto failed;
  if (g.missing_locations->len == n) {
    none_read (manifest, &g, error);
    goto failed;
  }
  if (!each_file_once (manifest, g.files, error))
    goto failed;
  rec = gathered_recording (&g, &m);
  rtf_spread_manifest_clear (&m);
  return rec;

  /* ERRORS */
failed:
  gathered_clear (&g);
  rtf_spread_manifest_clear (&m);
  return NULL;
}
