/* rtframe-bench: fio's equivalent job, the device's reference.
 *
 * One fio job per stream, each writing its own file sequentially with
 * io_uring and O_DIRECT, one frame per write (bs = frame size), the same
 * queue depth as rtframesink's io-depth, the same rate (rate_iops = fps;
 * none when flat-out) and an fdatasync at the end (end_fsync), or every N
 * writes with --fio-fdatasync (its sync latencies read from fio's JSON
 * report: the latency logs hold the writes only).  fio's
 * per-write latency logs (submission to completion) become the frames'
 * records; its CPU time and peak RSS come from wait4(). */
#include "bench.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void
read_lat_log (const gchar * path, BenchLog * log, guint64 deadline,
    guint64 * misses)
{
  FILE *f = fopen (path, "r");
  gchar line[256];

  if (f == NULL)
    return;
  while (fgets (line, sizeof (line), f)) {
    guint64 t_ms, lat_ns;
    BenchFrame *fr;

    if (sscanf (line, "%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT, &t_ms,
            &lat_ns) != 2)
      continue;
    fr = bench_log_add (log);
    /* the log's time is when the write completed, in ms since the epoch
     * (--log_unix_epoch: one clock for every job; without it each job's
     * log counts from that job's own start, and the jobs' phases could
     * not be told apart: helper-34); made relative by from_first_write() */
    fr->done = (gint64) (t_ms * GST_MSECOND);
    fr->service = (gint64) lat_ns;
    fr->offer = MAX (fr->done - fr->service, 0);
    if (lat_ns > deadline)
      (*misses)++;
  }
  fclose (f);
}

/* The logs' times from the first write any job issued, not the epoch */
static void
from_first_write (BenchLog ** logs, guint n)
{
  gint64 first = G_MAXINT64;
  guint i;
  guint64 k;

  for (i = 0; i < n; i++)
    for (k = 0; k < logs[i]->n; k++)
      first = MIN (first, bench_log_frame (logs[i], k)->offer);
  for (i = 0; i < n; i++)
    for (k = 0; k < logs[i]->n; k++) {
      BenchFrame *fr = bench_log_frame (logs[i], k);

      fr->offer -= first;
      fr->done -= first;
    }
}

static gdouble
percentile_ms (JsonObject * lat, const gchar * which)
{
  JsonObject *p = json_object_has_member (lat, "percentile") ?
      json_object_get_object_member (lat, "percentile") : NULL;

  if (p == NULL || !json_object_has_member (p, which))
    return 0;
  return json_object_get_int_member (p, which) / 1e6;
}

/* fio's JSON report: every job's "sync" section (fdatasyncs and their
 * latency), the worst job's percentiles, the sum of their counts; and the
 * writes all jobs made (*writes, -1 without a report) */
static void
read_sync_report (const gchar * path, BenchResult * res, gint64 * writes)
{
  JsonParser *parser = json_parser_new ();
  JsonArray *jobs;
  guint i;

  res->sync_p99 = -1;
  *writes = -1;
  if (!json_parser_load_from_file (parser, path, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))) {
    g_object_unref (parser);
    return;
  }
  *writes = 0;
  jobs = json_object_get_array_member (json_node_get_object
      (json_parser_get_root (parser)), "jobs");
  for (i = 0; jobs && i < json_array_get_length (jobs); i++) {
    JsonObject *job = json_array_get_object_element (jobs, i), *sync, *lat;

    if (json_object_has_member (job, "write"))
      *writes += json_object_get_int_member (json_object_get_object_member
          (job, "write"), "total_ios");
    if (!json_object_has_member (job, "sync"))
      continue;
    sync = json_object_get_object_member (job, "sync");
    if (!json_object_has_member (sync, "lat_ns"))
      continue;
    lat = json_object_get_object_member (sync, "lat_ns");
    res->syncs += json_object_get_int_member (lat, "N");
    res->sync_p99 = MAX (res->sync_p99, percentile_ms (lat, "99.000000"));
    res->sync_p999 = MAX (res->sync_p999, percentile_ms (lat, "99.900000"));
    res->sync_max = MAX (res->sync_max,
        json_object_get_double_member (lat, "max") / 1e6);
  }
  g_object_unref (parser);
}

/* Each job wrote its own file, at least as long as its writes: fio's
 * figures are only fio's equivalent of the streams if so (see the job
 * name below).  With --rotate each file was deleted when the next was
 * begun: the one left, if any, holds at most one file's frames, and no
 * file took the job's name (the shared file's symptom). */
static void
own_file_check (const BenchConfig * cfg, const gchar * path, guint64 written,
    BenchResult * res)
{
  gchar *shared = g_build_filename (cfg->dir, "rtframe-bench-fio", NULL);
  GStatBuf st;

  if (res->error == NULL && g_file_test (shared, G_FILE_TEST_EXISTS))
    res->error = g_strdup_printf ("fio wrote %s, a file shared by its jobs",
        shared);
  g_free (shared);
  if (res->error != NULL)
    return;
  if (cfg->rotate_frames) {
    if (g_stat (path, &st) == 0
        && (guint64) st.st_size > cfg->rotate_frames * cfg->frame_size)
      res->error = g_strdup_printf ("fio's file %s holds more than one "
          "--rotate file (%" G_GUINT64_FORMAT " bytes)", path,
          (guint64) st.st_size);
    return;
  }
  if (g_stat (path, &st) != 0 || (guint64) st.st_size < written)
    res->error = g_strdup_printf ("fio did not write its job's own file %s "
        "(%" G_GUINT64_FORMAT " bytes expected)", path, written);
}

void
bench_fio_run (const BenchConfig * cfg, const gchar * dir, BenchResult * res)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  guint64 frames, size, loops = 1;
  gint64 start, end;
  struct rusage ru;
  GError *err = NULL;
  GPid pid;
  gint status = 0;
  gint64 last_done = 0, fio_writes = -1;
  guint64 logged = 0;
  gchar *report;
  guint i;

  if (cfg->flat_out) {
    /* the caller's share of the free space; fio stops at the duration */
    frames = cfg->max_frames;
  } else {
    frames = (guint64) (cfg->duration * cfg->fps);
    if (cfg->max_frames)
      frames = MIN (frames, cfg->max_frames);
  }
  size = MAX (frames, 1) * cfg->frame_size;
  /* --rotate: files of rotate_frames, each deleted before the next
   * (unlink_each_loop), as many as the frames need; flat out (frames 0),
   * until the duration ends */
  if (cfg->rotate_frames) {
    loops = frames ? (frames + cfg->rotate_frames - 1) / cfg->rotate_frames
        : G_MAXINT;
    size = cfg->rotate_frames * cfg->frame_size;
  }

  g_ptr_array_add (argv, g_strdup (cfg->fio));
  /* fio takes a job's name as its file when something not a regular file
   * has that name in its working directory (init.c,
   * exists_and_not_regfile): named "bench" and run from the source tree,
   * whose bench/ is a directory, every job wrote one shared file
   * "bench", over each other, until 2026-12-05.  So fio runs in the
   * bench's own directory, under a name that is nowhere else. */
  g_ptr_array_add (argv, g_strdup ("--name=rtframe-bench-fio"));
  g_ptr_array_add (argv, g_strdup_printf ("--directory=%s", dir));
  g_ptr_array_add (argv, g_strdup ("--filename_format=fio.$jobnum.raw"));
  g_ptr_array_add (argv, g_strdup_printf ("--numjobs=%u", cfg->streams));
  g_ptr_array_add (argv, g_strdup ("--ioengine=io_uring"));
  g_ptr_array_add (argv, g_strdup ("--direct=1"));
  g_ptr_array_add (argv, g_strdup ("--rw=write"));
  g_ptr_array_add (argv, g_strdup_printf ("--bs=%" G_GSIZE_FORMAT,
          cfg->frame_size));
  g_ptr_array_add (argv, g_strdup_printf ("--iodepth=%u", cfg->io_depth));
  g_ptr_array_add (argv, g_strdup_printf ("--size=%" G_GUINT64_FORMAT, size));
  if (loops > 1) {
    g_ptr_array_add (argv, g_strdup_printf ("--loops=%" G_GUINT64_FORMAT,
            loops));
    g_ptr_array_add (argv, g_strdup ("--unlink_each_loop=1"));
  }
  /* whole ms, rounded up: 0 would be no limit (rtframe-bench refuses
   * durations under 1 ms) */
  g_ptr_array_add (argv, g_strdup_printf ("--runtime=%" G_GUINT64_FORMAT "ms",
          (guint64) ceil (cfg->duration * 1000)));
  if (!cfg->flat_out)
    g_ptr_array_add (argv, g_strdup_printf ("--rate_iops=%u", cfg->fps));
  g_ptr_array_add (argv, g_strdup ("--end_fsync=1"));
  if (cfg->fio_fdatasync)
    g_ptr_array_add (argv, g_strdup_printf ("--fdatasync=%u",
            cfg->fio_fdatasync));
  g_ptr_array_add (argv, g_strdup_printf ("--write_lat_log=%s/fio", dir));
  g_ptr_array_add (argv, g_strdup ("--log_avg_msec=0"));
  g_ptr_array_add (argv, g_strdup ("--log_unix_epoch=1"));
  g_ptr_array_add (argv, g_strdup ("--output-format=json"));
  g_ptr_array_add (argv, g_strdup_printf ("--output=%s/fio.json", dir));
  g_ptr_array_add (argv, NULL);

  start = bench_now ();
  if (!g_spawn_async (dir, (gchar **) argv->pdata, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
          &pid, &err)) {
    res->error = g_strdup_printf ("cannot run fio: %s", err->message);
    g_clear_error (&err);
    g_ptr_array_unref (argv);
    return;
  }
  while (wait4 (pid, &status, 0, &ru) < 0 && errno == EINTR);
  end = bench_now ();
  g_spawn_close_pid (pid);
  g_ptr_array_unref (argv);

  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    res->error = g_strdup_printf ("fio failed (status %d)", status);
  res->wall = (end - start) / 1e9;
  res->cpu_process = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  res->rss_peak_mb = ru.ru_maxrss / 1024.0;

  report = g_strdup_printf ("%s/fio.json", dir);
  read_sync_report (report, res, &fio_writes);
  if (!cfg->keep)
    g_unlink (report);
  g_free (report);

  res->logs = g_new0 (BenchLog *, cfg->streams);
  res->n_logs = cfg->streams;
  for (i = 0; i < cfg->streams; i++) {
    gchar *path = g_strdup_printf ("%s/fio_lat.%u.log", dir, i + 1);
    gchar *data = g_strdup_printf ("%s/fio.%u.raw", dir, i);
    guint64 misses = 0;

    res->logs[i] = g_new0 (BenchLog, 1);
    read_lat_log (path, res->logs[i], cfg->deadline_ns, &misses);
    own_file_check (cfg, data, res->logs[i]->n * cfg->frame_size, res);
    logged += res->logs[i]->n;
    if (!cfg->keep) {
      g_unlink (data);
      g_unlink (path);
      g_free (path);
      path = g_strdup_printf ("%s/fio_clat.%u.log", dir, i + 1);
      g_unlink (path);
      g_free (path);
      path = g_strdup_printf ("%s/fio_slat.%u.log", dir, i + 1);
      g_unlink (path);
    }
    g_free (path);
    g_free (data);
  }
  from_first_write (res->logs, res->n_logs);
  for (i = 0; i < res->n_logs; i++)
    if (res->logs[i]->n)
      last_done = MAX (last_done,
          bench_log_frame (res->logs[i], res->logs[i]->n - 1)->done);
  /* every write in the latency logs the figures are made of: with
   * --rotate 3, fio 3.33's logs held 1024 of 1389-1878 writes (its JSON
   * said), and "written" and every percentile came from that part */
  if (res->error == NULL && fio_writes >= 0 && (guint64) fio_writes != logged)
    res->error = g_strdup_printf ("fio made %" G_GINT64_FORMAT " writes, its "
        "latency logs hold %" G_GUINT64_FORMAT ": its figures would be of "
        "a part", fio_writes, logged);
  /* from its jobs' first write to the last, not fio's own start-up and
   * file layout (in res->wall) */
  res->seconds = last_done / 1e9;
}
