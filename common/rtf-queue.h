/* rtframe: the bounded frame queue between the streaming thread and the
 * writer thread */
#ifndef __RTF_QUEUE_H__
#define __RTF_QUEUE_H__

#include "rtf-frame.h"

G_BEGIN_DECLS

typedef struct _RtfQueue RtfQueue;

typedef enum
{
  RTF_QUEUE_OK,
  RTF_QUEUE_FULL,               /* no room and the caller may not wait */
  RTF_QUEUE_FLUSHING,           /* a wait was aborted by set_flushing() */
  RTF_QUEUE_CLOSED              /* the writer failed: nothing more is taken */
} RtfQueueResult;

/* Per frame, from rtf_queue_reserve() to rtf_queue_release():
 *   FREE -> RESERVED -> QUEUED -> IN_FLIGHT -> WRITTEN | FAILED -> FREE
 *                             \-> DROPPED -> FREE
 * A frame counts against the limits for that whole time, so the limits
 * bound the memory held by frames that are queued *and* being written.
 * One producer thread and one consumer (writer) thread. */
RtfQueue *rtf_queue_new (guint max_frames, guint64 max_bytes);
void rtf_queue_free (RtfQueue * q);

guint rtf_queue_capacity (RtfQueue * q);
RtfFrame *rtf_queue_slot (RtfQueue * q, guint index);
void rtf_queue_get_level (RtfQueue * q, guint * frames, guint64 * bytes,
    guint * queued);

/* Producer side */
RtfQueueResult rtf_queue_reserve (RtfQueue * q, gsize size, gboolean may_wait,
    RtfFrame ** frame, gint64 * waited_ns);
void rtf_queue_commit (RtfQueue * q, RtfFrame * frame);
void rtf_queue_cancel (RtfQueue * q, RtfFrame * frame);
void rtf_queue_set_flushing (RtfQueue * q, gboolean flushing);
RtfQueueResult rtf_queue_barrier (RtfQueue * q, gint * result);
void rtf_queue_shutdown (RtfQueue * q);

/* Consumer side */
gint rtf_queue_doorbell_fd (RtfQueue * q);
void rtf_queue_ack_doorbell (RtfQueue * q);
RtfFrame *rtf_queue_pop (RtfQueue * q);
RtfFrame *rtf_queue_oldest (RtfQueue * q);
void rtf_queue_release (RtfQueue * q, RtfFrame * frame);
gboolean rtf_queue_barrier_pending (RtfQueue * q);
void rtf_queue_barrier_done (RtfQueue * q, gint result);
gboolean rtf_queue_is_shutdown (RtfQueue * q);
void rtf_queue_close (RtfQueue * q);

G_END_DECLS

#endif /* __RTF_QUEUE_H__ */
