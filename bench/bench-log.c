/* rtframe-bench: the per-frame records of one stream */
#include "bench.h"

#include <string.h>

/* The record of frame k, NULL if it was never added. */
BenchFrame *
bench_log_frame (BenchLog * log, guint64 k)
{
  BenchFrame *chunk;

  if (k / BENCH_CHUNK >= BENCH_MAX_CHUNKS)
    return NULL;
  chunk = g_atomic_pointer_get (&log->chunk[k / BENCH_CHUNK]);
  return chunk ? &chunk[k % BENCH_CHUNK] : NULL;
}

/* A new record after the last one (producer only); its chunk is allocated
 * here, before anyone can look for it. */
BenchFrame *
bench_log_add (BenchLog * log)
{
  guint64 k = log->n;
  BenchFrame *f;

  if (k / BENCH_CHUNK >= BENCH_MAX_CHUNKS)
    g_error ("rtframe-bench: more than %u frames in a stream",
        BENCH_CHUNK * BENCH_MAX_CHUNKS);
  if (log->chunk[k / BENCH_CHUNK] == NULL)
    g_atomic_pointer_set (&log->chunk[k / BENCH_CHUNK],
        g_new0 (BenchFrame, BENCH_CHUNK));
  f = &log->chunk[k / BENCH_CHUNK][k % BENCH_CHUNK];
  f->offer = -1;
  f->done = -1;
  f->event = -1;
  log->n = k + 1;
  return f;
}

gboolean
bench_frame_missed (const BenchFrame * f, guint64 deadline_ns)
{
  return f->lost || f->done < 0 || f->block > (gint64) deadline_ns
      || f->done - f->offer > (gint64) deadline_ns;
}

void
bench_log_clear (BenchLog * log)
{
  guint i;

  for (i = 0; i < BENCH_MAX_CHUNKS && log->chunk[i]; i++)
    g_free (log->chunk[i]);
  memset (log, 0, sizeof (*log));
}
