/* The recording rules, against a model: sequences of start, stop and
 * extend requests at drawn running times, made from a thread of their own
 * while the streaming thread pushes frames fast, paced, or with stalls;
 * every answer must be the model's (recording-model.c), whatever the
 * timing, and the frames written - live, pre-recorded, each recording's
 * first - exactly the ones the model says, given where the frames were
 * when each request came (the reply's "position").  The same draw runs
 * under two timings: where no request came after the frames passed its
 * time, the two recordings hold the same frames.
 *
 * RTF_RULES_SEED=0x... runs one draw again; RTF_RULES_DRAWS=N sets how
 * many (default 60). */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "recording-model.h"
#include "rtf-index.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* 20 frames a second: 50 ms apart */
#define CAPS "video/x-raw,format=GRAY8,width=64,height=16,framerate=20/1"
#define MS GST_MSECOND
#define FRAME_NS (50 * MS)
#define MAX_REQ 16

typedef enum
{
  TIMING_FAST,                  /* frames back to back */
  TIMING_PACED,                 /* 2 ms apart */
  TIMING_STALLS,                /* now and then the streaming thread stops */
  N_TIMINGS
} Timing;

static const gchar *const timing_names[] = { "fast", "paced", "stalls" };

typedef struct
{
  ModelKind kind;
  guint64 t, at;                /* G_MAXUINT64: now */
  guint wait_us;                /* before it is made */
} Req;

typedef struct
{
  guint64 seed;
  guint n_frames;
  gboolean record;
  guint64 pre;
  guint n_req;
  Req req[MAX_REQ];
} Draw;

/* What the sink said of a request */
typedef struct
{
  gboolean accepted, passed;
  guint64 running_time, recording_at, position, serial;
} Said;

/* What a run left on disk, per frame */
typedef struct
{
  guint written;                /* times it was found (1 at most) */
  gboolean start, prerecorded;
} Found;

/* ---- a run --------------------------------------------------------------- */

typedef struct
{
  GstHarness *h;
  GstBufferPool *pool;          /* the sink's: frames held as they are */
  const Draw *d;
  Timing timing;
  GRand *rand;
  Said said[MAX_REQ];
  gint requests_done;
} Run;

/* Frame i from the sink's pool, stamped and pushed: its running time
 * i * 50 ms, upstream's offset i (what the index keeps) */
static void
push_frame (GstHarness * h, GstBufferPool * pool, guint i)
{
  GstBuffer *buf = NULL;
  GstMapInfo map;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  rtf_test_fill_frame (map.data, map.size, 0, i);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  GST_BUFFER_OFFSET (buf) = i;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
}

static gpointer
request_thread (gpointer data)
{
  Run *run = data;
  static const gchar *const names[] = { "start", "stop", "extend" };
  guint i;

  for (i = 0; i < run->d->n_req; i++) {
    const Req *q = &run->d->req[i];
    GstStructure *req = gst_structure_new ("request", "action", G_TYPE_STRING,
        names[q->kind], NULL), *reply = NULL;
    Said *s = &run->said[i];

    if (q->t != G_MAXUINT64)
      gst_structure_set (req, "running-time", G_TYPE_UINT64, q->t, NULL);
    if (q->kind == MODEL_EXTEND)
      gst_structure_set (req, "recording-at", G_TYPE_UINT64, q->at, NULL);
    g_usleep (q->wait_us);
    g_signal_emit_by_name (run->h->element, "request-recording", req, &reply);
    fail_unless (reply != NULL);
    fail_unless (gst_structure_get (reply, "accepted", G_TYPE_BOOLEAN,
            &s->accepted, "passed", G_TYPE_BOOLEAN, &s->passed,
            "running-time", G_TYPE_UINT64, &s->running_time, "position",
            G_TYPE_UINT64, &s->position, NULL));
    if (!gst_structure_get_uint64 (reply, "recording-at", &s->recording_at))
      s->recording_at = 0;
    if (!gst_structure_get_uint64 (reply, "serial", &s->serial))
      s->serial = 0;
    gst_structure_free (reply);
    gst_structure_free (req);
  }
  g_atomic_int_set (&run->requests_done, 1);
  return NULL;
}

static void
push_frames (Run * run)
{
  guint i;

  for (i = 0; i < run->d->n_frames; i++) {
    push_frame (run->h, run->pool, i);
    if (run->timing == TIMING_PACED)
      g_usleep (2000);
    else if (run->timing == TIMING_STALLS && g_rand_int_range (run->rand, 0,
            10) == 0)
      g_usleep (g_rand_int_range (run->rand, 5000, 60000));
  }
  /* requests after the last frame change nothing written: they end first */
  while (!g_atomic_int_get (&run->requests_done))
    g_usleep (1000);
}

/* The pool the sink proposes: a camera that takes it (v4l2src, aravissrc
 * with a downstream pool) has its frames held as they are, none copied
 * into memory shared with a backlog being written, so what is held never
 * depends on the writer's pace */
static GstBufferPool *
sink_pool (GstHarness * h)
{
  GstCaps *caps = gst_caps_from_string (CAPS);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_query_unref (query);
  gst_caps_unref (caps);
  return pool;
}

/* Every file of the set, its index read: what became of each frame */
static Found *
read_back (const gchar * dir, guint n_frames)
{
  Found *f = g_new0 (Found, n_frames);
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  fail_unless (d != NULL);
  while ((name = g_dir_read_name (d))) {
    gchar *path, *ipath;
    RtfIndex *idx;
    GError *error = NULL;
    guint64 i;

    if (!g_str_has_suffix (name, ".raw"))
      continue;
    path = g_build_filename (dir, name, NULL);
    ipath = rtf_index_path (path);
    idx = rtf_index_load (ipath, &error);
    fail_unless (idx != NULL, "%s: %s", ipath, error ? error->message : "");
    for (i = 0; i < idx->n_records; i++) {
      const RtfIndexRecord *r = &idx->records[i];

      fail_unless (r->upstream_offset < n_frames);
      f[r->upstream_offset].written++;
      f[r->upstream_offset].start = !!(r->flags & RTF_INDEX_REC_EVENT_START);
      f[r->upstream_offset].prerecorded =
          !!(r->flags & RTF_INDEX_REC_PRERECORDED);
    }
    rtf_index_free (idx);
    g_free (ipath);
    g_free (path);
  }
  g_dir_close (d);
  return f;
}

static Found *
run_draw (const Draw * d, Timing timing, const gchar * dir, Said * said)
{
  gchar *props = g_strdup_printf ("record=%s pre-record-time=%"
      G_GUINT64_FORMAT " index=true", d->record ? "true" : "false", d->pre);
  gchar *location = g_build_filename (dir, "ev-%05d.raw", NULL);
  Run run = { 0 };
  GstBus *bus;
  GThread *t;
  Found *found;

  g_mkdir_with_parents (dir, 0755);
  run.d = d;
  run.timing = timing;
  run.rand = g_rand_new_with_seed ((guint32) d->seed ^ timing);
  run.h = rtf_test_sink_new (location, props, CAPS, &bus);
  gst_harness_play (run.h);
  run.pool = sink_pool (run.h);
  t = g_thread_new ("requests", request_thread, &run);
  push_frames (&run);
  g_thread_join (t);
  fail_unless (gst_harness_push_event (run.h, gst_event_new_eos ()));
  rtf_test_sink_free (run.h, bus);
  gst_buffer_pool_set_active (run.pool, FALSE);
  gst_object_unref (run.pool);
  memcpy (said, run.said, sizeof run.said);
  found = read_back (dir, d->n_frames);
  g_rand_free (run.rand);
  g_free (location);
  g_free (props);
  return found;
}

/* ---- the model ----------------------------------------------------------- */

static guint
hold_max (const Draw * d)
{
  /* pre-record-time at the caps' rate, and two (gstrtframerecord.c) */
  return d->pre ? (guint) ((d->pre * 20 + GST_SECOND - 1) / GST_SECOND) + 2 : 0;
}

/* What the model says of each frame, the requests applied where the
 * sink said the frames were; every answer checked */
static Found *
model_of (const Draw * d, const Said * said, GString * log)
{
  RecModel *m = rec_model_new (d->record, d->pre, hold_max (d));
  Found *f = g_new0 (Found, d->n_frames);
  const GArray *bl;
  guint i, r = 0, b;

  for (i = 0; i <= d->n_frames; i++) {
    guint64 pos = i * FRAME_NS;
    ModelFrame mf;

    while (r < d->n_req && (i == d->n_frames
            || said[r].position == G_MAXUINT64 || said[r].position < pos)) {
      const Req *q = &d->req[r];
      guint64 serial = 0;
      gboolean ok;

      /* (times as the sink took them: "now" resolved) */
      ok = rec_model_request (m, q->kind, said[r].running_time,
          said[r].recording_at, &serial);
      g_string_append_printf (log, "  request %u %s at %" G_GUINT64_FORMAT
          " (%s): sink %s, model %s, position %" G_GINT64_FORMAT "\n", r,
          q->kind == MODEL_START ? "start" : q->kind == MODEL_STOP ? "stop" :
          "extend", said[r].running_time, q->t == G_MAXUINT64 ? "now" :
          "given", said[r].accepted ? "yes" : "no", ok ? "yes" : "no",
          (gint64) said[r].position);
      fail_unless (ok == said[r].accepted, "request %u: the sink %s it, the "
          "model %s it\n%s", r, said[r].accepted ? "took" : "refused",
          ok ? "takes" : "refuses", log->str);
      if (ok)
        fail_unless_equals_uint64 (serial, said[r].serial);
      r++;
    }
    if (i == d->n_frames)
      break;
    rec_model_frame (m, i, pos, &mf);
    f[i].written = mf.written;
    f[i].start = mf.starts;
  }
  bl = rec_model_backlog (m);
  for (b = 0; b < bl->len; b++) {
    const ModelBacklog *x = &g_array_index (bl, ModelBacklog, b);

    f[x->index].written++;
    f[x->index].prerecorded = TRUE;
    f[x->index].start = x->first;
  }
  rec_model_free (m);
  return f;
}

static void
compare (const Draw * d, const Found * want, const Found * got,
    const gchar * what, const GString * log)
{
  guint i;

  for (i = 0; i < d->n_frames; i++) {
    fail_unless (want[i].written == got[i].written
        && (!got[i].written || (want[i].start == got[i].start
                && want[i].prerecorded == got[i].prerecorded)),
        "seed 0x%" G_GINT64_MODIFIER "x, %s: frame %u (running time %u ms): "
        "want written %u start %d pre-recorded %d, found %u %d %d\n%s",
        d->seed, what, i, i * 50, want[i].written, want[i].start,
        want[i].prerecorded, got[i].written, got[i].start, got[i].prerecorded,
        log->str);
  }
}

/* ---- draws --------------------------------------------------------------- */

static void
draw (Draw * d, guint64 seed)
{
  GRand *r = g_rand_new_with_seed_array ((const guint32 *) &seed, 2);
  guint i;
  guint64 end;

  memset (d, 0, sizeof *d);
  d->seed = seed;
  d->n_frames = g_rand_int_range (r, 20, 160);
  end = (guint64) d->n_frames * FRAME_NS;
  d->record = g_rand_int_range (r, 0, 4) == 0;
  if (g_rand_boolean (r))
    d->pre = g_rand_int_range (r, 1, 40) * 25 * MS;
  d->n_req = g_rand_int_range (r, 1, MAX_REQ + 1);
  for (i = 0; i < d->n_req; i++) {
    Req *q = &d->req[i];
    gint k = g_rand_int_range (r, 0, 20);

    q->kind = k < 10 ? MODEL_START : k < 16 ? MODEL_STOP : MODEL_EXTEND;
    /* on a 25 ms grid: on frames and between them */
    q->t = g_rand_int_range (r, 0, 20) == 0 ? G_MAXUINT64 :
        (guint64) g_rand_int_range (r, 0, (gint) (end / (25 * MS)) + 4) *
        25 * MS;
    q->at = (guint64) g_rand_int_range (r, 0, (gint) (end / (25 * MS)) + 4) *
        25 * MS;
    q->wait_us = g_rand_int_range (r, 0, 8) == 0 ? 0 :
        g_rand_int_range (r, 0, 15000);
  }
  g_rand_free (r);
}

static gboolean
any_passed (const Draw * d, const Said * said)
{
  guint i;

  for (i = 0; i < d->n_req; i++)
    if (said[i].passed)
      return TRUE;
  return FALSE;
}

static void
check_draw (guint64 seed)
{
  Draw d;
  Said said[2][MAX_REQ];
  Found *got[2];
  Timing timings[2];
  guint k;

  draw (&d, seed);
  timings[0] = seed % N_TIMINGS;
  timings[1] = (seed / N_TIMINGS + 1 + timings[0]) % N_TIMINGS;
  if (timings[1] == timings[0])
    timings[1] = (timings[0] + 1) % N_TIMINGS;
  for (k = 0; k < 2; k++) {
    gchar *name = g_strdup_printf ("run-%" G_GINT64_MODIFIER "x-%u", seed, k);
    gchar *dir = rtf_test_tmp_path (name);
    GString *log = g_string_new (NULL);
    Found *want;

    g_string_append_printf (log, "seed 0x%" G_GINT64_MODIFIER "x, %u frames, "
        "record=%d, pre-record %" G_GUINT64_FORMAT " ms, timing %s\n", seed,
        d.n_frames, d.record, d.pre / MS, timing_names[timings[k]]);
    got[k] = run_draw (&d, timings[k], dir, said[k]);
    want = model_of (&d, said[k], log);
    compare (&d, want, got[k], timing_names[timings[k]], log);
    g_free (want);
    g_string_free (log, TRUE);
    g_free (dir);
    g_free (name);
  }
  /* the answers never depend on the timing; the frames neither, unless a
   * request came after the frames passed its time */
  for (k = 0; k < d.n_req; k++)
    fail_unless (said[0][k].accepted == said[1][k].accepted,
        "seed 0x%" G_GINT64_MODIFIER "x: request %u answered %d (%s) and %d "
        "(%s)", seed, k, said[0][k].accepted, timing_names[timings[0]],
        said[1][k].accepted, timing_names[timings[1]]);
  if (!any_passed (&d, said[0]) && !any_passed (&d, said[1])) {
    GString *log = g_string_new ("the two timings differ\n");

    compare (&d, got[0], got[1], "fast against slow", log);
    g_string_free (log, TRUE);
  }
  g_free (got[0]);
  g_free (got[1]);
}

GST_START_TEST (test_random_sequences)
{
  const gchar *one = g_getenv ("RTF_RULES_SEED");
  const gchar *n = g_getenv ("RTF_RULES_DRAWS");
  guint draws = n ? (guint) g_ascii_strtoull (n, NULL, 10) : 60, i;
  guint64 base = g_get_real_time ();

  if (one) {
    check_draw (g_ascii_strtoull (one, NULL, 0));
    return;
  }
  for (i = 0; i < draws; i++) {
    guint64 seed = base * 2654435761u + i * 0x9e3779b97f4a7c15ull;

    check_draw (seed);
  }
}

GST_END_TEST;

/* ---- the two sequences ----------------------------------------------------- */

/* One request through request-recording: accepted? (*position: where
 * the frames were) */
static gboolean
ask (GstElement * sink, const gchar * action, guint64 t, guint64 * position)
{
  GstStructure *req = gst_structure_new ("request", "action", G_TYPE_STRING,
      action, "running-time", G_TYPE_UINT64, t, NULL), *reply = NULL;
  gboolean ok = FALSE;

  g_signal_emit_by_name (sink, "request-recording", req, &reply);
  fail_unless (reply != NULL);
  fail_unless (gst_structure_get (reply, "accepted", G_TYPE_BOOLEAN, &ok,
          "position", G_TYPE_UINT64, position, NULL));
  gst_structure_free (reply);
  gst_structure_free (req);
  return ok;
}

/* start 1.0 s, stop 2.0 s, start 1.2 s: the last is inside the first
 * recording, refused whether it comes before the frames reach 1.0 s or
 * after they passed 1.5 s; the 20 frames from 1.0 s are written either
 * way */
static void
sequence_one (gboolean late, const gchar * dir)
{
  gchar *location = g_build_filename (dir, "ev-%05d.raw", NULL);
  GstHarness *h;
  GstBufferPool *pool;
  GstBus *bus;
  Found *f;
  guint i, written = 0, third_at = late ? 31 : 0;
  guint64 pos;

  g_mkdir_with_parents (dir, 0755);
  h = rtf_test_sink_new (location, "record=false index=true", CAPS, &bus);
  gst_harness_play (h);
  pool = sink_pool (h);
  fail_unless (ask (h->element, "start", 1000 * MS, &pos));
  fail_unless (ask (h->element, "stop", 2000 * MS, &pos));
  for (i = 0; i < 60; i++) {
    if (i == third_at) {
      fail_if (ask (h->element, "start", 1200 * MS, &pos));
      if (late)
        fail_unless_equals_uint64 (pos, 1500 * MS);
    }
    push_frame (h, pool, i);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_sink_free (h, bus);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  f = read_back (dir, 60);
  for (i = 0; i < 60; i++) {
    written += f[i].written;
    if (f[i].written)
      fail_unless (i >= 20 && i < 40, "frame %u written", i);
  }
  fail_unless_equals_int (written, 20);
  g_free (f);
  g_free (location);
}

GST_START_TEST (test_sequence_timing)
{
  gchar *early = rtf_test_tmp_path ("early"), *late = rtf_test_tmp_path
      ("late");

  sequence_one (FALSE, early);
  sequence_one (TRUE, late);
  g_free (early);
  g_free (late);
}

GST_END_TEST;

/* Twenty recordings asked after the frames passed them, each its backlog
 * alone, all started at one frame, before the writer tells the first:
 * each one's messages carry its own id */
GST_START_TEST (test_many_past_recordings_keep_their_ids)
{
  gchar *dir = rtf_test_tmp_path ("past");
  gchar *location = g_build_filename (dir, "ev-%05d.raw", NULL);
  GstHarness *h;
  GstBufferPool *pool;
  GstBus *bus;
  GList *msgs, *l;
  guint i, n = 0;

  g_mkdir_with_parents (dir, 0755);
  h = rtf_test_sink_new (location, "record=false index=true "
      "pre-record-time=5000000000", CAPS, &bus);
  gst_harness_play (h);
  pool = sink_pool (h);
  for (i = 0; i <= 90; i++) {
    if (i == 90) {
      guint r;

      for (r = 0; r < 20; r++) {
        gchar *id = g_strdup_printf ("r%u", r);
        GstStructure *req = gst_structure_new ("r", "action", G_TYPE_STRING,
            "start", "running-time", G_TYPE_UINT64,
            (guint64) (100 + 200 * r) * MS, "id", G_TYPE_STRING, id, NULL);
        GstStructure *reply = NULL;
        guint64 pos;

        g_signal_emit_by_name (h->element, "request-recording", req, &reply);
        fail_unless (reply != NULL);
        gst_structure_free (reply);
        gst_structure_free (req);
        fail_unless (ask (h->element, "stop", (200 + 200 * r) * MS, &pos));
        g_free (id);
      }
    }
    push_frame (h, pool, i);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs = rtf_test_pop_element_messages (bus, "rtframesink-recording-started");
  for (l = msgs; l; l = l->next, n++) {
    const GstStructure *st = gst_message_get_structure (l->data);
    guint64 number = G_MAXUINT64;
    gchar *want;

    fail_unless (gst_structure_get_uint64 (st, "number", &number));
    want = g_strdup_printf ("r%" G_GUINT64_FORMAT, number);
    fail_unless_equals_string (gst_structure_get_string (st, "id"), want);
    g_free (want);
  }
  fail_unless_equals_int (n, 20);
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  rtf_test_sink_free (h, bus);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  g_free (location);
  g_free (dir);
}

GST_END_TEST;

/* A split asked while idle, at a running time before a recording's
 * start: the recording's new file is that split - one file, not one more
 * at its first live frame */
GST_START_TEST (test_split_while_idle_is_the_recordings_file)
{
  gchar *dir = rtf_test_tmp_path ("split");
  gchar *location = g_build_filename (dir, "ev-%05d.raw", NULL);
  GstHarness *h;
  GstBufferPool *pool;
  GstBus *bus;
  Found *f;
  guint i, files = 0, written = 0;
  guint64 pos;
  GDir *d;
  const gchar *name;

  g_mkdir_with_parents (dir, 0755);
  h = rtf_test_sink_new (location, "record=false index=true "
      "pre-record-time=500000000", CAPS, &bus);
  gst_harness_play (h);
  pool = sink_pool (h);
  for (i = 0; i < 50; i++) {
    if (i == 20) {
      g_signal_emit_by_name (h->element, "split-at-running-time",
          (guint64) 1150 * MS);
      fail_unless (ask (h->element, "start", 1500 * MS, &pos));
      fail_unless (ask (h->element, "stop", 2000 * MS, &pos));
    }
    push_frame (h, pool, i);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_sink_free (h, bus);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  f = read_back (dir, 50);
  for (i = 0; i < 50; i++)
    written += f[i].written;
  fail_unless_equals_int (written, 20); /* 1.0-1.45 held, 1.5-1.95 */
  d = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (d)))
    files += g_str_has_suffix (name, ".raw");
  g_dir_close (d);
  fail_unless_equals_int (files, 1);
  g_free (f);
  g_free (location);
  g_free (dir);
}

GST_END_TEST;

static Suite *
recording_rules_suite (void)
{
  Suite *s = suite_create ("recording-rules");
  TCase *tc = rtf_test_tcase (s, "rules");

  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_sequence_timing);
  tcase_add_test (tc, test_many_past_recordings_keep_their_ids);
  tcase_add_test (tc, test_split_while_idle_is_the_recordings_file);
  tcase_add_test (tc, test_random_sequences);
  return s;
}

GST_CHECK_MAIN (recording_rules);
