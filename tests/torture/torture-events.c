/* The torture test's model of event recording (torture-events.h) */
#include "torture-events.h"
#include "torture-keep.h"
#include "recording-model.h"

#include <string.h>

#define problem(v, ...) \
  G_STMT_START { (v)->failed = TRUE; \
    g_string_append_printf ((v)->problems, __VA_ARGS__); } G_STMT_END
#define note(v, ...) g_string_append_printf ((v)->notes, __VA_ARGS__)

/* What became of a frame */
typedef enum
{
  OBS_NOT,                      /* not written */
  OBS_WRITTEN,                  /* written, or dropped by leaky (a frame the
                                 * recorder handed on) */
  OBS_UNKNOWN                   /* after the kill's last report, or the frame
                                 * a stop may catch on its way in */
} Obs;

typedef struct
{
  const TorturePlan *p;
  guint n;                      /* frames given */
  const TortureIn *in;
  Obs *obs;
} Sim;

/* A request as the sink told it (rtframesink-recording-request) */
typedef struct
{
  ModelKind kind;
  gboolean accepted, at_start;
  guint64 t, at, position, serial;
  const gchar *by;
} Told;

/* With locations: of the frames each location reported written, the
 * newest; of those, the oldest (as the index of a frame given) */
static guint
least_told (const Sim * sim, const TortureSession * S)
{
  guint64 newest[TORTURE_MAX_LOC] = { 0 }, least = G_MAXUINT64;
  gboolean any[TORTURE_MAX_LOC] = { FALSE };
  guint i, l, cut = 0;

  for (i = 0; i < S->written->len; i++) {
    const TortureWritten *w = &g_array_index (S->written, TortureWritten, i);

    if (!w->placed || w->location >= TORTURE_MAX_LOC)
      continue;
    newest[w->location] = any[w->location] ?
        MAX (newest[w->location], w->k) : w->k;
    any[w->location] = TRUE;
  }
  for (l = 0; l < sim->p->n_loc && l < TORTURE_MAX_LOC; l++)
    least = MIN (least, any[l] ? newest[l] : 0);
  for (i = 0; i < sim->n; i++)
    if (sim->in[i].k <= least)
      cut = i;
  return cut;
}

static void
observe (Sim * sim, const TortureSession * S, GHashTable * reported,
    gboolean ended)
{
  GHashTable *dropped = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint i, last_told = 0;

  for (i = 0; i < S->dropped->len; i++)
    g_hash_table_add (dropped, &g_array_index (S->dropped, guint64, i));
  for (i = 0; i < sim->n; i++) {
    gboolean w = g_hash_table_contains (reported, &sim->in[i].k)
        || g_hash_table_contains (dropped, &sim->in[i].k);

    sim->obs[i] = w ? OBS_WRITTEN : OBS_NOT;
    if (w)
      last_told = i;
  }
  /* a kill cuts the reports after the last one told - with locations the
   * last one each location told, whichever comes first: a frame not told
   * may have gone to the location that told least; a stop without EOS
   * may catch the last frame on its way in */
  if (!ended && sim->p->use_locations)
    last_told = MIN (last_told, least_told (sim, S));
  for (i = ended ? sim->n : last_told + 1; i < sim->n; i++)
    sim->obs[i] = OBS_UNKNOWN;
  if (ended && sim->n > 0 && sim->p->end == TORTURE_END_NULL)
    sim->obs[sim->n - 1] = OBS_UNKNOWN;
  g_hash_table_unref (dropped);
}

/* The frames the sink's pre-record memory holds: pre-record-max-bytes
 * (512 MiB, torture never sets it) of frames, at most 4096 cells, and no
 * more than pre-record-time holds at the caps' rate and two
 * (gstrtframerecord.c) */
static guint
pre_record_cap (const TorturePlan * p)
{
  guint64 bytes = G_GUINT64_CONSTANT (512) * 1024 * 1024;
  guint64 n = MIN (bytes / MAX (p->frame_size, 1), MIN (bytes / 4096, 4096));

  /* a ring on disk (keep-location): the recorder holds numbers only, up
   * to 16384 of them, whatever the frames' bytes (gstrtframerecord.c) */
  if (p->keep)
    return 16384;

  if (p->fps_n > 0)
    n = MIN (n, (p->pre_record_time * p->fps_n + GST_SECOND - 1) / GST_SECOND
        + 2);
  return (guint) n;
}

/* Whether the model can judge this session */
static const gchar *
out_of_reach (const TorturePlan * p, const TortureHistory * h, guint s)
{
  const TortureSession *S = &h->s[s];
  guint64 lost = 0;

  if (!p->record_false && p->n_act == 0)
    return "";
  if (s > 0 || p->mid != TORTURE_MID_NONE)
    return "a change in the stream (its running times and the recorder's "
        "state across it are not modelled)";
  if (S->errors->len > 0)
    return "an error ended it";
  if (S->final && gst_structure_get_uint64 (S->final, "messages-lost", &lost)
      && lost > 0)
    return "messages were lost";
  return NULL;
}

/* The requests the sink told of, in the order made */
static GArray *
told_requests (const TortureSession * S)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (Told));
  guint i;

  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *m = g_ptr_array_index (S->messages, i);
    const gchar *action, *did;
    Told t = { 0 };

    if (!gst_structure_has_name (m, "rtframesink-recording-request"))
      continue;
    action = gst_structure_get_string (m, "action");
    did = gst_structure_get_string (m, "did");
    t.kind = g_strcmp0 (action, "start") == 0 ? MODEL_START :
        g_strcmp0 (action, "stop") == 0 ? MODEL_STOP : MODEL_EXTEND;
    gst_structure_get_boolean (m, "accepted", &t.accepted);
    t.at_start = g_strcmp0 (did, "at-start") == 0;
    gst_structure_get_uint64 (m, "running-time", &t.t);
    t.position = G_MAXUINT64;
    gst_structure_get_uint64 (m, "position", &t.position);
    t.at = t.t;
    gst_structure_get_uint64 (m, "recording-at", &t.at);
    if (!gst_structure_get_uint64 (m, "serial", &t.serial))
      t.serial = 0;
    t.by = gst_structure_get_string (m, "by");
    g_array_append_val (a, t);
  }
  return a;
}

/* The first line that starts with `prefix`, or G_MAXUINT */
static guint
line_of (const TortureHistory * h, const gchar * prefix)
{
  guint i;

  for (i = 0; i < h->lines->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (h->lines, i), prefix))
      return i;
  return G_MAXUINT;
}

/* The sink's own answers (the signals', the event's) are the ones it
 * told; the property says nothing.  Every request made while the bus
 * listened is told. */
static void
check_answers (const TortureHistory * h, const TortureSession * S,
    const GArray * told, TortureVerdict * v)
{
  guint i, j = 0, made = 0, straddling = 0;
  guint end = line_of (h, "# set to NULL"), going = line_of (h,
      "# setting to NULL");

  /* (one made while the pipeline went to NULL - its bus flushing -, on
   * another thread, may have come before the bus flushed or after) */
  going = MIN (going, end);
  for (i = 0; i < S->acts->len; i++) {
    const TortureAct *a = &g_array_index (S->acts, TortureAct, i);

    made += a->line_end < going;
    straddling += a->line_end >= going && a->line_begin < end;
  }
  if (told->len < made || told->len > made + straddling) {
    problem (v, "events: %u requests made (and %u while the pipeline went "
        "to NULL), the sink told of %u\n", made, straddling, told->len);
    return;
  }
  made = told->len;
  for (i = 0; i < made; i++, j++) {
    const TortureAct *a = &g_array_index (S->acts, TortureAct, i);
    const Told *t = &g_array_index (told, Told, j);

    if (g_str_has_prefix (a->what, "record-"))
      continue;
    if (a->ok != t->accepted)
      problem (v, "events: request %u (%s) answered %s, the sink told it %s "
          "it\n", i, a->what, a->ok ? "yes" : "no",
          t->accepted ? "took" : "refused");
  }
}

/* A frame's position, as the sink places it: its running time, or just
 * after the frame before when it has none or goes back */
static guint64
position_of (guint64 last, guint64 rt)
{
  if (last == G_MAXUINT64)
    return rt == G_MAXUINT64 ? 0 : rt;
  return rt == G_MAXUINT64 || rt <= last ? last + 1 : rt;
}

static const gchar *
obs_word (Obs o)
{
  return o == OBS_WRITTEN ? "written" : o == OBS_NOT ? "not written" :
      "unknown";
}

/* The frames of one backlog are written oldest-first less an oldest run
 * when the memory that holds them was shared with an earlier backlog
 * still being written (frames copied out of upstream's memory): from the
 * first written on, every one */
static gboolean
check_backlogs (Sim * sim, const GArray * bl, gboolean * want,
    TortureVerdict * v)
{
  guint b = 0;
  gboolean first_backlog = TRUE;

  while (b < bl->len) {
    guint e = b + 1, k, missing = 0;
    gboolean run = FALSE;

    while (e < bl->len && !g_array_index (bl, ModelBacklog, e).first)
      e++;
    for (k = b; k < e; k++) {
      guint i = g_array_index (bl, ModelBacklog, k).index;
      Obs o = sim->obs[i];

      want[i] = TRUE;
      if (o == OBS_WRITTEN)
        run = TRUE;
      else if (o == OBS_NOT && (run || first_backlog)) {
        problem (v, "events: frame %" G_GUINT64_FORMAT " (running time %"
            G_GUINT64_FORMAT ") is in a recording's pre-record and was not "
            "written%s\n", sim->in[i].k, sim->in[i].rt, run ? ", and an "
            "older one was" : " (the first pre-record: nothing else holds "
            "its memory)");
        return FALSE;
      } else if (o == OBS_NOT)
        missing++;
    }
    if (e > b)
      first_backlog = FALSE;
    b = e;
  }
  return TRUE;
}

/* Where each recording begins: by the rules, its first frame the sink
 * reported written (a start frame dropped by leaky, or the oldest of a
 * pre-record let go for memory, moves it on); by the sink, its
 * recording-started messages.  A recording split or stopped at a frame the
 * rules do not give shows here even when every frame is written. */
static void
check_starts (Sim * sim, const TortureSession * S, GHashTable * reported,
    const GArray * bl, const gboolean * live, const gboolean * starts,
    TortureVerdict * v)
{
  GHashTable *k_of = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTable *want = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTable *seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTableIter it;
  gpointer key;
  gboolean pending = FALSE, judged = TRUE;
  guint i, b = 0;

  for (i = 0; i < S->written->len; i++) {
    TortureWritten *w = &g_array_index (S->written, TortureWritten, i);

    g_hash_table_insert (k_of, &w->frame, &w->k);
  }
  /* the frames in the order written: each turn's backlog, then the frame */
  for (i = 0; i < sim->n && judged; i++) {
    for (; b < bl->len && g_array_index (bl, ModelBacklog, b).at == i; b++) {
      const ModelBacklog *x = &g_array_index (bl, ModelBacklog, b);

      pending |= x->first;
      if (sim->obs[x->index] == OBS_UNKNOWN)
        judged = FALSE;
      else if (pending && g_hash_table_contains (reported,
              &sim->in[x->index].k)) {
        g_hash_table_add (want, (gpointer) & sim->in[x->index].k);
        pending = FALSE;
      }
    }
    if (!live[i])
      continue;
    pending |= starts[i];
    if (sim->obs[i] == OBS_UNKNOWN)
      judged = FALSE;
    else if (pending && g_hash_table_contains (reported, &sim->in[i].k)) {
      g_hash_table_add (want, (gpointer) & sim->in[i].k);
      pending = FALSE;
    }
  }
  for (i = 0; i < S->messages->len; i++) {
    const GstStructure *msg = g_ptr_array_index (S->messages, i);
    guint64 first = G_MAXUINT64;
    guint64 *k;

    if (gst_structure_has_name (msg, "rtframesink-recording-started")
        && gst_structure_get_uint64 (msg, "first-frame", &first)
        && (k = g_hash_table_lookup (k_of, &first)) != NULL)
      g_hash_table_add (seen, k);
  }
  /* (before the first frame whose fate is not known, the rules' starts
   * are the sink's; after it, only those) */
  {
    g_hash_table_iter_init (&it, want);
    while (g_hash_table_iter_next (&it, &key, NULL))
      if (!g_hash_table_contains (seen, key)) {
        problem (v, "events: frame %" G_GUINT64_FORMAT " begins a "
            "recording by the rules; the sink began none there\n",
            *(guint64 *) key);
        break;
      }
    g_hash_table_iter_init (&it, seen);
    while (judged && g_hash_table_iter_next (&it, &key, NULL))
      if (!g_hash_table_contains (want, key)) {
        problem (v, "events: the sink began a recording at frame %"
            G_GUINT64_FORMAT "; the rules begin none there\n",
            *(guint64 *) key);
        break;
      }
  }
  g_hash_table_unref (k_of);
  g_hash_table_unref (want);
  g_hash_table_unref (seen);
}

static gint
by_first_frame (gconstpointer a, gconstpointer b)
{
  const TortureKeepWant *x = *(TortureKeepWant * const *) a;
  const TortureKeepWant *y = *(TortureKeepWant * const *) b;
  guint fx = g_array_index (x->frames, guint, 0);
  guint fy = g_array_index (y->frames, guint, 0);

  return fx < fy ? -1 : fx > fy;
}

static gint
cmp_uint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

/* A ring (keep-location): every frame is written, so the reports say
 * nothing of the recordings - each recording the rules make (its frames
 * by serial, live and from its pre-record) is held against its
 * directory (torture-keep.c) */
static void
check_keep (Sim * sim, const TortureSession * S, TortureWorld * w,
    GHashTable * reported, gboolean ended, RecModel * m,
    const guint64 * serial_of, const gboolean * live, TortureVerdict * v)
{
  GHashTable *by_serial = g_hash_table_new (g_int64_hash, g_int64_equal);
  GPtrArray *wants = g_ptr_array_new_with_free_func (torture_keep_want_free);
  const GArray *bl = rec_model_backlog (m);
  guint i, known = sim->n;
  TortureKeepWant *k;

  for (i = 0; i < sim->n; i++)
    if (sim->obs[i] == OBS_UNKNOWN) {
      known = i;
      break;
    }
#define WANT(ser) ((k = g_hash_table_lookup (by_serial, &(ser))) ? k : \
    (k = g_new0 (TortureKeepWant, 1), k->serial = (ser), \
     k->frames = g_array_new (FALSE, FALSE, sizeof (guint)), \
     g_ptr_array_add (wants, k), \
     g_hash_table_insert (by_serial, &k->serial, k), k))
  for (i = 0; i < sim->n; i++)
    if (live[i])
      g_array_append_val (WANT (serial_of[i])->frames, i);
  for (i = 0; i < bl->len; i++) {
    const ModelBacklog *b = &g_array_index (bl, ModelBacklog, i);
    guint64 ser = b->serial;

    g_array_append_val (WANT (ser)->frames, b->index);
    k->backlog++;
  }
#undef WANT
  for (i = 0; i < wants->len; i++)
    g_array_sort (((TortureKeepWant *) g_ptr_array_index (wants, i))->frames,
        cmp_uint);
  g_ptr_array_sort (wants, by_first_frame);
  torture_keep_check (sim->p, w, S, reported, known, ended, wants, v);
  g_ptr_array_unref (wants);
  g_hash_table_unref (by_serial);
}

void
torture_events_check (const TorturePlan * p, TortureWorld * w,
    const TortureHistory * h, guint s, GHashTable * reported, gboolean ended,
    TortureVerdict * v)
{
  guint64 *serial_of;
  const TortureSession *S = &h->s[s];
  const gchar *skip = out_of_reach (p, h, s);
  Sim sim = { 0 };
  GArray *told;
  RecModel *m;
  gboolean initial = !p->record_false, *want, *live, *starts;
  guint i, r = 0, wrong = 0;
  guint64 last = G_MAXUINT64;

  if (skip) {
    if (*skip)
      note (v, "events: not modelled: %s\n", skip);
    return;
  }
  sim.p = p;
  sim.n = S->in->len;
  sim.in = (const TortureIn *) S->in->data;
  sim.obs = g_new0 (Obs, MAX (sim.n, 1));
  want = g_new0 (gboolean, MAX (sim.n, 1));
  live = g_new0 (gboolean, MAX (sim.n, 1));
  starts = g_new0 (gboolean, MAX (sim.n, 1));
  serial_of = g_new0 (guint64, MAX (sim.n, 1));
  observe (&sim, S, reported, ended);
  told = told_requests (S);
  check_answers (h, S, told, v);
  /* what the sink was set to before it started */
  for (r = 0; r < told->len && g_array_index (told, Told, r).at_start; r++)
    initial = g_array_index (told, Told, r).kind == MODEL_START;
  m = rec_model_new (initial, p->pre_record_time, pre_record_cap (p));
  for (i = 0; i <= sim.n; i++) {
    guint64 pos = i < sim.n ? position_of (last, sim.in[i].rt) : G_MAXUINT64;
    ModelFrame mf;

    /* the requests made before this frame's turn (the sink says where the
     * frames were) */
    while (r < told->len && (i == sim.n
            || g_array_index (told, Told, r).position == G_MAXUINT64
            || g_array_index (told, Told, r).position < pos)) {
      const Told *t = &g_array_index (told, Told, r);
      guint64 serial = 0;
      gboolean ok = t->at_start ? t->accepted :
          rec_model_request (m, t->kind, t->t, t->at, &serial);

      if (ok != t->accepted || (ok && serial != t->serial))
        problem (v, "events: request %u (%s %s at %" G_GUINT64_FORMAT "): "
            "the sink %s it (recording %" G_GUINT64_FORMAT "), the rules %s "
            "it (recording %" G_GUINT64_FORMAT ")\n", r, t->by,
            t->kind == MODEL_START ? "start" : t->kind == MODEL_STOP ? "stop"
            : "extend", t->t, t->accepted ? "took" : "refused", t->serial,
            ok ? "take" : "refuse", serial);
      r++;
    }
    if (i == sim.n)
      break;
    last = pos;
    rec_model_frame (m, i, pos, &mf);
    want[i] = live[i] = mf.written;
    starts[i] = mf.starts;
    serial_of[i] = mf.serial;
  }
  if (p->keep) {
    check_keep (&sim, S, w, reported, ended, m, serial_of, live, v);
    goto done;
  }
  check_backlogs (&sim, rec_model_backlog (m), want, v);
  /* (leaky=downstream never drops a queued frame that begins a
   * recording; one dropped as it comes passes the start on to the next
   * frame written, as the rules say) */
  check_starts (&sim, S, reported, rec_model_backlog (m), live, starts, v);
  for (i = 0; i < sim.n; i++) {
    gboolean in_backlog = FALSE;
    guint b;
    const GArray *bl = rec_model_backlog (m);

    if (sim.obs[i] == OBS_UNKNOWN || (sim.obs[i] == OBS_WRITTEN) == want[i])
      continue;
    for (b = 0; b < bl->len && !in_backlog; b++)
      in_backlog = g_array_index (bl, ModelBacklog, b).index == i;
    if (in_backlog)
      continue;                 /* (check_backlogs() judged it) */
    if (wrong++ == 0)
      problem (v, "events: frame %" G_GUINT64_FORMAT " (running time %"
          G_GUINT64_FORMAT ") was %s; the rules, with the %u requests where "
          "the sink said the frames were, say %s\n", sim.in[i].k,
          sim.in[i].rt, obs_word (sim.obs[i]), told->len,
          want[i] ? "written" : "not written");
  }
  if (wrong > 1)
    problem (v, "events: %u frames in all differ from the rules\n", wrong);
done:
  if (!v->failed)
    note (v, "events: %u requests, %u frames: as the rules say\n", told->len,
        sim.n);
  g_free (serial_of);
  rec_model_free (m);
  g_array_unref (told);
  g_free (want);
  g_free (live);
  g_free (starts);
  g_free (sim.obs);
}
