/* rtframe-record: telling systemd */
#include "config.h"
#include "rtr-notify.h"

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

void
rtr_notify_ready (void)
{
#ifdef HAVE_LIBSYSTEMD
  sd_notify (0, "READY=1\nSTATUS=recording");
#endif
}

void
rtr_notify_status (const gchar * status)
{
#ifdef HAVE_LIBSYSTEMD
  sd_notifyf (0, "STATUS=%s", status);
#endif
}

void
rtr_notify_stopping (void)
{
#ifdef HAVE_LIBSYSTEMD
  sd_notify (0, "STOPPING=1\nSTATUS=stopping: every camera ends its "
      "recording");
#endif
}

#ifdef HAVE_LIBSYSTEMD
static gboolean
ping (gpointer data)
{
  sd_notify (0, "WATCHDOG=1");
  return G_SOURCE_CONTINUE;
}
#endif

guint
rtr_notify_watchdog_start (void)
{
#ifdef HAVE_LIBSYSTEMD
  uint64_t usec = 0;

  /* at half the interval, from the main loop: a loop that hangs (a bus
   * message never handled, a stop that never returns) stops the pings */
  if (sd_watchdog_enabled (0, &usec) > 0 && usec >= 2000)
    return g_timeout_add ((guint) (usec / 2000), ping, NULL);
#endif
  return 0;
}
