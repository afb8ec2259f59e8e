/* rtframe-bench --preflight: will this disk hold the user's take, and keep
 * up with it?  Two runs of the real rtframesink in --dir (in a directory
 * of the bench's own, removed after), then one verdict.
 *
 *   at the user's rate  --duration seconds of the user's streams: frames
 *                       not written, late frames, write latency against
 *                       the deadline, MB/s (with --pre-record-on-disk:
 *                       recorded as the sink's ring of files)
 *   flat out            the same streams as fast as the sink takes them
 *                       until --size bytes are written: throughput over
 *                       time, "sustained" = its last third
 *                       (bench-throughput.c), so a drive whose cache fills
 *                       within --size shows its rate after the cliff
 *
 * Neither phase writes more than 80% of the space free at the start
 * (bench_space_frames, the bench's rule), and each recording is deleted
 * as soon as it is measured.  The verdict rule is judge()'s, documented
 * in docs/performance.md. */
#include "bench.h"
#include "rtf-space-guard.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Under 1.3x of the rate asked is a warning: rtframesink on the same disk
 * measured 1352 and 1914 MB/s flat out in two runs (docs/performance.md,
 * "Scenario (c), disk"), so one measurement is no nearer than about 30%
 * to the next. */
#define HEADROOM_WARN 1.3

typedef enum
{
  VERDICT_HOLDS,
  VERDICT_WARNINGS,
  VERDICT_BEHIND
} Verdict;

typedef struct
{
  const BenchConfig *cfg;
  const BenchSinkSpec *spec;
  BenchSinkSpec *ring_spec;     /* the at-rate phase's, with a ring */
  const BenchPreflight *pf;
  gdouble rate;                 /* MB/s of the streams */
  guint64 free;                 /* bytes free in --dir at the start */
  guint64 keep;                 /* of those, what rtframesink's default
                                 * min-free-space keeps free */
  guint64 size;                 /* flat-out bytes asked (or the default) */
  BenchResult *at_rate, *flat;
  BenchThroughput tp[2];
} Preflight;

/* ---- options ------------------------------------------------------- */

/* "800G", "1.5T", "512MiB", "1000000": k M G T are powers of 1000, with
 * "i" (KiB ...) of 1024; a trailing "B" is allowed */
static gboolean
parse_size (const gchar * text, guint64 * bytes)
{
  static const gchar units[] = "kMGT";
  gchar *end;
  gdouble v = g_ascii_strtod (text, &end);
  const gchar *u = NULL;

  if (end == text || v <= 0)
    return FALSE;
  if (*end)
    u = strchr (units, *end == 'K' ? 'k' : *end);
  if (u) {
    gboolean binary = end[1] == 'i';
    const gchar *p;

    for (p = units; p <= u; p++)
      v *= binary ? 1024 : 1000;
    end += binary ? 2 : 1;
  }
  if (*end == 'B')
    end++;
  *bytes = (guint64) v;
  return *end == '\0' && *bytes > 0;
}

/* "7200", "90s", "90m", "2h" */
static gboolean
parse_seconds (const gchar * text, gdouble * seconds)
{
  gchar *end;
  gdouble v = g_ascii_strtod (text, &end);

  if (end == text || v <= 0)
    return FALSE;
  if (*end == 'm')
    v *= 60;
  else if (*end == 'h')
    v *= 3600;
  if (*end == 's' || *end == 'm' || *end == 'h')
    end++;
  *seconds = v;
  return *end == '\0';
}

/* --pre-record-on-disk and --max-file-duration: the file length is the
 * sink's own default (1 s) unless given, and means nothing without a
 * ring */
static gboolean
parse_ring (BenchPreflight * pf, const gchar * ring, const gchar * ring_file,
    GError ** err)
{
  pf->ring_file = 1;
  if (ring_file && !ring) {
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--max-file-duration is the ring's: it needs --pre-record-on-disk");
    return FALSE;
  }
  if (ring && !parse_seconds (ring, &pf->ring_pre_record)) {
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--pre-record-on-disk \"%s\": seconds, or e.g. 90s, 2m", ring);
    return FALSE;
  }
  if (ring_file && !parse_seconds (ring_file, &pf->ring_file)) {
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--max-file-duration \"%s\": seconds, e.g. 0.5, 2s", ring_file);
    return FALSE;
  }
  return TRUE;
}

gboolean
bench_preflight_parse (BenchPreflight * pf, const gchar * size,
    const gchar * take, const gchar * ring, const gchar * ring_file,
    GError ** err)
{
  memset (pf, 0, sizeof (*pf));
  if (!parse_ring (pf, ring, ring_file, err))
    return FALSE;
  if (size && !parse_size (size, &pf->size)) {
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--size \"%s\": bytes, e.g. 800G, 1.5T, 512MiB", size);
    return FALSE;
  }
  if (take && !parse_seconds (take, &pf->take)) {
    g_set_error (err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--take \"%s\": seconds, or e.g. 90m, 2h", take);
    return FALSE;
  }
  return TRUE;
}

/* ---- figures ------------------------------------------------------- */

static gchar *
span_text (gdouble seconds)
{
  guint64 s = (guint64) seconds;

  if (s >= 3600)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " h %02u min", s / 3600,
        (guint) (s % 3600 / 60));
  if (s >= 60)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " min %02u s", s / 60,
        (guint) (s % 60));
  return g_strdup_printf ("%.1f s", seconds);
}

static guint64
not_written (const BenchResult * r)
{
  return r->offered - r->written;
}

/* written, but over the deadline (or the producer held that long) */
static guint64
late (const BenchResult * r)
{
  return r->misses - not_written (r);
}

static gdouble
sustained (const Preflight * p)
{
  return p->tp[1].last_third;
}

/* The free space at the start less what min-free-space keeps free: what
 * the take, and a ring, may fill */
static guint64
room (const Preflight * p)
{
  return p->free > p->keep ? p->free - p->keep : 0;
}

/* How long a recording at the streams' rate runs before the sink's
 * free-space guard (min-free-space, by default) ends it or starts to
 * delete its oldest files */
static gdouble
lasts_seconds (const Preflight * p)
{
  return room (p) / 1e6 / p->rate;
}

/* What a ring of pre-record on disk holds all the time at the streams'
 * rate: pre-record-time, plus up to a file more (a file goes only once
 * its newest frame is older than pre-record-time), plus the file being
 * written and the space reserved ahead of it (docs/recording.md: "a file
 * or two") */
static guint64
ring_bytes (const Preflight * p)
{
  const BenchPreflight *pf = p->pf;

  if (pf->ring_pre_record <= 0)
    return 0;
  return (guint64) (p->rate * 1e6 * (pf->ring_pre_record + 2 * pf->ring_file));
}

/* The take's own bytes at the streams' rate (0: no --take) */
static guint64
take_bytes (const Preflight * p)
{
  return (guint64) (p->rate * 1e6 * p->pf->take);
}

/* ---- the two phases ------------------------------------------------ */

static BenchResult *
run_phase (const Preflight * p, const BenchSinkSpec * spec, gboolean flat,
    gdouble seconds, guint64 frames, guint round)
{
  BenchConfig c = *p->cfg;

  c.flat_out = flat;
  c.duration = seconds;
  c.max_frames = frames;
  /* the preflight measures the disk; the bench checks content */
  c.verify = FALSE;
  return bench_run_one (&c, spec, round);
}

/* The user's sink as the ring records: every frame written into files of
 * --max-file-duration, each deleted once older than pre-record-time, so
 * the phase at the rate has the ring's file creates (and, in a phase
 * longer than pre-record-time and a file, its deletes) beside its writes.
 * pre-record-time no longer than the phase: a longer one would delete no
 * more within it, and could pass the sink's cap on the frames a ring
 * holds (a warning that is not the disk's).  Its events' directory
 * (@ring-events) is in the bench's own, removed with the phase's files. */
static BenchSinkSpec *
ring_spec_new (const BenchSinkSpec * user, const BenchConfig * cfg,
    const BenchPreflight * pf)
{
  BenchSinkSpec *spec = g_new0 (BenchSinkSpec, 1);
  GPtrArray *props = g_ptr_array_new ();
  gchar **q;

  for (q = user->props; q && *q; q++)
    g_ptr_array_add (props, g_strdup (*q));
  g_ptr_array_add (props, g_strdup ("record=false"));
  g_ptr_array_add (props, g_strdup_printf ("pre-record-time=%" G_GUINT64_FORMAT,
          (guint64) (MIN (pf->ring_pre_record, cfg->duration) * GST_SECOND)));
  g_ptr_array_add (props, g_strdup_printf ("max-file-duration=%"
          G_GUINT64_FORMAT, (guint64) (pf->ring_file * GST_SECOND)));
  g_ptr_array_add (props, g_strdup ("keep-location=@ring-events"));
  g_ptr_array_add (props, NULL);
  spec->kind = user->kind;
  spec->label = g_strdup (user->label);
  spec->own_pool = user->own_pool;
  spec->props = (gchar **) g_ptr_array_free (props, FALSE);
  return spec;
}

static void
ring_spec_free (BenchSinkSpec * spec)
{
  g_free (spec->label);
  g_strfreev (spec->props);
  g_free (spec);
}

/* --duration at the rate, or fewer frames when they would not fit */
static BenchResult *
run_at_rate (const Preflight * p)
{
  const BenchConfig *cfg = p->cfg;
  guint64 fit = bench_space_frames (cfg);
  guint64 frames = (guint64) (cfg->duration * cfg->fps + 0.5);

  if (fit < frames)
    printf ("at the streams' rate: cut to %" G_GUINT64_FORMAT " frames per "
        "stream, what fits in 80%% of the free space above rtframesink's "
        "min-free-space guard\n", fit);
  if (p->ring_spec)
    printf ("at the streams' rate: rtframesink as a ring, pre-record-time "
        "%.1f s in files of %.1f s\n", MIN (p->pf->ring_pre_record,
            cfg->duration), p->pf->ring_file);
  return run_phase (p, p->ring_spec ? p->ring_spec : p->spec, FALSE,
      cfg->duration, fit < frames ? fit : 0, 1);
}

/* --size bytes flat out.  It stops after twice the time they take at the
 * rate asked (at least 10 s): a disk slower than half the rate is falling
 * behind whatever it does after. */
static BenchResult *
run_flat_out (const Preflight * p)
{
  const BenchConfig *cfg = p->cfg;
  guint64 per_stream = cfg->streams * cfg->frame_size;
  guint64 frames = MAX (1, (p->size + per_stream - 1) / per_stream);
  gdouble limit = MAX (10, 2 * p->size / 1e6 / p->rate);

  if (bench_space_frames (cfg) < frames)
    printf ("flat out: cut to %" G_GUINT64_FORMAT " frames per stream, what "
        "fits in 80%% of the free space above rtframesink's min-free-space "
        "guard\n", bench_space_frames (cfg));
  return run_phase (p, p->spec, TRUE, limit, frames, 2);
}

/* ---- verdict ------------------------------------------------------- */

/* one more reason, after a "; " */
static void
because (GString * why, const gchar * format, ...)
G_GNUC_PRINTF (2, 3);

static void
because (GString * why, const gchar * format, ...)
{
  va_list args;

  if (why->len)
    g_string_append (why, "; ");
  va_start (args, format);
  g_string_append_vprintf (why, format, args);
  va_end (args);
}

/* Falls behind: it sustains less than the rate, or a frame was not
 * written at the rate (the camera lost it, or the sink dropped it). */
static gboolean
falls_behind (const Preflight * p, GString * why)
{
  const BenchResult *a = p->at_rate;

  if (sustained (p) < p->rate)
    because (why, "sustains %.1f MB/s, under the %.1f MB/s of the streams",
        sustained (p), p->rate);
  if (not_written (a))
    because (why, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " frames "
        "not written at the streams' rate", not_written (a), a->offered);
  return why->len > 0;
}

/* A ring's standing space, and the take's beside it, over the free space
 * above min-free-space: the take's rule with the ring added, said once */
static void
ring_short (const Preflight * p, GString * why)
{
  gchar *ring = g_format_size (ring_bytes (p)), *free =
      g_format_size (room (p));

  if (p->pf->take > 0) {
    gchar *take = span_text (p->pf->take), *bytes =
        g_format_size (take_bytes (p));

    because (why, "the ring needs %s standing and the %s take %s, more than "
        "the %s free above min-free-space", ring, take, bytes, free);
    g_free (take);
    g_free (bytes);
  } else {
    because (why, "the ring needs %s standing, more than the %s free above "
        "min-free-space", ring, free);
  }
  g_free (ring);
  g_free (free);
}

/* The space the take needs, with a ring's when there is one, is not free */
static void
short_of_space (const Preflight * p, GString * why)
{
  gchar *lasts, *take;

  if (ring_bytes (p) > 0) {
    if (ring_bytes (p) + take_bytes (p) > room (p))
      ring_short (p, why);
    return;
  }
  if (p->pf->take <= 0 || lasts_seconds (p) >= p->pf->take)
    return;
  lasts = span_text (lasts_seconds (p));
  take = span_text (p->pf->take);
  because (why, "the free space lasts %s, less than the %s take", lasts, take);
  g_free (lasts);
  g_free (take);
}

/* Warnings: little headroom, a frame late, a long latency tail, space
 * for less than the take (with a ring: the ring's standing space and the
 * take), or fewer bytes flat out than --size asked.
 * The tail at p99.9, against half the deadline: an hour of the user's
 * take has 216 frames past p99.9, and the longest latency grows with the
 * run (RAM, p99.9: 8.0 ms in 39 s, 17.7 ms in 10 min; performance.md). */
static void
warnings (const Preflight * p, GString * why)
{
  const BenchResult *a = p->at_rate;
  gdouble deadline_ms = p->cfg->deadline_ns / 1e6;

  if (sustained (p) < HEADROOM_WARN * p->rate)
    because (why, "headroom %.2fx, under %.1fx", sustained (p) / p->rate,
        HEADROOM_WARN);
  if (late (a))
    because (why, "%" G_GUINT64_FORMAT " frames late (over %.0f ms)",
        late (a), deadline_ms);
  if (a->latency.p999 > deadline_ms / 2)
    because (why, "p99.9 latency %.1f ms, over half the deadline",
        a->latency.p999);
  short_of_space (p, why);
  if (p->pf->size && p->tp[1].bytes < p->pf->size) {
    gchar *done = g_format_size (p->tp[1].bytes), *asked =
        g_format_size (p->pf->size);

    because (why, "flat out wrote %s of the %s asked", done, asked);
    g_free (done);
    g_free (asked);
  }
}

static Verdict
judge (const Preflight * p, GString * why)
{
  if (falls_behind (p, why))
    return VERDICT_BEHIND;
  warnings (p, why);
  return why->len ? VERDICT_WARNINGS : VERDICT_HOLDS;
}

/* ---- the report ---------------------------------------------------- */

static void
print_header (const Preflight * p)
{
  const BenchConfig *cfg = p->cfg;
  gchar *dir = g_path_get_dirname (cfg->dir);

  printf ("preflight of %s: %u stream(s) of %s %ux%u (%" G_GSIZE_FORMAT
      " bytes) at %u fps = %.1f MB/s, deadline %.0f ms\n\n", dir,
      cfg->streams, cfg->format, cfg->width, cfg->height, cfg->frame_size,
      cfg->fps, p->rate, cfg->deadline_ns / 1e6);
  g_free (dir);
}

static void
print_at_rate (const Preflight * p)
{
  const BenchResult *a = p->at_rate;

  printf ("at the streams' rate, %.1f s: %" G_GUINT64_FORMAT " frames "
      "offered, %" G_GUINT64_FORMAT " written, %" G_GUINT64_FORMAT
      " not written, %" G_GUINT64_FORMAT " late (element: %" G_GUINT64_FORMAT
      " missed); %.1f MB/s\n", p->tp[0].seconds, a->offered, a->written,
      not_written (a), late (a), a->element_misses, a->mbps);
  printf ("  write latency (offered to written): p99 %.2f ms, p99.9 %.2f ms, "
      "max %.2f ms; deadline %.0f ms\n", a->latency.p99, a->latency.p999,
      a->latency.max, p->cfg->deadline_ns / 1e6);
}

static void
print_flat_out (const Preflight * p)
{
  const BenchThroughput *tp = &p->tp[1];
  gchar *bytes = g_format_size (tp->bytes);
  guint i;

  printf ("flat out, %s in %.1f s: %.1f MB/s; first third %.1f MB/s, last "
      "third %.1f MB/s\n  MB/s in each tenth:", bytes, tp->seconds, tp->mean,
      tp->first_third, tp->last_third);
  for (i = 0; i < 10; i++)
    printf (" %.0f", tp->tenths[i]);
  printf ("\n");
  g_free (bytes);
}

/* The ring's standing space, with the take's beside it against the free
 * space above min-free-space; and what each event kept adds, which stays
 * until the user deletes it */
static void
print_ring (const Preflight * p)
{
  const BenchPreflight *pf = p->pf;
  gchar *ring = g_format_size (ring_bytes (p)), *free =
      g_format_size (room (p));
  gchar *both = g_format_size (ring_bytes (p) + take_bytes (p));

  printf ("pre-record on disk, %.1f s in files of %.1f s: the ring holds %s "
      "standing", pf->ring_pre_record, pf->ring_file, ring);
  if (pf->take > 0)
    printf (", with the take %s", both);
  printf (", of the %s free above min-free-space; each event kept takes "
      "%.1f MB/s x (%.1f s + its length) more until deleted\n", free,
      p->rate, pf->ring_pre_record);
  g_free (ring);
  g_free (free);
  g_free (both);
}

static void
print_space (const Preflight * p)
{
  gchar *free = g_format_size (p->free), *lasts = span_text (lasts_seconds (p));
  gchar *keep = g_format_size (p->keep);

  printf ("sustained %.1f MB/s (the last third flat out): %.2fx the %.1f "
      "MB/s of the streams\n", sustained (p), sustained (p) / p->rate, p->rate);
  printf ("free space %s, of which min-free-space keeps %s: %s at %.1f "
      "MB/s\n", free, keep, lasts, p->rate);
  g_free (free);
  g_free (keep);
  g_free (lasts);
  if (ring_bytes (p) > 0)
    print_ring (p);
}

static void
print_plot (const Preflight * p)
{
  const BenchConfig *cfg = p->cfg;

  if (cfg->csv && !bench_throughput_csv (p->tp, 2, cfg->csv))
    g_printerr ("rtframe-bench: cannot write %s\n", cfg->csv);
  else if (cfg->csv)
    printf ("throughput per interval: %s\n", cfg->csv);
  if (cfg->plot && cfg->csv) {
    if (bench_throughput_plot (p->tp, 2, p->rate, cfg->csv, cfg->plot))
      printf ("plot: %s\n", cfg->plot);
    else
      g_printerr ("rtframe-bench: gnuplot could not draw %s (apt-get "
          "install gnuplot-nox)\n", cfg->plot);
  }
}

static gint
print_verdict (const Preflight * p)
{
  static const gchar *names[] = { "holds", "holds with warnings",
    "will fall behind"
  };
  GString *why = g_string_new (NULL);
  Verdict v = judge (p, why);

  printf ("verdict: %s%s%s%s\n", names[v], why->len ? ": " : "", why->str,
      p->cfg->stagger && p->cfg->streams > 1 ? " (cameras staggered: "
      "--stagger; with cameras triggered together the tail is longer)" : "");
  g_string_free (why, TRUE);
  return v == VERDICT_HOLDS ? 0 : v == VERDICT_WARNINGS ? 3 : 4;
}

/* ---- the run ------------------------------------------------------- */

static gboolean
phase_failed (const gchar * phase, const BenchResult * r)
{
  if (r->error == NULL && r->logs)
    return FALSE;
  g_printerr ("rtframe-bench: preflight, %s: %s\n", phase,
      r->error ? r->error : "no frames");
  return TRUE;
}

static gint
run_phases (Preflight * p)
{
  p->at_rate = run_at_rate (p);
  if (phase_failed ("at the streams' rate", p->at_rate))
    return 1;
  bench_throughput_from (&p->tp[0], "at-rate", p->cfg, p->at_rate);
  print_at_rate (p);
  p->flat = run_flat_out (p);
  if (phase_failed ("flat out", p->flat))
    return 1;
  bench_throughput_from (&p->tp[1], "flat-out", p->cfg, p->flat);
  print_flat_out (p);
  print_space (p);
  print_plot (p);
  return print_verdict (p);
}

/* Exit status: 0 holds, 3 holds with warnings, 4 will fall behind, 1 a
 * phase failed */
gint
bench_preflight_run (const BenchConfig * cfg, const BenchSinkSpec * spec,
    const BenchPreflight * pf)
{
  Preflight p = { 0 };
  gint status;

  p.cfg = cfg;
  p.spec = spec;
  p.pf = pf;
  p.rate = cfg->streams * cfg->frame_size * cfg->fps / 1e6;
  p.free = cfg->free_at_start;
  p.keep = bench_guard_bytes (cfg->dir);
  /* default: twice what the phase at the rate writes */
  p.size = pf->size ? pf->size : (guint64) (2 * p.rate * 1e6 * cfg->duration);
  if (pf->ring_pre_record > 0)
    p.ring_spec = ring_spec_new (spec, cfg, pf);
  print_header (&p);
  if (bench_space_frames (cfg) == 0) {
    g_printerr ("rtframe-bench: preflight: %" G_GUINT64_FORMAT " bytes free "
        "in %s, not room for a frame per stream\n", p.free, cfg->dir);
    status = 1;
  } else {
    status = run_phases (&p);
  }
  if (p.at_rate)
    bench_result_free (p.at_rate);
  if (p.flat)
    bench_result_free (p.flat);
  bench_throughput_clear (&p.tp[0]);
  bench_throughput_clear (&p.tp[1]);
  if (p.ring_spec)
    ring_spec_free (p.ring_spec);
  return status;
}
