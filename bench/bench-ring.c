/* rtframe-bench: a ring sink's events (rtframesink with keep-location).
 *
 * The ring writes every frame; each trigger's recording keeps the ring's
 * files holding its frames by linking them into a directory of its own
 * (docs/recording.md, "Pre-record on disk").  This follows the sink's
 * messages per stream - recording-started, file-kept, recording-stopped,
 * file-closed - and, once a recording stopped on every stream and the
 * ring's file with its last frame is closed on each, a thread of its own
 * at idle I/O priority reads its directory while the recording goes on:
 * every frame first-frame..last-frame of each stream there, byte-exact,
 * none after, first-frame the frame at trigger - pre-record-time and
 * last-frame the last before trigger + post on every stream; then it
 * deletes the directory (not with --keep), so a long run needs the ring
 * and about one event's space, not every event's.  It also times each
 * trigger to the last of its pre-trigger files kept (the files that
 * existed at the trigger: their first frame before it). */
#include "bench.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NONE G_MAXUINT64

typedef struct
{
  guint64 number;
  gchar *dir;                   /* the first told of */
  gchar **dirs;                 /* each stream's (since 1a11c69 each
                                 * camera's sink makes a directory of its
                                 * own; before, one for all) */
  guint64 asked;                /* recording-started's running-time */
  gboolean *started, *stopped;  /* per stream */
  guint64 *first_seq, *last_seq;
  gint64 *kept_pre_at;          /* the last pre-trigger file kept (0: none) */
  guint64 files_pre;
  gint64 stopped_at;            /* the last stream's recording-stopped */
  gboolean done;
  BenchEvent out;
} RingEvent;

struct _BenchRing
{
  const BenchConfig *cfg;
  gchar *keep;
  gchar **ring;                 /* each stream's location pattern */
  BenchLog **logs;
  guint n;
  gint64 t0;
  guint64 pre_ns;
  GMutex lock;
  GCond cond;
  GPtrArray *events;            /* RingEvent, by number */
  guint64 *closed_last;         /* per stream: newest file-closed's last
                                 * frame (NONE: none yet) */
  gboolean ending;
  GThread *thread;
  gint ioprio_err;              /* errno of ioprio_set, 0: idle class */
};

static void
event_free (gpointer p)
{
  RingEvent *e = p;

  g_free (e->dir);
  g_strfreev (e->dirs);
  g_free (e->started);
  g_free (e->stopped);
  g_free (e->first_seq);
  g_free (e->last_seq);
  g_free (e->kept_pre_at);
  g_free (e->out.verdict);
  g_free (e);
}

/* The event of number n, made when first told of (under lock) */
static RingEvent *
event_get (BenchRing * rg, guint64 n)
{
  RingEvent *e;

  if (n > 100000)
    return NULL;
  while (rg->events->len <= n) {
    e = g_new0 (RingEvent, 1);
    e->number = rg->events->len;
    e->started = g_new0 (gboolean, rg->n);
    e->dirs = g_new0 (gchar *, rg->n + 1);
    e->stopped = g_new0 (gboolean, rg->n);
    e->first_seq = g_new0 (guint64, rg->n);
    e->last_seq = g_new0 (guint64, rg->n);
    e->kept_pre_at = g_new0 (gint64, rg->n);
    e->asked = NONE;
    g_ptr_array_add (rg->events, e);
  }
  return g_ptr_array_index (rg->events, n);
}

/* The camera's number of the frame the sink numbered seq: the sink counts
 * the frames it received, the camera also those it lost (NONE: not
 * pushed yet) */
static guint64
seq_to_k (BenchRing * rg, guint stream, guint64 seq)
{
  BenchLog *log = rg->logs[stream];
  guint64 k, n = 0;

  for (k = 0; k < log->n; k++) {
    BenchFrame *f = bench_log_frame (log, k);

    if (f->lost || f->offer < 0)
      continue;
    if (n++ == seq)
      return k;
  }
  return NONE;
}

static guint64
field_u64 (const GstStructure * st, const gchar * name)
{
  guint64 v = NONE;

  gst_structure_get_uint64 (st, name, &v);
  return v;
}

void
bench_ring_message (BenchRing * rg, guint stream, const GstStructure * st)
{
  gint64 now = bench_now ();
  guint64 number = field_u64 (st, "number");
  GstClockTime period = GST_SECOND / rg->cfg->fps;
  RingEvent *e;

  g_mutex_lock (&rg->lock);
  if (gst_structure_has_name (st, "rtframesink-file-closed")) {
    guint64 last = field_u64 (st, "last-frame");

    if (last != NONE && (rg->closed_last[stream] == NONE
            || last > rg->closed_last[stream]))
      rg->closed_last[stream] = last;
    g_cond_signal (&rg->cond);
  } else if ((e = event_get (rg, number)) == NULL) {
    /* (no number: not a message of the ring's) */
  } else if (gst_structure_has_name (st, "rtframesink-recording-started")) {
    e->started[stream] = TRUE;
    e->asked = field_u64 (st, "running-time");
    if (e->dir == NULL)
      e->dir = g_strdup (gst_structure_get_string (st, "location"));
    if (e->dirs[stream] == NULL)
      e->dirs[stream] = g_strdup (gst_structure_get_string (st, "location"));
  } else if (gst_structure_has_name (st, "rtframesink-recording-stopped")) {
    guint i, all = 0;

    e->stopped[stream] = TRUE;
    e->first_seq[stream] = field_u64 (st, "first-frame");
    e->last_seq[stream] = field_u64 (st, "last-frame");
    for (i = 0; i < rg->n; i++)
      all += e->stopped[i];
    if (all == rg->n)
      e->stopped_at = now;
    g_cond_signal (&rg->cond);
  } else if (gst_structure_has_name (st, "rtframesink-file-kept")) {
    /* a file that existed at the trigger: its first frame before it
     * (recording n is trigger n: one recording a trigger) */
    guint64 k = seq_to_k (rg, stream, field_u64 (st, "first-frame"));

    if (e->dir == NULL)
      e->dir = g_strdup (gst_structure_get_string (st, "directory"));
    if (e->dirs[stream] == NULL)
      e->dirs[stream] = g_strdup (gst_structure_get_string (st,
              "directory"));
    if (k != NONE && number < bench_trigger_count (rg->cfg)
        && k * period < bench_trigger_at (rg->cfg, number)) {
      e->files_pre++;
      e->kept_pre_at[stream] = now;
    }
  }
  g_mutex_unlock (&rg->lock);
}

/* Its directory's files of one stream (the ring's names), in order */
static GPtrArray *
stream_files (const gchar * dir, const gchar * ring_pattern)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  gchar *base = g_path_get_basename (ring_pattern);
  gchar *pattern = g_build_filename (dir, base, NULL);
  RtfPattern p;
  GDir *d;
  const gchar *name;
  guint64 n;
  GArray *numbers = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint i, j;

  if (rtf_pattern_parse (pattern, &p) && (d = g_dir_open (dir, 0, NULL))) {
    while ((name = g_dir_read_name (d)) != NULL)
      if (rtf_pattern_match (&p, name, &n))
        g_array_append_val (numbers, n);
    g_dir_close (d);
    rtf_pattern_clear (&p);
  }
  /* few files: a sort by selection */
  for (i = 0; i < numbers->len; i++)
    for (j = i + 1; j < numbers->len; j++)
      if (g_array_index (numbers, guint64, j) < g_array_index (numbers,
              guint64, i)) {
        n = g_array_index (numbers, guint64, i);
        g_array_index (numbers, guint64, i) = g_array_index (numbers,
            guint64, j);
        g_array_index (numbers, guint64, j) = n;
      }
  for (i = 0; i < numbers->len; i++)
    g_ptr_array_add (files, rtf_pattern_format (pattern,
            g_array_index (numbers, guint64, i)));
  g_array_unref (numbers);
  g_free (pattern);
  g_free (base);
  return files;
}

/* The first fault of an event is its verdict */
static void
fault (RingEvent * e, gchar * why)
{
  e->out.bad++;
  if (e->out.verdict == NULL)
    e->out.verdict = why;
  else
    g_free (why);
}

/* One event, every stream: its frames, as wanted, exact (not under lock:
 * only this thread touches a stopped event's figures) */
static void
check_event (BenchRing * rg, RingEvent * e)
{
  const BenchConfig *cfg = rg->cfg;
  GstClockTime period = GST_SECOND / cfg->fps;
  guint64 t = e->out.trigger_ns;
  guint s, i;

  e->out.want_first = t > rg->pre_ns ? (t - rg->pre_ns + period - 1) /
      period : 0;
  e->out.want_last = cfg->post_ns ? (t + cfg->post_ns - 1) / period : NONE;
  e->out.frames_agree = TRUE;
  if (e->asked != t)
    fault (e, g_strdup_printf ("recording-started at %.3f s, the trigger "
            "is at %.3f s", e->asked / 1e9, t / 1e9));
  for (s = 0; s < rg->n; s++) {
    guint64 first = seq_to_k (rg, s, e->first_seq[s]);
    guint64 last = seq_to_k (rg, s, e->last_seq[s]);
    GArray *numbers = g_array_new (FALSE, FALSE, sizeof (guint64));
    const gchar *dir = e->dirs[s] ? e->dirs[s] : e->dir;
    GPtrArray *files = stream_files (dir, rg->ring[s]);
    guint64 want = first, prev = NONE;

    if (s == 0) {
      e->out.first_frame = first;
      e->out.last_frame = last;
    }
    if (first != e->out.want_first || (cfg->post_ns
            && last != e->out.want_last)) {
      e->out.frames_agree = FALSE;
      fault (e, g_strdup_printf ("stream %u: frames %" G_GUINT64_FORMAT
              "..%" G_GUINT64_FORMAT ", wanted %" G_GUINT64_FORMAT "..%"
              G_GUINT64_FORMAT, s, first, last, e->out.want_first,
              e->out.want_last));
    }
    for (i = 0; i < files->len; i++) {
      guint64 bad = 0;
      gchar *why = NULL;

      bench_frame_verify_numbers (g_ptr_array_index (files, i),
          cfg->frame_size, s, numbers, &bad, &why);
      if (bad)
        fault (e, g_strdup_printf ("%s: %s", (gchar *)
                g_ptr_array_index (files, i), why));
      g_free (why);
    }
    if (files->len == 0)
      fault (e, g_strdup_printf ("stream %u: no file in %s", s, dir));
    /* in order; every frame the camera gave of first..last, none after
     * (frames before first: the first file is whole) */
    for (i = 0; i < numbers->len && first != NONE; i++) {
      guint64 k = g_array_index (numbers, guint64, i);

      if (prev != NONE && k <= prev) {
        fault (e, g_strdup_printf ("stream %u: frame %" G_GUINT64_FORMAT
                " after frame %" G_GUINT64_FORMAT, s, k, prev));
        continue;
      }
      prev = k;
      if (k < first)
        continue;
      while (want <= last && want < k) {        /* skipped: lost? */
        BenchFrame *f = bench_log_frame (rg->logs[s], want);

        if (f && !f->lost)
          fault (e, g_strdup_printf ("stream %u: frame %" G_GUINT64_FORMAT
                  " missing", s, want));
        want++;
      }
      if (k > last) {
        fault (e, g_strdup_printf ("stream %u: frame %" G_GUINT64_FORMAT
                " after the last, %" G_GUINT64_FORMAT, s, k, last));
        break;
      }
      e->out.verified++;
      want = k + 1;
    }
    if (first != NONE && want <= last)
      fault (e, g_strdup_printf ("stream %u: frames %" G_GUINT64_FORMAT
              "..%" G_GUINT64_FORMAT " missing", s, want, last));
    if (first == NONE)
      fault (e, g_strdup_printf ("stream %u: first-frame %" G_GUINT64_FORMAT
              " is no frame pushed", s, e->first_seq[s]));
    g_ptr_array_unref (files);
    g_array_unref (numbers);
  }
}

/* An event whose frames are all on disk: stopped on every stream, and the
 * ring's file with its last frame closed on each (or the run ended) */
static RingEvent *
next_ready (BenchRing * rg)
{
  guint i, s;

  for (i = 0; i < rg->events->len; i++) {
    RingEvent *e = g_ptr_array_index (rg->events, i);
    gboolean ready = !e->done && e->dir != NULL;

    for (s = 0; s < rg->n && ready; s++)
      ready = e->stopped[s] && (rg->ending || (rg->closed_last[s] != NONE
              && rg->closed_last[s] >= e->last_seq[s]));
    if (ready)
      return e;
  }
  return NULL;
}

static gpointer
checker_thread (gpointer user_data)
{
  BenchRing *rg = user_data;
  RingEvent *e;

  /* idle I/O class (ioprio_set(IOPRIO_WHO_PROCESS, this thread,
   * IOPRIO_CLASS_IDLE)): its reads wait for the disk to be idle */
  if (syscall (SYS_ioprio_set, 1, 0, 3 << 13) != 0)
    rg->ioprio_err = errno;
  g_mutex_lock (&rg->lock);
  for (;;) {
    if ((e = next_ready (rg)) == NULL) {
      if (rg->ending)
        break;
      g_cond_wait (&rg->cond, &rg->lock);
      continue;
    }
    e->out.trigger_ns = bench_trigger_at (rg->cfg, e->number);
    g_mutex_unlock (&rg->lock);
    check_event (rg, e);
    if (!rg->cfg->keep) {
      guint s, t;

      for (s = 0; s < rg->n; s++) {
        gboolean seen = FALSE;

        for (t = 0; t < s && e->dirs[s]; t++)
          seen |= e->dirs[t] && g_str_equal (e->dirs[t], e->dirs[s]);
        if (e->dirs[s] && !seen)
          bench_own_dir_remove (e->dirs[s]);
      }
      bench_own_dir_remove (e->dir);
    }
    g_mutex_lock (&rg->lock);
    e->out.verify_s = (bench_now () - e->stopped_at) / 1e9;
    e->done = TRUE;
  }
  g_mutex_unlock (&rg->lock);
  return NULL;
}

BenchRing *
bench_ring_new (const BenchConfig * cfg, const gchar * keep, gchar ** ring,
    BenchLog ** logs)
{
  BenchRing *rg = g_new0 (BenchRing, 1);
  guint i;

  rg->cfg = cfg;
  rg->keep = g_strdup (keep);
  rg->n = cfg->streams;
  rg->ring = g_strdupv (ring);
  rg->logs = g_memdup2 (logs, sizeof (BenchLog *) * rg->n);
  rg->events = g_ptr_array_new_with_free_func (event_free);
  rg->closed_last = g_new (guint64, rg->n);
  for (i = 0; i < rg->n; i++)
    rg->closed_last[i] = NONE;
  g_mutex_init (&rg->lock);
  g_cond_init (&rg->cond);
  return rg;
}

void
bench_ring_start (BenchRing * rg, gint64 t0, guint64 pre_record_ns)
{
  rg->t0 = t0;
  rg->pre_ns = pre_record_ns;
  rg->thread = g_thread_new ("ring-check", checker_thread, rg);
}

void
bench_ring_finish (BenchRing * rg, BenchResult * res)
{
  guint n = bench_trigger_count (rg->cfg), k, s;

  g_mutex_lock (&rg->lock);
  rg->ending = TRUE;
  g_cond_signal (&rg->cond);
  g_mutex_unlock (&rg->lock);
  if (rg->thread)
    g_thread_join (rg->thread);
  rg->thread = NULL;
  if (rg->ioprio_err)
    g_printerr ("rtframe-bench: the ring's checks at idle I/O priority: "
        "ioprio_set: %s\n", g_strerror (rg->ioprio_err));

  res->events = g_new0 (BenchEvent, n);
  res->n_events = n;
  for (k = 0; k < n; k++) {
    BenchEvent *out = &res->events[k];
    RingEvent *e = k < rg->events->len ?
        g_ptr_array_index (rg->events, k) : NULL;
    guint stopped = 0;

    out->ring = TRUE;
    out->trigger_ns = bench_trigger_at (rg->cfg, k);
    out->kept_s = -1;
    if (e == NULL) {
      out->verdict = g_strdup ("no recording");
      continue;
    }
    for (s = 0; s < rg->n; s++)
      stopped += e->stopped[s];
    if (!e->done) {
      *out = e->out;
      out->ring = TRUE;
      out->trigger_ns = bench_trigger_at (rg->cfg, k);
      out->verdict = g_strdup_printf ("stopped on %u of %u streams, not "
          "checked", stopped, rg->n);
    } else {
      *out = e->out;
      out->ring = TRUE;
      out->verdict = g_strdup (e->out.verdict ? e->out.verdict : "ok");
    }
    out->stopped = stopped == rg->n;
    out->files_pre = e->files_pre;
    out->kept_s = 0;
    for (s = 0; s < rg->n; s++) {
      if (e->kept_pre_at[s] == 0) {
        out->kept_s = -1;
        break;
      }
      out->kept_s = MAX (out->kept_s, (e->kept_pre_at[s] - rg->t0 -
              (gint64) out->trigger_ns) / 1e9);
    }
  }
}

void
bench_ring_free (BenchRing * rg)
{
  if (rg->thread) {
    g_mutex_lock (&rg->lock);
    rg->ending = TRUE;
    g_cond_signal (&rg->cond);
    g_mutex_unlock (&rg->lock);
    g_thread_join (rg->thread);
  }
  g_ptr_array_unref (rg->events);
  g_free (rg->closed_last);
  g_strfreev (rg->ring);
  g_free (rg->logs);
  g_free (rg->keep);
  g_mutex_clear (&rg->lock);
  g_cond_clear (&rg->cond);
  g_free (rg);
}

gchar *
bench_keep_pattern (const BenchConfig * cfg, const BenchSinkSpec * spec)
{
  gchar **p;

  for (p = spec->props; spec->kind == BENCH_RTFRAMESINK && p && *p; p++) {
    const gchar *v;

    if (!g_str_has_prefix (*p, "keep-location="))
      continue;
    v = *p + strlen ("keep-location=");
    if (v[0] != '@')
      return g_strdup (v);
    v++;
    if (*v == '\0')
      v = "events";
    return strchr (v, '%') ? g_build_filename (cfg->dir, v, NULL) :
        g_build_filename (cfg->dir, v, "event-%05d", NULL);
  }
  return NULL;
}

void
bench_keep_remove (const gchar * pattern)
{
  RtfPattern p;
  GDir *d;
  const gchar *name;
  guint64 n;

  if (!rtf_pattern_parse (pattern, &p))
    return;
  if ((d = g_dir_open (p.dir, 0, NULL)) != NULL) {
    while ((name = g_dir_read_name (d)) != NULL) {
      if (rtf_pattern_match (&p, name, &n)) {
        gchar *path = g_build_filename (p.dir, name, NULL);

        bench_own_dir_remove (path);
        g_free (path);
      }
    }
    g_dir_close (d);
    g_rmdir (p.dir);
  }
  rtf_pattern_clear (&p);
}
