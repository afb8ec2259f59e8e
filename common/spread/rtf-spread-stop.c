/* rtframe: giving a location's writer up at stop (see rtf-spread.h):
 * rtf_spread_finish() waits for each until one deadline and abandons
 * those still writing; the owner gives up the first location's itself
 * (rtf_spread_let_go(), rtf_spread_given_up()).  A writer given up keeps
 * calling back into the spread until its writes end: it holds a reference
 * on it (rtf_spread_unref() when it frees itself). */
#include "rtf-spread-private.h"

/* ---- giving a writer up ------------------------------------------------ */

/* Before rtf_writer_abandon(): the spread lets the writer go (the figures
 * stay as they are now, then its final ones), and holds a reference for
 * its callbacks, which go on until it frees itself */
RtfWriter *
rtf_spread_let_go (RtfSpread * s, guint index)
{
  SpreadLocation *l = &s->loc[index];
  RtfWriter *w = l->writer;

  g_atomic_int_inc (&s->refs);
  g_mutex_lock (&s->lock);
  rtf_writer_get_stats (w, &l->final);
  l->writer = NULL;
  l->given_up_from = l->fate;
  l->state_before = l->state;
  l->fate = WRITER_GIVEN_UP;
  l->state = RTF_LOCATION_FAILED;
  g_mutex_unlock (&s->lock);
  return w;
}

/* After it: final, or NULL when the writer had finished (the spread's
 * again); the frames lost there, not written elsewhere (a stalled
 * location's were placed again) */
guint64
rtf_spread_given_up (RtfSpread * s, guint index, RtfWriter * w,
    const RtfWriterStats * final)
{
  SpreadLocation *l = &s->loc[index];
  guint64 lost = 0;

  g_mutex_lock (&s->lock);
  if (final) {
    l->final = *final;
    lost = final->frames_lost - MIN (final->frames_lost, l->failed_over);
  } else {
    l->writer = w;
    l->fate = l->given_up_from;
    l->state = l->state_before;
  }
  g_mutex_unlock (&s->lock);
  if (!final)
    rtf_spread_unref (s);
  return lost;
}

/* ---- stop: a bounded wait ----------------------------------------------- */

/* A writer given up at stop has ended (its thread, as it frees the
 * writer): the thread goes without a join, the owner's data and the
 * spread's reference with it */
static void
loc_writer_gone (gpointer data)
{
  SpreadLocation *l = data;
  RtfSpread *s = l->spread;

  if (l->thread)
    rtf_thread_release (g_steal_pointer (&l->thread));
  rtf_spread_location_free_user (l);
  if (s->cb.location_released)
    s->cb.location_released (l->index, s->user_data);
  rtf_spread_unref (s);
}

guint
rtf_spread_finish (RtfSpread * s, guint first, gint64 end_us, guint64 * lost)
{
  guint i, n = 0;

  *lost = 0;
  for (i = first; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];
    gint64 left_us = end_us < 0 ? -1 : MAX (0, end_us -
        g_get_monotonic_time ());
    RtfWriterStats final;
    RtfWriter *w;

    if (l->writer == NULL || l->fate == WRITER_GIVEN_UP)
      continue;
    if (rtf_writer_wait_finished (l->writer, left_us < 0 ? -1 : left_us * 1000))
      continue;
    w = rtf_spread_let_go (s, i);
    if (!rtf_writer_abandon (w, loc_writer_gone, l, &final, NULL)) {
      rtf_spread_given_up (s, i, w, NULL);      /* it finished just now */
      continue;
    }
    *lost += rtf_spread_given_up (s, i, w, &final);
    n++;
  }
  return n;
}
