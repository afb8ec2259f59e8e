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

G_END_DECLS

#endif /* __RTF_CLOCK_H__ */
