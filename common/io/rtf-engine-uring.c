/* rtframe: the io_uring back end.  The ring is created by, and only used
 * from, the writer thread (IORING_SETUP_SINGLE_ISSUER).  The queue's
 * doorbell eventfd is watched with a poll request on the same ring, so one
 * wait covers "a write completed" and "a frame arrived". */
#include "rtf-engine.h"

#include <errno.h>
#include <liburing.h>
#include <poll.h>

#define DOORBELL_TAG ((gpointer) & doorbell_tag_storage)
static const gint doorbell_tag_storage = 0;

typedef struct
{
  RtfEngine parent;
  struct io_uring ring;
  gboolean doorbell_armed;
  gboolean defer_taskrun;       /* completions only come in io_uring_enter */
  guint max_buffers;            /* fixed-buffer table size, 0 = none */
  gboolean buffers_ready;       /* the sparse table is registered */
  gint64 max_wait_ns;
} RtfEngineUring;

/* A wait in io_uring_enter() is cut into slices of at most this long.  It
 * costs one wake-up a second when idle.  valgrind (3.19) keeps its global
 * lock while a thread waits in io_uring_enter(), so no other thread runs:
 * under valgrind set RTFRAME_URING_MAX_WAIT_MS=1 (tools/test.sh --valgrind
 * does). */
#define DEFAULT_MAX_WAIT_NS G_GINT64_CONSTANT (1000000000)

static struct io_uring_sqe *
uring_get_sqe (RtfEngineUring * u)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (&u->ring);

  if (sqe == NULL) {
    /* SQ full: hand what we have to the kernel and take a fresh entry.  The
     * ring is sized for the most operations the writer keeps in flight. */
    io_uring_submit (&u->ring);
    sqe = io_uring_get_sqe (&u->ring);
  }
  g_assert (sqe != NULL);
  return sqe;
}

static void
uring_write (RtfEngine * e, gint fd, const void *buf, gsize len,
    guint64 offset, gint buf_index, gpointer tag)
{
  RtfEngineUring *u = (RtfEngineUring *) e;
  struct io_uring_sqe *sqe = uring_get_sqe (u);

  if (buf_index >= 0)
    io_uring_prep_write_fixed (sqe, fd, buf, (unsigned) len, offset, buf_index);
  else
    io_uring_prep_write (sqe, fd, buf, (unsigned) len, offset);
  io_uring_sqe_set_data (sqe, tag);
}

/* A sparse table of max_buffers entries is registered on first use (Linux
 * 5.19); each entry is then set or cleared on its own.  Registered memory
 * is pinned once and charged to RLIMIT_MEMLOCK (not for CAP_IPC_LOCK). */
static gint
uring_register_buffer (RtfEngine * e, guint index, void *base, gsize len)
{
  RtfEngineUring *u = (RtfEngineUring *) e;
  struct iovec iov = { base, base ? len : 0 };
  __u64 tag = 0;
  gint ret;

  if (index >= u->max_buffers)
    return -EINVAL;
  if (!u->buffers_ready) {
    ret = io_uring_register_buffers_sparse (&u->ring, u->max_buffers);
    if (ret < 0)
      return ret;
    u->buffers_ready = TRUE;
  }
  ret = io_uring_register_buffers_update_tag (&u->ring, index, &iov, &tag, 1);
  return ret < 0 ? ret : 0;
}

static void
uring_fallocate (RtfEngine * e, gint fd, gint mode, guint64 offset,
    guint64 len, gpointer tag)
{
  RtfEngineUring *u = (RtfEngineUring *) e;
  struct io_uring_sqe *sqe = uring_get_sqe (u);

  io_uring_prep_fallocate (sqe, fd, mode, offset, len);
  io_uring_sqe_set_data (sqe, tag);
}

static void
uring_fdatasync (RtfEngine * e, gint fd, gpointer tag)
{
  RtfEngineUring *u = (RtfEngineUring *) e;
  struct io_uring_sqe *sqe = uring_get_sqe (u);

  io_uring_prep_fsync (sqe, fd, IORING_FSYNC_DATASYNC);
  io_uring_sqe_set_data (sqe, tag);
}

static gint
uring_reap (RtfEngine * e, gint64 timeout_ns, RtfCompletion * out, guint max)
{
  RtfEngineUring *u = (RtfEngineUring *) e;
  struct io_uring_cqe *cqe;
  guint n = 0;
  gint ret;

  if (!u->doorbell_armed) {
    struct io_uring_sqe *sqe = uring_get_sqe (u);

    io_uring_prep_poll_add (sqe, e->doorbell, POLLIN);
    io_uring_sqe_set_data (sqe, DOORBELL_TAG);
    u->doorbell_armed = TRUE;
  }

  if (timeout_ns != 0 && io_uring_cq_ready (&u->ring) == 0) {
    struct __kernel_timespec ts;

    if (timeout_ns < 0 || timeout_ns > u->max_wait_ns)
      timeout_ns = u->max_wait_ns;
    ts.tv_sec = timeout_ns / 1000000000;
    ts.tv_nsec = timeout_ns % 1000000000;
    ret = io_uring_submit_and_wait_timeout (&u->ring, &cqe, 1, &ts, NULL);
  } else if (u->defer_taskrun) {
    /* with DEFER_TASKRUN the kernel fills the CQ only when asked */
    ret = io_uring_submit_and_get_events (&u->ring);
  } else {
    ret = io_uring_submit (&u->ring);
  }
  if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN
      && ret != -EBUSY)
    return ret;

  while (n < max && io_uring_peek_cqe (&u->ring, &cqe) == 0) {
    gpointer tag = io_uring_cqe_get_data (cqe);

    if (tag == DOORBELL_TAG) {
      u->doorbell_armed = FALSE;
    } else {
      out[n].tag = tag;
      out[n].res = cqe->res;
      n++;
    }
    io_uring_cqe_seen (&u->ring, cqe);
  }
  return (gint) n;
}

static void
uring_free (RtfEngine * e)
{
  RtfEngineUring *u = (RtfEngineUring *) e;

  io_uring_queue_exit (&u->ring);
  g_free (u);
}

static const RtfEngineOps uring_ops = {
  RTF_ENGINE_IO_URING, "io_uring", uring_write, uring_register_buffer,
  uring_fallocate, uring_fdatasync, uring_reap, uring_free
};

RtfEngine *
rtf_engine_uring_new (guint entries, gint doorbell, guint max_buffers,
    gint * err)
{
  /* Fewest kernel round trips first; older kernels refuse the newer flags
   * with EINVAL, so drop them one by one like fio does.  DEFER_TASKRUN
   * (completion work runs only when this thread asks for events) measured
   * slower here: 5.0 against 5.4 GB/s flat out on a RAM-backed XFS, as
   * completions wait for the writer's next wait (docs/performance.md).  It
   * stays available to measure: RTFRAME_URING_DEFER_TASKRUN=1. */
  static const unsigned flag_sets[] = {
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN,
    IORING_SETUP_COOP_TASKRUN,
    0
  };
  RtfEngineUring *u = g_new0 (RtfEngineUring, 1);
  gboolean skip_defer = g_getenv ("RTFRAME_URING_DEFER_TASKRUN") == NULL;
  guint i;
  gint ret = -EINVAL;

  for (i = 0; i < G_N_ELEMENTS (flag_sets); i++) {
    struct io_uring_params p = { 0 };

    p.flags = flag_sets[i];
    if (skip_defer && (p.flags & IORING_SETUP_DEFER_TASKRUN))
      continue;
    ret = io_uring_queue_init_params (entries + 1, &u->ring, &p);
    if (ret != -EINVAL)
      break;
  }
  if (ret < 0) {
    g_free (u);
    *err = -ret;
    return NULL;
  }
  u->defer_taskrun = (flag_sets[i] & IORING_SETUP_DEFER_TASKRUN) != 0;
  u->max_buffers = max_buffers;
  u->parent.ops = &uring_ops;
  u->parent.doorbell = doorbell;
  u->max_wait_ns = DEFAULT_MAX_WAIT_NS;
  {
    const gchar *env = g_getenv ("RTFRAME_URING_MAX_WAIT_MS");

    if (env && g_ascii_strtoll (env, NULL, 10) > 0)
      u->max_wait_ns = g_ascii_strtoll (env, NULL, 10) * 1000000;
  }
  return &u->parent;
}
