/* rtframe: the pwrite(2) back end, used when io_uring is refused or not
 * wanted.  Each write is done at once, on the writer thread; its
 * completion is kept until the next reap. */
#include "rtf-engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

typedef struct
{
  RtfEngine parent;
  RtfCompletion *done;
  guint n_done, max_done;
} RtfEnginePsync;

static void
psync_complete (RtfEnginePsync * p, gpointer tag, gint res)
{
  /* The writer never has more than `entries` operations outstanding. */
  g_assert (p->n_done < p->max_done);
  p->done[p->n_done].tag = tag;
  p->done[p->n_done].res = res;
  p->n_done++;
}

static void
psync_write (RtfEngine * e, gint fd, const void *buf, gsize len,
    guint64 offset, gpointer tag)
{
  ssize_t ret;

  do {
    if (offset == G_MAXUINT64)  /* RTF_OFFSET_CURRENT: a pipe or device */
      ret = write (fd, buf, len);
    else
      ret = pwrite (fd, buf, len, (off_t) offset);
  } while (ret < 0 && errno == EINTR);
  psync_complete ((RtfEnginePsync *) e, tag, ret < 0 ? -errno : (gint) ret);
}

static void
psync_fallocate (RtfEngine * e, gint fd, gint mode, guint64 offset,
    guint64 len, gpointer tag)
{
  gint ret = fallocate (fd, mode, (off_t) offset, (off_t) len);

  psync_complete ((RtfEnginePsync *) e, tag, ret < 0 ? -errno : 0);
}

static gint
psync_reap (RtfEngine * e, gint64 timeout_ns, RtfCompletion * out, guint max)
{
  RtfEnginePsync *p = (RtfEnginePsync *) e;
  guint n, i;

  if (p->n_done == 0 && timeout_ns != 0) {
    struct pollfd pfd = { e->doorbell, POLLIN, 0 };
    gint ms = timeout_ns < 0 ? -1 : (gint) ((timeout_ns + 999999) / 1000000);

    if (poll (&pfd, 1, ms) < 0 && errno != EINTR)
      return -errno;
    return 0;
  }

  n = MIN (max, p->n_done);
  for (i = 0; i < n; i++)
    out[i] = p->done[i];
  for (i = n; i < p->n_done; i++)
    p->done[i - n] = p->done[i];
  p->n_done -= n;
  return (gint) n;
}

static void
psync_free (RtfEngine * e)
{
  RtfEnginePsync *p = (RtfEnginePsync *) e;

  g_free (p->done);
  g_free (p);
}

static const RtfEngineOps psync_ops = {
  RTF_ENGINE_PSYNC, "psync", psync_write, psync_fallocate, psync_reap,
  psync_free
};

RtfEngine *
rtf_engine_psync_new (guint entries, gint doorbell)
{
  RtfEnginePsync *p = g_new0 (RtfEnginePsync, 1);

  p->parent.ops = &psync_ops;
  p->parent.doorbell = doorbell;
  p->max_done = entries;
  p->done = g_new0 (RtfCompletion, entries);
  return &p->parent;
}
