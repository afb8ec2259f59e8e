/* rtframe: the per-file frame index (the sidecar "<file>.idx"): its binary
 * format, and reading it back.  docs/recording.md documents the format. */
#ifndef __RTF_INDEX_H__
#define __RTF_INDEX_H__

#include <glib.h>

G_BEGIN_DECLS

#define RTF_INDEX_MAGIC "RTFINDEX"
#define RTF_INDEX_VERSION 1
#define RTF_INDEX_SUFFIX ".idx"
#define RTF_INDEX_FIXED_HEADER 64       /* bytes before the format text */
#define RTF_INDEX_RECORD_SIZE 72
#define RTF_INDEX_MAX_HEADER 65536

/* header flags */
#define RTF_INDEX_HAS_CHECKSUMS (1u << 0)

/* record flags */
#define RTF_INDEX_REC_CHECKSUM (1u << 0)        /* checksum is valid */
#define RTF_INDEX_REC_MISSED (1u << 1)  /* written after its deadline */
#define RTF_INDEX_REC_COPIED (1u << 2)  /* written from staging memory */

/* G_MAXUINT64 in a time field: not known */
#define RTF_INDEX_NONE G_MAXUINT64

typedef struct
{
  guint32 version;
  guint32 header_size;          /* bytes; the first record starts here */
  guint32 record_size;
  guint32 flags;
  guint64 frame_size;           /* bytes of every frame of the file */
  guint64 file_number;          /* its number in a rotated set */
  guint64 deadline_ns;          /* the write deadline when it was opened */
  gint64 created_ns;            /* wall clock (CLOCK_REALTIME) */
  gchar *format;                /* the caps, as text */
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
} RtfIndexRecord;

typedef struct
{
  RtfIndexHeader header;
  RtfIndexRecord *records;
  guint64 n_records;
  guint64 valid_bytes;          /* header + the whole, intact records */
  guint64 file_bytes;           /* size of the index file */
  gchar *damage;                /* why reading stopped before the end, or NULL */
} RtfIndex;

gchar *rtf_index_path (const gchar * data_path);

/* Encodes the header into buf (at least rtf_index_header_size()). */
gsize rtf_index_header_size (const gchar * format);
gsize rtf_index_encode_header (const RtfIndexHeader * h, guint8 * buf);
void rtf_index_encode_record (const RtfIndexRecord * r, guint8 * buf);

/* Decoding: FALSE when the bytes are not a valid header / record (wrong
 * magic or version, checksum mismatch: a torn or damaged write). */
gboolean rtf_index_decode_header (const guint8 * buf, gsize len,
    RtfIndexHeader * h, gchar ** why);
gboolean rtf_index_decode_record (const guint8 * buf, RtfIndexRecord * r);

/* Reads a whole index: the header and every intact record up to the first
 * damaged one (index->damage says what stopped it).  NULL with *error when
 * the file cannot be read or holds no valid header. */
RtfIndex *rtf_index_load (const gchar * path, GError ** error);
void rtf_index_free (RtfIndex * index);
void rtf_index_header_clear (RtfIndexHeader * h);

G_END_DECLS

#endif /* __RTF_INDEX_H__ */
