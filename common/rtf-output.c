/* rtframe: one file of a recording and its index while the writer fills
 * them.  The data file is written by the writer's frame writes; this keeps
 * the index records that follow them, in frame order, and finishes both. */
#include "rtf-output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void
init_tags (RtfOutput * o)
{
  o->reserve_tag.kind = RTF_IO_RESERVE;
  o->index_tag.kind = RTF_IO_INDEX;
  o->sync_data_tag.kind = RTF_IO_SYNC_DATA;
  o->sync_index_tag.kind = RTF_IO_SYNC_INDEX;
  o->reserve_tag.output = o->index_tag.output = o->sync_data_tag.output =
      o->sync_index_tag.output = o;
}

const gchar *
rtf_output_step_name (RtfOutputStep step)
{
  return step == RTF_OUTPUT_STEP_XFLAGS ? "xflags" :
      step == RTF_OUTPUT_STEP_INDEX ? "index" : "open";
}

RtfOutput *
rtf_output_open (const gchar * path, guint64 number,
    const RtfOutputConfig * config, gint * err, RtfOutputStep * step)
{
  RtfOutput *o = g_new0 (RtfOutput, 1);

  o->path = g_strdup (path);
  o->number = number;
  o->index_fd = -1;
  o->file.fd = -1;
  init_tags (o);

  *step = RTF_OUTPUT_STEP_OPEN;
  if (!rtf_file_open (&o->file, path, config->direct, &config->xflags, err))
    goto fail;
  if (o->file.xflags_errno) {
    *step = RTF_OUTPUT_STEP_XFLAGS;
    *err = o->file.xflags_errno;
    goto fail_unlink;
  }
  if (config->index && !o->file.stream) {
    *step = RTF_OUTPUT_STEP_INDEX;
    o->index_path = rtf_index_path (path);
    o->index_fd = open (o->index_path, O_WRONLY | O_CREAT | O_TRUNC |
        O_CLOEXEC, 0666);
    if (o->index_fd < 0) {
      *err = errno;
      goto fail_unlink;
    }
    /* the header (caps text, at most a few KiB) and the records */
    o->index_cap = RTF_INDEX_MAX_HEADER +
        RTF_OUTPUT_INDEX_RECORDS * RTF_INDEX_RECORD_SIZE;
    o->index_buf = g_malloc (o->index_cap);
  }
  if (!config->index && !o->file.stream) {
    /* an index left by an earlier recording to this name would describe
     * other frames */
    gchar *stale = rtf_index_path (path);

    (void) unlink (stale);
    g_free (stale);
  }
  if (config->preallocate && !o->file.stream) {
    /* Ahead of the first frame, on whichever thread opens the file; the
     * writer reserves the rest as it goes.  Failure is not fatal. */
    if (fallocate (o->file.fd, FALLOC_FL_KEEP_SIZE, 0,
            (off_t) config->preallocate) == 0)
      o->reserved_end = config->preallocate;
  }
  return o;

fail_unlink:
  (void) unlink (path);
fail:
  rtf_output_free (o, FALSE);
  return NULL;
}

void
rtf_output_begin (RtfOutput * o, const RtfIndexHeader * header,
    guint64 seq, guint64 time, guint64 running_time)
{
  o->begun = TRUE;
  o->first_seq = o->last_seq = seq;
  o->first_time = time;
  o->first_running_time = o->last_running_time = running_time;
  g_free (o->format);
  o->format = g_strdup (header->format);
  if (o->index_fd < 0)
    return;
  g_assert (o->index_len == 0 && o->index_end == 0);
  if (rtf_index_header_size (header->format) > RTF_INDEX_MAX_HEADER) {
    /* caps text of more than 64 KiB: kept as far as it fits (a reader
     * then says it cannot play them) rather than overrunning the buffer */
    RtfIndexHeader cut = *header;

    cut.format = g_strndup (header->format, RTF_INDEX_MAX_HEADER -
        RTF_INDEX_FIXED_HEADER - 8);
    o->index_len = o->index_header_size =
        rtf_index_encode_header (&cut, o->index_buf);
    g_free (cut.format);
    return;
  }
  o->index_len = o->index_header_size =
      rtf_index_encode_header (header, o->index_buf);
}

gboolean
rtf_output_index_has_room (RtfOutput * o)
{
  return o->index_fd < 0
      || o->index_len + RTF_INDEX_RECORD_SIZE <= o->index_cap;
}

void
rtf_output_add_record (RtfOutput * o, const RtfIndexRecord * r)
{
  o->frames++;
  o->last_seq = r->seq;
  o->last_running_time = r->running_time;
  if (o->index_fd < 0)
    return;
  g_assert (rtf_output_index_has_room (o));
  rtf_index_encode_record (r, o->index_buf + o->index_len);
  o->index_len += RTF_INDEX_RECORD_SIZE;
  o->index_records++;
}

gboolean
rtf_output_index_next (RtfOutput * o, const guint8 ** buf, gsize * len,
    guint64 * offset)
{
  if (o->index_fd < 0 || o->index_submitted > 0 || o->index_len == 0)
    return FALSE;
  *buf = o->index_buf;
  *len = o->index_len;
  *offset = o->index_end;
  o->index_submitted = o->index_len;
  return TRUE;
}

gint
rtf_output_index_done (RtfOutput * o, gint res)
{
  gsize done;

  if (res < 0)
    return -res;
  if (res == 0)
    return ENOSPC;
  done = MIN ((gsize) res, o->index_submitted);
  memmove (o->index_buf, o->index_buf + done, o->index_len - done);
  o->index_len -= done;
  o->index_end += done;
  o->index_submitted = 0;
  /* records whose last byte is on file */
  if (o->index_end >= o->index_header_size)
    o->index_records_done = (o->index_end - o->index_header_size) /
        RTF_INDEX_RECORD_SIZE;
  return 0;
}

gboolean
rtf_output_index_idle (RtfOutput * o)
{
  return o->index_fd < 0 || (o->index_submitted == 0 && o->index_len == 0);
}

gint
rtf_output_finish (RtfOutput * o)
{
  gint ret;

  /* what the index still holds (the writer writes it as it goes; this is
   * left after a failure or an abandoned stop) */
  if (o->index_fd >= 0) {
    while (o->index_len > 0) {
      ssize_t n = pwrite (o->index_fd, o->index_buf, o->index_len,
          (off_t) o->index_end);

      if (n < 0 && errno == EINTR)
        continue;
      o->index_submitted = o->index_len;
      if ((ret = rtf_output_index_done (o, n < 0 ? -errno : (gint) n)) != 0)
        return ret;
    }
  }
  if ((ret = rtf_file_finish (&o->file, o->written_end, o->reserved_end)) != 0)
    return ret;
  o->reserved_end = o->written_end;
  if (o->index_fd >= 0 && fdatasync (o->index_fd) < 0)
    return errno;
  return 0;
}

void
rtf_output_keep_released (RtfOutput * o)
{
  guint64 keep = o->released_records * RTF_INDEX_RECORD_SIZE +
      o->index_header_size;

  o->written_end = o->released_end;
  o->frames = o->released_records;
  if (o->index_fd < 0 || !o->begun)
    return;
  /* the records after them: still buffered, or already on file */
  if (keep >= o->index_end) {
    o->index_len = MIN (o->index_len, keep - o->index_end);
  } else {
    o->index_len = 0;
    o->index_end = keep;
    (void) ftruncate (o->index_fd, (off_t) keep);
  }
  o->index_submitted = 0;
}

void
rtf_output_info (RtfOutput * o, RtfFileInfo * info)
{
  memset (info, 0, sizeof (*info));
  info->path = o->path;
  info->index_path = o->index_path;
  info->number = o->number;
  info->frames = o->frames;
  info->bytes = o->written_end;
  info->first_seq = o->first_seq;
  info->last_seq = o->last_seq;
  info->first_running_time = o->begun ? o->first_running_time : G_MAXUINT64;
  info->last_running_time = o->frames ? o->last_running_time : G_MAXUINT64;
}

void
rtf_output_free (RtfOutput * o, gboolean unlink_files)
{
  if (o == NULL)
    return;
  rtf_file_close (&o->file);
  if (o->index_fd >= 0)
    close (o->index_fd);
  if (unlink_files) {
    (void) unlink (o->path);
    if (o->index_path)
      (void) unlink (o->index_path);
  }
  g_free (o->path);
  g_free (o->index_path);
  g_free (o->format);
  g_free (o->index_buf);
  g_free (o);
}
