/* rtframe: the file helper of a ring (pre-record on disk, keep-location):
 * recordings keeping the ring's files by linking them into a directory of
 * their own (rtf-file-keep.c), and the ring turning.
 *
 * Every step is a job, run in the order the writer asked, so a file a
 * recording keeps is linked before any later turn deletes it.  A
 * recording's start and end are told from here, after the jobs before
 * them: its directory is the one made (the next free name), and its end
 * comes after its last file is kept.  A file a recording could not keep
 * (a name taken in its directory, its directory not made) is never
 * deleted: its frames stay where the ring wrote them, and the warning
 * says so.  Frames min-free-space had to take before a recording kept
 * them are told lost to that recording. */
#include "rtf-file-worker-private.h"
#include "rtf-index.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static void
tell_kept (RtfFileWorker * fw, const gchar * path, guint64 number,
    guint64 first_seq, guint64 last_seq, const gchar * kept_path, gint err,
    const gchar * why)
{
  RtfFileKept info = { 0 };

  info.keep = fw->keep_first;
  info.dir = fw->keep_dir ? fw->keep_dir : fw->keep_pattern;
  info.path = path;
  info.kept_path = kept_path;
  info.number = number;
  info.first_seq = first_seq;
  info.last_seq = last_seq;
  info.error = err;
  info.why = why;
  if (fw->cb.kept)
    fw->cb.kept (&info, fw->data);
}

/* A file being written the recording could not keep: it stays in the
 * ring when it closes (rtf_file_worker_ring_closed()) */
static void
remember_unkept (RtfFileWorker * fw, guint64 number)
{
  g_mutex_lock (&fw->lock);
  g_array_append_val (fw->unkept, number);
  g_mutex_unlock (&fw->lock);
}

/* A closed file of the ring kept: linked while it is still the file
 * written (as a deletion proves it), then known by its new times (a link
 * changes the inode's ctime, which the proof compares) */
static void
keep_closed (RtfFileWorker * fw, Kept * k)
{
  gchar *why = NULL, *kept = NULL, *index = rtf_index_path (k->path);
  struct stat st;
  gint err = ENOENT, fd = -1;
  const gchar *refused = NULL;

  if (fw->keep_dir == NULL)
    why = g_strdup_printf ("%s stays in the ring", k->path);
  else if ((fd = rtf_safe_open (k->path, FALSE, &st, &why)) < 0)
    err = ENOENT;
  else if ((refused = rtf_file_worker_not_ours (fw, k, fd, &st)) != NULL) {
    err = ESTALE;
    why = g_strdup_printf ("%s: %s", k->path, refused);
  } else {
    err = rtf_file_keep_link (k->path, &k->data,
        k->has_index ? &k->index : NULL, fw->keep_dir, &kept, &why);
  }
  if (fd >= 0)
    close (fd);
  g_mutex_lock (&fw->lock);
  if (err == 0) {
    /* still the ring's file: its stat as it is now */
    if (lstat (k->path, &st) == 0 && st.st_ino == k->data.st_ino)
      k->data = st;
    if (k->has_index && lstat (index, &st) == 0 && st.st_ino == k->index.st_ino)
      k->index = st;
    k->linked = TRUE;
  } else {
    k->unkept = TRUE;
  }
  /* kept, deleting its ring name frees nothing; not kept, it stays */
  fw->kept_bytes -= k->freed;
  k->freed = 0;
  g_mutex_unlock (&fw->lock);
  if (err != 0 && fd >= 0) {
    gchar *more = g_strdup_printf ("%s; its frames stay in the ring at %s",
        why, k->path);

    g_free (why);
    why = more;
  }
  tell_kept (fw, k->path, k->number, k->first_seq, k->last_seq, kept, err, why);
  g_free (kept);
  g_free (why);
  g_free (index);
}

/* A file being written, kept (else remembered as not kept) */
static void
keep_open (RtfFileWorker * fw, const gchar * path, const struct stat *st,
    const struct stat *index_st, guint64 number, guint64 first_seq)
{
  gchar *why = NULL, *kept = NULL;
  gint err = ENOENT;

  if (fw->keep_dir == NULL)
    why = g_strdup_printf ("%s stays in the ring", path);
  else
    err = rtf_file_keep_link (path, st, index_st, fw->keep_dir, &kept, &why);
  if (err != 0) {
    gchar *more = g_strdup_printf ("%s; its frames stay in the ring at %s",
        why, path);

    g_free (why);
    why = more;
    remember_unkept (fw, number);
  }
  tell_kept (fw, path, number, first_seq, G_MAXUINT64, kept, err, why);
  g_free (kept);
  g_free (why);
}

static void
tell_keep (RtfFileWorker * fw, RtfKeepInfo * info, gboolean stopped)
{
  if (fw->cb.keep_told)
    fw->cb.keep_told (info, stopped, fw->data);
}

/* KEEP_BEGIN: its directory made, its start told, then the closed files
 * with frames from its first on, then the open ones */
void
rtf_file_worker_do_keep_begin (RtfFileWorker * fw, Job * job)
{
  RtfKeepInfo info = job->info;
  GList *l, *closed = NULL;
  gchar *why = NULL;
  guint64 upto;
  guint i;

  g_clear_pointer (&fw->keep_dir, g_free);
  fw->keep_first = info.keep;
  fw->keep_lost = 0;
  info.error = rtf_file_keep_new_dir (fw->keep_pattern, &fw->keep_next,
      &fw->keep_dir, &why);
  info.dir = fw->keep_dir;
  info.why = why;
  tell_keep (fw, &info, FALSE);
  g_clear_pointer (&why, g_free);
  /* frames it wants that min-free-space took before it could keep them */
  g_mutex_lock (&fw->lock);
  upto = fw->sacrificed_upto;
  g_mutex_unlock (&fw->lock);
  if (upto != G_MAXUINT64 && upto >= info.first_seq) {
    fw->keep_lost = upto - info.first_seq + 1;
    why = g_strdup_printf ("frames %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT " were deleted for min-free-space before it could "
        "keep them (the disk is short)", info.first_seq, upto);
    tell_kept (fw, NULL, 0, info.first_seq, upto, NULL, ENOSPC, why);
    g_clear_pointer (&why, g_free);
  }
  /* (only this thread takes files out of the list: they stay valid) */
  g_mutex_lock (&fw->lock);
  for (l = fw->kept.head; l; l = l->next)
    if (((Kept *) l->data)->last_seq >= info.first_seq)
      closed = g_list_prepend (closed, l->data);
  g_mutex_unlock (&fw->lock);
  closed = g_list_reverse (closed);
  for (l = closed; l; l = l->next)
    keep_closed (fw, l->data);
  g_list_free (closed);
  for (i = 0; i < G_N_ELEMENTS (job->open) && job->open[i]; i++)
    keep_open (fw, job->open[i], &job->open_st[i],
        job->open_has_index[i] ? &job->open_index_st[i] : NULL,
        job->open_number[i], job->open_first[i]);
}

void
rtf_file_worker_do_keep_file (RtfFileWorker * fw, Job * job)
{
  keep_open (fw, job->open[0], &job->open_st[0],
      job->open_has_index[0] ? &job->open_index_st[0] : NULL,
      job->open_number[0], job->open_first[0]);
}

void
rtf_file_worker_do_keep_end (RtfFileWorker * fw, Job * job)
{
  RtfKeepInfo info = job->info;

  info.dir = fw->keep_dir;
  info.lost = fw->keep_lost;
  tell_keep (fw, &info, TRUE);
  g_clear_pointer (&fw->keep_dir, g_free);
}

/* RING: the closed files whose frames all come before floor go, oldest
 * first (one in use stays, and goes at a later turn; one a recording
 * could not keep stays) */
void
rtf_file_worker_do_ring (RtfFileWorker * fw, guint64 floor)
{
  GQueue in_use = G_QUEUE_INIT;
  guint64 freed;
  Kept *k;

  for (;;) {
    g_mutex_lock (&fw->lock);
    k = g_queue_peek_head (&fw->kept);
    if (k && k->last_seq < floor) {
      g_queue_pop_head (&fw->kept);
      fw->kept_bytes -= k->freed;
    } else {
      k = NULL;
    }
    g_mutex_unlock (&fw->lock);
    if (k == NULL)
      break;
    if (k->unkept) {
      g_queue_push_tail (&in_use, k);
      continue;
    }
    switch (rtf_file_worker_delete_kept (fw, k, RTF_DELETE_RING, &freed)) {
      case KEPT_IN_USE:
        g_queue_push_tail (&in_use, k);
        break;
      case KEPT_UNHEARD:
        g_queue_push_tail (&in_use, k);
        rtf_file_worker_put_back (fw, &in_use);
        return;
      default:
        break;
    }
  }
  rtf_file_worker_put_back (fw, &in_use);
}

void
rtf_file_worker_ring_closed (RtfFileWorker * fw, Kept * k)
{
  guint i;

  g_mutex_lock (&fw->lock);
  for (i = 0; i < fw->unkept->len; i++)
    if (g_array_index (fw->unkept, guint64, i) == k->number) {
      k->unkept = TRUE;
      k->freed = 0;
      g_array_remove_index_fast (fw->unkept, i);
      break;
    }
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_ring_room_took (RtfFileWorker * fw, guint64 first_seq,
    guint64 last_seq, guint64 floor)
{
  (void) first_seq;
  if (last_seq < floor)
    return;                     /* no recording asked later wants them */
  g_mutex_lock (&fw->lock);
  if (fw->sacrificed_upto == G_MAXUINT64 || last_seq > fw->sacrificed_upto)
    fw->sacrificed_upto = last_seq;
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_ring_free (RtfFileWorker * fw)
{
  g_free (fw->keep_pattern);
  g_free (fw->keep_dir);
  if (fw->unkept)
    g_array_unref (fw->unkept);
}

/* ---- the writer's side ------------------------------------------------ */

void
rtf_file_worker_set_ring (RtfFileWorker * fw, const gchar * keep_pattern,
    guint64 first_number)
{
  g_mutex_lock (&fw->lock);
  fw->ring = TRUE;
  fw->keep_pattern = g_strdup (keep_pattern);
  fw->keep_next = first_number;
  fw->sacrificed_upto = G_MAXUINT64;
  fw->unkept = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_mutex_unlock (&fw->lock);
}

/* open[]'s names and inodes into the job (a file not begun, or gone: not
 * taken) */
static void
job_files (Job * job, RtfOutput ** open, guint n_open)
{
  guint i, j = 0;

  for (i = 0; i < n_open && j < G_N_ELEMENTS (job->open); i++) {
    if (open[i] == NULL || !open[i]->begun
        || fstat (open[i]->file.fd, &job->open_st[j]) != 0)
      continue;
    job->open_has_index[j] = open[i]->index_fd >= 0
        && fstat (open[i]->index_fd, &job->open_index_st[j]) == 0;
    job->open[j] = g_strdup (open[i]->path);
    job->open_first[j] = open[i]->first_seq;
    job->open_number[j++] = open[i]->number;
  }
}

void
rtf_file_worker_keep_begin (RtfFileWorker * fw, const RtfKeepInfo * info,
    RtfOutput ** open, guint n_open)
{
  Job *job;

  g_mutex_lock (&fw->lock);
  job = rtf_file_worker_push (fw, JOB_KEEP_BEGIN, 0, NULL);
  job->info = *info;
  job_files (job, open, n_open);
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_keep_file (RtfFileWorker * fw, RtfOutput * o)
{
  Job *job;

  g_mutex_lock (&fw->lock);
  job = rtf_file_worker_push (fw, JOB_KEEP_FILE, 0, NULL);
  job_files (job, &o, 1);
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_keep_end (RtfFileWorker * fw, const RtfKeepInfo * info)
{
  Job *job;

  g_mutex_lock (&fw->lock);
  job = rtf_file_worker_push (fw, JOB_KEEP_END, 0, NULL);
  job->info = *info;
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_ring_refloor (RtfFileWorker * fw)
{
  guint64 floor;
  gboolean ring;

  g_mutex_lock (&fw->lock);
  floor = fw->floor;
  ring = fw->ring;
  g_mutex_unlock (&fw->lock);
  if (ring)
    rtf_file_worker_ring_floor (fw, floor);
}

void
rtf_file_worker_ring_floor (RtfFileWorker * fw, guint64 floor)
{
  Kept *k;

  g_mutex_lock (&fw->lock);
  fw->floor = MAX (fw->floor, floor);
  k = g_queue_peek_head (&fw->kept);
  /* (the files being finished join the list first: asked at a later
   * floor) */
  if (k && k->last_seq < floor)
    rtf_file_worker_push (fw, JOB_RING, 0, NULL)->seq = floor;
  g_mutex_unlock (&fw->lock);
}
