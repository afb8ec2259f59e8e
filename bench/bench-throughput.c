/* rtframe-bench: throughput over time of one run, from its per-frame logs
 * (a frame counts when its last byte was written), as figures, CSV and a
 * gnuplot plot; the preflight's "sustained" rate is defined here.
 *
 * Sustained = the mean rate over the last third of the run (bytes written
 * in it / its length).  A drive's write cache makes the first part fast
 * and the rest slow; with the run sized past the cache (--size), its last
 * third is after the cliff.  Not the minimum of a short window: the
 * sink's queue rides over short stalls (this VM's disk stalls up to
 * 400 ms, docs/performance.md) and a take lasts hours, so what decides
 * whether it keeps up is the rate it holds, not its worst half second. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

/* Bytes whose frames completed in [from, to) ns (to < 0: to the end) */
static guint64
bytes_between (const BenchConfig * cfg, const BenchResult * res, gint64 from,
    gint64 to)
{
  guint64 n = 0, k;
  guint s;

  for (s = 0; s < res->n_logs; s++) {
    for (k = 0; k < res->logs[s]->n; k++) {
      BenchFrame *f = bench_log_frame (res->logs[s], k);

      if (f->done >= from && (to < 0 || f->done < to))
        n++;
    }
  }
  return n * cfg->frame_size;
}

static gint64
last_done (const BenchResult * res)
{
  gint64 last = 0;
  guint64 k;
  guint s;

  for (s = 0; s < res->n_logs; s++)
    for (k = 0; k < res->logs[s]->n; k++)
      last = MAX (last, bench_log_frame (res->logs[s], k)->done);
  return last;
}

static gdouble
mbps_between (const BenchConfig * cfg, const BenchResult * res, gint64 from,
    gint64 to, gint64 end)
{
  gint64 span = (to < 0 ? end : to) - from;

  return span > 0 ? bytes_between (cfg, res, from, to) / 1e6 / (span / 1e9) : 0;
}

/* Bins of 0.5 s (a cache cliff is seconds to minutes into a run); at
 * least 20 in a run shorter than 10 s, at most 400 in one longer than
 * 200 s; filled in one pass */
static void
fill_bins (BenchThroughput * tp, const BenchConfig * cfg,
    const BenchResult * res)
{
  guint64 k;
  guint s, b;

  tp->bin = MAX (MIN (0.5, tp->seconds / 20), tp->seconds / 400);
  if (tp->bin <= 0)
    tp->bin = 0.5;
  tp->n_bins = MAX (1, (guint) (tp->seconds / tp->bin + 0.999));
  tp->mbps = g_new0 (gdouble, tp->n_bins);
  for (s = 0; s < res->n_logs; s++) {
    for (k = 0; k < res->logs[s]->n; k++) {
      BenchFrame *f = bench_log_frame (res->logs[s], k);

      if (f->done >= 0) {
        b = MIN ((guint) (f->done / 1e9 / tp->bin), tp->n_bins - 1);
        tp->mbps[b] += cfg->frame_size / 1e6;
      }
    }
  }
  /* MB per bin to MB/s; the last bin may be shorter */
  for (b = 0; b < tp->n_bins; b++)
    tp->mbps[b] /= MAX (1e-3, MIN (tp->bin, tp->seconds - b * tp->bin));
}

void
bench_throughput_from (BenchThroughput * tp, const gchar * label,
    const BenchConfig * cfg, const BenchResult * res)
{
  gint64 end = last_done (res);
  guint i;

  memset (tp, 0, sizeof (*tp));
  tp->label = label;
  tp->seconds = end / 1e9;
  tp->bytes = res->written * cfg->frame_size;
  tp->mean = tp->seconds > 0 ? tp->bytes / 1e6 / tp->seconds : 0;
  tp->first_third = mbps_between (cfg, res, 0, end / 3, end);
  tp->last_third = mbps_between (cfg, res, end - end / 3, -1, end);
  for (i = 0; i < 10; i++)
    tp->tenths[i] = mbps_between (cfg, res, end * i / 10,
        i == 9 ? -1 : end * (i + 1) / 10, end);
  fill_bins (tp, cfg, res);
}

void
bench_throughput_clear (BenchThroughput * tp)
{
  g_free (tp->mbps);
  tp->mbps = NULL;
}

/* label,t_s,mbps: one row per bin, t_s its middle */
gboolean
bench_throughput_csv (const BenchThroughput * series, guint n,
    const gchar * path)
{
  FILE *f = fopen (path, "w");
  guint i, b;

  if (f == NULL)
    return FALSE;
  fprintf (f, "phase,t_s,mbps\n");
  for (i = 0; i < n; i++)
    for (b = 0; b < series[i].n_bins; b++)
      fprintf (f, "%s,%.3f,%.3f\n", series[i].label,
          (b + 0.5) * series[i].bin, series[i].mbps[b]);
  return fclose (f) == 0;
}

/* One panel per series: MB/s per bin, the rate asked and the series' last
 * third */
gboolean
bench_throughput_plot (const BenchThroughput * series, guint n,
    gdouble rate_mbps, const gchar * csv, const gchar * path)
{
  GString *gp = g_string_new (NULL);
  guint i;

  bench_plot_begin (gp, path, n);
  g_string_append (gp, "set xlabel 'time since the phase started (s)'\n"
      "set ylabel 'written (MB/s)'\nset yrange [0:*]\nset key below\n");
  for (i = 0; i < n; i++) {
    const BenchThroughput *tp = &series[i];

    g_string_append_printf (gp, "set title '%s: %.1f MB/s; first third "
        "%.1f, last third %.1f MB/s' noenhanced\nplot '%s' using "
        "(strcol(1) eq '%s' ? $2 : 1/0):3 with linespoints pt 7 ps 0.3 "
        "title 'per %.2f s', %f with lines lw 2 title 'rate asked', "
        "%f with lines dt 2 title 'last third'\n", tp->label, tp->mean,
        tp->first_third, tp->last_third, csv, tp->label, tp->bin, rate_mbps,
        tp->last_third);
  }
  return bench_plot_draw (gp, path);
}
