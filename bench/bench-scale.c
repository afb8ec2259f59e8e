/* rtframe-bench --scale: how many streams fit on one box.
 *
 * Streams 1, 2, 4, ... (doubling, up to --scale-max) at the per-stream
 * rate given (the user's by default), each sink run at every count until
 * the count where it first fails the stream: a frame over its deadline,
 * dropped, or lost by the camera (fio: a write over the deadline); the
 * sinks still keeping up run at the next count, interleaved as in a
 * comparison.  A row per sink and count: MB/s, misses, CPU per GB, write
 * latency p99 and p99.9, the producer's block time p99; as a table, a CSV
 * (--csv) and a plot (--plot). */
#include "bench.h"

#include <stdio.h>

typedef struct
{
  guint streams;
  const BenchSinkSpec *spec;
  gdouble mbps, cpu_gb, p99, p999, block99;
  guint64 misses, dropped, lost;
  gboolean kept_up;
  gchar *error;
} ScaleRow;

static gboolean
kept_up (const BenchResult * r)
{
  return r->error == NULL && r->bad == 0 && r->misses == 0
      && r->dropped == 0 && r->lost_camera == 0 && r->written == r->offered;
}

static void
row_from (ScaleRow * row, guint streams, const BenchResult * r)
{
  row->streams = streams;
  row->spec = r->spec;
  row->mbps = r->mbps;
  row->cpu_gb = bench_cpu_per_gb (r, r->cpu_process);
  row->p99 = r->latency.p99;
  row->p999 = r->latency.p999;
  row->block99 = r->block.p99;
  row->misses = r->misses;
  row->dropped = r->dropped;
  row->lost = r->lost_camera;
  row->kept_up = kept_up (r);
  row->error = g_strdup (r->error);
}

static void
print_row (const ScaleRow * row)
{
  printf ("%7u  %-28s %8.1f %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT
      " %7" G_GUINT64_FORMAT " %7.2f %8.2f %8.2f %8.2f  %s\n", row->streams,
      row->spec->label, row->mbps, row->misses, row->dropped, row->lost,
      row->cpu_gb, row->p99, row->p999, row->block99,
      row->error ? row->error : row->kept_up ? "kept up" : "fell behind");
  fflush (stdout);
}

static gboolean
write_csv (GArray * rows, const gchar * path)
{
  FILE *f = fopen (path, "w");
  guint i;

  if (f == NULL)
    return FALSE;
  fprintf (f, "streams,sink,mbps,misses,dropped,camera_lost,cpu_s_per_gb,"
      "lat_p99_ms,lat_p999_ms,block_p99_ms,kept_up\n");
  for (i = 0; i < rows->len; i++) {
    const ScaleRow *r = &g_array_index (rows, ScaleRow, i);

    fprintf (f, "%u,\"%s\",%.3f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",%.4f,%.3f,%.3f,%.3f,%d\n", r->streams,
        r->spec->label, r->mbps, r->misses, r->dropped, r->lost, r->cpu_gb,
        r->p99, r->p999, r->block99, r->kept_up);
  }
  return fclose (f) == 0;
}

/* One sink's rows as a gnuplot datablock $sN: streams, p99, p99.9, MB/s.
 * (Computed 1/0 for the other sinks' rows, as before, broke every line
 * into single points.) */
static void
datablock (GString * gp, GArray * rows, const BenchSinkSpec * spec, guint n)
{
  guint i;

  g_string_append_printf (gp, "$s%u << EOD\n", n);
  for (i = 0; i < rows->len; i++) {
    const ScaleRow *r = &g_array_index (rows, ScaleRow, i);

    if (r->spec == spec)
      /* commas: bench_plot_begin sets the separator for every input */
      g_string_append_printf (gp, "%u,%.3f,%.3f,%.3f\n", r->streams,
          MAX (r->p99, 0.01), MAX (r->p999, 0.01), r->mbps);
  }
  g_string_append (gp, "EOD\n");
}

/* a sink's label as a gnuplot single-quoted string's content */
static gchar *
gp_quote (const gchar * label)
{
  gchar **parts = g_strsplit (label, "'", -1);
  gchar *q = g_strjoinv ("''", parts);

  g_strfreev (parts);
  return q;
}

/* write latency p99 (log scale, with the deadline) and MB/s against the
 * stream count, one line per sink */
static gboolean
plot (const BenchConfig * cfg, GArray * rows, const gchar * path)
{
  GString *gp = g_string_new (NULL);
  guint i;

  bench_plot_begin (gp, path, 2);
  for (i = 0; i < cfg->sinks->len; i++)
    datablock (gp, rows, g_ptr_array_index (cfg->sinks, i), i);
  g_string_append_printf (gp, "set logscale x 2\nset xlabel 'streams'\n"
      "set logscale y\nset ylabel 'ms'\n"
      "set title 'write latency p99, deadline %g ms (log scale)'\n"
      "plot ", cfg->deadline_ns / 1e6);
  for (i = 0; i < cfg->sinks->len; i++) {
    const BenchSinkSpec *spec = g_ptr_array_index (cfg->sinks, i);

    gchar *q = gp_quote (spec->label);

    g_string_append_printf (gp, "%s$s%u using 1:2 with linespoints "
        "title '%s' noenhanced", i ? ", " : "", i, q);
    g_free (q);
  }
  /* last, so each sink has the same colour in both panels */
  g_string_append_printf (gp, ", %g with lines dashtype 2 lc 'gray' "
      "title 'deadline'", cfg->deadline_ns / 1e6);
  g_string_append_printf (gp, "\nunset logscale y\nset ylabel 'MB/s'\n"
      "set title 'MB/s written (%.0f MB/s a stream)'\nplot ",
      cfg->frame_size * (gdouble) cfg->fps / 1e6);
  for (i = 0; i < cfg->sinks->len; i++) {
    const BenchSinkSpec *spec = g_ptr_array_index (cfg->sinks, i);

    gchar *q = gp_quote (spec->label);

    g_string_append_printf (gp, "%s$s%u using 1:4 with linespoints "
        "title '%s' noenhanced", i ? ", " : "", i, q);
    g_free (q);
  }
  g_string_append (gp, "\n");
  return bench_plot_draw (gp, path);
}

/* The last count at which the sink kept up, 0 if none */
static guint
fit (GArray * rows, const BenchSinkSpec * spec)
{
  guint i, best = 0;

  for (i = 0; i < rows->len; i++) {
    const ScaleRow *r = &g_array_index (rows, ScaleRow, i);

    if (r->spec == spec && r->kept_up)
      best = MAX (best, r->streams);
  }
  return best;
}

gint
bench_scale_run (const BenchConfig * config, guint max_streams)
{
  BenchConfig cfg = *config;
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (ScaleRow));
  gboolean *going = g_new0 (gboolean, config->sinks->len);
  gboolean any = TRUE, failed = FALSE;
  guint n, i;

  cfg.scale_space = TRUE;
  for (i = 0; i < config->sinks->len; i++)
    going[i] = TRUE;
  printf ("# scale: %s %ux%u (%" G_GSIZE_FORMAT " bytes) at %u fps a stream "
      "(%.1f MB/s), %.1f s a run, deadline %.0f ms, streams 1 to %u, "
      "cameras %s\n", cfg.format, cfg.width, cfg.height, cfg.frame_size,
      cfg.fps, cfg.frame_size * (gdouble) cfg.fps / 1e6, cfg.duration,
      cfg.deadline_ns / 1e6, max_streams, cfg.stagger ?
      "staggered (--stagger)" : "triggered together");
  printf ("%7s  %-28s %8s %7s %7s %7s %7s %8s %8s %8s\n", "streams", "sink",
      "MB/s", "misses", "dropped", "camlost", "cpu/GB", "lat99", "lat99.9",
      "block99");
  for (n = 1; n <= max_streams && any; n *= 2) {
    cfg.streams = n;
    any = FALSE;
    for (i = 0; i < cfg.sinks->len; i++) {
      BenchResult *res;
      ScaleRow row = { 0 };

      if (!going[i])
        continue;
      res = bench_run_one (&cfg, g_ptr_array_index (cfg.sinks, i), n);
      row_from (&row, n, res);
      if (res->bad)
        failed = TRUE;
      bench_result_free (res);
      print_row (&row);
      g_array_append_val (rows, row);
      going[i] = row.kept_up;
      any |= going[i];
    }
  }
  printf ("\nstreams kept up (each on its own, the largest count tried "
      "with no miss, drop or camera loss):");
  for (i = 0; i < cfg.sinks->len; i++) {
    const BenchSinkSpec *spec = g_ptr_array_index (cfg.sinks, i);

    printf ("%s %s %u", i ? "," : "", spec->label, fit (rows, spec));
  }
  printf ("\n");
  if (cfg.csv) {
    if (write_csv (rows, cfg.csv))
      printf ("table: %s\n", cfg.csv);
    else
      failed = TRUE;
  }
  if (cfg.plot) {
    if (plot (&cfg, rows, cfg.plot))
      printf ("plot: %s\n", cfg.plot);
    else
      g_printerr ("rtframe-bench: gnuplot could not draw %s (apt-get "
          "install gnuplot-nox)\n", cfg.plot);
  }
  for (i = 0; i < rows->len; i++)
    g_free (g_array_index (rows, ScaleRow, i).error);
  g_array_unref (rows);
  g_free (going);
  return failed ? 1 : 0;
}
