/* rtframe-record under systemd (Type=notify): READY=1 once every camera
 * records, STATUS= with the status line, WATCHDOG=1 while the main loop
 * turns (WatchdogSec=), STOPPING=1 at a stop.  Nothing without
 * NOTIFY_SOCKET, and nothing at all when built without libsystemd. */
#ifndef __RTR_NOTIFY_H__
#define __RTR_NOTIFY_H__

#include <glib.h>

G_BEGIN_DECLS

void rtr_notify_ready (void);
void rtr_notify_status (const gchar * status);
void rtr_notify_stopping (void);

/* Starts the watchdog's pings when the unit asks for them (0: none) */
guint rtr_notify_watchdog_start (void);

G_END_DECLS

#endif /* __RTR_NOTIFY_H__ */
