/* rtframe-bench: the user's camera workload through rtframesink and
 * through what he would use instead (queue ! filesink, filesink, and fio
 * as the device's own limit), one after another in one invocation, each
 * measured the same way; see docs/performance.md.
 *
 *   rtframe-bench --dir /mnt/xfs --duration 60          3 x 20 fps, 5.7 MB
 *   rtframe-bench --dir /mnt/xfs --flat-out --duration 10
 *   rtframe-bench --sink rtframesink:io-depth=8 --sink rtframesink ...
 *   rtframe-bench --trigger 4 --sink rtframesink \
 *       --sink rtframesink:record=false,pre-record-time=2000000000
 *       an event recording with 2 s of pre-record beside one of everything
 *   rtframe-bench --duration 600 --trigger 90 --trigger-every 120 --post 10 \
 *       --sink rtframesink:record=false,pre-record-time=60000000000,keep-location=@events
 *       pre-record on disk: a ring of files, each event's directory
 *       checked and deleted as it stops (bench-ring.c)
 *   rtframe-bench --preflight --dir /data --size 800G --take 2h
 *       will /data hold a take of the streams, and keep up?
 *       (bench-preflight.c)
 *   rtframe-bench --preflight --dir /data --take 2h --pre-record-on-disk 2m
 *       ... with a ring of 2 minutes' pre-record on the same disk
 */
#include "bench.h"
#include "rtf-build-info.h"

#include <gst/video/video.h>
#include <stdio.h>
#include <string.h>

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

/* ---- the comparison ------------------------------------------------ */

/* Every sink, round after round, then the table, CSV and plot: TRUE when
 * one failed */
static gboolean
compare (const BenchConfig * cfg)
{
  GPtrArray *results = g_ptr_array_new_with_free_func (bench_result_free);
  gboolean failed = FALSE;
  guint r, i;

  /* warm-up rounds: each sink run and checked as a round, its figures
   * printed on one line and left out of the table and the spread */
  BenchConfig warm = *cfg;

  /* a warm-up's recordings go even with --keep: they would take the
   * counted rounds' space */
  warm.keep = FALSE;
  for (r = 0; r < cfg->warmup_rounds; r++) {
    for (i = 0; i < cfg->sinks->len; i++) {
      BenchResult *res =
          bench_run_one (&warm, g_ptr_array_index (cfg->sinks, i), 0);

      if (res->error || res->bad)
        failed = TRUE;
      printf ("warm-up %u, not counted: %s %.1f MB/s%s%s\n", r + 1,
          res->spec->label, res->mbps, res->error ? ", ERROR: " : "",
          res->error ? res->error : "");
      bench_result_free (res);
    }
  }
  for (r = 1; r <= cfg->rounds; r++) {
    for (i = 0; i < cfg->sinks->len; i++) {
      BenchResult *res =
          bench_run_one (cfg, g_ptr_array_index (cfg->sinks, i), r);

      if (res->error || res->bad)
        failed = TRUE;
      if (cfg->progress && res->error)
        g_printerr ("rtframe-bench: %s: %s\n", res->spec->label, res->error);
      g_ptr_array_add (results, res);
    }
  }
  bench_report_table (cfg, results);
  bench_report_rounds (cfg, results);
  if (cfg->csv) {
    if (!bench_report_csv (cfg, results, cfg->csv)) {
      g_printerr ("rtframe-bench: cannot write %s\n", cfg->csv);
      failed = TRUE;
    } else {
      printf ("per-frame figures: %s\n", cfg->csv);
    }
  }
  if (cfg->plot) {
    if (!bench_report_plot (cfg, results, cfg->csv, cfg->plot)) {
      g_printerr ("rtframe-bench: gnuplot could not draw %s (apt-get "
          "install gnuplot-nox)\n", cfg->plot);
      failed = TRUE;
    } else {
      printf ("plot: %s\n", cfg->plot);
    }
  }
  g_ptr_array_unref (results);
  return failed;
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

/* --rotate: a stream holds at most two files at once (the one being
 * written, the one being deleted) and rtframesink's preallocation ahead
 * of its writes; all of them must fit in 80% of the free space above
 * rtframesink's min-free-space guard (the rule of bench_space_frames()),
 * or the recording would end at ENOSPC or at the guard instead of at the
 * duration.  An N whose bytes do not fit in 64 bits is refused before
 * anything multiplies it (2^55 frames of 115200 bytes wrapped to a
 * max-file-size of 0: one file without end). */
#define ROTATE_PREALLOCATE (128 * 1024 * 1024)
static gboolean
rotation_fits (const BenchConfig * cfg, GError ** err)
{
  guint64 usable, need = G_MAXUINT64;
  gchar *where;

  if (cfg->rotate_frames == 0)
    return TRUE;
  if (cfg->rotate_frames <= (G_MAXUINT64 / 4 - ROTATE_PREALLOCATE) /
      cfg->frame_size / cfg->streams)
    need = cfg->streams * (2 * cfg->rotate_frames * cfg->frame_size +
        ROTATE_PREALLOCATE);
  usable = bench_usable_bytes (cfg, cfg->free_at_start);
  if (need <= usable)
    return TRUE;
  /* the bench's own directory is removed: the one it was made in */
  where = g_path_get_dirname (cfg->dir);
  if (need == G_MAXUINT64)
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--rotate %" G_GUINT64_FORMAT ": files of that many frames do not "
        "fit in 64 bits", cfg->rotate_frames);
  else
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--rotate %" G_GUINT64_FORMAT ": %u streams need %" G_GUINT64_FORMAT
        " MB (two files and 128 MiB a stream), more than the %"
        G_GUINT64_FORMAT " MB the bench may fill in %s (80%% of the free "
        "space above rtframesink's min-free-space guard)",
        cfg->rotate_frames, cfg->streams, need / 1000000, usable / 1000000,
        where);
  g_free (where);
  return FALSE;
}

/* A sink's own properties may not take what is the bench's: where it
 * records (location: the bench only deletes in its own directory; a
 * location of the user's was overwritten, and with --rotate deleted),
 * and with --rotate, the rotation (a spec's max-files=0 kept every file
 * while the table said each was deleted, and the space rule was off) */
static gboolean
spec_allowed (const BenchSinkSpec * spec, gboolean rotate, GError ** err)
{
  static const gchar *rotation[] = { "max-files", "max-file-size",
    "max-file-duration"
  };
  gchar **p;
  guint i;

  for (p = spec->props; p && *p; p++) {
    gchar *name = g_strndup (*p, strcspn (*p, "="));
    gboolean ours = g_str_equal (name, "location");

    /* a ring's events go to a directory of the bench's own, which it
     * deletes as each is checked: keep-location=@NAME */
    if (g_str_equal (name, "keep-location")
        && !g_str_has_prefix (*p, "keep-location=@")) {
      g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "%s: keep-location=@NAME: the events go to NAME/event-%%05d in "
          "the bench's own directory (@NAME/x-%%03d: that pattern), which "
          "it checks and deletes", spec->label);
      g_free (name);
      return FALSE;
    }

    for (i = 0; rotate && i < G_N_ELEMENTS (rotation); i++)
      ours |= g_str_equal (name, rotation[i]);
    g_free (name);
    if (ours) {
      g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "%s: \"%s\" is the bench's (it records into a directory of its "
          "own%s)", spec->label, *p, rotate ? ", and --rotate sets the "
          "rotation" : "");
      return FALSE;
    }
  }
  return TRUE;
}

/* The sink given sets a property the ring of --pre-record-on-disk sets
 * (and would set otherwise) */
static gboolean
ring_props (const gchar * sink)
{
  static const gchar *names[] = { ":record=", ",record=", "pre-record-time=",
    "keep-location=", "max-file-duration=", "max-file-size="
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    if (strstr (sink, names[i]))
      return TRUE;
  return FALSE;
}

/* --preflight's own options, and none that it cannot take */
static gboolean
preflight_options (BenchPreflight * pf, const gchar * size,
    const gchar * take, const gchar * ring, const gchar * ring_file,
    gchar ** sinks, gint rounds, gint warmup, gboolean flat, GError ** err)
{
  if (!bench_preflight_parse (pf, size, take, ring, ring_file, err))
    return FALSE;
  if ((sinks && (sinks[1] || !g_str_has_prefix (sinks[0], "rtframesink")))
      || rounds > 1 || flat || warmup) {
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--preflight records with one rtframesink[:prop=value,...], in one "
        "round, no warm-up, at the rate and then flat out (no --flat-out, "
        "--frames)");
    return FALSE;
  }
  if (ring && sinks && ring_props (sinks[0])) {
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--pre-record-on-disk sets the ring's properties itself: give "
        "--sink rtframesink without record, pre-record-time, keep-location, "
        "max-file-duration, max-file-size");
    return FALSE;
  }
  return TRUE;
}

/* What the options and the set-up allocated, at either exit */
static void
options_free (BenchConfig * cfg, gchar ** sinks, gchar * fio, gchar * size,
    gchar * take, gchar * ring[2], gchar * check)
{
  if (cfg->sinks)
    g_ptr_array_unref (cfg->sinks);
  g_strfreev (sinks);
  g_free (cfg->format);
  g_free (cfg->dir);
  g_free (cfg->csv);
  g_free (cfg->plot);
  g_free (cfg->fio);
  g_free (fio);
  g_free (size);
  g_free (take);
  g_free (ring[0]);
  g_free (ring[1]);
  g_free (check);
}

int
main (int argc, char **argv)
{
  BenchConfig cfg = { 0 };
  gchar **sinks = NULL, *fio = NULL;
  gdouble deadline_ms = 50, trigger = 0, trigger_every = 0, post = 0;
  gboolean no_fio = FALSE, quiet = FALSE, no_verify = FALSE;
  gint width = 2048, height = 928, fps = 20, streams = 3, rounds = 1;
  gint warmup = 0;
  gint camera_buffers = 4, fio_depth = 4, fio_fdatasync = 0, scale = 0;
  gint64 frames = 0, rotate = 0;
  gchar *check = NULL, *size = NULL, *take = NULL;
  gchar *ring[2] = { NULL, NULL };      /* --pre-record-on-disk,
                                         * --max-file-duration */
  gint check_stream = 0, status;
  gboolean preflight = FALSE, version = FALSE;
  BenchPreflight pf = { 0 };
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
          "Seconds per sink (default 10; --preflight: at the streams' rate)",
        "S"},
    {"frames", 0, 0, G_OPTION_ARG_INT64, &frames,
        "At most this many frames per stream", "N"},
    {"flat-out", 0, 0, G_OPTION_ARG_NONE, &cfg.flat_out,
        "Push frames as fast as the sink takes them", NULL},
    {"rotate", 0, 0, G_OPTION_ARG_INT64, &rotate,
        "Every sink records each stream into files of N frames, each "
          "deleted when the next is begun (rtframesink: max-file-size and "
          "max-files=1; fio: a loop a file with unlink_each_loop; filesinks "
          "cannot): flat out, the duration then decides, not the free space "
          "(scenarios.sh's rotating flat-out scenarios)", "N"},
    {"stagger", 0, 0, G_OPTION_ARG_NONE, &cfg.stagger,
          "Live: stream i's frames come i/N of a period after stream 0's "
          "(cameras running free) instead of all at once (cameras "
          "triggered together); fio's jobs keep the phases fio gives them",
        NULL},
    {"camera-buffers", 0, 0, G_OPTION_ARG_INT, &camera_buffers,
        "Frames the camera holds while the producer is blocked; older "
          "ones are lost (default 4)", "N"},
    {"deadline-ms", 0, 0, G_OPTION_ARG_DOUBLE, &deadline_ms,
        "Write deadline per frame (default 50)", "MS"},
    {"trigger", 0, 0, G_OPTION_ARG_DOUBLE, &trigger,
        "An event recording starts S seconds in: start-recording at that "
          "running time on every rtframesink given record=false (with "
          "pre-record-time: the frames held before it are written first); "
          "figures of the frames from then on, the held ones apart", "S"},
    {"trigger-every", 0, 0, G_OPTION_ARG_DOUBLE, &trigger_every,
          "More triggers: at --trigger, then every S seconds within "
          "--duration (needs --post, under S)", "S"},
    {"post", 0, 0, G_OPTION_ARG_DOUBLE, &post,
          "Each recording is asked to stop S seconds after its trigger: "
          "stop-recording emitted with start-recording, as the first frame "
          "at or after the trigger comes.  Frames in [T - pre-record-time, T) "
          "count as held, [T, T + S) as live; a ring sink "
          "(keep-location=@NAME: NAME/event-%05d in the bench's own "
          "directory) writes every frame: its latency near triggers and far "
          "from them, and each event's directory checked frame by frame, "
          "byte-exact, at idle I/O priority while the run goes on, then "
          "deleted (kept with --keep)", "S"},
    {"sink", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sinks,
        "A sink to run: rtframesink[:prop=value,...], queue-filesink, "
          "filesink, fio (repeat; default all four)", "SPEC"},
    {"dir", 'o', 0, G_OPTION_ARG_FILENAME, &cfg.dir,
        "Directory for the recordings (default .)", "DIR"},
    {"warmup-rounds", 0, 0, G_OPTION_ARG_INT, &warmup,
        "Rounds run before the counted ones, each sink once a round, "
          "their MB/s printed and left out (default 0; scenarios.sh's flat "
          "scenarios: 1, as the first flat-out round on a fresh filesystem "
          "ran at 0.2-0.6x of the next ones)", "N"},
    {"rounds", 'r', 0, G_OPTION_ARG_INT, &rounds,
        "Run the sinks this many times, interleaved (default 1)", "N"},
    {"keep", 0, 0, G_OPTION_ARG_NONE, &cfg.keep,
        "Keep the recordings (default: deleted after the check)", NULL},
    {"no-verify", 0, 0, G_OPTION_ARG_NONE, &no_verify,
        "Do not check the recordings", NULL},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress line", NULL},
    {"version", 0, 0, G_OPTION_ARG_NONE, &version,
        "Print the version and exit", NULL},
    {"drop-caches", 0, 0, G_OPTION_ARG_NONE, &cfg.drop_caches,
        "Empty the page cache between sinks (root)", NULL},
    {"trim", 0, 0, G_OPTION_ARG_NONE, &cfg.trim,
        "FITRIM the filesystem between sinks", NULL},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &cfg.csv,
          "Write every frame's figures here (--preflight: MB/s per interval)",
        "FILE"},
    {"plot", 0, 0, G_OPTION_ARG_FILENAME, &cfg.plot,
        "Plot latency (--preflight: throughput) over time to this .svg or "
          ".png (gnuplot)", "FILE"},
    {"fio", 0, 0, G_OPTION_ARG_FILENAME, &fio,
        "fio to run (default: fio on PATH)", "PATH"},
    {"fio-iodepth", 0, 0, G_OPTION_ARG_INT, &fio_depth,
        "fio's iodepth (default 4, rtframesink's io-depth)", "N"},
    {"fio-fdatasync", 0, 0, G_OPTION_ARG_INT, &fio_fdatasync,
          "fio: an fdatasync after every N writes of a job (fio's "
          "--fdatasync), the durable job beside rtframesink's sync-interval "
          "(at 20 fps, 2 is one every 100 ms, sync-interval's default); "
          "its sync latencies are printed (default 0: one at the end)",
        "N"},
    {"no-fio", 0, 0, G_OPTION_ARG_NONE, &no_fio, "Leave fio out", NULL},
    {"scale", 0, 0, G_OPTION_ARG_INT, &scale,
        "Streams 1, 2, 4, ... up to N at the per-stream rate, each sink "
          "until it first misses, drops or loses a frame (default sinks: "
          "rtframesink, queue-filesink, fio); a table, --csv and --plot of "
          "the counts", "N"},
    {"check", 0, 0, G_OPTION_ARG_FILENAME, &check,
        "Only check this recording (of --format, --width, --height) and "
          "exit", "FILE"},
    {"check-stream", 0, 0, G_OPTION_ARG_INT, &check_stream,
        "The stream whose frames --check expects (default 0)", "N"},
    {"preflight", 0, 0, G_OPTION_ARG_NONE, &preflight,
          "Will --dir hold the streams and keep up?  rtframesink at their "
          "rate for --duration, then flat out for --size bytes; prints a "
          "verdict (exit 0 holds, 3 holds with warnings, 4 will fall behind)",
        NULL},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "--preflight: bytes to "
          "write flat out, e.g. 800G past a 400 GB write cache (default: "
          "twice the phase at the rate's; at most 80% of the free space)",
        "BYTES"},
    {"take", 0, 0, G_OPTION_ARG_STRING, &take, "--preflight: how long the "
          "take will be, e.g. 2h: a warning when the free space lasts less",
        "TIME"},
    {"pre-record-on-disk", 0, 0, G_OPTION_ARG_STRING, &ring[0],
        "--preflight: the take pre-records this long on disk "
          "(rtframesink record=false, pre-record-time, keep-location): the "
          "ring's standing space counts against the free space with the "
          "take's, and the phase at the rate records as the ring", "TIME"},
    {"max-file-duration", 0, 0, G_OPTION_ARG_STRING, &ring[1],
        "--preflight with --pre-record-on-disk: seconds a ring file lasts "
          "(default 1, rtframesink's)", "TIME"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- record camera streams "
      "through rtframesink, queue ! filesink, filesink and fio, and compare; "
      "or with --preflight, say whether a disk will hold them");
  GError *err = NULL;
  GstVideoInfo info;
  GstCaps *caps;
  guint i;

  cfg.duration = 10;
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err))
    goto usage;
  g_option_context_free (ctx);
  ctx = NULL;
  if (version) {
    gchar *gst = gst_version_string ();

    rtf_print_version ("rtframe-bench");
    printf ("  with %s\n", gst);
    g_free (gst);
    return 0;
  }

  if (streams < 1 || width < 1 || height < 1 || fps < 1 || rounds < 1
      || warmup < 0
      || camera_buffers < 1 || fio_depth < 1 || fio_fdatasync < 0 || scale < 0
      || cfg.duration <= 0
      || deadline_ms < 0 || trigger < 0 || trigger >= cfg.duration
      || trigger_every < 0 || post < 0) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "streams, sizes, fps, rounds, buffers and duration must be > 0, "
        "--warmup-rounds and --scale not negative, --trigger within "
        "--duration");
    goto usage;
  }
  if ((trigger_every > 0 || post > 0) && trigger <= 0) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--trigger-every and --post need --trigger");
    goto usage;
  }
  if (trigger_every > 0 && (post <= 0 || post >= trigger_every)) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--trigger-every needs --post, shorter than it: one recording "
        "after another");
    goto usage;
  }
  if (cfg.stagger && cfg.flat_out) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--stagger is for live runs: flat out has no period");
    goto usage;
  }
  if (rotate < 0 || (rotate && (scale || preflight))) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--rotate takes a number of frames, and is for a comparison, not "
        "--scale or --preflight");
    goto usage;
  }
  /* fio writes whole files of N frames: a --frames that is not a number
   * of them would have fio write more than rtframesink */
  if (rotate && frames > 0 && frames % rotate != 0) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--frames %" G_GINT64_FORMAT " with --rotate %" G_GINT64_FORMAT
        ": fio writes whole files, give a multiple of %" G_GINT64_FORMAT,
        frames, rotate, rotate);
    goto usage;
  }
  /* fio's --runtime is in whole ms, and 0 is no limit at all */
  if (cfg.duration < 0.001) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--duration must be at least 0.001 s");
    goto usage;
  }
  if (scale && warmup) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--warmup-rounds is for a comparison's rounds, not --scale");
    goto usage;
  }
  if (preflight && !preflight_options (&pf, size, take, ring[0], ring[1],
          sinks, rounds, warmup, cfg.flat_out || frames, &err))
    goto usage;
  if (!preflight && (ring[0] || ring[1])) {
    g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--pre-record-on-disk and --max-file-duration are --preflight's "
        "(a comparison gives them as --sink properties)");
    goto usage;
  }
  cfg.streams = streams;
  cfg.width = width;
  cfg.height = height;
  cfg.fps = fps;
  cfg.rounds = rounds;
  cfg.warmup_rounds = warmup;
  cfg.camera_buffers = camera_buffers;
  cfg.io_depth = fio_depth;
  cfg.fio_fdatasync = fio_fdatasync;
  cfg.max_frames = frames > 0 ? frames : 0;
  cfg.rotate_frames = (guint64) rotate;
  cfg.deadline_ns = (guint64) (deadline_ms * GST_MSECOND);
  cfg.trigger_ns = (guint64) (trigger * GST_SECOND);
  cfg.trigger_every_ns = (guint64) (trigger_every * GST_SECOND);
  cfg.post_ns = (guint64) (post * GST_SECOND);
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
  cfg.fio = no_fio ? NULL : fio ? g_strdup (fio) :
      g_find_program_in_path ("fio");

  cfg.sinks = g_ptr_array_new_with_free_func (spec_free);
  if (sinks == NULL) {
    static const gchar *defaults[] = { "rtframesink", "queue-filesink",
      "filesink", "fio"
    };
    /* the preflight records with rtframesink alone; the scale leaves
     * filesink out (no queue: the camera waits on every write); --rotate
     * both filesinks (they cannot) */
    for (i = 0; i < (preflight ? 1 : G_N_ELEMENTS (defaults)); i++)
      if ((!g_str_equal (defaults[i], "fio") || cfg.fio)
          && !(scale && g_str_equal (defaults[i], "filesink"))
          && !(rotate && g_str_has_suffix (defaults[i], "filesink")))
        g_ptr_array_add (cfg.sinks, parse_sink (defaults[i], NULL));
  } else {
    for (i = 0; sinks[i]; i++) {
      BenchSinkSpec *spec = parse_sink (sinks[i], &err);

      if (spec == NULL)
        goto usage;
      if (!spec_allowed (spec, rotate > 0, &err)) {
        spec_free (spec);
        goto usage;
      }
      if (rotate && (spec->kind == BENCH_FILESINK
              || spec->kind == BENCH_QUEUE_FILESINK)) {
        g_set_error (&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
            "%s cannot rotate (--rotate: rtframesink and fio)", spec->label);
        spec_free (spec);
        goto usage;
      }
      if (spec->kind == BENCH_FIO && cfg.fio == NULL) {
        g_printerr ("rtframe-bench: fio not found (apt-get install fio); "
            "leaving it out\n");
        spec_free (spec);
        continue;
      }
      g_ptr_array_add (cfg.sinks, spec);
    }
  }
  if (!bench_own_dir_make (&cfg, &err))
    goto usage;
  if (cfg.plot && cfg.csv == NULL)
    cfg.csv = g_strdup_printf ("%s.csv", cfg.plot);

  bench_sink_init ();
  cfg.free_at_start = bench_free_bytes (cfg.dir);
  if (!rotation_fits (&cfg, &err)) {
    bench_own_dir_remove (cfg.dir);
    goto usage;
  }
  status = preflight ? bench_preflight_run (&cfg,
      g_ptr_array_index (cfg.sinks, 0), &pf) : scale ?
      bench_scale_run (&cfg, (guint) scale) : compare (&cfg) ? 1 : 0;
  if (cfg.keep)
    printf ("recordings kept in %s\n", cfg.dir);
  else
    bench_own_dir_remove (cfg.dir);
  options_free (&cfg, sinks, fio, size, take, ring, check);
  return status;

usage:
  g_printerr ("rtframe-bench: %s\n", err->message);
  g_clear_error (&err);
  if (ctx)
    g_option_context_free (ctx);
  /* (LeakSanitizer turned exit 2 into an abort) */
  options_free (&cfg, sinks, fio, size, take, ring, check);
  return 2;
}
