/* rtframe: the file helper's insides, shared by its parts - the jobs,
 * the closed files it may delete (Kept), its state under its lock, and
 * what the parts call of each other:
 *   rtf-file-worker.c        the thread and its jobs: prepare, name,
 *                            retire, trim (max-files), room
 *                            (min-free-space); deleting a file proven
 *                            the recording's
 *   rtf-file-worker-ring.c   a ring: recordings keeping its files
 *                            (linked, rtf-file-keep.c), its turning */
#ifndef __RTF_FILE_WORKER_PRIVATE_H__
#define __RTF_FILE_WORKER_PRIVATE_H__

#include "rtf-file-worker.h"
#include "rtf-file-keep.h"

#include <sys/stat.h>

G_BEGIN_DECLS

typedef enum
{
  JOB_PREPARE,
  JOB_NAME,
  JOB_RETIRE,
  JOB_DROP,
  JOB_TRIM,
  JOB_ROOM,
  JOB_KEEP_BEGIN,
  JOB_KEEP_FILE,
  JOB_KEEP_END,
  JOB_RING
} JobKind;

/* A file of this recording, closed: what max-files and min-free-space
 * may delete, as long as its names are still these inodes */
typedef struct
{
  guint64 number;
  gchar *path;
  struct stat data;
  struct stat index;
  gboolean has_index;
  gboolean marked;              /* it carries the recording's mark */
  gboolean told_in_use;         /* found in use once (said once) */
  guint64 frames, first_seq, last_seq;
  guint64 freed;                /* its blocks and its index's, in bytes */
  gboolean linked;              /* a ring's file a recording keeps: its
                                 * other name's changes move the inode's
                                 * ctime (proven without it) */
  gboolean unkept;              /* a ring's file a recording could not
                                 * keep: it stays in the ring, never
                                 * deleted (its frames are found there) */
} Kept;

typedef struct
{
  JobKind kind;
  guint64 number;
  RtfOutput *output;
  guint64 bytes;                /* ROOM: to give back; RETIRE: its frames'
                                 * bytes; PREPARE: the most it may reserve
                                 * (the writer's grant) */
  guint64 reserved;             /* RETIRE: reserved past its frames */
  /* KEEP_BEGIN: a recording keeps the closed files holding frames from
   * info.first_seq on, and the files being written named in open[]
   * (their inodes in open_st); KEEP_FILE: open[0] too; KEEP_END: it ends
   * (info); RING: the files whose frames are all before seq go; ROOM
   * (a ring): no recording asked later wants a frame before seq */
  RtfKeepInfo info;
  guint64 seq;
  gchar *open[2];
  struct stat open_st[2], open_index_st[2];
  gboolean open_has_index[2];
  guint64 open_number[2], open_first[2];
} Job;

struct _RtfFileWorker
{
  gchar *pattern;
  RtfOutputConfig config;
  guint max_files;
  /* a ring (rtf-file-worker-ring.c): its files are kept in directories
   * of keep_pattern, the next tried numbered keep_next; the recording
   * keeping now (its directory, NULL: none or it could not be made; the
   * frames it lost to min-free-space); the floor the writer last gave
   * (lock); the newest frame min-free-space took that a recording could
   * still have wanted; the numbers of files being written that a
   * recording could not keep */
  gboolean ring;
  gchar *keep_pattern;
  guint64 keep_next;
  gchar *keep_dir;
  guint64 keep_first, keep_lost;
  guint64 floor;
  guint64 sacrificed_upto;
  GArray *unkept;
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
  gboolean unheard;             /* the owner refused a deletion: none more */
  guint64 current;
  gboolean have_current;
  /* the free-space guard: min_free in force (0: off); space reserved in
   * the files held here; bytes of the files being finished and what the
   * kept files would give back; a make_room going */
  gchar *dir;
  guint64 min_free;
  guint64 reserved, retiring, kept_bytes;
  gboolean room_pending;
  guint64 granted;              /* reservations granted to prepares whose
                                 * fallocate has not been made yet */
  guint64 room_freed;           /* what the last make_room gave back */
  guint64 freed_total;          /* what every deletion gave back, for
                                 * max-files or min-free-space */
  gint error;
  gchar *error_path;
  RtfFailStep error_step;       /* OPEN (naming a file) or SYNC
                                 * (finishing one) */
};


/* What became of a closed file of the recording asked to go */
typedef enum
{
  KEPT_DELETED,                 /* gone, with its index */
  KEPT_NOT_OURS,                /* no longer provably the file written:
                                 * left, and forgotten */
  KEPT_IN_USE,                  /* provably ours, but a tool (or another
                                 * recording) holds its lock: left for
                                 * now, tried again later */
  KEPT_UNHEARD                  /* the owner no longer hears of deletions
                                 * (the location left the recording, or
                                 * was given up at stop): kept for good */
} KeptFate;

/* ---- rtf-file-worker.c ---------------------------------------------- */

void rtf_file_worker_kept_free (Kept * k);
/* Why the file at k's name is no longer provably the one this recording
 * wrote and closed (NULL: it is); fd is open on it */
const gchar *rtf_file_worker_not_ours (RtfFileWorker * fw, Kept * k, gint fd,
    const struct stat *st);
/* Deletes k and its index while provably the recording's and not in use
 * (*freed: the bytes given back); k is freed unless IN_USE or UNHEARD */
KeptFate rtf_file_worker_delete_kept (RtfFileWorker * fw, Kept * k,
    RtfDeleteReason reason, guint64 * freed);
/* Files found in use go back to the head of the list, oldest first */
void rtf_file_worker_put_back (RtfFileWorker * fw, GQueue * in_use);
/* A job at the end of the queue (lock held) */
Job *rtf_file_worker_push (RtfFileWorker * fw, JobKind kind, guint64 number,
    RtfOutput * o);

/* ---- rtf-file-worker-ring.c (the helper thread) -------------------- */

void rtf_file_worker_do_keep_begin (RtfFileWorker * fw, Job * job);
void rtf_file_worker_do_keep_file (RtfFileWorker * fw, Job * job);
void rtf_file_worker_do_keep_end (RtfFileWorker * fw, Job * job);
void rtf_file_worker_do_ring (RtfFileWorker * fw, guint64 floor);
/* A file that joined the list: the floor given so far again.  A floor
 * only asks for a turn when the oldest file listed is behind it, and a
 * file being finished then joins the list after: without this, at the
 * end (EOS or a stop) the ring kept files no recording can want
 * (test-ring: frames 74..93 held where the floor was 84) */
void rtf_file_worker_ring_refloor (RtfFileWorker * fw);
/* A file of the ring closed: one a recording could not keep stays */
void rtf_file_worker_ring_closed (RtfFileWorker * fw, Kept * k);
/* min-free-space took k: frames a recording asked after `floor` could
 * still have wanted are said lost to it */
void rtf_file_worker_ring_room_took (RtfFileWorker * fw, guint64 first_seq,
    guint64 last_seq, guint64 floor);
void rtf_file_worker_ring_free (RtfFileWorker * fw);

G_END_DECLS
#endif /* __RTF_FILE_WORKER_PRIVATE_H__ */
