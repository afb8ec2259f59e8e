/* rtframe: the per-file frame index.
 *
 * Little-endian, append-only: a header, then one fixed-size record per
 * frame written, in frame order.  Each header and record carries a CRC32C
 * of its own bytes, so a reader tells a torn or damaged tail from data. */
#include "rtf-index.h"
#include "rtf-crc32c.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR_CRC_AT 60

static void
put32 (guint8 * p, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, 4);
}

static void
put64 (guint8 * p, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, 8);
}

static guint32
get32 (const guint8 * p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static guint64
get64 (const guint8 * p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

gchar *
rtf_index_path (const gchar * data_path)
{
  return g_strconcat (data_path, RTF_INDEX_SUFFIX, NULL);
}

gint
rtf_index_probe (const gchar * path)
{
  struct stat st;
  gchar *why = NULL, magic[8];
  gboolean short_read;
  gint fd, ret;

  if (lstat (path, &st) < 0)
    return errno == ENOENT ? ENOENT : errno;
  if (S_ISLNK (st.st_mode))
    return ELOOP;
  fd = rtf_safe_open (path, FALSE, &st, &why);
  g_free (why);
  if (fd < 0)
    return EEXIST;
  ret = st.st_size == 0 ? 0 : rtf_read_full (fd, 0, magic, sizeof (magic),
      &short_read) == 0 && memcmp (magic, RTF_INDEX_MAGIC, 8) == 0 ? 0 : EEXIST;
  close (fd);
  return ret;
}

static guint32
version_of (const RtfIndexHeader * h)
{
  return h->version ? h->version : RTF_INDEX_VERSION;
}

static gsize
text_len (const gchar * s)
{
  return s ? strlen (s) : 0;
}

gsize
rtf_index_header_size (const RtfIndexHeader * h)
{
  gsize len = text_len (h->format) + 1;
  guint32 version = version_of (h);

  if (version == RTF_INDEX_VERSION_1)
    len += RTF_INDEX_FIXED_HEADER_V1;
  else
    len += RTF_INDEX_FIXED_HEADER + text_len (h->data_name) + 1;
  if (version >= 3)
    len += text_len (h->reference) + 1;
  len = (len + 7) & ~(gsize) 7;
  if (version >= 3 && (h->flags & RTF_INDEX_HAS_CLOCK_ANCHOR))
    len += RTF_INDEX_CLOCK_ANCHOR_SIZE;
  return len;
}

gboolean
rtf_index_wall_clock (const RtfIndexHeader * h, gint64 monotonic_ns,
    gint64 * realtime_ns)
{
  if (!(h->flags & RTF_INDEX_HAS_CLOCK_ANCHOR) || monotonic_ns <= 0)
    return FALSE;
  *realtime_ns = h->anchor_realtime_ns + (monotonic_ns -
      h->anchor_monotonic_ns);
  return TRUE;
}

gsize
rtf_index_record_size (guint32 version)
{
  return version == 0 || version >= 3 ? RTF_INDEX_RECORD_SIZE :
      RTF_INDEX_RECORD_SIZE_V2;
}

gsize
rtf_index_encode_header (const RtfIndexHeader * h, guint8 * buf)
{
  gsize size = rtf_index_header_size (h);
  gsize len = text_len (h->format), name = text_len (h->data_name);
  gsize ref = text_len (h->reference);
  guint32 version = version_of (h);
  guint8 *text = buf + RTF_INDEX_FIXED_HEADER_V1;

  memset (buf, 0, size);
  memcpy (buf, RTF_INDEX_MAGIC, 8);
  put32 (buf + 8, version);
  put32 (buf + 12, (guint32) size);
  put32 (buf + 16, (guint32) rtf_index_record_size (version));
  put32 (buf + 20, h->flags);
  put64 (buf + 24, h->frame_size);
  put64 (buf + 32, h->file_number);
  put64 (buf + 40, h->deadline_ns);
  put64 (buf + 48, (guint64) h->created_ns);
  put32 (buf + 56, (guint32) len);
  if (version != RTF_INDEX_VERSION_1) {
    memcpy (buf + 64, h->recording_id.bytes, RTF_RECORDING_ID_SIZE);
    put32 (buf + 80, h->max_in_flight);
    put32 (buf + 84, h->block);
    put32 (buf + 88, (guint32) name);
    if (name)
      memcpy (buf + RTF_INDEX_FIXED_HEADER, h->data_name, name);
    text = buf + RTF_INDEX_FIXED_HEADER + name + 1;
  }
  if (len)
    memcpy (text, h->format, len);
  if (version >= 3) {
    put32 (buf + 92, (guint32) ref);
    if (ref)
      memcpy (text + len + 1, h->reference, ref);
    if (h->flags & RTF_INDEX_HAS_CLOCK_ANCHOR) {
      put64 (buf + size - RTF_INDEX_CLOCK_ANCHOR_SIZE,
          (guint64) h->anchor_realtime_ns);
      put64 (buf + size - 8, (guint64) h->anchor_monotonic_ns);
    }
  }
  put32 (buf + HDR_CRC_AT, rtf_crc32c (0, buf, size));
  return size;
}

gsize
rtf_index_encode_record_as (const RtfIndexRecord * r, guint32 version,
    guint8 * buf)
{
  gsize size = rtf_index_record_size (version);

  memset (buf, 0, size);
  put64 (buf, r->seq);
  put64 (buf + 8, r->pts);
  put64 (buf + 16, r->duration);
  put64 (buf + 24, r->running_time);
  put64 (buf + 32, (guint64) r->arrival_ns);
  put64 (buf + 40, (guint64) r->complete_ns);
  put64 (buf + 48, r->offset);
  put32 (buf + 56, r->size);
  put32 (buf + 60, r->checksum);
  put32 (buf + 64, r->flags);
  if (size >= RTF_INDEX_RECORD_SIZE) {
    put32 (buf + 68, r->gap_missing);
    put64 (buf + 72, r->upstream_offset);
    put64 (buf + 80, r->reference_ns);
    put32 (buf + 88, r->gap_how);
  }
  put32 (buf + size - 4, rtf_crc32c (0, buf, size - 4));
  return size;
}

void
rtf_index_encode_record (const RtfIndexRecord * r, guint8 * buf)
{
  rtf_index_encode_record_as (r, RTF_INDEX_VERSION, buf);
}

static gboolean
bad_header (gchar ** why, const gchar * text)
{
  *why = g_strdup (text);
  return FALSE;
}

/* The sizes a header of `version` states are possible and fit in len */
static gboolean
check_sizes (const guint8 * buf, gsize len, guint32 version,
    RtfIndexHeader * h, gchar ** why)
{
  guint32 size = get32 (buf + 12), flen = get32 (buf + 56);
  guint64 need = (guint64) flen + 1;

  h->record_size = get32 (buf + 16);
  if (version == RTF_INDEX_VERSION_1) {
    need += RTF_INDEX_FIXED_HEADER_V1;
    if (h->record_size != RTF_INDEX_RECORD_SIZE_V2)
      return bad_header (why, "the index header is damaged (sizes out of "
          "range)");
  } else {
    if (len < RTF_INDEX_FIXED_HEADER)
      return bad_header (why, "the index header is cut short");
    need += RTF_INDEX_FIXED_HEADER + (guint64) get32 (buf + 88) + 1;
    if (version >= 3)
      need += (guint64) get32 (buf + 92) + 1;
    /* the clock anchor: 16 bytes after the texts' padding */
    if (version >= 3 && (get32 (buf + 20) & RTF_INDEX_HAS_CLOCK_ANCHOR))
      need = ((need + 7) & ~(guint64) 7) + RTF_INDEX_CLOCK_ANCHOR_SIZE;
    /* a later version may add fields at the end of each record */
    if (h->record_size < rtf_index_record_size (version)
        || h->record_size > RTF_INDEX_MAX_RECORD || h->record_size % 4)
      return bad_header (why, "the index header is damaged (sizes out of "
          "range)");
  }
  if (size > RTF_INDEX_MAX_HEADER || need > size || size % 8)
    return bad_header (why, "the index header is damaged (sizes out of "
        "range)");
  if (len < size)
    return bad_header (why, "the index header is cut short");
  h->header_size = size;
  return TRUE;
}

gboolean
rtf_index_decode_header (const guint8 * buf, gsize len, RtfIndexHeader * h,
    gchar ** why)
{
  guint8 *copy;
  guint32 crc, flen, nlen = 0;
  const guint8 *text;

  memset (h, 0, sizeof (*h));
  if (len < RTF_INDEX_FIXED_HEADER_V1 || memcmp (buf, RTF_INDEX_MAGIC, 8) != 0)
    return bad_header (why, len == 0 ? "the index is empty (no frame was "
        "written)" : "not an rtframe index (bad magic)");
  h->version = get32 (buf + 8);
  if (h->version < RTF_INDEX_VERSION_1 || h->version > RTF_INDEX_VERSION) {
    *why = g_strdup_printf ("index version %u is not supported (this build "
        "reads versions 1 to %u)", h->version, RTF_INDEX_VERSION);
    return FALSE;
  }
  if (!check_sizes (buf, len, h->version, h, why))
    return FALSE;
  copy = g_memdup2 (buf, h->header_size);
  put32 (copy + HDR_CRC_AT, 0);
  crc = rtf_crc32c (0, copy, h->header_size);
  g_free (copy);
  if (crc != get32 (buf + HDR_CRC_AT))
    return bad_header (why, "the index header is damaged (checksum "
        "mismatch)");
  h->flags = get32 (buf + 20);
  h->frame_size = get64 (buf + 24);
  h->file_number = get64 (buf + 32);
  h->deadline_ns = get64 (buf + 40);
  h->created_ns = (gint64) get64 (buf + 48);
  flen = get32 (buf + 56);
  text = buf + RTF_INDEX_FIXED_HEADER_V1;
  if (h->version != RTF_INDEX_VERSION_1) {
    memcpy (h->recording_id.bytes, buf + 64, RTF_RECORDING_ID_SIZE);
    h->max_in_flight = get32 (buf + 80);
    h->block = get32 (buf + 84);
    nlen = get32 (buf + 88);
    h->data_name = g_strndup ((const gchar *) buf + RTF_INDEX_FIXED_HEADER,
        nlen);
    text = buf + RTF_INDEX_FIXED_HEADER + nlen + 1;
  }
  h->format = g_strndup ((const gchar *) text, flen);
  if (h->version >= 3 && get32 (buf + 92) > 0)
    h->reference = g_strndup ((const gchar *) text + flen + 1,
        get32 (buf + 92));
  if (h->version >= 3 && (h->flags & RTF_INDEX_HAS_CLOCK_ANCHOR)) {
    h->anchor_realtime_ns = (gint64) get64 (buf + h->header_size -
        RTF_INDEX_CLOCK_ANCHOR_SIZE);
    h->anchor_monotonic_ns = (gint64) get64 (buf + h->header_size - 8);
  } else
    h->flags &= ~RTF_INDEX_HAS_CLOCK_ANCHOR;
  if (h->frame_size == 0) {
    rtf_index_header_clear (h);
    return bad_header (why, "the index header is damaged (frame size 0)");
  }
  return TRUE;
}

gboolean
rtf_index_decode_record (const guint8 * buf, gsize record_size,
    guint32 version, RtfIndexRecord * r)
{
  gsize crc_at = record_size - 4;

  if (rtf_crc32c (0, buf, crc_at) != get32 (buf + crc_at))
    return FALSE;
  r->seq = get64 (buf);
  r->pts = get64 (buf + 8);
  r->duration = get64 (buf + 16);
  r->running_time = get64 (buf + 24);
  r->arrival_ns = (gint64) get64 (buf + 32);
  r->complete_ns = (gint64) get64 (buf + 40);
  r->offset = get64 (buf + 48);
  r->size = get32 (buf + 56);
  r->checksum = get32 (buf + 60);
  r->flags = get32 (buf + 64);
  if (version >= 3 && record_size >= RTF_INDEX_RECORD_SIZE) {
    r->gap_missing = get32 (buf + 68);
    r->upstream_offset = get64 (buf + 72);
    r->reference_ns = get64 (buf + 80);
    r->gap_how = get32 (buf + 88);
  } else {
    r->gap_missing = r->gap_how = 0;
    r->upstream_offset = r->reference_ns = RTF_INDEX_NONE;
  }
  r->slot = 0;
  return TRUE;
}

void
rtf_index_header_clear (RtfIndexHeader * h)
{
  g_clear_pointer (&h->format, g_free);
  g_clear_pointer (&h->data_name, g_free);
  g_clear_pointer (&h->reference, g_free);
}

void
rtf_index_free (RtfIndex * index)
{
  if (index == NULL)
    return;
  rtf_index_header_clear (&index->header);
  g_free (index->records);
  g_free (index->damage);
  g_free (index);
}

static gboolean
read_error (GError ** error, gint err, gboolean short_read)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "cannot read the index: %s", short_read ? "it ended while being read"
      : g_strerror (err));
  return FALSE;
}

/* Whether a record of all zero bytes (a hole of a sparse file) is
 * damaged: its checksum, 0, is not the CRC32C of zeros */
static gboolean
zeros_are_damaged (const RtfIndexHeader * h)
{
  guint8 *zeros = g_malloc0 (h->record_size);
  RtfIndexRecord r;
  gboolean damaged = !rtf_index_decode_record (zeros, h->record_size,
      h->version, &r);

  g_free (zeros);
  return damaged;
}

/* Records of [slot, slots) lying whole in a hole of fd (from byte at of
 * the records): they read as zeros, which are no record.  0 where the
 * filesystem does not say (SEEK_DATA). */
static guint64
hole_slots (gint fd, guint64 at, gsize rs, guint64 slot, guint64 slots)
{
  off_t pos = (off_t) (at + slot * rs);
  off_t data = lseek (fd, pos, SEEK_DATA);

  if (data < 0)
    return errno == ENXIO ? slots - slot : 0;   /* a hole to the end */
  return MIN ((guint64) (data - pos) / rs, slots - slot);
}

/* One record (slot) decoded, or counted as damaged */
static void
take_record (RtfIndex * index, GArray * records, const guint8 * buf,
    guint64 slot)
{
  RtfIndexRecord r;

  if (!rtf_index_decode_record (buf, index->header.record_size,
          index->header.version, &r)) {
    if (index->n_damaged++ == 0)
      index->first_damaged = slot;
    return;
  }
  r.slot = slot;
  g_array_append_val (records, r);
  index->keep_slots = slot + 1;
}

/* Holes of a sparse index skipped: counted as damaged records, unread */
static void
skip_damaged (RtfIndex * index, guint64 slot, guint64 n)
{
  if (n && index->n_damaged == 0)
    index->first_damaged = slot;
  index->n_damaged += n;
}

/* Decodes the records of [at, end) of fd, a chunk of 1 MiB at a time:
 * memory grows with the intact records found (the bytes that are there),
 * never with the number of records the size of the file claims; the
 * holes of a sparse file are skipped without reading them. */
static gboolean
read_records (RtfIndex * index, gint fd, guint64 at, guint64 end,
    GError ** error)
{
  const gsize rs = index->header.record_size;
  const gsize chunk_records = MAX (1, (1 << 20) / rs);
  const gboolean skip_holes = zeros_are_damaged (&index->header);
  guint64 slots = (end - at) / rs, slot = 0;
  GArray *records = g_array_new (FALSE, FALSE, sizeof (RtfIndexRecord));
  guint8 *buf = g_malloc (chunk_records * rs);
  gboolean ok = TRUE;

  while (slot < slots && ok) {
    guint64 hole = skip_holes ? hole_slots (fd, at, rs, slot, slots) : 0;
    gsize n = MIN (chunk_records, slots - slot - hole), i;
    gboolean short_read;
    gint err;

    skip_damaged (index, slot, hole);
    slot += hole;
    if (n == 0)
      continue;
    err = rtf_read_full (fd, at + slot * rs, buf, n * rs, &short_read);
    if (err != 0) {
      ok = read_error (error, err, short_read);
      break;
    }
    for (i = 0; i < n; i++, slot++)
      take_record (index, records, buf + i * rs, slot);
  }
  g_free (buf);
  index->n_records = records->len;
  index->records = (RtfIndexRecord *) g_array_free (records, FALSE);
  return ok;
}

/* What the records say is wrong with the index, for a reader */
static void
describe_damage (RtfIndex * index, guint64 slots, guint64 len)
{
  const RtfIndexHeader *h = &index->header;
  guint64 tail = slots - index->keep_slots;
  guint64 middle = index->n_damaged - MIN (index->n_damaged, tail);
  guint64 end = h->header_size + slots * (guint64) h->record_size;

  index->n_damaged = middle;
  if (middle)
    index->damage = g_strdup_printf ("%" G_GUINT64_FORMAT " damaged "
        "record%s between intact ones, the first at place %" G_GUINT64_FORMAT
        " (byte %" G_GUINT64_FORMAT ")", middle, middle == 1 ? "" : "s",
        index->first_damaged, h->header_size + index->first_damaged *
        (guint64) h->record_size);
  else if (tail == 1)
    index->damage = g_strdup_printf ("its last record (from byte %"
        G_GUINT64_FORMAT ") is damaged or torn", index->valid_bytes);
  else if (tail)
    index->damage = g_strdup_printf ("its last %" G_GUINT64_FORMAT
        " records (from byte %" G_GUINT64_FORMAT ") are damaged or torn",
        tail, index->valid_bytes);
  else if (end < len && !index->capped)
    index->damage = g_strdup_printf ("%" G_GUINT64_FORMAT " bytes after the "
        "last record: a record cut short", len - end);
  else if (index->capped)
    index->damage = g_strdup_printf ("%" G_GUINT64_FORMAT " bytes, more "
        "than its data file explains: read up to byte %" G_GUINT64_FORMAT,
        len, end);
}

RtfIndex *
rtf_index_read (gint fd, guint64 data_size, GError ** error)
{
  struct stat st;
  guint8 *head;
  gsize head_len;
  gchar *why = NULL;
  RtfIndex *index;
  guint64 slots, max_slots, end;
  gboolean short_read;
  gint err;

  if (fstat (fd, &st) < 0) {
    read_error (error, errno, FALSE);
    return NULL;
  }
  head_len = MIN ((guint64) st.st_size, RTF_INDEX_MAX_HEADER);
  head = g_malloc (MAX (head_len, 1));
  if ((err = rtf_read_full (fd, 0, head, head_len, &short_read)) != 0) {
    read_error (error, err, short_read);
    g_free (head);
    return NULL;
  }
  index = g_new0 (RtfIndex, 1);
  index->file_bytes = st.st_size;
  if (!rtf_index_decode_header (head, head_len, &index->header, &why)) {
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, why);
    g_free (why);
    g_free (head);
    rtf_index_free (index);
    return NULL;
  }
  g_free (head);
  slots = (st.st_size - index->header.header_size) / index->header.record_size;
  max_slots = data_size / index->header.frame_size + RTF_INDEX_SLACK_RECORDS;
  if (slots > max_slots) {
    slots = max_slots;
    index->capped = TRUE;
  }
  end = index->header.header_size + slots * index->header.record_size;
  if (!read_records (index, fd, index->header.header_size, end, error)) {
    rtf_index_free (index);
    return NULL;
  }
  index->valid_bytes = index->header.header_size +
      index->keep_slots * (guint64) index->header.record_size;
  describe_damage (index, slots, st.st_size);
  return index;
}

RtfIndex *
rtf_index_load (const gchar * path, GError ** error)
{
  struct stat st;
  gchar *why = NULL;
  gint fd = rtf_safe_open (path, FALSE, &st, &why);
  RtfIndex *index;

  if (fd < 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "%s: %s", path, why);
    g_free (why);
    return NULL;
  }
  index = rtf_index_read (fd, G_MAXUINT64 - RTF_INDEX_SLACK_RECORDS *
      (guint64) RTF_INDEX_MAX_RECORD, error);
  close (fd);
  return index;
}

void
rtf_index_walk (const RtfIndex * index, guint64 data_size, RtfIndexWalk * walk)
{
  const RtfIndexHeader *h = &index->header;
  guint64 i, end = 0, prev_slot = 0, prev_seq = 0;

  memset (walk, 0, sizeof (*walk));
  for (i = 0; i < index->n_records; i++) {
    const RtfIndexRecord *r = &index->records[i];
    /* damaged records before it each stand for a frame */
    guint64 skipped = i == 0 ? r->slot : r->slot - prev_slot - 1;
    guint64 want = end + skipped * h->frame_size;

    walk->record = i;
    if (r->size != h->frame_size) {
      walk->stop = RTF_INDEX_INCONSISTENT;
      walk->why = g_strdup_printf ("frame %" G_GUINT64_FORMAT " (record %"
          G_GUINT64_FORMAT ") has %u bytes, the header says %"
          G_GUINT64_FORMAT, r->seq, r->slot, r->size, h->frame_size);
      return;
    }
    if (r->offset != want) {
      walk->stop = RTF_INDEX_INCONSISTENT;
      walk->why = g_strdup_printf ("frame %" G_GUINT64_FORMAT " (record %"
          G_GUINT64_FORMAT ") is at byte %" G_GUINT64_FORMAT ", not %"
          G_GUINT64_FORMAT, r->seq, r->slot, r->offset, want);
      return;
    }
    if (i > 0 && r->seq <= prev_seq && !(r->flags & RTF_INDEX_REC_FAILED_OVER)) {
      walk->stop = RTF_INDEX_INCONSISTENT;
      walk->why = g_strdup_printf ("frame %" G_GUINT64_FORMAT " follows "
          "frame %" G_GUINT64_FORMAT ": out of order", r->seq, prev_seq);
      return;
    }
    if (r->offset + r->size > data_size) {
      walk->stop = RTF_INDEX_BEYOND_DATA;
      walk->why = g_strdup_printf ("frame %" G_GUINT64_FORMAT " ends at "
          "byte %" G_GUINT64_FORMAT " but the file has %" G_GUINT64_FORMAT
          " bytes: cut short", r->seq, r->offset + r->size, data_size);
      return;
    }
    end = r->offset + r->size;
    prev_slot = r->slot;
    prev_seq = MAX (prev_seq, r->seq);
    walk->frames = i + 1;
    walk->end = end;
  }
  walk->record = index->n_records;
  walk->stop = RTF_INDEX_WHOLE;
}

void
rtf_index_walk_clear (RtfIndexWalk * walk)
{
  g_clear_pointer (&walk->why, g_free);
}
