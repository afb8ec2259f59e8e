/* rtframe: a spread's figures (see rtf-spread.h): the stream's, added up
 * from its locations' (a frame failed over counted once), and each
 * location's own. */
#include "rtf-spread-private.h"

#include <string.h>

/* ---- figures ----------------------------------------------------------- */

static gboolean
is_high_mark (const RtfStatField * f)
{
  return f->name && (strstr (f->name, "max") || strstr (f->name, "high"));
}

/* Adds one location's figure to the stream's: counts add up, high-water
 * marks and longest times are the largest, the rest are the first
 * location's */
static void
add_field (const RtfStatField * f, RtfWriterStats * sum,
    const RtfWriterStats * one)
{
  guint8 *d = (guint8 *) sum + f->offset;
  const guint8 *o = (const guint8 *) one + f->offset;

  switch (f->kind) {
    case RTF_STAT_U64:{
      guint64 *a = (guint64 *) d, b = *(const guint64 *) o;

      if (f->offset == G_STRUCT_OFFSET (RtfWriterStats, free_space)
          || f->offset == G_STRUCT_OFFSET (RtfWriterStats, min_free_space)
          || f->offset == G_STRUCT_OFFSET (RtfWriterStats, time_left)
          || f->offset == G_STRUCT_OFFSET (RtfWriterStats, file_number))
        break;
      *a = is_high_mark (f) ? MAX (*a, b) : *a + b;
      break;
    }
    case RTF_STAT_UINT:
    case RTF_STAT_COUNT:
    case RTF_STAT_INTERNAL_UINT:{
      guint *a = (guint *) d, b = *(const guint *) o;

      *a = is_high_mark (f) ? MAX (*a, b) : *a + b;
      break;
    }
    case RTF_STAT_NS:{
      gint64 *a = (gint64 *) d, b = *(const gint64 *) o;

      *a = is_high_mark (f) ? MAX (*a, b) : *a + b;
      break;
    }
    case RTF_STAT_INTERNAL_U64:
      *(guint64 *) d += *(const guint64 *) o;
      break;
    case RTF_STAT_SIZE:
      /* alignment: what suits every location */
      *(gsize *) d = MAX (*(gsize *) d, *(const gsize *) o);
      break;
    default:
      break;
  }
}

void
rtf_spread_get_stats (RtfSpread * s, RtfWriterStats * st,
    RtfWriterLatency * latency)
{
  const RtfStatField *fields;
  RtfWriterStats *one = g_new0 (RtfWriterStats, s->n);
  RtfWriterLatency *lat = latency ? g_new0 (RtfWriterLatency, s->n) : NULL;
  guint n_fields, i, k;
  guint64 replaced, handed_back = 0;

  /* copied under the lock (a writer given up may free itself as soon as
   * the spread lets it go, rtf_spread_let_go(), under this lock), added up
   * after */
  g_mutex_lock (&s->lock);
  for (i = 0; i < s->n; i++) {
    if (s->loc[i].writer == NULL) {
      one[i] = s->loc[i].final;
      continue;
    }
    rtf_writer_get_stats (s->loc[i].writer, &one[i]);
    if (lat)
      rtf_writer_get_latency (s->loc[i].writer, &lat[i]);
    handed_back += s->loc[i].handed_back;
  }
  replaced = s->replaced;
  g_mutex_unlock (&s->lock);

  fields = rtf_writer_stats_fields (&n_fields);
  *st = one[0];
  for (i = 1; i < s->n; i++) {
    for (k = 0; k < n_fields; k++)
      add_field (&fields[k], st, &one[i]);
    if (st->error == 0)
      st->error = one[i].error;
  }
  if (latency) {
    memset (latency, 0, sizeof (*latency));
    for (i = 0; i < s->n; i++) {
      rtf_histogram_merge (&latency->arrival_to_done, &lat[i].arrival_to_done);
      rtf_histogram_merge (&latency->submit_to_done, &lat[i].submit_to_done);
      rtf_histogram_merge (&latency->sync_to_done, &lat[i].sync_to_done);
    }
  }
  g_free (one);
  g_free (lat);
  /* a frame handed back by a stalled location is lost there (its writes
   * end in their own time) and written elsewhere, like one failed over */
  handed_back = MIN (handed_back, st->frames_in_flight);
  st->frames_in_flight -= handed_back;
  st->frames_held -= MIN (st->frames_held, handed_back);
  st->frames_lost += handed_back;
  /* a frame failed over and placed again was received twice and lost
   * once: the stream received it once and wrote it */
  st->frames_received -= MIN (st->frames_received, replaced);
  st->frames_lost -= MIN (st->frames_lost, replaced);
}

void
rtf_spread_get_location (RtfSpread * s, guint index,
    RtfSpreadLocationInfo * info, RtfWriterStats * st,
    RtfWriterLatency * latency)
{
  SpreadLocation *l = &s->loc[index];

  if (st)
    memset (st, 0, sizeof (*st));
  if (latency)
    memset (latency, 0, sizeof (*latency));
  g_mutex_lock (&s->lock);
  info->state = l->state;
  info->frames_placed = l->placed;
  info->frames_failed_over = l->failed_over;
  info->latency_estimate_ns = l->latency_ns;
  if (st && l->writer)
    rtf_writer_get_stats (l->writer, st);
  else if (st)
    *st = l->final;
  if (latency && l->writer)
    rtf_writer_get_latency (l->writer, latency);
  g_mutex_unlock (&s->lock);
}

guint64
rtf_spread_frames_lost_ending (RtfSpread * s)
{
  guint64 n;

  g_mutex_lock (&s->lock);
  n = s->lost_ending;
  g_mutex_unlock (&s->lock);
  return n;
}

guint64
rtf_spread_frames_failed_over (RtfSpread * s)
{
  guint64 n;

  g_mutex_lock (&s->lock);
  n = s->failed_over;
  g_mutex_unlock (&s->lock);
  return n;
}
