/* rtframe: the recordings asked for (rtf-schedule.h).  A request is
 * answered first (nothing changes), then, when committed, made. */
#include "rtf-schedule.h"

#include <stdio.h>
#include <string.h>

void
rtf_schedule_init (RtfSchedule * s)
{
  s->spans = g_new0 (RtfSpan, RTF_SCHEDULE_MAX);
  s->n = 0;
  s->serials = 0;
}

void
rtf_schedule_clear (RtfSchedule * s)
{
  g_clear_pointer (&s->spans, g_free);
  s->n = 0;
}

gint
rtf_schedule_at (const RtfSchedule * s, guint64 t)
{
  guint i;

  for (i = 0; i < s->n && s->spans[i].start <= t; i++)
    if (t < s->spans[i].stop)
      return (gint) i;
  return -1;
}

gint
rtf_schedule_find (const RtfSchedule * s, guint64 serial)
{
  guint i;

  for (i = 0; i < s->n; i++)
    if (s->spans[i].serial == serial)
      return (gint) i;
  return -1;
}

/* ---- words ------------------------------------------------------------- */

/* A running time in seconds, as the replies give it */
#define RT_FMT "%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT " s"
#define RT_ARGS(t) (t) / 1000000000, (t) % 1000000000

static void
say (RtfAnswer * a, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

     static void say (RtfAnswer * a, const gchar * fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_vsnprintf (a->reason, sizeof a->reason, fmt, ap);
  va_end (ap);
}

/* "from S to E" or "from S on" */
static void
span_words (const RtfSpan * sp, gchar * out, gsize size)
{
  if (sp->stop == RTF_SCHEDULE_OPEN)
    g_snprintf (out, size, "from " RT_FMT " on", RT_ARGS (sp->start));
  else
    g_snprintf (out, size, "from " RT_FMT " to " RT_FMT, RT_ARGS (sp->start),
        RT_ARGS (sp->stop));
}

static gboolean
refuse (RtfAnswer * a, const RtfSpan * in_the_way)
{
  a->accepted = FALSE;
  a->did = "refused";
  if (in_the_way)
    a->span = *in_the_way;
  return FALSE;
}

/* ---- changes ----------------------------------------------------------- */

static void
remove_at (RtfSchedule * s, guint i)
{
  memmove (&s->spans[i], &s->spans[i + 1], (s->n - i - 1) * sizeof (RtfSpan));
  s->n--;
}

/* A new span at index i (the earliest is forgotten when full) */
static RtfSpan *
insert_at (RtfSchedule * s, guint i)
{
  if (s->n == RTF_SCHEDULE_MAX) {
    remove_at (s, 0);
    i = i > 0 ? i - 1 : 0;
  }
  memmove (&s->spans[i + 1], &s->spans[i], (s->n - i) * sizeof (RtfSpan));
  s->n++;
  memset (&s->spans[i], 0, sizeof (RtfSpan));
  s->spans[i].serial = ++s->serials;
  return &s->spans[i];
}

/* the first span starting after t */
static guint
first_after (const RtfSchedule * s, guint64 t)
{
  guint i = 0;

  while (i < s->n && s->spans[i].start <= t)
    i++;
  return i;
}

static gboolean
start_at (RtfSchedule * s, const RtfRequest * q, gboolean commit, RtfAnswer * a)
{
  guint64 t = q->running_time;
  gint k = rtf_schedule_at (s, t);
  gchar words[96];
  guint i;

  if (k >= 0) {
    span_words (&s->spans[k], words, sizeof words);
    say (a, "a recording is asked at " RT_FMT " already (%s)", RT_ARGS (t),
        words);
    return refuse (a, &s->spans[k]);
  }
  i = first_after (s, t);
  if (i < s->n) {
    /* the next one begins earlier */
    RtfSpan sp = s->spans[i];

    sp.start = t;
    if (!sp.id[0] && q->id)
      g_strlcpy (sp.id, q->id, sizeof sp.id);
    span_words (&sp, words, sizeof words);
    say (a, "joins the recording asked from " RT_FMT ": %s",
        RT_ARGS (s->spans[i].start), words);
    a->did = "joined";
    if (commit)
      s->spans[i] = sp;
    a->span = sp;
  } else {
    RtfSpan sp = { 0 };

    sp.start = t;
    sp.stop = RTF_SCHEDULE_OPEN;
    if (q->id)
      g_strlcpy (sp.id, q->id, sizeof sp.id);
    if (commit) {
      RtfSpan *n = insert_at (s, i);
      sp.serial = n->serial;
      *n = sp;
    } else {
      sp.serial = s->serials + 1;
    }
    say (a, "a recording from " RT_FMT " on", RT_ARGS (t));
    a->did = "new";
    a->span = sp;
  }
  a->accepted = TRUE;
  return TRUE;
}

static gboolean
stop_at (RtfSchedule * s, const RtfRequest * q, gboolean commit, RtfAnswer * a)
{
  guint64 t = q->running_time;
  guint i, first = s->n, cancelled = 0;

  for (i = 0; i < s->n; i++)
    if (s->spans[i].stop > t) {
      first = i;
      break;
    }
  if (first == s->n) {
    say (a, "no recording is asked at or after " RT_FMT, RT_ARGS (t));
    return refuse (a, NULL);
  }
  a->span = s->spans[first];
  a->accepted = TRUE;
  if (s->spans[first].start < t) {
    a->span.stop = t;
    a->did = "cut";
    first++;
  } else {
    a->did = "cancelled";
  }
  cancelled = s->n - first;
  if (g_str_equal (a->did, "cut"))
    say (a, "the recording from " RT_FMT " stops at " RT_FMT "; %u asked "
        "after it cancelled", RT_ARGS (a->span.start), RT_ARGS (t), cancelled);
  else
    say (a, "%u recording%s asked at or after " RT_FMT " cancelled",
        cancelled, cancelled == 1 ? "" : "s", RT_ARGS (t));
  if (commit) {
    if (g_str_equal (a->did, "cut"))
      s->spans[first - 1].stop = t;
    s->n = first;
  }
  return TRUE;
}

static gboolean
extend_to (RtfSchedule * s, const RtfRequest * q, gboolean commit,
    RtfAnswer * a)
{
  guint64 t = q->running_time;
  gint k = rtf_schedule_at (s, q->recording_at);
  guint i, reached;
  RtfSpan sp;

  if (k < 0) {
    say (a, "no recording is asked at " RT_FMT, RT_ARGS (q->recording_at));
    return refuse (a, NULL);
  }
  sp = s->spans[k];
  if (sp.stop == RTF_SCHEDULE_OPEN) {
    say (a, "the recording from " RT_FMT " has no stop to move: it goes on "
        "until one is asked", RT_ARGS (sp.start));
    return refuse (a, &s->spans[k]);
  }
  if (sp.stop >= t) {
    say (a, "the recording from " RT_FMT " stops at " RT_FMT ", not before "
        RT_FMT, RT_ARGS (sp.start), RT_ARGS (sp.stop), RT_ARGS (t));
    return refuse (a, &s->spans[k]);
  }
  /* the ones it reaches become its; one the frames never reached keeps
   * the whole not begun, so that the frames still held for it are written
   * (the recorder starts a span again only where none of it was) */
  sp.stop = t;
  for (i = k + 1; i < s->n && s->spans[i].start < t; i++) {
    sp.stop = MAX (sp.stop, s->spans[i].stop);
    sp.begun &= s->spans[i].begun;
  }
  reached = i - (k + 1);
  say (a, "the recording from " RT_FMT " stops at " RT_FMT "%s",
      RT_ARGS (sp.start), RT_ARGS (t), reached ? ", with the recordings "
      "asked before that made part of it" : "");
  a->accepted = TRUE;
  a->did = "extended";
  a->span = sp;
  if (commit) {
    s->spans[k] = sp;
    while (reached-- > 0)
      remove_at (s, k + 1);
  }
  return TRUE;
}

gboolean
rtf_schedule_apply (RtfSchedule * s, const RtfRequest * q, gboolean commit,
    RtfAnswer * a)
{
  memset (a, 0, sizeof *a);
  switch (q->kind) {
    case RTF_REQUEST_START:
      return start_at (s, q, commit, a);
    case RTF_REQUEST_STOP:
      return stop_at (s, q, commit, a);
    case RTF_REQUEST_EXTEND:
      return extend_to (s, q, commit, a);
  }
  g_return_val_if_reached (FALSE);
}
