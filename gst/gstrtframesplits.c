/* rtframe: rtframesink's splits at running times (gstrtframesplits.h) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframesplits.h"

static gint
compare_clock_time (gconstpointer a, gconstpointer b)
{
  GstClockTime x = *(const GstClockTime *) a, y = *(const GstClockTime *) b;

  return x < y ? -1 : x > y;
}

void
gst_rtframe_sink_split_add (GstRtFrameSink * self, GstClockTime running_time)
{
  GST_OBJECT_LOCK (self);
  g_array_append_val (self->split_times, running_time);
  g_array_sort (self->split_times, compare_clock_time);
  g_atomic_int_set (&self->n_split_times, self->split_times->len);
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_rtframe_sink_split_due (GstRtFrameSink * self, GstClockTime running_time)
{
  guint due = 0;

  /* (the streaming thread looks without the lock while none is asked) */
  if (g_atomic_int_get (&self->n_split_times) == 0
      || !GST_CLOCK_TIME_IS_VALID (running_time))
    return FALSE;
  GST_OBJECT_LOCK (self);
  while (due < self->split_times->len
      && g_array_index (self->split_times, GstClockTime, due) <= running_time)
    due++;
  g_array_remove_range (self->split_times, 0, due);
  g_atomic_int_set (&self->n_split_times, self->split_times->len);
  GST_OBJECT_UNLOCK (self);
  return due > 0;
}

gboolean
gst_rtframe_sink_split_at (GstRtFrameSink * self, gint index, gboolean split)
{
  guint i, n;

  if (self->spread == NULL)
    return split;
  n = rtf_spread_n_locations (self->spread);
  if (self->split_owed == NULL)
    self->split_owed = g_new0 (gboolean, n);
  for (i = 0; split && i < n; i++)
    self->split_owed[i] = TRUE;
  split = self->split_owed[index];
  self->split_owed[index] = FALSE;
  return split;
}

void
gst_rtframe_sink_split_clear (GstRtFrameSink * self)
{
  GST_OBJECT_LOCK (self);
  g_array_set_size (self->split_times, 0);
  g_atomic_int_set (&self->n_split_times, 0);
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->split_owed, g_free);
}
