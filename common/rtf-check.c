/* rtframe: checking one recorded file against its index. */
#include "rtf-check.h"
#include "rtf-crc32c.h"
#include "rtf-safe-open.h"

#include <errno.h>
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

/* 0, or the errno reading it failed with (EIO: the file ended) */
static gint
frame_crc (gint fd, guint64 offset, guint32 size, guint8 * buf, gsize buf_len,
    guint32 * crc)
{
  guint64 done = 0;

  *crc = 0;
  while (done < size) {
    gsize want = MIN (buf_len, size - done);
    gboolean short_read;
    gint err = rtf_read_full (fd, offset + done, buf, want, &short_read);

    if (err)
      return err;
    *crc = rtf_crc32c (*crc, buf, want);
    done += want;
  }
  return 0;
}

/* Compares the checksums of the whole frames from from_frame on: a
 * mismatch is a fault and the check goes on; a read error ends it. */
static void
check_sums (const RtfRecordingFile * f, guint64 from_frame, RtfCheck * c)
{
  const RtfIndex *idx = f->index;
  const gsize buf_len = 4 << 20;
  gchar *why = NULL;
  guint8 *buf;
  guint64 i;
  gint fd = rtf_recording_file_reopen (f, FALSE, FALSE, &why);

  if (fd < 0) {
    fault (c, f->path, "cannot read it: %s", why);
    c->read_error = TRUE;
    g_free (why);
    return;
  }
  buf = g_malloc (buf_len);
  for (i = 0; i < f->walk.frames; i++) {
    const RtfIndexRecord *r = &idx->records[i];
    guint32 crc;
    gint err;

    if (!(r->flags & RTF_INDEX_REC_CHECKSUM) || f->first_frame + i < from_frame)
      continue;
    c->checked_sums++;
    if ((err = frame_crc (fd, r->offset, r->size, buf, buf_len, &crc)) != 0) {
      fault (c, f->path, "frame %" G_GUINT64_FORMAT " (bytes %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") cannot be read: %s; "
          "the check stops here", r->seq, r->offset, r->offset + r->size,
          g_strerror (err));
      c->read_error = TRUE;
      break;
    }
    if (crc != r->checksum) {
      fault (c, f->path, "frame %" G_GUINT64_FORMAT " (bytes %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") is corrupt: CRC32C "
          "%08x, the index says %08x", r->seq, r->offset,
          r->offset + r->size, crc, r->checksum);
      c->bad_sums++;
    }
  }
  close (fd);
  g_free (buf);
}

void
rtf_check_file (const RtfRecordingFile * f, gboolean checksums,
    guint64 from_frame, RtfCheck * c)
{
  const RtfIndex *idx = f->index;
  guint64 i;

  memset (c, 0, sizeof (*c));
  c->faults = g_ptr_array_new_with_free_func (g_free);
  if (f->state == RTF_FILE_NEVER_WRITTEN)
    return;
  if (f->state != RTF_FILE_OK) {
    fault (c, f->path, "%s (%s)", f->why, rtf_file_state_name (f->state));
    return;
  }
  if (idx->damage)
    fault (c, f->index_path, "%s", idx->damage);
  if (f->walk.why)
    fault (c, f->path, "%s", f->walk.why);
  c->good_frames = f->walk.frames;
  c->good_end = f->walk.end;
  for (i = 0; i < f->walk.frames; i++) {
    const RtfIndexRecord *r = &idx->records[i];

    if (i > 0 && r->seq > idx->records[i - 1].seq + 1
        && !(r->flags & RTF_INDEX_REC_EVENT_START))
      c->gaps += r->seq - idx->records[i - 1].seq - 1;
    if (r->flags & RTF_INDEX_REC_MISSED)
      c->missed++;
    if (r->flags & RTF_INDEX_REC_EVENT_START)
      c->recordings++;
    if (r->flags & RTF_INDEX_REC_PRERECORDED)
      c->prerecorded++;
    if (r->flags & RTF_INDEX_REC_GAP) {
      c->upstream_gaps++;
      c->missing_upstream += r->gap_missing;
    }
  }
  if (f->walk.stop == RTF_INDEX_WHOLE && f->data_size > f->walk.end)
    fault (c, f->path, "%" G_GUINT64_FORMAT " bytes after the last indexed "
        "frame (a recording that did not end cleanly: rtframe-recover cuts "
        "them)", f->data_size - f->walk.end);
  if (checksums && (idx->header.flags & RTF_INDEX_HAS_CHECKSUMS))
    check_sums (f, from_frame, c);
}

void
rtf_check_clear (RtfCheck * c)
{
  g_clear_pointer (&c->faults, g_ptr_array_unref);
}
