/* rtframe: the I/O back ends the writer thread submits its writes to */
#ifndef __RTF_ENGINE_H__
#define __RTF_ENGINE_H__

#include "rtf-thread.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RTF_ENGINE_AUTO = 0,          /* io_uring, pwrite when it is refused */
  RTF_ENGINE_IO_URING,
  RTF_ENGINE_PSYNC
} RtfEngineKind;

typedef struct
{
  gpointer tag;                 /* what the submitter passed */
  gint res;                     /* bytes done, or -errno */
} RtfCompletion;

typedef struct _RtfEngine RtfEngine;

typedef struct
{
  RtfEngineKind kind;
  const gchar *name;
  /* Queues a write (io_uring) or does it (psync).  offset G_MAXUINT64
   * (RTF_OFFSET_CURRENT) writes at the file's position, for pipes.
   * buf_index >= 0: buf lies in the buffer registered at that index. */
  void (*write) (RtfEngine * e, gint fd, const void *buf, gsize len,
      guint64 offset, gint buf_index, gpointer tag);
  /* Registers [base, base + len) as fixed buffer `index` (< entries given
   * to rtf_engine_uring_new's max_buffers), or clears it (base NULL): 0 or
   * -errno (ENOMEM past RLIMIT_MEMLOCK, EINVAL on old kernels).  NULL when
   * the engine has no such thing. */
  gint (*register_buffer) (RtfEngine * e, guint index, void *base, gsize len);
  /* Queues or does fallocate(2); its completion comes like a write's. */
  void (*fallocate) (RtfEngine * e, gint fd, gint mode, guint64 offset,
      guint64 len, gpointer tag);
  /* Queues or does fdatasync(2); its completion comes like a write's.  The
   * caller submits it only once the writes it must cover have completed. */
  void (*fdatasync) (RtfEngine * e, gint fd, gpointer tag);
  /* Submits what was queued and collects up to max completions.  With
   * timeout_ns != 0 and nothing complete yet it first waits until one
   * completes, the doorbell fd becomes readable, or timeout_ns passes
   * (-1: no limit).  Returns the number of completions, or -errno. */
  gint (*reap) (RtfEngine * e, gint64 timeout_ns, RtfCompletion * out,
      guint max);
  void (*free) (RtfEngine * e);
} RtfEngineOps;

struct _RtfEngine
{
  const RtfEngineOps *ops;
  gint doorbell;
};

/* entries: most writes in flight at once.  On failure returns NULL and sets
 * *err to the errno io_uring_setup gave (EPERM, ENOSYS, ENOMEM, ...). */
RtfEngine *rtf_engine_uring_new (guint entries, gint doorbell,
    guint max_buffers, gint * err);
/* its helper thread started through threads (rtf-thread.h; NULL: a GThread) */
RtfEngine *rtf_engine_psync_new (guint entries, gint doorbell,
    const RtfThreadStarter * threads);

static inline void
rtf_engine_free (RtfEngine * e)
{
  if (e)
    e->ops->free (e);
}

G_END_DECLS

#endif /* __RTF_ENGINE_H__ */
