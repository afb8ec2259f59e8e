/* rtframe: scheduling of the calling thread (the writer thread calls it on
 * itself when it starts), and the writer's helper threads. */
#include "rtf-thread.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

/* "0,2-3" -> bits 0, 2 and 3.  FALSE on a malformed list or a CPU number
 * of max_cpus or more. */
gboolean
rtf_thread_parse_cpus (const gchar * list, guint64 * mask, guint max_cpus)
{
  gchar **parts;
  guint i;
  gboolean ok = TRUE;

  *mask = 0;
  if (list == NULL || *list == '\0')
    return FALSE;
  parts = g_strsplit (list, ",", -1);
  for (i = 0; ok && parts[i]; i++) {
    gchar *end = NULL;
    guint64 lo, hi;

    lo = g_ascii_strtoull (parts[i], &end, 10);
    if (end == parts[i]) {
      ok = FALSE;
      break;
    }
    hi = lo;
    if (*end == '-') {
      gchar *start = end + 1;

      hi = g_ascii_strtoull (start, &end, 10);
      if (end == start)
        ok = FALSE;
    }
    if (*end != '\0' || lo > hi || hi >= max_cpus || hi >= 64)
      ok = FALSE;
    for (; ok && lo <= hi; lo++)
      *mask |= G_GUINT64_CONSTANT (1) << lo;
  }
  g_strfreev (parts);
  return ok && *mask != 0;
}

/* Sets the policy/priority and CPU set of the calling thread.  On failure
 * returns FALSE with *why saying what was refused (g_free it); whatever
 * could be set stays set. */
gboolean
rtf_thread_apply (RtfSchedPolicy policy, gint priority, const gchar * cpus,
    gchar ** why)
{
  GString *err = g_string_new (NULL);

  if (policy != RTF_SCHED_DEFAULT) {
    struct sched_param sp = { 0 };
    gint pol = policy == RTF_SCHED_FIFO ? SCHED_FIFO : SCHED_RR;
    gint ret;

    sp.sched_priority = CLAMP (priority, sched_get_priority_min (pol),
        sched_get_priority_max (pol));
    ret = pthread_setschedparam (pthread_self (), pol, &sp);
    if (ret != 0)
      g_string_append_printf (err, "%s priority %d: %s",
          pol == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR", sp.sched_priority,
          g_strerror (ret));
  }
  if (cpus && *cpus) {
    guint64 mask;
    cpu_set_t set;
    guint c;

    if (!rtf_thread_parse_cpus (cpus, &mask, CPU_SETSIZE)) {
      g_string_append_printf (err, "%sCPU list \"%s\" is not valid",
          err->len ? "; " : "", cpus);
    } else {
      CPU_ZERO (&set);
      for (c = 0; c < 64; c++)
        if (mask & (G_GUINT64_CONSTANT (1) << c))
          CPU_SET (c, &set);
      if (sched_setaffinity (0, sizeof (set), &set) != 0)
        g_string_append_printf (err, "%sCPUs %s: %s", err->len ? "; " : "",
            cpus, g_strerror (errno));
    }
  }
  if (err->len == 0) {
    g_string_free (err, TRUE);
    return TRUE;
  }
  *why = g_string_free (err, FALSE);
  return FALSE;
}

struct _RtfThread
{
  const RtfThreadStarter *starter;
  gpointer handle;              /* the starter's, or NULL */
  GThread *thread;              /* when the starter had none to give */
};

RtfThread *
rtf_thread_start (const RtfThreadStarter * starter, const gchar * role,
    GThreadFunc func, gpointer arg)
{
  RtfThread *t = g_new0 (RtfThread, 1);

  if (starter && starter->start) {
    t->handle = starter->start (role, func, arg, starter->data);
    if (t->handle) {
      t->starter = starter;
      return t;
    }
  }
  {
    gchar *name = g_strdup_printf ("rtframe-%s", role);

    t->thread = g_thread_new (name, func, arg);
    g_free (name);
  }
  return t;
}

void
rtf_thread_join (RtfThread * t)
{
  if (t->thread)
    g_thread_join (t->thread);
  else
    t->starter->join (t->handle, t->starter->data);
  g_free (t);
}

void
rtf_thread_release (RtfThread * t)
{
  if (t->thread)
    g_thread_unref (t->thread);
  else if (t->starter->release)
    t->starter->release (t->handle, t->starter->data);
  g_free (t);
}
