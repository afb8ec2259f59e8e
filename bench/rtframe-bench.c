/* rtframe-bench: the user's camera workload through rtframesink and
 * through what he would use instead (queue ! filesink, filesink, and fio
 * as the device's own limit), one after another in one invocation, each
 * measured the same way; see docs/performance.md.
 *
 *   rtframe-bench --dir /mnt/xfs --duration 60          3 x 20 fps, 5.7 MB
 *   rtframe-bench --dir /mnt/xfs --flat-out --duration 10
 *   rtframe-bench --sink rtframesink:io-depth=8 --sink rtframesink ...
 */
#include "bench.h"
#include "rtf-index.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <fcntl.h>
#include <gst/video/video.h>
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

/* Between runs: the data on disk, the page cache empty (--drop-caches,
 * root), and with --trim freed blocks handed back to a thin device. */
static guint64
free_bytes (const gchar * dir)
{
  struct statvfs sv;

  return statvfs (dir, &sv) == 0 ? (guint64) sv.f_bavail * sv.f_frsize : 0;
}

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
      && free_bytes (cfg->dir) < cfg->free_at_start / 100 * 98; i++)
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
} Sampler;

static gpointer
sampler_thread (gpointer user_data)
{
  Sampler *sm = user_data;
  gint64 next_print = g_get_monotonic_time () + G_USEC_PER_SEC;
  guint64 last_written = 0;
  gboolean tty = isatty (STDERR_FILENO);

  g_mutex_lock (&sm->lock);
  while (!sm->stop) {
    guint64 dirty = proc_kb ("/proc/meminfo", "Dirty:") +
        proc_kb ("/proc/meminfo", "Writeback:");

    sm->dirty_peak_kb = MAX (sm->dirty_peak_kb, dirty);
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

/* rtframesink with max-file-size or max-file-duration records into a
 * set of files: "<label>.%05d" */
static gboolean
spec_rotates (const BenchSinkSpec * spec)
{
  gchar **p;

  for (p = spec->props; spec->kind == BENCH_RTFRAMESINK && p && *p; p++)
    if (g_str_has_prefix (*p, "max-file-size=")
        || g_str_has_prefix (*p, "max-file-duration="))
      return TRUE;
  return FALSE;
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
  if (good != res->written && !deleted && res->error == NULL)
    res->error = g_strdup_printf ("the files hold %" G_GUINT64_FORMAT
        " whole frames, %" G_GUINT64_FORMAT " were reported written", good,
        res->written);
}

/* Flat out, a sink could fill the filesystem before the duration ends:
 * stop every stream at its share of 80% of the space free at the start
 * (the same for every sink). */
static guint64
space_limit (const BenchConfig * cfg)
{
  guint64 frames;

  if (!cfg->flat_out)
    return cfg->max_frames;
  frames = cfg->free_at_start / 10 * 8 / cfg->streams / cfg->frame_size;
  /* never more than is free now (a previous run's space not back yet) */
  frames = MIN (frames, free_bytes (cfg->dir) / 10 * 8 / cfg->streams /
      cfg->frame_size);
  return cfg->max_frames ? MIN (cfg->max_frames, frames) : frames;
}

static BenchResult *
run_one (const BenchConfig * config, const BenchSinkSpec * spec, guint round)
{
  BenchConfig run_cfg = *config, *cfg = &run_cfg;
  BenchResult *res = g_new0 (BenchResult, 1);
  gchar **paths = g_new0 (gchar *, cfg->streams + 1);
  Sampler sm = { 0 };
  GThread *sampler;
  gdouble cpu0, cpu_children0, busy0;
  guint s;

  res->spec = spec;
  res->round = round;
  for (s = 0; s < cfg->streams; s++) {
    gchar *name = file_label (spec, round, s);

    if (spec_rotates (spec)) {
      gchar *pattern = g_strconcat (name, ".%05d", NULL);

      paths[s] = g_build_filename (cfg->dir, pattern, NULL);
      g_free (pattern);
    } else {
      paths[s] = g_build_filename (cfg->dir, name, NULL);
    }
    remove_recording (paths[s]);
    g_free (name);
  }
  settle (cfg);
  cfg->max_frames = space_limit (cfg);

  sm.cfg = cfg;
  sm.spec = spec;
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
    res->cpu_process = rusage_seconds (RUSAGE_SELF) - cpu0;
    res->rss_peak_mb = proc_kb ("/proc/self/status", "VmHWM:") / 1024.0;
    g_mutex_lock (&sm.lock);
    sm.run = NULL;
    g_mutex_unlock (&sm.lock);
    bench_sink_run_free (run);
  }
  res->cpu_machine = machine_busy_seconds () - busy0;
  g_mutex_lock (&sm.lock);
  sm.stop = TRUE;
  g_cond_signal (&sm.cond);
  g_mutex_unlock (&sm.lock);
  g_thread_join (sampler);
  res->dirty_peak_mb = sm.dirty_peak_kb / 1024.0;
  g_mutex_clear (&sm.lock);
  g_cond_clear (&sm.cond);

  if (res->logs)
    bench_result_compute (cfg, res);
  if (spec->kind != BENCH_FIO) {
    if (cfg->verify && res->logs)
      verify (cfg, res, paths);
    for (s = 0; s < cfg->streams && !cfg->keep; s++)
      remove_recording (paths[s]);
  }
  g_strfreev (paths);
  return res;
}

static void
result_free (gpointer p)
{
  BenchResult *r = p;
  guint i;

  for (i = 0; i < r->n_logs; i++) {
    bench_log_clear (r->logs[i]);
    g_free (r->logs[i]);
  }
  g_free (r->logs);
  g_free (r->error);
  g_free (r);
}

/* The recordings go to a directory of the bench's own in --dir, so it only
 * ever deletes what it made: the files of a run, then that directory. */
static gboolean
make_own_dir (BenchConfig * cfg, GError ** err)
{
  gchar *own = g_build_filename (cfg->dir, "rtframe-bench-XXXXXX", NULL);

  if (g_mkdtemp (own) == NULL) {
    g_set_error (err, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot make a directory in %s: %s", cfg->dir, g_strerror (errno));
    g_free (own);
    return FALSE;
  }
  g_free (cfg->dir);
  cfg->dir = own;
  return TRUE;
}

static void
remove_own_dir (const gchar * dir)
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
  if (g_rmdir (dir) < 0)
    g_printerr ("rtframe-bench: cannot remove %s: %s\n", dir,
        g_strerror (errno));
}

/* --check: one recording, one stream */
static gint
check_file (BenchConfig * cfg, gchar * path, gint stream)
{
  guint64 bad = 0, n;
  gchar *why = NULL;

  n = bench_frame_verify_file (path, cfg->frame_size, MAX (stream, 0), &bad,
      &why);
  if (bad)
    printf ("%s: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
        " faulty; first: %s\n", path, n, bad, why);
  else
    printf ("%s: %" G_GUINT64_FORMAT " frames of stream %d, all exact\n",
        path, n, stream);
  g_free (why);
  g_free (path);
  g_free (cfg->format);
  g_free (cfg->dir);
  return bad ? 1 : 0;
}

/* ---- options ------------------------------------------------------- */

static BenchSinkSpec *
parse_sink (const gchar * text, GError ** err)
{
  BenchSinkSpec *spec = g_new0 (BenchSinkSpec, 1);
  gchar **parts = g_strsplit (text, ":", 2);

  spec->label = g_strdup (text);
  if (g_str_equal (parts[0], "rtframesink"))
    spec->kind = BENCH_RTFRAMESINK;
  else if (g_str_equal (parts[0], "queue-filesink"))
    spec->kind = BENCH_QUEUE_FILESINK;
  else if (g_str_equal (parts[0], "filesink"))
    spec->kind = BENCH_FILESINK;
  else if (g_str_equal (parts[0], "fio"))
    spec->kind = BENCH_FIO;
  else {
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "unknown sink \"%s\" (rtframesink[:prop=value,...], queue-filesink, "
        "filesink, fio)", parts[0]);
    g_strfreev (parts);
    g_free (spec->label);
    g_free (spec);
    return NULL;
  }
  if (parts[1]) {
    gchar **props = g_strsplit (parts[1], ",", -1);
    GPtrArray *kept = g_ptr_array_new ();
    guint i;

    for (i = 0; props[i]; i++) {
      if (g_str_equal (props[i], "pool=own")) {
        spec->own_pool = TRUE;
        g_free (props[i]);
      } else {
        g_ptr_array_add (kept, props[i]);
      }
    }
    g_free (props);
    g_ptr_array_add (kept, NULL);
    spec->props = (gchar **) g_ptr_array_free (kept, FALSE);
  }
  g_strfreev (parts);
  return spec;
}

static void
spec_free (gpointer p)
{
  BenchSinkSpec *spec = p;

  g_free (spec->label);
  g_strfreev (spec->props);
  g_free (spec);
}

int
main (int argc, char **argv)
{
  BenchConfig cfg = { 0 };
  gchar **sinks = NULL, *fio = NULL;
  gdouble deadline_ms = 50;
  gboolean no_fio = FALSE, quiet = FALSE, no_verify = FALSE;
  gint width = 2048, height = 928, fps = 20, streams = 3, rounds = 1;
  gint camera_buffers = 4, fio_depth = 4;
  gint64 frames = 0;
  gchar *check = NULL;
  gint check_stream = 0;
  GOptionEntry entries[] = {
    {"streams", 'n', 0, G_OPTION_ARG_INT, &streams, "Streams (default 3)",
        "N"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &cfg.format,
        "Video format (default P010_10LE)", "FMT"},
    {"width", 0, 0, G_OPTION_ARG_INT, &width, "Width (default 2048)", "W"},
    {"height", 0, 0, G_OPTION_ARG_INT, &height, "Height (default 928)", "H"},
    {"fps", 0, 0, G_OPTION_ARG_INT, &fps, "Frames per second per stream "
          "(default 20)", "F"},
    {"duration", 'd', 0, G_OPTION_ARG_DOUBLE, &cfg.duration,
        "Seconds per sink (default 10)", "S"},
    {"frames", 0, 0, G_OPTION_ARG_INT64, &frames,
        "At most this many frames per stream", "N"},
    {"flat-out", 0, 0, G_OPTION_ARG_NONE, &cfg.flat_out,
        "Push frames as fast as the sink takes them", NULL},
    {"camera-buffers", 0, 0, G_OPTION_ARG_INT, &camera_buffers,
        "Frames the camera holds while the producer is blocked; older "
          "ones are lost (default 4)", "N"},
    {"deadline-ms", 0, 0, G_OPTION_ARG_DOUBLE, &deadline_ms,
        "Write deadline per frame (default 50)", "MS"},
    {"sink", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sinks,
        "A sink to run: rtframesink[:prop=value,...], queue-filesink, "
          "filesink, fio (repeat; default all four)", "SPEC"},
    {"dir", 'o', 0, G_OPTION_ARG_FILENAME, &cfg.dir,
        "Directory for the recordings (default .)", "DIR"},
    {"rounds", 'r', 0, G_OPTION_ARG_INT, &rounds,
        "Run the sinks this many times, interleaved (default 1)", "N"},
    {"keep", 0, 0, G_OPTION_ARG_NONE, &cfg.keep,
        "Keep the recordings (default: deleted after the check)", NULL},
    {"no-verify", 0, 0, G_OPTION_ARG_NONE, &no_verify,
        "Do not check the recordings", NULL},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress line", NULL},
    {"drop-caches", 0, 0, G_OPTION_ARG_NONE, &cfg.drop_caches,
        "Empty the page cache between sinks (root)", NULL},
    {"trim", 0, 0, G_OPTION_ARG_NONE, &cfg.trim,
        "FITRIM the filesystem between sinks", NULL},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &cfg.csv,
        "Write every frame's figures here", "FILE"},
    {"plot", 0, 0, G_OPTION_ARG_FILENAME, &cfg.plot,
        "Plot latency over time to this .svg or .png (gnuplot)", "FILE"},
    {"fio", 0, 0, G_OPTION_ARG_FILENAME, &fio,
        "fio to run (default: fio on PATH)", "PATH"},
    {"fio-iodepth", 0, 0, G_OPTION_ARG_INT, &fio_depth,
        "fio's iodepth (default 4, rtframesink's io-depth)", "N"},
    {"no-fio", 0, 0, G_OPTION_ARG_NONE, &no_fio, "Leave fio out", NULL},
    {"check", 0, 0, G_OPTION_ARG_FILENAME, &check,
        "Only check this recording (of --format, --width, --height) and "
          "exit", "FILE"},
    {"check-stream", 0, 0, G_OPTION_ARG_INT, &check_stream,
        "The stream whose frames --check expects (default 0)", "N"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- record camera streams "
      "through rtframesink, queue ! filesink, filesink and fio, and compare");
  GError *err = NULL;
  GPtrArray *results;
  GstVideoInfo info;
  GstCaps *caps;
  gboolean failed = FALSE;
  guint r, i;

  cfg.duration = 10;
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err))
    goto usage;
  g_option_context_free (ctx);
  ctx = NULL;

  if (streams < 1 || width < 1 || height < 1 || fps < 1 || rounds < 1
      || camera_buffers < 1 || fio_depth < 1 || cfg.duration <= 0
      || deadline_ms < 0) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "streams, sizes, fps, rounds, buffers and duration must be > 0");
    goto usage;
  }
  cfg.streams = streams;
  cfg.width = width;
  cfg.height = height;
  cfg.fps = fps;
  cfg.rounds = rounds;
  cfg.camera_buffers = camera_buffers;
  cfg.io_depth = fio_depth;
  cfg.max_frames = frames > 0 ? frames : 0;
  cfg.deadline_ns = (guint64) (deadline_ms * GST_MSECOND);
  cfg.queue_buffers = 16;
  cfg.queue_bytes = 256 * 1024 * 1024;
  cfg.verify = !no_verify;
  cfg.progress = !quiet;
  if (cfg.format == NULL)
    cfg.format = g_strdup ("P010_10LE");
  if (cfg.dir == NULL)
    cfg.dir = g_strdup (".");
  if (!g_file_test (cfg.dir, G_FILE_TEST_IS_DIR)) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "%s is not a directory", cfg.dir);
    goto usage;
  }
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      cfg.format, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, fps, 1, NULL);
  if (!gst_video_info_from_caps (&info, caps)) {
    gst_caps_unref (caps);
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "unknown format \"%s\"", cfg.format);
    goto usage;
  }
  gst_caps_unref (caps);
  cfg.frame_size = GST_VIDEO_INFO_SIZE (&info);
  if (check)
    return check_file (&cfg, check, check_stream);
  if (!make_own_dir (&cfg, &err))
    goto usage;
  cfg.fio = no_fio ? NULL : fio ? g_strdup (fio) :
      g_find_program_in_path ("fio");

  cfg.sinks = g_ptr_array_new_with_free_func (spec_free);
  if (sinks == NULL) {
    static const gchar *defaults[] = { "rtframesink", "queue-filesink",
      "filesink", "fio"
    };
    for (i = 0; i < G_N_ELEMENTS (defaults); i++)
      if (!g_str_equal (defaults[i], "fio") || cfg.fio)
        g_ptr_array_add (cfg.sinks, parse_sink (defaults[i], NULL));
  } else {
    for (i = 0; sinks[i]; i++) {
      BenchSinkSpec *spec = parse_sink (sinks[i], &err);

      if (spec == NULL)
        goto usage;
      if (spec->kind == BENCH_FIO && cfg.fio == NULL) {
        g_printerr ("rtframe-bench: fio not found (apt-get install fio); "
            "leaving it out\n");
        spec_free (spec);
        continue;
      }
      g_ptr_array_add (cfg.sinks, spec);
    }
  }
  if (cfg.plot && cfg.csv == NULL)
    cfg.csv = g_strdup_printf ("%s.csv", cfg.plot);

  bench_sink_init ();
  cfg.free_at_start = free_bytes (cfg.dir);
  results = g_ptr_array_new_with_free_func (result_free);
  for (r = 1; r <= cfg.rounds; r++) {
    for (i = 0; i < cfg.sinks->len; i++) {
      BenchResult *res = run_one (&cfg, g_ptr_array_index (cfg.sinks, i), r);

      if (res->error || res->bad)
        failed = TRUE;
      if (cfg.progress && res->error)
        g_printerr ("rtframe-bench: %s: %s\n", res->spec->label, res->error);
      g_ptr_array_add (results, res);
    }
  }
  bench_report_table (&cfg, results);
  if (cfg.csv) {
    if (!bench_report_csv (&cfg, results, cfg.csv)) {
      g_printerr ("rtframe-bench: cannot write %s\n", cfg.csv);
      failed = TRUE;
    } else {
      printf ("per-frame figures: %s\n", cfg.csv);
    }
  }
  if (cfg.plot) {
    if (!bench_report_plot (&cfg, results, cfg.csv, cfg.plot)) {
      g_printerr ("rtframe-bench: gnuplot could not draw %s (apt-get "
          "install gnuplot-nox)\n", cfg.plot);
      failed = TRUE;
    } else {
      printf ("plot: %s\n", cfg.plot);
    }
  }
  g_ptr_array_unref (results);
  g_ptr_array_unref (cfg.sinks);
  g_strfreev (sinks);
  if (cfg.keep)
    printf ("recordings kept in %s\n", cfg.dir);
  else
    remove_own_dir (cfg.dir);
  g_free (cfg.format);
  g_free (cfg.dir);
  g_free (cfg.csv);
  g_free (cfg.plot);
  g_free (cfg.fio);
  g_free (fio);
  return failed ? 1 : 0;

usage:
  g_printerr ("rtframe-bench: %s\n", err->message);
  g_clear_error (&err);
  if (ctx)
    g_option_context_free (ctx);
  return 2;
}
