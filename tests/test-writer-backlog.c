/* Unit tests of the writer engine as an event recorder: frames held
 * before a recording (numbered, some discarded), handed over as a backlog
 * at its start, live frames after them, the recording's end; real files in
 * $TMPDIR, both engines, frame sizes that exercise every write shape. */
#include "rtf-writer.h"
#include "rtf-pattern.h"
#include "rtf-recording.h"
#include "rtf-test-util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  RtfEngineKind engine;
  gsize size;
} Case;

#define MAX_SEQ 128

/* What the writer told */
typedef struct
{
  gpointer *mem;                /* per queue cell */
  gpointer ready[MAX_SEQ];      /* frames filled ahead, per number */
  gint released;
  gint unpinned;
  gint64 submit_ns[MAX_SEQ];    /* per frame number */
  GMutex lock;
  guint started, stopped;
  RtfRecordingInfo start[4], stop[4];
  gchar *start_path[4], *stop_path[4];
} Ctx;

static void
frame_done (RtfFrame * f, gpointer user_data)
{
  Ctx *ctx = user_data;

  free (ctx->mem[f->cell]);
  ctx->mem[f->cell] = NULL;
  if (f->seq < MAX_SEQ)
    ctx->submit_ns[f->seq] = f->submit_ns;
  g_atomic_int_inc (&ctx->released);
}

static void
frame_unpinned (RtfFrame * f, gpointer user_data)
{
  Ctx *ctx = user_data;

  /* what it held may go: the frame is reported later */
  g_assert_cmpint (f->state, ==, RTF_FRAME_WRITTEN);
  free (ctx->mem[f->cell]);
  ctx->mem[f->cell] = NULL;
  g_atomic_int_inc (&ctx->unpinned);
}

static void
started (const RtfRecordingInfo * info, gpointer user_data)
{
  Ctx *ctx = user_data;

  g_mutex_lock (&ctx->lock);
  g_assert_cmpuint (ctx->started, <, 4);
  ctx->start[ctx->started] = *info;
  ctx->start_path[ctx->started++] = g_strdup (info->path);
  g_mutex_unlock (&ctx->lock);
}

static void
stopped (const RtfRecordingInfo * info, gpointer user_data)
{
  Ctx *ctx = user_data;

  g_mutex_lock (&ctx->lock);
  g_assert_cmpuint (ctx->stopped, <, 4);
  ctx->stop[ctx->stopped] = *info;
  ctx->stop_path[ctx->stopped++] = g_strdup (info->path);
  g_mutex_unlock (&ctx->lock);
}

static const RtfWriterCallbacks callbacks = {
  .frame_done = frame_done,
  .frame_unpinned = frame_unpinned,
  .recording_started = started,
  .recording_stopped = stopped,
};

static gpointer
run_writer (gpointer w)
{
  rtf_writer_run (w);
  return NULL;
}

/* Frames first..last filled ahead in aligned memory of their own: handing
 * them over is then as quick as a camera's */
static void
prepare (Ctx * ctx, gsize size, guint64 first, guint64 last)
{
  guint64 s;

  for (s = first; s <= last; s++) {
    void *p = NULL;

    g_assert_cmpint (posix_memalign (&p, 4096, size), ==, 0);
    rtf_test_fill_frame (p, size, 0, s);
    ctx->ready[s] = p;
  }
}

/* Frame f (number seq) in its memory prepared ahead */
static void
fill (Ctx * ctx, RtfFrame * f, gsize size, guint64 seq)
{
  gpointer p = ctx->ready[seq];

  g_assert_nonnull (p);
  ctx->ready[seq] = NULL;
  ctx->mem[f->cell] = p;
  f->iov[0] = (struct iovec) { p, size };
  f->n_iov = 1;
  f->format = "video/x-raw, format=(string)TEST";
}

static RtfFrameTimes
times_of (guint64 seq)
{
  RtfFrameTimes t;

  rtf_frame_times_clear (&t);
  t.arrival_ns = g_get_monotonic_time () * 1000;
  t.pts = t.running_time = seq * 50000000;
  return t;
}

/* Frame seq of the live stream (the number the writer gives it) */
static void
push_live (RtfWriter * w, Ctx * ctx, gsize size, guint64 seq)
{
  RtfFrameTimes t = times_of (seq);
  RtfFrame *f;

  g_assert_cmpint (rtf_writer_offer (w, size, RTF_LEAKY_NO, &t, NULL, &f), ==,
      RTF_OFFER_TAKEN);
  fill (ctx, f, size, seq);
  rtf_writer_commit (w, f);
  g_assert_cmpuint (f->seq, ==, seq);
}

/* Hands over the held frames first..last as the backlog of a recording */
static void
push_backlog (RtfWriter * w, Ctx * ctx, gsize size, guint64 first, guint64 last)
{
  guint64 s;

  for (s = first; s <= last; s++) {
    RtfFrameTimes t = times_of (s);
    RtfFrame *f;

    g_assert_cmpint (rtf_writer_offer_backlog (w, size, s, &t, NULL, &f), ==,
        RTF_OFFER_TAKEN);
    fill (ctx, f, size, s);
    if (s == first) {
      f->flags |= RTF_FRAME_EVENT_START;
      f->split = TRUE;
    }
    rtf_writer_commit (w, f);
  }
}

/* The file holds the frames numbered first..last, byte-exact, and its
 * index their records with these flags */
static void
assert_file (const gchar * path, gsize size, guint64 first, guint64 last,
    guint64 n_prerecorded)
{
  RtfIndex *idx;
  GError *error = NULL;
  gchar *bytes = NULL, *ipath = rtf_index_path (path);
  guint8 *want = g_malloc (size);
  gsize len = 0;
  guint64 i, n = last - first + 1;

  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  g_assert_cmpuint (len, ==, n * size);
  idx = rtf_index_load (ipath, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (idx->n_records, ==, n);
  for (i = 0; i < n; i++) {
    const RtfIndexRecord *r = &idx->records[i];

    rtf_test_fill_frame (want, size, 0, first + i);
    g_assert_true (memcmp (want, bytes + i * size, size) == 0);
    g_assert_cmpuint (r->seq, ==, first + i);
    g_assert_cmpuint (r->offset, ==, i * size);
    g_assert_cmpuint (!!(r->flags & RTF_INDEX_REC_PRERECORDED), ==,
        i < n_prerecorded);
    g_assert_cmpuint (!!(r->flags & RTF_INDEX_REC_EVENT_START), ==, i == 0);
  }
  rtf_index_free (idx);
  g_free (bytes);
  g_free (want);
  g_free (ipath);
}

/* Two recordings: 30 frames held, the 10 oldest discarded, 20 handed over
 * at the start, 10 live after them; 5 held and discarded between; then a
 * backlog of 3 and 2 live frames.  Each recording is one file of the set,
 * beginning with its backlog, byte-exact; the first file's name was never
 * touched before the first recording reached it. */
static void
test_two_recordings (gconstpointer data)
{
  const Case *c = data;
  gchar *dir = rtf_test_tmpdir_new ("rtframe-backlog");
  gchar *pattern = g_build_filename (dir, "event-%03d.raw", NULL);
  gchar *f0 = rtf_pattern_format (pattern, 0);
  gchar *f1 = rtf_pattern_format (pattern, 1);
  gchar *f2 = rtf_pattern_format (pattern, 2);
  RtfWriterConfig cfg = {
    .location = pattern,.engine = c->engine,.direct = RTF_DIRECT_AUTO,
    .io_depth = 4,.max_frames = 8,.preallocate = 1 << 20,.index = TRUE,
    .sync_interval = 1,.rotate = TRUE,.backlog_frames = 24,
    .first_file_ahead = TRUE,
  };
  RtfWriterStats st;
  Ctx ctx = { 0 };
  RtfWriter *w;
  GThread *t;
  guint64 s;
  gint e = 0;
  guint i;

  g_mutex_init (&ctx.lock);
  w = rtf_writer_new (&cfg, &callbacks, &ctx, &e, NULL);
  g_assert_nonnull (w);
  ctx.mem = g_new0 (gpointer, rtf_queue_capacity (rtf_writer_get_queue (w)));
  g_assert_cmpuint (rtf_queue_capacity (rtf_writer_get_queue (w)), ==, 32);
  t = g_thread_new ("writer", run_writer, w);
  g_assert_cmpint (rtf_writer_wait_started (w), ==, 0);

  prepare (&ctx, c->size, 10, 46);
  /* held before the first recording: the 10 oldest pushed out */
  for (i = 0; i < 30; i++)
    g_assert_cmpuint (rtf_writer_hold (w, c->size, NULL), ==, i);
  for (i = 0; i < 10; i++)
    rtf_writer_discard (w, c->size);
  push_backlog (w, &ctx, c->size, 10, 29);
  for (i = 0; i < 10; i++)
    push_live (w, &ctx, c->size, 30 + i);
  rtf_writer_end_recording (w, 39);
  /* between recordings */
  for (i = 0; i < 5; i++) {
    s = rtf_writer_hold (w, c->size, NULL);
    g_assert_cmpuint (s, ==, 40 + i);
  }
  for (i = 0; i < 2; i++) {
    rtf_writer_discard (w, c->size);
    free (ctx.ready[40 + i]);
    ctx.ready[40 + i] = NULL;
  }
  push_backlog (w, &ctx, c->size, 42, 44);
  for (i = 0; i < 2; i++)
    push_live (w, &ctx, c->size, 45 + i);
  rtf_writer_end_recording (w, 46);
  g_assert_cmpint (rtf_writer_sync (w), ==, 0);
  rtf_writer_get_stats (w, &st);
  rtf_writer_shutdown (w);
  g_thread_join (t);

  g_assert_cmpuint (st.frames_received, ==, 47);
  g_assert_cmpuint (st.frames_written, ==, 35);
  g_assert_cmpuint (st.frames_lost, ==, 0);
  g_assert_cmpuint (st.frames_discarded, ==, 12);
  g_assert_cmpint (ctx.released, ==, 35);

  assert_file (f0, c->size, 10, 39, 20);
  assert_file (f1, c->size, 42, 46, 3);
  g_assert_false (g_file_test (f2, G_FILE_TEST_EXISTS));

  g_assert_cmpuint (ctx.started, ==, 2);
  g_assert_cmpuint (ctx.stopped, ==, 2);
  g_assert_cmpuint (ctx.start[0].number, ==, 0);
  g_assert_cmpuint (ctx.start[0].first_seq, ==, 10);
  g_assert_cmpstr (ctx.start_path[0], ==, f0);
  g_assert_cmpuint (ctx.stop[0].last_seq, ==, 39);
  g_assert_cmpuint (ctx.stop[0].frames, ==, 30);
  g_assert_cmpuint (ctx.stop[0].prerecorded, ==, 20);
  g_assert_cmpuint (ctx.stop[0].bytes, ==, 30 * c->size);
  g_assert_cmpstr (ctx.stop_path[0], ==, f0);
  g_assert_cmpuint (ctx.start[1].number, ==, 1);
  g_assert_cmpuint (ctx.start[1].first_seq, ==, 42);
  g_assert_cmpstr (ctx.start_path[1], ==, f1);
  g_assert_cmpuint (ctx.stop[1].frames, ==, 5);
  g_assert_cmpuint (ctx.stop[1].prerecorded, ==, 3);

  /* Live frames do not wait for the backlog: the first was submitted
   * before the backlog's last (20 frames, half the turns).  Not for
   * frames under two blocks: each HEAD waits for the frame before. */
  if (c->size >= 2 * 4096)
    g_assert_cmpint (ctx.submit_ns[30], <, ctx.submit_ns[29]);

  for (i = 0; i < 4; i++) {
    g_free (ctx.start_path[i]);
    g_free (ctx.stop_path[i]);
  }
  rtf_writer_free (w);
  g_free (ctx.mem);
  g_mutex_clear (&ctx.lock);
  rtf_test_tmpdir_free (dir);
  g_free (pattern);
  g_free (f0);
  g_free (f1);
  g_free (f2);
}

/* An event recorder that never recorded leaves nothing, and what the first
 * file's name held before is left as it was */
static void
test_never_started (gconstpointer data)
{
  const Case *c = data;
  gchar *dir = rtf_test_tmpdir_new ("rtframe-backlog");
  gchar *pattern = g_build_filename (dir, "event-%03d.raw", NULL);
  gchar *f0 = rtf_pattern_format (pattern, 0);
  gchar *f1 = rtf_pattern_format (pattern, 1);
  RtfWriterConfig cfg = {
    .location = pattern,.engine = c->engine,.io_depth = 2,.max_frames = 4,
    .preallocate = 1 << 20,.index = TRUE,.rotate = TRUE,.backlog_frames = 4,
    .first_file_ahead = TRUE,
  };
  Ctx ctx = { 0 };
  RtfWriterStats st;
  RtfWriter *w;
  GThread *t;
  gchar *bytes = NULL;
  gsize len = 0;
  gint e = 0;
  guint i;

  g_assert_true (g_file_set_contents (f0, "not a recording", -1, NULL));
  g_mutex_init (&ctx.lock);
  w = rtf_writer_new (&cfg, &callbacks, &ctx, &e, NULL);
  g_assert_nonnull (w);
  ctx.mem = g_new0 (gpointer, rtf_queue_capacity (rtf_writer_get_queue (w)));
  t = g_thread_new ("writer", run_writer, w);
  g_assert_cmpint (rtf_writer_wait_started (w), ==, 0);
  for (i = 0; i < 6; i++) {
    rtf_writer_hold (w, c->size, NULL);
    rtf_writer_discard (w, c->size);
  }
  g_assert_cmpint (rtf_writer_sync (w), ==, 0);
  rtf_writer_get_stats (w, &st);
  rtf_writer_shutdown (w);
  g_thread_join (t);
  rtf_writer_free (w);

  g_assert_cmpuint (st.frames_received, ==, 6);
  g_assert_cmpuint (st.frames_discarded, ==, 6);
  g_assert_cmpuint (st.frames_written, ==, 0);
  g_assert_cmpuint (ctx.started, ==, 0);
  g_assert_true (g_file_get_contents (f0, &bytes, &len, NULL));
  g_assert_cmpstr (bytes, ==, "not a recording");
  g_free (bytes);
  g_assert_false (g_file_test (f1, G_FILE_TEST_EXISTS));
  /* nothing of the writer's beside it: no index, no hidden file */
  {
    GDir *d = g_dir_open (dir, 0, NULL);
    const gchar *name;
    guint n = 0;

    while ((name = g_dir_read_name (d)) != NULL)
      n++;
    g_dir_close (d);
    g_assert_cmpuint (n, ==, 1);
  }
  g_free (ctx.mem);
  g_mutex_clear (&ctx.lock);
  rtf_test_tmpdir_free (dir);
  g_free (pattern);
  g_free (f0);
  g_free (f1);
}

/* Stopped (shutdown) while most of a backlog waits for its turn: every
 * frame handed over is written, in order */
static void
test_shutdown_during_backlog (gconstpointer data)
{
  const Case *c = data;
  gchar *dir = rtf_test_tmpdir_new ("rtframe-backlog");
  gchar *path = g_build_filename (dir, "one.raw", NULL);
  RtfWriterConfig cfg = {
    .location = path,.engine = c->engine,.direct = RTF_DIRECT_AUTO,
    .io_depth = 2,.max_frames = 4,.preallocate = 1 << 20,.index = TRUE,
    .backlog_frames = 16,
  };
  Ctx ctx = { 0 };
  RtfWriterStats st;
  RtfWriter *w;
  GThread *t;
  gint e = 0;
  guint i;

  g_mutex_init (&ctx.lock);
  w = rtf_writer_new (&cfg, &callbacks, &ctx, &e, NULL);
  g_assert_nonnull (w);
  ctx.mem = g_new0 (gpointer, rtf_queue_capacity (rtf_writer_get_queue (w)));
  t = g_thread_new ("writer", run_writer, w);
  g_assert_cmpint (rtf_writer_wait_started (w), ==, 0);
  prepare (&ctx, c->size, 0, 16);
  for (i = 0; i < 16; i++)
    rtf_writer_hold (w, c->size, NULL);
  push_backlog (w, &ctx, c->size, 0, 15);
  push_live (w, &ctx, c->size, 16);
  rtf_writer_shutdown (w);
  g_thread_join (t);
  rtf_writer_get_stats (w, &st);
  rtf_writer_free (w);
  g_assert_cmpuint (st.frames_written, ==, 17);
  g_assert_cmpint (ctx.released, ==, 17);
  assert_file (path, c->size, 0, 16, 16);
  /* the end ends the recording */
  g_assert_cmpuint (ctx.stopped, ==, 1);
  g_assert_cmpuint (ctx.stop[0].frames, ==, 17);
  g_free (ctx.stop_path[0]);
  g_free (ctx.start_path[0]);
  g_free (ctx.mem);
  g_mutex_clear (&ctx.lock);
  rtf_test_tmpdir_free (dir);
  g_free (path);
}

int
main (int argc, char **argv)
{
  /* aligned; a TAIL the next HEAD takes over; large and unaligned; under
   * a block (every HEAD waits for the frame before) */
  static const gsize sizes[] = { 3 * 4096, 70001, 6220800, 1000 };
  static const struct
  {
    RtfEngineKind engine;
    const gchar *name;
  } engines[] = {
    {RTF_ENGINE_IO_URING, "io_uring"}, {RTF_ENGINE_PSYNC, "psync"}
  };
  Case *cases = g_new0 (Case, G_N_ELEMENTS (engines) * G_N_ELEMENTS (sizes));
  guint e, s, n = 0;
  gint ret;

  g_test_init (&argc, &argv, NULL);
  for (e = 0; e < G_N_ELEMENTS (engines); e++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      Case *c = &cases[n++];
      gchar *name;

      c->engine = engines[e].engine;
      c->size = sizes[s];
      name = g_strdup_printf ("/backlog/two-recordings/%s/%zu",
          engines[e].name, c->size);
      g_test_add_data_func (name, c, test_two_recordings);
      g_free (name);
      name = g_strdup_printf ("/backlog/shutdown-during-backlog/%s/%zu",
          engines[e].name, c->size);
      g_test_add_data_func (name, c, test_shutdown_during_backlog);
      g_free (name);
    }
    {
      gchar *name = g_strdup_printf ("/backlog/never-started/%s",
          engines[e].name);

      g_test_add_data_func (name, &cases[e * G_N_ELEMENTS (sizes)],
          test_never_started);
      g_free (name);
    }
  }
  ret = g_test_run ();
  g_free (cases);
  return ret;
}
