/* The power-cut test's points (powercut-points.h) */
#include "powercut-points.h"

#include <string.h>

/* A generator of its own per use, from a 64-bit seed (GRand's Mersenne
 * Twister: the same draws on every GLib) */
static GRand *
rand_of (guint64 seed)
{
  guint32 words[2] = { (guint32) seed, (guint32) (seed >> 32) };

  return g_rand_new_with_seed_array (words, 2);
}

GArray *
pc_points_marks (const RtfLogWrites * log)
{
  GArray *marks = g_array_new (FALSE, FALSE, sizeof (PcMarkAt));
  guint64 i;

  for (i = 0; i < log->n_entries; i++) {
    const RtfLogEntry *e = &log->entries[i];
    gchar *end = NULL;
    guint64 id;

    if (!rtf_log_entry_is_mark (e) || e->mark[0] != 'm'
        || !g_ascii_isdigit (e->mark[1]))
      continue;
    id = g_ascii_strtoull (e->mark + 1, &end, 10);
    if (*end == '\0' && id < G_MAXUINT) {
      PcMarkAt m = { i, (guint) id };
      g_array_append_val (marks, m);
    }
  }
  return marks;
}

gint64
pc_points_mark_entry (const RtfLogWrites * log, const gchar * text)
{
  const RtfLogEntry *e = rtf_log_writes_find_mark (log, text, 0);

  return e ? (gint64) e->index : -1;
}

static gint
by_entry (gconstpointer a, gconstpointer b)
{
  const PcPoint *x = a, *y = b;

  if (x->entry != y->entry)
    return x->entry < y->entry ? -1 : 1;
  return x->subset < y->subset ? -1 : x->subset > y->subset;
}

/* n of the candidates: the first, the last and n - 2 between, drawn */
static GArray *
sample (GArray * all, guint n, GRand * rand)
{
  GArray *picked = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint i, left = all->len - 2, want = n - 2;

  g_array_append_val (picked, g_array_index (all, guint64, 0));
  /* selection sampling: each middle one with the chance still needed */
  for (i = 1; i + 1 < all->len && want > 0; i++, left--) {
    if ((guint) g_rand_int_range (rand, 0, (gint32) left) < want) {
      g_array_append_val (picked, g_array_index (all, guint64, i));
      want--;
    }
  }
  g_array_append_val (picked, g_array_index (all, guint64, all->len - 1));
  return picked;
}

/* The entries after which the disk is in a state of its own: a flush, a
 * FUA write, and the end of the log.  (A mark changes nothing: replayed
 * to a mark, the disk is as at the flush or FUA write before it - plain
 * writes are logged just before the flush that covers them.) */
static GArray *
states_from (const RtfLogWrites * log, guint64 from)
{
  GArray *cand = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 i;

  for (i = from; i < log->n_entries; i++) {
    const RtfLogEntry *e = &log->entries[i];

    if (rtf_log_entry_is_flush (e) || rtf_log_entry_is_fua (e)
        || i + 1 == log->n_entries)
      g_array_append_val (cand, i);
  }
  return cand;
}

GArray *
pc_points_choose (const RtfLogWrites * log, guint64 from, guint n,
    guint subsets, guint64 seed)
{
  GArray *cand = states_from (log, from), *picked, *points;
  GRand *rand = rand_of (seed);
  guint i, flushes = 0;

  picked = n == 0 || cand->len <= n || n < 2 ? g_array_ref (cand) :
      sample (cand, n, rand);
  points = g_array_new (FALSE, FALSE, sizeof (PcPoint));
  for (i = 0; i < picked->len; i++) {
    PcPoint p = { g_array_index (picked, guint64, i), 0 };

    g_array_append_val (points, p);
    flushes += rtf_log_entry_is_flush (&log->entries[p.entry]);
  }
  /* the subsets: flushes drawn among the points, each its own seed */
  for (i = 0; i < picked->len && subsets > 0 && flushes > 0; i++) {
    guint64 e = g_array_index (picked, guint64, i);

    if (!rtf_log_entry_is_flush (&log->entries[e]))
      continue;
    if ((guint) g_rand_int_range (rand, 0, (gint32) flushes) < subsets) {
      PcPoint p = { e, ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand)
            | 1
      };
      g_array_append_val (points, p);
      subsets--;
    }
    flushes--;
  }
  g_array_sort (points, by_entry);
  g_array_unref (picked);
  g_array_unref (cand);
  g_rand_free (rand);
  return points;
}

GArray *
pc_points_subset (const RtfLogWrites * log, guint64 f, guint64 seed,
    guint64 * cut)
{
  GArray *take = g_array_new (FALSE, FALSE, sizeof (guint64));
  GRand *rand = rand_of (seed);
  guint64 next = f + 1, i;

  while (next < log->n_entries
      && !rtf_log_entry_is_flush (&log->entries[next]))
    next++;
  /* the crash comes as the next flush is asked for: every FUA write
   * before it is done (and durable); of the plain writes the disk had
   * completed, any may be lost - the log does not say when each came
   * against the FUA writes (it holds them back until the flush), so a
   * crash earlier than the last FUA write could keep a write that was
   * only made after it */
  *cut = next;
  for (i = f + 1; i < next; i++) {
    const RtfLogEntry *e = &log->entries[i];

    if (rtf_log_entry_is_mark (e))
      continue;
    if (rtf_log_entry_is_fua (e) || g_rand_boolean (rand))
      g_array_append_val (take, i);
  }
  g_rand_free (rand);
  return take;
}

guint64
pc_points_claims_end (const RtfLogWrites * log, guint64 entry)
{
  guint64 i = entry + 1;

  while (i < log->n_entries && rtf_log_entry_is_mark (&log->entries[i]))
    i++;
  return i;
}

guint
pc_points_claims (GArray * marks, guint64 before)
{
  guint id = G_MAXUINT, i;

  for (i = 0; i < marks->len; i++) {
    const PcMarkAt *m = &g_array_index (marks, PcMarkAt, i);

    if (m->entry >= before)
      break;
    id = m->id;
  }
  return id;
}
