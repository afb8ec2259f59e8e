/* rtframe: scheduling of the calling thread */
#ifndef __RTF_THREAD_H__
#define __RTF_THREAD_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RTF_SCHED_DEFAULT = 0,        /* leave the thread as it is */
  RTF_SCHED_FIFO,
  RTF_SCHED_RR
} RtfSchedPolicy;

gboolean rtf_thread_parse_cpus (const gchar * list, guint64 * mask,
    guint max_cpus);
gboolean rtf_thread_apply (RtfSchedPolicy policy, gint priority,
    const gchar * cpus, gchar ** why);

G_END_DECLS

#endif /* __RTF_THREAD_H__ */
