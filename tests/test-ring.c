/* gst-check tests of pre-record on disk (keep-location): every frame in a
 * ring of files, each recording kept by linking its files into its own
 * directory.  The recordings are checked against what the same requests
 * make of pre-record in memory (the same rules decide both), and what
 * each directory holds against the frames pushed. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recording-model.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* 512x256 GRAY16: 262144 bytes, 64 blocks */
#define CAPS "video/x-raw,format=GRAY16_LE,width=512,height=256,framerate=20/1"
#define FRAME 262144
#define MS GST_MSECOND
#define PTS(n) ((n) * 50 * MS)

static GstBuffer *
own_frame (guint stream, guint64 seq)
{
  guint8 *data = g_malloc (FRAME);
  GstBuffer *buf;

  rtf_test_fill_frame (data, FRAME, stream, seq);
  buf = gst_buffer_new_wrapped (data, FRAME);
  GST_BUFFER_PTS (buf) = PTS (seq);
  GST_BUFFER_DURATION (buf) = 50 * MS;
  return buf;
}

static guint64
field_u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, name, &v), "no %s in %"
      GST_PTR_FORMAT, name, s);
  return v;
}

/* What a sink told of its recordings */
typedef struct
{
  guint64 first, last, frames, prerecorded;
  gchar *location;              /* started: the file, or a ring's directory */
  gboolean stopped;
} Told;

#define MAX_TOLD 16

typedef struct
{
  Told told[MAX_TOLD];
  guint n;
  guint kept;                   /* rtframesink-file-kept */
  guint ring_deleted;           /* rtframesink-file-deleted by the ring */
} Heard;

static void
hear (Heard * heard, const GstStructure * s)
{
  Told *t;
  guint64 n;

  if (gst_structure_has_name (s, "rtframesink-file-kept")) {
    heard->kept++;
    return;
  }
  if (gst_structure_has_name (s, "rtframesink-file-deleted")) {
    if (g_strcmp0 (gst_structure_get_string (s, "reason"),
            "pre-record-time") == 0)
      heard->ring_deleted++;
    return;
  }
  if (!gst_structure_has_name (s, "rtframesink-recording-started")
      && !gst_structure_has_name (s, "rtframesink-recording-stopped"))
    return;
  n = field_u64 (s, "number");
  fail_unless (n < MAX_TOLD);
  heard->n = MAX (heard->n, (guint) n + 1);
  t = &heard->told[n];
  if (gst_structure_has_name (s, "rtframesink-recording-started")) {
    t->first = field_u64 (s, "first-frame");
    t->prerecorded = field_u64 (s, "prerecorded-frames");
    t->location = g_strdup (gst_structure_get_string (s, "location"));
  } else {
    fail_unless_equals_uint64 (field_u64 (s, "first-frame"), t->first);
    t->last = field_u64 (s, "last-frame");
    t->frames = field_u64 (s, "frames");
    fail_unless_equals_uint64 (field_u64 (s, "prerecorded-frames"),
        t->prerecorded);
    t->stopped = TRUE;
  }
}

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* Frame numbers held in dir's files of `base` (a pattern's file name),
 * each byte-exact (frames of stream 0); sorted, each once */
static GArray *
frames_in (const gchar * dir, const gchar * base_pattern, guint * n_files)
{
  gchar *pattern = g_build_filename (dir, base_pattern, NULL);
  GArray *seqs = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint8 *want = g_malloc (FRAME);
  RtfPattern p;
  GDir *d;
  const gchar *name;
  guint64 number;

  *n_files = 0;
  fail_unless (rtf_pattern_parse (pattern, &p));
  d = g_dir_open (dir, 0, NULL);
  fail_unless (d != NULL, "no directory %s", dir);
  while ((name = g_dir_read_name (d)) != NULL) {
    gchar *path, *ipath, *bytes = NULL;
    RtfIndex *idx;
    gsize len;
    guint64 i;

    if (!rtf_pattern_match (&p, name, &number))
      continue;
    path = g_build_filename (dir, name, NULL);
    ipath = rtf_index_path (path);
    /* (a file not of the ring, left where it was found) */
    if (!g_file_test (ipath, G_FILE_TEST_EXISTS)) {
      g_free (path);
      g_free (ipath);
      continue;
    }
    (*n_files)++;
    fail_unless (g_file_get_contents (path, &bytes, &len, NULL));
    idx = rtf_index_load (ipath, NULL);
    fail_unless (idx != NULL, "%s: no index", ipath);
    fail_unless_equals_uint64 (len, idx->n_records * FRAME);
    for (i = 0; i < idx->n_records; i++) {
      guint64 seq = idx->records[i].seq;

      rtf_test_fill_frame (want, FRAME, 0, seq);
      fail_unless (memcmp (want, bytes + i * FRAME, FRAME) == 0,
          "%s: record %" G_GUINT64_FORMAT " is not frame %" G_GUINT64_FORMAT,
          path, i, seq);
      g_array_append_val (seqs, seq);
    }
    rtf_index_free (idx);
    g_free (bytes);
    g_free (ipath);
    g_free (path);
  }
  g_dir_close (d);
  rtf_pattern_clear (&p);
  g_free (pattern);
  g_free (want);
  g_array_sort (seqs, compare_u64);
  return seqs;
}

static gboolean
holds_range (GArray * seqs, guint64 first, guint64 last)
{
  guint64 want = first;
  guint i;

  for (i = 0; i < seqs->len && want <= last; i++) {
    guint64 s = g_array_index (seqs, guint64, i);

    if (s == want)
      want++;
  }
  return want == last + 1;
}

/* The frames each recording asked for, by the recording rules' model
 * (tests/recording-model.c): first, last and how many, in the order the
 * recordings start */
typedef struct
{
  guint64 first, last, frames;
} Want;

static gint
by_first (gconstpointer a, gconstpointer b)
{
  const Want *x = a, *y = b;

  return x->first < y->first ? -1 : x->first > y->first;
}

static GArray *
model_recordings (const guint64 * starts, const guint64 * stops, guint n,
    guint64 pre, guint frames)
{
  RecModel *m = rec_model_new (FALSE, pre, 16384);
  GHashTable *by_serial = g_hash_table_new_full (g_int64_hash,
      g_int64_equal, g_free, g_free);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Want));
  const GArray *backlog;
  GHashTableIter it;
  gpointer v;
  guint64 serial;
  guint i;

  for (i = 0; i < n; i++) {
    fail_unless (rec_model_request (m, MODEL_START, starts[i] * MS, 0,
            &serial));
    if (stops[i])
      fail_unless (rec_model_request (m, MODEL_STOP, stops[i] * MS, 0,
              &serial));
  }
#define ADD(ser, idx) G_STMT_START { \
    Want *w = g_hash_table_lookup (by_serial, &(gint64) { (gint64) (ser) }); \
    if (w == NULL) { \
      w = g_new0 (Want, 1); \
      w->first = G_MAXUINT64; \
      g_hash_table_insert (by_serial, g_memdup2 (&(gint64) { (gint64) (ser) }, \
              sizeof (gint64)), w); \
    } \
    w->first = MIN (w->first, (guint64) (idx)); \
    w->last = w->first == G_MAXUINT64 ? (idx) : MAX (w->last, (guint64) (idx)); \
    w->frames++; \
  } G_STMT_END
  for (i = 0; i < frames; i++) {
    ModelFrame f;

    rec_model_frame (m, i, PTS (i), &f);
    if (f.written)
      ADD (f.serial, i);
  }
  backlog = rec_model_backlog (m);
  for (i = 0; i < backlog->len; i++) {
    const ModelBacklog *b = &g_array_index (backlog, ModelBacklog, i);

    ADD (b->serial, b->index);
  }
#undef ADD
  g_hash_table_iter_init (&it, by_serial);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_array_append_vals (out, v, 1);
  g_array_sort (out, by_first);
  g_hash_table_unref (by_serial);
  rec_model_free (m);
  return out;
}

/* Frames pushed fast, recordings asked ahead (two whose pre-record
 * reaches into the one before, two back to back, one that ends with the
 * stream): each
 * keeps exactly the frames the recording rules give it, each in its own
 * directory, byte-exact, in files of the ring (the same inodes: linked);
 * the ring keeps no more than pre-record-time and a file or two. */
GST_START_TEST (test_ring_as_the_rules_say)
{
  static const guint64 starts[] = { 3000, 3600, 5000, 5500, 8000, 9800 };
  static const guint64 stops[] = { 3500, 4000, 5500, 6000, 8200, 0 };
  gchar *ring = rtf_test_tmp_path ("ring-%05d.raw");
  gchar *keep = rtf_test_tmp_path ("events/event-%05d");
  gchar *dir = rtf_test_tmp_path (""), *props;
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  Heard heard = { 0 };
  guint i, n_files;
  GArray *seqs, *want;

  want = model_recordings (starts, stops, G_N_ELEMENTS (starts),
      1000 * MS, 200);
  props = g_strdup_printf ("record=false pre-record-time=1000000000 "
      "max-file-duration=200000000 keep-location=%s", keep);
  h = rtf_test_sink_new (ring, props, CAPS, &bus);
  gst_harness_play (h);
  for (i = 0; i < G_N_ELEMENTS (starts); i++) {
    gboolean ok = FALSE;

    g_signal_emit_by_name (h->element, "start-recording", starts[i] * MS, &ok);
    fail_unless (ok);
    if (stops[i] == 0)
      continue;
    g_signal_emit_by_name (h->element, "stop-recording", stops[i] * MS, &ok);
    fail_unless (ok);
  }
  for (i = 0; i < 200; i++)
    fail_unless_equals_int (gst_harness_push (h, own_frame (0, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  while ((msg = gst_bus_pop (bus)) != NULL) {
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT)
      hear (&heard, gst_message_get_structure (msg));
    gst_message_unref (msg);
  }
  gst_object_unref (bus);

  fail_unless_equals_int (heard.n, want->len);
  for (i = 0; i < heard.n; i++) {
    Told *r = &heard.told[i];
    Want *w = &g_array_index (want, Want, i);
    gchar *want_dir = rtf_pattern_format (keep, i);
    guint64 n;

    GST_INFO ("recording %u: frames %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
        " (%" G_GUINT64_FORMAT " held)", i, r->first, r->last, r->prerecorded);
    fail_unless (r->stopped, "recording %u not stopped", i);
    fail_unless_equals_uint64 (r->first, w->first);
    fail_unless_equals_uint64 (r->last, w->last);
    fail_unless_equals_uint64 (r->frames, w->frames);
    fail_unless_equals_string (r->location, want_dir);
    /* its directory holds every frame of it, byte-exact */
    seqs = frames_in (want_dir, "ring-%05d.raw", &n_files);
    fail_unless (holds_range (seqs, r->first, r->last),
        "%s lacks frames of %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT,
        want_dir, r->first, r->last);
    /* ... in whole files of the ring: at most one file's more each side,
     * and no frame of another recording (its files are that one's) */
    n = seqs->len;
    fail_unless (n <= r->last - r->first + 1 + 2 * 4, "%" G_GUINT64_FORMAT
        " frames kept for %" G_GUINT64_FORMAT, n, r->last - r->first + 1);
    {
      guint j, o;

      for (o = 0; o < heard.n; o++)
        for (j = 0; o != i && j < seqs->len; j++) {
          guint64 seq = g_array_index (seqs, guint64, j);

          fail_if (seq >= heard.told[o].first && seq <= heard.told[o].last,
              "%s holds frame %" G_GUINT64_FORMAT " of recording %u", want_dir,
              seq, o);
        }
    }
    g_array_unref (seqs);
    /* a set the readers read as it is */
    {
      gchar *set = g_build_filename (want_dir, "ring-%05d.raw", NULL), *out;

      fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", set,
              NULL), 0);
      g_free (out);
      g_free (set);
    }
    g_free (want_dir);
  }
  {
    gchar *out;

    fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", ring,
            NULL), 0);
    g_free (out);
  }
  /* 1 s before the first start: frames from 40 on */
  fail_unless_equals_uint64 (heard.told[0].first, 40);
  fail_unless (heard.kept > 0);
  fail_unless (heard.ring_deleted > 0);
  /* the ring turned: it holds about pre-record-time of frames */
  seqs = frames_in (dir, "ring-%05d.raw", &n_files);
  fail_unless (seqs->len <= 20 + 2 * 4, "the ring holds %u frames", seqs->len);
  fail_unless (holds_range (seqs, 180, 199));
  g_array_unref (seqs);

  for (i = 0; i < heard.n; i++)
    g_free (heard.told[i].location);
  g_array_unref (want);
  g_free (props);
  g_free (dir);
  g_free (ring);
  g_free (keep);
}

GST_END_TEST;

/* What the ring cannot be: each refused at start, saying why */
GST_START_TEST (test_ring_refused)
{
  gchar *ring = rtf_test_tmp_path ("ring-%05d.raw");
  gchar *one = rtf_test_tmp_path ("ring.raw");
  gchar *keep = rtf_test_tmp_path ("events/event-%05d");
  gchar *props;

  props = g_strdup_printf ("record=false keep-location=%s", keep);
  rtf_test_assert_start_fails ("rtframesink", ring, props,
      GST_RESOURCE_ERROR_SETTINGS, "set pre-record-time");
  g_free (props);
  props = g_strdup_printf ("record=false pre-record-time=1000000000 "
      "keep-location=%s", keep);
  rtf_test_assert_start_fails ("rtframesink", one, props,
      GST_RESOURCE_ERROR_SETTINGS, "needs location to be a pattern");
  g_free (props);
  props = g_strdup_printf ("record=false pre-record-time=1000000000 "
      "max-files=4 keep-location=%s", keep);
  rtf_test_assert_start_fails ("rtframesink", ring, props,
      GST_RESOURCE_ERROR_SETTINGS, "max-files");
  g_free (props);
  rtf_test_assert_start_fails ("rtframesink", ring, "record=false "
      "pre-record-time=1000000000 keep-location=/tmp/events",
      GST_RESOURCE_ERROR_SETTINGS, "by its number");
  /* another filesystem: /dev/shm is tmpfs (the tests' directory is not) */
  if (g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR)) {
    struct stat a, b;
    gchar *tmp = rtf_test_tmp_path ("");

    if (stat ("/dev/shm", &a) == 0 && stat (tmp, &b) == 0
        && a.st_dev != b.st_dev)
      rtf_test_assert_start_fails ("rtframesink", ring, "record=false "
          "pre-record-time=1000000000 keep-location=/dev/shm/ev-%05d",
          GST_RESOURCE_ERROR_SETTINGS, "on the filesystem");
    g_free (tmp);
  }
  g_free (ring);
  g_free (one);
  g_free (keep);
}

GST_END_TEST;

/* What is there is left alone.  The ring goes on after the files of its
 * pattern there (an earlier run's: recordings may keep them).  Each
 * recording makes a new directory: the numbers already there at the
 * start are passed over, and so is a name taken since (a directory of
 * someone else's, a link), each left exactly as it was. */
GST_START_TEST (test_ring_leaves_what_is_there)
{
  gchar *ring = rtf_test_tmp_path ("ring-%05d.raw");
  gchar *keep = rtf_test_tmp_path ("events/event-%05d");
  gchar *old = rtf_pattern_format (keep, 7);
  gchar *taken = rtf_pattern_format (keep, 8);
  gchar *link = rtf_pattern_format (keep, 9);
  gchar *mine = rtf_pattern_format (keep, 10);
  gchar *old_ring = rtf_pattern_format (ring, 3);
  gchar *theirs = g_build_filename (taken, "ring-00005.raw", NULL);
  gchar *target = rtf_test_tmp_path ("elsewhere");
  gchar *props, *got = NULL;
  guint64 first_index = G_MAXUINT64;
  gboolean ok = FALSE;
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  guint i, n_files, started = 0;
  GArray *seqs;

  fail_unless (g_mkdir_with_parents (old, 0755) == 0);
  fail_unless (g_mkdir_with_parents (target, 0755) == 0);
  fail_unless (g_file_set_contents (old_ring, "an earlier ring's", -1, NULL));
  props = g_strdup_printf ("record=false pre-record-time=500000000 "
      "max-file-duration=200000000 keep-location=%s", keep);
  h = rtf_test_sink_new (ring, props, CAPS, &bus);
  gst_harness_play (h);
  for (i = 0; i < 12; i++)
    fail_unless_equals_int (gst_harness_push (h, own_frame (0, i)),
        GST_FLOW_OK);
  /* since the start: a directory of someone else's at 8, a link at 9 */
  fail_unless (g_mkdir_with_parents (taken, 0755) == 0);
  fail_unless (g_file_set_contents (theirs, "not a frame", -1, NULL));
  fail_unless (symlink (target, link) == 0);
  g_signal_emit_by_name (h->element, "start-recording", PTS (12), &ok);
  fail_unless (ok);
  for (i = 12; i < 20; i++)
    fail_unless_equals_int (gst_harness_push (h, own_frame (0, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  while ((msg = gst_bus_pop (bus)) != NULL) {
    const GstStructure *st = gst_message_get_structure (msg);

    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING);
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    if (st && gst_structure_has_name (st, "rtframesink-recording-started")) {
      fail_unless_equals_string (gst_structure_get_string (st, "location"),
          mine);
      started++;
    }
    if (st && gst_structure_has_name (st, "rtframesink-file-opened")) {
      guint64 index = G_MAXUINT64;

      fail_unless (gst_structure_get_uint64 (st, "index", &index));
      first_index = MIN (first_index, index);
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  fail_unless_equals_int (started, 1);
  /* left as they were */
  fail_unless (g_file_get_contents (theirs, &got, NULL, NULL));
  fail_unless_equals_string (got, "not a frame");
  g_free (got);
  fail_unless (g_file_get_contents (old_ring, &got, NULL, NULL));
  fail_unless_equals_string (got, "an earlier ring's");
  g_free (got);
  fail_unless (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  {
    GDir *d = g_dir_open (target, 0, NULL);

    fail_unless (d != NULL && g_dir_read_name (d) == NULL);
    g_dir_close (d);
  }
  /* the ring began after the earlier ring's file */
  fail_unless_equals_uint64 (first_index, 4);
  /* the recording: frames 2 (500 ms before 600 ms) to 19, in its own */
  seqs = frames_in (mine, "ring-%05d.raw", &n_files);
  fail_unless (holds_range (seqs, 2, 19));
  g_array_unref (seqs);
  g_free (props);
  g_free (old);
  g_free (taken);
  g_free (link);
  g_free (mine);
  g_free (old_ring);
  g_free (theirs);
  g_free (target);
  g_free (ring);
  g_free (keep);
}

GST_END_TEST;

/* A recording's directory deleted by its user (the link count and ctime
 * of every file it kept move) does not stop the ring turning: the ring's
 * names of those files still go as their frames age */
GST_START_TEST (test_ring_turns_after_a_recording_is_deleted)
{
  gchar *ring = rtf_test_tmp_path ("ring-%05d.raw");
  gchar *keep = rtf_test_tmp_path ("events/event-%05d");
  gchar *dir = rtf_test_tmp_path (""), *first_dir, *props, *cmd;
  gboolean ok = FALSE;
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  guint i, n_files, deleted_after = 0, warnings = 0, after = 0;
  gboolean gone = FALSE, stopped = FALSE;
  GArray *seqs;

  props = g_strdup_printf ("record=false pre-record-time=500000000 "
      "max-file-duration=200000000 keep-location=%s", keep);
  h = rtf_test_sink_new (ring, props, CAPS, &bus);
  gst_harness_play (h);
  g_signal_emit_by_name (h->element, "start-recording", PTS (10), &ok);
  fail_unless (ok);
  g_signal_emit_by_name (h->element, "stop-recording", PTS (14), &ok);
  fail_unless (ok);
  first_dir = rtf_pattern_format (keep, 0);
  /* 60 frames after the recording's user deleted it */
  for (i = 0; i < 600 && (!gone || after < 60); i++, after += gone) {
    fail_unless_equals_int (gst_harness_push (h, own_frame (0, i)),
        GST_FLOW_OK);
    while ((msg = gst_bus_pop (bus)) != NULL) {
      const GstStructure *st = gst_message_get_structure (msg);

      warnings += GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING;
      if (gone && st && gst_structure_has_name (st, "rtframesink-file-deleted"))
        deleted_after++;
      stopped |= st && gst_structure_has_name (st,
          "rtframesink-recording-stopped");
      gst_message_unref (msg);
    }
    /* once the recording is told stopped (its last file kept), its user
     * deletes it: before that (the writer behind the frames pushed), a
     * file still to be linked would find no directory, and stay in the
     * ring as a file the recording could not keep */
    if (stopped && !gone) {
      fail_unless (g_file_test (first_dir, G_FILE_TEST_IS_DIR));
      cmd = g_strdup_printf ("rm -rf '%s'", first_dir);
      fail_unless (system (cmd) == 0);
      g_free (cmd);
      gone = TRUE;
    }
  }
  fail_unless (gone);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  while ((msg = gst_bus_pop (bus)) != NULL) {
    const GstStructure *st = gst_message_get_structure (msg);

    warnings += GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING;
    if (st && gst_structure_has_name (st, "rtframesink-file-deleted"))
      deleted_after++;
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  fail_unless_equals_int (warnings, 0);
  fail_unless (deleted_after > 0);
  /* every file of the ring went as it aged, those the recording had kept
   * too: no more than pre-record-time and a file or two are left */
  seqs = frames_in (dir, "ring-%05d.raw", &n_files);
  fail_unless (seqs->len <= 10 + 2 * 4, "the ring holds %u frames (%u "
      "files): it stopped turning", seqs->len, n_files);
  g_array_unref (seqs);
  g_free (first_dir);
  g_free (props);
  g_free (dir);
  g_free (ring);
  g_free (keep);
}

GST_END_TEST;

static Suite *
ring_suite (void)
{
  Suite *s = suite_create ("ring");
  TCase *tc = rtf_test_tcase (s, "general");

  tcase_add_test (tc, test_ring_as_the_rules_say);
  tcase_add_test (tc, test_ring_refused);
  tcase_add_test (tc, test_ring_leaves_what_is_there);
  tcase_add_test (tc, test_ring_turns_after_a_recording_is_deleted);
  return s;
}

GST_CHECK_MAIN (ring);
