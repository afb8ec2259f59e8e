/* Unit tests of common/writer/rtf-writer-ring.c and the file helper's
 * ring (common/files/rtf-file-worker-ring.c) on the writer engine alone,
 * both engines, real files in $TMPDIR: the asks a producer makes beside
 * its frames (two recordings, overlapping in their files, and the floor
 * moving with every frame) against what is on disk after.  Under
 * `tools/test.sh --tsan` this is what shows the writer thread and the
 * file helper thread race-free while they keep and delete ring files
 * (the element's tests run GStreamer's threads, which ThreadSanitizer
 * cannot follow). */
#include "rtf-writer.h"
#include "rtf-pattern.h"
#include "rtf-recording.h"
#include "rtf-test-util.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_SIZE 3000
#define N_FRAMES 48
/* frames the ring holds before the newest: the producer's pre-record */
#define PRE 6

typedef struct
{
  gpointer *mem;                /* per queue slot */
  gint released;
  gint deleted;                 /* ring files deleted by the floor */
  gint kept[2];                 /* files linked, per recording */
  gint kept_errors;
  gint started, stopped;
  gchar *dirs[2];               /* each recording's directory */
  GMutex lock;                  /* dirs (file helper thread) */
} RingCtx;

/* What the producer asks: recording k keeps from[k] .. last[k], its
 * start asked as frame at_begin[k] is offered, its end as at_end[k] is */
static const guint64 from[2] = { 10, 24 };
static const guint64 last[2] = { 25, 33 };
static const guint64 at_begin[2] = { 18, 31 };
static const guint64 at_end[2] = { 26, 34 };

static void
frame_done (RtfFrame * f, gpointer user_data)
{
  RingCtx *rc = user_data;

  free (rc->mem[f->cell]);
  rc->mem[f->cell] = NULL;
  g_atomic_int_inc (&rc->released);
}

static void
failed (const RtfFailure * failure, gpointer user_data)
{
  g_error ("the writer failed: %s", g_strerror (failure->err));
}

static void
file_deleted (const RtfFileDeleted * info, gpointer user_data)
{
  RingCtx *rc = user_data;

  g_assert_cmpint (info->reason, ==, RTF_DELETE_RING);
  /* nothing a recording asked for goes before its file is linked: a
   * file with frames of one is deleted only after it was kept */
  g_atomic_int_inc (&rc->deleted);
}

static void
file_kept (const RtfFileKept * info, gpointer user_data)
{
  RingCtx *rc = user_data;

  g_assert_cmpint (info->error, ==, 0);
  g_assert_cmpuint (info->keep, <, 2);
  g_mutex_lock (&rc->lock);
  if (rc->dirs[info->keep] == NULL)
    rc->dirs[info->keep] = g_strdup (info->dir);
  g_assert_cmpstr (rc->dirs[info->keep], ==, info->dir);
  g_mutex_unlock (&rc->lock);
  g_atomic_int_inc (&rc->kept[info->keep]);
}

static void
recording_started (const RtfRecordingInfo * info, gpointer user_data)
{
  g_atomic_int_inc (&((RingCtx *) user_data)->started);
}

static void
recording_stopped (const RtfRecordingInfo * info, gpointer user_data)
{
  g_atomic_int_inc (&((RingCtx *) user_data)->stopped);
}

static const RtfWriterCallbacks callbacks = {
  .frame_done = frame_done,
  .failed = failed,
  .file_deleted = file_deleted,
  .file_kept = file_kept,
  .recording_started = recording_started,
  .recording_stopped = recording_stopped,
};

static gpointer
run_writer (gpointer w)
{
  rtf_writer_run (w);
  return NULL;
}

static void
offer (RtfWriter * w, RingCtx * rc, guint64 seq, gboolean split)
{
  RtfFrameTimes times;
  RtfFrame *f;
  void *p = NULL;

  rtf_frame_times_clear (&times);
  times.running_time = seq * 50000000;
  g_assert_cmpint (rtf_writer_offer (w, FRAME_SIZE, RTF_LEAKY_NO, &times,
          NULL, &f), ==, RTF_OFFER_TAKEN);
  g_assert_cmpint (posix_memalign (&p, 4096, FRAME_SIZE), ==, 0);
  rc->mem[f->cell] = p;
  rtf_test_fill_frame (p, FRAME_SIZE, 0, seq);
  f->iov[0] = (struct iovec) { p, FRAME_SIZE };
  f->n_iov = 1;
  /* (the caps: each file of the set holds frames of one format) */
  f->format = "video/x-raw, format=(string)GRAY8";
  f->split = split;
  rtf_writer_commit (w, f);
}

/* The producer's part, as the element's (gst/gstrtframering.c): the
 * frames, the recordings' asks as their frames come (the frame after a
 * recording's last starts a new file: its last file ends with it), and
 * the floor after every frame - no frame before the newest less PRE, nor
 * before a recording's first until it ended */
static void
produce (RtfWriter * w, RingCtx * rc)
{
  guint64 seq;
  guint k;

  for (seq = 0; seq < N_FRAMES; seq++) {
    guint64 floor = seq > PRE ? seq - PRE : 0;
    gboolean split = FALSE;

    for (k = 0; k < 2; k++) {
      if (seq == at_begin[k])
        rtf_writer_keep_begin (w, k, from[k], from[k] * 50000000,
            seq - from[k], seq);
      if (seq == at_end[k]) {
        RtfKeepInfo info = { 0 };

        info.keep = k;
        info.first_seq = from[k];
        info.last_seq = last[k];
        info.frames = last[k] - from[k] + 1;
        rtf_writer_keep_end (w, &info, seq);
        split = TRUE;
      }
      if (seq >= at_begin[k] - PRE && seq < at_end[k])
        floor = MIN (floor, from[k]);
    }
    offer (w, rc, seq, split);
    rtf_writer_ring_floor (w, floor);
  }
}

/* Recording k's directory holds its frames, each byte-exact once, and
 * only frames the ring wrote */
static void
check_recording (RingCtx * rc, guint k)
{
  gchar *pattern = g_build_filename (rc->dirs[k], "ring-%03d.raw", NULL);
  GError *error = NULL;
  RtfRecording *rec = rtf_recording_open (pattern, 0, TRUE, &error);
  guint8 *want = g_malloc (FRAME_SIZE);
  guint64 seen_first = G_MAXUINT64, seen_last = 0, n = 0;
  guint i, j;

  g_assert_no_error (error);
  for (i = 0; i < rec->n_files; i++) {
    RtfRecordingFile *f = &rec->files[i];
    gchar *bytes = NULL;
    gsize len = 0;

    g_assert_true (g_file_get_contents (f->path, &bytes, &len, NULL));
    g_assert_cmpuint (len, ==, f->index->n_records * FRAME_SIZE);
    for (j = 0; j < f->index->n_records; j++) {
      guint64 seq = f->index->records[j].seq;

      rtf_test_fill_frame (want, FRAME_SIZE, 0, seq);
      g_assert_true (memcmp (want, bytes + j * FRAME_SIZE, FRAME_SIZE) == 0);
      seen_first = MIN (seen_first, seq);
      seen_last = MAX (seen_last, seq);
      n++;
    }
    g_free (bytes);
  }
  /* whole files of the ring: from the file holding its first frame, to
   * its last frame (its last file split there) */
  g_assert_cmpuint (seen_first, <=, from[k]);
  g_assert_cmpuint (seen_last, ==, last[k]);
  g_assert_cmpuint (n, ==, seen_last - seen_first + 1);
  g_assert_cmpuint ((guint) g_atomic_int_get (&rc->kept[k]), ==, rec->n_files);
  rtf_recording_free (rec);
  g_free (want);
  g_free (pattern);
}

static void
test_ring (gconstpointer data)
{
  gchar *dir = rtf_test_tmpdir_new ("rtframe-ring");
  gchar *pattern = g_build_filename (dir, "ring-%03d.raw", NULL);
  gchar *keep = g_build_filename (dir, "ev-%03d", NULL);
  RtfWriterConfig cfg = { pattern, GPOINTER_TO_INT (data), RTF_DIRECT_AUTO,
    3, 6, 0, 1 << 20
  };
  RingCtx rc = { 0 };
  RtfRecording *ring;
  RtfWriterStats st;
  GError *error = NULL;
  RtfWriter *w;
  GThread *t;
  gint e = 0;
  guint k;

  g_mutex_init (&rc.lock);
  cfg.rotate = TRUE;
  cfg.max_file_size = 4 * FRAME_SIZE;
  cfg.index = TRUE;
  cfg.checksums = TRUE;
  cfg.first_file_ahead = TRUE;
  cfg.keep_location = keep;
  w = rtf_writer_new (&cfg, &callbacks, &rc, &e, NULL);
  g_assert_nonnull (w);
  rc.mem = g_new0 (gpointer, rtf_queue_capacity (rtf_writer_get_queue (w)));
  t = g_thread_new ("writer", run_writer, w);
  g_assert_cmpint (rtf_writer_wait_started (w), ==, 0);
  produce (w, &rc);
  g_assert_cmpint (rtf_writer_sync (w), ==, 0);
  rtf_writer_get_stats (w, &st);
  rtf_writer_shutdown (w);
  g_thread_join (t);

  g_assert_cmpuint (st.frames_written, ==, N_FRAMES);
  g_assert_cmpint (rc.released, ==, N_FRAMES);
  g_assert_cmpint (rc.started, ==, 2);
  g_assert_cmpint (rc.stopped, ==, 2);
  for (k = 0; k < 2; k++) {
    g_assert_nonnull (rc.dirs[k]);
    check_recording (&rc, k);
  }
  g_assert_cmpstr (rc.dirs[0], !=, rc.dirs[1]);
  /* the ring turned: its oldest files went, its newest are whole */
  g_assert_cmpint (rc.deleted, >, 0);
  ring = rtf_recording_open (pattern, 0, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ring->files[0].number, >, 0);
  g_assert_cmpuint (ring->files[ring->n_files -
          1].index->records[ring->files[ring->n_files - 1].index->n_records -
          1].seq, ==, N_FRAMES - 1);
  rtf_recording_free (ring);

  rtf_writer_free (w);
  for (k = 0; k < 2; k++)
    g_free (rc.dirs[k]);
  g_mutex_clear (&rc.lock);
  g_free (rc.mem);
  rtf_test_tmpdir_free (dir);
  g_free (keep);
  g_free (pattern);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/writer-ring/io_uring",
      GINT_TO_POINTER (RTF_ENGINE_IO_URING), test_ring);
  g_test_add_data_func ("/writer-ring/psync",
      GINT_TO_POINTER (RTF_ENGINE_PSYNC), test_ring);
  return g_test_run ();
}
