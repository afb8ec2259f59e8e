/* rtframe: the writer's helper thread for the slow file operations of a
 * rotated recording - opening the next file ahead of time, finishing and
 * closing the previous one, deleting the oldest - so a split never holds
 * up a frame write */
#ifndef __RTF_FILE_WORKER_H__
#define __RTF_FILE_WORKER_H__

#include "rtf-output.h"
#include "rtf-thread.h"

G_BEGIN_DECLS

typedef struct _RtfFileWorker RtfFileWorker;

typedef struct
{
  /* Something finished: wake the writer thread (any thread). */
  void (*wake) (gpointer data);
  /* A file was finished and closed (err 0) or finishing it failed; on the
   * worker thread. */
  void (*closed) (const RtfFileInfo * info, gpointer data);
  /* A file was deleted to keep max-files; on the worker thread. */
  void (*deleted) (const gchar * path, guint64 number, gpointer data);
} RtfFileWorkerCallbacks;

/* pattern: what rtf_pattern_format() turns into each file name.
 * max_files: files kept (0: all), counting the one being written.
 * threads: how its thread is started (NULL: a GThread). */
RtfFileWorker *rtf_file_worker_new (const gchar * pattern,
    const RtfOutputConfig * config, guint max_files,
    const RtfThreadStarter * threads,
    const RtfFileWorkerCallbacks * callbacks, gpointer data);
/* Finishes every job asked for, then stops the thread. */
void rtf_file_worker_free (RtfFileWorker * fw);

/* Opens file `number` ahead (if not already asked). */
void rtf_file_worker_prepare (RtfFileWorker * fw, guint64 number);
/* The file prepared for `number`: NULL while it is being opened (*err 0),
 * or when opening it failed (*err, *step). */
RtfOutput *rtf_file_worker_take (RtfFileWorker * fw, guint64 number,
    gint * err, RtfFailStep * step);
/* The recording reached o (its first frame): gives it its names
 * (rtf_output_name()), then wakes the writer. */
void rtf_file_worker_name (RtfFileWorker * fw, RtfOutput * o);
/* Finishes, closes and frees o; a file without frames is deleted.  Then
 * the closed files that max-files no longer keeps are deleted: files this
 * recording wrote, each only while its name is still the inode it
 * wrote. */
void rtf_file_worker_retire (RtfFileWorker * fw, RtfOutput * o);
/* File `number` is now the one being written: with max-files, the files
 * that fall out of the window go once they are closed. */
void rtf_file_worker_current (RtfFileWorker * fw, guint64 number);
/* Closes a prepared file never reached and deletes what preparing it
 * created (and forgets it). */
void rtf_file_worker_drop_prepared (RtfFileWorker * fw);

/* TRUE when no job is waiting or running. */
gboolean rtf_file_worker_idle (RtfFileWorker * fw);
void rtf_file_worker_wait_idle (RtfFileWorker * fw);
/* The first error naming or finishing a file: errno (0 none), with the
 * file's path in *path (caller frees) and *step OPEN (naming it) or SYNC
 * (finishing it). */
gint rtf_file_worker_error (RtfFileWorker * fw, gchar ** path,
    RtfFailStep * step);

G_END_DECLS

#endif /* __RTF_FILE_WORKER_H__ */
