/* rtframe-record: GET /status - each camera's state, file, frames,
 * misses, drops, free space and latency, as JSON */
#ifndef __RTR_STATUS_H__
#define __RTR_STATUS_H__

#include "rtr-commands.h"
#include "rtr-figures.h"

G_BEGIN_DECLS
/* state: the recorder's ("starting", "recording", "stopping", "ended");
 * commands: the events and takes (NULL: none yet); filesystems: those
 * the cameras write to (RtrFilesystem, rtr-filesystems.h) */
    gchar * rtr_status_json (const RtrFigures * f, const gchar * state,
    RtrCommands * commands, const GPtrArray * filesystems);

G_END_DECLS
#endif /* __RTR_STATUS_H__ */
