/* rtframe: the per-file frame index (the sidecar "<file>.idx"): its binary
 * format, and reading it back.  docs/recording.md documents the format. */
#ifndef __RTF_INDEX_H__
#define __RTF_INDEX_H__

#include <glib.h>

#include "rtf-file-mark.h"

G_BEGIN_DECLS
#define RTF_INDEX_MAGIC "RTFINDEX"
#define RTF_INDEX_VERSION 3     /* what is written */
#define RTF_INDEX_VERSION_1 1   /* still read: no recording id, no name */
#define RTF_INDEX_VERSION_2 2   /* still read: no upstream fields */
#define RTF_INDEX_SUFFIX ".idx"
#define RTF_INDEX_FIXED_HEADER_V1 64    /* version 1: bytes before the caps */
#define RTF_INDEX_FIXED_HEADER 96       /* versions 2, 3: before the name */
#define RTF_INDEX_RECORD_SIZE 96        /* what is written (version 3) */
#define RTF_INDEX_RECORD_SIZE_V2 72     /* versions 1 and 2 */
#define RTF_INDEX_MAX_RECORD 4096       /* a later version's, still skipped */
#define RTF_INDEX_MAX_HEADER 65536
/* Records past what the data file holds that a reader still takes (a
 * power cut can leave records whose frames did not reach the disk); an
 * index longer than that is read no further, whatever it holds. */
#define RTF_INDEX_SLACK_RECORDS 4096
/* header flags */
#define RTF_INDEX_HAS_CHECKSUMS (1u << 0)
/* (version 3) the header ends with a clock anchor: CLOCK_REALTIME and
 * CLOCK_MONOTONIC read together when the file was made, which put the
 * records' monotonic times on the wall clock; a reader that does not know
 * the flag skips the 16 bytes as padding (issue 26) */
#define RTF_INDEX_HAS_CLOCK_ANCHOR (1u << 1)
#define RTF_INDEX_CLOCK_ANCHOR_SIZE 16
/* record flags */
#define RTF_INDEX_REC_CHECKSUM (1u << 0)        /* checksum is valid */
#define RTF_INDEX_REC_MISSED (1u << 1)  /* written after its deadline */
#define RTF_INDEX_REC_COPIED (1u << 2)  /* written from staging memory */
#define RTF_INDEX_REC_PRERECORDED (1u << 3)     /* held in memory before its
                                                 * recording started */
#define RTF_INDEX_REC_GAP (1u << 4)     /* upstream lost frames before this
                                         * one (version 3: how many in
                                         * gap_missing, how seen in gap_how) */
#define RTF_INDEX_REC_EVENT_START (1u << 5)     /* a recording's first frame */
#define RTF_INDEX_REC_FAILED_OVER (1u << 6)     /* written here again after
                                                 * its first location of a
                                                 * spread failed: its number
                                                 * may be below the one
                                                 * before */
/* G_MAXUINT64 in a time field: not known */
#define RTF_INDEX_NONE G_MAXUINT64
    typedef struct
{
  guint32 version;              /* 1, 2 or 3; 0 when encoding: the current */
  guint32 header_size;          /* bytes; the first record starts here */
  guint32 record_size;
  guint32 flags;
  guint64 frame_size;           /* bytes of every frame of the file */
  guint64 file_number;          /* its number in a rotated set */
  guint64 deadline_ns;          /* the write deadline when it was opened */
  gint64 created_ns;            /* wall clock (CLOCK_REALTIME) */
  gchar *format;                /* the caps, as text */
  /* version 2 (zero / NULL in a version 1 index) */
  RtfRecordingId recording_id;  /* shared by every file of the recording */
  gchar *data_name;             /* the data file's name (no directory) */
  guint32 max_in_flight;        /* frames the writer could have in flight:
                                 * at most these, and a partial block, lie
                                 * past the last record after a crash */
  guint32 block;                /* the writes' alignment, bytes */
  /* version 3 (NULL before, or when none) */
  gchar *reference;             /* the caps of the records' reference
                                 * (camera) timestamps, as text */
  /* with RTF_INDEX_HAS_CLOCK_ANCHOR: the two clocks at one instant */
  gint64 anchor_realtime_ns, anchor_monotonic_ns;
} RtfIndexHeader;

typedef struct
{
  guint64 seq;                  /* frame number in the recording, from 0 */
  guint64 pts, duration, running_time;  /* ns, RTF_INDEX_NONE: none */
  gint64 arrival_ns;            /* CLOCK_MONOTONIC: handed to the writer */
  gint64 complete_ns;           /* CLOCK_MONOTONIC: last byte written */
  guint64 offset;               /* byte offset in the data file */
  guint32 size;
  guint32 checksum;             /* CRC32C of the frame's bytes */
  guint32 flags;
  /* version 3 (RTF_INDEX_NONE / 0 in an earlier version's record) */
  guint64 upstream_offset;      /* the buffer offset upstream gave it */
  guint64 reference_ns;         /* its reference (camera) timestamp */
  guint32 gap_missing;          /* frames lost upstream before it (with
                                 * RTF_INDEX_REC_GAP; 0: not known) */
  guint32 gap_how;              /* RtfGapHow bits: how that was seen */
  guint64 slot;                 /* not stored: its place in the index */
} RtfIndexRecord;

typedef struct
{
  RtfIndexHeader header;
  RtfIndexRecord *records;      /* the intact records, in index order */
  guint64 n_records;
  guint64 n_damaged;            /* damaged records among them (middle) */
  guint64 first_damaged;        /* the place of the first of those */
  guint64 keep_slots;           /* records up to the last intact one */
  guint64 valid_bytes;          /* header + keep_slots records */
  guint64 file_bytes;           /* size of the index file */
  gboolean capped;              /* longer than the data file explains:
                                 * read up to RTF_INDEX_SLACK_RECORDS past
                                 * it, no further */
  gchar *damage;                /* what is wrong with it, or NULL */
} RtfIndex;

/* The wall clock (CLOCK_REALTIME ns) of a CLOCK_MONOTONIC time of the
 * file's records (arrival, written), through its header's clock anchor;
 * FALSE when it has none (made before issue 26) or for no time */
gboolean rtf_index_wall_clock (const RtfIndexHeader * h, gint64 monotonic_ns,
    gint64 * realtime_ns);
gchar *rtf_index_path (const gchar * data_path);

/* What is at an index's path, for a writer about to replace it: 0 an
 * rtframe index (or an empty file), ENOENT nothing, ELOOP a symbolic link,
 * EEXIST anything else (a file that is not an index, a FIFO, ...). */
gint rtf_index_probe (const gchar * path);

/* What stops a reader from taking the records of an index further */
typedef enum
{
  RTF_INDEX_WHOLE,              /* every record: a whole frame in the file */
  RTF_INDEX_BEYOND_DATA,        /* a record's frame ends past the data
                                 * file's end (cut short, or not on disk) */
  RTF_INDEX_INCONSISTENT        /* a record contradicts the ones before
                                 * (offset, size, order): the index does
                                 * not describe this file */
} RtfIndexStop;

typedef struct
{
  RtfIndexStop stop;
  guint64 frames;               /* leading records that are whole frames */
  guint64 end;                  /* data bytes they cover */
  guint64 record;               /* the record that stopped it (its number
                                 * among the intact records) */
  gchar *why;                   /* what is wrong with it, or NULL */
} RtfIndexWalk;

/* Encodes the header into buf (at least rtf_index_header_size()) in
 * h->version (0: the current one). */
gsize rtf_index_header_size (const RtfIndexHeader * h);
gsize rtf_index_encode_header (const RtfIndexHeader * h, guint8 * buf);
/* The size of a record of `version` (0: the current) as it is written */
gsize rtf_index_record_size (guint32 version);
/* A record in the current version (RTF_INDEX_RECORD_SIZE bytes) */
void rtf_index_encode_record (const RtfIndexRecord * r, guint8 * buf);
/* ... in `version` (earlier ones for tests and their fixtures): returns
 * the bytes written, rtf_index_record_size (version) */
gsize rtf_index_encode_record_as (const RtfIndexRecord * r, guint32 version,
    guint8 * buf);

/* Decoding: FALSE when the bytes are not a valid header / record (wrong
 * magic or version, checksum mismatch: a torn or damaged write).
 * record_size and version: the header's. */
gboolean rtf_index_decode_header (const guint8 * buf, gsize len,
    RtfIndexHeader * h, gchar ** why);
gboolean rtf_index_decode_record (const guint8 * buf, gsize record_size,
    guint32 version, RtfIndexRecord * r);

/* Reads the index open at fd (a regular file: rtf_safe_open()): the
 * header and every intact record, while no more records than the data
 * file of data_size bytes can explain (plus RTF_INDEX_SLACK_RECORDS).  A
 * damaged record is skipped and counted; index->damage says what was
 * found.  NULL with *error when it holds no valid header or cannot be
 * read (the errno's text). */
RtfIndex *rtf_index_read (gint fd, guint64 data_size, GError ** error);
/* The same from a path (rtf_safe_open()): for tests and tools that have
 * no data file at hand (data_size G_MAXUINT64: no limit but memory). */
RtfIndex *rtf_index_load (const gchar * path, GError ** error);
void rtf_index_free (RtfIndex * index);

/* Walks the records against the header and a data file of data_size
 * bytes: frame numbers increasing, each frame the header's size, each
 * right after the one before (a damaged record in between leaves room for
 * its frame), each whole in the file.  The one rule every reader plays,
 * checks and cuts by. */
void rtf_index_walk (const RtfIndex * index, guint64 data_size,
    RtfIndexWalk * walk);
void rtf_index_walk_clear (RtfIndexWalk * walk);
void rtf_index_header_clear (RtfIndexHeader * h);

G_END_DECLS
#endif /* __RTF_INDEX_H__ */
