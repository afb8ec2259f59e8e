/* The torture test's retention check (torture-retention.h) */
#include "torture-retention.h"

#include <string.h>
#include <sys/stat.h>

#include "rtf-space-guard.h"

#define problem(v, ...) \
  G_STMT_START { (v)->failed = TRUE; \
    g_string_append_printf ((v)->problems, __VA_ARGS__); } G_STMT_END
#define note(v, ...) g_string_append_printf ((v)->notes, __VA_ARGS__)

/* A file of the set that got frames, at one location */
typedef struct
{
  guint64 number;
  gchar *path;                  /* as its file-opened message names it, or
                                 * the pattern does (a file the sink wrote
                                 * frames to without telling it opened) */
  gboolean on_disk;             /* before any reader ran */
  gint deleted_at;              /* its file-deleted message (-1: none) */
  const gchar *reason;          /* that message's reason */
} SetFile;

static guint64
u64_of (const GstStructure * s, const gchar * field)
{
  guint64 v = G_MAXUINT64;

  gst_structure_get_uint64 (s, field, &v);
  return v;
}

static gint
by_number (gconstpointer a, gconstpointer b)
{
  const SetFile *x = a, *y = b;

  return x->number < y->number ? -1 : x->number > y->number;
}

static SetFile *
find (GArray * set, guint64 number)
{
  guint i;

  for (i = 0; i < set->len; i++)
    if (g_array_index (set, SetFile, i).number == number)
      return &g_array_index (set, SetFile, i);
  return NULL;
}

static void
set_file_clear (gpointer data)
{
  g_free (((SetFile *) data)->path);
}

/* The files opened at location loc in session s - told opened, or holding
 * a frame reported written -, oldest first, with what became of them */
static GArray *
set_at (const TorturePlan * p, TortureWorld * w, const TortureSession * S,
    guint s, guint loc)
{
  GArray *set = g_array_new (FALSE, TRUE, sizeof (SetFile));
  gchar *pattern = torture_world_location (p, w, loc, s);
  guint i;
  struct stat sb;

  g_array_set_clear_func (set, set_file_clear);
  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    const gchar *path = gst_structure_get_string (m, "location");
    SetFile f = { u64_of (m, "index"), NULL, FALSE, -1, NULL };

    if (!gst_structure_has_name (m, "rtframesink-file-opened") || !path
        || f.number == G_MAXUINT64
        || torture_world_location_of (p, w, s, path) != loc
        || find (set, f.number))
      continue;
    f.path = g_strdup (path);
    f.on_disk = lstat (path, &sb) == 0;
    g_array_append_val (set, f);
  }
  for (i = 0; i < S->written->len; i++) {
    const TortureWritten *wr = &g_array_index (S->written, TortureWritten, i);
    SetFile f = { wr->file, NULL, FALSE, -1, NULL };

    if (!wr->placed || wr->location != loc || find (set, wr->file))
      continue;
    f.path = torture_file_path (pattern, wr->file);
    f.on_disk = lstat (f.path, &sb) == 0;
    g_array_append_val (set, f);
  }
  g_free (pattern);
  g_array_sort (set, by_number);
  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    const gchar *path = gst_structure_get_string (m, "location");
    SetFile *f;

    if (gst_structure_has_name (m, "rtframesink-file-deleted") && path
        && torture_world_location_of (p, w, s, path) == loc
        && (f = find (set, u64_of (m, "index"))) && f->deleted_at < 0) {
      f->deleted_at = (gint) i;
      f->reason = gst_structure_get_string (m, "reason");
    }
  }
  return set;
}

/* A deletion for max-files: only of a file max-files newer ones follow
 * (the set's numbers follow each other at a location).  After a kill
 * the newest file may have been named, and the oldest deleted for it,
 * with its file-opened message still to come: one more is allowed. */
static void
check_max_files_deletion (const TorturePlan * p, GArray * set, guint loc,
    const SetFile * f, gboolean ended, TortureVerdict * v)
{
  guint64 newest = g_array_index (set, SetFile, set->len - 1).number +
      (ended ? 0 : 1);

  if (p->max_files == 0)
    problem (v, "retention: location %u: file %" G_GUINT64_FORMAT " deleted "
        "for max-files, which is not set\n", loc, f->number);
  else if (f->number + p->max_files > newest)
    problem (v, "retention: location %u: file %" G_GUINT64_FORMAT " deleted "
        "for max-files=%u, but the newest file is %" G_GUINT64_FORMAT
        ": it was one of the newest %u\n", loc, f->number, p->max_files,
        newest, p->max_files);
}

/* The freed bytes of the deletions at this location from message i on:
 * the child looked at the free space after deletion i, when the ones
 * after it may have been done already */
static guint64
freed_from (const TortureSession * S, GArray * set, gint i)
{
  guint64 sum = 0, freed;
  guint j;

  for (j = 0; j < set->len; j++) {
    const SetFile *f = &g_array_index (set, SetFile, j);

    if (f->deleted_at >= i && (freed = u64_of (g_ptr_array_index (S->messages,
                    f->deleted_at), "freed")) != G_MAXUINT64)
      sum += freed;
  }
  return sum;
}

/* A deletion for min-free-space: the oldest file left, while the free
 * space was near the line.  The guard deletes once the free space (with
 * the recording's reservations) is under min-free-space and an eighth; a
 * statvfs taken after the deletion, less what the deletions gave back,
 * is at most that, give or take what the recording gave back meanwhile
 * (a file's reservation at its end, the next file's) and wrote. */
static void
check_space_deletion (const TorturePlan * p, const TortureSession * S,
    GArray * set, guint loc, const SetFile * f, TortureVerdict * v)
{
  const GstStructure *m = g_ptr_array_index (S->messages, f->deleted_at);
  guint64 line = 0, after = G_MAXUINT64, freed, before, slack;
  guint i;

  for (i = 0; i < set->len; i++) {
    const SetFile *older = &g_array_index (set, SetFile, i);

    if (older->number >= f->number)
      break;
    if (older->deleted_at < 0 || older->deleted_at > f->deleted_at)
      problem (v, "retention: location %u: file %" G_GUINT64_FORMAT
          " deleted for min-free-space while the older file %"
          G_GUINT64_FORMAT " was still there: not the oldest first\n", loc,
          f->number, older->number);
  }
  gst_structure_get_uint64 (m, "torture-free-after", &after);
  for (i = f->deleted_at; i < S->messages->len && line == 0; i++) {
    const GstStructure *s = g_ptr_array_index (S->messages, i);

    if (gst_structure_has_name (s, "rtframesink-stats")
        || gst_structure_has_name (s, "rtframesink-disk-space"))
      gst_structure_get_uint64 (s, "min-free-space", &line);
  }
  if (after == G_MAXUINT64 || line == 0)
    return;
  freed = freed_from (S, set, f->deleted_at);
  before = after > freed ? after - freed : 0;
  slack = 2 * p->preallocate + 4 * (guint64) p->frame_size + 4 * 1048576;
  if (before > line + line / RTF_SPACE_MARGIN_SHARE + slack)
    problem (v, "retention: location %u: file %" G_GUINT64_FORMAT " deleted "
        "for min-free-space (%" G_GUINT64_FORMAT " bytes) with about %"
        G_GUINT64_FORMAT " bytes free\n", loc, f->number, line, before);
}

/* At a clean end: the newest max-files files there, no more; fewer only
 * by a deletion for min-free-space */
static void
check_kept (const TorturePlan * p, GArray * set, guint loc, TortureVerdict * v)
{
  guint64 newest = g_array_index (set, SetFile, set->len - 1).number;
  guint i, kept = 0;

  for (i = 0; i < set->len; i++) {
    const SetFile *f = &g_array_index (set, SetFile, i);
    gboolean wanted = f->number + p->max_files > newest;

    kept += f->on_disk;
    if (wanted && !f->on_disk && g_strcmp0 (f->reason, "min-free-space"))
      problem (v, "retention: location %u: file %" G_GUINT64_FORMAT " is "
          "gone (%s), but max-files=%u keeps the newest %u and the newest "
          "is %" G_GUINT64_FORMAT "\n", loc, f->number, f->reason ?
          f->reason : "no message says why", p->max_files, p->max_files,
          newest);
    else if (!wanted && f->on_disk)
      problem (v, "retention: location %u: file %" G_GUINT64_FORMAT " is "
          "still there, but max-files=%u keeps only the newest %u (up to %"
          G_GUINT64_FORMAT ")\n", loc, f->number, p->max_files,
          p->max_files, newest);
  }
  note (v, "retention: location %u: %u files made, %u kept (max-files=%u)\n",
      loc, set->len, kept, p->max_files);
}

static gboolean
left (const TortureSession * S, guint loc)
{
  guint i, index;

  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);

    if (gst_structure_has_name (m, "rtframesink-location-left")
        && gst_structure_get_uint (m, "location-index", &index)
        && index == loc)
      return TRUE;
  }
  return FALSE;
}

/* Whether frame number `frame` lies in a recording the sink told of
 * (from its first frame to its last; one not told stopped to the end):
 * its frames are in the recording's directory, its ring names may go
 * (torture-keep.c holds those recordings against the rules) */
static gboolean
in_told_recording (const TortureSession * S, guint64 frame)
{
  guint i, j;

  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    guint64 number = G_MAXUINT64, first = G_MAXUINT64, last = G_MAXUINT64;

    if (!gst_structure_has_name (m, "rtframesink-recording-started")
        || !gst_structure_get_uint64 (m, "first-frame", &first)
        || frame < first)
      continue;
    gst_structure_get_uint64 (m, "number", &number);
    for (j = i + 1; j < S->messages->len; j++) {
      const GstStructure *e = g_ptr_array_index (S->messages, j);
      guint64 n = G_MAXUINT64;

      if (gst_structure_has_name (e, "rtframesink-recording-stopped")
          && gst_structure_get_uint64 (e, "number", &n) && n == number) {
        gst_structure_get_uint64 (e, "last-frame", &last);
        break;
      }
    }
    if (frame <= last)
      return TRUE;
  }
  return FALSE;
}

/* A deletion for pre-record-time (the ring of keep-location): only of a
 * ring file whose frames no recording can still want - each older than
 * pre-record-time before the newest frame that had reached the sink when
 * it was told (the ring's floor is the oldest frame held, and a frame
 * held goes only when it is older than that before the newest frame's
 * position), or one a recording kept (after a recording its ring files go
 * at once: its directory holds them).  The positions are the recorder's
 * (running times, forward only), from the frames given in order. */
static void
check_ring_deletions (const TorturePlan * p, const TortureSession * S,
    guint s, TortureVerdict * v)
{
  GHashTable *k_of = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint64 *pos = g_new0 (guint64, MAX (S->in->len, 1)), last = G_MAXUINT64;
  GHashTable *index_of = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint i, j, n = 0, bad = 0;

  for (i = 0; i < S->in->len; i++) {
    const TortureIn *in = &g_array_index (S->in, TortureIn, i);

    /* (as torture-events.c's position_of: the recorder's axis) */
    pos[i] = last == G_MAXUINT64 ? (in->rt == G_MAXUINT64 ? 0 : in->rt) :
        in->rt == G_MAXUINT64 || in->rt <= last ? last + 1 : in->rt;
    last = pos[i];
    if (!g_hash_table_contains (index_of, &in->k))
      g_hash_table_insert (index_of, (gpointer) & in->k, GUINT_TO_POINTER (i));
  }
  for (i = 0; i < S->written->len; i++) {
    TortureWritten *w = &g_array_index (S->written, TortureWritten, i);

    g_hash_table_insert (k_of, &w->frame, w);
  }
  for (i = 0; i < S->messages->len && bad == 0; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    guint64 first = G_MAXUINT64, lastf = G_MAXUINT64, index = G_MAXUINT64;
    guint line = 0, newest = G_MAXUINT;

    if (!gst_structure_has_name (m, "rtframesink-file-deleted")
        || g_strcmp0 (gst_structure_get_string (m, "reason"),
            "pre-record-time") != 0)
      continue;
    n++;
    gst_structure_get_uint64 (m, "index", &index);
    if (!p->keep) {
      problem (v, "retention: file %" G_GUINT64_FORMAT " deleted for "
          "pre-record-time, but keep-location is not set (no ring)\n", index);
      bad++;
      break;
    }
    if (s > 0 || p->mid != TORTURE_MID_NONE)
      continue;                 /* (positions not followed across it) */
    gst_structure_get_uint64 (m, "first-frame", &first);
    gst_structure_get_uint64 (m, "last-frame", &lastf);
    gst_structure_get_uint (m, "torture-line", &line);
    for (j = 0; j < S->in->len; j++)
      if (g_array_index (S->in, TortureIn, j).line < line)
        newest = j;
    if (newest == G_MAXUINT || first > lastf) {
      problem (v, "retention: ring file %" G_GUINT64_FORMAT " (frames %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") deleted for "
          "pre-record-time before any frame came\n", index, first, lastf);
      bad++;
      break;
    }
    for (j = 0; j < S->written->len && bad == 0; j++) {
      const TortureWritten *w = &g_array_index (S->written, TortureWritten, j);
      gpointer at;
      guint fi;

      if (w->frame < first || w->frame > lastf
          || !g_hash_table_lookup_extended (index_of, &w->k, NULL, &at))
        continue;
      fi = GPOINTER_TO_UINT (at);
      if (pos[fi] + p->pre_record_time < pos[newest]
          || in_told_recording (S, w->frame))
        continue;
      problem (v, "retention: ring file %" G_GUINT64_FORMAT " (frames %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") deleted for "
          "pre-record-time, but its frame %" G_GUINT64_FORMAT " (stamp %"
          G_GUINT64_FORMAT ", running time %" G_GUINT64_FORMAT ") is in no "
          "recording and within pre-record-time (%" G_GUINT64_FORMAT " ns) "
          "of the newest frame then (stamp %" G_GUINT64_FORMAT ", %"
          G_GUINT64_FORMAT ")\n", index, first, lastf, w->frame, w->k,
          pos[fi], p->pre_record_time,
          g_array_index (S->in, TortureIn, newest).k, pos[newest]);
      bad++;
    }
  }
  if (p->keep)
    note (v, "retention: %u ring files deleted for pre-record-time%s\n", n,
        bad ? "" : ", each older than it or kept by a recording");
  g_free (pos);
  g_hash_table_unref (index_of);
  g_hash_table_unref (k_of);
}

void
torture_retention_check (const TorturePlan * p, TortureWorld * w,
    const TortureHistory * h, guint s, guint removed, gboolean ended,
    TortureVerdict * v)
{
  const TortureSession *S = &h->s[s];
  guint loc, i;

  if (!p->pattern)
    return;
  if (!(removed & 1u))
    check_ring_deletions (p, S, s, v);
  for (loc = 0; loc < p->n_loc; loc++) {
    GArray *set;

    if (removed & (1u << loc))
      continue;
    set = set_at (p, w, S, s, loc);
    for (i = 0; i < set->len; i++) {
      const SetFile *f = &g_array_index (set, SetFile, i);

      if (g_strcmp0 (f->reason, "max-files") == 0)
        check_max_files_deletion (p, set, loc, f, ended, v);
      else if (g_strcmp0 (f->reason, "min-free-space") == 0)
        check_space_deletion (p, S, set, loc, f, v);
    }
    /* what is left is the request's only where nothing else ended the
     * recording there: no kill, no error, the location still in it */
    if (set->len > 0 && p->max_files > 0 && ended && S->errors->len == 0
        && !left (S, loc))
      check_kept (p, set, loc, v);
    g_array_unref (set);
  }
}
