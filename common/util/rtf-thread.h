/* rtframe: scheduling of the calling thread, and how the writer starts its
 * helper threads */
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

/* How the writer starts its helper threads: the pwrite engine's ("pwrite")
 * and the file helper of a rotated recording ("files").  Without a starter
 * (NULL, or start NULL) they are GThreads named "rtframe-<role>".  An
 * embedder can run them as threads of its own instead, to announce them
 * and give them its scheduling (rtframesink: GstTasks posting
 * STREAM_STATUS). */
typedef struct
{
  /* Runs func (arg) once on a new thread: a handle for join, or NULL when
   * no thread could be started (then a GThread runs it). */
  gpointer (*start) (const gchar * role, GThreadFunc func, gpointer arg,
      gpointer data);
  /* Waits until that thread has returned from func (never called on it). */
  void (*join) (gpointer handle, gpointer data);
  /* The thread ends on its own and nobody waits for it: join it from
   * another thread once it has (may be NULL: then nothing is released,
   * see rtf_thread_release()).  Called on that thread, just before it
   * returns from func. */
  void (*release) (gpointer handle, gpointer data);
  gpointer data;
} RtfThreadStarter;

typedef struct _RtfThread RtfThread;

RtfThread *rtf_thread_start (const RtfThreadStarter * starter,
    const gchar * role, GThreadFunc func, gpointer arg);
/* Waits for the thread to end and frees t. */
void rtf_thread_join (RtfThread * t);
/* From the thread itself, as it ends: nobody joins it (its starter's
 * release, or the GThread detached); frees t. */
void rtf_thread_release (RtfThread * t);

gboolean rtf_thread_parse_cpus (const gchar * list, guint64 * mask,
    guint max_cpus);
gboolean rtf_thread_apply (RtfSchedPolicy policy, gint priority,
    const gchar * cpus, gchar ** why);

G_END_DECLS

#endif /* __RTF_THREAD_H__ */
