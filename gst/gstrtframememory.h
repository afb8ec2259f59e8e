/* rtframe: rtframesink's frames in memory - pools aligned for direct I/O,
 * and what the element attaches to a writer's frame (the buffer's memories
 * mapped, the caps and reference timestamps as text) and lets go.  Below
 * every part that hands frames to the writer. */
#ifndef __GST_RTFRAME_MEMORY_H__
#define __GST_RTFRAME_MEMORY_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

/* The alignment of memory the sink allocates (direct I/O's) */
gsize gst_rtframe_sink_memory_alignment (GstRtFrameSink * self);
/* A pool of frames of `format` in the sink's memory, aligned for direct
 * I/O (*params: the allocation params it was given); NULL when its config
 * is refused */
GstBufferPool *gst_rtframe_sink_new_aligned_pool (GstRtFrameSink * self,
    GstCaps * caps, const GstRtFrameFormat * format, guint min_buffers,
    GstAllocationParams * params);
/* A mapping for each cell of a writer's queue, set as the cell's user
 * data (g_free() them once the writer is freed) */
GstRtFrameMapping *gst_rtframe_sink_mappings_new (RtfQueue * queue);
/* Maps a buffer's memories into the frame the writer gave and labels it
 * with the caps and reference timestamps its index header names: FALSE
 * when a memory cannot be read, or they do not hold the frame's size */
gboolean gst_rtframe_sink_attach (GstRtFrameSink * self, RtfFrame * frame,
    GstBuffer * frame_buf);
/* Releases what the element attached to a frame */
void gst_rtframe_sink_frame_clear (RtfFrame * frame);
/* Lets the frame's buffer go now, its labels stay (a frame written behind
 * a backlog) */
void gst_rtframe_sink_frame_unpin (RtfFrame * frame);

G_END_DECLS
#endif /* __GST_RTFRAME_MEMORY_H__ */
