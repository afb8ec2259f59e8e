/* rtframe: the writer engine - takes frames from the queue and appends them
 * to one file with aligned writes, on a thread of its own */
#ifndef __RTF_WRITER_H__
#define __RTF_WRITER_H__

#include "rtf-engine.h"
#include "rtf-file.h"
#include "rtf-histogram.h"
#include "rtf-output.h"
#include "rtf-queue.h"
#include "rtf-regions.h"

G_BEGIN_DECLS

typedef struct _RtfWriter RtfWriter;

typedef struct
{
  /* the file, or with rotate a pattern (rtf_pattern_check() OK) that
   * rtf_pattern_format() turns into each file's name */
  const gchar *location;
  RtfEngineKind engine;
  RtfDirectMode direct;
  guint io_depth;               /* frames with writes in flight, >= 1 */
  guint max_frames;             /* queue limit (queued + in flight) */
  guint64 max_bytes;            /* queue limit, 0 = none */
  guint64 preallocate;          /* bytes reserved ahead of the writes, 0 off */
  /* memory the producer keeps valid while the writer runs; registered with
   * io_uring (fixed buffers) so frames in it are written without pinning
   * their pages on every write.  NULL: none.  The writer takes a ref. */
  RtfRegions *regions;

  /* files: the first is opened by rtf_writer_new() */
  RtfXflags xflags;             /* XFS flags of every file */
  gboolean index;               /* "<file>.idx" beside each file */
  gboolean checksums;           /* CRC32C of each frame in its record */
  guint64 sync_interval;        /* ns between fdatasyncs, 0: at the end */

  /* rotation (rotate: location is a pattern) */
  gboolean rotate;
  guint64 start_index;          /* number of the first file */
  guint64 max_file_size;        /* bytes, 0: no limit */
  guint64 max_file_duration;    /* ns, 0: no limit */
  guint max_files;              /* files kept, 0: all */
  /* how the writer's helper threads are started (NULL: GThreads); kept
   * valid until the writer has ended */
  const RtfThreadStarter *threads;
} RtfWriterConfig;

typedef enum
{
  RTF_LOG_ERROR,
  RTF_LOG_WARNING,
  RTF_LOG_INFO,
  RTF_LOG_DEBUG
} RtfLogLevel;

typedef struct
{
  /* A frame leaves the writer: state is WRITTEN, FAILED or DROPPED.  In
   * frame order, on the writer thread (or the caller of rtf_writer_free()
   * for frames never taken).  Release what the producer attached. */
  void (*frame_done) (RtfFrame * frame, gpointer user_data);
  /* The writer stopped on an I/O error; called once, before the producer is
   * refused.  The files were cut back to the frames written before it.
   * operation: "write", "sync", or for a file of a rotated set "open",
   * "xflags" (its XFS flags were refused) or "index"; path: the file. */
  void (*failed) (gint err, const gchar * operation, const gchar * path,
      const gchar * detail, gpointer user_data);
  void (*log) (RtfLogLevel level, const gchar * message, gpointer user_data);
  /* A frame's deadline passed before its last byte was written: called when
   * the deadline passes (within the wake-up latency of the writer thread),
   * once per frame, on the writer thread. */
  void (*deadline_missed) (const RtfFrameReport * miss, gpointer user_data);
  /* A frame that missed its deadline was written after all: miss->where is
   * WRITTEN and miss->detected_ns the completion time. */
  void (*late_completion) (const RtfFrameReport * miss, gpointer user_data);
  /* A file got its first frame (writer thread) / was finished, made
   * durable and closed (writer thread, or the file helper thread of a
   * rotated recording). */
  void (*file_opened) (const RtfFileInfo * info, gpointer user_data);
  void (*file_closed) (const RtfFileInfo * info, gpointer user_data);
} RtfWriterCallbacks;

typedef struct
{
  RtfEngineKind engine;         /* in use: IO_URING or PSYNC */
  gint engine_errno;            /* why io_uring was not used, 0 if it is */
  gboolean direct;
  gint direct_errno;            /* why O_DIRECT was refused, 0 if not */
  gsize block;
  gsize mem_align;
  /* frame accounting, one consistent snapshot:
   * received = written + lost + dropped + queued + in_flight */
  guint64 frames_received;
  guint64 frames_written;       /* whole frames in the file, in order */
  guint64 frames_lost;          /* accepted but not written: after an error */
  guint64 frames_dropped;       /* dropped by the producer (leaky) */
  guint frames_queued;          /* not yet taken by the writer */
  guint64 bytes_queued;
  guint frames_in_flight;       /* taken, not yet released */
  guint frames_held;            /* queued + in flight (+ one being handed) */
  guint frames_held_max;        /* high-water marks of frames_held */
  guint64 bytes_held_max;

  guint64 bytes_written;        /* = offset where the next frame goes */
  guint64 frames_zero_copy;
  guint64 frames_copied;
  guint64 writes_registered;    /* writes from io_uring fixed buffers */
  guint64 frames_missed;        /* deadline passed before written (writer) */
  guint64 frames_late;          /* of those, written after all */
  guint64 bytes_preallocated;   /* file space reserved so far */
  guint64 files;                /* files that got frames */
  guint64 file_number;          /* of the file being written */
  guint64 frames_durable;       /* written and fdatasync'ed */
  guint64 syncs;                /* fdatasyncs done (sync-interval) */
  gint64 sync_max_ns;           /* longest of them */
  gint error;                   /* errno that stopped the writer, 0 none */
} RtfWriterStats;

/* Latency of the frames written so far, in ns */
typedef struct
{
  RtfHistogram arrival_to_done;  /* handed over -> last byte written */
  RtfHistogram submit_to_done;   /* first write submitted -> last written */
} RtfWriterLatency;

/* Opens the (first) file.  On failure NULL, *err the errno and *what
 * (may be NULL) the step: "open", "xflags" (the XFS flags were refused)
 * or "index" (the index file could not be created). */
RtfWriter *rtf_writer_new (const RtfWriterConfig * config,
    const RtfWriterCallbacks * callbacks, gpointer user_data, gint * err,
    const gchar ** what);
void rtf_writer_free (RtfWriter * w);

RtfQueue *rtf_writer_get_queue (RtfWriter * w);
void rtf_writer_get_stats (RtfWriter * w, RtfWriterStats * stats);
void rtf_writer_get_latency (RtfWriter * w, RtfWriterLatency * latency);

/* The body of the writer thread: returns after rtf_writer_shutdown(), or at
 * once when the I/O engine could not be set up. */
void rtf_writer_run (RtfWriter * w);
/* Waits until rtf_writer_run() has set up its engine: 0 or an errno. */
gint rtf_writer_wait_started (RtfWriter * w);
/* Asks the thread to write what it holds, finish the file and return. */
void rtf_writer_shutdown (RtfWriter * w);

/* Waits until rtf_writer_run() has returned, at most timeout_ns (< 0: no
 * limit).  TRUE when it has. */
gboolean rtf_writer_wait_finished (RtfWriter * w, gint64 timeout_ns);

/* Gives up on a writer whose thread is still running (a stalled disk at
 * stop): from now on no frame is counted written and no callback but
 * frame_done is called.  The frames not taken are released at once, as
 * lost; the thread lets the writes in flight end in the kernel, cuts the
 * file back to the frames written before this call, and frees the writer
 * and then calls notify (data) itself.  `final` receives the last
 * accounting, in which every frame held counts as lost.  FALSE (nothing
 * done) when the thread has already finished: rtf_writer_free() it. */
gboolean rtf_writer_abandon (RtfWriter * w, GDestroyNotify notify,
    gpointer data, RtfWriterStats * final, RtfWriterLatency * latency);

/* Streaming-thread side: waits until every frame handed over is written,
 * then the file is cut to its exact size and fdatasync'ed.  0, or the
 * errno that failed; -1 when aborted by flushing. */
gint rtf_writer_sync (RtfWriter * w);

G_END_DECLS

#endif /* __RTF_WRITER_H__ */
