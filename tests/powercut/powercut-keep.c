/* What must hold at every point for a ring's recordings
 * (powercut-keep.h) */
#include "powercut-keep.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "powercut-read.h"
#include "rtf-file-mark.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-test-util.h"

#define MAX_RECORDINGS 16
#define SOME 10                 /* frames named in a problem */

/* A recording of the ring, as told before the point */
typedef struct
{
  gboolean started, stopped;
  guint64 first, last;          /* last: G_MAXUINT64 until stopped */
  gchar *dir;                   /* its directory (NULL: none made) */
  GHashTable *kept;             /* ring file numbers told kept */
} Told;

typedef struct
{
  const PcScenario *sc;
  const PcSink *k;
  const PcHistory *h;
  guint sink;
  const gchar *root, *tools;
  GString *problems, *notes;
  gchar *ring;                  /* root/slice/pattern of the ring */
  guint8 *want;                 /* a frame's size */
  GHashTable *file_of;          /* stamp -> the ring file it was written in */
  GHashTable *reason;           /* ring file -> why the sink deleted it */
  GHashTable *ring_frames;      /* ring file -> its frames now (stamp ->
                                 * times), read as asked */
  GHashTable *dir_frames;       /* directory -> its frames (the same) */
  GHashTable *durable_files;    /* ring files holding a durable frame */
  GPtrArray *unindexed;         /* directories' data files whose index
                                 * link a cut may have lost (or that hold
                                 * no durable frame) */
  RtfRecordingId id;            /* the ring's recording id */
  gboolean has_id;
  Told told[MAX_RECORDINGS];
} Keeps;

static guint64 *
key_of (guint64 v)
{
  return g_memdup2 (&v, sizeof v);
}

static GHashTable *
u64_table (GDestroyNotify value_free)
{
  return g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      value_free);
}

static void
count (GHashTable * t, guint64 k)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (t, &k));

  g_hash_table_insert (t, key_of (k), GUINT_TO_POINTER (n + 1));
}

/* ---- what the sink told ------------------------------------------------ */

static guint64
u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = G_MAXUINT64;

  gst_structure_get_uint64 (s, name, &v);
  return v;
}

static void
learn (Keeps * c, const PcMark * m)
{
  const PcHistory *h = c->h;
  GPtrArray *msgs = h->messages[c->sink];
  GArray *all = pc_history_written_at (h, c->sink, 0);
  guint i;

  for (i = 0; i < all->len; i++) {
    const PcWritten *w = &g_array_index (all, PcWritten, i);

    if (w->k != G_MAXUINT64)
      g_hash_table_insert (c->file_of, key_of (w->k), key_of (w->file));
  }
  g_array_unref (all);
  for (i = 0; i < msgs->len; i++) {
    const GstStructure *s = g_ptr_array_index (msgs, i);
    guint64 n = u64 (s, "number");
    Told *t = n < MAX_RECORDINGS ? &c->told[n] : NULL;

    /* (deletions: whenever told - the unlink may reach the disk first) */
    if (gst_structure_has_name (s, "rtframesink-file-deleted")) {
      const gchar *why = gst_structure_get_string (s, "reason");

      g_hash_table_insert (c->reason, key_of (u64 (s, "index")),
          g_strdup (why ? why : "?"));
      continue;
    }
    if (t == NULL || !pc_history_told_before (h, c->sink, i, m))
      continue;
    if (gst_structure_has_name (s, "rtframesink-recording-started")) {
      const gchar *dir = gst_structure_get_string (s, "location");

      t->started = TRUE;
      t->first = u64 (s, "first-frame");
      /* (the recorder's path: the same under this root) */
      if (dir && g_str_has_prefix (dir, h->root))
        t->dir = g_build_filename (c->root, dir + strlen (h->root), NULL);
    } else if (gst_structure_has_name (s, "rtframesink-recording-stopped")) {
      t->stopped = TRUE;
      t->last = u64 (s, "last-frame");
    } else if (gst_structure_has_name (s, "rtframesink-file-kept")) {
      if (t->kept == NULL)
        t->kept = u64_table (NULL);
      g_hash_table_add (t->kept, key_of (u64 (s, "index")));
    }
  }
}

/* The last frame recording n can hold where its stop is not told yet:
 * short of the stop the scenario asks (a frame before it, whatever the
 * rules decide at the edge) */
static guint64
last_asked (const Keeps * c, guint64 n)
{
  guint e, starts = 0;

  for (e = 0; e < c->k->n_events; e++) {
    if (c->k->events[e].start && starts++ == n) {
      for (; e < c->k->n_events; e++)
        if (!c->k->events[e].start) {
          guint64 at = c->k->events[e].at_ns / c->k->duration_ns;

          return at >= 2 ? at - 2 : 0;
        }
      break;
    }
  }
  return G_MAXUINT64;
}

/* ---- reading a file ---------------------------------------------------- */

/* The frames of the data file at path through its index, each byte-exact
 * one's stamp counted in found; a record that is not its frame: its
 * number into bad.  NULL: no index (else the index: rtf_index_free) */
static RtfIndex *
read_frames (Keeps * c, const gchar * path, GHashTable * found, GArray * bad)
{
  gchar *ipath = rtf_index_path (path), *bytes = NULL;
  RtfIndex *idx = rtf_index_load (ipath, NULL);
  gsize len = 0;
  guint64 i;

  g_free (ipath);
  if (idx == NULL)
    return NULL;
  if (!g_file_get_contents (path, &bytes, &len, NULL))
    len = 0;
  for (i = 0; i < idx->n_records; i++) {
    const RtfIndexRecord *r = &idx->records[i];
    const guint8 *at = (const guint8 *) bytes + r->offset;
    guint64 k = G_MAXUINT64;
    guint s = 0;

    if (r->offset + r->size > len || r->size != c->k->frame_size
        || sscanf ((const gchar *) at, "S%02uF%019" G_GUINT64_FORMAT, &s,
            &k) != 2 || s != c->k->stream || k >= c->k->n_frames) {
      g_array_append_val (bad, r->seq);
      continue;
    }
    rtf_test_fill_frame (c->want, c->k->frame_size, c->k->stream, k);
    if (memcmp (c->want, at, c->k->frame_size) != 0)
      g_array_append_val (bad, r->seq);
    else
      count (found, k);
  }
  g_free (bytes);
  return idx;
}

/* The frames ring file n holds now (after rtframe-recover) */
static GHashTable *
ring_file (Keeps * c, guint64 n)
{
  GHashTable *found = g_hash_table_lookup (c->ring_frames, &n);

  if (found == NULL) {
    gchar *path = rtf_pattern_format (c->ring, n);
    GArray *bad = g_array_new (FALSE, FALSE, sizeof (guint64));
    RtfIndex *idx;

    found = u64_table (NULL);
    if ((idx = read_frames (c, path, found, bad)) != NULL) {
      if (!c->has_id && !rtf_recording_id_is_zero (&idx->header.recording_id)) {
        c->id = idx->header.recording_id;
        c->has_id = TRUE;
      }
      rtf_index_free (idx);
    }
    g_array_unref (bad);
    g_free (path);
    g_hash_table_insert (c->ring_frames, key_of (n), found);
  }
  return found;
}

/* The ring's recording id, from the first of its files there */
static void
ring_id (Keeps * c)
{
  RtfPattern p;
  GDir *d;
  const gchar *name;
  guint64 n;

  if (!rtf_pattern_parse (c->ring, &p))
    return;
  if ((d = g_dir_open (p.dir, 0, NULL)) != NULL) {
    while (!c->has_id && (name = g_dir_read_name (d)) != NULL)
      if (rtf_pattern_match (&p, name, &n))
        ring_file (c, n);
    g_dir_close (d);
  }
  rtf_pattern_clear (&p);
}

/* ---- (c) the tools ----------------------------------------------------- */

/* The files rtframe-recover --dry-run says it would cut a tail of, and
 * those it leaves a power cut's tail in */
static GPtrArray *
torn (const gchar * out)
{
  GPtrArray *files = pc_read_tails_left (out);
  gchar **lines = g_strsplit (out, "\n", -1);
  guint i;

  for (i = 0; lines[i]; i++) {
    const gchar *at = strstr (lines[i], ": keeping ");

    if (at && strstr (lines[i], "would cut"))
      g_ptr_array_add (files, g_strndup (lines[i], at - lines[i]));
  }
  g_strfreev (lines);
  return files;
}

/* The files rtframe-recover --dry-run would delete because no frame of
 * them was written: a file kept while its first frame was in flight */
static GPtrArray *
frameless (const gchar * out)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  gchar **lines = g_strsplit (out, "\n", -1);
  guint i;

  for (i = 0; lines[i]; i++) {
    const gchar *at = strstr (lines[i], ": no frame of it was reported "
        "written");

    if (at && g_str_has_suffix (lines[i], "would delete it"))
      g_ptr_array_add (files, g_strndup (lines[i], at - lines[i]));
  }
  g_strfreev (lines);
  return files;
}

/* Every FAULT of rtframe-verify's output a torn tail, a file with no
 * frame that recover would delete, or a data file whose index link the
 * cut lost (linked after it: the ring's index is still there) or that
 * holds no durable frame */
static gboolean
explained (Keeps * c, const gchar * out, GPtrArray * tails, GPtrArray * empty)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  gboolean all = TRUE;
  guint i;

  for (i = 0; all && lines[i]; i++)
    if (g_str_has_prefix (lines[i], "FAULT ")
        && !pc_read_names_one_of (lines[i], empty)
        && !(g_str_has_suffix (lines[i], "(no index)")
            && pc_read_names_one_of (lines[i], c->unindexed)))
      all = pc_read_faults_explained (c->sc, c->root, lines[i], tails);
  g_strfreev (lines);
  return all;
}

/* rtframe-recover --dry-run, then rtframe-verify, on target: nothing but
 * a torn tail, or a file with no frame; ring: recover has already run
 * there, so it would cut nothing but a tail it leaves for its length */
static void
tools_on (Keeps * c, const gchar * target, gboolean ring)
{
  gchar *out = NULL, *faults;
  GPtrArray *tails, *empty;
  gint code;

  code = pc_read_tool (c->tools, "rtframe-recover", target, "--dry-run", &out);
  tails = ring ? pc_read_tails_left (out) : torn (out);
  empty = frameless (out);
  if (code < 0 || code > 1 || pc_read_says_sanitizer (out)
      || (ring && strstr (out, "would delete"))
      || (ring && strstr (out, "would cut") && tails->len == 0)) {
    faults = pc_read_fault_lines (out);
    g_string_append_printf (c->problems, "%s: (c) rtframe-recover --dry-run "
        "%s: exit %d:\n%.2000s\n", c->k->name, target, code, faults);
    g_free (faults);
  }
  g_free (out);
  out = NULL;
  if (!ring) {
    code = pc_read_tool (c->tools, "rtframe-verify", target, "--allow-gaps",
        &out);
    if (code < 0 || code > 1 || pc_read_says_sanitizer (out)
        || (code == 1 && !explained (c, out, tails, empty))) {
      faults = pc_read_fault_lines (out);
      g_string_append_printf (c->problems, "%s: (c) rtframe-verify %s: exit "
          "%d:\n%.2000s\n", c->k->name, target, code, faults);
      g_free (faults);
    }
    g_free (out);
  }
  g_ptr_array_unref (empty);
  g_ptr_array_unref (tails);
}

/* ---- (b) a recording's directory --------------------------------------- */

/* Data file n of the directory: the ring's, and its frames */
static void
dir_file (Keeps * c, const gchar * dir, const gchar * name, guint64 n,
    GHashTable * found)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *ringpath = rtf_pattern_format (c->ring, n);
  gchar *ipath = rtf_index_path (ringpath);
  GArray *bad = g_array_new (FALSE, FALSE, sizeof (guint64));
  GHashTable *here = u64_table (NULL);
  GHashTableIter it;
  gpointer key;
  RtfIndex *idx;
  RtfRecordingId id;
  guint64 mark_n;
  struct stat st, rst;
  gint fd;
  guint i;

  if (lstat (path, &st) != 0 || !S_ISREG (st.st_mode)) {
    g_string_append_printf (c->problems, "%s: (b) %s is not a regular file\n",
        c->k->name, path);
    goto out;
  }
  if (lstat (ringpath, &rst) == 0 && (rst.st_ino != st.st_ino
          || rst.st_dev != st.st_dev))
    g_string_append_printf (c->problems, "%s: (b) %s is not the ring's file "
        "%s (inode %" G_GUINT64_FORMAT ", the ring's %" G_GUINT64_FORMAT
        ")\n", c->k->name, path, ringpath, (guint64) st.st_ino,
        (guint64) rst.st_ino);
  if ((fd = open (path, O_RDONLY | O_CLOEXEC)) >= 0) {
    if (rtf_file_mark_get (fd, &id, &mark_n) && (mark_n != n || (c->has_id
                && !rtf_recording_id_equal (&id, &c->id))))
      g_string_append_printf (c->problems, "%s: (b) %s: its mark names file "
          "%" G_GUINT64_FORMAT "%s, not the ring's file %" G_GUINT64_FORMAT
          "\n", c->k->name, path, mark_n, mark_n == n ? " of another "
          "recording" : "", n);
    close (fd);
  }
  if ((idx = read_frames (c, path, here, bad)) == NULL) {
    gchar *own = rtf_index_path (path);

    /* the index is linked after the data: a cut between keeps the
     * ring's index name (its deletion came later); an index with no
     * record (its first frame in flight) holds no durable frame */
    if (lstat (own, &rst) != 0 && lstat (ipath, &rst) != 0
        && g_hash_table_contains (c->durable_files, &n))
      g_string_append_printf (c->problems, "%s: (b) %s has no index, and "
          "the ring's %s is gone\n", c->k->name, path, ipath);
    else {
      g_string_append_printf (c->notes, "%s: %s: no index read (%s)\n",
          c->k->name, path, lstat (own, &rst) == 0 ? "empty" : "its link "
          "lost at the cut");
      g_ptr_array_add (c->unindexed, g_strdup (path));
    }
    g_free (own);
    goto out;
  }
  if (idx->header.file_number != n || (c->has_id
          && !rtf_recording_id_equal (&idx->header.recording_id, &c->id))
      || g_strcmp0 (idx->header.data_name, name) != 0)
    g_string_append_printf (c->problems, "%s: (b) %s: its index is of "
        "file %" G_GUINT64_FORMAT " (%s)%s, not the ring's file %"
        G_GUINT64_FORMAT "\n", c->k->name, path, idx->header.file_number,
        idx->header.data_name ? idx->header.data_name : "no name",
        c->has_id && !rtf_recording_id_equal (&idx->header.recording_id,
            &c->id) ? " of another recording" : "", n);
  rtf_index_free (idx);
  g_hash_table_iter_init (&it, here);
  while (g_hash_table_iter_next (&it, &key, NULL)) {
    guint64 *was = g_hash_table_lookup (c->file_of, key);

    if (was == NULL || *was != n)
      g_string_append_printf (c->problems, "%s: (b) %s holds frame %"
          G_GUINT64_FORMAT ", which the ring wrote %s%" G_GUINT64_FORMAT
          "\n", c->k->name, path, *(guint64 *) key, was ? "into its file " :
          "nowhere", was ? *was : 0);
    for (i = 0; i < GPOINTER_TO_UINT (g_hash_table_lookup (here, key)); i++)
      count (found, *(guint64 *) key);
  }
  /* a record that is not its frame's bytes: only past what is durable (a
   * torn tail, which rtframe-recover --dry-run names) */
  for (i = 0; i < bad->len; i++)
    g_string_append_printf (c->notes, "%s: %s: record of frame %"
        G_GUINT64_FORMAT " not its bytes (torn tail?)\n", c->k->name, path,
        g_array_index (bad, guint64, i));
out:
  g_hash_table_unref (here);
  g_array_unref (bad);
  g_free (ipath);
  g_free (ringpath);
  g_free (path);
}

/* A recording's directory: the ring's files only, each frame once */
static void
check_dir (Keeps * c, const gchar * dir)
{
  gchar *base = g_path_get_basename (c->ring);
  gchar *pattern = g_build_filename (dir, base, NULL);
  GHashTable *found = u64_table (NULL);
  GHashTableIter it;
  gpointer key, value;
  RtfPattern p;
  GDir *d;
  const gchar *name;
  guint64 n;
  guint files = 0;

  rtf_pattern_parse (pattern, &p);
  if ((d = g_dir_open (dir, 0, NULL)) == NULL) {
    g_string_append_printf (c->problems, "%s: (b) %s cannot be read\n",
        c->k->name, dir);
  } else {
    while ((name = g_dir_read_name (d)) != NULL) {
      gchar *data = g_str_has_suffix (name, ".idx") ? g_strndup (name,
          strlen (name) - 4) : NULL;

      if (rtf_pattern_match (&p, name, &n)) {
        dir_file (c, dir, name, n, found);
        files++;
      } else if (data && rtf_pattern_match (&p, data, &n)) {
        gchar *dpath = g_build_filename (dir, data, NULL);

        /* (data first, then its index: an index alone is out of order) */
        if (!g_file_test (dpath, G_FILE_TEST_EXISTS))
          g_string_append_printf (c->problems, "%s: (b) %s/%s: an index "
              "without its data file\n", c->k->name, dir, name);
        g_free (dpath);
      } else {
        g_string_append_printf (c->problems, "%s: (b) %s/%s: not a file the "
            "ring wrote\n", c->k->name, dir, name);
      }
      g_free (data);
    }
    g_dir_close (d);
  }
  g_hash_table_iter_init (&it, found);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (GPOINTER_TO_UINT (value) > 1)
      g_string_append_printf (c->problems, "%s: (b) frame %" G_GUINT64_FORMAT
          " is %u times in %s\n", c->k->name, *(guint64 *) key,
          GPOINTER_TO_UINT (value), dir);
  if (files)
    tools_on (c, pattern, FALSE);
  g_string_append_printf (c->notes, "%s: %s: %u files, %u frames\n",
      c->k->name, dir, files, g_hash_table_size (found));
  g_hash_table_insert (c->dir_frames, g_strdup (dir), found);
  rtf_pattern_clear (&p);
  g_free (pattern);
  g_free (base);
}

/* Every directory of keep-location's pattern there, told or not */
static void
check_dirs (Keeps * c)
{
  gchar *keep = pc_sink_keep (c->k, c->root);
  RtfPattern p;
  GDir *d;
  const gchar *name;
  guint64 n;

  if (!rtf_pattern_parse (keep, &p)) {
    g_free (keep);
    return;
  }
  if ((d = g_dir_open (p.dir, 0, NULL)) != NULL) {
    while ((name = g_dir_read_name (d)) != NULL) {
      gchar *dir = g_build_filename (p.dir, name, NULL);

      if (rtf_pattern_match (&p, name, &n)
          && g_file_test (dir, G_FILE_TEST_IS_DIR))
        check_dir (c, dir);
      else
        g_string_append_printf (c->problems, "%s: (b) %s: not a recording's "
            "directory\n", c->k->name, dir);
      g_free (dir);
    }
    g_dir_close (d);
  }
  rtf_pattern_clear (&p);
  g_free (keep);
}

/* ---- (a) and (d) ------------------------------------------------------- */

static void
check_recording (Keeps * c, guint n, GArray * durable)
{
  Told *t = &c->told[n];
  GHashTable *in_dir = t->dir ? g_hash_table_lookup (c->dir_frames, t->dir)
      : NULL;
  guint64 last = t->stopped ? t->last : last_asked (c, n);
  GString *lost = g_string_new (NULL), *gone = g_string_new (NULL);
  guint i, n_lost = 0, n_gone = 0, excused = 0, held = 0;

  for (i = 0; i < durable->len; i++) {
    const PcWritten *w = &g_array_index (durable, PcWritten, i);
    const gchar *why;

    if (w->frame < t->first || w->frame > last || w->k == G_MAXUINT64)
      continue;
    held++;
    if ((in_dir && g_hash_table_contains (in_dir, &w->k))
        || g_hash_table_contains (ring_file (c, w->file), &w->k))
      continue;
    why = g_hash_table_lookup (c->reason, &w->file);
    if (g_strcmp0 (why, "min-free-space") == 0) {
      excused++;
      continue;
    }
    if (t->kept && g_hash_table_contains (t->kept, &w->file)) {
      if (n_lost++ < SOME)
        g_string_append_printf (lost, " %" G_GUINT64_FORMAT "(file %"
            G_GUINT64_FORMAT "%s%s)", w->k, w->file, why ? ", ring: " : "",
            why ? why : "");
    } else if (n_gone++ < SOME) {
      g_string_append_printf (gone, " %" G_GUINT64_FORMAT "(file %"
          G_GUINT64_FORMAT "%s%s)", w->k, w->file, why ? ", deleted: " :
          ", no deletion told", why ? why : "");
    }
  }
  if (n_lost)
    g_string_append_printf (c->problems, "%s: (a) KEPT, LOST: recording %u "
        "(%s): %u frames told durable in ring files it told kept are neither "
        "in its directory nor at their ring names:%s%s - a link lost while "
        "the ring's later deletion of the name stayed (metadata out of "
        "order), or a keep that did not keep\n", c->k->name, n,
        t->dir ? t->dir : "no directory", n_lost, lost->str,
        n_lost > SOME ? " ..." : "");
  if (n_gone)
    g_string_append_printf (c->problems, "%s: (d) DELETED BEFORE KEPT: "
        "recording %u (%s, frames %" G_GUINT64_FORMAT "..%s): %u frames told "
        "durable it needs, in ring files it has not told kept, are neither "
        "in its directory nor in the ring:%s%s\n", c->k->name, n,
        t->dir ? t->dir : "no directory", t->first, t->stopped ? "told" :
        "asked", n_gone, gone->str, n_gone > SOME ? " ..." : "");
  g_string_append_printf (c->notes, "%s: recording %u: %u durable frames "
      "checked (%u excused: min-free-space)\n", c->k->name, n, held, excused);
  g_string_free (lost, TRUE);
  g_string_free (gone, TRUE);
}

void
pc_check_keeps (const PcScenario * sc, const PcHistory * h, guint sink,
    const PcMark * m, const gchar * root, const gchar * tools,
    GString * problems, GString * notes)
{
  Keeps c = { 0 };
  GArray *durable;
  guint n;

  c.sc = sc;
  c.k = &sc->sinks[sink];
  c.h = h;
  c.sink = sink;
  c.root = root;
  c.tools = tools;
  c.problems = problems;
  c.notes = notes;
  c.ring = pc_sink_location (c.k, 0, root);
  c.want = g_malloc (c.k->frame_size);
  c.file_of = u64_table (g_free);
  c.reason = u64_table (g_free);
  c.ring_frames = u64_table ((GDestroyNotify) g_hash_table_unref);
  c.dir_frames = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) g_hash_table_unref);
  c.durable_files = u64_table (NULL);
  c.unindexed = g_ptr_array_new_with_free_func (g_free);
  durable = pc_history_written_at (h, sink, 0);
  if (durable->len > (m ? m->durable[sink][0] : 0))
    g_array_set_size (durable, m ? m->durable[sink][0] : 0);
  for (n = 0; n < durable->len; n++)
    g_hash_table_add (c.durable_files, key_of (g_array_index (durable,
                PcWritten, n).file));
  learn (&c, m);
  ring_id (&c);
  check_dirs (&c);
  tools_on (&c, c.ring, TRUE);
  for (n = 0; n < MAX_RECORDINGS; n++) {
    if (c.told[n].started)
      check_recording (&c, n, durable);
    g_free (c.told[n].dir);
    if (c.told[n].kept)
      g_hash_table_unref (c.told[n].kept);
  }
  g_array_unref (durable);
  g_hash_table_unref (c.dir_frames);
  g_hash_table_unref (c.durable_files);
  g_ptr_array_unref (c.unindexed);
  g_hash_table_unref (c.ring_frames);
  g_hash_table_unref (c.reason);
  g_hash_table_unref (c.file_of);
  g_free (c.want);
  g_free (c.ring);
}
