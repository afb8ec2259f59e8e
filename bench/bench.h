/* rtframe-bench: the types its parts share.
 *
 * A run records N camera streams through one sink (rtframesink,
 * queue ! filesink, filesink, or fio's equivalent job) for a duration, and
 * keeps, per frame, when it was offered, how long the producer was blocked
 * and when its write completed.  rtframe-bench.c runs the sinks one after
 * another and compares them; bench-run.c runs one sink and measures the
 * machine around it; bench-sink.c drives the GStreamer sinks,
 * bench-fio.c runs fio, bench-frame.c stamps and verifies the frames,
 * bench-report.c turns the per-frame logs into the table, CSV and plot,
 * bench-rounds.c says how far the rounds agree; bench-scale.c runs
 * --scale, bench-preflight.c --preflight (bench-throughput.c its
 * throughput intervals); bench-ring.c follows a ring sink's events
 * (keep-location) and checks each in an idle-I/O thread.  scenarios.sh makes the filesystems of
 * docs/performance.md; tail-latency.sh and split-latency.awk read the
 * per-frame CSV. */
#ifndef __RTF_BENCH_H__
#define __RTF_BENCH_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum
{
  BENCH_RTFRAMESINK,
  BENCH_QUEUE_FILESINK,
  BENCH_FILESINK,
  BENCH_FIO
} BenchSinkKind;

/* One sink to compare, as given on the command line:
 * "rtframesink", "rtframesink:io-depth=8,leaky=downstream", "queue-filesink",
 * "filesink", "fio".  "pool=own" among the properties is the bench's: the
 * camera uses a pool of its own, not the one the sink proposes. */
typedef struct
{
  BenchSinkKind kind;
  gchar *label;                 /* the string it was given as */
  gchar **props;                /* "name=value" for the sink element */
  gboolean own_pool;            /* "pool=own": the camera ignores the sink's
                                 * pool (rtframesink then copies) */
} BenchSinkSpec;

typedef struct
{
  guint streams;
  gchar *format;
  guint width, height;
  guint fps;
  gdouble duration;             /* seconds */
  guint64 max_frames;           /* per stream, 0 = until duration */
  gboolean scale_space;         /* --scale: live runs stop at what fits
                                 * too, with room for rtframesink's
                                 * preallocation (not other live runs: a
                                 * rotation with max-files recycles its
                                 * space) */
  gboolean flat_out;            /* push as fast as the sink takes frames */
  guint64 rotate_frames;        /* --rotate: every sink records into files
                                 * of this many frames a stream, each
                                 * deleted when the next one is begun
                                 * (rtframesink max-files=1, fio
                                 * unlink_each_loop); 0: one file */
  gboolean stagger;             /* live: stream i's frames come i/streams
                                 * of a period after stream 0's (cameras
                                 * running free), not all at once
                                 * (cameras triggered together) */
  guint camera_buffers;         /* frames a blocked camera can hold */
  guint64 deadline_ns;
  guint queue_buffers;          /* queue ! filesink and rtframesink budget */
  guint64 queue_bytes;
  guint io_depth;               /* fio's iodepth (rtframesink's default) */
  guint fio_fdatasync;          /* fio: fdatasync every N writes, 0: at the
                                 * end only (end_fsync) */
  gchar *dir;
  GPtrArray *sinks;             /* BenchSinkSpec */
  guint rounds;
  guint warmup_rounds;          /* run first, not counted */
  gboolean keep;
  gboolean verify;
  gboolean progress;
  gboolean drop_caches;
  gboolean trim;
  gchar *csv;
  gchar *plot;
  gchar *fio;                   /* path of fio, NULL: not found */
  /* --trigger: an event recording starts at this running time (0: none)
   * on every rtframesink with record=false (start-recording, one instant
   * for all streams); the figures are then of the frames it records */
  guint64 trigger_ns;
  /* --trigger-every: more triggers, at trigger_ns + k * this within the
   * duration (0: the one); --post: each recording asked to stop this long
   * after its trigger, asked with its start (0: no stop) */
  guint64 trigger_every_ns;
  guint64 post_ns;
  gsize frame_size;             /* from format, width, height */
  guint64 free_at_start;        /* bytes free in dir before the first run */
} BenchConfig;

/* Which part of an event recording (--trigger) a frame is */
typedef enum
{
  BENCH_FRAME_LIVE,             /* recorded as it came (every frame of a
                                 * sink that records all the time) */
  BENCH_FRAME_HELD,             /* held before the trigger, written as a
                                 * backlog after it (pre-record) */
  BENCH_FRAME_UNRECORDED        /* before the pre-record window: not to be
                                 * written, left out of every figure */
} BenchFramePart;

/* What happened to one frame; times in ns from the run's start. */
typedef struct
{
  BenchFramePart part;
  gint64 offer;                 /* handed to the sink (-1: never produced) */
  gint64 block;                 /* producer blocked (pool + push) */
  gint64 done;                  /* last byte written (-1: not written) */
  gint64 service;               /* the write alone (submit to completion) */
  gboolean lost;                /* the camera overwrote it: producer blocked */
  gint event;                   /* the trigger (0, 1, ...) whose recording
                                 * it is part of, held or live; -1: none */
} BenchFrame;

#define BENCH_CHUNK 1024
#define BENCH_MAX_CHUNKS 16384

/* Per-frame records, written by the producer (offer, block) and by whoever
 * sees the completion (done, service).  Chunks are allocated by the
 * producer before it offers their first frame and never move. */
typedef struct
{
  BenchFrame *chunk[BENCH_MAX_CHUNKS];
  guint64 n;                    /* frames recorded (producer) */
} BenchLog;

BenchFrame *bench_log_frame (BenchLog * log, guint64 k);
BenchFrame *bench_log_add (BenchLog * log);
void bench_log_clear (BenchLog * log);
/* The one rule for a missed frame: lost at the camera, never written, or
 * the producer blocked or the write finished later than the deadline after
 * it was offered. */
gboolean bench_frame_missed (const BenchFrame * f, guint64 deadline_ns);

typedef struct
{
  guint64 count;
  gdouble min, mean, p50, p99, p999, max;       /* ms */
} BenchDist;

/* --trigger, --trigger-every: how many triggers fall within the duration,
 * and the running time (ns) of the k-th */
guint bench_trigger_count (const BenchConfig * cfg);
guint64 bench_trigger_at (const BenchConfig * cfg, guint k);

/* One trigger's recording, as a sink recorded it */
typedef struct
{
  guint64 trigger_ns;
  /* pre-record in memory: its held frames (the backlog), and the live
   * frames offered while they were written */
  guint64 held, held_written;
  gdouble drain;                /* trigger to its last held frame written, s */
  guint64 during_backlog, during_misses;
  BenchDist during;
  /* a ring (keep-location): what bench-ring.c found */
  gboolean ring;
  gboolean stopped;             /* recording-stopped on every stream */
  guint64 first_frame, last_frame;      /* the camera's numbers (stream 0) */
  guint64 want_first, want_last;        /* the frames at trigger - pre and
                                         * the last before trigger + post */
  gboolean frames_agree;        /* every stream: first and last as wanted */
  guint64 files_pre;            /* ring files existing at the trigger, kept
                                 * (all streams) */
  gdouble kept_s;               /* trigger to the last of them kept, s
                                 * (< 0: not all kept) */
  gdouble verify_s;             /* its stop to verified and deleted, s */
  guint64 verified, bad;        /* frames checked in its directory */
  gchar *verdict;               /* "ok", or what was wrong */
} BenchEvent;

/* The outcome of one sink in one round */
typedef struct
{
  const BenchSinkSpec *spec;
  guint round;
  guint64 offered, written, dropped, lost_camera, misses;
  guint64 recorded;             /* frames written in all (with --trigger,
                                 * written counts those from it on) */
  guint64 element_misses;       /* rtframesink's own count */
  guint64 zero_copy;            /* rtframesink: frames written zero-copy */
  guint64 bytes;
  BenchDist block, latency, service;
  gdouble seconds;              /* start to durable (fio: to its last write) */
  gdouble wall;                 /* fio: the whole process, set-up included */
  gdouble tail;                 /* last frame offered to durable */
  gdouble mbps;                 /* bytes / seconds */
  gdouble cpu_process;          /* CPU seconds of this process (+ children) */
  gdouble cpu_machine;          /* CPU seconds of all CPUs, busy */
  gdouble rss_peak_mb;
  gdouble dirty_peak_mb;
  /* the bench's camera threads (not fio): CPU seconds making frames
   * (pool acquire, pattern, stamps) and in all (with the pushes, so the
   * sink's chain function too); buffers given their pattern mid-run */
  gdouble producer_make_cpu, producer_cpu;
  gdouble producer_prefill_cpu; /* the pattern, before the clock */
  guint64 producer_fills;
  guint64 producer_frames;      /* frames the cameras made */
  /* durability: fdatasyncs done, and their latency (fio: from its JSON,
   * the worst job's percentiles; rtframesink: its stats' syncs, the worst
   * stream's sync-latency percentiles and sync-max) */
  guint64 syncs;
  gdouble sync_p99, sync_p999, sync_max;        /* ms; p99 < 0: unknown */
  guint64 verified, bad;        /* frames checked in the files, faulty */
  /* --trigger, an event recording: the held frames (backlog) and the
   * live frames offered while it was being written */
  guint64 held, held_written;
  gdouble drain;                /* trigger to the last held frame written, s */
  guint64 during_backlog, during_misses;
  BenchDist during;             /* latency of those live frames */
  BenchEvent *events;           /* one a trigger (event and ring sinks) */
  guint n_events;
  /* a sink that records every frame, with triggers: its frames within
   * 2 s of a trigger and the others (from the run's start) */
  gboolean every_frame;
  BenchDist lat_all, lat_near, lat_far;
  guint64 misses_all, misses_near, misses_far;
  /* VmRSS sampled each second (MB): the peak in 60-120 s, in the last
   * minute, over the run; samples 0: none */
  guint64 rss_samples;
  gdouble rss_min2_mb, rss_last_mb, rss_max_mb;
  guint64 space_frames;         /* a sink that cannot rotate, stopped at
                                 * what fits (frames a stream; 0: not) */
  gchar *error;                 /* what went wrong, or NULL */
  /* per-frame logs, one per stream (freed with the result) */
  BenchLog **logs;
  guint n_logs;
} BenchResult;

/* ---- bench-frame.c: frame content ---------------------------------- */
void bench_frame_fill (guint8 * data, gsize size, guint stream);
void bench_frame_stamp (guint8 * data, gsize size, guint stream,
    guint64 frame);
/* Checks a file of whole frames of one stream: stamps increase, content
 * exact.  Returns the frames checked; *bad counts faults, *first_error
 * says the first. */
guint64 bench_frame_verify_file (const gchar * path, gsize size, guint stream,
    guint64 * bad, gchar ** first_error);
/* The same, appending each exact frame's number to numbers (guint64) */
guint64 bench_frame_verify_numbers (const gchar * path, gsize size,
    guint stream, GArray * numbers, guint64 * bad, gchar ** first_error);

/* ---- bench-ring.c: a ring sink's events (keep-location) ------------ */
typedef struct _BenchRing BenchRing;
/* keep: the sink's keep-location (resolved); ring: each stream's
 * location pattern; logs: each stream's frames; t0 the run's start */
BenchRing *bench_ring_new (const BenchConfig * cfg, const gchar * keep,
    gchar ** ring, BenchLog ** logs);
void bench_ring_start (BenchRing * rg, gint64 t0, guint64 pre_record_ns);
/* A message of stream's sink (bus sync handler: its time is now) */
void bench_ring_message (BenchRing * rg, guint stream,
    const GstStructure * st);
/* After EOS: checks what is left, joins the thread, fills res->events */
void bench_ring_finish (BenchRing * rg, BenchResult * res);
void bench_ring_free (BenchRing * rg);
/* keep-location=@NAME: NAME/event-%05d in the bench's own directory
 * (@NAME/x-%03d: that pattern); NULL when the spec has none */
gchar *bench_keep_pattern (const BenchConfig * cfg,
    const BenchSinkSpec * spec);
/* Removes what a ring sink's recordings left under the pattern's
 * directory (event directories and their files), and that directory */
void bench_keep_remove (const gchar * pattern);

/* ---- bench-sink.c: GStreamer sinks --------------------------------- */
typedef struct _BenchSinkRun BenchSinkRun;
BenchSinkRun *bench_sink_run_new (const BenchConfig * cfg,
    const BenchSinkSpec * spec, const gchar * const *paths, gchar ** error);
/* Starts the producers at t0 (CLOCK_MONOTONIC ns) */
void bench_sink_run_start (BenchSinkRun * r, gint64 t0);
/* Frames written and offered so far, and misses seen, over all streams */
void bench_sink_run_progress (BenchSinkRun * r, guint64 * written,
    guint64 * offered, guint64 * misses);
/* Waits for the producers and for every stream to be durable; fills res */
void bench_sink_run_finish (BenchSinkRun * r, BenchResult * res);
void bench_sink_run_free (BenchSinkRun * r);
void bench_sink_init (void);

/* ---- bench-run.c: one sink, one round -------------------------------- */
/* Records with one sink (fio: runs it) into cfg->dir: the files removed
 * first and, unless cfg->keep, after; checked when cfg->verify.  Flat out,
 * each stream stops at its share of 80% of the space free (at the start
 * and now).  The result holds the per-frame logs. */
BenchResult *bench_run_one (const BenchConfig * cfg,
    const BenchSinkSpec * spec, guint round);
void bench_result_free (gpointer result);
guint64 bench_free_bytes (const gchar * dir);
/* Frames per stream that fit in 80% of the space free (at the start and
 * now), shared evenly by the streams */
guint64 bench_guard_bytes (const gchar * dir);
guint64 bench_usable_bytes (const BenchConfig * cfg, guint64 free);
guint64 bench_space_frames (const BenchConfig * cfg);
/* cfg->dir becomes a new directory of the bench's own inside it, so the
 * bench only ever deletes what it made: the files of a run, then that
 * directory (bench_own_dir_remove). */
gboolean bench_own_dir_make (BenchConfig * cfg, GError ** err);
/* The files of a directory made inside the bench's own (that one, or a
 * recording's directory of the ring's runs), then the directory; one
 * already gone is no fault */
void bench_own_dir_remove (const gchar * dir);

/* ---- bench-throughput.c: throughput over time of one run ------------ */
typedef struct
{
  const gchar *label;
  gdouble seconds;              /* the run's start to its last frame written */
  guint64 bytes;
  gdouble mean;                 /* MB/s over seconds */
  gdouble first_third, last_third;      /* MB/s; the last third is the
                                         * preflight's "sustained" rate */
  gdouble tenths[10];           /* MB/s in each tenth of seconds */
  gdouble bin;                  /* seconds per bin */
  guint n_bins;
  gdouble *mbps;                /* MB/s written in each bin */
} BenchThroughput;

void bench_throughput_from (BenchThroughput * tp, const gchar * label,
    const BenchConfig * cfg, const BenchResult * res);
void bench_throughput_clear (BenchThroughput * tp);
gboolean bench_throughput_csv (const BenchThroughput * series, guint n,
    const gchar * path);
gboolean bench_throughput_plot (const BenchThroughput * series, guint n,
    gdouble rate_mbps, const gchar * csv, const gchar * path);

/* ---- bench-preflight.c: rtframe-bench --preflight ------------------- */
typedef struct
{
  guint64 size;                 /* bytes flat out (0: twice the at-rate
                                 * phase's) */
  gdouble take;                 /* seconds the user will record (0: not
                                 * said) */
  gdouble ring_pre_record;      /* --pre-record-on-disk: the sink's
                                 * pre-record-time in a ring of files
                                 * (keep-location), seconds (0: none) */
  gdouble ring_file;            /* --max-file-duration: seconds a ring
                                 * file lasts */
} BenchPreflight;

/* --size, --take, --pre-record-on-disk and --max-file-duration, as given
 * (NULL: not given) */
gboolean bench_preflight_parse (BenchPreflight * pf, const gchar * size,
    const gchar * take, const gchar * ring, const gchar * ring_file,
    GError ** err);
/* Runs the preflight into cfg->dir (the bench's own directory) and prints
 * it; returns the exit status: 0 holds, 3 holds with warnings, 4 will fall
 * behind, 1 a phase failed */
gint bench_preflight_run (const BenchConfig * cfg, const BenchSinkSpec * spec,
    const BenchPreflight * pf);

/* ---- bench-scale.c: rtframe-bench --scale ---------------------------- */
/* Streams 1, 2, 4, ... up to max_streams, each sink until it first falls
 * behind; prints the table (and cfg->csv, cfg->plot); 1 if a recording
 * was faulty or a file could not be written */
gint bench_scale_run (const BenchConfig * cfg, guint max_streams);

/* ---- bench-fio.c ---------------------------------------------------- */
void bench_fio_run (const BenchConfig * cfg, const gchar * dir,
    BenchResult * res);

/* ---- bench-report.c ------------------------------------------------- */
void bench_dist_from (BenchDist * d, gdouble * ms, guint64 n);
void bench_result_compute (const BenchConfig * cfg, BenchResult * res);
/* CPU seconds (cpu) per GB the result wrote; 0 when it wrote nothing */
gdouble bench_cpu_per_gb (const BenchResult * r, gdouble cpu);
gint bench_cmp_double (gconstpointer a, gconstpointer b);
void bench_report_table (const BenchConfig * cfg, GPtrArray * results);

/* ---- bench-rounds.c: do the rounds agree? -------------------------- */

void bench_report_rounds (const BenchConfig * cfg, GPtrArray * results);
gboolean bench_report_csv (const BenchConfig * cfg, GPtrArray * results,
    const gchar * path);
gboolean bench_report_plot (const BenchConfig * cfg, GPtrArray * results,
    const gchar * csv, const gchar * path);
/* gnuplot: a script's start (terminal, output, `panels` panels one
 * above the other), then its end: written to path.gp and drawn */
void bench_plot_begin (GString * gp, const gchar * path, guint panels);
gboolean bench_plot_draw (GString * gp, const gchar * path);

static inline gint64
bench_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

G_END_DECLS

#endif /* __RTF_BENCH_H__ */
