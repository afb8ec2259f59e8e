/* rtframe-bench: how far the rounds of one sink agree.
 *
 * With --rounds N, every sink's MB/s of each round, their median and
 * their spread, (max - min) / median; and rtframesink's throughput over
 * fio's of the same round, the same way.  A figure is only worth quoting
 * when its rounds agree (docs/performance.md: within 10%). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

/* values[0..n) in place sorted; prints them in round order first */
static void
print_row (const gchar * label, gdouble * values, guint n, gint decimals)
{
  gdouble median, spread;
  guint i;

  printf ("  %-36s", label);
  for (i = 0; i < n; i++)
    printf (" %7.*f", decimals, values[i]);
  qsort (values, n, sizeof (gdouble), bench_cmp_double);
  median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  spread = median > 0 ? (values[n - 1] - values[0]) / median : 0;
  printf ("   median %.*f", decimals, median);
  printf ("   spread %.1f%%%s\n", spread * 100, spread > 0.10 ?
      "  (over 10%: the rounds disagree)" : "");
}

/* the result of spec in round, or NULL (an error counts as none) */
static const BenchResult *
find (GPtrArray * results, const BenchSinkSpec * spec, guint round)
{
  guint i;

  for (i = 0; i < results->len; i++) {
    const BenchResult *r = g_ptr_array_index (results, i);

    if (r->spec == spec && r->round == round && r->error == NULL)
      return r;
  }
  return NULL;
}

void
bench_report_rounds (const BenchConfig * cfg, GPtrArray * results)
{
  gdouble *v = g_new (gdouble, cfg->rounds);
  const BenchSinkSpec *fio = NULL;
  guint i, k, n;

  if (cfg->rounds < 2) {
    g_free (v);
    return;
  }
  printf ("\nrounds (MB/s in each round, their median, and the spread: "
      "max - min over the median):\n");
  for (i = 0; i < cfg->sinks->len; i++) {
    const BenchSinkSpec *spec = g_ptr_array_index (cfg->sinks, i);

    if (spec->kind == BENCH_FIO)
      fio = spec;
    for (k = 1, n = 0; k <= cfg->rounds; k++) {
      const BenchResult *r = find (results, spec, k);

      if (r)
        v[n++] = r->mbps;
    }
    if (n == cfg->rounds)
      print_row (spec->label, v, n, 1);
  }
  for (i = 0; fio && i < cfg->sinks->len; i++) {
    const BenchSinkSpec *spec = g_ptr_array_index (cfg->sinks, i);
    gchar *label;

    if (spec->kind != BENCH_RTFRAMESINK)
      continue;
    for (k = 1, n = 0; k <= cfg->rounds; k++) {
      const BenchResult *r = find (results, spec, k), *f = find (results, fio,
          k);

      if (r && f && f->mbps > 0)
        v[n++] = r->mbps / f->mbps;
    }
    label = g_strdup_printf ("%s / fio", spec->label);
    if (n == cfg->rounds)
      print_row (label, v, n, 2);
    g_free (label);
  }
  g_free (v);
  fflush (stdout);
}
