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

/* What is gathered from every location before it becomes the recording */
typedef struct
{
  GArray *files, *leftovers, *missing_files, *missing_locations;
  GArray *found;                /* frames read at each location
                                 * (G_MAXUINT64: none found) */
  GArray *shorts;               /* RtfShortLocation */
  guint64 failed_over, out_of_order;
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
  g->failed_over += one->failed_over;
  g->out_of_order += one->out_of_order;
  if (one->note)
    g_string_append_printf (g->notes, "%s%s", g->notes->len ? "; " : "",
        one->note);
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
    guint64 none = G_MAXUINT64;

    lost.location = g_strdup (m->locations[i]);
    lost.why = g_string_free (whys, FALSE);
    lost.index = i;
    lost.frames = G_MAXUINT64;
    g_array_append_val (g->missing_locations, lost);
    g_array_append_val (g->found, none);
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
  g_array_append_val (g->found, one->n_frames);
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
  g->found = g_array_new (FALSE, FALSE, sizeof (guint64));
  g->shorts = g_array_new (FALSE, TRUE, sizeof (RtfShortLocation));
  g->failed_over = g->out_of_order = 0;
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
  for (i = 0; i < g->shorts->len; i++)
    g_free (g_array_index (g->shorts, RtfShortLocation, i).location);
  g_array_free (g->shorts, TRUE);
  g_array_free (g->found, TRUE);
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

/* ---- the final state -------------------------------------------------- */

static void
add_note (Gathered * g, gchar * note)
{
  g_string_append_printf (g->notes, "%s%s", g->notes->len ? "; " : "", note);
  g_free (note);
}

/* A location holding more frames than the final state says were written
 * there: that state is not these files' (the stream went on after the
 * EOS that wrote it, and the process died before the next): its index,
 * or G_MAXUINT */
static guint
final_contradicted (Gathered * g, const RtfSpreadLocationEnd * ends)
{
  guint i;

  for (i = 0; i < g->found->len; i++) {
    guint64 found = g_array_index (g->found, guint64, i);

    if (found != G_MAXUINT64 && found > ends[i].frames)
      return i;
  }
  return G_MAXUINT;
}

/* A location not found that the final state says holds no frame, or
 * none made durable before it left (a disk that failed may lose those, as
 * at a crash), is no part missing: a note says so (TRUE); else the frames
 * it held are known */
static gboolean
holds_nothing (Gathered * g, RtfMissingLocation * lost,
    const RtfSpreadLocationEnd * e, const gchar * from)
{
  if (e->frames > 0 && (e->frames_durable > 0
          || e->state == RTF_SPREAD_END_ACTIVE)) {
    lost->frames = e->frames;
    return FALSE;
  }
  if (e->frames > 0) {
    add_note (g, g_strdup_printf ("location %s is not found: the %"
            G_GUINT64_FORMAT " frames written there were not yet durable "
            "when it left the recording (%s; the final state in %s), so a "
            "disk that failed may have lost them, as at a crash: their "
            "numbers are gaps", lost->location, e->frames,
            rtf_spread_end_state_name (e->state), from));
    g_free (lost->location);
    g_free (lost->why);
    return TRUE;
  }
  add_note (g, g_strdup_printf ("location %s holds no frame: %s (the final "
          "state in %s: %s, 0 frames written there)", lost->location,
          e->state == RTF_SPREAD_END_ACTIVE ? "the recording placed none "
          "there" : "it left the recording before its first", from,
          rtf_spread_end_state_name (e->state)));
  g_free (lost->location);
  g_free (lost->why);
  return TRUE;
}

/* Each location held against the final state read from `from`: the
 * locations not found that held no frame are notes, the others' frames
 * counted; a location with fewer frames than written there (the sink
 * deleted none of its files) is short.  FALSE (a note) when a location
 * holds more: the state is not used. */
static gboolean
apply_final (Gathered * g, gchar ** locations,
    const RtfSpreadLocationEnd * ends, const gchar * from)
{
  guint i, k, bad = final_contradicted (g, ends);

  if (bad != G_MAXUINT) {
    add_note (g, g_strdup_printf ("the final state in %s says %"
            G_GUINT64_FORMAT " frames were written at location %s, which "
            "holds %" G_GUINT64_FORMAT ": it is not these files' (the stream "
            "went on after that EOS?), not used", from, ends[bad].frames,
            locations[bad], g_array_index (g->found, guint64, bad)));
    return FALSE;
  }
  for (i = 0, k = 0; i < g->missing_locations->len; i++) {
    RtfMissingLocation *lost = &g_array_index (g->missing_locations,
        RtfMissingLocation, i);

    if (!holds_nothing (g, lost, &ends[lost->index], from))
      g_array_index (g->missing_locations, RtfMissingLocation, k++) = *lost;
  }
  g_array_set_size (g->missing_locations, k);
  for (i = 0; i < g->found->len; i++) {
    guint64 found = g_array_index (g->found, guint64, i);
    RtfShortLocation s = { NULL, found, ends[i].frames };

    if (found == G_MAXUINT64 || found >= ends[i].frames
        || ends[i].files_deleted > 0)
      continue;
    if (ends[i].state != RTF_SPREAD_END_ACTIVE
        && found >= ends[i].frames_durable) {
      add_note (g, g_strdup_printf ("location %s holds %" G_GUINT64_FORMAT
              " of the %" G_GUINT64_FORMAT " frames written there: it had "
              "made %" G_GUINT64_FORMAT " durable when it left the recording "
              "(%s; the final state in %s), a disk that failed may lose the "
              "others, as at a crash: their numbers are gaps", locations[i],
              found, ends[i].frames, ends[i].frames_durable,
              rtf_spread_end_state_name (ends[i].state), from));
      continue;
    }
    s.location = g_strdup (locations[i]);
    g_array_append_val (g->shorts, s);
  }
  return TRUE;
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
  rec->n_short_locations = g->shorts->len;
  rec->short_locations = (RtfShortLocation *) g_array_free (g->shorts, FALSE);
  g_array_free (g->found, TRUE);
  rec->failed_over = g->failed_over;
  rec->out_of_order = g->out_of_order;
  rec->note = g->notes->len ? g_string_free (g->notes, FALSE) : NULL;
  if (rec->note == NULL)
    g_string_free (g->notes, TRUE);
  g_hash_table_unref (g->places);
  rtf_recording_order_by_number (rec);
  rtf_recording_find_gaps (rec);
  return rec;
}

RtfRecording *
rtf_spread_recording_open (const gchar * manifest, gboolean require_index,
    GError ** error)
{
  RtfSpreadManifest m;
  RtfSpreadLocationEnd *ends = NULL;
  Gathered g;
  gchar *why = NULL, *from;
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
  from = rtf_spread_manifest_find_final (manifest, &m, &ends);
  if (from && !apply_final (&g, m.locations, ends, from))
    g_clear_pointer (&from, g_free);
  rec = gathered_recording (&g, &m);
  rec->final_manifest = from;
  rec->ends = from ? ends : NULL;
  if (from == NULL)
    g_free (ends);
  rtf_spread_manifest_clear (&m);
  return rec;

  /* ERRORS */
failed:
  gathered_clear (&g);
  rtf_spread_manifest_clear (&m);
  return NULL;
}
