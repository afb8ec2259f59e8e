/* rtframe: checking one recorded file against its index. */
#include "rtf-check.h"
#include "rtf-crc32c.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void
fault (RtfCheck * c, const gchar * path, const gchar * format, ...)
G_GNUC_PRINTF (3, 4);

     static void fault (RtfCheck * c, const gchar * path, const gchar * format,
    ...)
{
  va_list args;
  gchar *msg;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (c->faults, g_strdup_printf ("%s: %s", path, msg));
  g_free (msg);
}

static gboolean
frame_crc (gint fd, guint64 offset, guint32 size, guint8 * buf, gsize buf_len,
    guint32 * crc)
{
  guint64 done = 0;

  *crc = 0;
  while (done < size) {
    gsize want = MIN (buf_len, size - done);
    ssize_t n = pread (fd, buf, want, (off_t) (offset + done));

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    *crc = rtf_crc32c (*crc, buf, n);
    done += n;
  }
  return TRUE;
}

void
rtf_check_file (const RtfRecordingFile * f, gboolean checksums,
    guint64 from_frame, RtfCheck * c)
{
  const RtfIndex *idx = f->index;
  guint64 i, end = 0, prev_seq = 0;
  gboolean broken = FALSE;
  gint fd = -1;
  guint8 *buf = NULL;
  const gsize buf_len = 4 << 20;

  memset (c, 0, sizeof (*c));
  c->faults = g_ptr_array_new_with_free_func (g_free);
  if (idx == NULL) {
    fault (c, f->path, "no usable index: %s", f->index_error);
    return;
  }
  if (idx->damage)
    fault (c, f->index_path, "%s", idx->damage);
  if (checksums && (idx->header.flags & RTF_INDEX_HAS_CHECKSUMS)) {
    fd = open (f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      fault (c, f->path, "cannot read it: %s", g_strerror (errno));
    buf = g_malloc (buf_len);
  }

  for (i = 0; i < idx->n_records; i++) {
    const RtfIndexRecord *r = &idx->records[i];

    if (r->offset != end) {
      fault (c, f->path, "frame %" G_GUINT64_FORMAT " (record %"
          G_GUINT64_FORMAT ") is at byte %" G_GUINT64_FORMAT ", not %"
          G_GUINT64_FORMAT, r->seq, i, r->offset, end);
      broken = TRUE;
    } else if (r->size != idx->header.frame_size) {
      fault (c, f->path, "frame %" G_GUINT64_FORMAT " has %u bytes, the "
          "header says %" G_GUINT64_FORMAT, r->seq, r->size,
          idx->header.frame_size);
      broken = TRUE;
    } else if (i > 0 && r->seq <= prev_seq) {
      fault (c, f->path, "frame %" G_GUINT64_FORMAT " follows frame %"
          G_GUINT64_FORMAT ": out of order", r->seq, prev_seq);
      broken = TRUE;
    } else if (r->offset + r->size > f->data_size) {
      fault (c, f->path, "frame %" G_GUINT64_FORMAT " ends at byte %"
          G_GUINT64_FORMAT " but the file has %" G_GUINT64_FORMAT
          " bytes: cut short", r->seq, r->offset + r->size, f->data_size);
      broken = TRUE;
    } else if (fd >= 0 && (r->flags & RTF_INDEX_REC_CHECKSUM)
        && f->first_frame + i >= from_frame) {
      guint32 crc;

      c->checked_sums++;
      if (!frame_crc (fd, r->offset, r->size, buf, buf_len, &crc)) {
        fault (c, f->path, "frame %" G_GUINT64_FORMAT " cannot be read",
            r->seq);
        broken = TRUE;
      } else if (crc != r->checksum) {
        fault (c, f->path, "frame %" G_GUINT64_FORMAT " (bytes %"
            G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") is corrupt: CRC32C "
            "%08x, the index says %08x", r->seq, r->offset,
            r->offset + r->size, crc, r->checksum);
        broken = TRUE;
      }
    }
    if (i > 0 && r->seq > prev_seq + 1)
      c->gaps += r->seq - prev_seq - 1;
    prev_seq = r->seq;
    end = r->offset + r->size;
    if (!broken) {
      c->good_frames = i + 1;
      c->good_end = end;
      if (r->flags & RTF_INDEX_REC_MISSED)
        c->missed++;
    }
  }
  if (!broken && f->data_size > end)
    fault (c, f->path, "%" G_GUINT64_FORMAT " bytes after the last indexed "
        "frame (a recording that did not end cleanly: rtframe-recover cuts "
        "them)", f->data_size - end);
  if (fd >= 0)
    close (fd);
  g_free (buf);
}

void
rtf_check_clear (RtfCheck * c)
{
  g_clear_pointer (&c->faults, g_ptr_array_unref);
}
