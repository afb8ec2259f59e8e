/* rtframe: the writer's figures - one table, from which the stats struct
 * is made here and the element's rtframesink-stats message is filled
 * (gst/gstrtframestats.c); tests/test-stats-table.c checks the message and
 * docs/reference.md against it.  A new figure is one row here, the place
 * that counts it, and its line in the docs. */
#ifndef __RTF_STATS_H__
#define __RTF_STATS_H__

#include "rtf-engine.h"

G_BEGIN_DECLS
/* How a figure is posted: its C type follows from it */
#define RTF_STAT_CTYPE_U64 guint64      /* posted as guint64 */
#define RTF_STAT_CTYPE_UINT guint       /* posted as guint */
#define RTF_STAT_CTYPE_COUNT guint      /* posted as guint64 */
#define RTF_STAT_CTYPE_NS gint64        /* posted as guint64 (>= 0) */
#define RTF_STAT_CTYPE_BOOL gboolean
#define RTF_STAT_CTYPE_ENGINE RtfEngineKind     /* posted as a string */
#define RTF_STAT_CTYPE_SIZE gsize       /* posted as guint */
#define RTF_STAT_CTYPE_ERRNO gint       /* not posted */
#define RTF_STAT_CTYPE_INTERNAL_U64 guint64     /* not posted */
#define RTF_STAT_CTYPE_INTERNAL_UINT guint      /* not posted */
/* X (member, kind, "name in rtframesink-stats" or NULL, what it is).
 * The frame accounting is one consistent snapshot:
 * received = written + lost + dropped + discarded + pre_record_frames
 *            + queued + in_flight */
#define RTF_WRITER_STATS(X) \
  X (frames_received, U64, "frames-received", \
      "frames handed over, or dropped on the way in") \
  X (frames_written, U64, "frames-written", \
      "whole frames in the file(s), in order") \
  X (frames_dropped, U64, "frames-dropped", "dropped by leaky") \
  X (frames_missed, U64, "frames-missed", \
      "frames that missed their deadline, dropped ones included, each once") \
  X (frames_late, U64, "frames-late", "missed, then written") \
  X (frames_lost, U64, "frames-lost", \
      "accepted but not written: after an error, or held at a stop that " \
      "gave up") \
  X (frames_discarded, U64, "frames-discarded", \
      "received while not recording and never written: pushed out of the " \
      "pre-record memory, or none kept (record=false)") \
  X (frames_prerecorded, U64, "frames-prerecorded", \
      "of the frames written, those held in pre-record memory before " \
      "their recording started") \
  X (pre_record_frames, COUNT, "pre-record-frames", \
      "frames held in pre-record memory now") \
  X (pre_record_bytes, U64, "pre-record-bytes", \
      "bytes of those frames: the pre-record memory in use") \
  X (recordings, U64, "recordings", \
      "recordings (events) started, the first included") \
  X (frames_queued, COUNT, "frames-queued", "not yet taken by the writer") \
  X (frames_in_flight, COUNT, "frames-in-flight", "taken, not yet released") \
  X (bytes_written, U64, "bytes-written", "bytes of the frames written") \
  X (bytes_queued, U64, "bytes-queued", "bytes of the frames queued") \
  X (frames_zero_copy, U64, "frames-zero-copy", \
      "frames written from their own memory") \
  X (frames_copied, U64, "frames-copied", \
      "frames copied into aligned staging memory by the writer") \
  X (writes_registered, U64, "writes-registered", \
      "writes from io_uring registered (fixed) buffers") \
  X (frames_held_max, UINT, "queue-high-water-frames", \
      "most frames held at once, queued or being written") \
  X (bytes_held_max, U64, "queue-high-water-bytes", \
      "most bytes held at once") \
  X (wait_total_ns, NS, "wait-total", \
      "time the producer waited for room (leaky=no), in all") \
  X (wait_max_ns, NS, "wait-max", "the longest of those waits") \
  X (waits, U64, "waits", "frames the producer waited with") \
  X (engine, ENGINE, "io-engine", "the I/O engine in use") \
  X (direct, BOOL, "direct", "the file is written with O_DIRECT") \
  X (block, SIZE, "write-alignment", \
      "alignment of every write's offset and length, bytes") \
  X (files, U64, "files", "files that got frames") \
  X (file_number, U64, "file-index", "the number of the file being written") \
  X (free_space, U64, "free-space", \
      "bytes free for the recording on its filesystem at the last check: " \
      "statfs, plus what it reserved ahead and has not written " \
      "(G_MAXUINT64: not known)") \
  X (min_free_space, U64, "min-free-space", \
      "bytes the free-space guard keeps free (auto resolved); 0: off") \
  X (write_rate, U64, "write-rate", \
      "bytes/s written, over the last 10 s at most") \
  X (time_left, U64, "time-left", \
      "ns until free-space reaches min-free-space at write-rate (until " \
      "full when the guard is off); G_MAXUINT64: not known") \
  X (files_deleted, U64, "files-deleted", \
      "files of the recording deleted, for max-files or min-free-space") \
  X (frames_durable, U64, "frames-durable", \
      "frames written and fdatasync'ed with their index records") \
  X (syncs, U64, "syncs", "sync-interval fdatasyncs done") \
  X (sync_max_ns, NS, "sync-max", "the longest of them") \
  X (upstream_gaps, U64, "upstream-gaps", \
      "gaps upstream reported before frames: counter skips, DISCONT, " \
      "timestamp jumps") \
  X (frames_missing_upstream, U64, "frames-missing-upstream", \
      "frames lost before the sink, as those gaps count them") \
  X (engine_errno, ERRNO, NULL, "why io_uring was not used, 0 if it is") \
  X (direct_errno, ERRNO, NULL, "why O_DIRECT was refused, 0 if not") \
  X (mem_align, SIZE, NULL, "every write's memory address: a multiple") \
  X (frames_held, INTERNAL_UINT, NULL, \
      "queued + in flight (+ one being handed over)") \
  X (bytes_preallocated, INTERNAL_U64, NULL, "file space reserved so far") \
  X (error, ERRNO, NULL, "the errno that stopped the writer, 0 none")
    typedef struct
{
#define RTF_STAT_MEMBER(member, kind, name, doc) \
  RTF_STAT_CTYPE_##kind member;
  RTF_WRITER_STATS (RTF_STAT_MEMBER)
#undef RTF_STAT_MEMBER
} RtfWriterStats;

/* The table as data, for whoever posts or checks the figures */
typedef enum
{
  RTF_STAT_U64, RTF_STAT_UINT, RTF_STAT_COUNT, RTF_STAT_NS, RTF_STAT_BOOL,
  RTF_STAT_ENGINE, RTF_STAT_SIZE, RTF_STAT_ERRNO, RTF_STAT_INTERNAL_U64,
  RTF_STAT_INTERNAL_UINT
} RtfStatKind;

typedef struct
{
  const gchar *name;            /* in rtframesink-stats, NULL: not posted */
  RtfStatKind kind;
  gsize offset;                 /* in RtfWriterStats */
  const gchar *doc;
} RtfStatField;

/* The rows of RTF_WRITER_STATS, in order; *n_fields their number */
const RtfStatField *rtf_writer_stats_fields (guint * n_fields);

G_END_DECLS
#endif /* __RTF_STATS_H__ */
