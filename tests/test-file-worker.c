/* Unit tests of common/files/rtf-file-worker.c's part in the free-space guard:
 * deleting the oldest closed files for room (make_room) with max-files'
 * proof, and what it counts for the guard (space reserved in the files it
 * holds, what its closed files would give back).  Real files in $TMPDIR;
 * the helper's thread beside the test's (under tools/test.sh --tsan too). */
#include "rtf-file-worker.h"
#include "rtf-pattern.h"
#include "rtf-test-util.h"
#include "rtf-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <glib/gstdio.h>

#define DATA 65536

typedef struct
{
  GMutex lock;
  GPtrArray *deleted;           /* "number reason freed" */
  GPtrArray *left;              /* paths */
  gint closed;
} Seen;

static void
seen_wake (gpointer data)
{
}

static void
seen_closed (const RtfFileInfo * info, gpointer data)
{
  Seen *s = data;

  g_assert_cmpint (info->error, ==, 0);
  g_atomic_int_inc (&s->closed);
}

static void
seen_deleted (const RtfFileDeleted * info, gpointer data)
{
  Seen *s = data;

  g_assert_false (g_file_test (info->path, G_FILE_TEST_EXISTS));
  g_assert_nonnull (info->index_path);
  g_assert_false (g_file_test (info->index_path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (info->bytes, ==, DATA);
  g_assert_cmpuint (info->freed, >=, DATA);
  g_assert_cmpuint (info->frames, ==, 1);
  g_mutex_lock (&s->lock);
  g_ptr_array_add (s->deleted, g_strdup_printf ("%" G_GUINT64_FORMAT " %s",
          info->number, rtf_delete_reason_name (info->reason)));
  g_mutex_unlock (&s->lock);
}

static void
seen_left (const gchar * path, const gchar * why, gpointer data)
{
  Seen *s = data;

  g_mutex_lock (&s->lock);
  g_ptr_array_add (s->left, g_strdup (path));
  g_mutex_unlock (&s->lock);
}

static const RtfFileWorkerCallbacks seen_callbacks = {
  .wake = seen_wake,
  .closed = seen_closed,
  .deleted = seen_deleted,
  .left = seen_left,
};

/* File `number` of the recording, written (DATA bytes, one "frame") and
 * handed to the helper to be finished */
static void
write_and_retire (RtfFileWorker * fw, const gchar * pattern,
    const RtfOutputConfig * config, guint64 number)
{
  gchar *path = rtf_pattern_format (pattern, number);
  guint8 *data = g_malloc (DATA);
  RtfFailStep step;
  gint err = 0;
  RtfOutput *o = rtf_output_open (path, number, config, RTF_FILE_CREATE_NEW,
      &err, &step);

  g_assert_nonnull (o);
  g_assert_true (rtf_output_is_named (o));
  rtf_test_fill_frame (data, DATA, 0, number);
  /* (buffered: the descriptor may be O_DIRECT, the data is aligned) */
  g_assert_cmpint (pwrite (o->file.fd, data, DATA, 0), ==, DATA);
  o->begun = TRUE;
  o->offset = o->written_end = o->released_end = DATA;
  o->frames = 1;
  o->first_seq = o->last_seq = number;
  rtf_file_worker_retire (fw, o);
  g_free (data);
  g_free (path);
}

/* The oldest closed files go until the room asked for is back; a file
 * renamed over one of them is left and the next one taken; what is
 * counted follows */
static void
test_make_room (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtframe-worker");
  gchar *pattern = g_build_filename (dir, "w-%d.raw", NULL);
  gchar *foreign = g_build_filename (dir, "foreign.bin", NULL);
  gchar *one = rtf_pattern_format (pattern, 1);
  gchar *text = NULL;
  RtfOutputConfig config = { 0 };
  Seen seen = { 0 };
  RtfFileWorker *fw;
  RtfOutput *next;
  RtfFailStep step;
  guint64 reserved, deletable, number;
  gboolean pending;
  gint err;

  g_mutex_init (&seen.lock);
  seen.deleted = g_ptr_array_new_with_free_func (g_free);
  seen.left = g_ptr_array_new_with_free_func (g_free);
  config.direct = RTF_DIRECT_OFF;
  config.index = TRUE;
  config.preallocate = 1 << 20;
  rtf_recording_id_new (&config.recording_id);
  fw = rtf_file_worker_new (pattern, &config, 0, NULL, &seen_callbacks, &seen);
  rtf_file_worker_set_min_free (fw, 1);

  for (number = 0; number < 5; number++)
    write_and_retire (fw, pattern, &config, number);
  rtf_file_worker_wait_idle (fw);
  g_assert_cmpint (seen.closed, ==, 5);
  rtf_file_worker_space (fw, &reserved, &deletable, &pending);
  /* each finished: cut to its data, its reservation given back, kept */
  g_assert_cmpuint (reserved, ==, 0);
  g_assert_cmpuint (deletable, >=, 5 * DATA);
  g_assert_false (pending);

  /* the user puts a file of theirs at file 1's name */
  g_assert_true (g_file_set_contents (foreign, "not a frame", -1, NULL));
  g_assert_cmpint (rename (foreign, one), ==, 0);

  rtf_file_worker_make_room (fw, 3 * DATA - 1);
  rtf_file_worker_wait_idle (fw);
  rtf_file_worker_space (fw, &reserved, &deletable, &pending);
  g_assert_false (pending);
  /* 0, (1 left), 2, 3: three files' worth; 4 stays */
  g_assert_cmpuint (seen.deleted->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 0), ==, "0 min-free-space");
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 1), ==, "2 min-free-space");
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 2), ==, "3 min-free-space");
  g_assert_cmpuint (seen.left->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (seen.left, 0), ==, one);
  g_assert_true (g_file_get_contents (one, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "not a frame");
  g_free (text);
  {
    gchar *four = rtf_pattern_format (pattern, 4);

    g_assert_true (g_file_test (four, G_FILE_TEST_EXISTS));
    g_free (four);
  }
  /* what is left to delete: file 4 (file 1 is no longer counted) */
  g_assert_cmpuint (deletable, >=, DATA);
  g_assert_cmpuint (deletable, <, 2 * DATA);

  /* the file opened ahead: its reservation is the helper's until taken */
  rtf_file_worker_prepare (fw, 5, G_MAXUINT64);
  rtf_file_worker_wait_idle (fw);
  rtf_file_worker_space (fw, &reserved, &deletable, &pending);
  next = rtf_file_worker_take (fw, 5, &err, &step);
  g_assert_nonnull (next);
  g_assert_cmpuint (reserved, ==, next->reserved_end);
  rtf_file_worker_space (fw, &reserved, &deletable, &pending);
  g_assert_cmpuint (reserved, ==, 0);
  rtf_output_free (next, TRUE);

  rtf_file_worker_free (fw);
  g_ptr_array_unref (seen.deleted);
  g_ptr_array_unref (seen.left);
  g_mutex_clear (&seen.lock);
  g_free (one);
  g_free (foreign);
  g_free (pattern);
  rtf_test_tmpdir_free (dir);
}

/* max-files deletes through the same proof, and says why */
static void
test_max_files_reason (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtframe-worker");
  gchar *pattern = g_build_filename (dir, "m-%d.raw", NULL);
  RtfOutputConfig config = { 0 };
  Seen seen = { 0 };
  RtfFileWorker *fw;
  guint64 number;

  g_mutex_init (&seen.lock);
  seen.deleted = g_ptr_array_new_with_free_func (g_free);
  seen.left = g_ptr_array_new_with_free_func (g_free);
  config.direct = RTF_DIRECT_OFF;
  config.index = TRUE;
  rtf_recording_id_new (&config.recording_id);
  fw = rtf_file_worker_new (pattern, &config, 2, NULL, &seen_callbacks, &seen);
  for (number = 0; number < 4; number++) {
    write_and_retire (fw, pattern, &config, number);
    rtf_file_worker_current (fw, number + 1);
  }
  rtf_file_worker_wait_idle (fw);
  /* current 4, two kept (3 and 4): 0, 1, 2 gone */
  g_assert_cmpuint (seen.deleted->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 0), ==, "0 max-files");
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 2), ==, "2 max-files");
  g_assert_cmpuint (seen.left->len, ==, 0);
  rtf_file_worker_free (fw);
  g_ptr_array_unref (seen.deleted);
  g_ptr_array_unref (seen.left);
  g_mutex_clear (&seen.lock);
  g_free (pattern);
  rtf_test_tmpdir_free (dir);
}

/* The owner stops hearing of deletions (a location of a spread that
 * stalled and left the recording, or a writer given up at stop): no
 * file is deleted after that, by max-files or min-free-space, also not
 * at the end.  Torture 0xc2dd404235fb5512: a location retired while a
 * file's close waited on its stalled disk trimmed the oldest file once
 * the disk moved, with nobody told - frames reported written, gone
 * without a file-deleted message. */
typedef struct
{
  Seen seen;
  gint listening;
  gint inside;                  /* a deletion going on */
  gint refused;
} Owner;

static gboolean
owner_deleting (gboolean begin, gpointer data)
{
  Owner *o = data;

  if (!begin) {
    g_assert_cmpint (g_atomic_int_get (&o->inside), ==, 1);
    g_atomic_int_set (&o->inside, 0);
    return TRUE;
  }
  if (!g_atomic_int_get (&o->listening)) {
    g_atomic_int_inc (&o->refused);
    return FALSE;
  }
  g_atomic_int_set (&o->inside, 1);
  return TRUE;
}

static void
owner_deleted (const RtfFileDeleted * info, gpointer data)
{
  Owner *o = data;

  /* told inside the deletion, while the owner listens */
  g_assert_cmpint (g_atomic_int_get (&o->inside), ==, 1);
  seen_deleted (info, &o->seen);
}

static void
owner_left (const gchar * path, const gchar * why, gpointer data)
{
  seen_left (path, why, &((Owner *) data)->seen);
}

static void
owner_closed (const RtfFileInfo * info, gpointer data)
{
  seen_closed (info, &((Owner *) data)->seen);
}

static const RtfFileWorkerCallbacks owner_callbacks = {
  .wake = seen_wake,
  .closed = owner_closed,
  .deleted = owner_deleted,
  .left = owner_left,
  .deleting = owner_deleting,
};

static void
test_unheard_kept (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtframe-worker");
  gchar *pattern = g_build_filename (dir, "h-%d.raw", NULL);
  RtfOutputConfig config = { 0 };
  Owner owner;
  RtfFileWorker *fw;
  guint64 number;

  memset (&owner, 0, sizeof (owner));
  g_mutex_init (&owner.seen.lock);
  owner.seen.deleted = g_ptr_array_new_with_free_func (g_free);
  owner.seen.left = g_ptr_array_new_with_free_func (g_free);
  owner.listening = 1;
  config.direct = RTF_DIRECT_OFF;
  config.index = TRUE;
  rtf_recording_id_new (&config.recording_id);
  fw = rtf_file_worker_new (pattern, &config, 2, NULL, &owner_callbacks,
      &owner);
  for (number = 0; number < 3; number++) {
    write_and_retire (fw, pattern, &config, number);
    rtf_file_worker_current (fw, number + 1);
  }
  rtf_file_worker_wait_idle (fw);
  /* current 3: 0 and 1 gone, told */
  g_assert_cmpuint (owner.seen.deleted->len, ==, 2);

  /* the owner stops listening; files 3 and 4 close, 5 is current */
  g_atomic_int_set (&owner.listening, 0);
  for (number = 3; number < 5; number++) {
    write_and_retire (fw, pattern, &config, number);
    rtf_file_worker_current (fw, number + 1);
  }
  rtf_file_worker_set_min_free (fw, 1);
  rtf_file_worker_make_room (fw, 3 * DATA);
  rtf_file_worker_wait_idle (fw);
  rtf_file_worker_free (fw);
  /* asked once, refused, never asked again; 2, 3 and 4 all there */
  g_assert_cmpint (owner.refused, ==, 1);
  g_assert_cmpuint (owner.seen.deleted->len, ==, 2);
  g_assert_cmpuint (owner.seen.left->len, ==, 0);
  for (number = 2; number < 5; number++) {
    gchar *path = rtf_pattern_format (pattern, number);

    g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    g_free (path);
  }
  g_ptr_array_unref (owner.seen.deleted);
  g_ptr_array_unref (owner.seen.left);
  g_mutex_clear (&owner.seen.lock);
  g_free (pattern);
  rtf_test_tmpdir_free (dir);
}

/* A closed file a tool holds (its lock) when it is due to go stays, and
 * stays in the list: make_room passes over it for the next oldest and
 * max-files leaves it; once let go it is the next to go, and at the end
 * it is not forgotten (issue 23: it was dropped from the list for good) */
static void
test_in_use_kept (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtframe-worker");
  gchar *pattern = g_build_filename (dir, "u-%d.raw", NULL);
  gchar *zero = rtf_pattern_format (pattern, 0);
  RtfOutputConfig config = { 0 };
  Seen seen = { 0 };
  RtfFileWorker *fw;
  guint64 number, reserved, deletable;
  gboolean pending;
  gint fd;

  g_mutex_init (&seen.lock);
  seen.deleted = g_ptr_array_new_with_free_func (g_free);
  seen.left = g_ptr_array_new_with_free_func (g_free);
  config.direct = RTF_DIRECT_OFF;
  config.index = TRUE;
  rtf_recording_id_new (&config.recording_id);
  fw = rtf_file_worker_new (pattern, &config, 0, NULL, &seen_callbacks, &seen);
  rtf_file_worker_set_min_free (fw, 1);
  for (number = 0; number < 3; number++)
    write_and_retire (fw, pattern, &config, number);
  rtf_file_worker_wait_idle (fw);
  fd = open (zero, O_RDONLY);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_SH | LOCK_NB), ==, 0);

  rtf_file_worker_make_room (fw, DATA);
  rtf_file_worker_wait_idle (fw);
  g_assert_cmpuint (seen.deleted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 0), ==, "1 min-free-space");
  g_assert_true (g_file_test (zero, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (seen.left->len, ==, 1);     /* said once */
  rtf_file_worker_space (fw, &reserved, &deletable, &pending);
  g_assert_cmpuint (deletable, >=, 2 * DATA);   /* 0 and 2 */
  rtf_file_worker_make_room (fw, DATA);
  rtf_file_worker_wait_idle (fw);
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 1), ==, "2 min-free-space");
  g_assert_cmpuint (seen.left->len, ==, 1);

  close (fd);                   /* let go: the oldest goes first */
  rtf_file_worker_make_room (fw, DATA);
  rtf_file_worker_wait_idle (fw);
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 2), ==, "0 min-free-space");
  g_assert_false (g_file_test (zero, G_FILE_TEST_EXISTS));
  rtf_file_worker_free (fw);

  /* max-files=1: file 5 due when 6 is current, in use then, deleted at
   * the end once let go */
  fw = rtf_file_worker_new (pattern, &config, 1, NULL, &seen_callbacks, &seen);
  write_and_retire (fw, pattern, &config, 5);
  rtf_file_worker_wait_idle (fw);
  g_free (zero);
  zero = rtf_pattern_format (pattern, 5);
  fd = open (zero, O_RDONLY);
  g_assert_cmpint (flock (fd, LOCK_SH | LOCK_NB), ==, 0);
  rtf_file_worker_current (fw, 6);
  rtf_file_worker_wait_idle (fw);
  g_assert_true (g_file_test (zero, G_FILE_TEST_EXISTS));
  close (fd);
  rtf_file_worker_free (fw);
  g_assert_false (g_file_test (zero, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (g_ptr_array_index (seen.deleted, 3), ==, "5 max-files");

  g_ptr_array_unref (seen.deleted);
  g_ptr_array_unref (seen.left);
  g_mutex_clear (&seen.lock);
  g_free (zero);
  g_free (pattern);
  rtf_test_tmpdir_free (dir);
}

/* ---- the writer: the guard ending a recording ------------------------- */

typedef struct
{
  gint failed_calls;
  RtfFailStep step;
  gint err;
  guint64 min_free;
  gint reports;
  RtfSpaceLevel level;
} EndCtx;

static void
end_failed (const RtfFailure * failure, gpointer user_data)
{
  EndCtx *c = user_data;

  c->failed_calls++;
  c->step = failure->step;
  c->err = failure->err;
  c->min_free = failure->min_free_space;
}

static void
end_disk_space (const RtfSpaceReport * r, gpointer user_data)
{
  EndCtx *c = user_data;

  c->reports++;
  c->level = r->level;
}

static gpointer
run_writer (gpointer w)
{
  rtf_writer_run (w);
  return NULL;
}

/* More min-free-space than any disk has: the first check ends the
 * recording (RTF_FAIL_SPACE, ENOSPC) and says the level; frames are
 * refused; the file is left empty */
static void
test_writer_ends_under_the_line (void)
{
  static const RtfWriterCallbacks cb = {
    .failed = end_failed,
    .disk_space = end_disk_space,
  };
  gchar *dir = rtf_test_tmpdir_new ("rtframe-worker");
  gchar *path = g_build_filename (dir, "end.raw", NULL);
  RtfWriterConfig cfg = { path, RTF_ENGINE_AUTO, RTF_DIRECT_AUTO, 2, 4, 0,
    1 << 20
  };
  EndCtx c = { 0 };
  RtfWriterStats st;
  RtfFrameTimes times;
  RtfFrame *f = NULL;
  RtfWriter *w;
  GThread *t;
  gint e = 0;

  cfg.min_free_space = G_MAXUINT64 / 2;
  cfg.index = TRUE;
  w = rtf_writer_new (&cfg, &cb, &c, &e, NULL);
  g_assert_nonnull (w);
  t = g_thread_new ("writer", run_writer, w);
  g_assert_cmpint (rtf_writer_wait_started (w), ==, 0);
  g_assert_cmpint (rtf_writer_sync (w), ==, ENOSPC);
  rtf_frame_times_clear (&times);
  g_assert_cmpint (rtf_writer_offer (w, 4096, RTF_LEAKY_NO, &times, NULL, &f),
      ==, RTF_OFFER_CLOSED);
  rtf_writer_shutdown (w);
  g_thread_join (t);
  rtf_writer_get_stats (w, &st);
  g_assert_cmpint (c.failed_calls, ==, 1);
  g_assert_cmpint (c.step, ==, RTF_FAIL_SPACE);
  g_assert_cmpint (c.err, ==, ENOSPC);
  g_assert_cmpuint (c.min_free, ==, G_MAXUINT64 / 2);
  g_assert_cmpint (c.reports, ==, 1);
  g_assert_cmpint (c.level, ==, RTF_SPACE_CRITICAL);
  g_assert_cmpuint (st.min_free_space, ==, G_MAXUINT64 / 2);
  g_assert_cmpuint (st.free_space, <, G_MAXUINT64 / 2);
  g_assert_cmpint (st.error, ==, ENOSPC);
  rtf_writer_free (w);
  {
    GStatBuf sb;

    g_assert_cmpint (g_stat (path, &sb), ==, 0);
    g_assert_cmpint (sb.st_size, ==, 0);
  }
  g_free (path);
  rtf_test_tmpdir_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file-worker/make-room", test_make_room);
  g_test_add_func ("/file-worker/max-files-reason", test_max_files_reason);
  g_test_add_func ("/file-worker/in-use-kept", test_in_use_kept);
  g_test_add_func ("/file-worker/unheard-kept", test_unheard_kept);
  g_test_add_func ("/file-worker/writer-ends-under-the-line",
      test_writer_ends_under_the_line);
  return g_test_run ();
}
