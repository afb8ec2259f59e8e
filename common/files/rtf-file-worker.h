/* rtframe: the writer's helper thread for the slow file operations of a
 * rotated recording - opening the next file ahead of time, finishing and
 * closing the previous one, deleting the oldest - so a split never holds
 * up a frame write */
#ifndef __RTF_FILE_WORKER_H__
#define __RTF_FILE_WORKER_H__

#include "rtf-output.h"
#include "rtf-file-keep.h"
#include "rtf-thread.h"

G_BEGIN_DECLS

typedef struct _RtfFileWorker RtfFileWorker;

/* Why a file of the recording was deleted */
typedef enum
{
  RTF_DELETE_MAX_FILES,         /* more files than max-files */
  RTF_DELETE_MIN_FREE_SPACE,    /* the free space fell under min-free-space */
  RTF_DELETE_RING               /* a ring's file whose frames are all older
                                 * than pre-record-time, and no recording
                                 * needs (one that kept it keeps its own
                                 * link) */
} RtfDeleteReason;

/* "max-files", "min-free-space", "pre-record-time" */
const gchar *rtf_delete_reason_name (RtfDeleteReason reason);

/* A file of the recording, deleted */
typedef struct
{
  const gchar *path;
  const gchar *index_path;      /* its index, deleted with it; NULL: none */
  guint64 number;               /* in the set */
  RtfDeleteReason reason;
  guint64 frames;               /* it held */
  guint64 first_seq, last_seq;  /* frame numbers, when frames > 0 */
  guint64 bytes;                /* its size */
  guint64 freed;                /* disk space given back: its blocks and
                                 * its index's */
} RtfFileDeleted;

typedef struct
{
  /* Something finished: wake the writer thread (any thread). */
  void (*wake) (gpointer data);
  /* A file was finished and closed (err 0) or finishing it failed; on the
   * worker thread. */
  void (*closed) (const RtfFileInfo * info, gpointer data);
  /* A file was deleted (max-files, min-free-space); on the worker thread. */
  void (*deleted) (const RtfFileDeleted * info, gpointer data);
  /* A closed file of the recording was due to be deleted and was left as
   * it is, because it is no longer provably the file the recording wrote
   * (why says what was found); on the worker thread. */
  void (*left) (const gchar * path, const gchar * why, gpointer data);
  /* A file is about to be deleted (begin TRUE): FALSE refuses it, and
   * every deletion after it (the owner no longer hears of them); TRUE
   * is followed, once the deletion is done or failed, by a call with
   * begin FALSE - `deleted` comes between the two, on the worker thread.
   * NULL: every deletion is allowed. */
  gboolean (*deleting) (gboolean begin, gpointer data);
  /* A ring's file was linked into a recording's directory, or could not
   * be (info->error); on the worker thread. */
  void (*kept) (const RtfFileKept * info, gpointer data);
  /* A recording of the ring began (its directory made, or not: error)
   * or ended (stopped: after its last file was kept), in the order asked;
   * on the worker thread. */
  void (*keep_told) (const RtfKeepInfo * info, gboolean stopped,
      gpointer data);
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

/* Opens file `number` ahead (if not already asked: FALSE), reserving at
 * most `reserve` bytes of preallocate (G_MAXUINT64: all of it; the
 * free-space guard's grant from its ledger). */
gboolean rtf_file_worker_prepare (RtfFileWorker * fw, guint64 number,
    guint64 reserve);
/* The file prepared for `number`: NULL while it is being opened (*err 0),
 * or when opening it failed (*err, *step). */
RtfOutput *rtf_file_worker_take (RtfFileWorker * fw, guint64 number,
    gint * err, RtfFailStep * step);
/* The recording reached o (its first frame): gives it its names
 * (rtf_output_name()), then wakes the writer. */
void rtf_file_worker_name (RtfFileWorker * fw, RtfOutput * o);
/* Finishes, closes and frees o; a file without frames is deleted.  Then
 * the closed files that max-files no longer keeps are deleted: files this
 * recording wrote, each only while its name is still the inode it wrote
 * (unchanged since: ctime), carrying its mark, and not in use (its lock
 * and its index's free: one in use stays in the list and goes at a later
 * trim, or at the end, once let go). */
void rtf_file_worker_retire (RtfFileWorker * fw, RtfOutput * o);
/* File `number` is now the one being written: with max-files, the files
 * that fall out of the window go once they are closed. */
void rtf_file_worker_current (RtfFileWorker * fw, guint64 number);
/* Closes a prepared file never reached and deletes what preparing it
 * created (and forgets it). */
void rtf_file_worker_drop_prepared (RtfFileWorker * fw);

/* ---- a ring (pre-record on disk) -------------------------------------- */

/* The closed files are a ring's (rtf-file-worker-ring.c): kept in the
 * list that rtf_file_worker_ring_floor() deletes from; each recording's
 * files kept in a new directory of keep_pattern, numbered from
 * first_number on (a name taken is passed over) */
void rtf_file_worker_set_ring (RtfFileWorker * fw, const gchar * keep_pattern,
    guint64 first_number);
/* A recording keeps every closed file holding frames from
 * info->first_seq on and the files open[0..n_open) (being written, at
 * their names: at most two), each linked with its index under its own
 * name (rtf-file-keep.h) and told through cb.kept; its start is told
 * (cb.keep_told) once its directory is made.  In order with every other
 * job: a file asked to go later is kept first. */
void rtf_file_worker_keep_begin (RtfFileWorker * fw, const RtfKeepInfo * info,
    RtfOutput ** open, guint n_open);
/* ... a file the ring began while it keeps (at its name) */
void rtf_file_worker_keep_file (RtfFileWorker * fw, RtfOutput * o);
/* ... and it ends: told after every job before */
void rtf_file_worker_keep_end (RtfFileWorker * fw, const RtfKeepInfo * info);
/* The ring turns: closed files whose frames all come before frame
 * `floor` go (RTF_DELETE_RING), their ring names only; min-free-space's
 * deletions asked from now on count a recording's frames from it on as
 * lost to it */
void rtf_file_worker_ring_floor (RtfFileWorker * fw, guint64 floor);

/* ---- the free-space guard (rtf-writer-space.c) ---------------------- */

/* The guard is on, keeping min_free bytes free (resolved, > 0): closed
 * files are kept in the list it may delete from (as for max-files), and
 * a file opened ahead reserves no more than keeps the filesystem above
 * min_free. */
void rtf_file_worker_set_min_free (RtfFileWorker * fw, guint64 min_free);
/* Deletes the oldest closed files of the recording, oldest first, until
 * `bytes` are given back or none is left (each proven the file this
 * recording wrote, as for max-files; one in use is passed over for the
 * next oldest and stays in the list), then waits up to a second for the
 * filesystem to show the space back (XFS frees a deleted file's blocks
 * in the background). */
void rtf_file_worker_make_room (RtfFileWorker * fw, guint64 bytes);
/* What the guard counts: space reserved ahead in the files the helper
 * holds (the one opened ahead, those being finished: given back when
 * they are); what deleting every closed file would give back (those
 * being finished included); and whether a make_room is still going. */
void rtf_file_worker_space (RtfFileWorker * fw, guint64 * reserved,
    guint64 * deletable, gboolean * room_pending);
/* What every deletion so far gave back (max-files, min-free-space), in
 * bytes: the rises of the free space that are the recording's own */
guint64 rtf_file_worker_freed (RtfFileWorker * fw);

/* What the free-space guard's ledger (rtf-writer-space.c) counts of the
 * helper */
typedef struct
{
  guint64 granted;              /* reservations granted to prepares not
                                 * made yet (not in statfs yet) */
  guint64 prepared;             /* the reservation of the file opened
                                 * ahead (0: none open) ... */
  guint64 prepared_number;      /* ... its number (G_MAXUINT64: none) */
  guint64 room_freed;           /* what the last make_room gave back (0:
                                 * nothing could go: in use, or none) */
} RtfFileWorkerLedger;
void rtf_file_worker_ledger (RtfFileWorker * fw, RtfFileWorkerLedger * l);

/* TRUE when no job is waiting or running. */
gboolean rtf_file_worker_idle (RtfFileWorker * fw);
void rtf_file_worker_wait_idle (RtfFileWorker * fw);
/* The first error naming or finishing a file: errno (0 none), with the
 * file's path in *path (caller frees) and *step OPEN (naming it), INDEX
 * (naming its index: the name holds what is not an rtframe index) or
 * SYNC (finishing it). */
gint rtf_file_worker_error (RtfFileWorker * fw, gchar ** path,
    RtfFailStep * step);

G_END_DECLS

#endif /* __RTF_FILE_WORKER_H__ */
