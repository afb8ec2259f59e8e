/* rtframe: the file helper thread of a rotated recording.
 *
 * Jobs run in the order they are asked for.  The writer thread only asks
 * and looks at results (under a mutex held for a few instructions), so
 * open(2), the fsync of a finished file and unlink(2) never run on the
 * thread that keeps the disk busy. */
#include "rtf-file-worker.h"
#include "rtf-pattern.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum
{
  JOB_PREPARE,
  JOB_NAME,
  JOB_RETIRE,
  JOB_DROP,
  JOB_TRIM
} JobKind;

/* A file of this recording, closed: what max-files may delete, as long
 * as its names are still these inodes */
typedef struct
{
  guint64 number;
  gchar *path;
  struct stat data;
  struct stat index;
  gboolean has_index;
} Kept;

typedef struct
{
  JobKind kind;
  guint64 number;
  RtfOutput *output;
} Job;

struct _RtfFileWorker
{
  gchar *pattern;
  RtfOutputConfig config;
  guint max_files;
  RtfFileWorkerCallbacks cb;
  gpointer data;
  RtfThread *thread;

  GMutex lock;
  GCond cond;
  GQueue jobs;
  gboolean busy, stop;
  /* the prepared file */
  gboolean prepare_asked;
  guint64 prepared_number;
  RtfOutput *prepared;
  gint prepare_err;
  RtfFailStep prepare_step;
  /* max-files: the closed files, oldest first; those numbered at most
   * current - max_files go */
  GQueue kept;
  guint64 current;
  gboolean have_current;
  gint error;
  gchar *error_path;
  RtfFailStep error_step;       /* OPEN (naming a file) or SYNC
                                 * (finishing one) */
};

static void
kept_free (Kept * k)
{
  g_free (k->path);
  g_free (k);
}

static void
delete_kept (RtfFileWorker * fw, Kept * k)
{
  gchar *index = rtf_index_path (k->path);

  /* only the inodes this recording wrote: a file put at the name since
   * (by the user, another recording) stays */
  if (rtf_same_file (k->path, &k->data) && unlink (k->path) == 0) {
    if (fw->cb.deleted)
      fw->cb.deleted (k->path, k->number, fw->data);
  }
  if (k->has_index && rtf_same_file (index, &k->index))
    (void) unlink (index);
  g_free (index);
  kept_free (k);
}

static void
do_trim (RtfFileWorker * fw)
{
  for (;;) {
    Kept *k;

    g_mutex_lock (&fw->lock);
    k = g_queue_peek_head (&fw->kept);
    if (fw->max_files == 0 || k == NULL || fw->current < fw->max_files
        || k->number > fw->current - fw->max_files) {
      g_mutex_unlock (&fw->lock);
      return;
    }
    g_queue_pop_head (&fw->kept);
    g_mutex_unlock (&fw->lock);
    delete_kept (fw, k);
  }
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

/* Remembers o, closed with its frames, for max-files */
static void
keep (RtfFileWorker * fw, RtfOutput * o)
{
  Kept *k = g_new0 (Kept, 1);

  k->number = o->number;
  k->path = g_strdup (o->path);
  /* as finished: a later change to it (or a new file at the name, even
   * one the filesystem gave the same inode number) is not this file */
  if (fstat (o->file.fd, &k->data) < 0) {
    kept_free (k);
    return;
  }
  k->has_index = o->index_fd >= 0 && fstat (o->index_fd, &k->index) == 0;
  g_mutex_lock (&fw->lock);
  g_queue_push_tail (&fw->kept, k);
  g_mutex_unlock (&fw->lock);
}

static void
do_retire (RtfFileWorker * fw, RtfOutput * o)
{
  RtfFileInfo info;
  gint err = rtf_output_seal (o);
  gboolean empty = o->frames == 0 && err == 0;

  rtf_output_info (o, &info);
  info.error = err;
  set_error (fw, err, o->path, RTF_FAIL_SYNC);
  if (fw->cb.closed && !o->closed)
    fw->cb.closed (&info, fw->data);
  if (!empty && fw->max_files)
    keep (fw, o);
  rtf_output_free (o, empty);
  do_trim (fw);
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
        RtfOutput *o = rtf_output_open (path, job->number, &fw->config,
            RTF_FILE_CREATE_NEW, &err, &step);

        g_free (path);
        g_mutex_lock (&fw->lock);
        if (fw->prepare_asked && fw->prepared_number == job->number) {
          if (fw->prepared != NULL) {
            /* asked twice: the first one is the file (this open could
             * only have made one of its own beside it, which goes) */
            g_mutex_unlock (&fw->lock);
            rtf_output_free (o, TRUE);
            break;
          }
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
        gint err = rtf_output_name (job->output);

        set_error (fw, err, job->output->path, RTF_FAIL_OPEN);
        break;
      }
      case JOB_RETIRE:
        do_retire (fw, job->output);
        break;
      case JOB_DROP:
        rtf_output_free (job->output, TRUE);
        break;
      case JOB_TRIM:
        do_trim (fw);
        break;
    }
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

static void
push (RtfFileWorker * fw, JobKind kind, guint64 number, RtfOutput * o)
{
  Job *job = g_new0 (Job, 1);

  job->kind = kind;
  job->number = number;
  job->output = o;
  g_queue_push_tail (&fw->jobs, job);
  g_cond_broadcast (&fw->cond);
}

RtfFileWorker *
rtf_file_worker_new (const gchar * pattern, const RtfOutputConfig * config,
    guint max_files, const RtfThreadStarter * threads,
    const RtfFileWorkerCallbacks * callbacks, gpointer data)
{
  RtfFileWorker *fw = g_new0 (RtfFileWorker, 1);

  fw->pattern = g_strdup (pattern);
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
  g_queue_clear_full (&fw->kept, (GDestroyNotify) kept_free);
  g_free (fw->error_path);
  g_free (fw->pattern);
  g_mutex_clear (&fw->lock);
  g_cond_clear (&fw->cond);
  g_free (fw);
}

void
rtf_file_worker_prepare (RtfFileWorker * fw, guint64 number)
{
  g_mutex_lock (&fw->lock);
  if (!fw->prepare_asked || fw->prepared_number != number) {
    if (fw->prepared)
      push (fw, JOB_DROP, 0, fw->prepared);
    fw->prepared = NULL;
    fw->prepare_asked = TRUE;
    fw->prepared_number = number;
    fw->prepare_err = 0;
    push (fw, JOB_PREPARE, number, NULL);
  }
  g_mutex_unlock (&fw->lock);
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
  push (fw, JOB_NAME, o->number, o);
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_retire (RtfFileWorker * fw, RtfOutput * o)
{
  g_mutex_lock (&fw->lock);
  push (fw, JOB_RETIRE, o->number, o);
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_current (RtfFileWorker * fw, guint64 number)
{
  g_mutex_lock (&fw->lock);
  fw->have_current = TRUE;
  fw->current = number;
  if (fw->max_files)
    push (fw, JOB_TRIM, number, NULL);
  g_mutex_unlock (&fw->lock);
}

void
rtf_file_worker_drop_prepared (RtfFileWorker * fw)
{
  g_mutex_lock (&fw->lock);
  if (fw->prepared)
    push (fw, JOB_DROP, 0, fw->prepared);
  fw->prepared = NULL;
  fw->prepare_asked = FALSE;
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
