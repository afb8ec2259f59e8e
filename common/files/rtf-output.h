/* rtframe: one file of a recording and its index, while the writer fills
 * them: opening (with the XFS flags), the index records waiting to be
 * written, and finishing both whole */
#ifndef __RTF_OUTPUT_H__
#define __RTF_OUTPUT_H__

#include "rtf-failure.h"
#include "rtf-file.h"
#include "rtf-index.h"
#include "rtf-file-mark.h"
#include "rtf-xflags.h"

G_BEGIN_DECLS typedef struct _RtfOutput RtfOutput;

/* What a completion is for: the first member of everything the writer
 * passes as an I/O tag. */
typedef enum
{
  RTF_IO_WRITE,                 /* a frame's write (the writer's WriteOp) */
  RTF_IO_RESERVE,               /* fallocate ahead of the writes */
  RTF_IO_INDEX,                 /* index records */
  RTF_IO_SYNC_DATA,             /* fdatasync of the data file */
  RTF_IO_SYNC_INDEX             /* fdatasync of the index */
} RtfIoKind;

typedef struct
{
  RtfIoKind kind;
  RtfOutput *output;
} RtfIoTag;

typedef struct
{
  RtfDirectMode direct;
  RtfXflags xflags;
  gboolean index;               /* write "<file>.idx" beside the data */
  guint64 preallocate;          /* bytes reserved at open, 0: none */
  RtfRecordingId recording_id;  /* marked on every data file */
  /* the name comes with the first frame (time fields in the pattern):
   * a file opened with RTF_FILE_CREATE_NEW is made under a hidden name,
   * given its own by rtf_output_set_name() and rtf_output_name() */
  gboolean name_later;
} RtfOutputConfig;

/* A file of a recording as reported when it is opened or closed */
typedef struct
{
  const gchar *path;
  const gchar *index_path;      /* NULL: no index */
  guint64 number;               /* its number in a rotated set */
  guint64 frames, bytes;
  guint64 first_seq, last_seq;  /* frame numbers, when frames > 0 */
  guint64 first_running_time, last_running_time;        /* ns or NONE */
  gint error;                   /* closing it failed with this errno */
  guint location;               /* a spread's: the location (its index) */
} RtfFileInfo;

#define RTF_OUTPUT_INDEX_RECORDS 512    /* records buffered at most */

struct _RtfOutput
{
  gchar *path;                  /* its name once the recording reaches it */
  gchar *index_path;            /* NULL: no index */
  guint64 number;
  gboolean name_later;          /* its name came with its first frame (time
                                 * fields): never taken over anything */
  RtfFile file;
  gint index_fd;
  gboolean index_created;       /* this open created the index file */
  gint mark_errno;              /* the mark was refused (no xattrs), 0 */

  /* A file of a set opened ahead while its name holds another file:
   * prepared under a hidden name of its own, moved to `path` only when
   * the recording reaches it (rtf_output_name()), so a file the
   * recording never reaches is never touched. */
  gchar *tmp_path;              /* NULL: already at path */
  gchar *tmp_index_path;
  gint replace_guard;           /* the file at path, locked until then */
  gint dir_fd;                  /* O_PATH: the directory it was made in, to
                                 * delete what it made there also after
                                 * that directory was moved away */
  gboolean drop_stale_index;    /* index=false: an rtframe index at the
                                 * name describes the file replaced */
  gint named;                   /* atomic: at its names; frames written to
                                 * it are reported only then */
  RtfFailStep name_step;        /* naming it failed: OPEN (the data's name
                                 * refused) or INDEX (the index's) */

  /* the writer thread's, while frames go into it */
  gboolean begun;               /* its first frame was submitted */
  guint64 offset;               /* where the next frame starts */
  guint64 written_end;          /* end of the last frame written, recorded */
  guint64 released_end;         /* ... and reported written to the owner */
  guint64 released_records;
  guint64 reserved_end;         /* fallocate'd up to here */
  gboolean reserving, reserve_off;
  gint index_cut_err;           /* the index could not be cut back to the
                                 * frames reported written (errno) */
  guint64 reserve_len;          /* of the fallocate in flight */
  guint64 alloc_end;            /* a refill that failed may have left
                                 * blocks allocated up to here (ext4, XFS
                                 * keep what they got before ENOSPC):
                                 * given back when sealed */
  guint frames_in_flight;       /* submitted, not yet released */
  guint64 frames;               /* released written */
  guint64 first_seq, last_seq;
  guint64 taken_last;           /* the newest frame the writer took into
                                 * it (G_MAXUINT64: none), as it takes it:
                                 * last_seq moves only as writes end */
  guint64 first_time;           /* what max-file-duration counts from */
  guint64 first_running_time, last_running_time;
  gchar *format;
  gboolean closed;              /* finished at EOS and reported closed: the
                                 * next frame starts a new file */
  gboolean opened_ahead;        /* CREATE_NEW: no recording had reached it
                                 * when it was opened (deleted at the end
                                 * if none does) */

  /* index records not yet on file: [0, index_submitted) are being
   * written, [index_submitted, index_len) wait */
  guint8 *index_buf;
  gsize index_cap, index_len, index_submitted;
  guint64 index_end;            /* file offset of index_buf[0] */
  guint64 index_header_size;
  guint64 index_records;        /* records in index_buf or on file */
  guint64 index_records_done;   /* records whose write completed */

  RtfIoTag reserve_tag, index_tag, sync_data_tag, sync_index_tag;
};

/* Opens file `number` of a recording at path: REPLACE for the file
 * location names (a regular file there is emptied), CREATE_NEW for a
 * file of a set opened ahead (what is at path is left as it is until
 * rtf_output_name()).  The data file is locked and marked as this
 * recording's. */
RtfOutput *rtf_output_open (const gchar * path, guint64 number,
    const RtfOutputConfig * config, RtfFileOpenMode how, gint * err,
    RtfFailStep * step);

/* The recording reached o: gives it its names (moves a file prepared
 * under a hidden name over what path held; deletes the replaced file's
 * stale index).  On the file helper thread.  0 or an errno, and which
 * name was refused in o->name_step.  Both names are looked at again now,
 * whatever they held when o was prepared: the data's may be replaced if
 * it is a regular file (not an rtframe index or manifest) or a link no
 * one holds; the index's only if it holds an rtframe index (or an empty
 * file) no one holds - anything else (a user's file that appeared since)
 * is left exactly as it was: EEXIST, step INDEX, and nothing of o is
 * at its names. */
gboolean rtf_output_is_named (RtfOutput * o);
/* The name o (prepared, not named yet) will take, instead of the one it
 * was opened with (its index's beside it); before rtf_output_begin() */
void rtf_output_set_name (RtfOutput * o, const gchar * path);
gint rtf_output_name (RtfOutput * o);

/* The first frame goes in: the index starts with this header. */
void rtf_output_begin (RtfOutput * o, const RtfIndexHeader * header,
    guint64 seq, guint64 time, guint64 running_time);

/* Room for one more record (FALSE: wait for the index write in flight). */
gboolean rtf_output_index_has_room (RtfOutput * o);
void rtf_output_add_record (RtfOutput * o, const RtfIndexRecord * r);

/* The bytes to write next, if any and none are in flight. */
gboolean rtf_output_index_next (RtfOutput * o, const guint8 ** buf,
    gsize * len, guint64 * offset);
/* The write of those bytes completed with res (bytes or -errno): 0, or
 * the errno to fail with.  A short write is continued by the next call. */
gint rtf_output_index_done (RtfOutput * o, gint res);
gboolean rtf_output_index_idle (RtfOutput * o);

/* Writes what the index still holds, now, on this thread (no index
 * write may be in flight): 0 or the errno (the records left waiting). */
gint rtf_output_index_flush (RtfOutput * o);

/* Forgets the frames written but not reported (an abandoned writer): the
 * file and the index are cut back to the frames reported written. */
void rtf_output_keep_released (RtfOutput * o);

/* Makes both files whole and durable: writes what the index still holds,
 * cuts the data to written_end, gives back the space reserved after it,
 * fdatasyncs both.  0 or the errno of the step that failed. */
gint rtf_output_seal (RtfOutput * o);
void rtf_output_info (RtfOutput * o, RtfFileInfo * info);
/* Closes both; with never_reached, deletes what this open created (a file
 * opened ahead that no frame went to), and only that. */
void rtf_output_free (RtfOutput * o, gboolean never_reached);

G_END_DECLS
#endif /* __RTF_OUTPUT_H__ */
