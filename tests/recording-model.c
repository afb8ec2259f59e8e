/* The recording rules as a painted timeline (recording-model.h) */
#include "recording-model.h"

#define INF G_MAXUINT64

/* The label from t on, until the next point */
typedef struct
{
  guint64 t;
  guint64 label;
} Point;

typedef struct
{
  guint index;
  guint64 pos;
} Held;

struct _RecModel
{
  GArray *points;               /* Point, by t; the first at 0 */
  guint64 serials;
  guint64 pre;
  guint hold_max;
  guint64 cur;                  /* the recording the frames go to (0: none) */
  guint at;                     /* the frame whose turn it is */
  GHashTable *begun;            /* serials the frames reached */
  GArray *held;                 /* Held, oldest first */
  GArray *backlog;              /* ModelBacklog */
};

#define PT(m, i) (&g_array_index ((m)->points, Point, (i)))

RecModel *
rec_model_new (gboolean recording, guint64 pre, guint hold_max)
{
  RecModel *m = g_new0 (RecModel, 1);
  Point p0 = { 0, 0 };

  m->points = g_array_new (FALSE, FALSE, sizeof (Point));
  g_array_append_val (m->points, p0);
  m->pre = pre;
  m->hold_max = pre ? hold_max : 0;
  m->begun = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  m->held = g_array_new (FALSE, FALSE, sizeof (Held));
  m->backlog = g_array_new (FALSE, FALSE, sizeof (ModelBacklog));
  if (recording)
    rec_model_request (m, MODEL_START, 0, 0, NULL);
  return m;
}

void
rec_model_free (RecModel * m)
{
  g_array_unref (m->points);
  g_hash_table_unref (m->begun);
  g_array_unref (m->held);
  g_array_unref (m->backlog);
  g_free (m);
}

/* ---- the timeline ------------------------------------------------------ */

static guint64
label_at (RecModel * m, guint64 t)
{
  guint64 l = 0;
  guint i;

  for (i = 0; i < m->points->len && PT (m, i)->t <= t; i++)
    l = PT (m, i)->label;
  return l;
}

/* The first point after t with a label (NULL: none) */
static const Point *
next_label_after (RecModel * m, guint64 t)
{
  guint i;

  for (i = 0; i < m->points->len; i++)
    if (PT (m, i)->t > t && PT (m, i)->label != 0)
      return PT (m, i);
  return NULL;
}

/* Where the run of the label at t ends (INF: never) */
static guint64
run_end (RecModel * m, guint64 t)
{
  guint64 l = label_at (m, t);
  guint i;

  for (i = 0; i < m->points->len; i++)
    if (PT (m, i)->t > t && PT (m, i)->label != l)
      return PT (m, i)->t;
  return INF;
}

/* Where the run of label l starts (INF: nowhere) */
static guint64
run_start (RecModel * m, guint64 l)
{
  guint i;

  for (i = 0; i < m->points->len; i++)
    if (PT (m, i)->label == l)
      return PT (m, i)->t;
  return INF;
}

/* The same label twice in a row is one run */
static void
merge_runs (RecModel * m)
{
  guint i;

  for (i = 1; i < m->points->len;) {
    if (PT (m, i)->label == PT (m, i - 1)->label)
      g_array_remove_index (m->points, i);
    else
      i++;
  }
}

static gboolean
is_begun (RecModel * m, guint64 l)
{
  return g_hash_table_contains (m->begun, &l);
}

static void
set_begun (RecModel * m, guint64 l)
{
  if (!is_begun (m, l))
    g_hash_table_add (m->begun, g_memdup2 (&l, sizeof l));
}

/* Label l over [a, b) */
static void
paint (RecModel * m, guint64 a, guint64 b, guint64 l)
{
  guint64 after = b == INF ? 0 : label_at (m, b);
  Point pa = { a, l }, pb = { b, after };
  guint i = 0;

  while (i < m->points->len) {
    if (PT (m, i)->t >= a && (b == INF || PT (m, i)->t <= b))
      g_array_remove_index (m->points, i);
    else
      i++;
  }
  for (i = 0; i < m->points->len && PT (m, i)->t < a; i++);
  g_array_insert_val (m->points, i, pa);
  if (b != INF)
    g_array_insert_val (m->points, i + 1, pb);
  merge_runs (m);
}

static void
relabel (RecModel * m, guint64 from, guint64 to)
{
  guint i;

  for (i = 0; i < m->points->len; i++)
    if (PT (m, i)->label == from)
      PT (m, i)->label = to;
  merge_runs (m);
}

gboolean
rec_model_request (RecModel * m, ModelKind kind, guint64 t, guint64 at,
    guint64 * serial)
{
  guint64 l, e, dummy;
  const Point *next;

  if (serial == NULL)
    serial = &dummy;
  *serial = 0;
  switch (kind) {
    case MODEL_START:
      if ((l = label_at (m, t)) != 0) {
        *serial = l;
        return FALSE;
      }
      if ((next = next_label_after (m, t)) != NULL) {
        l = next->label;
        paint (m, t, next->t, l);
      } else {
        l = ++m->serials;
        paint (m, t, INF, l);
      }
      *serial = l;
      return TRUE;
    case MODEL_STOP:
      l = label_at (m, t);
      if (l == 0 && (next = next_label_after (m, t)) != NULL)
        l = next->label;
      if (l == 0)
        return FALSE;
      *serial = l;
      paint (m, t, INF, 0);
      return TRUE;
    case MODEL_EXTEND:
      if ((l = label_at (m, at)) == 0)
        return FALSE;
      *serial = l;
      e = run_end (m, at);
      if (e == INF || e >= t)
        return FALSE;
      /* the recordings it reaches (starting before t) become its; one no
       * frame reached leaves it not begun (its held frames are written) */
      {
        guint64 l2 = label_at (m, t), s2 = run_start (m, l2);
        gboolean begun = is_begun (m, l);
        guint i;

        for (i = 0; i < m->points->len; i++)
          if (PT (m, i)->t >= e && PT (m, i)->t < t && PT (m, i)->label)
            begun &= is_begun (m, PT (m, i)->label);
        if (l2 != 0 && l2 != l && s2 < t)
          begun &= is_begun (m, l2);
        paint (m, e, t, l);
        if (l2 != 0 && l2 != l && s2 < t)
          relabel (m, l2, l);
        if (!begun)
          g_hash_table_remove (m->begun, &l);
      }
      return TRUE;
  }
  return FALSE;
}

/* ---- frames ------------------------------------------------------------ */

/* Recording l begins: the held frames from its start less pre-record on,
 * before its end, are written first; older ones go */
static void
begin (RecModel * m, guint64 l)
{
  guint64 s = run_start (m, l), e = run_end (m, s);
  guint64 from = s > m->pre ? s - m->pre : 0;
  gboolean first = TRUE;

  set_begun (m, l);
  while (m->held->len > 0) {
    Held h = g_array_index (m->held, Held, 0);
    ModelBacklog b = { h.index, l, first, m->at };

    if (h.pos >= e)
      break;
    g_array_remove_index (m->held, 0);
    if (h.pos < from)
      continue;
    g_array_append_val (m->backlog, b);
    first = FALSE;
  }
}

void
rec_model_frame (RecModel * m, guint index, guint64 pos, ModelFrame * out)
{
  guint64 l = label_at (m, pos);
  guint i, before;

  out->written = out->starts = FALSE;
  out->serial = 0;
  m->at = index;
  if (m->cur && m->cur != l)
    m->cur = 0;
  /* recordings no frame reached the inside of: their backlogs alone */
  for (i = 0; i < m->points->len && PT (m, i)->t <= pos; i++) {
    guint64 k = PT (m, i)->label;

    if (k != 0 && k != l && !is_begun (m, k))
      begin (m, k);
  }
  if (l != 0 && m->cur == 0) {
    before = m->backlog->len;
    begin (m, l);
    m->cur = l;
    out->starts = m->backlog->len == before;
  }
  if (m->cur) {
    out->written = TRUE;
    out->serial = m->cur;
    return;
  }
  if (m->hold_max == 0)
    return;
  /* held: the oldest go beyond the count and pre-record-time */
  while (m->held->len > 0
      && (m->held->len + 1 > m->hold_max || (pos > m->pre
              && g_array_index (m->held, Held, 0).pos < pos - m->pre)))
    g_array_remove_index (m->held, 0);
  {
    Held h = { index, pos };

    g_array_append_val (m->held, h);
  }
}

const GArray *
rec_model_backlog (RecModel * m)
{
  return m->backlog;
}
