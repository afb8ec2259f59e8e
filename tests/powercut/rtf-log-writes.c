/* rtframe power-cut tests: reading a dm-log-writes log and replaying it
 * (rtf-log-writes.h says what the log holds and what its order means). */
#include "rtf-log-writes.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* the most a replay reads or writes at once: a write of any size never
 * costs more memory than this */
#define CHUNK_BYTES (1024 * 1024)

GQuark
rtf_log_writes_error_quark (void)
{
  return g_quark_from_static_string ("rtf-log-writes-error-quark");
}

static guint64
get_le64 (const guint8 * p)
{
  guint64 v;

  memcpy (&v, p, sizeof (v));
  return GUINT64_FROM_LE (v);
}

static guint32
get_le32 (const guint8 * p)
{
  guint32 v;

  memcpy (&v, p, sizeof (v));
  return GUINT32_FROM_LE (v);
}

/* Reads len bytes at off, whatever the reads return at a time; FALSE
 * with the reason in *why.  The sizes were checked before: a short read
 * means the log changed under the reader. */
static gboolean
read_full (gint fd, guint64 off, gpointer buf, gsize len, const gchar ** why)
{
  gsize done = 0;

  while (done < len) {
    gssize n = pread (fd, (guint8 *) buf + done, len - done, off + done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      *why = n < 0 ? g_strerror (errno) :
          "the log ended there (it changed after it was opened)";
      return FALSE;
    }
    done += n;
  }
  return TRUE;
}

static gboolean
write_full (gint fd, guint64 off, gconstpointer buf, gsize len)
{
  gsize done = 0;

  while (done < len) {
    gssize n = pwrite (fd, (const guint8 *) buf + done, len - done,
        off + done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = ENOSPC;
      return FALSE;
    }
    done += n;
  }
  return TRUE;
}

/* The size of a regular file or a block device.  FALSE with *kind_ok
 * FALSE for anything else, with *kind_ok TRUE when errno says why. */
static gboolean
size_of (gint fd, guint64 * size, gboolean * is_blockdev, gboolean * kind_ok)
{
  struct stat st;

  *kind_ok = TRUE;
  *is_blockdev = FALSE;
  if (fstat (fd, &st) < 0)
    return FALSE;
  if (S_ISREG (st.st_mode)) {
    *size = st.st_size;
    return TRUE;
  }
  *is_blockdev = S_ISBLK (st.st_mode);
  *kind_ok = *is_blockdev;
  return *kind_ok && ioctl (fd, BLKGETSIZE64, size) == 0;
}

/* ---- indexing ---------------------------------------------------------- */

static gboolean
entry_fail (const RtfLogWrites * log, guint64 i, guint64 at,
    GError ** error, const gchar * fmt, ...)
G_GNUC_PRINTF (5, 6);

/* A malformed entry: the message names the log, the entry and its header's
 * byte offset */
     static gboolean
         entry_fail (const RtfLogWrites * log, guint64 i, guint64 at,
    GError ** error, const gchar * fmt, ...)
{
  va_list ap;
  gchar *what;

  va_start (ap, fmt);
  what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_FORMAT,
      "%s: entry %" G_GUINT64_FORMAT " at byte %" G_GUINT64_FORMAT ": %s",
      log->name, i, at, what);
  g_free (what);
  return FALSE;
}

static gboolean
sectorsize_valid (guint32 ss)
{
  return ss >= 512 && ss <= 65536 && (ss & (ss - 1)) == 0;
}

static gboolean
read_super (RtfLogWrites * log, GError ** error)
{
  guint8 b[RTF_LOG_WRITES_SUPER_BYTES];
  const gchar *why;
  guint64 magic, version, most;

  if (log->size < sizeof (b)) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_FORMAT,
        "%s: %" G_GUINT64_FORMAT " bytes, too short for the super of a "
        "dm-log-writes log (%u bytes at byte 0)", log->name, log->size,
        RTF_LOG_WRITES_SUPER_BYTES);
    return FALSE;
  }
  if (!read_full (log->fd, 0, b, sizeof (b), &why)) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_IO,
        "%s: reading the super at byte 0: %s", log->name, why);
    return FALSE;
  }
  magic = get_le64 (b);
  version = get_le64 (b + 8);
  log->n_entries = get_le64 (b + 16);
  log->sectorsize = get_le32 (b + 24);
  if (magic != RTF_LOG_WRITES_MAGIC) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_FORMAT,
        "%s: byte 0: magic 0x%" G_GINT64_MODIFIER "x, not a dm-log-writes "
        "log (0x%" G_GINT64_MODIFIER "x)", log->name, magic,
        RTF_LOG_WRITES_MAGIC);
    return FALSE;
  }
  if (version != RTF_LOG_WRITES_VERSION) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_FORMAT,
        "%s: byte 8: version %" G_GUINT64_FORMAT ", only version %d is "
        "known", log->name, version, RTF_LOG_WRITES_VERSION);
    return FALSE;
  }
  if (!sectorsize_valid (log->sectorsize)) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_FORMAT,
        "%s: byte 24: sectorsize %u, not a power of two from 512 to 65536",
        log->name, log->sectorsize);
    return FALSE;
  }
  /* every entry takes at least a unit after the super's: a count beyond
   * that is refused before anything is allocated for it */
  most = log->size / log->sectorsize;
  most = most > 0 ? most - 1 : 0;
  if (log->n_entries > most) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_FORMAT,
        "%s: byte 16: nr_entries %" G_GUINT64_FORMAT ", but a log of %"
        G_GUINT64_FORMAT " bytes in units of %u holds at most %"
        G_GUINT64_FORMAT " entries", log->name, log->n_entries, log->size,
        log->sectorsize, most);
    return FALSE;
  }
  return TRUE;
}

/* A mark: nothing but the flag, no sectors, its text in its header unit */
static gboolean
check_mark (const RtfLogWrites * log, const RtfLogEntry * e, guint64 at,
    guint64 data_len, GError ** error)
{
  if (e->flags != RTF_LOG_MARK)
    return entry_fail (log, e->index, at, error, "a mark with other flags "
        "(flags 0x%" G_GINT64_MODIFIER "x)", e->flags);
  if (e->nr_sectors != 0)
    return entry_fail (log, e->index, at, error, "a mark with nr_sectors %"
        G_GUINT64_FORMAT, e->nr_sectors);
  if (data_len > log->sectorsize - RTF_LOG_WRITES_ENTRY_BYTES)
    return entry_fail (log, e->index, at, error, "a mark's text of %"
        G_GUINT64_FORMAT " bytes does not fit its unit of %u bytes",
        data_len, log->sectorsize);
  return TRUE;
}

/* A write, a flush or a discard: its range within what a file can hold,
 * a write's data within the log */
static gboolean
check_range (const RtfLogWrites * log, const RtfLogEntry * e, guint64 at,
    guint64 data_len, GError ** error)
{
  guint64 ss = log->sectorsize, room, most = G_MAXINT64 / ss;

  if (data_len != 0)
    return entry_fail (log, e->index, at, error, "data_len %"
        G_GUINT64_FORMAT " on an entry that is not a mark: inline data, "
        "which this reader does not replay", data_len);
  if (!rtf_log_entry_is_discard (e)) {
    room = (log->size - at - ss) / ss;
    if (e->nr_sectors > room)
      return entry_fail (log, e->index, at, error, "its data (%"
          G_GUINT64_FORMAT " sectors of %u bytes at byte %" G_GUINT64_FORMAT
          ") runs past the end of the log (%" G_GUINT64_FORMAT " bytes)",
          e->nr_sectors, log->sectorsize, at + ss, log->size);
  }
  if (e->nr_sectors > 0 && (e->nr_sectors > most
          || e->sector > most - e->nr_sectors))
    return entry_fail (log, e->index, at, error, "sector %" G_GUINT64_FORMAT
        " and nr_sectors %" G_GUINT64_FORMAT " (units of %u bytes) reach "
        "past the largest offset a file or device can have", e->sector,
        e->nr_sectors, log->sectorsize);
  return TRUE;
}

/* Reads and checks the header of entry i at byte at into e (and its
 * data_len, a mark's length) */
static gboolean
read_entry (const RtfLogWrites * log, guint64 i, guint64 at,
    RtfLogEntry * e, guint64 * data_len, GError ** error)
{
  guint8 b[RTF_LOG_WRITES_ENTRY_BYTES];
  const gchar *why;

  if (log->size - at < log->sectorsize)
    return entry_fail (log, i, at, error, "its header unit (%u bytes) runs "
        "past the end of the log (%" G_GUINT64_FORMAT " bytes): the super's "
        "nr_entries %" G_GUINT64_FORMAT " counts more entries than the log "
        "holds", log->sectorsize, log->size, log->n_entries);
  if (!read_full (log->fd, at, b, sizeof (b), &why)) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_IO,
        "%s: entry %" G_GUINT64_FORMAT " at byte %" G_GUINT64_FORMAT ": %s",
        log->name, i, at, why);
    return FALSE;
  }
  e->index = i;
  e->sector = get_le64 (b);
  e->nr_sectors = get_le64 (b + 8);
  e->flags = get_le64 (b + 16);
  e->data_offset = at + log->sectorsize;
  *data_len = get_le64 (b + 24);
  if (e->flags & ~(guint64) RTF_LOG_KNOWN_FLAGS)
    return entry_fail (log, i, at, error, "unknown flag bits 0x%"
        G_GINT64_MODIFIER "x (flags 0x%" G_GINT64_MODIFIER "x)",
        e->flags & ~(guint64) RTF_LOG_KNOWN_FLAGS, e->flags);
  if (rtf_log_entry_is_mark (e))
    return check_mark (log, e, at, *data_len, error);
  return check_range (log, e, at, *data_len, error);
}

/* A mark's text: len bytes after its entry's 32 (checked to fit its
 * unit) */
static gboolean
read_mark (const RtfLogWrites * log, guint64 at, guint64 len,
    RtfLogEntry * e, GError ** error)
{
  gchar *text = g_malloc (len + 1);
  const gchar *why;

  if (read_full (log->fd, at + RTF_LOG_WRITES_ENTRY_BYTES, text, len, &why)) {
    text[len] = '\0';
    e->mark = text;
    return TRUE;
  }
  g_free (text);
  g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_IO,
      "%s: entry %" G_GUINT64_FORMAT " at byte %" G_GUINT64_FORMAT
      ": reading its mark: %s", log->name, e->index, at, why);
  return FALSE;
}

/* Room for entry i: the array grows with the entries read, never to
 * what the super claims before the log has shown it holds them */
static RtfLogEntry *
entry_slot (RtfLogWrites * log, guint64 i, guint64 * room)
{
  if (i == *room) {
    *room = MAX (*room * 2, 1024);
    log->entries = g_renew (RtfLogEntry, log->entries, *room);
  }
  memset (&log->entries[i], 0, sizeof (RtfLogEntry));
  return &log->entries[i];
}

/* Frees the first n entries read (a log refused half way) */
static void
drop_entries (RtfLogWrites * log, guint64 n)
{
  guint64 i;

  for (i = 0; i < n; i++)
    g_free (log->entries[i].mark);
  g_clear_pointer (&log->entries, g_free);
}

/* One pass over the headers, seeking over the data */
static gboolean
index_entries (RtfLogWrites * log, GError ** error)
{
  guint64 i, at = log->sectorsize, data_len = 0, room = 0;

  for (i = 0; i < log->n_entries; i++) {
    RtfLogEntry *e = entry_slot (log, i, &room);

    if (!read_entry (log, i, at, e, &data_len, error)
        || (rtf_log_entry_is_mark (e)
            && !read_mark (log, at, data_len, e, error))) {
      drop_entries (log, i);
      return FALSE;
    }
    at = e->data_offset + rtf_log_entry_data_bytes (log, e);
  }
  log->end = at;
  return TRUE;
}

static RtfLogWrites *
log_open (gint fd, const gchar * name, gboolean owns_fd, GError ** error)
{
  RtfLogWrites *log = g_new0 (RtfLogWrites, 1);
  gboolean is_blockdev, kind_ok;

  log->name = g_strdup (name);
  log->fd = fd;
  log->owns_fd = owns_fd;
  if (!size_of (fd, &log->size, &is_blockdev, &kind_ok)) {
    if (kind_ok)
      g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_IO,
          "%s: its size: %s", name, g_strerror (errno));
    else
      g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_FORMAT,
          "%s: not a regular file or a block device", name);
    goto failed;
  }
  if (!read_super (log, error) || !index_entries (log, error))
    goto failed;
  return log;
failed:
  rtf_log_writes_free (log);
  return NULL;
}

RtfLogWrites *
rtf_log_writes_open (const gchar * path, GError ** error)
{
  gint fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_IO,
        "%s: %s", path, g_strerror (errno));
    return NULL;
  }
  return log_open (fd, path, TRUE, error);
}

RtfLogWrites *
rtf_log_writes_open_fd (gint fd, const gchar * name, GError ** error)
{
  return log_open (fd, name, FALSE, error);
}

void
rtf_log_writes_free (RtfLogWrites * log)
{
  guint64 i;

  if (log == NULL)
    return;
  for (i = 0; log->entries != NULL && i < log->n_entries; i++)
    g_free (log->entries[i].mark);
  g_free (log->entries);
  if (log->owns_fd)
    close (log->fd);
  g_free (log->name);
  g_free (log);
}

/* ---- what the entries say ---------------------------------------------- */

gboolean
rtf_log_entry_is_flush (const RtfLogEntry * e)
{
  return (e->flags & RTF_LOG_FLUSH) != 0;
}

gboolean
rtf_log_entry_is_fua (const RtfLogEntry * e)
{
  return (e->flags & RTF_LOG_FUA) != 0;
}

gboolean
rtf_log_entry_is_discard (const RtfLogEntry * e)
{
  return (e->flags & RTF_LOG_DISCARD) != 0;
}

gboolean
rtf_log_entry_is_mark (const RtfLogEntry * e)
{
  return (e->flags & RTF_LOG_MARK) != 0;
}

gboolean
rtf_log_entry_is_point (const RtfLogEntry * e)
{
  return (e->flags & (RTF_LOG_FLUSH | RTF_LOG_FUA | RTF_LOG_MARK)) != 0;
}

guint64
rtf_log_entry_data_bytes (const RtfLogWrites * log, const RtfLogEntry * e)
{
  if (rtf_log_entry_is_discard (e) || rtf_log_entry_is_mark (e))
    return 0;
  return e->nr_sectors * log->sectorsize;
}

void
rtf_log_flags_text (guint64 flags, gchar text[RTF_LOG_FLAGS_TEXT])
{
  static const struct
  {
    guint64 flag;
    gchar letter;
  } letters[] = {
    {RTF_LOG_FLUSH, 'F'}, {RTF_LOG_FUA, 'U'}, {RTF_LOG_DISCARD, 'D'},
    {RTF_LOG_MARK, 'M'}, {RTF_LOG_METADATA, 'm'},
  };
  guint i, n = 0;

  for (i = 0; i < G_N_ELEMENTS (letters); i++)
    if (flags & letters[i].flag)
      text[n++] = letters[i].letter;
  if (n == 0)
    text[n++] = '-';
  text[n] = '\0';
}

const RtfLogEntry *
rtf_log_writes_find_mark (const RtfLogWrites * log, const gchar * text,
    guint64 from)
{
  guint64 i;

  for (i = from; i < log->n_entries; i++)
    if (log->entries[i].mark != NULL
        && strcmp (log->entries[i].mark, text) == 0)
      return &log->entries[i];
  return NULL;
}

GArray *
rtf_log_writes_points (const RtfLogWrites * log)
{
  GArray *points = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 i;

  for (i = 0; i < log->n_entries; i++)
    if (rtf_log_entry_is_point (&log->entries[i]))
      g_array_append_val (points, i);
  return points;
}

void
rtf_log_writes_stats (const RtfLogWrites * log, guint64 from, guint64 to,
    RtfLogStats * stats)
{
  guint64 i;

  memset (stats, 0, sizeof (*stats));
  for (i = from; i <= to && i < log->n_entries; i++) {
    const RtfLogEntry *e = &log->entries[i];
    guint64 bytes = rtf_log_entry_data_bytes (log, e);

    stats->entries++;
    stats->writes += bytes > 0;
    stats->data_bytes += bytes;
    stats->flushes += rtf_log_entry_is_flush (e);
    stats->fua += rtf_log_entry_is_fua (e);
    stats->discards += rtf_log_entry_is_discard (e);
    stats->marks += rtf_log_entry_is_mark (e);
  }
}

/* The byte after the last one the entry writes or discards (0: none);
 * indexing checked that it fits in an off_t */
static guint64
entry_end (const RtfLogWrites * log, const RtfLogEntry * e)
{
  if (e->nr_sectors == 0 || rtf_log_entry_is_mark (e))
    return 0;
  return (e->sector + e->nr_sectors) * log->sectorsize;
}

guint64
rtf_log_writes_extent (const RtfLogWrites * log, guint64 from, guint64 to)
{
  guint64 i, end = 0;

  for (i = from; i <= to && i < log->n_entries; i++)
    end = MAX (end, entry_end (log, &log->entries[i]));
  return end;
}

/* ---- replaying --------------------------------------------------------- */

typedef struct
{
  gint fd;
  gboolean is_blockdev;
  guint64 size;
  guint8 *buf;                  /* for a write's data, CHUNK_BYTES at most */
  gsize buf_size;
} Target;

static gboolean
target_fail (GError ** error, gint code, const RtfLogEntry * e,
    const gchar * what, guint64 at)
{
  g_set_error (error, RTF_LOG_WRITES_ERROR, code, "entry %" G_GUINT64_FORMAT
      " (sector %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " sectors): %s at "
      "byte %" G_GUINT64_FORMAT " of the target: %s", e->index, e->sector,
      e->nr_sectors, what, at, g_strerror (errno));
  return FALSE;
}

/* The target's kind and size, and whether entries from..to fit in it */
static gboolean
target_open (const RtfLogWrites * log, guint64 from, guint64 to, gint fd,
    Target * t, GError ** error)
{
  gboolean kind_ok;
  guint64 need = rtf_log_writes_extent (log, from, to), i, most = 0;

  memset (t, 0, sizeof (*t));
  t->fd = fd;
  if (!size_of (fd, &t->size, &t->is_blockdev, &kind_ok)) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, kind_ok ?
        RTF_LOG_WRITES_ERROR_IO : RTF_LOG_WRITES_ERROR_TARGET,
        "the target: %s", kind_ok ? g_strerror (errno) :
        "not a regular file or a block device");
    return FALSE;
  }
  if (t->size < need) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_TARGET,
        "the target holds %" G_GUINT64_FORMAT " bytes; entries %"
        G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " write up to byte %"
        G_GUINT64_FORMAT ": it must be at least that large", t->size, from,
        to, need);
    return FALSE;
  }
  for (i = from; i <= to; i++)
    most = MAX (most, rtf_log_entry_data_bytes (log, &log->entries[i]));
  t->buf_size = MIN (most, CHUNK_BYTES);
  t->buf = t->buf_size > 0 ? g_malloc (t->buf_size) : NULL;
  return TRUE;
}

/* A write: its data copied from the log a chunk at a time */
static gboolean
apply_write (const RtfLogWrites * log, const RtfLogEntry * e, Target * t,
    GError ** error)
{
  guint64 len = rtf_log_entry_data_bytes (log, e), done;
  guint64 to = e->sector * log->sectorsize;
  const gchar *why;

  for (done = 0; done < len; done += t->buf_size) {
    gsize n = MIN (len - done, t->buf_size);

    if (!read_full (log->fd, e->data_offset + done, t->buf, n, &why)) {
      g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_IO,
          "%s: entry %" G_GUINT64_FORMAT ": reading its data at byte %"
          G_GUINT64_FORMAT " of the log: %s", log->name, e->index,
          e->data_offset + done, why);
      return FALSE;
    }
    if (!write_full (t->fd, to + done, t->buf, n))
      return target_fail (error, RTF_LOG_WRITES_ERROR_IO, e, "writing",
          to + done);
  }
  return TRUE;
}

/* Zeros written where a hole cannot be punched */
static gboolean
write_zeros (const RtfLogEntry * e, Target * t, guint64 at, guint64 len,
    GError ** error)
{
  gsize size = MIN (len, CHUNK_BYTES);
  guint8 *zeros = g_malloc0 (size);
  guint64 done;
  gboolean ok = TRUE;

  for (done = 0; ok && done < len; done += size)
    ok = write_full (t->fd, at + done, zeros, MIN (len - done, size));
  if (!ok)
    target_fail (error, RTF_LOG_WRITES_ERROR_IO, e, "writing zeros",
        at + done - size);
  g_free (zeros);
  return ok;
}

/* A discard: the range reads as zeros after it, on any target */
static gboolean
apply_discard (const RtfLogWrites * log, const RtfLogEntry * e, Target * t,
    GError ** error)
{
  guint64 at = e->sector * log->sectorsize;
  guint64 len = e->nr_sectors * log->sectorsize;

  if (len == 0)
    return TRUE;
  if (t->is_blockdev) {
    guint64 range[2] = { at, len };

    if (ioctl (t->fd, BLKZEROOUT, range) < 0)
      return target_fail (error, RTF_LOG_WRITES_ERROR_IO, e,
          "zeroing (BLKZEROOUT)", at);
    return TRUE;
  }
  if (fallocate (t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at,
          len) == 0)
    return TRUE;
  if (errno != EOPNOTSUPP)
    return target_fail (error, RTF_LOG_WRITES_ERROR_IO, e,
        "punching a hole", at);
  return write_zeros (e, t, at, len, error);
}

static gboolean
apply_one (const RtfLogWrites * log, const RtfLogEntry * e, Target * t,
    GError ** error)
{
  if (rtf_log_entry_is_discard (e))
    return apply_discard (log, e, t, error);
  return apply_write (log, e, t, error);
}

gboolean
rtf_log_writes_apply (const RtfLogWrites * log, guint64 i, gint target_fd,
    GError ** error)
{
  return rtf_log_writes_apply_range (log, i, i, target_fd, error);
}

gboolean
rtf_log_writes_apply_range (const RtfLogWrites * log, guint64 from,
    guint64 to, gint target_fd, GError ** error)
{
  Target t;
  guint64 i;
  gboolean ok = TRUE;

  if (from > to || to >= log->n_entries) {
    g_set_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_RANGE,
        "%s: entries %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ": the log "
        "has entries 0..%" G_GINT64_FORMAT, log->name, from, to,
        (gint64) log->n_entries - 1);
    return FALSE;
  }
  if (!target_open (log, from, to, target_fd, &t, error))
    return FALSE;
  for (i = from; ok && i <= to; i++)
    ok = apply_one (log, &log->entries[i], &t, error);
  g_free (t.buf);
  return ok;
}
