/* rtframe: monotonic clock used for every timestamp of the writer engine */
#ifndef __RTF_CLOCK_H__
#define __RTF_CLOCK_H__

#include <glib.h>
#include <time.h>

G_BEGIN_DECLS

/* CLOCK_MONOTONIC in nanoseconds: the clock of every arrival, submission
 * and completion time the engine records (and of g_get_monotonic_time()). */
static inline gint64
rtf_clock_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* CLOCK_REALTIME and CLOCK_MONOTONIC at one instant (the realtime read
 * between two monotonic reads, their middle taken): what an index header
 * keeps to put its records' monotonic times on the wall clock */
static inline void
rtf_clock_anchor (gint64 * realtime_ns, gint64 * monotonic_ns)
{
  struct timespec ts;
  gint64 before = rtf_clock_now_ns (), after;

  clock_gettime (CLOCK_REALTIME, &ts);
  after = rtf_clock_now_ns ();
  *realtime_ns = (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) +
      ts.tv_nsec;
  *monotonic_ns = before + (after - before) / 2;
}

G_END_DECLS

#endif /* __RTF_CLOCK_H__ */
