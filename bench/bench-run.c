/* rtframe-bench: one sink's run, measured: the recording's files, the
 * space it may take, the machine's CPU and page cache around it, and the
 * directory of the bench's own the recordings go to.  rtframe-bench.c
 * compares sinks with it; bench-preflight.c runs rtframesink with it. */
#include "bench.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-space-guard.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ---- system measurements ------------------------------------------- */

static gdouble
rusage_seconds (gint who)
{
  struct rusage ru;

  getrusage (who, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* busy CPU seconds of the whole machine since boot */
static gdouble
machine_busy_seconds (void)
{
  gchar *text = NULL;
  guint64 v[8] = { 0 };
  gdouble busy = 0;

  if (g_file_get_contents ("/proc/stat", &text, NULL, NULL)
      && sscanf (text, "cpu %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
          &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
    /* user nice system [idle iowait] irq softirq steal */
    busy = (gdouble) (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) /
        sysconf (_SC_CLK_TCK);
  g_free (text);
  return busy;
}

static guint64
proc_kb (const gchar * file, const gchar * key)
{
  gchar *text = NULL, *p;
  guint64 kb = 0;

  if (g_file_get_contents (file, &text, NULL, NULL)
      && (p = strstr (text, key)) != NULL)
    kb = g_ascii_strtoull (p + strlen (key), NULL, 10);
  g_free (text);
  return kb;
}

static void
reset_peak_rss (void)
{
  gint fd = open ("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);

  if (fd >= 0) {
    if (write (fd, "5", 1) < 0)
      g_printerr ("rtframe-bench: cannot reset the peak RSS: %s\n",
          g_strerror (errno));
    close (fd);
  }
}

/* Bytes an unprivileged user may still write in dir (f_bavail) */
guint64
bench_free_bytes (const gchar * dir)
{
  struct statvfs sv;

  return statvfs (dir, &sv) == 0 ? (guint64) sv.f_bavail * sv.f_frsize : 0;
}

/* Between runs: the data on disk, the page cache empty (--drop-caches,
 * root), and with --trim freed blocks handed back to a thin device. */
static void
settle (const BenchConfig * cfg)
{
  gint fd, i;

  sync ();
  fd = cfg->trim ? open (cfg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (fd >= 0) {
    struct fstrim_range range = { 0, G_MAXUINT64, 0 };

    if (ioctl (fd, FITRIM, &range) < 0)
      g_printerr ("rtframe-bench: FITRIM: %s\n", g_strerror (errno));
    close (fd);
  }
  if (cfg->drop_caches)
    g_file_set_contents ("/proc/sys/vm/drop_caches", "3", 1, NULL);
  /* XFS frees a deleted file's blocks in the background (inodegc): wait
   * (up to 60 s) until the space the last sink used is free again */
  for (i = 0; !cfg->keep && i < 600
      && bench_free_bytes (cfg->dir) < cfg->free_at_start / 100 * 98; i++)
    g_usleep (100000);
}

/* ---- progress ------------------------------------------------------ */

typedef struct
{
  const BenchConfig *cfg;
  const BenchSinkSpec *spec;
  BenchSinkRun *run;            /* NULL for fio */
  gint64 t0;
  gint stop;
  GMutex lock;
  GCond cond;
  guint64 dirty_peak_kb;
  GArray *rss;                  /* RssSample, one a second */
} Sampler;

/* The process's VmRSS at a time of the run */
typedef struct
{
  gdouble t;                    /* s from the run's start */
  gdouble mb;
} RssSample;

static gpointer
sampler_thread (gpointer user_data)
{
  Sampler *sm = user_data;
  gint64 next_print = g_get_monotonic_time () + G_USEC_PER_SEC;
  gint64 next_rss = g_get_monotonic_time ();
  guint64 last_written = 0;
  gboolean tty = isatty (STDERR_FILENO);

  g_mutex_lock (&sm->lock);
  while (!sm->stop) {
    guint64 dirty = proc_kb ("/proc/meminfo", "Dirty:") +
        proc_kb ("/proc/meminfo", "Writeback:");

    sm->dirty_peak_kb = MAX (sm->dirty_peak_kb, dirty);
    /* the RSS over time (VmHWM gives the peak only): flat however long
     * a ring's pre-record-time, or growing? */
    if (g_get_monotonic_time () >= next_rss) {
      RssSample r;

      r.t = (bench_now () - sm->t0) / 1e9;
      r.mb = proc_kb ("/proc/self/status", "VmRSS:") / 1024.0;
      g_array_append_val (sm->rss, r);
      next_rss += G_USEC_PER_SEC;
    }
    if (sm->cfg->progress && g_get_monotonic_time () >= next_print) {
      gdouble t = (bench_now () - sm->t0) / 1e9;

      if (sm->run) {
        guint64 written, offered, misses;

        bench_sink_run_progress (sm->run, &written, &offered, &misses);
        g_printerr ("%s[%-24s %6.1f s] written %6" G_GUINT64_FORMAT "/%-6"
            G_GUINT64_FORMAT " %7.1f MB/s  misses %" G_GUINT64_FORMAT
            "  dirty %5.0f MB%s", tty ? "\r" : "", sm->spec->label, t,
            written, offered, (written - last_written) *
            sm->cfg->frame_size / 1e6, misses, dirty / 1024.0,
            tty ? "   " : "\n");
        last_written = written;
      } else {
        g_printerr ("%s[%-24s %6.1f s] running fio  dirty %5.0f MB%s",
            tty ? "\r" : "", sm->spec->label, t, dirty / 1024.0,
            tty ? "   " : "\n");
      }
      next_print += G_USEC_PER_SEC;
    }
    g_cond_wait_until (&sm->cond, &sm->lock, g_get_monotonic_time () +
        G_USEC_PER_SEC / 5);
  }
  g_mutex_unlock (&sm->lock);
  if (sm->cfg->progress && tty)
    g_printerr ("\n");
  return NULL;
}

/* ---- one sink, one round ------------------------------------------- */

static gchar *
file_label (const BenchSinkSpec * spec, guint round, guint stream)
{
  gchar *l = g_strdup_printf ("%s-r%u-s%u.raw", spec->label, round, stream);
  gchar *p;

  for (p = l; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '.')
      *p = '_';
  return l;
}

/* rtframesink with --rotate, max-file-size or max-file-duration records
 * into a set of files: "<label>.%05d" */
static gboolean
spec_rotates (const BenchConfig * cfg, const BenchSinkSpec * spec)
{
  gchar **p;

  if (spec->kind == BENCH_RTFRAMESINK && cfg->rotate_frames)
    return TRUE;
  for (p = spec->props; spec->kind == BENCH_RTFRAMESINK && p && *p; p++)
    if (g_str_has_prefix (*p, "max-file-size=")
        || g_str_has_prefix (*p, "max-file-duration=")
        || g_str_has_prefix (*p, "keep-location="))
      return TRUE;
  return FALSE;
}

/* A sink that writes every frame into one file: the filesinks, and
 * rtframesink without a pattern that records all the time */
static gboolean
spec_one_file (const BenchConfig * cfg, const BenchSinkSpec * spec)
{
  gchar **p;

  if (spec->kind == BENCH_FILESINK || spec->kind == BENCH_QUEUE_FILESINK)
    return TRUE;
  if (spec->kind != BENCH_RTFRAMESINK || spec_rotates (cfg, spec))
    return FALSE;
  for (p = spec->props; p && *p; p++)
    if (g_str_equal (*p, "record=false") || g_str_equal (*p, "record=0"))
      return FALSE;
  return TRUE;
}

/* The files a stream was recorded to: one, or each of a set in order from
 * the lowest number left (max-files deletes the oldest); *first_number
 * is that number (0 for one file) */
static GPtrArray *
files_of (const gchar * path, guint * first_number)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  guint n;

  *first_number = 0;
  if (rtf_pattern_check (path, NULL) != RTF_PATTERN_OK) {
    g_ptr_array_add (files, g_strdup (path));
    return files;
  }
  for (n = 0; n < 100000; n++) {
    gchar *one = rtf_pattern_format (path, n);

    if (g_file_test (one, G_FILE_TEST_EXISTS)) {
      if (files->len == 0)
        *first_number = n;
      g_ptr_array_add (files, one);
    } else {
      g_free (one);
      if (files->len > 0)
        break;
    }
  }
  return files;
}

static void
remove_recording (const gchar * path)
{
  guint first, i;
  GPtrArray *files = files_of (path, &first);

  for (i = 0; i < files->len; i++) {
    gchar *idx = rtf_index_path (g_ptr_array_index (files, i));

    g_unlink (g_ptr_array_index (files, i));
    g_unlink (idx);
    g_free (idx);
  }
  g_ptr_array_unref (files);
}

static void
verify (const BenchConfig * cfg, BenchResult * res, gchar ** paths)
{
  guint64 good = 0;
  guint s, i, first;
  gboolean deleted = FALSE;

  for (s = 0; s < cfg->streams; s++) {
    GPtrArray *files = files_of (paths[s], &first);

    /* max-files deleted the oldest: the frames left are checked, their
     * count cannot be */
    deleted |= first > 0;
    for (i = 0; i < files->len; i++) {
      const gchar *path = g_ptr_array_index (files, i);
      guint64 bad = 0, n;
      gchar *why = NULL;

      n = bench_frame_verify_file (path, cfg->frame_size, s, &bad, &why);
      res->verified += n;
      res->bad += bad;
      good += n - MIN (n, bad);
      if (why && res->error == NULL)
        res->error = g_strdup_printf ("%s: %s", path, why);
      g_free (why);
    }
    g_ptr_array_unref (files);
  }
  if (good != res->recorded && !deleted && res->error == NULL)
    res->error = g_strdup_printf ("the files hold %" G_GUINT64_FORMAT
        " whole frames, %" G_GUINT64_FORMAT " were reported written", good,
        res->recorded);
}

/* What rtframesink's min-free-space guard keeps free in dir at its
 * default (1 GiB or 5% of the filesystem, the lesser): a recording that
 * would leave less is cut by the guard, not by the bench */
guint64
bench_guard_bytes (const gchar * dir)
{
  struct statvfs sv;

  if (statvfs (dir, &sv) != 0)
    return rtf_space_guard_resolve (RTF_SPACE_AUTO, 0);
  return rtf_space_guard_resolve (RTF_SPACE_AUTO,
      (guint64) sv.f_blocks * sv.f_frsize);
}

/* What the bench may fill: 80% of the free space above the guard */
guint64
bench_usable_bytes (const BenchConfig * cfg, guint64 free)
{
  guint64 guard = bench_guard_bytes (cfg->dir);

  return (free - MIN (free, guard)) / 10 * 8;
}

/* Frames per stream that fit in each stream's share of 80% of the space
 * free at the start above rtframesink's guard, and never more than is
 * free now (a previous run's space not back yet): --preflight's rule */
guint64
bench_space_frames (const BenchConfig * cfg)
{
  guint64 frames;

  frames = bench_usable_bytes (cfg, cfg->free_at_start) / cfg->streams /
      cfg->frame_size;
  return MIN (frames, bench_usable_bytes (cfg,
          bench_free_bytes (cfg->dir)) / cfg->streams / cfg->frame_size);
}

/* rtframesink's default preallocate: what each stream may hold reserved
 * beyond its frames while it records */
#define BENCH_PREALLOCATE (128 * 1024 * 1024)

/* A sink could fill the filesystem before the duration ends (flat out,
 * or many streams at their rate with --scale): every stream stops at the
 * same frame for every sink, bench_space_frames(), unless every sink
 * rotates (--rotate: the duration decides; rtframe-bench.c checked that
 * two files and the preallocation a stream fit); with --scale less what
 * rtframesink reserves ahead of its writes (32 streams 4 GiB: without it,
 * 32 streams of 2 MB frames ran into rtframesink's min-free-space guard),
 * unless the filesystem is too small for that reserve at all.  Other live
 * runs are not limited: a rotation with max-files recycles its space
 * (scenarios.sh long writes 205 GB on 16 GiB). */
static guint64
space_limit (const BenchConfig * cfg)
{
  /* per stream, as bench_space_frames() */
  guint64 frames, ahead = BENCH_PREALLOCATE / cfg->frame_size;

  if ((!cfg->flat_out && !cfg->scale_space) || cfg->rotate_frames)
    return cfg->max_frames;
  frames = bench_space_frames (cfg);
  if (cfg->scale_space)
    frames -= frames > 2 * ahead ? ahead : frames / 2;
  /* 0 would mean no limit: at least one frame a stream, every sink
   * alike (the run then says what did not fit) */
  frames = MAX (frames, 1);
  return cfg->max_frames ? MIN (cfg->max_frames, frames) : frames;
}

BenchResult *
bench_run_one (const BenchConfig * config, const BenchSinkSpec * spec,
    guint round)
{
  BenchConfig run_cfg = *config, *cfg = &run_cfg;
  BenchResult *res = g_new0 (BenchResult, 1);
  gchar **paths = g_new0 (gchar *, cfg->streams + 1);
  gchar *keep;
  Sampler sm = { 0 };
  GThread *sampler;
  gdouble cpu0, cpu_children0, busy0;
  guint s;

  res->spec = spec;
  res->round = round;
  for (s = 0; s < cfg->streams; s++) {
    gchar *name = file_label (spec, round, s);

    if (spec_rotates (cfg, spec)) {
      gchar *pattern = g_strconcat (name, ".%05d", NULL);

      paths[s] = g_build_filename (cfg->dir, pattern, NULL);
      g_free (pattern);
    } else {
      paths[s] = g_build_filename (cfg->dir, name, NULL);
    }
    remove_recording (paths[s]);
    g_free (name);
  }
  keep = bench_keep_pattern (cfg, spec);
  if (keep)
    bench_keep_remove (keep);
  settle (cfg);
  cfg->max_frames = space_limit (cfg);
  /* live, a sink that cannot rotate stops where the space ends, rather
   * than at ENOSPC (a 10-minute run of the user's streams is 205 GB): the
   * table says so.  The sinks that rotate, and event recordings, run the
   * duration. */
  if (!cfg->flat_out && !cfg->scale_space && !cfg->rotate_frames
      && spec_one_file (cfg, spec)) {
    guint64 fit = bench_space_frames (cfg);
    guint64 want = (guint64) (cfg->duration * cfg->fps) + 1;

    if (cfg->max_frames)
      want = MIN (want, cfg->max_frames);
    if (fit < want) {
      cfg->max_frames = MAX (fit, 1);
      res->space_frames = cfg->max_frames;
    }
  }

  sm.cfg = cfg;
  sm.spec = spec;
  sm.rss = g_array_new (FALSE, FALSE, sizeof (RssSample));
  g_mutex_init (&sm.lock);
  g_cond_init (&sm.cond);
  reset_peak_rss ();
  cpu0 = rusage_seconds (RUSAGE_SELF);
  cpu_children0 = rusage_seconds (RUSAGE_CHILDREN);
  busy0 = machine_busy_seconds ();

  if (spec->kind == BENCH_FIO) {
    sm.t0 = bench_now ();
    sampler = g_thread_new ("sampler", sampler_thread, &sm);
    bench_fio_run (cfg, cfg->dir, res);
    res->cpu_process = rusage_seconds (RUSAGE_CHILDREN) - cpu_children0;
  } else {
    gchar *error = NULL;
    BenchSinkRun *run = bench_sink_run_new (cfg, spec,
        (const gchar * const *) paths, &error);

    /* the cameras start together, a little after everything is set up */
    sm.t0 = bench_now () + 50 * GST_MSECOND;
    sm.run = run;
    sampler = g_thread_new ("sampler", sampler_thread, &sm);
    if (error == NULL) {
      bench_sink_run_start (run, sm.t0);
      bench_sink_run_finish (run, res);
    } else {
      res->error = error;
    }
    /* the sink's start counts, as fio's start-up and layout do; the
     * cameras' pattern in their buffers (the bench's, made before the
     * clock) does not */
    res->cpu_process = rusage_seconds (RUSAGE_SELF) - cpu0 -
        res->producer_prefill_cpu;
    res->rss_peak_mb = proc_kb ("/proc/self/status", "VmHWM:") / 1024.0;
    g_mutex_lock (&sm.lock);
    sm.run = NULL;
    g_mutex_unlock (&sm.lock);
    bench_sink_run_free (run);
  }
  res->cpu_machine = machine_busy_seconds () - busy0 -
      res->producer_prefill_cpu;
  g_mutex_lock (&sm.lock);
  sm.stop = TRUE;
  g_cond_signal (&sm.cond);
  g_mutex_unlock (&sm.lock);
  g_thread_join (sampler);
  res->dirty_peak_mb = sm.dirty_peak_kb / 1024.0;
  if (spec->kind != BENCH_FIO) {
    guint i;

    for (i = 0; i < sm.rss->len; i++) {
      RssSample *r = &g_array_index (sm.rss, RssSample, i);

      if (r->t < 0)
        continue;
      res->rss_samples++;
      res->rss_max_mb = MAX (res->rss_max_mb, r->mb);
      if (r->t >= 60 && r->t < 120)
        res->rss_min2_mb = MAX (res->rss_min2_mb, r->mb);
      if (r->t >= cfg->duration - 60)
        res->rss_last_mb = MAX (res->rss_last_mb, r->mb);
    }
  }
  g_array_unref (sm.rss);
  g_mutex_clear (&sm.lock);
  g_cond_clear (&sm.cond);

  if (res->logs)
    bench_result_compute (cfg, res);
  if (spec->kind != BENCH_FIO) {
    if (cfg->verify && res->logs)
      verify (cfg, res, paths);
    for (s = 0; s < cfg->streams && !cfg->keep; s++)
      remove_recording (paths[s]);
    if (keep && !cfg->keep)
      bench_keep_remove (keep);
  }
  g_free (keep);
  g_strfreev (paths);
  return res;
}

void
bench_result_free (gpointer p)
{
  BenchResult *r = p;
  guint i;

  for (i = 0; i < r->n_logs; i++) {
    bench_log_clear (r->logs[i]);
    g_free (r->logs[i]);
  }
  g_free (r->logs);
  for (i = 0; i < r->n_events; i++)
    g_free (r->events[i].verdict);
  g_free (r->events);
  g_free (r->error);
  g_free (r);
}

/* The recordings go to a directory of the bench's own in --dir, so it only
 * ever deletes what it made: the files of a run, then that directory. */
gboolean
bench_own_dir_make (BenchConfig * cfg, GError ** err)
{
  gchar *own = g_build_filename (cfg->dir, "rtframe-bench-XXXXXX", NULL);

  if (g_mkdtemp (own) == NULL) {
    g_set_error (err, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot make a directory in %s: %s", cfg->dir, g_strerror (errno));
    g_free (own);
    return FALSE;
  }
  g_free (cfg->dir);
  /* absolute: fio runs inside it and is given paths in it */
  cfg->dir = g_canonicalize_filename (own, NULL);
  g_free (own);
  return TRUE;
}

void
bench_own_dir_remove (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d)) != NULL) {
    gchar *path = g_build_filename (dir, name, NULL);

    if (g_unlink (path) < 0)
      g_printerr ("rtframe-bench: cannot remove %s: %s\n", path,
          g_strerror (errno));
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  if (g_rmdir (dir) < 0 && errno != ENOENT)
    g_printerr ("rtframe-bench: cannot remove %s: %s\n", dir,
        g_strerror (errno));
}
