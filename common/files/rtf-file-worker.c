/* rtframe: the file helper thread of a rotated recording.
 *
 * Jobs run in the order they are asked for.  The writer thread only asks
 * and looks at results (under a mutex held for a few instructions), so
 * open(2), the fsync of a finished file and unlink(2) never run on the
 * thread that keeps the disk busy. */
#include "rtf-file-worker-private.h"
#include "rtf-pattern.h"
#include "rtf-safe-open.h"
#include "rtf-space-guard.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

void
rtf_file_worker_kept_free (Kept * k)
{
  g_free (k->path);
  g_free (k);
}

const gchar *
rtf_delete_reason_name (RtfDeleteReason reason)
{
  switch (reason) {
    case RTF_DELETE_MAX_FILES:
      return "max-files";
    case RTF_DELETE_MIN_FREE_SPACE:
      return "min-free-space";
    case RTF_DELETE_RING:
      return "pre-record-time";
  }
  return "?";
}


/* Why the file at k's name is no longer provably the one this recording
 * wrote and closed (NULL: it is); fd is open on it */
/* Whether `now` is still the inode `then` recorded.  A ring's file a
 * recording keeps shares its inode with the recording's name, whose
 * changes (the user deleting the recording, a chmod, a hard-link backup)
 * move the inode's ctime: for such a file the proof is the inode, its
 * type, size and mtime (a write moves those), with the mark below */
static gboolean
same_as_kept (const Kept * k, const struct stat *now, const struct stat *then)
{
  if (!k->linked)
    return rtf_same_inode (now, then);
  return now->st_dev == then->st_dev && now->st_ino == then->st_ino
      && (now->st_mode & S_IFMT) == (then->st_mode & S_IFMT)
      && now->st_size == then->st_size
      && now->st_mtim.tv_sec == then->st_mtim.tv_sec
      && now->st_mtim.tv_nsec == then->st_mtim.tv_nsec;
}

/* ... at path, now (lstat: a link there is not it) */
static gboolean
same_at (const Kept * k, const gchar * path, const struct stat *then)
{
  struct stat now;

  return lstat (path, &now) == 0 && same_as_kept (k, &now, then);
}

const gchar *
rtf_file_worker_not_ours (RtfFileWorker * fw, Kept * k, gint fd,
    const struct stat *st)
{
  RtfRecordingId id;
  guint64 number;

  /* the same inode, unchanged since it was closed: a file renamed or
   * written to the name since (by the user, another recording, even one
   * the filesystem gave the same inode number) is not it */
  if (!same_as_kept (k, st, &k->data))
    return "another file is at its name now, or it was changed since "
        "this recording closed it";
  /* its mark, where it had one, still names this recording and number */
  if (k->marked && (!rtf_file_mark_get (fd, &id, &number)
          || !rtf_recording_id_equal (&id, &fw->config.recording_id)
          || number != k->number))
    return "its mark does not name this recording";
  return NULL;
}

/* k's index, if it is still the one written, open and locked (-1: none,
 * or it changed: left where it is); *busy when its lock is held */
static gint
hold_index (Kept * k, const gchar * index, gboolean * busy)
{
  struct stat st;
  gchar *why = NULL;
  gint fd;

  *busy = FALSE;
  if (!k->has_index)
    return -1;
  fd = rtf_safe_open (index, FALSE, &st, &why);
  g_free (why);
  if (fd < 0)
    return -1;
  if (!same_as_kept (k, &st, &k->index)) {
    close (fd);
    return -1;
  }
  if (rtf_lock (fd, TRUE) != 0) {
    *busy = TRUE;
    close (fd);
    return -1;
  }
  return fd;
}

static void
tell_deleted (RtfFileWorker * fw, Kept * k, RtfDeleteReason reason,
    const gchar * index_path, guint64 freed)
{
  RtfFileDeleted info = { 0 };

  info.path = k->path;
  info.index_path = index_path;
  info.number = k->number;
  info.reason = reason;
  info.frames = k->frames;
  info.first_seq = k->first_seq;
  info.last_seq = k->last_seq;
  info.bytes = (guint64) k->data.st_size;
  info.freed = freed;
  if (fw->cb.deleted)
    fw->cb.deleted (&info, fw->data);
}

/* A file is deleted only while the owner hears of it: the deletion and
 * its announcement happen inside cb.deleting (TRUE ... FALSE), which the
 * owner refuses once it stopped listening (torture 0xc2dd404235fb5512: a
 * location that stalled and left the recording went on trimming for
 * max-files once its writes ended, and a file holding frames reported
 * written went with no file-deleted message).  Refused once, refused for
 * good: the files stay as the owner last heard of them. */
static gboolean
deleting_begins (RtfFileWorker * fw)
{
  gboolean heard;

  g_mutex_lock (&fw->lock);
  heard = !fw->unheard;
  g_mutex_unlock (&fw->lock);
  if (heard && fw->cb.deleting && !fw->cb.deleting (TRUE, fw->data))
    heard = FALSE;
  if (!heard) {
    g_mutex_lock (&fw->lock);
    fw->unheard = TRUE;
    g_mutex_unlock (&fw->lock);
  }
  return heard;
}

/* Deletes k and its index, only if the name is still the file this
 * recording wrote and closed (regular, no link, same inode and ctime,
 * its mark) and neither is in use (their locks held across the unlinks).
 * *freed: the bytes given back.  A file in use is not forgotten: the
 * caller keeps it for later (issue 23: a tool holding an old file at the
 * moment made the guard drop it from its list for good).  What is left
 * is said through cb.left, once a file. */
KeptFate
rtf_file_worker_delete_kept (RtfFileWorker * fw, Kept * k,
    RtfDeleteReason reason, guint64 * freed)
{
  gchar *index = rtf_index_path (k->path), *why = NULL;
  struct stat st;
  const gchar *refused = NULL;
  KeptFate fate = KEPT_NOT_OURS;
  gboolean index_busy = FALSE;
  gint ifd = -1, fd = rtf_safe_open (k->path, FALSE, &st, &why);

  *freed = 0;
  if (fd < 0)
    refused = why;
  else if ((refused = rtf_file_worker_not_ours (fw, k, fd, &st)) != NULL)
    fate = KEPT_NOT_OURS;
  else if (rtf_lock (fd, TRUE) != 0
      || ((ifd = hold_index (k, index, &index_busy)) < 0 && index_busy)) {
    refused = "it is in use (its lock, or its index's, is held): it goes "
        "once let go";
    fate = KEPT_IN_USE;
  } else if (!deleting_begins (fw)) {
    fate = KEPT_UNHEARD;
  } else {
    if (!same_at (k, k->path, &k->data) || unlink (k->path) < 0) {
      refused = "it could not be deleted";
    } else {
      fate = KEPT_DELETED;
      /* a ring's file a recording keeps (linked) gives nothing back */
      *freed = st.st_nlink > 1 ? 0 : (guint64) k->data.st_blocks * 512;
      /* its index goes with it, if it is still the one written */
      if (ifd >= 0 && same_at (k, index, &k->index) && unlink (index) == 0)
        *freed += st.st_nlink > 1 ? 0 : (guint64) k->index.st_blocks * 512;
      else
        g_clear_pointer (&index, g_free);
      g_mutex_lock (&fw->lock);
      fw->freed_total += *freed;
      g_mutex_unlock (&fw->lock);
      tell_deleted (fw, k, reason, index, *freed);
    }
    if (fw->cb.deleting)
      fw->cb.deleting (FALSE, fw->data);
  }
  if (refused && fw->cb.left && !(fate == KEPT_IN_USE && k->told_in_use))
    fw->cb.left (k->path, refused, fw->data);
  if (fate == KEPT_IN_USE)
    k->told_in_use = TRUE;
  /* the space comes back once the last descriptor goes */
  if (ifd >= 0)
    close (ifd);
  if (fd >= 0)
    close (fd);
  g_free (why);
  g_free (index);
  if (fate != KEPT_IN_USE && fate != KEPT_UNHEARD)
    rtf_file_worker_kept_free (k);
  return fate;
}

/* The oldest kept file, out of the list (NULL: none); with max_files,
 * only one that max-files no longer keeps */
static Kept *
pop_kept (RtfFileWorker * fw, gboolean for_max_files)
{
  Kept *k;

  g_mutex_lock (&fw->lock);
  k = g_queue_peek_head (&fw->kept);
  if (k && for_max_files && (fw->max_files == 0
          || fw->current < fw->max_files
          || k->number > fw->current - fw->max_files))
    k = NULL;
  if (k) {
    g_queue_pop_head (&fw->kept);
    fw->kept_bytes -= k->freed;
  }
  g_mutex_unlock (&fw->lock);
  return k;
}

/* Files found in use go back to the head of the list, oldest first:
 * still the recording's, deleted at a later trim or make_room */
void
rtf_file_worker_put_back (RtfFileWorker * fw, GQueue * in_use)
{
  Kept *k;

  g_mutex_lock (&fw->lock);
  while ((k = g_queue_pop_tail (in_use)) != NULL) {
    g_queue_push_head (&fw->kept, k);
    fw->kept_bytes += k->freed;
  }
  g_mutex_unlock (&fw->lock);
}

static void
do_trim (RtfFileWorker * fw)
{
  GQueue in_use = G_QUEUE_INIT;
  guint64 freed;
  Kept *k;

  while ((k = pop_kept (fw, TRUE)) != NULL) {
    KeptFate fate =
        rtf_file_worker_delete_kept (fw, k, RTF_DELETE_MAX_FILES, &freed);

    if (fate == KEPT_IN_USE || fate == KEPT_UNHEARD)
      g_queue_push_tail (&in_use, k);
    if (fate == KEPT_UNHEARD)
      break;
  }
  rtf_file_worker_put_back (fw, &in_use);
}

/* min-free-space: the oldest files go until `need` bytes are back */
static void
do_room (RtfFileWorker * fw, guint64 need, guint64 floor)
{
  guint64 freed = 0, one, before = 0, now = 0, size;
  gboolean measured = rtf_space_statfs (-1, fw->dir, &before, &size) == 0;
  GQueue in_use = G_QUEUE_INIT;
  Kept *k;

  /* one in use is passed over for the next oldest, and kept; so is a
   * ring's file a recording could not keep (its frames are found there) */
  while (freed < need && (k = pop_kept (fw, FALSE)) != NULL) {
    guint64 first = k->first_seq, last = k->last_seq;
    KeptFate fate = KEPT_IN_USE;

    one = 0;
    if (!k->unkept)
      fate = rtf_file_worker_delete_kept (fw, k, RTF_DELETE_MIN_FREE_SPACE,
          &one);
    /* (a ring's: a recording asked later may have wanted its frames) */
    if (fw->ring && fate == KEPT_DELETED)
      rtf_file_worker_ring_room_took (fw, first, last, floor);
    if (fate == KEPT_IN_USE || fate == KEPT_UNHEARD)
      g_queue_push_tail (&in_use, k);
    freed += one;
    if (fate == KEPT_UNHEARD)
      break;
  }
  rtf_file_worker_put_back (fw, &in_use);
  /* XFS gives a deleted file's blocks back in the background (inode
   * garbage collection; measured about 1 ms for 200 MB): until statfs
   * shows at least half of them, the guard would delete again for space
   * that is on its way back */
  if (measured && freed > 0) {
    gint64 end = g_get_monotonic_time () + G_USEC_PER_SEC;

    while (g_get_monotonic_time () < end
        && rtf_space_statfs (-1, fw->dir, &now, &size) == 0
        && now < before + freed / 2)
      g_usleep (1000);
  }
  g_mutex_lock (&fw->lock);
  fw->room_pending = FALSE;
  fw->room_freed = freed;
  g_mutex_unlock (&fw->lock);
}

static void
set_error (RtfFileWorker * fw, gint err, const gchar * path, RtfFailStep step)
{
  g_mutex_lock (&fw->lock);
  if (err && fw->error == 0) {
    fw->error = err;
    fw->error_path = g_strdup (path);
    fw->error_step = step;
  }
  g_mutex_unlock (&fw->lock);
}

/* Remembers o, closed with its frames, for max-files, min-free-space or
 * a ring */
static void
keep (RtfFileWorker * fw, RtfOutput * o)
{
  Kept *k = g_new0 (Kept, 1);

  k->number = o->number;
  k->path = g_strdup (o->path);
  /* as finished: a later change to it (or a new file at the name, even
   * one the filesystem gave the same inode number) is not this file */
  if (fstat (o->file.fd, &k->data) < 0) {
    rtf_file_worker_kept_free (k);
    return;
  }
  k->has_index = o->index_fd >= 0 && fstat (o->index_fd, &k->index) == 0;
  k->marked = o->mark_errno == 0;
  k->frames = o->frames;
  k->first_seq = o->first_seq;
  k->last_seq = o->last_seq;
  /* (a ring's file a recording keeps frees nothing as it goes) */
  k->linked = k->data.st_nlink > 1;
  k->freed = k->linked ? 0 : (guint64) k->data.st_blocks * 512 +
      (k->has_index ? (guint64) k->index.st_blocks * 512 : 0);
  if (fw->ring)
    rtf_file_worker_ring_closed (fw, k);
  g_mutex_lock (&fw->lock);
  g_queue_push_tail (&fw->kept, k);
  fw->kept_bytes += k->freed;
  g_mutex_unlock (&fw->lock);
  /* a ring's: its frames may all be behind a floor given while it was
   * finished */
  rtf_file_worker_ring_refloor (fw);
}

static void
do_retire (RtfFileWorker * fw, Job * job)
{
  RtfOutput *o = job->output;
  RtfFileInfo info;
  gint err = rtf_output_seal (o);
  gboolean empty = o->frames == 0 && err == 0;
  gboolean keeping;

  rtf_output_info (o, &info);
  info.error = err;
  set_error (fw, err, o->path, RTF_FAIL_SYNC);
  if (fw->cb.closed && !o->closed)
    fw->cb.closed (&info, fw->data);
  g_mutex_lock (&fw->lock);
  keeping = fw->max_files || fw->min_free || fw->ring;
  g_mutex_unlock (&fw->lock);
  if (!empty && keeping)
    keep (fw, o);
  rtf_output_free (o, empty);
  /* its reservation is given back (cut at its end), it is kept or gone */
  g_mutex_lock (&fw->lock);
  fw->reserved -= job->reserved;
  fw->retiring -= job->bytes;
  g_mutex_unlock (&fw->lock);
  do_trim (fw);
}

/* What a file opened ahead reserves: preallocate, no more than the
 * writer granted (its ledger: rtf-writer-space.c), and with the guard on
 * no more than keeps the filesystem above min-free-space; with it off no
 * more than half of the room (issue 23, torture F3: a reservation larger
 * than the disk filled it, and the index could not be written) */
static guint64
prepare_reserve (RtfFileWorker * fw, guint64 grant)
{
  guint64 min_free, fs_free, size, want = MIN (fw->config.preallocate, grant);

  g_mutex_lock (&fw->lock);
  min_free = fw->min_free;
  g_mutex_unlock (&fw->lock);
  if (want == 0 || rtf_space_statfs (-1, fw->dir, &fs_free, &size) != 0)
    return want;
  if (min_free == 0)
    return rtf_space_guard_reserve_share (fs_free, 0, want);
  return rtf_space_guard_reserve_limit (min_free, fs_free, want);
}

static gpointer
worker_thread (gpointer data)
{
  RtfFileWorker *fw = data;

  g_mutex_lock (&fw->lock);
  for (;;) {
    Job *job;

    while (g_queue_is_empty (&fw->jobs) && !fw->stop)
      g_cond_wait (&fw->cond, &fw->lock);
    job = g_queue_pop_head (&fw->jobs);
    if (job == NULL)
      break;
    fw->busy = TRUE;
    g_mutex_unlock (&fw->lock);

    switch (job->kind) {
      case JOB_PREPARE:{
        gchar *path = rtf_pattern_format (fw->pattern, job->number);
        gint err = 0;
        RtfFailStep step = RTF_FAIL_OPEN;
        RtfOutputConfig config = fw->config;
        RtfOutput *o;

        config.preallocate = prepare_reserve (fw, job->bytes);
        o = rtf_output_open (path, job->number, &config,
            RTF_FILE_CREATE_NEW, &err, &step);

        g_free (path);
        g_mutex_lock (&fw->lock);
        /* made (or not): the grant is no longer owed, statfs shows it */
        fw->granted -= job->bytes;
        if (fw->prepare_asked && fw->prepared_number == job->number) {
          if (fw->prepared != NULL) {
            /* asked twice: the first one is the file (this open could
             * only have made one of its own beside it, which goes) */
            g_mutex_unlock (&fw->lock);
            rtf_output_free (o, TRUE);
            break;
          }
          if (o)
            fw->reserved += o->reserved_end;
          fw->prepared = o;
          fw->prepare_err = o ? 0 : err;
          fw->prepare_step = step;
          o = NULL;
        }
        g_mutex_unlock (&fw->lock);
        rtf_output_free (o, TRUE);      /* no longer wanted */
        break;
      }
      case JOB_NAME:{
        gint err;

        /* a timed name: no other file of its number may be there (the
         * readers would refuse the set), whatever came since the start */
        if (job->output->name_later && rtf_pattern_has_other (fw->pattern,
                job->output->number, job->output->path)) {
          job->output->name_step = RTF_FAIL_OPEN;
          err = EEXIST;
        } else {
          err = rtf_output_name (job->output);
        }
        set_error (fw, err, job->output->path, job->output->name_step);
        break;
      }
      case JOB_RETIRE:
        do_retire (fw, job);
        break;
      case JOB_DROP:
        rtf_output_free (job->output, TRUE);
        break;
      case JOB_TRIM:
        do_trim (fw);
        break;
      case JOB_ROOM:
        do_room (fw, job->bytes, job->seq);
        break;
      case JOB_KEEP_BEGIN:
        rtf_file_worker_do_keep_begin (fw, job);
        break;
      case JOB_KEEP_FILE:
        rtf_file_worker_do_keep_file (fw, job);
        break;
      case JOB_KEEP_END:
        rtf_file_worker_do_keep_end (fw, job);
        break;
      case JOB_RING:
        rtf_file_worker_do_ring (fw, job->seq);
        break;
    }
    g_free (job->open[0]);
    g_free (job->open[1]);
    g_free (job);

    g_mutex_lock (&fw->lock);
    fw->busy = FALSE;
    g_cond_broadcast (&fw->cond);
    g_mutex_unlock (&fw->lock);
    fw->cb.wake (fw->data);
    g_mutex_lock (&fw->lock);
  }
  g_mutex_unlock (&fw->lock);
  return NULL;
}

Job *
rtf_file_worker_push (RtfFileWorker * fw, JobKind kind, guint64 number,
    RtfOutput * o)
{
  Job *job = g_new0 (Job, 1);

  job->kind = kind;
  job->number = number;
  job->output = o;
  g_queue_push_tail (&fw->jobs, job);
  g_cond_broadcast (&fw->cond);
  return job;
}

/* The prepared file is let go (under lock): its reservation with it */
static void
drop_prepared (RtfFileWorker * fw)
{
  if (fw->prepared) {
    fw->reserved -= fw->prepared->reserved_end;
    rtf_file_worker_push (fw, JOB_DROP, 0, fw->prepared);
  }
  fw->prepared = NULL;
}

RtfFileWorker *
rtf_file_worker_new (const gchar * pattern, const RtfOutputConfig * config,
    guint max_files, const RtfThreadStarter * threads,
    const RtfFileWorkerCallbacks * callbacks, gpointer data)
{
  RtfFileWorker *fw = g_new0 (RtfFileWorker, 1);

  fw->pattern = g_strdup (pattern);
  fw->dir = g_path_get_dirname (pattern);
  fw->config = *config;
  fw->max_files = max_files;
  fw->cb = *callbacks;
  fw->data = data;
  g_mutex_init (&fw->lock);
  g_cond_init (&fw->cond);
  g_queue_init (&fw->jobs);
  fw->thread = rtf_thread_start (threads, "files", worker_thread, fw);
  return fw;
}

void
rtf_file_worker_free (RtfFileWorker * fw)
{
  if (fw == NULL)
    return;
  rtf_file_worker_drop_prepared (fw);
  g_mutex_lock (&fw->lock);
  fw->stop = TRUE;
  g_cond_broadcast (&fw->cond);
  g_mutex_unlock (&fw->lock);
  rtf_thread_join (fw->thread);
  /* a prepare that finished after the drop was asked for */
  rtf_output_free (fw->prepared, TRUE);
  /* files max-files no longer keeps that were in use when it tried:
   * deleted if let go since (here, on the caller's thread: the helper
   * has ended), else left with their warning */
  if (fw->max_files)
    do_trim (fw);
  g_queue_clear_full (&fw->kept, (GDestroyNotify) rtf_file_worker_kept_free);
  rtf_file_worker_ring_free (fw);
  g_free (fw->error_path);
  g_free (fw->pattern);
  g_free (fw->dir);
  g_mutex_clear (&fw->lock);
  g_cond_clear (&fw->cond);
  g_free (fw);
}

gboolean
rtf_file_worker_prepare (RtfFileWorker * fw, guint64 number, guint64 reserve)
{
  gboolean asked = FALSE;

  g_mutex_lock (&fw->lock);
  if (!fw->prepare_asked || fw->prepared_number != number) {
    Job *job;

    drop_prepared (fw);
    fw->prepare_asked = TRUE;
    fw->prepared_number = number;
    fw->prepare_err = 0;
    job = rtf_file_worker_push (fw, JOB_PREPARE, number, NULL);
    job->bytes = reserve;
    fw->granted += reserve;
    asked = TRUE;
  }
  g_mutex_unlock (&fw->lock);
  return asked;
}

RtfOutput *
rtf_file_worker_take (RtfFileWorker * fw, guint64 number, gint * err,
    RtfFailStep * step)
{
  RtfOutput *o = NULL;

  *err = 0;
  g_mutex_lock (&fw->lock);
  if (fw->prepare_asked && fw->prepared_number == number) {
    if (fw->prepared) {
      o = fw->prepared;
      fw->prepared = NULL;
      fw->prepare_asked = FALSE;
      /* the writer counts what it reserved from now on */
      fw->reserved -= o->reserved_end;
    } else if (fw->prepare_err) {
      *err = fw->prepare_err;
      *step = fw->prepare_step;
      fw->prepare_asked = FALSE;
    }
  }
  g_mutex_unlock (&fw->lock);
  return o;
}

void
rtf_file_worker_name (RtfFileWorker * fw, RtfOutput * o)
{
  g_mutex_lock (&fw->lock);
  rtf_file_worker_push (fw, JOB_NAME, o->number, o);
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_retire (RtfFileWorker * fw, RtfOutput * o)
{
  Job *job;

  g_mutex_lock (&fw->lock);
  job = rtf_file_worker_push (fw, JOB_RETIRE, o->number, o);
  job->bytes = o->written_end;
  job->reserved = o->reserved_end > o->written_end ?
      o->reserved_end - o->written_end : 0;
  fw->retiring += job->bytes;
  fw->reserved += job->reserved;
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_current (RtfFileWorker * fw, guint64 number)
{
  g_mutex_lock (&fw->lock);
  fw->have_current = TRUE;
  fw->current = number;
  if (fw->max_files)
    rtf_file_worker_push (fw, JOB_TRIM, number, NULL);
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_drop_prepared (RtfFileWorker * fw)
{
  g_mutex_lock (&fw->lock);
  drop_prepared (fw);
  fw->prepare_asked = FALSE;
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_set_min_free (RtfFileWorker * fw, guint64 min_free)
{
  g_mutex_lock (&fw->lock);
  fw->min_free = min_free;
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_make_room (RtfFileWorker * fw, guint64 bytes)
{
  Job *job;

  g_mutex_lock (&fw->lock);
  fw->room_pending = TRUE;
  job = rtf_file_worker_push (fw, JOB_ROOM, 0, NULL);
  job->bytes = bytes;
  /* (the floor as the writer has taken it now: a recording asked later
   * starts at or after it) */
  job->seq = fw->floor;
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_space (RtfFileWorker * fw, guint64 * reserved,
    guint64 * deletable, gboolean * room_pending)
{
  g_mutex_lock (&fw->lock);
  *reserved = fw->reserved;
  *deletable = fw->kept_bytes + fw->retiring;
  *room_pending = fw->room_pending;
  g_mutex_unlock (&fw->lock);
}

guint64
rtf_file_worker_freed (RtfFileWorker * fw)
{
  guint64 freed;

  g_mutex_lock (&fw->lock);
  freed = fw->freed_total;
  g_mutex_unlock (&fw->lock);
  return freed;
}

void
rtf_file_worker_ledger (RtfFileWorker * fw, RtfFileWorkerLedger * l)
{
  g_mutex_lock (&fw->lock);
  l->granted = fw->granted;
  l->prepared = fw->prepared ? fw->prepared->reserved_end : 0;
  l->prepared_number = fw->prepared ? fw->prepared_number : G_MAXUINT64;
  l->room_freed = fw->room_freed;
  g_mutex_unlock (&fw->lock);
}

gboolean
rtf_file_worker_idle (RtfFileWorker * fw)
{
  gboolean idle;

  g_mutex_lock (&fw->lock);
  idle = g_queue_is_empty (&fw->jobs) && !fw->busy;
  g_mutex_unlock (&fw->lock);
  return idle;
}

void
rtf_file_worker_wait_idle (RtfFileWorker * fw)
{
  g_mutex_lock (&fw->lock);
  while (!g_queue_is_empty (&fw->jobs) || fw->busy)
    g_cond_wait (&fw->cond, &fw->lock);
  g_mutex_unlock (&fw->lock);
}

gint
rtf_file_worker_error (RtfFileWorker * fw, gchar ** path, RtfFailStep * step)
{
  gint err;

  g_mutex_lock (&fw->lock);
  err = fw->error;
  if (path)
    *path = g_strdup (fw->error_path);
  if (step && err)
    *step = fw->error_step;
  g_mutex_unlock (&fw->lock);
  return err;
}
