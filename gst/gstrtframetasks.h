/* rtframe: rtframesink's threads (gstrtframetasks.c): the writer task, the
 * reporter task, the writer's helpers as tasks, a writer given up on */
#ifndef __GST_RTFRAME_TASKS_H__
#define __GST_RTFRAME_TASKS_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

/* The writer's helper threads run as tasks (self->helper_threads) */
void gst_rtframe_sink_init_threads (GstRtFrameSink * self);
/* Creates and starts the writer task for self->writer: FALSE when it
 * could not start */
gboolean gst_rtframe_sink_start_writer_task (GstRtFrameSink * self);
void gst_rtframe_sink_join_writer_task (GstRtFrameSink * self);
/* stop() waited stop-timeout and the writer still holds frames: leave it
 * to finish in the kernel on its own, report the frames it holds lost.
 * FALSE when it had finished after all (then join it as usual). */
gboolean gst_rtframe_sink_abandon_writer (GstRtFrameSink * self,
    guint64 timeout);
gboolean gst_rtframe_sink_start_reporter (GstRtFrameSink * self);
void gst_rtframe_sink_stop_reporter (GstRtFrameSink * self);
/* Posts what the event ring holds, in order (the reporter task, and
 * before EOS) */
void gst_rtframe_sink_post_events (GstRtFrameSink * self);
/* The tasks' objects go, once joined (or the writer's given up) */
void gst_rtframe_sink_release_tasks (GstRtFrameSink * self);

G_END_DECLS
#endif /* __GST_RTFRAME_TASKS_H__ */
