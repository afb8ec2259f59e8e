/* rtframe: the writer's free-space guard - the samples the guard's
 * decisions (rtf-space-guard.c) are made on, taken at the start, at least
 * once a second and at every new file (more often when the room left
 * lasts only a few checks), and what it decides, done: a level change
 * told to the owner, the oldest closed files of a rotating set deleted
 * by the file helper, or the recording ended, whole, before the
 * filesystem is full (rtf_writer_fail_at() with RTF_FAIL_SPACE: the
 * frames in flight are written, the files cut to their frames and given
 * back what was reserved ahead).
 *
 * What the recording reserved ahead (fallocate) counts as used in statfs
 * and is given back when it ends, so it counts as the recording's room:
 * the current file's (and the previous one's) reservation past its
 * frames, and the helper's (the file opened ahead, files being
 * finished).  No reservation takes the filesystem under min-free-space.
 *
 * Everything here runs on the writer thread. */
#include "rtf-writer-private.h"
#include "rtf-clock.h"

#include <errno.h>
#include <string.h>

/* Reserved past what was handed to the disk: given back at the end */
static guint64
reserved_past (const RtfOutput * o)
{
  return o && o->reserved_end > o->offset ? o->reserved_end - o->offset : 0;
}

/* The figures into the statistics */
static void
publish (RtfWriter * w)
{
  const RtfSpaceReport *r = &w->space.now;

  g_mutex_lock (&w->lock);
  w->stats.free_space = r->free;
  w->stats.min_free_space = r->min_free;
  w->stats.write_rate = r->rate;
  w->stats.time_left = r->time_left;
  g_mutex_unlock (&w->lock);
}

static gboolean
sample (RtfWriter * w, gint64 now, RtfSpaceSample * s)
{
  gint err;

  memset (s, 0, sizeof (*s));
  err = rtf_space_statfs (w->cur->file.fd, NULL, &s->fs_free, &s->fs_size);
  if (err == EOPNOTSUPP) {
    w->space_on = FALSE;
    w->space.now.min_free = 0;
    publish (w);
    rtf_writer_log (w, RTF_LOG_INFO, "the filesystem of %s keeps no count "
        "of its space (ramfs?): no free-space guard", w->cur->path);
    return FALSE;
  }
  if (err) {
    rtf_writer_log (w, RTF_LOG_DEBUG, "free space of %s not known: %s",
        w->cur->path, g_strerror (err));
    return FALSE;
  }
  s->now_ns = now;
  s->reserved = reserved_past (w->cur) + reserved_past (w->prev);
  s->written = w->stats.bytes_written;  /* (this thread counts it) */
  s->idle = w->cur->frames == 0 && w->frames_in_flight == 0;
  if (w->worker) {
    guint64 reserved, deletable;

    rtf_file_worker_space (w->worker, &reserved, &deletable, &s->room_pending);
    s->reserved += reserved;
    s->deletable = deletable;
  }
  return TRUE;
}

static void
check (RtfWriter * w, gint64 now)
{
  RtfSpaceSample s;
  gboolean crossed, first = !w->space.measured;
  guint64 room;
  RtfSpaceAction action;

  if (!sample (w, now, &s)) {
    w->space.next_check_ns = now + RTF_SPACE_CHECK_NS;
    return;
  }
  action = rtf_space_guard_check (&w->space, &s, &crossed, &room);
  publish (w);
  if (first && w->worker && w->space.now.min_free)
    rtf_file_worker_set_min_free (w->worker, w->space.now.min_free);
  if (crossed) {
    rtf_writer_log (w, RTF_LOG_INFO, "free space %s: %" G_GUINT64_FORMAT
        " bytes (min-free-space %" G_GUINT64_FORMAT ")",
        rtf_space_level_name (w->space.now.level), w->space.now.free,
        w->space.now.min_free);
    RTF_WRITER_CALLBACK (w, disk_space, &w->space.now);
  }
  switch (action) {
    case RTF_SPACE_MAKE_ROOM:
      rtf_writer_log (w, RTF_LOG_DEBUG, "%" G_GUINT64_FORMAT " bytes free, "
          "under min-free-space: deleting the oldest files for %"
          G_GUINT64_FORMAT " bytes", w->space.now.free, room);
      w->space_room_asked = TRUE;
      rtf_file_worker_make_room (w->worker, room);
      break;
    case RTF_SPACE_END:
      rtf_writer_log (w, RTF_LOG_INFO, "%" G_GUINT64_FORMAT " bytes free, "
          "under min-free-space (%" G_GUINT64_FORMAT ")%s: ending the "
          "recording", w->space.now.free, w->space.now.min_free,
          w->config.rotate ? " and no older file to delete for it" : "");
      rtf_writer_fail_at (w, RTF_FAIL_SPACE, ENOSPC, NULL, NULL);
      break;
    default:
      break;
  }
}

guint64
rtf_writer_space_first_reserve (RtfWriter * w, const gchar * path, guint64 want)
{
  gchar *dir;
  guint64 fs_free, fs_size, min_free;
  gint err;

  if (w->config.min_free_space == 0 || want == 0)
    return want;
  dir = g_path_get_dirname (path);
  err = rtf_space_statfs (-1, dir, &fs_free, &fs_size);
  g_free (dir);
  if (err)
    return want;
  min_free = rtf_space_guard_resolve (w->config.min_free_space, fs_size);
  return rtf_space_guard_reserve_limit (min_free, fs_free, want);
}

void
rtf_writer_space_start (RtfWriter * w)
{
  rtf_space_guard_init (&w->space, w->config.min_free_space, w->config.rotate);
  /* a pipe, a device: nothing to count, no guard */
  w->space_on = !w->stream && !w->device;
  if (!w->space_on)
    w->space.now.min_free = 0;
  publish (w);
  if (w->space_on)
    check (w, rtf_clock_now_ns ());
}

void
rtf_writer_space_new_file (RtfWriter * w)
{
  w->space_now = TRUE;
}

gint64
rtf_writer_space_step (RtfWriter * w, gint64 wait)
{
  gint64 now, next;
  guint64 reserved, deletable;
  gboolean pending;

  if (!w->space_on || w->error)
    return wait;
  /* a deletion for space has ended: look at once */
  if (w->space_room_asked) {
    rtf_file_worker_space (w->worker, &reserved, &deletable, &pending);
    if (!pending) {
      w->space_room_asked = FALSE;
      w->space_now = TRUE;
    }
  }
  now = rtf_clock_now_ns ();
  if (w->space_now || rtf_space_guard_due (&w->space, now,
          w->stats.bytes_written)) {
    w->space_now = FALSE;
    check (w, now);
    if (w->error)
      return 0;
  }
  next = MAX (rtf_space_guard_next_check (&w->space) - now, 0);
  return wait < 0 ? next : MIN (wait, next);
}

guint64
rtf_writer_space_reserve_limit (RtfWriter * w, guint64 want)
{
  guint64 fs_free, fs_size, limit;

  if (!w->space_on || w->space.now.min_free == 0
      || rtf_space_statfs (w->cur->file.fd, NULL, &fs_free, &fs_size) != 0)
    return want;
  limit = rtf_space_guard_reserve_limit (w->space.now.min_free, fs_free, want);
  /* near the end: what is left of the room, in whole MiB (none: the
   * writes allocate as they go) */
  return limit < want ? limit & ~(guint64) ((1 << 20) - 1) : want;
}

void
rtf_writer_space_failure (RtfWriter * w, RtfFailure * failure)
{
  guint64 fs_free, fs_size;

  failure->bytes_written = w->stats.bytes_written;
  failure->min_free_space = w->space.now.min_free;
  /* after the files were cut: what is left now */
  if (rtf_space_statfs (w->cur->file.fd, NULL, &fs_free, &fs_size) == 0)
    failure->free_space = fs_free;
  else
    failure->free_space = w->space.now.free;
}
