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
  GArray *first_seq;            /* at each location, the number of the first
                                 * frame placed there that it holds (not
                                 * failed over); G_MAXUINT64: none */
  GArray *first_file;           /* at each location, the number of its first
                                 * file found; G_MAXUINT64: none, or a file
                                 * (no pattern) */
  GPtrArray *paths;             /* where each location was found, or NULL */
  GArray *shorts;               /* RtfShortLocation */
  guint64 failed_over, out_of_order;
  GString *notes;
  GHashTable *places;           /* each location's directory and name */
} Gathered;

/* Moves the files of one location's recording into the spread's */
static void
take_files (Gathered * g, RtfRecording * one, guint location)
{
  guint i;

  for (i = 0; i < one->n_files; i++)
    one->files[i].location = location;
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
  one = rtf_recording_open_files_of (path, m->start_index, &m->id,
      require_index, &error);
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

/* The first frame placed at a location that it holds: the first record,
 * in the order of its files, not failed over there (a frame failed over
 * is written after later ones, so only these are in number order: every
 * frame in a file before it has a lower number) */
static guint64
first_placed (const RtfRecording * one)
{
  guint i;
  guint64 j;

  for (i = 0; i < one->n_files; i++) {
    const RtfRecordingFile *f = &one->files[i];

    if (f->state != RTF_FILE_OK)
      continue;
    for (j = 0; j < f->walk.frames; j++)
      if (!(f->index->records[j].flags & RTF_INDEX_REC_FAILED_OVER))
        return f->index->records[j].seq;
  }
  return G_MAXUINT64;
}

/* What a location found at path begins with: its first frame placed
 * there, its first file's number (a set) */
static void
note_firsts (Gathered * g, const RtfRecording * one, const gchar * path)
{
  guint64 seq = first_placed (one), number = G_MAXUINT64;

  if (one->n_files > 0 && rtf_pattern_check (path, NULL) == RTF_PATTERN_OK)
    number = one->files[0].number;
  g_array_append_val (g->first_seq, seq);
  g_array_append_val (g->first_file, number);
  g_ptr_array_add (g->paths, g_strdup (path));
}

static void add_note (Gathered * g, gchar * note);

/* Whether name is the hidden name rtframesink prepares a file of `shown`
 * under (rtf-output.c hidden_name(): ".<shown>.<8 hex digits>.rtfprep") */
static gboolean
hides (const gchar * name, const gchar * shown)
{
  gsize n = strlen (shown), i;

  if (name[0] != '.' || strncmp (name + 1, shown, n) != 0
      || name[1 + n] != '.' || strlen (name + 2 + n) != 8 + strlen (".rtfprep")
      || strcmp (name + 2 + n + 8, ".rtfprep") != 0)
    return FALSE;
  for (i = 0; i < 8; i++)
    if (!g_ascii_isxdigit (name[2 + n + i]))
      return FALSE;
  return TRUE;
}

/* The first file of the manifest's recording at the set `pattern`, still
 * under the hidden name it was prepared under because its name held an
 * earlier take: marked as that file of that recording and holding no
 * record.  Its first frame there would have given it its name, so none
 * was written at this location: a kill came before (the sink deletes it
 * at EOS).  Its path, or NULL. */
static gchar *
first_still_prepared (const RtfSpreadManifest * m, const gchar * pattern)
{
  gchar *first, *dir, *shown, *found = NULL;
  const gchar *name;
  GDir *d;

  if (rtf_pattern_check (pattern, NULL) != RTF_PATTERN_OK)
    return NULL;
  first = rtf_pattern_format (pattern, m->start_index);
  dir = g_path_get_dirname (first);
  shown = g_path_get_basename (first);
  d = g_dir_open (dir, 0, NULL);
  while (d && found == NULL && (name = g_dir_read_name (d))) {
    RtfRecordingFile f = { 0 };
    gchar *path;

    if (!hides (name, shown))
      continue;
    path = g_build_filename (dir, name, NULL);
    rtf_recording_file_identify (&f, path, m->start_index);
    if (!f.in_use && f.has_mark && f.mark_number == m->start_index
        && rtf_recording_id_equal (&f.mark_id, &m->id)
        && rtf_recording_leftover_holds_none (&f))
      found = g_strdup (path);
    rtf_recording_file_clear (&f);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  g_free (shown);
  g_free (dir);
  g_free (first);
  return found;
}

/* Location i, none of whose candidates holds the recording: a note when
 * one holds its first file still prepared, else missing */
static void
location_not_read (const RtfSpreadManifest * m, guint i, gchar ** cands,
    GString * whys, Gathered * g)
{
  RtfMissingLocation lost;
  gchar *prepared = NULL;
  guint64 none = G_MAXUINT64, zero = 0;
  guint c;

  for (c = 0; cands[c] && prepared == NULL; c++)
    prepared = first_still_prepared (m, cands[c]);
  if (prepared) {
    add_note (g, g_strdup_printf ("location %s holds no frame of this "
            "recording: its first file, %s, prepared at start beside an "
            "earlier file at its name, was never given that name, which its "
            "first frame there would have done (the recording ended without "
            "EOS before it); the earlier files there are not this "
            "recording's, left as they are", m->locations[i], prepared));
    g_free (prepared);
    g_string_free (whys, TRUE);
    g_array_append_val (g->found, zero);
  } else {
    lost.location = g_strdup (m->locations[i]);
    lost.why = g_string_free (whys, FALSE);
    lost.index = i;
    lost.frames = G_MAXUINT64;
    g_array_append_val (g->missing_locations, lost);
    g_array_append_val (g->found, none);
  }
  g_array_append_val (g->first_seq, none);
  g_array_append_val (g->first_file, none);
  g_ptr_array_add (g->paths, NULL);
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
  guint c;

  for (c = 0; cands[c] && one == NULL; c++)
    one = open_candidate (m, cands[c], require_index, whys);
  if (one == NULL) {
    location_not_read (m, i, cands, whys, g);
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
  note_firsts (g, one, cands[c - 1]);
  take_files (g, one, i);
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
  g->first_seq = g_array_new (FALSE, FALSE, sizeof (guint64));
  g->first_file = g_array_new (FALSE, FALSE, sizeof (guint64));
  g->paths = g_ptr_array_new_with_free_func (g_free);
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
  g_array_free (g->first_seq, TRUE);
  g_array_free (g->first_file, TRUE);
  g_ptr_array_unref (g->paths);
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

/* ---- a location whose files the sink deleted (max-files, min-free-space):
 * they are its OLDEST files, so what it holds must be its newest frames.
 * Two things tell a file lost after the recording from those: the file
 * numbers (the first `files_deleted` of the set are the ones deleted: a
 * first file found after them means files after them are gone too), and
 * the frame numbers (every frame in a file deleted there has a number
 * below the first frame placed there that it holds, and no location holds
 * it: so those numbers bound how many frames the deleted files held; the
 * frames written there beyond that bound are in no file). ---- */

/* Files of location i's set missing between the ones the sink deleted
 * and the first found: a fault (listed in missing_files) */
static void
lost_after_deleted (Gathered * g, guint i, guint64 start_index,
    const RtfSpreadLocationEnd * e)
{
  guint64 first = g_array_index (g->first_file, guint64, i);
  RtfMissingFiles m;

  if (e->files_deleted == 0 || first == G_MAXUINT64
      || start_index > G_MAXUINT64 - e->files_deleted
      || first <= start_index + e->files_deleted)
    return;
  m.location = g_strdup (g_ptr_array_index (g->paths, i));
  m.numbers.first = start_index + e->files_deleted;
  m.numbers.last = first - 1;
  g_array_append_val (g->missing_files, m);
}

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static gint
by_first_seq (gconstpointer a, gconstpointer b, gpointer data)
{
  GArray *first_seq = data;

  return compare_u64 (&g_array_index (first_seq, guint64, *(const guint *) a),
      &g_array_index (first_seq, guint64, *(const guint *) b));
}

/* The frame numbers every location holds, sorted, each once */
static GArray *
found_numbers (GArray * files)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint i, k;
  guint64 j;

  for (i = 0; i < files->len; i++) {
    const RtfRecordingFile *f = &g_array_index (files, RtfRecordingFile, i);

    if (f->state != RTF_FILE_OK)
      continue;
    for (j = 0; j < f->walk.frames; j++)
      g_array_append_val (all, f->index->records[j].seq);
  }
  g_array_sort (all, (GCompareFunc) compare_u64);
  for (i = 0, k = 0; i < all->len; i++)
    if (k == 0 || g_array_index (all, guint64, k - 1)
        != g_array_index (all, guint64, i))
      g_array_index (all, guint64, k++) = g_array_index (all, guint64, i);
  g_array_set_size (all, k);
  return all;
}

/* How many numbers below x no location holds (numbers start at 0) */
static guint64
unheld_below (GArray * found, guint64 x)
{
  guint lo = 0, hi = found->len;

  while (lo < hi) {             /* the first found number >= x */
    guint mid = (lo + hi) / 2;

    if (g_array_index (found, guint64, mid) < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return x - lo;
}

/* The frames written at location i that its files must still hold: the
 * ones reported written less what it holds, and less (a location that
 * left) those not yet durable when it left, which a failed disk may lose
 * as at a crash; 0 when none */
static guint64
unexplained (Gathered * g, guint i, const RtfSpreadLocationEnd * e)
{
  guint64 found = g_array_index (g->found, guint64, i);
  guint64 may_lose = e->state == RTF_SPREAD_END_ACTIVE ? 0 :
      e->frames - e->frames_durable;

  if (found == G_MAXUINT64 || found + may_lose >= e->frames)
    return 0;
  return e->frames - found - may_lose;
}

/* The locations whose files the sink deleted, taken in the order of their
 * first frame: the files deleted at them all held numbers below the last
 * one's first frame that no location holds, each number once - at most
 * unheld_below() of it for all of them together.  A location whose
 * frames written there exceed what it holds plus what the deleted files
 * of it and of those before it can have held is short: at least the rest
 * of its frames are in no file (short_locations, `written` less the most
 * its deleted files held). */
static void
deleted_cannot_explain (Gathered * g, gchar ** locations,
    const RtfSpreadLocationEnd * ends)
{
  GArray *found, *order = g_array_new (FALSE, FALSE, sizeof (guint));
  guint64 taken = 0;
  guint i;

  /* (a frame failed over may be written at two locations, and counted in
   * both figures: then a number does not stand for one frame written) */
  if (g->failed_over > 0) {
    g_array_free (order, TRUE);
    return;
  }
  for (i = 0; i < g->found->len; i++)
    if (ends[i].files_deleted > 0 && unexplained (g, i, &ends[i]) > 0
        && g_array_index (g->first_seq, guint64, i) != G_MAXUINT64)
      g_array_append_val (order, i);
  if (order->len == 0) {
    g_array_free (order, TRUE);
    return;
  }
  g_array_sort_with_data (order, by_first_seq, g->first_seq);
  found = found_numbers (g->files);
  for (i = 0; i < order->len; i++) {
    guint l = g_array_index (order, guint, i);
    guint64 need = unexplained (g, l, &ends[l]);
    guint64 room = unheld_below (found, g_array_index (g->first_seq,
            guint64, l));
    guint64 deleted = MIN (need, room > taken ? room - taken : 0);
    guint64 held = g_array_index (g->found, guint64, l);
    RtfShortLocation s = { NULL, held, held + need - deleted };

    taken += deleted;
    if (deleted == need)
      continue;
    s.location = g_strdup (locations[l]);
    g_array_append_val (g->shorts, s);
  }
  g_array_free (found, TRUE);
  g_array_free (order, TRUE);
}

/* Each location held against the final state read from `from`: the
 * locations not found that held no frame are notes, the others' frames
 * counted; a location with fewer frames than written there (the sink
 * deleted none of its files) is short.  FALSE (a note) when a location
 * holds more: the state is not used. */
static gboolean
apply_final (Gathered * g, gchar ** locations, guint64 start_index,
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
  for (i = 0; i < g->found->len; i++)
    lost_after_deleted (g, i, start_index, &ends[i]);
  deleted_cannot_explain (g, locations, ends);
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
  rec->start_index = m->start_index;
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
  g_array_free (g->first_seq, TRUE);
  g_array_free (g->first_file, TRUE);
  g_ptr_array_unref (g->paths);
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
  if (from && !apply_final (&g, m.locations, m.start_index, ends, from))
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
