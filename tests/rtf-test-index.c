/* rtframe tests: recordings made by hand. */
#include "rtf-test-index.h"
#include "rtf-crc32c.h"
#include "rtf-file-mark.h"
#include "rtf-upstream-gap.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void
rtf_test_index_record (RtfIndexRecord * r, guint64 i, guint32 size)
{
  r->seq = i;
  r->pts = i * 50000000;
  r->duration = 50000000;
  r->running_time = i == 3 ? RTF_INDEX_NONE : i * 50000000 + 7;
  r->arrival_ns = 1000 + i;
  r->complete_ns = 2000 + i;
  r->offset = i * size;
  r->size = size;
  r->checksum = 0xdead0000u + i;
  r->flags = RTF_INDEX_REC_CHECKSUM | (i == 2 ? RTF_INDEX_REC_MISSED : 0);
  r->upstream_offset = 1000 + i + (i >= RTF_TEST_GAP_FRAME ?
      RTF_TEST_GAP_MISSING : 0);
  r->reference_ns = G_GUINT64_CONSTANT (7000000000) + i * 50000000 + 11;
  r->gap_missing = r->gap_how = 0;
  if (i == RTF_TEST_GAP_FRAME) {
    r->flags |= RTF_INDEX_REC_GAP;
    r->gap_missing = RTF_TEST_GAP_MISSING;
    r->gap_how = RTF_GAP_OFFSET;
  }
  r->slot = 0;
}

gchar *
rtf_test_index_write (const gchar * dir, const RtfTestRecording * t)
{
  gchar *path = g_build_filename (dir, t->name, NULL);
  gchar *ipath = rtf_index_path (path);
  RtfIndexHeader h = { 0 };
  GByteArray *idx = g_byte_array_new ();
  guint8 *buf = g_malloc (RTF_INDEX_MAX_HEADER);
  guint8 *data = g_malloc (MAX ((gsize) t->frames * t->size, 1));
  gsize i;

  h.version = t->version;
  h.flags = t->checksums ? RTF_INDEX_HAS_CHECKSUMS : 0;
  h.frame_size = t->size;
  h.file_number = t->number;
  h.deadline_ns = 50000000;
  h.created_ns = 1234;
  h.format = (gchar *) RTF_TEST_CAPS_TEXT;
  h.data_name = (gchar *) t->name;
  h.reference = (gchar *) RTF_TEST_REFERENCE_TEXT;
  h.max_in_flight = 4;
  h.block = 4096;
  memset (h.recording_id.bytes, t->id, RTF_RECORDING_ID_SIZE);
  g_byte_array_append (idx, buf, rtf_index_encode_header (&h, buf));
  for (i = 0; i < (gsize) t->frames * t->size; i++)
    data[i] = (guint8) (i * 7 + i / t->size);
  for (i = 0; i < t->frames; i++) {
    RtfIndexRecord r;

    rtf_test_index_record (&r, i, t->size);
    r.checksum = rtf_crc32c (0, data + i * t->size, t->size);
    if (!t->checksums)
      r.flags &= ~RTF_INDEX_REC_CHECKSUM;
    /* an earlier version knows no gap flag */
    if (t->version && t->version < 3)
      r.flags &= ~RTF_INDEX_REC_GAP;
    g_byte_array_append (idx, buf, rtf_index_encode_record_as (&r, t->version,
            buf));
  }
  g_assert_true (g_file_set_contents (ipath, (gchar *) idx->data, idx->len,
          NULL));
  g_assert_true (g_file_set_contents (path, (gchar *) data,
          (gsize) t->frames * t->size, NULL));
  if (t->mark) {
    gint fd = open (path, O_RDONLY | O_CLOEXEC);

    g_assert_cmpint (rtf_file_mark_set (fd, &h.recording_id, t->number), ==, 0);
    close (fd);
  }
  g_byte_array_unref (idx);
  g_free (data);
  g_free (buf);
  g_free (ipath);
  return path;
}

void
rtf_test_poke (const gchar * path, guint64 at, gchar c)
{
  FILE *f = fopen (path, "r+b");

  g_assert_nonnull (f);
  fseek (f, (long) at, SEEK_SET);
  fputc (c, f);
  fclose (f);
}
