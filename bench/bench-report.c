/* rtframe-bench: from per-frame records to figures: the summary table, the
 * ratios, the CSV and the gnuplot plot. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* qsort's order of gdoubles (bench-rounds.c uses it too) */
gint
bench_cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
percentile (const gdouble * sorted, guint64 n, gdouble p)
{
  guint64 i = (guint64) (p * n);

  return sorted[MIN (i, n - 1)];
}

/* ms: the values, sorted in place */
void
bench_dist_from (BenchDist * d, gdouble * ms, guint64 n)
{
  gdouble sum = 0;
  guint64 i;

  memset (d, 0, sizeof (*d));
  d->count = n;
  if (n == 0)
    return;
  qsort (ms, n, sizeof (gdouble), bench_cmp_double);
  for (i = 0; i < n; i++)
    sum += ms[i];
  d->min = ms[0];
  d->max = ms[n - 1];
  d->mean = sum / n;
  d->p50 = percentile (ms, n, 0.50);
  d->p99 = percentile (ms, n, 0.99);
  d->p999 = percentile (ms, n, 0.999);
}

guint
bench_trigger_count (const BenchConfig * cfg)
{
  gdouble d = cfg->duration * GST_SECOND;

  if (cfg->trigger_ns == 0 || cfg->trigger_ns >= d)
    return 0;
  if (cfg->trigger_every_ns == 0)
    return 1;
  return (guint) ((d - 1 - cfg->trigger_ns) / cfg->trigger_every_ns) + 1;
}

guint64
bench_trigger_at (const BenchConfig * cfg, guint k)
{
  return cfg->trigger_ns + k * cfg->trigger_every_ns;
}

/* --trigger: the held frames of each trigger's event recording (its
 * backlog) - how many, how many written, and when the last was (-1:
 * none) - in ev[event]; returns the last of all */
static gint64
count_backlog (BenchResult * res, BenchEvent * ev, gint64 * last_of,
    guint n_events)
{
  gint64 last = -1;
  guint64 i;
  guint s;

  res->held = res->held_written = 0;
  for (s = 0; s < res->n_logs; s++) {
    for (i = 0; i < res->logs[s]->n; i++) {
      BenchFrame *f = bench_log_frame (res->logs[s], i);

      if (f->part != BENCH_FRAME_HELD || f->event < 0
          || (guint) f->event >= n_events)
        continue;
      res->held++;
      ev[f->event].held++;
      if (f->done >= 0) {
        res->held_written++;
        ev[f->event].held_written++;
        last = MAX (last, f->done);
        last_of[f->event] = MAX (last_of[f->event], f->done);
      }
    }
  }
  return last;
}

/* The live frames of one event (all: ev NULL) offered while its backlog
 * was written (from its trigger to backlog_end): latency and misses */
static void
compute_during_backlog (const BenchConfig * cfg, BenchResult * res,
    gint event, guint64 trigger, gint64 backlog_end, guint64 * count,
    guint64 * misses, BenchDist * during)
{
  guint64 total = 0, n = 0, i;
  gdouble *lat;
  guint s;

  for (s = 0; s < res->n_logs; s++)
    total += res->logs[s]->n;
  lat = g_new (gdouble, MAX (total, 1));
  *count = *misses = 0;
  for (s = 0; s < res->n_logs; s++) {
    for (i = 0; i < res->logs[s]->n; i++) {
      BenchFrame *f = bench_log_frame (res->logs[s], i);

      if (f->part != BENCH_FRAME_LIVE || f->offer < (gint64) trigger
          || f->offer > backlog_end || (event >= 0 && f->event != event))
        continue;
      (*count)++;
      *misses += bench_frame_missed (f, cfg->deadline_ns);
      if (f->done >= 0)
        lat[n++] = (f->done - f->offer) / 1e6;
    }
  }
  bench_dist_from (during, lat, n);
  g_free (lat);
}

/* Several triggers: each one's backlog and the live frames beside it,
 * into res->events (an event sink's; a ring's come from bench-ring.c) */
static gint64
compute_events (const BenchConfig * cfg, BenchResult * res)
{
  guint n = bench_trigger_count (cfg), k;
  gint64 *last_of = g_new (gint64, MAX (n, 1)), last;

  if (res->events == NULL) {
    res->events = g_new0 (BenchEvent, MAX (n, 1));
    res->n_events = n;
  }
  for (k = 0; k < n; k++) {
    last_of[k] = -1;
    res->events[k].trigger_ns = bench_trigger_at (cfg, k);
  }
  last = count_backlog (res, res->events, last_of, n);
  for (k = 0; k < n; k++) {
    BenchEvent *e = &res->events[k];

    e->drain = last_of[k] >= 0 ? (last_of[k] - (gint64) e->trigger_ns) /
        1e9 : 0;
    if (last_of[k] >= 0)
      compute_during_backlog (cfg, res, k, e->trigger_ns, last_of[k],
          &e->during_backlog, &e->during_misses, &e->during);
  }
  g_free (last_of);
  return last;
}

/* A sink that writes every frame, with triggers: its frames within 2 s
 * of a trigger against the others, over the whole run - does a trigger
 * (a ring's links) cost the frames around it? */
static void
compute_near_far (const BenchConfig * cfg, BenchResult * res)
{
  guint n = bench_trigger_count (cfg), s, k;
  guint64 total = 0, i, na = 0, nn = 0, nf = 0;
  gdouble *all, *near, *far;

  res->every_frame = n > 0 && res->spec->kind != BENCH_FIO;
  for (s = 0; s < res->n_logs && res->every_frame; s++)
    for (i = 0; i < res->logs[s]->n; i++)
      if (bench_log_frame (res->logs[s], i)->part != BENCH_FRAME_LIVE)
        res->every_frame = FALSE;
  if (!res->every_frame)
    return;
  for (s = 0; s < res->n_logs; s++)
    total += res->logs[s]->n;
  all = g_new (gdouble, MAX (total, 1));
  near = g_new (gdouble, MAX (total, 1));
  far = g_new (gdouble, MAX (total, 1));
  res->misses_all = res->misses_near = res->misses_far = 0;
  for (s = 0; s < res->n_logs; s++) {
    for (i = 0; i < res->logs[s]->n; i++) {
      BenchFrame *f = bench_log_frame (res->logs[s], i);
      gboolean missed = bench_frame_missed (f, cfg->deadline_ns);
      gboolean is_near = FALSE;
      gdouble lat = (f->done - f->offer) / 1e6;

      if (f->offer < 0)
        continue;
      for (k = 0; k < n && !is_near; k++) {
        gint64 d = f->offer - (gint64) bench_trigger_at (cfg, k);

        is_near = d >= -2 * (gint64) GST_SECOND && d <= 2 * (gint64)
            GST_SECOND;
      }
      res->misses_all += missed;
      if (is_near)
        res->misses_near += missed;
      else
        res->misses_far += missed;
      if (f->done < 0)
        continue;
      all[na++] = lat;
      if (is_near)
        near[nn++] = lat;
      else
        far[nf++] = lat;
    }
  }
  bench_dist_from (&res->lat_all, all, na);
  bench_dist_from (&res->lat_near, near, nn);
  bench_dist_from (&res->lat_far, far, nf);
  g_free (all);
  g_free (near);
  g_free (far);
}

/* Counts and distributions from the per-frame records.  A frame misses
 * when the camera lost it, when it was never written (dropped, error), or
 * when it was written or the producer blocked longer than the deadline
 * after it was offered.  Of an event recording (--trigger) only the live
 * frames count here: the held ones are told apart (count_backlog()), the
 * ones before them were never to be written. */
void
bench_result_compute (const BenchConfig * cfg, BenchResult * res)
{
  guint64 total = 0, nb = 0, nl = 0, i;
  gdouble *block, *lat, *svc;
  gint64 last_offer = 0, backlog_end;
  guint s;

  if (res->events == NULL) {
    /* (a ring's events are bench-ring.c's; it holds no frames back) */
    backlog_end = compute_events (cfg, res);
    res->drain = backlog_end >= 0 ? (backlog_end -
        (gint64) cfg->trigger_ns) / 1e9 : 0;
    if (backlog_end >= 0)
      compute_during_backlog (cfg, res, -1, cfg->trigger_ns, backlog_end,
          &res->during_backlog, &res->during_misses, &res->during);
    if (res->held == 0) {
      g_free (res->events);
      res->events = NULL;
      res->n_events = 0;
    }
  }
  compute_near_far (cfg, res);
  for (s = 0; s < res->n_logs; s++)
    total += res->logs[s]->n;
  block = g_new (gdouble, MAX (total, 1));
  lat = g_new (gdouble, MAX (total, 1));
  svc = g_new (gdouble, MAX (total, 1));
  res->offered = res->written = res->misses = res->recorded = 0;
  for (s = 0; s < res->n_logs; s++) {
    for (i = 0; i < res->logs[s]->n; i++) {
      BenchFrame *f = bench_log_frame (res->logs[s], i);

      res->recorded += f->done >= 0;
      /* with --trigger every sink is measured from the trigger on: the
       * same window for a sink that records all the time */
      if (f->part != BENCH_FRAME_LIVE || f->offer < (gint64) cfg->trigger_ns)
        continue;
      res->offered++;
      last_offer = MAX (last_offer, f->offer);
      if (!f->lost && res->spec->kind != BENCH_FIO)
        block[nb++] = f->block / 1e6;
      if (f->done >= 0) {
        res->written++;
        lat[nl] = (f->done - f->offer) / 1e6;
        svc[nl] = f->service / 1e6;
        nl++;
      }
      res->misses += bench_frame_missed (f, cfg->deadline_ns);
    }
  }
  bench_dist_from (&res->block, block, nb);
  bench_dist_from (&res->latency, lat, nl);
  bench_dist_from (&res->service, svc, nl);
  g_free (block);
  g_free (lat);
  g_free (svc);
  res->bytes = res->recorded * cfg->frame_size;
  res->mbps = res->seconds > 0 ? res->bytes / 1e6 / res->seconds : 0;
  res->tail = res->seconds - last_offer / 1e9;
}

gdouble
bench_cpu_per_gb (const BenchResult * r, gdouble cpu)
{
  return r->bytes ? cpu / (r->bytes / 1e9) : 0;
}

static const BenchResult *
find_kind (GPtrArray * results, BenchSinkKind kind, guint round)
{
  guint i;

  for (i = 0; i < results->len; i++) {
    const BenchResult *r = g_ptr_array_index (results, i);

    if (r->spec->kind == kind && r->round == round && r->error == NULL)
      return r;
  }
  return NULL;
}

/* Where in the frame period a stream offers its frames: the circular mean
 * of its live frames' offer times modulo the period, in ms (fio: its
 * write's completion, to the ms in its log, less its latency).  Cameras
 * triggered together offer at one phase, and their frames reach the
 * device at once: with 3 streams the p99.9 was 19-20 ms where the same
 * streams staggered by a third of a period gave 4.9 ms (2026-12-06). */
static gdouble
phase_ms (const BenchLog * log, gdouble period_ns)
{
  gdouble x = 0, y = 0, a;
  guint64 k;

  for (k = 0; k < log->n; k++) {
    const BenchFrame *f = bench_log_frame ((BenchLog *) log, k);

    if (f->offer < 0 || f->lost || f->part != BENCH_FRAME_LIVE)
      continue;
    a = 2 * G_PI * fmod ((gdouble) f->offer, period_ns) / period_ns;
    x += cos (a);
    y += sin (a);
  }
  if (x == 0 && y == 0)
    return -1;
  a = atan2 (y, x);
  if (a < 0)
    a += 2 * G_PI;
  return a / (2 * G_PI) * period_ns / 1e6;
}

/* "phases: 0.0 16.7 33.3 ms of the 50 ms period, the nearest two 16.7 ms
 * apart", live runs of several streams only; "n/a" for a stream with no
 * live frame (an event recording's before its trigger) */
static void
print_phases (const BenchConfig * cfg, const BenchResult * r)
{
  gdouble period_ms = 1e3 / cfg->fps, nearest = -1;
  gdouble ph[64];
  guint i, j, n = MIN (r->n_logs, G_N_ELEMENTS (ph));

  if (cfg->flat_out || n < 2)
    return;
  printf ("%-28s       phases:", "");
  for (i = 0; i < n; i++) {
    ph[i] = phase_ms (r->logs[i], period_ms * 1e6);
    if (ph[i] < 0)
      printf (" n/a");
    else                        /* 49.96 of 50 is 0.04 before 0: 0.0 */
      printf (" %.1f", ph[i] >= period_ms - 0.05 ? 0 : ph[i]);
  }
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++) {
      gdouble d = fabs (ph[i] - ph[j]);

      if (ph[i] >= 0 && ph[j] >= 0 && (nearest < 0
              || MIN (d, period_ms - d) < nearest))
        nearest = MIN (d, period_ms - d);
    }
  printf (" ms of the %.0f ms period (offers, per stream%s%s)", period_ms,
      r->n_logs > n ? ", the first 64" : "", r->spec->kind == BENCH_FIO ?
      ", from fio's log to the ms" : "");
  if (nearest >= 0)
    printf ("; the nearest two %.1f ms apart", nearest);
  printf ("\n");
}

/* Several triggers, or a ring: a line an event */
static void
print_events (const BenchConfig * cfg, const BenchResult * r)
{
  guint k;

  for (k = 0; k < r->n_events; k++) {
    const BenchEvent *e = &r->events[k];

    if (!e->ring && r->n_events > 1)
      printf ("%-28s       event %u at %.1f s: %" G_GUINT64_FORMAT " held "
          "frames, %" G_GUINT64_FORMAT " written, the last %.0f ms after the "
          "trigger; %" G_GUINT64_FORMAT " live frames beside them: lat p99 "
          "%.2f ms, max %.2f ms, %" G_GUINT64_FORMAT " misses\n", "", k,
          e->trigger_ns / 1e9, e->held, e->held_written, e->drain * 1e3,
          e->during_backlog, e->during.p99, e->during.max, e->during_misses);
    else if (e->ring) {
      gchar kept[48];

      if (e->kept_s >= 0)
        g_snprintf (kept, sizeof kept, "%.0f ms", e->kept_s * 1e3);
      else
        g_strlcpy (kept, "not all", sizeof kept);
      printf ("%-28s       ring event %u at %.1f s: frames %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " (wanted %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ", %s), %"
          G_GUINT64_FORMAT " frames exact; %" G_GUINT64_FORMAT " pre-trigger "
          "files kept %s after the trigger; checked %.1f s after its stop: "
          "%s\n", "", k, e->trigger_ns / 1e9, e->first_frame, e->last_frame,
          e->want_first, e->want_last, e->frames_agree ? "every stream" :
          "NOT on every stream", e->verified, e->files_pre, kept, e->verify_s,
          e->verdict ? e->verdict : "?");
    }
  }
}

void
bench_report_table (const BenchConfig * cfg, GPtrArray * results)
{
  gchar rate[32];
  guint i;

  if (cfg->flat_out)
    g_strlcpy (rate, "flat out", sizeof (rate));
  else
    g_snprintf (rate, sizeof (rate), "%u fps", cfg->fps);
  printf ("\n%u stream(s) of %s %ux%u (%" G_GSIZE_FORMAT " bytes), %s, "
      "%.1f s, deadline %.0f ms\n", cfg->streams, cfg->format, cfg->width,
      cfg->height, cfg->frame_size, rate, cfg->duration,
      cfg->deadline_ns / 1e6);
  if (!cfg->flat_out && cfg->streams > 1)
    printf ("cameras %s\n", cfg->stagger ? "staggered: stream i's frames "
        "come i/streams of a period after stream 0's (--stagger)" :
        "triggered together: every stream's frame comes at once (--stagger "
        "spreads them over the period)");
  if (cfg->rotate_frames)
    printf ("files of %" G_GUINT64_FORMAT " frames a stream, each deleted "
        "when the next is begun (--rotate: rtframesink max-file-size %"
        G_GUINT64_FORMAT " and max-files 1, fio unlink_each_loop)\n",
        cfg->rotate_frames, cfg->rotate_frames * cfg->frame_size);
  if (cfg->trigger_every_ns || cfg->post_ns)
    printf ("%u trigger(s) from %.1f s, every %.1f s; each recording asked "
        "to stop %.1f s after its trigger (start-recording and "
        "stop-recording together, on every stream)\n",
        bench_trigger_count (cfg), cfg->trigger_ns / 1e9,
        cfg->trigger_every_ns / 1e9, cfg->post_ns / 1e9);
  printf ("\n%-28s %5s %7s %7s %5s %5s %6s | %8s %8s | %7s %7s %7s %8s | "
      "%7s | %6s %6s | %6s %7s | %6s %5s | %s\n", "sink", "round", "offered",
      "written", "drop", "camlost", "misses", "block99", "blockmax", "lat50",
      "lat99", "lat99.9", "latmax", "MB/s", "cpu/GB", "sys/GB", "rssMB",
      "dirtyMB", "durabl", "tail", "verified");
  for (i = 0; i < results->len; i++) {
    const BenchResult *r = g_ptr_array_index (results, i);
    gchar verified[64];

    if (r->spec->kind == BENCH_FIO)
      g_strlcpy (verified, "n/a (fio)", sizeof (verified));
    else if (!cfg->verify)
      g_strlcpy (verified, "not checked", sizeof (verified));
    else
      g_snprintf (verified, sizeof (verified), "%" G_GUINT64_FORMAT " ok%s",
          r->verified - r->bad, r->bad ? ", FAULTS" : "");
    printf ("%-28s %5u %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %5"
        G_GUINT64_FORMAT " %5" G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT
        " | %8.2f %8.2f | %7.2f %7.2f %7.2f %8.2f | %7.1f | %6.2f %6.2f | "
        "%6.1f %7.1f | %6.2f %5.2f | %s\n", r->spec->label, r->round,
        r->offered, r->written, r->dropped, r->lost_camera, r->misses,
        r->block.p99, r->block.max, r->latency.p50, r->latency.p99,
        r->latency.p999, r->latency.max, r->mbps,
        bench_cpu_per_gb (r, r->cpu_process), bench_cpu_per_gb (r,
            r->cpu_machine), r->rss_peak_mb, r->dirty_peak_mb, r->seconds,
        r->tail, verified);
    if (r->spec->kind == BENCH_RTFRAMESINK)
      printf ("%-28s       element: %" G_GUINT64_FORMAT " missed, %"
          G_GUINT64_FORMAT " dropped, %" G_GUINT64_FORMAT " zero-copy; "
          "device latency p99 %.2f ms max %.2f ms\n", "", r->element_misses,
          r->dropped, r->zero_copy, r->service.p99, r->service.max);
    if (r->spec->kind != BENCH_FIO && r->producer_frames)
      printf ("%-28s       camera: %.1f us CPU a frame to make it (%.1f%% "
          "of the process), %.1f us a frame with the push; %"
          G_GUINT64_FORMAT " buffers first filled mid-run\n", "",
          r->producer_make_cpu * 1e6 / r->producer_frames,
          r->cpu_process > 0 ? 100 * r->producer_make_cpu / r->cpu_process : 0,
          r->producer_cpu * 1e6 / r->producer_frames, r->producer_fills);
    if (r->syncs && r->sync_p99 >= 0)
      printf ("%-28s       durable: %" G_GUINT64_FORMAT " fdatasyncs, "
          "sync p99 %.2f ms, p99.9 %.2f ms, max %.2f ms\n", "", r->syncs,
          r->sync_p99, r->sync_p999, r->sync_max);
    else if (r->syncs)
      printf ("%-28s       durable: %" G_GUINT64_FORMAT " fdatasyncs "
          "(sync-interval), the longest %.2f ms\n", "", r->syncs, r->sync_max);
    print_phases (cfg, r);
    if (r->held && r->n_events <= 1)
      printf ("%-28s       event: %" G_GUINT64_FORMAT " held frames, %"
          G_GUINT64_FORMAT " written, the last %.0f ms after the trigger; %"
          G_GUINT64_FORMAT " live frames beside them: lat p99 %.2f ms, max "
          "%.2f ms, %" G_GUINT64_FORMAT " misses\n", "", r->held,
          r->held_written, r->drain * 1e3, r->during_backlog, r->during.p99,
          r->during.max, r->during_misses);
    print_events (cfg, r);
    if (r->every_frame)
      printf ("%-28s       every frame: %" G_GUINT64_FORMAT " lat p99 %.2f "
          "p99.9 %.2f max %.2f ms, %" G_GUINT64_FORMAT " misses; within 2 s "
          "of a trigger: %" G_GUINT64_FORMAT " p99 %.2f p99.9 %.2f max %.2f "
          "ms, %" G_GUINT64_FORMAT " misses; far from them: %"
          G_GUINT64_FORMAT " p99 %.2f p99.9 %.2f max %.2f ms, %"
          G_GUINT64_FORMAT " misses\n", "", r->lat_all.count, r->lat_all.p99,
          r->lat_all.p999, r->lat_all.max, r->misses_all, r->lat_near.count,
          r->lat_near.p99, r->lat_near.p999, r->lat_near.max, r->misses_near,
          r->lat_far.count, r->lat_far.p99, r->lat_far.p999, r->lat_far.max,
          r->misses_far);
    if (r->rss_samples && cfg->duration >= 120)
      printf ("%-28s       rss (VmRSS each second): peak %.1f MB in 60-120 "
          "s, %.1f MB in the last minute (%+.1f%%), %.1f MB over the run\n",
          "", r->rss_min2_mb, r->rss_last_mb, r->rss_min2_mb > 0 ?
          100 * (r->rss_last_mb - r->rss_min2_mb) / r->rss_min2_mb : 0,
          r->rss_max_mb);
    else if (r->rss_samples)
      printf ("%-28s       rss (VmRSS each second): peak %.1f MB over the "
          "run\n", "", r->rss_max_mb);
    if (r->space_frames)
      printf ("%-28s       space: each stream stopped at frame %"
          G_GUINT64_FORMAT " (%.1f s), what fits in 80%% of the free space "
          "(this sink cannot rotate)\n", "", r->space_frames,
          (gdouble) r->space_frames / cfg->fps);
    if (r->error)
      printf ("%-28s       ERROR: %s\n", "", r->error);
  }
  printf ("\nblock: time the producer (camera thread) was blocked handing a "
      "frame over; lat: offered to written (rtframesink: device completed; "
      "filesink: write() returned; fio: submit to completion); cpu/GB: CPU "
      "seconds of the process (fio: its processes) per GB; sys/GB: of all "
      "CPUs; durabl: start to last byte durable (s); tail: last frame to "
      "durable (s)\n");

  /* ratios within each round, against fio and queue ! filesink */
  for (i = 0; i < results->len; i++) {
    const BenchResult *r = g_ptr_array_index (results, i);
    const BenchResult *fio = find_kind (results, BENCH_FIO, r->round);
    const BenchResult *qf = find_kind (results, BENCH_QUEUE_FILESINK, r->round);

    if (r->spec->kind != BENCH_RTFRAMESINK || r->error)
      continue;
    printf ("ratio %s (round %u):", r->spec->label, r->round);
    if (fio && fio->mbps > 0)
      printf (" throughput %.2f x fio;", r->mbps / fio->mbps);
    if (qf && qf->mbps > 0)
      printf (" throughput %.2f x queue-filesink;", r->mbps / qf->mbps);
    if (qf && bench_cpu_per_gb (qf, qf->cpu_process) > 0)
      printf (" CPU/GB %.2f x queue-filesink (process), %.2f x (all CPUs);",
          bench_cpu_per_gb (r, r->cpu_process) / bench_cpu_per_gb (qf,
              qf->cpu_process), bench_cpu_per_gb (qf,
              qf->cpu_machine) > 0 ? bench_cpu_per_gb (r,
              r->cpu_machine) / bench_cpu_per_gb (qf, qf->cpu_machine) : 0);
    if (fio)
      printf (" misses %" G_GUINT64_FORMAT " vs fio's %" G_GUINT64_FORMAT
          " writes over the deadline", r->misses, fio->misses);
    printf ("\n");
  }
  fflush (stdout);
}

/* A sink's label as the CSV's first column: its commas (between the
 * properties of "rtframesink:a=1,b=2") as semicolons, so every row has
 * the same columns.  Caller frees. */
static gchar *
csv_label (const BenchResult * r)
{
  return g_strdelimit (g_strdup (r->spec->label), ",", ';');
}

/* the CSV's part column (BenchFramePart) */
static const gchar *const part_names[] = { "live", "held", "unrecorded" };

gboolean
bench_report_csv (const BenchConfig * cfg, GPtrArray * results,
    const gchar * path)
{
  FILE *f = fopen (path, "w");
  guint i, s;
  guint64 k;

  if (f == NULL)
    return FALSE;
  fprintf (f, "sink,round,stream,frame,offer_s,block_ms,latency_ms,"
      "service_ms,written,missed,part\n");
  for (i = 0; i < results->len; i++) {
    const BenchResult *r = g_ptr_array_index (results, i);
    gchar *label = csv_label (r);

    for (s = 0; s < r->n_logs; s++) {
      for (k = 0; k < r->logs[s]->n; k++) {
        BenchFrame *fr = bench_log_frame (r->logs[s], k);
        gdouble lat = fr->done >= 0 ? (fr->done - fr->offer) / 1e6 : -1;
        gboolean missed = bench_frame_missed (fr, cfg->deadline_ns);

        fprintf (f, "%s,%u,%u,%" G_GUINT64_FORMAT ",%.6f,%.3f,%.3f,%.3f,%d,"
            "%d,%s\n", label, r->round, s, k, fr->offer / 1e9,
            fr->block / 1e6, lat, fr->done >= 0 ? fr->service / 1e6 : -1.0,
            fr->done >= 0, missed, part_names[fr->part]);
      }
    }
    g_free (label);
  }
  return fclose (f) == 0;
}

/* The start of a gnuplot script drawing `panels` panels, one above the
 * other, into path: PNG when its name ends in .png, SVG otherwise. */
void
bench_plot_begin (GString * gp, const gchar * path, guint panels)
{
  if (g_str_has_suffix (path, ".png"))
    g_string_append_printf (gp, "set terminal pngcairo size 1000,%u "
        "font 'sans,9'\n", 260 * panels);
  else
    g_string_append_printf (gp, "set terminal svg size 1000,%u dynamic "
        "font 'sans,10'\n", 260 * panels);
  g_string_append_printf (gp, "set output '%s'\nset datafile separator ','\n"
      "set grid\nset key top left\nset multiplot layout %u,1\n", path, panels);
}

/* Ends the script, writes it beside the plot (path.gp), runs gnuplot on
 * it and frees gp. */
gboolean
bench_plot_draw (GString * gp, const gchar * path)
{
  gchar *script = g_strdup_printf ("%s.gp", path), *cmd;
  gboolean ok;

  g_string_append (gp, "unset multiplot\n");
  ok = g_file_set_contents (script, gp->str, -1, NULL);
  g_string_free (gp, TRUE);
  cmd = g_strdup_printf ("gnuplot '%s'", script);
  ok = ok && system (cmd) == 0;
  g_free (cmd);
  g_free (script);
  return ok;
}

/* One panel per sink and round: latency of every frame over time, log
 * scale, with the deadline; drawn by gnuplot from the CSV. */
gboolean
bench_report_plot (const BenchConfig * cfg, GPtrArray * results,
    const gchar * csv, const gchar * path)
{
  GString *gp = g_string_new (NULL);
  guint i;

  bench_plot_begin (gp, path, results->len);
  g_string_append (gp, "set logscale y\nset xlabel 'time since start (s)'\n"
      "set ylabel 'offered to written (ms)'\n");
  for (i = 0; i < results->len; i++) {
    const BenchResult *r = g_ptr_array_index (results, i);
    gchar *label = csv_label (r);

    g_string_append_printf (gp, "set title '%s (round %u): %" G_GUINT64_FORMAT
        " frames, %" G_GUINT64_FORMAT " misses' noenhanced\n"
        "plot '%s' using ((strcol(1) eq '%s' && $2 == %u && $9 == 1) ? $5 : "
        "1/0):($7 > 0.001 ? $7 : 0.001) with points pt 7 ps 0.3 title "
        "'frames', %f with lines lw 2 title 'deadline'\n", r->spec->label,
        r->round, r->offered, r->misses, csv, label, r->round,
        cfg->deadline_ns / 1e6);
    g_free (label);
  }
  return bench_plot_draw (gp, path);
}
