/* What must hold at every point of the power-cut test
 * (powercut-invariants.h) */
#include "powercut-invariants.h"

#include <string.h>
#include <sys/stat.h>

#include "rtf-pattern.h"

static guint64
file_key (guint loc, guint64 file)
{
  return ((guint64) loc << 56) | (file & G_GUINT64_CONSTANT (0xffffffffffffff));
}

static void
add_key (GHashTable * set, guint64 key)
{
  g_hash_table_add (set, g_memdup2 (&key, sizeof key));
}

GHashTable *
pc_deleted_files (const PcScenario * sc, const PcHistory * h, guint sink)
{
  const PcSink *k = &sc->sinks[sink];
  GHashTable *set = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, NULL);
  guint i, l;

  for (i = 0; i < h->messages[sink]->len; i++) {
    const GstStructure *m = g_ptr_array_index (h->messages[sink], i);
    const gchar *path = gst_structure_get_string (m, "location");
    guint64 n = G_MAXUINT64;

    if (!gst_structure_has_name (m, "rtframesink-file-deleted") || !path
        || !gst_structure_get_uint64 (m, "index", &n))
      continue;
    /* (the path is the recorder's: its location patterns say which) */
    for (l = 0; l < pc_sink_n_locations (k); l++) {
      gchar *loc = pc_sink_location (k, l, h->root);

      if (rtf_pattern_names (loc, path, n))
        add_key (set, file_key (l, n));
      g_free (loc);
    }
  }
  return set;
}

/* The first n frames written at location loc */
static GArray *
claimed_at (const PcHistory * h, guint sink, guint loc, guint64 n)
{
  GArray *at = pc_history_written_at (h, sink, loc);

  if (at->len > n)
    g_array_set_size (at, n);
  return at;
}

/* Whether a file of loc numbered after n, up to last, is on disk */
static gboolean
later_exists (const gchar * loc, guint64 n, guint64 last)
{
  gboolean is = FALSE;

  while (!is && ++n <= last) {
    gchar *path = rtf_pattern_format (loc, n);
    struct stat sb;

    is = lstat (path, &sb) == 0;
    g_free (path);
  }
  return is;
}

GHashTable *
pc_claimed_files_gone (const PcScenario * sc, const PcHistory * h,
    guint sink, const PcMark * m, const gchar * root)
{
  const PcSink *k = &sc->sinks[sink];
  GHashTable *gone = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, NULL);
  /* a file is deleted only after the next one of its location was named
   * (max-files and min-free-space delete closed files), and the log keeps
   * names in the order given: where no later file is on disk, this one
   * was never deleted there - it lost its name, which nothing excuses */
  guint l, i;

  for (l = 0; m && l < pc_sink_n_locations (k); l++) {
    GArray *at = claimed_at (h, sink, l, m->durable[sink][l]);
    GArray *all = pc_history_written_at (h, sink, l);
    gchar *loc = pc_sink_location (k, l, root);
    guint64 last = G_MAXUINT64, newest = 0;

    for (i = 0; i < all->len; i++)
      newest = MAX (newest, g_array_index (all, PcWritten, i).file);
    g_array_unref (all);
    for (i = 0; i < at->len; i++) {
      const PcWritten *w = &g_array_index (at, PcWritten, i);
      gchar *path;
      struct stat sb;

      if (w->file == last)
        continue;
      last = w->file;
      path = rtf_pattern_format (loc, w->file);
      if (lstat (path, &sb) != 0 && later_exists (loc, w->file, newest + 1))
        add_key (gone, file_key (l, w->file));
      g_free (path);
    }
    g_free (loc);
    g_array_unref (at);
  }
  return gone;
}

void
pc_check_claims (const PcScenario * sc, const PcHistory * h, guint sink,
    const PcMark * m, const PcRead * r, GHashTable * deleted,
    GHashTable * gone, GString * problems)
{
  const PcSink *k = &sc->sinks[sink];
  GHashTableIter it;
  gpointer key, value;
  guint l, i, missing = 0, excused = 0;
  GString *some = g_string_new (NULL);

  g_hash_table_iter_init (&it, r->played);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (GPOINTER_TO_UINT (value) > 1)
      g_string_append_printf (problems, "%s: frame %" G_GUINT64_FORMAT
          " played %u times\n", k->name, *(guint64 *) key,
          GPOINTER_TO_UINT (value));
  for (l = 0; m && l < pc_sink_n_locations (k); l++) {
    GArray *at = claimed_at (h, sink, l, m->durable[sink][l]);

    if (at->len < m->durable[sink][l])
      g_string_append_printf (problems, "%s: location %u: the mark claims %"
          G_GUINT64_FORMAT " frames durable, %u were reported written there\n",
          k->name, l, m->durable[sink][l], at->len);
    for (i = 0; i < at->len; i++) {
      const PcWritten *w = &g_array_index (at, PcWritten, i);
      guint64 fk = file_key (l, w->file);

      if (w->k != G_MAXUINT64 && g_hash_table_contains (r->played, &w->k))
        continue;
      if (g_hash_table_contains (deleted, &fk)
          && g_hash_table_contains (gone, &fk)) {
        excused++;
        continue;
      }
      if (missing++ < 12)
        g_string_append_printf (some, " %" G_GUINT64_FORMAT "(file %"
            G_GUINT64_FORMAT ")", w->k, w->file);
    }
    g_array_unref (at);
  }
  if (missing)
    g_string_append_printf (problems, "%s: LOST: %u frames claimed durable "
        "(mark m%u) were not played after rtframe-recover:%s%s\n", k->name,
        missing, m->id, some->str, missing > 12 ? " ..." : "");
  g_string_free (some, TRUE);
  (void) excused;
}

void
pc_check_foreign (const PcScenario * sc, const gchar * root,
    GString * problems)
{
  guint i;

  for (i = 0; i < sc->n_foreign; i++) {
    const PcForeign *f = &sc->foreign[i];
    gchar *path = g_build_filename (root, f->path, NULL), *got = NULL;
    guint8 *want = g_malloc (f->size);
    gsize len = 0;

    pc_foreign_fill (f, want);
    if (!g_file_get_contents (path, &got, &len, NULL))
      g_string_append_printf (problems, "the user's file %s is gone\n",
          f->path);
    else if (len != f->size || memcmp (got, want, len) != 0)
      g_string_append_printf (problems, "the user's file %s changed (%"
          G_GSIZE_FORMAT " bytes, was %" G_GSIZE_FORMAT ")\n", f->path, len,
          f->size);
    g_free (got);
    g_free (want);
    g_free (path);
  }
}
