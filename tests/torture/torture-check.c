/* The torture test's checker (torture-check.h): the invariant, session by
 * session, from the history and the readers' frames */
#include "torture-check.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "torture-account.h"
#include "torture-events.h"
#include "torture-readback.h"
#include "torture-retention.h"
#include "rtf-pattern.h"

#define problem(v, ...) \
  G_STMT_START { (v)->failed = TRUE; \
    g_string_append_printf ((v)->problems, __VA_ARGS__); } G_STMT_END
#define note(v, ...) g_string_append_printf ((v)->notes, __VA_ARGS__)

typedef struct
{
  const TorturePlan *p;
  TortureWorld *w;
  TortureHistory *h;
  TortureVerdict *v;
  gboolean killed;              /* the planned SIGKILL ended the child */
  guint last_session;
  guint removed;                /* locations whose directory is gone */
} Check;

/* ---- the child --------------------------------------------------------- */

static void
check_child (Check * c, const TortureRun * child)
{
  TortureVerdict *v = c->v;
  gchar *how = torture_run_describe (child);

  if (!child->started)
    problem (v, "the recording child did not run: %s\n", how);
  else if (child->hung)
    problem (v, "HANG: the recording child %s; its threads:\n%s\n", how,
        child->stacks ? child->stacks : "(none)");
  else if (WIFSIGNALED (child->status)) {
    if (WTERMSIG (child->status) == SIGKILL && c->h->killed_self)
      c->killed = TRUE;
    else
      problem (v, "CRASH: the recording child was %s\n", how);
  } else if (WEXITSTATUS (child->status) == 4) {
    problem (v, "HANG: EOS did not reach the bus within 30 s\n");
  } else if (WEXITSTATUS (child->status) != 0) {
    problem (v, "the recording child ended with %s\n", how);
  }
  if (torture_run_sanitizer (child))
    problem (v, "a sanitizer reported in the recording child\n");
  if (child->err && (strstr (child->err, "-CRITICAL **")
          || strstr (child->err, "-WARNING **")))
    problem (v, "the recording child printed criticals or warnings\n");
  if (child->err && *child->err)
    note (v, "child stderr:\n%.4000s\n", child->err);
  if (c->h->end == NULL && !c->killed && !child->hung)
    problem (v, "the history has no end line\n");
  if (c->h->bad_lines)
    problem (v, "%u lines of the history could not be read\n", c->h->bad_lines);
  g_free (how);
}

/* ---- one session ------------------------------------------------------- */

static gboolean
deletion_possible (const TorturePlan * p)
{
  guint64 volume = (guint64) p->n_frames * p->frame_size;
  guint i;

  if (!p->pattern)
    return FALSE;
  /* (a ring's files go as it turns, keep-location) */
  if (p->max_files > 0 || p->keep)
    return TRUE;
  if (p->min_free_space == 0)
    return FALSE;
  if (p->fill_loc >= 0)
    return TRUE;
  for (i = 0; i < p->n_loc; i++)
    if (p->loc[i].fs_mb && (guint64) p->loc[i].fs_mb * 1048576 <
        volume + 4 * (guint64) MAX (p->min_free_space, 0) + 134217728)
      return TRUE;
  return FALSE;
}

static guint64
stat_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  if (s)
    gst_structure_get_uint64 (s, field, &v);
  return v;
}

static gboolean
session_faulted (Check * c, guint s)
{
  const TortureSession *S = &c->h->s[s];
  guint i;

  if ((c->killed && s == c->last_session) || S->errors->len > 0)
    return TRUE;
  for (i = 0; i < S->messages->len; i++)
    if (gst_structure_has_name (g_ptr_array_index (S->messages, i),
            "rtframesink-location-left"))
      return TRUE;
  return FALSE;
}

/* The locations at which a frame-written message placed a frame (a bit
 * each); FALSE when the history does not say where frames went */
static gboolean
written_at (const TortureSession * S, guint * at)
{
  guint i;

  *at = 0;
  for (i = 0; i < S->written->len; i++) {
    const TortureWritten *w = &g_array_index (S->written, TortureWritten, i);

    if (!w->placed)
      return FALSE;
    if (w->location < 32)
      *at |= 1u << w->location;
  }
  return TRUE;
}

/* The locations that left session s holding no frame reported written
 * there: a bit each.  Where the history places every frame, by that (a
 * file opened for a frame that was handed back and written elsewhere
 * holds none: the sink cuts it back to nothing, and with no EOS no
 * manifest says the location held none - 0x02bbb7c342b85d4c); else
 * those with no file-opened there. */
static guint
left_empty (Check * c, guint s)
{
  const TortureSession *S = &c->h->s[s];
  guint left = 0, opened = 0, i, k, index, at;

  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    const gchar *path;

    if (gst_structure_has_name (m, "rtframesink-location-left")
        && gst_structure_get_uint (m, "location-index", &index) && index < 32)
      left |= 1u << index;
    if (gst_structure_has_name (m, "rtframesink-file-opened")
        && (path = gst_structure_get_string (m, "location")))
      for (k = 0; k < c->p->n_loc; k++)
        if (torture_world_in_location (c->p, c->w, k, s, path))
          opened |= 1u << k;
  }
  if (written_at (S, &at))
    return left & ~at;
  return left & ~opened;
}

/* k -> the written record (frame number), from the frame-written lines */
static GHashTable *
reported_of (Check * c, const TortureSession * S)
{
  GHashTable *r = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint i;

  for (i = 0; i < S->written->len; i++) {
    TortureWritten *w = &g_array_index (S->written, TortureWritten, i);

    if (w->k == G_MAXUINT64 || w->k >= c->p->n_frames) {
      problem (c->v, "frame %" G_GUINT64_FORMAT " reported written with a "
          "pts no frame had\n", w->frame);
    } else if (g_hash_table_contains (r, &w->k)) {
      problem (c->v, "frame stamped %" G_GUINT64_FORMAT " reported written "
          "twice\n", w->k);
    } else {
      g_hash_table_insert (r, &w->k, w);
    }
  }
  return r;
}

/* Whether w lay in the deleted file m says: the file and location its
 * frame-written message named; else (an older history) its number
 * between the file's first and last frame, which is wrong for a frame
 * failed over out of number order into another location's file */
static gboolean
in_deleted_file (Check * c, guint s, const GstStructure * m,
    const TortureWritten * w)
{
  const gchar *path = gst_structure_get_string (m, "location");

  if (w->placed)
    return path && w->file == stat_u64 (m, "index")
        && w->location == torture_world_location_of (c->p, c->w, s, path);
  return w->frame >= stat_u64 (m, "first-frame")
      && w->frame <= stat_u64 (m, "last-frame");
}

/* Frames of the files max-files and min-free-space deleted, as announced */
static void
excuse_deleted (Check * c, guint s, GHashTable * reported, GHashTable * excused)
{
  const TortureSession *S = &c->h->s[s];
  guint i, j;

  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);

    if (!gst_structure_has_name (m, "rtframesink-file-deleted"))
      continue;
    for (j = 0; j < S->written->len; j++) {
      TortureWritten *w = &g_array_index (S->written, TortureWritten, j);

      if (in_deleted_file (c, s, m, w)
          && g_hash_table_lookup (reported, &w->k) == w)
        g_hash_table_add (excused, &w->k);
    }
  }
}

/* The frames read: each recording's in increasing order, each a frame of
 * this session, with its pts and number; returns k -> TortureFrame */
static GHashTable *
read_set_of (Check * c, const TortureSession * S, TortureReadback * rb,
    GHashTable * reported)
{
  GHashTable *set = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint i;

  for (i = 0; i < rb->frames->len; i++) {
    TortureFrame *f = &g_array_index (rb->frames, TortureFrame, i);
    TortureFrame *prev = i ? &g_array_index (rb->frames, TortureFrame, i - 1)
        : NULL;
    if (prev && prev->target == f->target && f->k <= prev->k)
      problem (c->v, "read out of order or twice: stamp %" G_GUINT64_FORMAT
          " after %" G_GUINT64_FORMAT "\n", f->k, prev->k);
    if (S->pushed == 0 || f->k < S->first_k || f->k > S->last_k + 2)
      problem (c->v, "read a frame never pushed in this recording: stamp %"
          G_GUINT64_FORMAT "\n", f->k);
    if (f->frame != G_MAXUINT64 && f->pts != f->k * c->p->duration_ns)
      problem (c->v, "frame stamped %" G_GUINT64_FORMAT " played with pts %"
          G_GUINT64_FORMAT ", not %" G_GUINT64_FORMAT "\n", f->k, f->pts,
          f->k * c->p->duration_ns);
    if (g_hash_table_contains (set, &f->k) && rb->targets == 1)
      problem (c->v, "frame stamped %" G_GUINT64_FORMAT " read twice\n", f->k);
    else if (g_hash_table_contains (set, &f->k))
      note (c->v, "frame stamped %" G_GUINT64_FORMAT " found at two "
          "locations\n", f->k);
    g_hash_table_insert (set, &f->k, f);
  }
  return set;
}

/* rtframe-dump's frame numbers: each reported one is a frame rtframesrc
 * played (dump lists what the index says; rtframesrc what it plays) */
static void
check_dump (Check * c, const TortureSession * S, TortureReadback * rb,
    GHashTable * read)
{
  GHashTable *by_frame = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint i, bad = 0;

  for (i = 0; i < S->written->len; i++) {
    TortureWritten *w = &g_array_index (S->written, TortureWritten, i);

    g_hash_table_insert (by_frame, &w->frame, w);
  }
  for (i = 0; i < rb->dumped->len; i++) {
    guint64 n = g_array_index (rb->dumped, guint64, i);
    TortureWritten *w = g_hash_table_lookup (by_frame, &n);

    if (w && !g_hash_table_contains (read, &w->k) && bad++ < 5)
      problem (c->v, "readers disagree: rtframe-dump lists frame %"
          G_GUINT64_FORMAT " (stamp %" G_GUINT64_FORMAT "), rtframesrc did "
          "not play it\n", n, w->k);
  }
  g_hash_table_unref (by_frame);
}

static void
list_keys (GString * s, GList * keys)
{
  guint n = 0;
  GList *l;

  for (l = keys; l && n < 20; l = l->next, n++)
    g_string_append_printf (s, " %" G_GUINT64_FORMAT, *(guint64 *) l->data);
  if (l)
    g_string_append_printf (s, " ... (%u in all)", g_list_length (keys));
}

static gint
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* the locations whose first frame read is kept apart */
#define MIN_READ_LOCATIONS 8

/* The first frame read at the location that holds the frame at key (else
 * the first read anywhere) */
static guint64
below_read (GHashTable * reported, gconstpointer key, guint64 min_read,
    const guint64 * min_read_at)
{
  const TortureWritten *w = g_hash_table_lookup (reported, key);

  if (w && w->placed && w->location < MIN_READ_LOCATIONS
      && min_read_at[w->location] != G_MAXUINT64)
    return min_read_at[w->location];
  return min_read;
}

/* What a location's disk held before the readers (and rtframe-recover)
 * ran, for rung_out(): its newest file holding a frame reported written,
 * whether that file was gone, and whether the file after it had begun -
 * its name on the disk, or a file-opened for it (the sink names a file
 * before max-files deletes the one before it: one file worker, in that
 * order).  Judged by what was there, not by what recover left (M1 of the
 * read of bb79aa8: a recover deleting the newest file would have excused
 * its frames) */
typedef struct
{
  guint64 newest;
  gboolean newest_gone;
  gboolean next_began;
} Rung;

/* Whether file n of the set loc was opened (by number: a name with time
 * fields is known only from the message) */
static gboolean
file_opened (const TortureSession * S, const gchar * loc, guint64 n)
{
  guint i;

  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    const gchar *opened = gst_structure_get_string (m, "location");

    if (gst_structure_has_name (m, "rtframesink-file-opened") && opened
        && rtf_pattern_names (loc, opened, n))
      return TRUE;
  }
  return FALSE;
}

/* The files of frames reported written, at a location below
 * MIN_READ_LOCATIONS, that were gone from the disk before the readers ran
 * (keys: location_file_key()): an excuse for a frame that max-files or
 * min-free-space took holds only when its file was gone then, not when
 * rtframe-recover deleted it (the read of 70d174f: below_read() and
 * rung_out()'s first rule excused without looking) */
static guint64
location_file_key (guint location, guint64 file)
{
  return ((guint64) location << 56) | (file &
      G_GUINT64_CONSTANT (0xffffffffffffff));
}

static GHashTable *
files_gone_before_readers (Check * c, guint s, GHashTable * reported)
{
  GHashTable *gone = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, NULL), *looked = g_hash_table_new_full (g_int64_hash,
      g_int64_equal, g_free, NULL);
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, reported);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    const TortureWritten *w = value;
    guint64 key;
    gchar *loc, *path;

    if (!w->placed || w->location >= MIN_READ_LOCATIONS)
      continue;
    key = location_file_key (w->location, w->file);
    if (g_hash_table_contains (looked, &key))
      continue;
    g_hash_table_add (looked, g_memdup2 (&key, sizeof key));
    loc = torture_world_location (c->p, c->w, w->location, s);
    path = torture_file_path (loc, w->file);
    if (!g_file_test (path, G_FILE_TEST_EXISTS))
      g_hash_table_add (gone, g_memdup2 (&key, sizeof key));
    g_free (path);
    g_free (loc);
  }
  g_hash_table_unref (looked);
  return gone;
}

/* Whether the file of the frame at key was gone before the readers ran
 * (TRUE for a frame whose file is not known: placed nowhere) */
static gboolean
gone_before_readers (GHashTable * reported, gconstpointer key,
    GHashTable * gone)
{
  const TortureWritten *w = g_hash_table_lookup (reported, key);
  guint64 k;

  if (w == NULL || !w->placed || w->location >= MIN_READ_LOCATIONS)
    return TRUE;
  k = location_file_key (w->location, w->file);
  return g_hash_table_contains (gone, &k);
}

static void
look_before_readers (Check * c, guint s, GHashTable * reported, Rung * rung)
{
  GHashTableIter it;
  gpointer key, value;
  gboolean seen[MIN_READ_LOCATIONS] = { FALSE };
  guint l;

  memset (rung, 0, MIN_READ_LOCATIONS * sizeof (Rung));
  g_hash_table_iter_init (&it, reported);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    const TortureWritten *w = value;

    if (w->placed && w->location < MIN_READ_LOCATIONS) {
      rung[w->location].newest = MAX (rung[w->location].newest, w->file);
      seen[w->location] = TRUE;
    }
  }
  for (l = 0; l < MIN_READ_LOCATIONS; l++) {
    gchar *loc, *path, *next;

    if (!seen[l])
      continue;
    loc = torture_world_location (c->p, c->w, l, s);
    path = torture_file_path (loc, rung[l].newest);
    next = torture_file_path (loc, rung[l].newest + 1);
    rung[l].newest_gone = !g_file_test (path, G_FILE_TEST_EXISTS);
    rung[l].next_began = g_file_test (next, G_FILE_TEST_EXISTS)
        || file_opened (&c->h->s[s], loc, rung[l].newest + 1);
    g_free (next);
    g_free (path);
    g_free (loc);
  }
}

/* max-files at a killed location L: file F went once the file max-files
 * after it began.  Excused only when the plan rotates, and either that
 * file is older than L's newest holding a frame reported written (which
 * began, so it rang F out), or F is that newest one, was gone from the
 * disk whole and the next had begun, before the readers ran - the next
 * file began with its first frame in flight and the kill cut the message
 * off (seed 0xc1caf5093a2a4d22: max-files=1, location 0's only file with
 * frames deleted, none of it read).  A file still there that lost frames
 * is never excused here (the adversarial read of 68ae2f7: the first
 * version excused every frame of the newest file with max-files=1,
 * rotating or not). */
static gboolean
rung_out (Check * c, GHashTable * reported, gconstpointer key,
    const Rung * rung)
{
  const TorturePlan *p = c->p;
  const TortureWritten *w = g_hash_table_lookup (reported, key);
  const Rung *r;

  if (p->max_files == 0 || !(p->max_file_size || p->max_file_duration)
      || w == NULL || !w->placed || w->location >= MIN_READ_LOCATIONS)
    return FALSE;
  r = &rung[w->location];
  if (w->file + p->max_files <= r->newest)
    return TRUE;
  if (w->file + p->max_files != r->newest + 1 || w->file != r->newest)
    return FALSE;
  return r->newest_gone && r->next_began;
}

static void
check_session (Check * c, guint s, const gchar * self)
{
  const TorturePlan *p = c->p;
  const TortureSession *S = &c->h->s[s];
  TortureVerdict *v = c->v;
  gboolean faulted = session_faulted (c, s);
  TortureReadback rb;
  GHashTable *reported, *excused, *read;
  GHashTableIter it;
  gpointer key;
  GList *missing = NULL, *extra = NULL;
  guint64 min_read = G_MAXUINT64, fw, min_read_at[MIN_READ_LOCATIONS];
  Rung rung[MIN_READ_LOCATIONS];
  GHashTable *gone;
  guint i;

  for (i = 0; i < MIN_READ_LOCATIONS; i++)
    min_read_at[i] = G_MAXUINT64;
  reported = reported_of (c, S);
  torture_account_session (p, c->h, s, reported, !(c->killed
          && s == c->last_session), v);
  torture_events_check (p, c->w, c->h, s, reported, !(c->killed
          && s == c->last_session), v);
  /* (a directory moved away and back: the sink could not delete there
   * meanwhile, rightly) */
  torture_retention_check (p, c->w, c->h, s, c->removed
      | (c->h->moved_dir ? 1u << p->rmdir_loc : 0), !(c->killed
          && s == c->last_session), v);
  look_before_readers (c, s, reported, rung);
  gone = files_gone_before_readers (c, s, reported);
  torture_readback (p, c->w, s, c->removed, left_empty (c, s), faulted ?
      TORTURE_READ_RECOVER | TORTURE_READ_TAILS : 0, self, &rb);
  if (rb.problems->len)
    problem (v, "%s", rb.problems->str);
  g_string_append (v->notes, rb.notes->str);

  excused = g_hash_table_new (g_int64_hash, g_int64_equal);
  excuse_deleted (c, s, reported, excused);
  read = read_set_of (c, S, &rb, reported);
  if (!rb.reader_error)
    check_dump (c, S, &rb, read);

  g_hash_table_iter_init (&it, read);
  while (g_hash_table_iter_next (&it, &key, NULL)) {
    const TortureWritten *w = g_hash_table_lookup (reported, key);

    min_read = MIN (min_read, *(guint64 *) key);
    if (w && w->placed && w->location < MIN_READ_LOCATIONS)
      min_read_at[w->location] = MIN (min_read_at[w->location],
          *(guint64 *) key);
  }
  g_hash_table_iter_init (&it, reported);
  while (g_hash_table_iter_next (&it, &key, NULL)) {
    guint64 k = *(guint64 *) key;

    if (g_hash_table_contains (read, key) || g_hash_table_contains (excused,
            key))
      continue;
    /* a killed set whose oldest files max-files or min-free-space deleted
     * before it could say so: the oldest at the frame's location, which
     * deletes its own (seed 0x08c65d7ed6bde46d: a kill between the unlink
     * of location 1's oldest file and its message, location 0 holding
     * older frames) */
    if (c->killed && s == c->last_session && deletion_possible (p)
        && gone_before_readers (reported, key, gone)
        && (k < below_read (reported, key, min_read, min_read_at)
            || rung_out (c, reported, key, rung))) {
      g_hash_table_add (excused, key);
      continue;
    }
    /* gone with a removed directory: all of them when it held every
     * location, else those not found at the others */
    if (c->removed) {
      g_hash_table_add (excused, key);
      continue;
    }
    missing = g_list_prepend (missing, key);
  }
  g_hash_table_iter_init (&it, read);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (reported, key))
      extra = g_list_prepend (extra, key);
  missing = g_list_sort (missing, cmp_u64);
  extra = g_list_sort (extra, cmp_u64);

  if (missing) {
    GString *l = g_string_new (NULL);

    list_keys (l, missing);
    problem (v, "LOST: %u frames reported written (session %u) were not "
        "read back:%s\n", g_list_length (missing), s, l->str);
    g_string_free (l, TRUE);
  }
  fw = stat_u64 (S->final, "frames-written");
  if (extra && S->final && !faulted && stat_u64 (S->final,
          "messages-lost") == 0) {
    GString *l = g_string_new (NULL);

    list_keys (l, extra);
    problem (v, "%u frames in the recording were never reported written, "
        "though it ended cleanly (session %u):%s\n", g_list_length (extra),
        s, l->str);
    g_string_free (l, TRUE);
  }
  /* (a session whose start failed has the stats of the run before) */
  if (S->final && stat_u64 (S->final, "messages-lost") == 0
      && fw != g_hash_table_size (reported)
      && !(S->errors->len > 0 && g_hash_table_size (reported) == 0))
    problem (v, "session %u: frames-written says %" G_GUINT64_FORMAT ", %u "
        "frame-written messages came\n", s, fw, g_hash_table_size (reported));

  for (i = 0; i < S->errors->len; i++) {
    gchar *e = torture_error_string (g_ptr_array_index (S->errors, i));

    note (v, "session %u error: %s\n", s, e);
    g_free (e);
    v->errors++;
  }
  v->reported += g_hash_table_size (reported);
  v->read += g_hash_table_size (read);
  v->excused += g_hash_table_size (excused);
  v->extra += g_list_length (extra);
  v->dropped += stat_u64 (S->final, "frames-dropped");
  v->lost += stat_u64 (S->final, "frames-lost");
  g_list_free (missing);
  g_list_free (extra);
  g_hash_table_unref (read);
  g_hash_table_unref (gone);
  g_hash_table_unref (excused);
  g_hash_table_unref (reported);
  torture_readback_clear (&rb);
}

/* ---- the files around it ----------------------------------------------- */

static gboolean
begins_with (const gchar * path, const gchar * magic)
{
  gchar buf[16] = { 0 };
  gint fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  gsize n = strlen (magic);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = read (fd, buf, n) == (gssize) n && memcmp (buf, magic, n) == 0;
  close (fd);
  return ok;
}

/* Whether the recording made a file of its own at path */
static gboolean
reached (const gchar * path, gpointer data)
{
  Check *c = data;
  struct stat sb;
  gchar *idx;
  gboolean ours;
  guint s, i;

  for (s = 0; s < 2; s++)
    for (i = 0; i < c->h->s[s].messages->len; i++) {
      const GstStructure *m = g_ptr_array_index (c->h->s[s].messages, i);

      if (gst_structure_has_name (m, "rtframesink-file-opened")
          && g_strcmp0 (gst_structure_get_string (m, "location"), path) == 0)
        return TRUE;
    }
  if (lstat (path, &sb) != 0 || !S_ISREG (sb.st_mode))
    return FALSE;
  idx = g_strconcat (path, ".idx", NULL);
  ours = lgetxattr (path, "user.rtframe", NULL, 0) > 0
      || begins_with (idx, "RTFINDEX");
  g_free (idx);
  return ours;
}

static gboolean
is_foreign (Check * c, const gchar * path)
{
  guint i;

  for (i = 0; i < c->w->foreign->len; i++)
    if (g_str_equal (((TortureForeign *) g_ptr_array_index (c->w->foreign,
                    i))->path, path))
      return TRUE;
  return FALSE;
}

/* Prepared files and manifest temporaries the sink left behind */
static void
check_leftovers (Check * c)
{
  guint i;

  for (i = 0; i < c->w->n_loc; i++) {
    GDir *d;
    const gchar *name;

    if (c->removed & (1u << i))
      continue;
    d = g_dir_open (c->w->loc[i].dir, 0, NULL);
    while (d && (name = g_dir_read_name (d))) {
      gchar *path = g_build_filename (c->w->loc[i].dir, name, NULL);

      if (name[0] == '.' && (g_str_has_suffix (name, ".rtfprep")
              || g_str_has_suffix (name, ".tmp")) && !is_foreign (c, path)) {
        if (c->killed)
          note (c->v, "left by the kill: %s\n", path);
        else
          problem (c->v, "left behind after the recording ended: %s\n", path);
      }
      g_free (path);
    }
    if (d)
      g_dir_close (d);
  }
}

void
torture_check_round (const TorturePlan * p, TortureWorld * w,
    const TortureRun * child, const gchar * self, TortureVerdict * v)
{
  gchar *path = g_build_filename (w->round_dir, "history", NULL);
  Check c = { p, w, NULL, v, FALSE, 0, 0 };
  guint s;

  memset (v, 0, sizeof (*v));
  v->problems = g_string_new (NULL);
  v->notes = g_string_new (NULL);
  c.h = torture_history_read (path, p->duration_ns);
  g_free (path);
  v->history_tail = torture_history_tail (c.h, 60);
  c.last_session = c.h->s[1].seen ? 1 : 0;
  check_child (&c, child);
  for (s = 0; s < c.h->lines->len; s++) {
    const gchar *l = g_ptr_array_index (c.h->lines, s);

    if (g_str_has_prefix (l, "mid ") || g_str_has_prefix (l, "act ")
        || g_str_has_prefix (l, "fault ") || g_str_has_prefix (l, "# push"))
      note (v, "history: %s\n", l);
  }
  torture_world_restore (w);
  if (c.h->removed_dir)
    c.removed = 1u << p->rmdir_loc;
  for (s = 0; s < 2; s++)
    if (c.h->s[s].seen)
      check_session (&c, s, self);
  if (torture_world_check_foreign (w, reached, &c, v->problems))
    v->failed = TRUE;
  check_leftovers (&c);
  torture_history_free (c.h);
}

void
torture_verdict_clear (TortureVerdict * v)
{
  if (v->problems)
    g_string_free (v->problems, TRUE);
  if (v->notes)
    g_string_free (v->notes, TRUE);
  g_free (v->history_tail);
  memset (v, 0, sizeof (*v));
}
