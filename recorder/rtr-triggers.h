/* rtframe-record: events - the sinks hold pre-record seconds and write
 * only when triggered.  A trigger gives every camera's sink the same
 * running time (start-recording at it, stop-recording post-record
 * later): all cameras start and stop at the same frame.  Triggers come
 * from Enter on the terminal, SIGUSR1, the config's timed events, or the
 * caller (rtr_triggers_fire()); SIGUSR2 stops a recording now. */
#ifndef __RTR_TRIGGERS_H__
#define __RTR_TRIGGERS_H__

#include "rtr-config.h"

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _RtrTriggers RtrTriggers;

RtrTriggers *rtr_triggers_new (const RtrConfig * c, GstElement * pipeline);
void rtr_triggers_free (RtrTriggers * t);

/* Starts listening: the terminal, SIGUSR1/SIGUSR2, the timed events */
void rtr_triggers_watch (RtrTriggers * t);

/* A trigger now: FALSE when the pipeline has no running time yet */
gboolean rtr_triggers_fire (RtrTriggers * t);

/* Every sink starts (or stops) recording at running time at
 * (GST_CLOCK_TIME_NONE: now); *used: the time given; the cameras that
 * refused, named in *refused (NULL: none).  FALSE when the pipeline has
 * no running time yet. */
gboolean rtr_triggers_at (RtrTriggers * t, gboolean start, GstClockTime at,
    GstClockTime * used, gchar ** refused);

/* Every sink stops recording now */
void rtr_triggers_stop (RtrTriggers * t);

G_END_DECLS

#endif /* __RTR_TRIGGERS_H__ */
