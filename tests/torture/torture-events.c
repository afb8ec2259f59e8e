/* The torture test's model of event recording (torture-events.h) */
#include "torture-events.h"

#include <string.h>

#define problem(v, ...) \
  G_STMT_START { (v)->failed = TRUE; \
    g_string_append_printf ((v)->problems, __VA_ARGS__); } G_STMT_END
#define note(v, ...) g_string_append_printf ((v)->notes, __VA_ARGS__)

/* a request for "the next frame" (not PLAYING yet): any frame reaches it */
#define NEXT (G_MAXUINT64 - 1)
/* readings of the requests kept at once; more is a round the model cannot
 * judge (said in the notes, never a failure) */
#define MAX_BRANCHES 4096

/* What became of a frame */
typedef enum
{
  OBS_NOT,                      /* not written */
  OBS_WRITTEN,                  /* written, or dropped by leaky (a frame the
                                 * recorder handed on) */
  OBS_UNKNOWN                   /* after the kill's last report, or the frame
                                 * a stop may catch on its way in */
} Obs;

/* One reading of the requests: the recorder's state after the frames so
 * far */
typedef struct
{
  guint next_act;               /* the first request not applied yet */
  guint waited;                 /* 1 + the frame it chose to let pass first
                                 * (0: none) */
  gboolean recording;
  gboolean started;             /* a recording started before: its backlog
                                 * may still hold pre-record memory */
  gboolean start_asked, stop_asked, later_stop_asked;
  guint64 start_rt, stop_rt, later_stop_rt;
  GArray *held;                 /* guint: frames held, oldest first */
} Model;

typedef struct
{
  const TorturePlan *p;
  guint n;                      /* frames given */
  const TortureIn *in;
  Obs *obs;
  guint n_acts;
  const TortureAct *acts;
  guint *lo, *hi;               /* the frames each request may have met
                                 * first: lo..hi (hi: surely) */
  guint cap;                    /* the most frames the pre-record memory
                                 * holds */
  GString *why;                 /* the last reading that died: why */
} Sim;

/* ---- the semantics ----------------------------------------------------- */

/* a is at or before b (NEXT comes before any running time) */
static gboolean
not_after (guint64 a, guint64 b)
{
  return a == NEXT || (b != NEXT && a <= b);
}

static gboolean
reached (guint64 rt, guint64 asked)
{
  return asked == NEXT || rt >= asked;
}

/* start-recording (t): refused while a recording is on and no stop is
 * asked; before a stop asked it cancels the stop; else the next start */
static gboolean
model_start (Model * m, guint64 t)
{
  if (m->recording && !m->stop_asked)
    return FALSE;
  if (m->recording && (t == NEXT ? m->stop_rt != NEXT : !not_after (m->stop_rt,
              t))) {
    m->stop_asked = m->start_asked = m->later_stop_asked = FALSE;
    return TRUE;
  }
  m->start_asked = TRUE;
  m->start_rt = t;
  if (m->recording && m->later_stop_asked && not_after (m->later_stop_rt, t))
    m->later_stop_asked = FALSE;
  if (!m->recording && m->stop_asked && not_after (m->stop_rt, t))
    m->stop_asked = FALSE;
  return TRUE;
}

/* stop-recording (t): refused while none is on or asked; at or before a
 * start asked it cancels it; while recording, the stop (or the next
 * recording's, after its start; else the earlier of two) */
static gboolean
model_stop (Model * m, guint64 t)
{
  if (!m->recording && !m->start_asked)
    return FALSE;
  if (!m->recording) {
    if (not_after (t, m->start_rt))
      m->start_asked = m->stop_asked = FALSE;
    else {
      m->stop_asked = TRUE;
      m->stop_rt = t;
    }
  } else if (!m->stop_asked) {
    m->stop_asked = TRUE;
    m->stop_rt = t;
  } else if (m->start_asked && !not_after (t, m->start_rt)) {
    m->later_stop_asked = TRUE;
    m->later_stop_rt = t;
  } else {
    if (not_after (t, m->stop_rt))
      m->stop_rt = t;
    m->start_asked = m->later_stop_asked = FALSE;
  }
  return TRUE;
}

/* ---- readings ---------------------------------------------------------- */

static Model *
model_new (gboolean recording)
{
  Model *m = g_new0 (Model, 1);

  m->recording = recording;
  m->held = g_array_new (FALSE, FALSE, sizeof (guint));
  return m;
}

static Model *
model_copy (const Model * m)
{
  Model *c = g_memdup2 (m, sizeof *m);

  c->held = g_array_copy (m->held);
  return c;
}

static void
model_free (gpointer data)
{
  Model *m = data;

  g_array_unref (m->held);
  g_free (m);
}

static gchar *
model_key (const Model * m)
{
  GString *s = g_string_new (NULL);
  guint i;

  g_string_append_printf (s, "%u %d %d%d%d %" G_GUINT64_FORMAT " %"
      G_GUINT64_FORMAT " %" G_GUINT64_FORMAT ":", m->next_act, m->recording,
      m->start_asked, m->stop_asked, m->later_stop_asked,
      m->start_asked ? m->start_rt : 0, m->stop_asked ? m->stop_rt : 0,
      m->later_stop_asked ? m->later_stop_rt : 0);
  for (i = 0; i < m->held->len; i++)
    g_string_append_printf (s, " %u", g_array_index (m->held, guint, i));
  return g_string_free (s, FALSE);
}

/* A reading dies: why is kept for the report (the last one's) */
static gboolean
dies (Sim * sim, const gchar * fmt, ...)
{
  va_list ap;

  g_string_truncate (sim->why, 0);
  va_start (ap, fmt);
  g_string_append_vprintf (sim->why, fmt, ap);
  va_end (ap);
  return FALSE;
}

static guint64
stamp (Sim * sim, guint i)
{
  return sim->in[i].k;
}

/* A frame the model says was not written */
static gboolean
not_written (Sim * sim, guint i, const gchar * what)
{
  if (sim->obs[i] != OBS_WRITTEN)
    return TRUE;
  return dies (sim, "frame %" G_GUINT64_FORMAT " (running time %"
      G_GUINT64_FORMAT ") was written, but %s", stamp (sim, i), sim->in[i].rt,
      what);
}

/* The frames a start hands over: held ones from `from` on, a run that ends
 * at the start.  The pre-record memory lets the oldest go first: beyond
 * what it holds (sim->cap frames), or, after an earlier start, while that
 * one's backlog still holds part of it - before the first start, none
 * more than that may be missing. */
static gboolean
check_backlog (Sim * sim, Model * m, guint64 from, guint64 until)
{
  gboolean run = FALSE;
  guint j, window = 0, missing = 0;

  for (j = 0; j < m->held->len; j++) {
    guint h = g_array_index (m->held, guint, j);
    guint64 rt = sim->in[h].rt;

    if (rt < from || rt >= until) {
      if (!not_written (sim, h, "it was held before what the start takes"))
        return FALSE;
      continue;
    }
    window++;
    if (sim->obs[h] == OBS_WRITTEN) {
      run = TRUE;
    } else if (run && sim->obs[h] == OBS_NOT) {
      return dies (sim, "frame %" G_GUINT64_FORMAT " of a recording's "
          "pre-record was not written, and an older one was",
          stamp (sim, h));
    } else if (sim->obs[h] == OBS_NOT) {
      missing++;
    }
  }
  if (!m->started && missing > 0 && window - missing < MIN (window, sim->cap))
    return dies (sim, "the first recording's pre-record has %u of the %u "
        "frames held before its start (room for %u)", window - missing,
        window, sim->cap);
  g_array_set_size (m->held, 0);
  m->started = TRUE;
  return TRUE;
}

/* The recorder's turn at frame i: starts and stops it reaches, then what
 * becomes of the frame */
static gboolean
model_frame (Sim * sim, Model * m, guint i)
{
  guint64 rt = sim->in[i].rt, pre = sim->p->pre_record_time;

  for (;;) {
    if (m->recording && m->stop_asked && reached (rt, m->stop_rt)) {
      m->recording = m->stop_asked = FALSE;
      continue;
    }
    if (!m->recording && m->start_asked && reached (rt, m->start_rt)) {
      guint64 at = m->start_rt == NEXT ? rt : m->start_rt;
      guint64 until = G_MAXUINT64;

      m->recording = TRUE;
      m->start_asked = FALSE;
      if (m->later_stop_asked) {
        m->stop_asked = TRUE;
        m->stop_rt = m->later_stop_rt;
        m->later_stop_asked = FALSE;
      }
      if (m->stop_asked && m->stop_rt != NEXT)
        until = m->stop_rt;
      if (!check_backlog (sim, m, at > pre ? at - pre : 0, until))
        return FALSE;
      continue;
    }
    break;
  }
  if (m->recording)
    return sim->obs[i] != OBS_NOT || dies (sim, "frame %" G_GUINT64_FORMAT
        " (running time %" G_GUINT64_FORMAT ") came while recording and was "
        "not written", stamp (sim, i), rt);
  if (pre == 0)
    return not_written (sim, i, "it came while not recording, with no "
        "pre-record");
  /* held: the frames older than pre-record-time go */
  while (m->held->len > 0 && rt > pre
      && sim->in[g_array_index (m->held, guint, 0)].rt < rt - pre) {
    if (!not_written (sim, g_array_index (m->held, guint, 0), "it was held "
            "and pre-record-time let it go"))
      return FALSE;
    g_array_remove_index (m->held, 0);
  }
  g_array_append_val (m->held, i);
  return TRUE;
}

/* The running times a request asked: the one given, or for "now" those
 * between the clock's two readings that a frame's running time (or one
 * less pre-record-time) could tell apart */
static GArray *
asked_values (Sim * sim, const TortureAct * a)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 lo = a->rt_before, hi = a->rt_after, pre = sim->p->pre_record_time;
  guint i;

  if (a->at != G_MAXUINT64) {
    g_array_append_val (v, a->at);
    return v;
  }
  /* (not PLAYING, or no clock yet: the next frame) */
  if (lo == G_MAXUINT64 || !a->playing) {
    guint64 next = NEXT;

    g_array_append_val (v, next);
    if (lo == G_MAXUINT64)
      return v;
  }
  if (hi == G_MAXUINT64 || hi < lo)
    hi = lo + GST_SECOND;
  g_array_append_val (v, lo);
  for (i = 0; i < sim->n; i++) {
    guint64 r = sim->in[i].rt;

    if (r > lo && r <= hi)
      g_array_append_val (v, r);
    if (r + pre > lo && r + pre <= hi) {
      r += pre;
      g_array_append_val (v, r);
    }
  }
  return v;
}

static gboolean
is_start (const TortureAct * a)
{
  return g_str_has_prefix (a->what, "start-")
      || g_str_equal (a->what, "record-true")
      || g_str_equal (a->what, "event-start");
}

/* The sink's own answer: the signals' return, the event's (the property
 * says nothing) */
static gboolean
answers (const TortureAct * a)
{
  return !g_str_has_prefix (a->what, "record-");
}

/* Each reading applies its next request before frame i, or waits past it
 * where the threads allow either; the readings that come of it */
static void
apply_requests (Sim * sim, GPtrArray * models, guint i)
{
  GPtrArray *todo = g_ptr_array_ref (models), *done;
  gboolean more = TRUE;

  while (more) {
    more = FALSE;
    done = g_ptr_array_new ();
    while (todo->len > 0) {
      Model *m = g_ptr_array_steal_index_fast (todo, todo->len - 1);
      const TortureAct *a;
      GArray *values;
      guint j;

      if (m->next_act >= sim->n_acts || i < sim->lo[m->next_act]
          || m->waited == i + 1) {
        g_ptr_array_add (done, m);
        continue;
      }
      a = &sim->acts[m->next_act];
      /* (not yet, where it may have met a later frame first) */
      if (i < sim->hi[m->next_act]) {
        Model *later = model_copy (m);

        later->waited = i + 1;
        g_ptr_array_add (done, later);
      }
      values = asked_values (sim, a);
      for (j = 0; j < values->len; j++) {
        Model *n = model_copy (m);
        guint64 t = g_array_index (values, guint64, j);
        gboolean ok = is_start (a) ? model_start (n, t) : model_stop (n, t);

        n->next_act++;
        n->waited = 0;
        if (answers (a) && ok != a->ok) {
          dies (sim, "%s answered %s, and the model %s it", a->what,
              a->ok ? "yes" : "no", ok ? "takes" : "refuses");
          model_free (n);
          continue;
        }
        g_ptr_array_add (todo, n);
        more = TRUE;
      }
      g_array_unref (values);
      model_free (m);
    }
    g_ptr_array_unref (todo);
    todo = done;
  }
  g_ptr_array_set_size (models, 0);
  g_ptr_array_extend_and_steal (models, todo);
}

/* The same reading twice is kept once */
static void
dedup (GPtrArray * models)
{
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  guint i = 0;

  while (i < models->len) {
    gchar *key = model_key (g_ptr_array_index (models, i));

    if (g_hash_table_contains (seen, key)) {
      g_free (key);
      g_ptr_array_remove_index_fast (models, i);
    } else {
      g_hash_table_add (seen, key);
      i++;
    }
  }
  g_hash_table_unref (seen);
}

/* ---- the session ------------------------------------------------------- */

/* lo: the last frame given before the request began (its turn may have
 * come after the request); hi: the first given after it returned */
static void
windows (Sim * sim)
{
  guint a, i;

  for (a = 0; a < sim->n_acts; a++) {
    sim->lo[a] = 0;
    sim->hi[a] = sim->n;
    for (i = 0; i < sim->n; i++) {
      if (sim->in[i].line < sim->acts[a].line_begin)
        sim->lo[a] = i;
      if (sim->in[i].line > sim->acts[a].line_end) {
        sim->hi[a] = i;
        break;
      }
    }
    sim->lo[a] = MIN (sim->lo[a], sim->hi[a]);
  }
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
  /* a kill cuts the reports after the last one told; a stop without EOS
   * may catch the last frame on its way in */
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
  if (p->use_locations)
    return "event recording is refused with locations";
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

void
torture_events_check (const TorturePlan * p, const TortureHistory * h,
    guint s, GHashTable * reported, gboolean ended, TortureVerdict * v)
{
  const TortureSession *S = &h->s[s];
  const gchar *skip = out_of_reach (p, h, s);
  Sim sim = { 0 };
  GPtrArray *models;
  guint i, j, most = 1;

  if (skip) {
    if (*skip)
      note (v, "events: not modelled: %s\n", skip);
    return;
  }
  sim.p = p;
  sim.n = S->in->len;
  sim.in = (const TortureIn *) S->in->data;
  sim.n_acts = S->acts->len;
  sim.acts = (const TortureAct *) S->acts->data;
  sim.obs = g_new0 (Obs, MAX (sim.n, 1));
  sim.cap = pre_record_cap (p);
  sim.lo = g_new0 (guint, MAX (sim.n_acts, 1));
  sim.hi = g_new0 (guint, MAX (sim.n_acts, 1));
  sim.why = g_string_new (NULL);
  observe (&sim, S, reported, ended);
  windows (&sim);
  models = g_ptr_array_new_with_free_func (model_free);
  g_ptr_array_add (models, model_new (!p->record_false));
  for (i = 0; i < sim.n && models->len > 0; i++) {
    apply_requests (&sim, models, i);
    for (j = 0; j < models->len;) {
      if (model_frame (&sim, g_ptr_array_index (models, j), i))
        j++;
      else
        g_ptr_array_remove_index_fast (models, j);
    }
    dedup (models);
    most = MAX (most, models->len);
    if (models->len > MAX_BRANCHES) {
      note (v, "events: more than %u readings of the requests at frame %u: "
          "not judged\n", MAX_BRANCHES, i);
      goto out;
    }
  }
  /* the frames still held at the end went: none written */
  for (j = 0; j < models->len;) {
    Model *m = g_ptr_array_index (models, j);
    gboolean ok = TRUE;
    guint k;

    for (k = 0; k < m->held->len && ok; k++)
      ok = not_written (&sim, g_array_index (m->held, guint, k), "it was "
          "still held when the stream ended");
    if (ok)
      j++;
    else
      g_ptr_array_remove_index_fast (models, j);
  }
  if (models->len == 0)
    problem (v, "events: no reading of the %u requests gives the frames "
        "written (the last one ruled out: %s)\n", sim.n_acts, sim.why->str);
  else
    note (v, "events: %u readings of %u requests agree with the %u frames "
        "(at most %u at once)\n", models->len, sim.n_acts, sim.n, most);
out:
  g_ptr_array_unref (models);
  g_string_free (sim.why, TRUE);
  g_free (sim.obs);
  g_free (sim.lo);
  g_free (sim.hi);
}
