/* rtframe: the per-file frame index.
 *
 * Little-endian, append-only: a header, then one fixed-size record per
 * frame written, in frame order.  Each header and record carries a CRC32C
 * of its own bytes, so a reader tells a torn or damaged tail from data. */
#include "rtf-index.h"
#include "rtf-crc32c.h"

#include <string.h>

#define HDR_CRC_AT 60
#define REC_CRC_AT 68

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

gsize
rtf_index_header_size (const gchar * format)
{
  gsize len = format ? strlen (format) : 0;

  return (RTF_INDEX_FIXED_HEADER + len + 1 + 7) & ~(gsize) 7;
}

gsize
rtf_index_encode_header (const RtfIndexHeader * h, guint8 * buf)
{
  gsize size = rtf_index_header_size (h->format);
  gsize len = h->format ? strlen (h->format) : 0;

  memset (buf, 0, size);
  memcpy (buf, RTF_INDEX_MAGIC, 8);
  put32 (buf + 8, RTF_INDEX_VERSION);
  put32 (buf + 12, (guint32) size);
  put32 (buf + 16, RTF_INDEX_RECORD_SIZE);
  put32 (buf + 20, h->flags);
  put64 (buf + 24, h->frame_size);
  put64 (buf + 32, h->file_number);
  put64 (buf + 40, h->deadline_ns);
  put64 (buf + 48, (guint64) h->created_ns);
  put32 (buf + 56, (guint32) len);
  if (len)
    memcpy (buf + RTF_INDEX_FIXED_HEADER, h->format, len);
  put32 (buf + HDR_CRC_AT, rtf_crc32c (0, buf, size));
  return size;
}

void
rtf_index_encode_record (const RtfIndexRecord * r, guint8 * buf)
{
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
  put32 (buf + REC_CRC_AT, rtf_crc32c (0, buf, REC_CRC_AT));
}

gboolean
rtf_index_decode_header (const guint8 * buf, gsize len, RtfIndexHeader * h,
    gchar ** why)
{
  guint8 *copy;
  guint32 size, flen, crc;

  memset (h, 0, sizeof (*h));
  if (len < RTF_INDEX_FIXED_HEADER || memcmp (buf, RTF_INDEX_MAGIC, 8) != 0) {
    *why = g_strdup (len == 0 ? "the index is empty (no frame was written)" :
        "not an rtframe index (bad magic)");
    return FALSE;
  }
  h->version = get32 (buf + 8);
  size = get32 (buf + 12);
  h->record_size = get32 (buf + 16);
  flen = get32 (buf + 56);
  if (h->version != RTF_INDEX_VERSION) {
    *why = g_strdup_printf ("index version %u is not supported (this build "
        "reads version %u)", h->version, RTF_INDEX_VERSION);
    return FALSE;
  }
  if (size > RTF_INDEX_MAX_HEADER || size < RTF_INDEX_FIXED_HEADER + 1
      || (gsize) flen + RTF_INDEX_FIXED_HEADER + 1 > size
      || h->record_size != RTF_INDEX_RECORD_SIZE) {
    *why = g_strdup ("the index header is damaged (sizes out of range)");
    return FALSE;
  }
  if (len < size) {
    *why = g_strdup ("the index header is cut short");
    return FALSE;
  }
  copy = g_memdup2 (buf, size);
  put32 (copy + HDR_CRC_AT, 0);
  crc = rtf_crc32c (0, copy, size);
  g_free (copy);
  if (crc != get32 (buf + HDR_CRC_AT)) {
    *why = g_strdup ("the index header is damaged (checksum mismatch)");
    return FALSE;
  }
  h->header_size = size;
  h->flags = get32 (buf + 20);
  h->frame_size = get64 (buf + 24);
  h->file_number = get64 (buf + 32);
  h->deadline_ns = get64 (buf + 40);
  h->created_ns = (gint64) get64 (buf + 48);
  h->format = g_strndup ((const gchar *) buf + RTF_INDEX_FIXED_HEADER, flen);
  return TRUE;
}

gboolean
rtf_index_decode_record (const guint8 * buf, RtfIndexRecord * r)
{
  if (rtf_crc32c (0, buf, REC_CRC_AT) != get32 (buf + REC_CRC_AT))
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
  return TRUE;
}

void
rtf_index_header_clear (RtfIndexHeader * h)
{
  g_clear_pointer (&h->format, g_free);
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

RtfIndex *
rtf_index_load (const gchar * path, GError ** error)
{
  gchar *contents = NULL, *why = NULL;
  gsize len = 0, at;
  RtfIndex *index;
  guint64 n, i;

  if (!g_file_get_contents (path, &contents, &len, error))
    return NULL;
  index = g_new0 (RtfIndex, 1);
  index->file_bytes = len;
  if (!rtf_index_decode_header ((const guint8 *) contents, len,
          &index->header, &why)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: %s", path, why);
    g_free (why);
    g_free (contents);
    rtf_index_free (index);
    return NULL;
  }
  at = index->header.header_size;
  n = (len - at) / RTF_INDEX_RECORD_SIZE;
  index->records = g_new (RtfIndexRecord, MAX (n, 1));
  for (i = 0; i < n; i++, at += RTF_INDEX_RECORD_SIZE) {
    if (!rtf_index_decode_record ((const guint8 *) contents + at,
            &index->records[i])) {
      index->damage = g_strdup_printf ("record %" G_GUINT64_FORMAT " (at "
          "byte %" G_GSIZE_FORMAT ") is damaged: checksum mismatch", i, at);
      break;
    }
  }
  index->n_records = i;
  index->valid_bytes = index->header.header_size +
      i * (guint64) RTF_INDEX_RECORD_SIZE;
  if (index->damage == NULL && at < len)
    index->damage = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes after the "
        "last record: a record cut short", len - at);
  g_free (contents);
  return index;
}
