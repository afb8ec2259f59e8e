/* rtframe-record: where triggers come from - Enter on the terminal,
 * SIGUSR1, the config's timed events (at running times); SIGUSR2 stops a
 * recording now.  Each is a command to every camera at once
 * (rtr-commands.h). */
#ifndef __RTR_TRIGGERS_H__
#define __RTR_TRIGGERS_H__

#include "rtr-commands.h"
#include "rtr-config.h"

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _RtrTriggers RtrTriggers;

RtrTriggers *rtr_triggers_new (const RtrConfig * c, RtrCommands * commands);
void rtr_triggers_free (RtrTriggers * t);

/* Starts listening: the terminal, SIGUSR1/SIGUSR2, the timed events */
void rtr_triggers_watch (RtrTriggers * t);

G_END_DECLS

#endif /* __RTR_TRIGGERS_H__ */
