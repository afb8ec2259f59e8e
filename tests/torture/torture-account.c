/* The torture test's frame accounting (torture-account.h) */
#include "torture-account.h"

#include <string.h>

#define problem(v, ...) \
  G_STMT_START { (v)->failed = TRUE; \
    g_string_append_printf ((v)->problems, __VA_ARGS__); } G_STMT_END
#define note(v, ...) g_string_append_printf ((v)->notes, __VA_ARGS__)

static guint64
stat_of (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  if (s)
    gst_structure_get_uint64 (s, field, &v);
  return v;
}

/* stamp -> its TortureIn, each once (a frame given twice is a finding of
 * the child's, not of the sink) */
static GHashTable *
frames_in (const TortureSession * S, TortureVerdict * v)
{
  GHashTable *in = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint i;

  for (i = 0; i < S->in->len; i++) {
    TortureIn *f = &g_array_index (S->in, TortureIn, i);

    if (f->k == G_MAXUINT64 || g_hash_table_contains (in, &f->k))
      problem (v, "accounting: the child gave the sink a frame twice, or "
          "one with a pts no frame has (line %u)\n", f->line);
    else
      g_hash_table_insert (in, &f->k, f);
  }
  return in;
}

/* The last frame in before line (NULL: none) */
static const TortureIn *
last_in_before (const TortureSession * S, guint line)
{
  const TortureIn *last = NULL;
  guint i;

  for (i = 0; i < S->in->len; i++) {
    const TortureIn *f = &g_array_index (S->in, TortureIn, i);

    if (f->line > line)
      break;
    last = f;
  }
  return last;
}

static void
add_boundary (GHashTable * b, const TortureIn * f)
{
  if (f)
    g_hash_table_add (b, (gpointer) & f->k);
}

/* The frames a change in the stream may catch on their way in, before
 * the sink counts them: at a flush, the frame render had (refused with
 * FLUSHING, or dropped under its number once its miss was told); at a
 * stop without EOS (a restart, the end at NULL) the same; after an
 * error, the frame render refused (the writer had failed).  An EOS
 * waits for every frame before it: none. */
static GHashTable *
boundaries (const TorturePlan * p, const TortureHistory * h, guint s)
{
  const TortureSession *S = &h->s[s];
  GHashTable *b = g_hash_table_new (g_int64_hash, g_int64_equal);
  gboolean last_session = s == 1 || !h->s[1].seen;
  const TortureIn *last = S->in->len ? &g_array_index (S->in, TortureIn,
      S->in->len - 1) : NULL;
  guint i;

  for (i = 0; i < S->mids->len; i++) {
    guint line = g_array_index (S->mids, guint, i);
    const gchar *text = g_ptr_array_index (h->lines, line);

    if (strstr (text, " flush ") || strstr (text, " flush-seek "))
      add_boundary (b, last_in_before (S, line));
  }
  if (!last_session || p->end == TORTURE_END_NULL || S->errors->len > 0)
    add_boundary (b, last);
  return b;
}

/* Written and dropped frames are frames that came in, each told once */
static GHashTable *
check_told (const TortureSession * S, GHashTable * in, GHashTable * reported,
    TortureVerdict * v)
{
  GHashTable *dropped = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTableIter it;
  gpointer key;
  guint i;

  g_hash_table_iter_init (&it, reported);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (in, key))
      problem (v, "accounting: frame stamped %" G_GUINT64_FORMAT " reported "
          "written, but it never reached the sink\n", *(guint64 *) key);
  for (i = 0; i < S->dropped->len; i++) {
    guint64 *k = &g_array_index (S->dropped, guint64, i);

    if (*k == G_MAXUINT64 || !g_hash_table_contains (in, k))
      problem (v, "accounting: a QoS message drops a frame that never "
          "reached the sink (stamp %" G_GUINT64_FORMAT ")\n", *k);
    else if (g_hash_table_contains (dropped, k))
      problem (v, "accounting: frame stamped %" G_GUINT64_FORMAT " dropped "
          "twice (two QoS messages)\n", *k);
    else if (g_hash_table_contains (reported, k))
      problem (v, "accounting: frame stamped %" G_GUINT64_FORMAT " reported "
          "both written and dropped\n", *k);
    else
      g_hash_table_add (dropped, k);
  }
  return dropped;
}

/* A few stamps of a set, for a message */
static gchar *
some_of (GHashTable * set)
{
  GString *s = g_string_new (NULL);
  GHashTableIter it;
  gpointer key;
  guint n = 0;

  g_hash_table_iter_init (&it, set);
  while (g_hash_table_iter_next (&it, &key, NULL) && n++ < 10)
    g_string_append_printf (s, " %" G_GUINT64_FORMAT, *(guint64 *) key);
  if (g_hash_table_size (set) > 10)
    g_string_append_printf (s, " ... (%u in all)", g_hash_table_size (set));
  return g_string_free (s, FALSE);
}
/* Frames the session's warnings told lost, one each ("Frame N is lost") */
static guint
frames_told_lost (const TortureSession * S)
{
  guint i, n = 0;

  for (i = 0; i < S->warnings->len; i++) {
    const TortureError *w = g_ptr_array_index (S->warnings, i);

    n += w->text && g_str_has_prefix (w->text, "Frame ")
        && strstr (w->text, " is lost") != NULL;
  }
  return n;
}


/* The identity, where the session ended and every message came:
 * in = written + dropped + lost + discarded + (frames caught at a
 * boundary, uncounted) */
static void
check_identity (const TorturePlan * p, const TortureHistory * h, guint s,
    GHashTable * in, GHashTable * reported, GHashTable * dropped,
    TortureVerdict * v)
{
  const TortureSession *S = &h->s[s];
  GHashTable *unaccounted = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTable *edge = boundaries (p, h, s);
  guint64 lost = stat_of (S->final, "frames-lost");
  guint64 discarded = stat_of (S->final, "frames-discarded");
  guint64 counted_drops = stat_of (S->final, "frames-dropped");
  guint64 at_edge = 0, n;
  GHashTableIter it;
  gpointer key;

  g_hash_table_iter_init (&it, in);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (reported, key)
        && !g_hash_table_contains (dropped, key)) {
      g_hash_table_add (unaccounted, key);
      at_edge += g_hash_table_contains (edge, key);
    }
  n = g_hash_table_size (unaccounted);
  if (n < lost + discarded || n > lost + discarded + at_edge) {
    gchar *some = some_of (unaccounted);

    problem (v, "accounting: session %u: %u frames reached the sink, %u "
        "were reported "
        "written and %u dropped; of the other %" G_GUINT64_FORMAT " (%s ) "
        "the stats count %" G_GUINT64_FORMAT " lost and %" G_GUINT64_FORMAT
        " discarded, and %" G_GUINT64_FORMAT " came as a flush, a stop or an "
        "error caught them: frames unaccounted for\n", s,
        g_hash_table_size (in), g_hash_table_size (reported),
        g_hash_table_size (dropped), n, some, lost, discarded, at_edge);
    g_free (some);
  }
  if (counted_drops != g_hash_table_size (dropped))
    problem (v, "accounting: session %u: frames-dropped says %"
        G_GUINT64_FORMAT ", %u QoS messages came\n", s, counted_drops,
        g_hash_table_size (dropped));
  /* a loss is told: by an error, or frame by frame by a warning (with
   * locations, a frame written behind a pre-record whose location then
   * fails gave its buffer back and cannot be written elsewhere: "Frame N
   * is lost", and the recording goes on) */
  if (lost > 0 && S->errors->len == 0 && lost > frames_told_lost (S))
    problem (v, "accounting: session %u: %" G_GUINT64_FORMAT " frames lost "
        "and no error posted, %u told lost by a warning\n", s, lost,
        frames_told_lost (S));
  if (discarded > 0 && !p->record_false && p->n_act == 0)
    problem (v, "accounting: session %u: %" G_GUINT64_FORMAT " frames "
        "discarded, and no event recording was asked for\n", s, discarded);
  note (v, "session %u: %u in, %u written, %u dropped, %" G_GUINT64_FORMAT
      " lost, %" G_GUINT64_FORMAT " discarded, %" G_GUINT64_FORMAT " at a "
      "boundary\n", s, g_hash_table_size (in), g_hash_table_size (reported),
      g_hash_table_size (dropped), lost, discarded, n - MIN (n,
          lost + discarded));
  g_hash_table_unref (edge);
  g_hash_table_unref (unaccounted);
}

void
torture_account_session (const TorturePlan * p, const TortureHistory * h,
    guint s, GHashTable * reported, gboolean ended, TortureVerdict * v)
{
  const TortureSession *S = &h->s[s];
  GHashTable *in = frames_in (S, v);
  GHashTable *dropped = check_told (S, in, reported, v);

  /* the counts hold once the session has ended and every message came
   * (a session whose start failed took no frame, and its stats are the
   * run's before) */
  if (ended && S->final && S->in->len > 0
      && stat_of (S->final, "messages-lost") == 0)
    check_identity (p, h, s, in, reported, dropped, v);
  g_hash_table_unref (dropped);
  g_hash_table_unref (in);
}
