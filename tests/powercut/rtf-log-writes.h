/* rtframe power-cut tests: the log of the device-mapper target
 * dm-log-writes (the kernel's drivers/md/dm-log-writes.c), read and
 * replayed onto a device or a file.
 *
 * The log, every integer little-endian:
 *
 *   byte 0           the super: le64 magic (0x6a736677736872),
 *                    le64 version (1), le64 nr_entries, le32 sectorsize
 *   byte sectorsize  the entries, one after the other; each begins a unit
 *                    of sectorsize bytes with le64 sector, le64
 *                    nr_sectors, le64 flags, le64 data_len
 *
 * sectorsize is the logical block size of the logged device, and sector
 * and nr_sectors count in it (not in 512-byte sectors).  A write's
 * nr_sectors * sectorsize bytes of data follow its header unit; the next
 * entry begins after them.  A discard, a flush without data and a mark
 * have no data: the next entry follows their header unit (a discard's
 * nr_sectors says how much it discarded, not what follows).  A mark's
 * text, data_len bytes without a NUL, sits in its own header unit after
 * the 32 bytes of the entry.
 *
 * A non-mark entry with data_len set would be inline data (the kernel's
 * DAX logging wrote such entries; no block device's write does): this
 * reader refuses it rather than guess where its data ends and which
 * bytes of the device it covers.
 *
 * What the order means.  The target logs a write only once a flush has
 * covered it, in the order the writes completed: a plain write that
 * completed waits until the next FLUSH request and is logged just before
 * that FLUSH entry.  So the plain writes before a FLUSH entry are those
 * the disk had completed (maybe in its cache) when the filesystem asked
 * for the flush, and replaying up to and including that entry gives the
 * disk as it stood once the flush made them durable - what a power cut
 * right after the flush leaves.  A FUA write is logged when it completes
 * (it is durable by then), and a mark when its message arrives, between
 * the completions around it.
 *
 * The super's nr_entries is rewritten only at FUA and MARK entries (and
 * the target's destructor logs a last mark, "dm-log-writes-end"): a log
 * whose target was never removed counts its entries up to the last FUA
 * write or mark.  Entries past nr_entries may be on the log device, but
 * nothing tells them from stale data there: exactly nr_entries are read.
 *
 * The log is outside data: every field is checked against the log's size
 * before anything is read or allocated from it, and a log that is not
 * well formed is refused with the entry and the byte offset at fault. */
#ifndef __RTF_LOG_WRITES_H__
#define __RTF_LOG_WRITES_H__

#include <glib.h>

G_BEGIN_DECLS
#define RTF_LOG_WRITES_MAGIC G_GUINT64_CONSTANT (0x6a736677736872)
#define RTF_LOG_WRITES_VERSION 1
#define RTF_LOG_WRITES_SUPER_BYTES 28   /* magic, version, nr_entries,
                                         * sectorsize */
#define RTF_LOG_WRITES_ENTRY_BYTES 32   /* sector, nr_sectors, flags,
                                         * data_len */
/* entry flags */
#define RTF_LOG_FLUSH (1u << 0)         /* a flush (with or without data) */
#define RTF_LOG_FUA (1u << 1)           /* a write durable when complete */
#define RTF_LOG_DISCARD (1u << 2)       /* a discard: no data follows */
#define RTF_LOG_MARK (1u << 3)          /* a mark: text in its header */
#define RTF_LOG_METADATA (1u << 4)      /* the filesystem's metadata
                                         * (informational) */
#define RTF_LOG_KNOWN_FLAGS 0x1fu
/* room for rtf_log_flags_text()'s letters and the NUL */
#define RTF_LOG_FLAGS_TEXT 8
#define RTF_LOG_WRITES_ERROR (rtf_log_writes_error_quark ())

typedef enum
{
  RTF_LOG_WRITES_ERROR_IO,      /* reading the log or writing the target
                                 * failed (errno's text in the message) */
  RTF_LOG_WRITES_ERROR_FORMAT,  /* not a log this reader takes */
  RTF_LOG_WRITES_ERROR_TARGET,  /* the target is too small, or not a
                                 * regular file or a block device */
  RTF_LOG_WRITES_ERROR_RANGE    /* entries asked for that the log does
                                 * not have */
} RtfLogWritesError;

typedef struct
{
  guint64 index;                /* its place in the log, from 0 */
  guint64 sector;               /* in units of the log's sectorsize */
  guint64 nr_sectors;
  guint64 flags;                /* RTF_LOG_* */
  /* byte offset of its data in the log: its header's offset +
   * sectorsize (for an entry without data, where data would begin) */
  guint64 data_offset;
  gchar *mark;                  /* the text, NULL unless a mark */
} RtfLogEntry;

typedef struct
{
  gchar *name;                  /* for messages: the path */
  gint fd;
  gboolean owns_fd;
  guint64 size;                 /* bytes of the log file or device */
  guint32 sectorsize;
  guint64 n_entries;            /* the super's nr_entries: all indexed */
  RtfLogEntry *entries;
  guint64 end;                  /* the byte after the last entry */
} RtfLogWrites;

typedef struct
{
  guint64 entries;
  guint64 writes;               /* entries with data */
  guint64 flushes, fua, discards, marks;
  guint64 data_bytes;           /* what the writes carry */
} RtfLogStats;

GQuark rtf_log_writes_error_quark (void);

/* Opens the log at path (a regular file or a block device), checks its
 * super and indexes every entry, reading only their headers. */
RtfLogWrites *rtf_log_writes_open (const gchar * path, GError ** error);
/* The same on an open fd, which stays the caller's: open until the log
 * is freed, closed by the caller after.  name is for messages. */
RtfLogWrites *rtf_log_writes_open_fd (gint fd, const gchar * name,
    GError ** error);
void rtf_log_writes_free (RtfLogWrites * log);

gboolean rtf_log_entry_is_flush (const RtfLogEntry * e);
gboolean rtf_log_entry_is_fua (const RtfLogEntry * e);
gboolean rtf_log_entry_is_discard (const RtfLogEntry * e);
gboolean rtf_log_entry_is_mark (const RtfLogEntry * e);
/* A point a replay may stop at to check the disk: a flush, a FUA write or
 * a mark */
gboolean rtf_log_entry_is_point (const RtfLogEntry * e);
/* Bytes of data that follow e's header in the log (0 unless a write) */
guint64 rtf_log_entry_data_bytes (const RtfLogWrites * log,
    const RtfLogEntry * e);
/* The flags as letters: F flush, U FUA, D discard, M mark, m metadata, in
 * that order; "-" when none is set */
void rtf_log_flags_text (guint64 flags, gchar text[RTF_LOG_FLAGS_TEXT]);

/* The first mark at or after entry from whose text is text; NULL when
 * there is none */
const RtfLogEntry *rtf_log_writes_find_mark (const RtfLogWrites * log,
    const gchar * text, guint64 from);
/* The indexes (guint64) of the points, in order */
GArray *rtf_log_writes_points (const RtfLogWrites * log);
/* What entries from..to (inclusive, cut to the log) hold */
void rtf_log_writes_stats (const RtfLogWrites * log, guint64 from,
    guint64 to, RtfLogStats * stats);
/* The bytes a target needs to take entries from..to: the end of the
 * highest sector they write or discard */
guint64 rtf_log_writes_extent (const RtfLogWrites * log, guint64 from,
    guint64 to);

/* Applies entry i to the target open for writing at target_fd (a regular
 * file or a block device): a write's data at sector * sectorsize, read
 * from the log in chunks of at most 1 MiB; a discard's range made zeros
 * (a hole punched in a file, BLKZEROOUT on a device), so that a replay
 * is the same whatever the device would have read back; a flush or a mark
 * changes nothing.  A target smaller than rtf_log_writes_extent() is
 * refused before anything is written. */
gboolean rtf_log_writes_apply (const RtfLogWrites * log, guint64 i,
    gint target_fd, GError ** error);
/* Applies entries from..to (inclusive), in order; refuses a range
 * outside the log and a target too small for it before writing. */
gboolean rtf_log_writes_apply_range (const RtfLogWrites * log, guint64 from,
    guint64 to, gint target_fd, GError ** error);

G_END_DECLS
#endif /* __RTF_LOG_WRITES_H__ */
