/* rtframe: rtframesink's frames in memory - pools aligned for direct I/O
 * (proposed upstream, for repacking, for pre-record), and what the element
 * attaches to each frame the writer gives it: the buffer's memories
 * mapped, kept until the writer is done with them, and the caps and
 * reference timestamps as text for the index header. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframememory.h"
#include "gstrtframefigures.h"
#include "gstrtframesink-private.h"

#include <gst/video/video.h>

/* ---- aligned memory ---------------------------------------------------- */

gsize
gst_rtframe_sink_memory_alignment (GstRtFrameSink * self)
{
  RtfWriterStats st;
  gsize align = 4096;

  GST_OBJECT_LOCK (self);
  if (self->writer) {
    gst_rtframe_sink_writer_stats (self, &st, NULL);
    align = MAX (align, st.mem_align);
  }
  GST_OBJECT_UNLOCK (self);
  return align;
}

GstBufferPool *
gst_rtframe_sink_new_aligned_pool (GstRtFrameSink * self, GstCaps * caps,
    const GstRtFrameFormat * format, guint min_buffers,
    GstAllocationParams * params)
{
  GstBufferPool *pool;
  GstStructure *config;

  gst_allocation_params_init (params);
  params->align = gst_rtframe_sink_memory_alignment (self) - 1;

  pool = format->is_video ? gst_video_buffer_pool_new () :
      gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, format->frame_size,
      min_buffers, 0);
  /* memory the writer can register with its io_uring ring */
  gst_buffer_pool_config_set_allocator (config, self->allocator, params);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* ---- what the element attaches to a frame ------------------------------ */

GstRtFrameMapping *
gst_rtframe_sink_mappings_new (RtfQueue * queue)
{
  GstRtFrameMapping *m = g_new0 (GstRtFrameMapping,
      rtf_queue_capacity (queue));
  guint i;

  for (i = 0; i < rtf_queue_capacity (queue); i++)
    rtf_queue_cell (queue, i)->user = &m[i];
  return m;
}

/* Maps the buffer's memories into the frame the writer gave: FALSE when
 * one cannot be read, or they do not hold the frame's size (the writer
 * would pad what is missing with zeros) */
static gboolean
map_memories (RtfFrame * frame, GstBuffer * frame_buf)
{
  GstRtFrameMapping *mapping = frame->user;
  guint i, n_mem;
  gsize total = 0;

  g_return_val_if_fail (GST_IS_BUFFER (frame_buf), FALSE);
  n_mem = gst_buffer_n_memory (frame_buf);
  g_assert (n_mem <= RTF_FRAME_MAX_IOV);
  mapping->buffer = frame_buf;
  for (i = 0; i < n_mem; i++) {
    mapping->mem[i] = gst_buffer_peek_memory (frame_buf, i);
    if (!gst_memory_map (mapping->mem[i], &mapping->map[i], GST_MAP_READ))
      return FALSE;
    mapping->n_map = i + 1;
    frame->iov[i].iov_base = mapping->map[i].data;
    frame->iov[i].iov_len = mapping->map[i].size;
    total += mapping->map[i].size;
  }
  frame->n_iov = n_mem;
  return total == frame->size;
}

gboolean
gst_rtframe_sink_attach (GstRtFrameSink * self, RtfFrame * frame,
    GstBuffer * frame_buf)
{
  if (!map_memories (frame, frame_buf))
    return FALSE;
  frame->format = g_ref_string_acquire (self->format_text);
  frame->reference = self->reference_text ?
      g_ref_string_acquire (self->reference_text) : NULL;
  return TRUE;
}

static void
mapping_clear (GstRtFrameMapping * mapping)
{
  guint i;

  for (i = 0; i < mapping->n_map; i++)
    gst_memory_unmap (mapping->mem[i], &mapping->map[i]);
  mapping->n_map = 0;
  gst_clear_buffer (&mapping->buffer);
}

/* What the element attached to a frame goes back */
void
gst_rtframe_sink_frame_clear (RtfFrame * frame)
{
  mapping_clear ((GstRtFrameMapping *) frame->user);
  if (frame->format) {
    g_ref_string_release ((gchar *) frame->format);
    frame->format = NULL;
  }
  if (frame->reference) {
    g_ref_string_release ((gchar *) frame->reference);
    frame->reference = NULL;
  }
}

void
gst_rtframe_sink_frame_unpin (RtfFrame * frame)
{
  mapping_clear ((GstRtFrameMapping *) frame->user);
}
