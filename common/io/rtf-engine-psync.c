/* rtframe: the pwrite(2) back end, used when io_uring is refused or not
 * wanted.  The writes are done one at a time, in order, by a helper thread
 * of the engine, so the writer thread never blocks in I/O: it waits in
 * poll() on the queue's doorbell and on an eventfd the helper signals, with
 * the timeout of the next deadline, exactly as it waits with io_uring. */
#include "rtf-engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

typedef enum
{
  OP_WRITE,
  OP_FALLOCATE,
  OP_FDATASYNC
} PsyncOpKind;

typedef struct
{
  PsyncOpKind kind;
  gint fd, mode;
  const void *buf;
  gsize len;
  guint64 offset, alloc_len;
  gpointer tag;
} PsyncOp;

typedef struct
{
  RtfEngine parent;
  RtfThread *thread;
  GMutex lock;
  GCond cond;
  PsyncOp *ops;                 /* submitted, not yet done (a ring) */
  guint ops_first, n_ops;
  RtfCompletion *done;          /* done, not yet reaped */
  guint n_done;
  guint max;                    /* most operations outstanding */
  gboolean stop;
  gint done_fd;                 /* eventfd: the helper finished one */
} RtfEnginePsync;

static gint
do_op (const PsyncOp * op)
{
  ssize_t ret;

  if (op->kind == OP_FALLOCATE)
    return fallocate (op->fd, op->mode, (off_t) op->offset,
        (off_t) op->alloc_len) < 0 ? -errno : 0;
  if (op->kind == OP_FDATASYNC)
    return fdatasync (op->fd) < 0 ? -errno : 0;
  do {
    if (op->offset == G_MAXUINT64)      /* RTF_OFFSET_CURRENT: a pipe */
      ret = write (op->fd, op->buf, op->len);
    else
      ret = pwrite (op->fd, op->buf, op->len, (off_t) op->offset);
  } while (ret < 0 && errno == EINTR);
  return ret < 0 ? -errno : (gint) ret;
}

static gpointer
helper (gpointer data)
{
  RtfEnginePsync *p = data;

  g_mutex_lock (&p->lock);
  for (;;) {
    PsyncOp op;
    gint res;
    uint64_t one = 1;
    ssize_t w;

    while (p->n_ops == 0 && !p->stop)
      g_cond_wait (&p->cond, &p->lock);
    if (p->n_ops == 0)
      break;
    op = p->ops[p->ops_first];
    g_mutex_unlock (&p->lock);

    res = do_op (&op);

    g_mutex_lock (&p->lock);
    p->ops_first = (p->ops_first + 1) % p->max;
    p->n_ops--;
    g_assert (p->n_done < p->max);
    p->done[p->n_done].tag = op.tag;
    p->done[p->n_done].res = res;
    p->n_done++;
    w = write (p->done_fd, &one, sizeof (one));
    (void) w;
  }
  g_mutex_unlock (&p->lock);
  return NULL;
}

static void
submit (RtfEnginePsync * p, const PsyncOp * op)
{
  g_mutex_lock (&p->lock);
  /* The writer never has more than `entries` operations outstanding. */
  g_assert (p->n_ops + p->n_done < p->max);
  p->ops[(p->ops_first + p->n_ops) % p->max] = *op;
  p->n_ops++;
  g_cond_signal (&p->cond);
  g_mutex_unlock (&p->lock);
}

static void
psync_write (RtfEngine * e, gint fd, const void *buf, gsize len,
    guint64 offset, gint buf_index, gpointer tag)
{
  PsyncOp op = { OP_WRITE, fd, 0, buf, len, offset, 0, tag };

  submit ((RtfEnginePsync *) e, &op);
}

static void
psync_fallocate (RtfEngine * e, gint fd, gint mode, guint64 offset,
    guint64 len, gpointer tag)
{
  PsyncOp op = { OP_FALLOCATE, fd, mode, NULL, 0, offset, len, tag };

  submit ((RtfEnginePsync *) e, &op);
}

static void
psync_fdatasync (RtfEngine * e, gint fd, gpointer tag)
{
  PsyncOp op = { OP_FDATASYNC, fd, 0, NULL, 0, 0, 0, tag };

  submit ((RtfEnginePsync *) e, &op);
}

static guint
take_done (RtfEnginePsync * p, RtfCompletion * out, guint max)
{
  guint n, i;

  g_mutex_lock (&p->lock);
  n = MIN (max, p->n_done);
  for (i = 0; i < n; i++)
    out[i] = p->done[i];
  for (i = n; i < p->n_done; i++)
    p->done[i - n] = p->done[i];
  p->n_done -= n;
  g_mutex_unlock (&p->lock);
  return n;
}

static gint
psync_reap (RtfEngine * e, gint64 timeout_ns, RtfCompletion * out, guint max)
{
  RtfEnginePsync *p = (RtfEnginePsync *) e;
  guint n = take_done (p, out, max);

  if (n == 0 && timeout_ns != 0) {
    struct pollfd pfd[2] = { {e->doorbell, POLLIN, 0}, {p->done_fd, POLLIN,
        0}
    };
    gint ms = timeout_ns < 0 ? -1 : (gint) ((timeout_ns + 999999) / 1000000);
    uint64_t v;
    ssize_t r;

    if (poll (pfd, 2, ms) < 0 && errno != EINTR)
      return -errno;
    r = read (p->done_fd, &v, sizeof (v));
    (void) r;
    n = take_done (p, out, max);
  }
  return (gint) n;
}

static void
psync_free (RtfEngine * e)
{
  RtfEnginePsync *p = (RtfEnginePsync *) e;

  g_mutex_lock (&p->lock);
  p->stop = TRUE;
  g_cond_signal (&p->cond);
  g_mutex_unlock (&p->lock);
  rtf_thread_join (p->thread);
  close (p->done_fd);
  g_free (p->ops);
  g_free (p->done);
  g_cond_clear (&p->cond);
  g_mutex_clear (&p->lock);
  g_free (p);
}

static const RtfEngineOps psync_ops = {
  RTF_ENGINE_PSYNC, "psync", psync_write, NULL, psync_fallocate,
  psync_fdatasync, psync_reap,
  psync_free
};

RtfEngine *
rtf_engine_psync_new (guint entries, gint doorbell,
    const RtfThreadStarter * threads)
{
  RtfEnginePsync *p = g_new0 (RtfEnginePsync, 1);

  p->parent.ops = &psync_ops;
  p->parent.doorbell = doorbell;
  p->max = entries;
  p->ops = g_new0 (PsyncOp, entries);
  p->done = g_new0 (RtfCompletion, entries);
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  p->done_fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  g_assert (p->done_fd >= 0);
  p->thread = rtf_thread_start (threads, "pwrite", helper, p);
  return &p->parent;
}
