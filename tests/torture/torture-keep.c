/* The torture test's check of pre-record on disk (torture-keep.h) */
#include "torture-keep.h"

#include <string.h>
#include <sys/stat.h>

#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-test-util.h"
#include "torture-readback.h"

#define problem(v, ...) \
  G_STMT_START { (v)->failed = TRUE; \
    g_string_append_printf ((v)->problems, __VA_ARGS__); } G_STMT_END
#define note(v, ...) g_string_append_printf ((v)->notes, __VA_ARGS__)

void
torture_keep_want_free (gpointer want)
{
  TortureKeepWant *k = want;

  g_array_unref (k->frames);
  g_free (k);
}

/* A recording as the sink told it */
typedef struct
{
  guint64 number, first, last, frames, prerecorded;
  const gchar *location;
  gboolean stopped;
} Told;

static GArray *
told_recordings (const TortureSession * S)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (Told));
  guint i, j;

  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    Told t = { 0 };

    t.first = t.last = G_MAXUINT64;
    gst_structure_get_uint64 (m, "number", &t.number);
    if (gst_structure_has_name (m, "rtframesink-recording-started")) {
      gst_structure_get_uint64 (m, "first-frame", &t.first);
      t.location = gst_structure_get_string (m, "location");
      g_array_append_val (a, t);
    } else if (gst_structure_has_name (m, "rtframesink-recording-stopped")) {
      for (j = a->len; j > 0; j--) {
        Told *o = &g_array_index (a, Told, j - 1);

        if (o->number != t.number || o->stopped)
          continue;
        o->stopped = TRUE;
        gst_structure_get_uint64 (m, "last-frame", &o->last);
        gst_structure_get_uint64 (m, "frames", &o->frames);
        gst_structure_get_uint64 (m, "prerecorded-frames", &o->prerecorded);
        break;
      }
    }
  }
  return a;
}

typedef struct
{
  const TorturePlan *p;
  TortureWorld *w;
  const TortureSession *S;
  const TortureIn *in;
  gboolean ended;
  GHashTable *k_of;             /* frame number -> TortureWritten */
  GHashTable *dropped;          /* stamps dropped by leaky */
  GHashTable *space_deleted;    /* ring files deleted for min-free-space:
                                 * their numbers */
  TortureVerdict *v;
} Keep;

static gboolean
dropped (Keep * x, guint i)
{
  return g_hash_table_contains (x->dropped, &x->in[i].k);
}

/* The stamps the rules allow as the sink's first (from = 0, step 1) or
 * last (from the end, step -1) frame: the rules' own, or one after it
 * when the frames before it were dropped as they came (never held, so
 * never the recording's) */
static gboolean
allowed_end (Keep * x, const TortureKeepWant * want, gboolean first,
    guint64 k)
{
  guint n = want->frames->len, j;

  for (j = 0; j < n; j++) {
    guint i = g_array_index (want->frames, guint, first ? j : n - 1 - j);

    if (x->in[i].k == k)
      return TRUE;
    if (!dropped (x, i))
      return FALSE;
  }
  return FALSE;
}

/* Checks one data file of a recording's directory against its index:
 * each record's bytes at its offset are the frame its pts stamps, and
 * that stamp is the one the sink reported for its frame number */
static void
check_index (Keep * x, const gchar * path)
{
  gchar *ipath = rtf_index_path (path), *data = NULL;
  GError *err = NULL;
  RtfIndex *idx;
  gsize len = 0;
  guint8 *want;
  guint64 j;
  guint bad = 0;

  if (!g_file_test (ipath, G_FILE_TEST_EXISTS)) {
    if (x->ended)
      problem (x->v, "keep: %s is kept without its index\n", path);
    else
      note (x->v, "keep: %s is kept without its index (the kill)\n", path);
    g_free (ipath);
    return;
  }
  idx = rtf_index_load (ipath, &err);
  if (idx == NULL || !g_file_get_contents (path, &data, &len, NULL)) {
    if (x->ended)
      problem (x->v, "keep: %s: cannot be read: %s\n", ipath, err ?
          err->message : "the data");
    g_clear_error (&err);
    if (idx)
      rtf_index_free (idx);
    g_free (ipath);
    return;
  }
  /* (a clean end leaves the ring's file whole: its index, the same
   * inode the ring went on writing, lists every frame in it) */
  if (x->ended && idx->n_records != len / x->p->frame_size)
    problem (x->v, "keep: %s holds %" G_GSIZE_FORMAT " frames, its index "
        "lists %" G_GUINT64_FORMAT "\n", path, len / x->p->frame_size,
        idx->n_records);
  want = g_malloc (x->p->frame_size);
  for (j = 0; j < idx->n_records && bad == 0; j++) {
    const RtfIndexRecord *r = &idx->records[j];
    const TortureWritten *w = g_hash_table_lookup (x->k_of, &r->seq);
    guint64 k = r->pts / x->p->duration_ns;

    if (r->pts % x->p->duration_ns != 0 || r->size != x->p->frame_size) {
      problem (x->v, "keep: %s: record %" G_GUINT64_FORMAT " (frame %"
          G_GUINT64_FORMAT ") has pts %" G_GUINT64_FORMAT " and size %u: "
          "no frame pushed\n", ipath, j, r->seq, r->pts, r->size);
      bad++;
      continue;
    }
    if (r->offset + x->p->frame_size > len) {
      if (x->ended)
        problem (x->v, "keep: %s: record %" G_GUINT64_FORMAT " (frame %"
            G_GUINT64_FORMAT ") lies past the data's end\n", ipath, j,
            r->seq);
      bad++;
      continue;
    }
    rtf_test_fill_frame (want, x->p->frame_size, x->p->stream, k);
    if (memcmp (want, data + r->offset, x->p->frame_size) != 0) {
      problem (x->v, "keep: %s: record %" G_GUINT64_FORMAT " says frame %"
          G_GUINT64_FORMAT " (stamp %" G_GUINT64_FORMAT ") at byte %"
          G_GUINT64_FORMAT "; the bytes there are not it\n", path, j, r->seq,
          k, r->offset);
      bad++;
    } else if (w && w->k != k) {
      problem (x->v, "keep: %s: record %" G_GUINT64_FORMAT " is frame %"
          G_GUINT64_FORMAT " with stamp %" G_GUINT64_FORMAT "; the sink "
          "reported frame %" G_GUINT64_FORMAT " written with stamp %"
          G_GUINT64_FORMAT "\n", path, j, r->seq, k, r->seq, w->k);
      bad++;
    }
  }
  g_free (want);
  g_free (data);
  rtf_index_free (idx);
  g_free (ipath);
}

/* The frames a recording's directory holds: stamp -> how many times,
 * each whole and byte-exact (the data files read byte by byte, each also
 * through its index); NULL when there is no directory */
static GHashTable *
read_dir (Keep * x, const gchar * dir, guint * n_files)
{
  GHashTable *counts;
  TortureReadback rb = { 0 };
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  guint i;

  *n_files = 0;
  if (d == NULL)
    return NULL;
  counts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  rb.frames = g_array_new (FALSE, FALSE, sizeof (TortureFrame));
  rb.problems = g_string_new (NULL);
  rb.notes = g_string_new (NULL);
  while ((name = g_dir_read_name (d)) != NULL) {
    gchar *path = g_build_filename (dir, name, NULL);
    struct stat sb;
    guint64 prev = G_MAXUINT64;

    if (!g_str_has_suffix (name, ".idx") && lstat (path, &sb) == 0
        && S_ISREG (sb.st_mode)) {
      (*n_files)++;
      torture_readback_scan_file (x->p, &rb, path, x->ended ? 0 :
          TORTURE_READ_TAILS, &prev);
      if (x->p->index)
        check_index (x, path);
    }
    g_free (path);
  }
  g_dir_close (d);
  if (rb.problems->len)
    problem (x->v, "keep: %s: %s", dir, rb.problems->str);
  for (i = 0; i < rb.frames->len; i++) {
    guint64 k = g_array_index (rb.frames, TortureFrame, i).k;
    gpointer n = g_hash_table_lookup (counts, &k);

    g_hash_table_insert (counts, g_memdup2 (&k, sizeof k),
        GUINT_TO_POINTER (GPOINTER_TO_UINT (n) + 1));
  }
  torture_readback_clear (&rb);
  return counts;
}

/* Whether frame i is still at the ring's name of the file that held it */
static gboolean
in_ring (Keep * x, guint i)
{
  const TortureWritten *w = NULL;
  GHashTableIter it;
  gpointer value;
  gchar *loc, *path;
  gboolean there;

  g_hash_table_iter_init (&it, x->k_of);
  while (w == NULL && g_hash_table_iter_next (&it, NULL, &value))
    if (((const TortureWritten *) value)->k == x->in[i].k)
      w = value;
  if (w == NULL || !w->placed)
    return FALSE;
  loc = torture_world_location (x->p, x->w, 0, 0);
  path = torture_file_path (loc, w->file);
  there = g_file_test (path, G_FILE_TEST_EXISTS);
  g_free (path);
  g_free (loc);
  return there;
}

/* Whether frame i lay in a ring file min-free-space deleted (announced):
 * the disk, not the ring, took it - before its recording could keep it */
static gboolean
taken_for_space (Keep * x, guint i)
{
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, x->k_of);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    const TortureWritten *w = value;

    if (w->k == x->in[i].k)
      return w->placed && g_hash_table_contains (x->space_deleted, &w->file);
  }
  return FALSE;
}

/* One recording: the sink's account of it and its directory */
static void
check_recording (Keep * x, guint n, const TortureKeepWant * want,
    const Told * t, const gchar * dir, guint known)
{
  const TortureIn *in = x->in;
  guint nf = want->frames->len, first = g_array_index (want->frames, guint,
      0), last = g_array_index (want->frames, guint, nf - 1), j, files;
  guint missing = 0, excused = 0, twice = 0, gone_dropped = 0;
  const TortureWritten *w;
  GHashTable *counts;
  GString *list = g_string_new (NULL);
  gboolean whole = last < known;

  if (g_strcmp0 (t->location, dir) != 0)
    problem (x->v, "keep: recording %u (stamps %" G_GUINT64_FORMAT "..%"
        G_GUINT64_FORMAT ") was kept in %s; its number names %s\n", n,
        in[first].k, in[last].k, t->location, dir);
  w = g_hash_table_lookup (x->k_of, &t->first);
  if (w ? !allowed_end (x, want, TRUE, w->k) : !dropped (x, first))
    problem (x->v, "keep: recording %u (%s): the sink's first frame is %"
        G_GUINT64_FORMAT " (stamp %s%" G_GUINT64_FORMAT "); the rules begin "
        "it at stamp %" G_GUINT64_FORMAT " (running time %" G_GUINT64_FORMAT
        ")\n", n, dir, t->first, w ? "" : "unknown, not reported: ",
        w ? w->k : G_MAXUINT64, in[first].k, in[first].rt);
  if (t->stopped && whole) {
    w = g_hash_table_lookup (x->k_of, &t->last);
    if (w ? !allowed_end (x, want, FALSE, w->k) : !dropped (x, last))
      problem (x->v, "keep: recording %u (%s): the sink's last frame is %"
          G_GUINT64_FORMAT " (stamp %s%" G_GUINT64_FORMAT "); the rules end "
          "it at stamp %" G_GUINT64_FORMAT " (running time %"
          G_GUINT64_FORMAT ")\n", n, dir, t->last, w ? "" : "unknown, not "
          "reported: ", w ? w->k : G_MAXUINT64, in[last].k, in[last].rt);
    if (g_hash_table_size (x->dropped) == 0 && (t->frames != nf
            || t->prerecorded != want->backlog))
      problem (x->v, "keep: recording %u (%s): the sink counted %"
          G_GUINT64_FORMAT " frames (%" G_GUINT64_FORMAT " pre-recorded); "
          "the rules give it %u (%u pre-recorded)\n", n, dir, t->frames,
          t->prerecorded, nf, want->backlog);
  } else if (!t->stopped && x->ended && x->p->end == TORTURE_END_EOS) {
    /* (without EOS it stops as the pipeline goes to NULL, its bus
     * flushing: the message may be lost) */
    problem (x->v, "keep: recording %u (%s) was never told stopped, though "
        "the session ended with EOS\n", n, dir);
  }

  counts = read_dir (x, dir, &files);
  if (counts == NULL) {
    if (x->ended)
      problem (x->v, "keep: recording %u: its directory %s is not there\n",
          n, dir);
    else
      note (x->v, "keep: recording %u: no directory %s (the kill)\n", n, dir);
    g_string_free (list, TRUE);
    return;
  }
  for (j = 0; j < nf; j++) {
    guint i = g_array_index (want->frames, guint, j);
    guint c = GPOINTER_TO_UINT (g_hash_table_lookup (counts, &in[i].k));

    if (c > 1)
      twice++;
    if (c > 0 || i >= known)
      continue;
    if (dropped (x, i)) {
      gone_dropped++;
    } else if (taken_for_space (x, i)) {
      excused++;
    } else if (!x->ended && in_ring (x, i)) {
      /* (the kill came before the file helper linked it) */
      excused++;
    } else {
      if (missing++ < 20)
        g_string_append_printf (list, " %" G_GUINT64_FORMAT, in[i].k);
    }
  }
  if (missing)
    problem (x->v, "keep: recording %u (stamps %" G_GUINT64_FORMAT "..%"
        G_GUINT64_FORMAT ", %u frames) lacks %u of its frames in %s:%s%s\n",
        n, in[first].k, in[last].k, nf, missing, dir, list->str,
        missing > 20 ? " ..." : "");
  if (twice)
    problem (x->v, "keep: recording %u: %u of its frames are in %s twice\n",
        n, twice, dir);
  note (x->v, "keep: recording %u: stamps %" G_GUINT64_FORMAT "..%"
      G_GUINT64_FORMAT " (%u frames, %u pre-recorded), %u files in %s "
      "holding %u frames%s; %u dropped by leaky, %u excused\n", n,
      in[first].k, in[last].k, nf, want->backlog, files, dir,
      g_hash_table_size (counts), whole ? "" : " (its end not known)",
      gone_dropped, excused);
  g_hash_table_unref (counts);
  g_string_free (list, TRUE);
}

void
torture_keep_check (const TorturePlan * p, TortureWorld * w,
    const TortureSession * S, GHashTable * reported, guint known,
    gboolean ended, const GPtrArray * wants, TortureVerdict * v)
{
  Keep x = { p, w, S, (const TortureIn *) S->in->data, ended };
  GArray *told;
  gchar *pattern;
  guint64 base = p->keep_existing >= 0 ? (guint64) p->keep_existing + 1 : 0;
  guint i, judged = 0;

  (void) reported;
  if (p->rmdir_loc >= 0) {
    note (v, "keep: not checked: a fault removed or moved the location's "
        "directory, the recordings' directories with it\n");
    return;
  }
  x.v = v;
  x.k_of = g_hash_table_new (g_int64_hash, g_int64_equal);
  x.dropped = g_hash_table_new (g_int64_hash, g_int64_equal);
  x.space_deleted = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, NULL);
  for (i = 0; i < S->written->len; i++) {
    TortureWritten *wr = &g_array_index (S->written, TortureWritten, i);

    g_hash_table_insert (x.k_of, &wr->frame, wr);
  }
  for (i = 0; i < S->dropped->len; i++)
    g_hash_table_add (x.dropped, &g_array_index (S->dropped, guint64, i));
  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    guint64 index;

    if (gst_structure_has_name (m, "rtframesink-file-deleted")
        && g_strcmp0 (gst_structure_get_string (m, "reason"),
            "min-free-space") == 0
        && gst_structure_get_uint64 (m, "index", &index))
      g_hash_table_add (x.space_deleted, g_memdup2 (&index, sizeof index));
  }
  told = told_recordings (S);
  pattern = torture_world_keep_location (w);
  for (i = 0; i < wants->len; i++) {
    const TortureKeepWant *want = g_ptr_array_index (wants, i);
    guint first = g_array_index (want->frames, guint, 0);
    gchar *dir;

    if (first >= known)
      break;                    /* (it began after the last report) */
    judged++;
    dir = rtf_pattern_format (pattern, base + i);
    if (i < told->len)
      check_recording (&x, i, want, &g_array_index (told, Told, i), dir,
          known);
    else if (ended)
      problem (v, "keep: the rules make recording %u (stamps %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ", running time %"
          G_GUINT64_FORMAT " on), the sink started %u recordings\n", i,
          x.in[first].k, x.in[g_array_index (want->frames, guint,
                  want->frames->len - 1)].k, x.in[first].rt, told->len);
    else
      note (v, "keep: recording %u not started before the kill\n", i);
    g_free (dir);
  }
  if (told->len > judged && judged == wants->len && ended)
    problem (v, "keep: the sink started %u recordings (the %u-th from frame %"
        G_GUINT64_FORMAT " in %s), the rules make %u\n", told->len,
        judged + 1, g_array_index (told, Told, judged).first,
        g_array_index (told, Told, judged).location, wants->len);
  note (v, "keep: %u recordings by the rules, %u judged, %u told by the "
      "sink\n", wants->len, judged, told->len);
  g_free (pattern);
  g_array_unref (told);
  g_hash_table_unref (x.k_of);
  g_hash_table_unref (x.dropped);
  g_hash_table_unref (x.space_deleted);
}
