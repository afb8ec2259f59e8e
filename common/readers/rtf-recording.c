/* rtframe: reading a recording back through its indexes. */
#include "rtf-recording.h"
#include "rtf-pattern.h"
#include "rtf-safe-open.h"
#include "rtf-spread-manifest.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* A file of a set found in its directory: its number and its path */
typedef struct
{
  guint64 number;
  gchar *path;
} Numbered;

static gint
compare_numbered (gconstpointer a, gconstpointer b)
{
  guint64 x = ((const Numbered *) a)->number, y =
      ((const Numbered *) b)->number;

  return x < y ? -1 : x > y;
}

static void
numbered_clear (gpointer data)
{
  g_free (((Numbered *) data)->path);
}

/* The path of name, found in the directory of pattern: as
 * rtf_pattern_format() writes the pattern's directory */
static gchar *
path_in_dir (const gchar * pattern, guint64 n, const gchar * name)
{
  gchar *path = rtf_pattern_format (pattern, n);
  gchar *slash = strrchr (path, '/');
  gchar *out = slash ? g_strdup_printf ("%.*s/%s", (gint) (slash - path),
      path, name) : g_strdup (name);

  g_free (path);
  return out;
}

/* Two files of one number: only names with time fields can be (a file
 * numbered n made at two times); the readers take neither for the other */
static gboolean
refuse_twins (GArray * found, GError ** error)
{
  guint i;

  for (i = 1; i < found->len; i++) {
    const Numbered *a = &g_array_index (found, Numbered, i - 1);
    const Numbered *b = &g_array_index (found, Numbered, i);

    if (a->number == b->number) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST, "\"%s\" and "
          "\"%s\" are both file %" G_GUINT64_FORMAT " of the set: not "
          "read, not changed (move the one that is not the recording's "
          "away)", a->path, b->path, a->number);
      return FALSE;
    }
  }
  return TRUE;
}

/* The files that exist for pattern, sorted by number; and the hidden
 * prepared files a crash left for its names */
static GArray *
list_numbers (const gchar * pattern, GPtrArray * hidden, GError ** error)
{
  RtfPattern pat;
  GArray *found;
  GDir *d;
  const gchar *name;

  if (!rtf_pattern_parse (pattern, &pat)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "\"%s\" is not a "
        "pattern of file names", pattern);
    return NULL;
  }
  d = g_dir_open (pat.dir, 0, error);
  if (d == NULL) {
    rtf_pattern_clear (&pat);
    return NULL;
  }
  found = g_array_new (FALSE, FALSE, sizeof (Numbered));
  g_array_set_clear_func (found, numbered_clear);
  while ((name = g_dir_read_name (d)) != NULL) {
    gchar *hides = rtf_recording_hidden_of (name);
    Numbered f;

    if (rtf_pattern_match (&pat, name, &f.number)) {
      f.path = path_in_dir (pattern, f.number, name);
      g_array_append_val (found, f);
    } else if (hides && rtf_pattern_match (&pat, hides, &f.number)) {
      g_ptr_array_add (hidden, g_build_filename (pat.dir, name, NULL));
    }
    g_free (hides);
  }
  g_dir_close (d);
  rtf_pattern_clear (&pat);
  g_array_sort (found, compare_numbered);
  if (!refuse_twins (found, error)) {
    g_array_unref (found);
    return NULL;
  }
  return found;
}

/* Identifies each hidden prepared file: the number its name hides */
static void
add_leftovers (RtfRecording * rec, GPtrArray * hidden, const gchar * pattern)
{
  RtfPattern pat;
  guint i;

  if (hidden->len == 0 || !rtf_pattern_parse (pattern, &pat))
    return;
  rec->leftovers = g_new0 (RtfRecordingFile, hidden->len);
  for (i = 0; i < hidden->len; i++) {
    gchar *base = g_path_get_basename (g_ptr_array_index (hidden, i));
    gchar *hides = rtf_recording_hidden_of (base);
    guint64 n = 0;

    rtf_pattern_match (&pat, hides, &n);
    rtf_recording_file_identify (&rec->leftovers[i],
        g_ptr_array_index (hidden, i), n);
    g_free (hides);
    g_free (base);
  }
  rec->n_leftovers = hidden->len;
  rtf_pattern_clear (&pat);
}

/* ---- a set: which files found at its names are the recording's -------- */

/* Whose a file found at a name of the set is, as far as it shows */
typedef enum
{
  WHOSE_OURS,                   /* its index (version 2 on), or where it has
                                 * none its mark, names the set's id */
  WHOSE_LEGACY,                 /* an index of version 1 in a set of version
                                 * 1: nothing names a recording there */
  WHOSE_THEIRS,                 /* its index or mark names another id */
  WHOSE_NOBODYS,                /* nothing of a recording: not a regular file
                                 * (a FIFO, a link, a device, a directory),
                                 * or a file with neither an index nor a
                                 * mark (a user's file) */
  WHOSE_UNKNOWN                 /* proven neither way: unreadable, its index
                                 * damaged or another file's, no mark (a
                                 * filesystem without xattrs) - it may be
                                 * the recording's, so it is read (and its
                                 * faults reported) with it */
} Whose;

/* The id a file must carry to be the set's: rec's (its first index of
 * version 2 on), else the mark of a file before it (a set recorded with
 * index=false); FALSE for a set of version 1 (indexes that name no
 * recording, files without marks) or none known yet */
static gboolean
set_id (const RtfRecording * rec, GArray * files, RtfRecordingId * id,
    gboolean * legacy)
{
  guint i;

  *legacy = FALSE;
  if (!rtf_recording_id_is_zero (&rec->id)) {
    *id = rec->id;
    return TRUE;
  }
  for (i = 0; i < files->len; i++)
    if (g_array_index (files, RtfRecordingFile, i).state == RTF_FILE_OK) {
      *legacy = TRUE;           /* (an OK file of version 2 set rec->id) */
      return FALSE;
    }
  for (i = 0; i < files->len; i++) {
    const RtfRecordingFile *f = &g_array_index (files, RtfRecordingFile, i);

    if (f->has_mark) {
      *id = f->mark_id;
      return TRUE;
    }
  }
  return FALSE;
}

/* The id f names: its index's (version 2 on), else its mark's; NULL */
static const RtfRecordingId *
named_id (const RtfRecordingFile * f)
{
  if (f->state == RTF_FILE_OK && f->index->header.version != 1)
    return &f->index->header.recording_id;
  return f->has_mark ? &f->mark_id : NULL;
}

/* A file of the set whose data carries the recording's mark, on f's
 * filesystem (which then keeps extended attributes), or NULL */
static const RtfRecordingFile *
marked_beside (GArray * files, const RtfRecordingFile * f)
{
  guint i;

  for (i = 0; i < files->len; i++) {
    const RtfRecordingFile *o = &g_array_index (files, RtfRecordingFile, i);

    if (o->state == RTF_FILE_OK && o->proof == RTF_PROOF_MARK
        && o->data_st.st_dev == f->data_st.st_dev)
      return o;
  }
  return NULL;
}

/* f shows nothing of a recording (no mark, an index that is no rtframe
 * index or another file's) on a filesystem where the set's files carry
 * the mark: the sink marks every file it makes, before it names it, so f
 * is not one it made - a user's file at the name, with a user's file at
 * the index name (torture seeds 0x04d8b7ea2b98720b, 0xdddb56ee1e033f44).
 * Without a marked file beside it (no xattrs there) it stays unknown. */
static gboolean
unmarked_beside_marked (GArray * files, const RtfRecordingFile * f)
{
  return !f->has_mark && (f->state == RTF_FILE_NO_INDEX
      || f->state == RTF_FILE_FOREIGN_INDEX)
      && marked_beside (files, f) != NULL;
}

/* The first bytes of f's index (what its header holds) carry id: an index
 * of the recording whose header is damaged, not a user's file at its name
 * - f then stays unknown, a fault (adversarial read 3, F3: one byte over
 * the magic of an unmarked file's index made the set end before it with
 * a note, exit 0, where the same file with its index intact is a fault) */
static gboolean
index_names_id (const RtfRecordingFile * f, const RtfRecordingId * id)
{
  gchar *ipath = rtf_index_path (f->path), *why = NULL;
  guint8 head[4096];
  struct stat st;
  gboolean short_read, found = FALSE;
  gsize len;
  gint fd = rtf_safe_open (ipath, FALSE, &st, &why);

  g_free (why);
  g_free (ipath);
  if (fd < 0)
    return FALSE;
  len = MIN ((guint64) st.st_size, sizeof (head));
  if (len >= sizeof (id->bytes) && rtf_read_full (fd, 0, head, len,
          &short_read) == 0)
    found = memmem (head, len, id->bytes, sizeof (id->bytes)) != NULL;
  close (fd);
  return found;
}

static Whose
whose (const RtfRecording * rec, GArray * files, const RtfRecordingFile * f)
{
  const RtfRecordingId *named = named_id (f);
  RtfRecordingId id;
  gboolean legacy, known = set_id (rec, files, &id, &legacy);

  if (named && known)
    return rtf_recording_id_equal (named, &id) ? WHOSE_OURS : WHOSE_THEIRS;
  if (named && legacy && f->state != RTF_FILE_OK)
    return WHOSE_THEIRS;        /* a v1 set's files carry no marks */
  if (named)
    return files->len == 0 || legacy ? WHOSE_OURS : WHOSE_UNKNOWN;
  if (f->state == RTF_FILE_OK)  /* version 1 */
    return known ? WHOSE_UNKNOWN : WHOSE_LEGACY;
  if (f->state == RTF_FILE_NOT_REGULAR || f->index_absent)
    return WHOSE_NOBODYS;
  if (unmarked_beside_marked (files, f) && !(known
          && f->state == RTF_FILE_NO_INDEX && index_names_id (f, &id)))
    return WHOSE_NOBODYS;
  return WHOSE_UNKNOWN;
}

/* Adds f (identified) to the set */
static void
add_file (RtfRecording * rec, GArray * files, RtfRecordingFile * f)
{
  if (f->state == RTF_FILE_OK && f->index->header.version != 1
      && rtf_recording_id_is_zero (&rec->id))
    rec->id = f->index->header.recording_id;
  f->first_frame = rec->n_frames;
  if (f->state == RTF_FILE_OK)
    rec->n_frames += f->walk.frames;
  g_array_append_val (files, *f);
}

/* f comes after a gap in the file numbers (after file `last`): the files
 * in between are missing when f is proven the recording's; else the set
 * ends before f (FALSE), and the note says why */
static gboolean
after_gap (RtfRecording * rec, const RtfRecordingFile * f, Whose w,
    const gchar * location, guint64 last)
{
  RtfMissingFiles *m;

  if (w != WHOSE_OURS) {
    rec->note = g_strdup_printf ("%s, after a gap in the file numbers (%"
        G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT "), is not read with this "
        "recording: %s (--start-index %" G_GUINT64_FORMAT " reads it)",
        f->path, last + 1, f->number - 1, w == WHOSE_LEGACY ? "the files "
        "before carry no recording id (index version 1), so nothing shows it "
        "belongs to them" : "neither its index nor its mark names this "
        "recording", f->number);
    return FALSE;
  }
  rec->missing_files = g_renew (RtfMissingFiles, rec->missing_files,
      rec->n_missing_files + 1);
  m = &rec->missing_files[rec->n_missing_files++];
  m->location = g_strdup (location);
  m->numbers.first = last + 1;
  m->numbers.last = f->number - 1;
  return TRUE;
}

/* Whether f, found after file `last` of the set, goes on with it: after a
 * gap in the numbers only a file proven the recording's; without one, any
 * file but another recording's.  FALSE with the note saying why. */
static gboolean
joins (RtfRecording * rec, const RtfRecordingFile * f, Whose w,
    const gchar * location, guint64 last)
{
  gchar *theirs;

  if (f->number != last + 1)
    return after_gap (rec, f, w, location, last);
  if (w != WHOSE_THEIRS)
    return TRUE;
  theirs = rtf_recording_id_to_string (named_id (f));
  rec->note = g_strdup_printf ("%s belongs to another recording (%s) and is "
      "not read with this one (--start-index %" G_GUINT64_FORMAT " reads it)",
      f->path, theirs, f->number);
  g_free (theirs);
  return FALSE;
}

/* After a file that holds no frame (opened ahead, never written), the
 * set goes on only with the next file if it too was opened ahead, and
 * proven the recording's: a writer whose current file got no frame (a
 * stall held its first) has the next one open ahead beside it.  Read
 * as the set's, rtframe-recover deletes both (torture 0x7e3fbac3a7829dbb:
 * it deleted the first only, and the second then read as a file after
 * a missing one). */
static gboolean
opened_ahead_too (const RtfRecordingFile * f, Whose w, guint64 last)
{
  return f->number == last + 1 && f->state == RTF_FILE_NEVER_WRITTEN
      && w == WHOSE_OURS;
}

/* The files from `cut` on come after the last one proven the recording's
 * and the first of them is nobody's (a FIFO, a user's file with neither
 * index nor mark): the sink never touches a file of a set that the
 * recording does not reach (and fails at a FIFO), so the set ends before
 * them, with a note; a file of the recording that lost its index keeps
 * its mark, and stays (UNKNOWN or OURS). */
static void
end_before (RtfRecording * rec, GArray * files, guint cut)
{
  RtfRecordingFile *f = &g_array_index (files, RtfRecordingFile, cut);
  guint i;

  g_free (rec->note);
  rec->note = g_strdup_printf ("%s is not this recording's: it %s%s; the "
      "set ends before it (it is left as it is)", f->path,
      f->state == RTF_FILE_NOT_REGULAR ? f->why : f->index_absent ? "has no "
      "index, and no mark of this recording" : "carries no rtframe mark while "
      "the set's files beside it do, and ", f->state == RTF_FILE_NOT_REGULAR
      || f->index_absent ? "" : f->why);
  for (i = cut; i < files->len; i++)
    rtf_recording_file_clear (&g_array_index (files, RtfRecordingFile, i));
  g_array_set_size (files, cut);
}

/* The id the file at path names, read cheaply (its index's header, of
 * version 2 on, else its mark), as named_id() does once it is identified:
 * FALSE when it names none */
static gboolean
peek_id (const gchar * path, RtfRecordingId * id)
{
  gchar *why = NULL, *index_path = rtf_index_path (path);
  RtfIndexHeader h;
  struct stat st;
  gboolean named = FALSE, short_read;
  guint64 number;
  guint8 *head;
  gsize len;
  gint fd = rtf_safe_open (index_path, FALSE, &st, &why);

  g_clear_pointer (&why, g_free);
  if (fd >= 0) {
    len = MIN ((guint64) st.st_size, RTF_INDEX_MAX_HEADER);
    head = g_malloc (MAX (len, 1));
    memset (&h, 0, sizeof (h));
    if (rtf_read_full (fd, 0, head, len, &short_read) == 0
        && rtf_index_decode_header (head, len, &h, &why)
        && h.version != RTF_INDEX_VERSION_1) {
      *id = h.recording_id;
      named = TRUE;
    }
    rtf_index_header_clear (&h);
    g_clear_pointer (&why, g_free);
    g_free (head);
    close (fd);
  }
  g_free (index_path);
  if (named)
    return TRUE;
  fd = rtf_safe_open (path, FALSE, &st, &why);
  g_free (why);
  if (fd < 0)
    return FALSE;
  named = rtf_file_mark_get (fd, id, &number);
  close (fd);
  return named;
}

/* The recording a set is read as, when the caller does not name it (a
 * manifest does): the one the lowest-numbered file found at its names
 * (from start_index on) names - so that a file below the recording's
 * first that names none (a user's, left below the files max-files kept:
 * the sink never reaches that name again) is skipped, never taken for
 * the set with the recording's own files dropped after it.  A new take
 * starts at the first number and replaces the names upwards, so the
 * files of an earlier, longer take left after its last end the set (the
 * set was the recording most files named, from S1's fix on: then the new
 * take's own first file was "not this recording's"); a take's file below
 * start-index is read, the note naming --start-index for the others.
 * FALSE when no file names one (version 1, nothing identified). */
static gboolean
choose_id (const gchar * location, GArray * numbers, guint64 start_index,
    RtfRecordingId * chosen)
{
  guint i;

  for (i = 0; i < numbers->len; i++) {
    const Numbered *f = &g_array_index (numbers, Numbered, i);

    if (f->number >= start_index && peek_id (f->path, chosen))
      return TRUE;
  }
  return FALSE;
}

/* A file before the set's first that is not the recording's (it names
 * another, or nothing: a user's file, a FIFO): skipped, a note says so */
static gboolean
skipped_before (GString * notes, const RtfRecordingFile * f, Whose w,
    const RtfRecordingId * chosen)
{
  const RtfRecordingId *named = named_id (f);
  gchar *theirs;

  if (named ? rtf_recording_id_equal (named, chosen) : w != WHOSE_NOBODYS)
    return FALSE;
  theirs = named ? rtf_recording_id_to_string (named) : NULL;
  g_string_append_printf (notes, "%s%s, before the recording's first file, "
      "is not this recording's: %s%s%s; it is not read with it (it is left "
      "as it is)", notes->len ? "; " : "", f->path, named ? "it belongs to "
      "another recording (" : f->state == RTF_FILE_NOT_REGULAR ? f->why :
      "it has no index, and no mark of a recording", named ? theirs : "",
      named ? ")" : "");
  g_free (theirs);
  return TRUE;
}

/* The notes of files skipped before the set go first */
static void
prepend_notes (RtfRecording * rec, GString * notes)
{
  if (notes->len && rec->note)
    g_string_append_printf (notes, "; %s", rec->note);
  if (notes->len) {
    g_free (rec->note);
    rec->note = g_string_free (notes, FALSE);
  } else
    g_string_free (notes, TRUE);
}

static gboolean
open_set (RtfRecording * rec, GArray * files, const gchar * location,
    guint64 start_index, const RtfRecordingId * wanted, GError ** error)
{
  GPtrArray *hidden = g_ptr_array_new_with_free_func (g_free);
  GArray *numbers = list_numbers (location, hidden, error);
  gboolean started = FALSE, have_chosen, ahead_end = FALSE;
  GString *skipped;
  RtfRecordingId chosen;
  guint64 last = 0;
  guint i, cut = G_MAXUINT;

  if (numbers == NULL) {
    g_ptr_array_unref (hidden);
    return FALSE;
  }
  add_leftovers (rec, hidden, location);
  g_ptr_array_unref (hidden);
  if (wanted)
    chosen = *wanted;
  have_chosen = wanted ? TRUE : choose_id (location, numbers, start_index,
      &chosen);
  skipped = g_string_new (NULL);
  for (i = 0; i < numbers->len; i++) {
    const Numbered *found = &g_array_index (numbers, Numbered, i);
    guint64 n = found->number;
    RtfRecordingFile f;
    Whose w;

    if (n < start_index || (started && n == last))
      continue;
    rtf_recording_file_identify (&f, found->path, n);
    w = whose (rec, files, &f);
    if (!started && have_chosen && skipped_before (skipped, &f, w, &chosen)) {
      rtf_recording_file_clear (&f);
      continue;
    }
    /* (the chosen recording's own files, after a gap, are the set's even
     * when a file without an id began it) */
    if (have_chosen && named_id (&f)
        && rtf_recording_id_equal (named_id (&f), &chosen))
      w = WHOSE_OURS;
    if (started && (ahead_end ? !opened_ahead_too (&f, w, last) :
            !joins (rec, &f, w, location, last))) {
      rtf_recording_file_clear (&f);
      break;
    }
    /* nobody's after the set's files: it ends there unless a file proven
     * the recording's comes after (then it is one of the set, reported) */
    if (w == WHOSE_NOBODYS && started && cut == G_MAXUINT)
      cut = files->len;
    else if (w == WHOSE_OURS || w == WHOSE_LEGACY)
      cut = G_MAXUINT;
    add_file (rec, files, &f);
    started = TRUE;
    last = n;
    /* opened ahead for a split that never came: the set ends with it, or,
     * when it is proven the recording's, with the files opened ahead
     * after it (one not proven starts no run: adversarial read of
     * ccd141f, F3) */
    if (f.state == RTF_FILE_NEVER_WRITTEN && w != WHOSE_NOBODYS
        && files->len > 1) {
      if (w != WHOSE_OURS)
        break;
      ahead_end = TRUE;
    }
  }
  g_array_unref (numbers);
  if (cut != G_MAXUINT)
    end_before (rec, files, cut);
  prepend_notes (rec, skipped);
  if (!started) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
        "no file named by \"%s\" (from number %" G_GUINT64_FORMAT ")",
        location, start_index);
    return FALSE;
  }
  return TRUE;
}

/* A file of the set at `location` a player cannot read is listed with the
 * files missing (the same warning, in its own words: rtf-check.c) */
static void
list_unread (RtfRecording * rec, const gchar * location,
    const RtfRecordingFile * f)
{
  RtfMissingFiles *m = rec->n_missing_files ?
      &rec->missing_files[rec->n_missing_files - 1] : NULL;

  if (m && g_strcmp0 (m->location, location) == 0
      && m->numbers.last + 1 == f->number) {
    m->numbers.last = f->number;
    return;
  }
  rec->missing_files = g_renew (RtfMissingFiles, rec->missing_files,
      rec->n_missing_files + 1);
  m = &rec->missing_files[rec->n_missing_files++];
  m->location = g_strdup (location);
  m->numbers.first = m->numbers.last = f->number;
}

/* Whether a player plays the set past file i, which is not OK: it carries
 * the recording's own mark (its data is the recording's, its index lost
 * or damaged) and a file after it holds frames to play, so it is a part
 * missing in the middle, as the file lost whole would be.  A file proven
 * the recording's by nothing (adversarial 2, U1), or the set's last
 * (nothing after it to play), is refused as before. */
static gboolean
skipped_when_played (const RtfRecording * rec, guint i)
{
  const RtfRecordingFile *f = &rec->files[i];
  guint j;

  if (!f->has_mark || rtf_recording_id_is_zero (&rec->id)
      || !rtf_recording_id_equal (&f->mark_id, &rec->id))
    return FALSE;
  for (j = i + 1; j < rec->n_files; j++)
    if (rec->files[j].state == RTF_FILE_OK && rec->files[j].walk.frames > 0)
      return TRUE;
  return FALSE;
}

/* For a player: every file whole and paired (never-written ones aside);
 * a file in the middle of a set that carries the recording's mark but
 * cannot be read (its index lost: adversarial 2, N2) is skipped as a file
 * missing there is - the others play, a warning names it (listed in
 * missing_files) */
static gboolean
all_readable (RtfRecording * rec, const gchar * location, GError ** error)
{
  gboolean set = rtf_pattern_check (location, NULL) == RTF_PATTERN_OK;
  guint i;

  for (i = 0; i < rec->n_files; i++) {
    const RtfRecordingFile *f = &rec->files[i];

    if (f->state == RTF_FILE_OK || f->state == RTF_FILE_NEVER_WRITTEN)
      continue;
    if (!set || !skipped_when_played (rec, i)) {
      g_set_error (error, G_FILE_ERROR, f->state == RTF_FILE_UNREADABLE ?
          G_FILE_ERROR_NOENT : G_FILE_ERROR_INVAL, "%s: %s", f->path, f->why);
      return FALSE;
    }
  }
  for (i = 0; i < rec->n_files; i++)
    if (rec->files[i].state != RTF_FILE_OK
        && rec->files[i].state != RTF_FILE_NEVER_WRITTEN)
      list_unread (rec, location, &rec->files[i]);
  return TRUE;
}

static void count_failed_over (RtfRecording * rec);

/* The sink marks every file it makes: in a set whose other files carry
 * the mark on the same filesystem, a file without it whose index only
 * names it (RTF_PROOF_NAME) is not proven the recording's - a file put at
 * its name after the recording (adversarial review 2, U1).  It is read
 * as no file of it (a fault for verify, refused by recover and by a
 * player).  The set's frame count follows. */
static void
refuse_unmarked (RtfRecording * rec, GArray * files)
{
  guint i;

  rec->n_frames = 0;
  for (i = 0; i < files->len; i++) {
    RtfRecordingFile *f = &g_array_index (files, RtfRecordingFile, i);
    const RtfRecordingFile *o;

    if (f->state == RTF_FILE_OK && f->proof == RTF_PROOF_NAME
        && (o = marked_beside (files, f)) != NULL) {
      rtf_recording_file_set_state (f, RTF_FILE_UNPROVEN,
          g_strdup_printf ("it carries no "
              "rtframe mark while %s on the same filesystem does: only its "
              "name ties it to the index beside it (a file put at its name "
              "after the recording?)", o->path));
      f->proof = RTF_PROOF_NONE;
      g_clear_pointer (&f->index, rtf_index_free);
      rtf_index_walk_clear (&f->walk);
      memset (&f->walk, 0, sizeof (f->walk));
    }
    f->first_frame = rec->n_frames;
    if (f->state == RTF_FILE_OK)
      rec->n_frames += f->walk.frames;
  }
}

/* Marks each file a later file of the same set and recording follows
 * with records: it was closed before that one began, so its tail is no
 * crash's (RtfRecordingFile.has_successor) */
static void
mark_successors (GArray * files)
{
  guint i, j;

  for (i = 0; i < files->len; i++) {
    RtfRecordingFile *f = &g_array_index (files, RtfRecordingFile, i);

    for (j = i + 1; j < files->len && f->state == RTF_FILE_OK; j++) {
      const RtfRecordingFile *o = &g_array_index (files, RtfRecordingFile, j);

      if (o->state == RTF_FILE_OK && o->index->n_records > 0
          && rtf_recording_id_equal (&o->index->header.recording_id,
              &f->index->header.recording_id)) {
        f->has_successor = TRUE;
        break;
      }
    }
  }
}

RtfRecording *
rtf_recording_open_files (const gchar * location, guint64 start_index,
    gboolean require_index, GError ** error)
{
  return rtf_recording_open_files_of (location, start_index, NULL,
      require_index, error);
}

RtfRecording *
rtf_recording_open_files_of (const gchar * location, guint64 start_index,
    const RtfRecordingId * wanted, gboolean require_index, GError ** error)
{
  RtfRecording *rec;
  GArray *files;
  gchar *why = NULL;
  gboolean ok = TRUE;

  rec = g_new0 (RtfRecording, 1);
  files = g_array_new (FALSE, TRUE, sizeof (RtfRecordingFile));

  switch (rtf_pattern_check (location, &why)) {
    case RTF_PATTERN_NONE:{
      RtfRecordingFile f;

      rtf_recording_file_identify (&f, location, G_MAXUINT64);
      f.alone = TRUE;
      if (f.state == RTF_FILE_UNREADABLE) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: %s",
            location, f.why);
        rtf_recording_file_clear (&f);
        ok = FALSE;
        break;
      }
      if (f.state == RTF_FILE_OK)
        rec->n_frames = f.walk.frames;
      if (f.state == RTF_FILE_OK && f.index->header.version != 1)
        rec->id = f.index->header.recording_id;
      g_array_append_val (files, f);
      break;
    }
    case RTF_PATTERN_INVALID:
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, why);
      g_free (why);
      ok = FALSE;
      break;
    case RTF_PATTERN_OK:
      ok = open_set (rec, files, location, start_index, wanted, error);
      if (ok) {
        refuse_unmarked (rec, files);
        mark_successors (files);
      }
      break;
  }
  rec->n_files = files->len;
  rec->files = (RtfRecordingFile *) g_array_free (files, FALSE);
  if (ok && require_index)
    ok = all_readable (rec, location, error);
  if (!ok) {
    rtf_recording_free (rec);
    return NULL;
  }
  /* a frame failed over is read where its number puts it, as in a
   * spread read through its manifest */
  count_failed_over (rec);
  if (rec->out_of_order)
    rtf_recording_order_by_number (rec);
  rtf_recording_find_gaps (rec);
  return rec;
}

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

void
rtf_recording_order_by_number (RtfRecording * rec)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (SeqRef));
  guint i;
  guint64 j, k;

  for (i = 0; i < rec->n_files; i++) {
    RtfRecordingFile *f = &rec->files[i];

    /* (a file without an index has no numbers to order by) */
    if (f->state != RTF_FILE_OK || f->index == NULL)
      continue;
    for (j = 0; j < f->walk.frames; j++) {
      SeqRef s = { f->index->records[j].seq, {i, j}
      };

      g_array_append_val (all, s);
    }
  }
  g_array_sort (all, by_seq);
  g_free (rec->order);
  rec->order = g_new (RtfFrameRef, MAX (all->len, 1));
  rec->duplicates = 0;
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

/* Counts the records of frames failed over (rec->failed_over) and, in the
 * order of the files, those of them below a number before them
 * (rec->out_of_order): a frame a location that left handed back is
 * appended where it is written again, after later frames */
static void
count_failed_over (RtfRecording * rec)
{
  gboolean any = FALSE;
  guint64 top = 0, j;
  guint i;

  rec->failed_over = rec->out_of_order = 0;
  for (i = 0; i < rec->n_files; i++) {
    const RtfRecordingFile *f = &rec->files[i];

    if (f->state != RTF_FILE_OK)
      continue;
    for (j = 0; j < f->walk.frames; j++) {
      const RtfIndexRecord *r = &f->index->records[j];

      /* (only a frame failed over comes below a number before it in a
       * recording: the index walk refuses any other in a file) */
      if (r->flags & RTF_INDEX_REC_FAILED_OVER) {
        rec->failed_over++;
        if (any && r->seq < top)
          rec->out_of_order++;
      }
      top = any ? MAX (top, r->seq) : r->seq;
      any = TRUE;
    }
  }
}

void
rtf_recording_find_gaps (RtfRecording * rec)
{
  GArray *gaps = g_array_new (FALSE, FALSE, sizeof (RtfRange));
  guint64 n, top = 0;

  rec->missing = 0;
  g_clear_pointer (&rec->gaps, g_free);
  for (n = 0; n < rec->n_frames; n++) {
    const RtfIndexRecord *r = rtf_recording_frame (rec, n, NULL);

    /* (a frame failed over at one location may come below the one
     * before: the highest number so far counts) */
    if (n > 0 && r->seq > top + 1 && !(r->flags & RTF_INDEX_REC_EVENT_START)) {
      RtfRange g = { top + 1, r->seq - 1 };

      g_array_append_val (gaps, g);
      rec->missing += r->seq - top - 1;
    }
    top = n == 0 ? r->seq : MAX (top, r->seq);
  }
  rec->n_gaps = gaps->len;
  rec->gaps = (RtfRange *) g_array_free (gaps, FALSE);
}

void
rtf_recording_free (RtfRecording * rec)
{
  guint i;

  if (rec == NULL)
    return;
  for (i = 0; i < rec->n_files; i++)
    rtf_recording_file_clear (&rec->files[i]);
  for (i = 0; i < rec->n_leftovers; i++)
    rtf_recording_file_clear (&rec->leftovers[i]);
  for (i = 0; i < rec->n_missing_locations; i++) {
    g_free (rec->missing_locations[i].location);
    g_free (rec->missing_locations[i].why);
  }
  for (i = 0; i < rec->n_missing_files; i++)
    g_free (rec->missing_files[i].location);
  for (i = 0; i < rec->n_short_locations; i++)
    g_free (rec->short_locations[i].location);
  g_free (rec->short_locations);
  g_free (rec->final_manifest);
  g_free (rec->manifest_beside);
  g_free (rec->ends);
  g_free (rec->files);
  g_free (rec->leftovers);
  g_free (rec->missing_locations);
  g_free (rec->missing_files);
  g_free (rec->gaps);
  g_free (rec->note);
  g_free (rec->order);
  g_strfreev (rec->locations);
  g_free (rec);
}

const RtfRecordingFile *
rtf_recording_in_use (const RtfRecording * rec)
{
  guint i;

  for (i = 0; i < rec->n_files; i++)
    if (rec->files[i].in_use)
      return &rec->files[i];
  return NULL;
}

const RtfIndexRecord *
rtf_recording_frame (RtfRecording * rec, guint64 n, guint * file)
{
  guint lo = 0, hi = rec->n_files;

  if (n >= rec->n_frames)
    return NULL;
  if (rec->order) {
    if (file)
      *file = rec->order[n].file;
    return &rec->files[rec->order[n].file].index->records[rec->order[n].record];
  }
  /* the last file whose first frame is <= n */
  while (hi - lo > 1) {
    guint mid = (lo + hi) / 2;

    if (rec->files[mid].first_frame <= n)
      lo = mid;
    else
      hi = mid;
  }
  while (rec->files[lo].state != RTF_FILE_OK
      || n - rec->files[lo].first_frame >= rec->files[lo].walk.frames)
    lo++;
  if (file)
    *file = lo;
  return &rec->files[lo].index->records[n - rec->files[lo].first_frame];
}

gboolean
rtf_recording_is_location_first (const RtfRecording * rec,
    const RtfRecordingFile * f)
{
  return rec->locations != NULL && f->number == rec->start_index;
}
