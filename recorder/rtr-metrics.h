/* rtframe-record: the figures in Prometheus' text format (version 0.0.4):
 * counters with _total, base units (bytes, seconds), # HELP and # TYPE,
 * the camera and the location as labels.  GET /metrics serves it. */
#ifndef __RTR_METRICS_H__
#define __RTR_METRICS_H__

#include "rtr-commands.h"
#include "rtr-figures.h"

G_BEGIN_DECLS
/* The cameras' figures, the commands answered (k may be NULL) and the
 * filesystems measured (RtrFilesystem) */
    gchar * rtr_metrics_text (const RtrFigures * f, RtrCommands * k,
    const GPtrArray * filesystems);

G_END_DECLS
#endif /* __RTR_METRICS_H__ */
