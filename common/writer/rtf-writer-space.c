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
 * Between samples, the ledger (below) keeps the line at the writer's own
 * rate: every byte it allocates is taken from the room statfs showed, and
 * a frame with no room waits for a deletion instead of running into
 * ENOSPC.
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
    rtf_writer_log_in (w, RTF_LOG_SPACE, RTF_LOG_INFO, "the filesystem of %s keeps no count "
        "of its space (ramfs?): no free-space guard", w->cur->path);
    return FALSE;
  }
  if (err) {
    rtf_writer_log_in (w, RTF_LOG_SPACE, RTF_LOG_DEBUG, "free space of %s not known: %s",
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
    s->freed = rtf_file_worker_freed (w->worker);
  }
  return TRUE;
}

/* A sample, its level told when it changed, and what the guard decides
 * done.  no_room: the ledger found no room above min-free-space for the
 * next frame - the level is critical, and the ledger acts (holds the
 * frame, asks for deletions, or ends the recording) */
static void
check_with (RtfWriter * w, gint64 now, gboolean no_room)
{
  RtfSpaceSample s;
  gboolean crossed, first = !w->space.measured;
  guint64 room;
  RtfSpaceAction action;

  if (!sample (w, now, &s)) {
    w->space.next_check_ns = now + RTF_SPACE_CHECK_NS;
    return;
  }
  s.no_room = no_room;
  action = rtf_space_guard_check (&w->space, &s, &crossed, &room);
  publish (w);
  if (first && w->worker && w->space.now.min_free)
    rtf_file_worker_set_min_free (w->worker, w->space.now.min_free);
  if (crossed) {
    rtf_writer_log_in (w, RTF_LOG_SPACE, RTF_LOG_INFO, "free space %s: %" G_GUINT64_FORMAT
        " bytes (min-free-space %" G_GUINT64_FORMAT ")",
        rtf_space_level_name (w->space.now.level), w->space.now.free,
        w->space.now.min_free);
    RTF_WRITER_CALLBACK (w, disk_space, &w->space.now);
  }
  switch (action) {
    case RTF_SPACE_MAKE_ROOM:
      rtf_writer_log_in (w, RTF_LOG_SPACE, RTF_LOG_DEBUG, "%" G_GUINT64_FORMAT " bytes free, "
          "under min-free-space: deleting the oldest files for %"
          G_GUINT64_FORMAT " bytes", w->space.now.free, room);
      w->space_room_asked = TRUE;
      rtf_file_worker_make_room (w->worker, room);
      break;
    case RTF_SPACE_END:
      rtf_writer_log_in (w, RTF_LOG_SPACE, RTF_LOG_INFO, "%" G_GUINT64_FORMAT " bytes free, "
          "under min-free-space (%" G_GUINT64_FORMAT ")%s: ending the "
          "recording", w->space.now.free, w->space.now.min_free,
          w->config.rotate ? " and no older file to delete for it" : "");
      rtf_writer_fail_at (w, RTF_FAIL_SPACE, ENOSPC, NULL, NULL);
      break;
    default:
      break;
  }
}

static void
check (RtfWriter * w, gint64 now)
{
  check_with (w, now, FALSE);
}

guint64
rtf_writer_space_first_reserve (RtfWriter * w, const gchar * path, guint64 want)
{
  gchar *dir;
  guint64 fs_free, fs_size, min_free;
  gint err;

  if (want == 0)
    return want;
  dir = g_path_get_dirname (path);
  err = rtf_space_statfs (-1, dir, &fs_free, &fs_size);
  g_free (dir);
  if (err)
    return want;
  /* the guard off: half of the room (issue 23, torture F3) */
  if (w->config.min_free_space == 0)
    return rtf_space_guard_reserve_share (fs_free, 0, want);
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
  /* a deletion for space has ended: look at once; if it gave nothing
   * back (its files in use), a frame held for room asks again only after
   * a while */
  if (w->space_room_asked) {
    rtf_file_worker_space (w->worker, &reserved, &deletable, &pending);
    if (!pending) {
      RtfFileWorkerLedger l;

      w->space_room_asked = FALSE;
      w->space_now = TRUE;
      rtf_file_worker_ledger (w->worker, &l);
      if (l.room_freed == 0)
        w->space_retry_ns = rtf_clock_now_ns () + RTF_SPACE_RETRY_NS;
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
  if (w->space_held && w->space_retry_ns > now)
    next = MIN (next, w->space_retry_ns - now);
  return wait < 0 ? next : MIN (wait, next);
}

/* ---- the ledger: never more than the room ------------------------ */

/* Sampling by time and by bytes (check()) cannot keep up with a writer
 * that fills the room left between two looks faster than the file helper
 * deletes: flat out on a 200 MB tmpfs (issue 23) the writer wrote the 10
 * MB left in a few ms while a deletion waited behind a prepare on the
 * helper thread, and ran into ENOSPC in 5 runs of 6.  So every byte the
 * writer allocates - a frame's bytes past what is reserved, a
 * reservation it makes or grants the helper - is taken from a
 * budget measured by statfs: the room above min-free-space, less what is
 * on its way and not yet in statfs.  When the budget is spent it looks
 * again (an fstatfs: microseconds); when there is no room the frame
 * waits, like a frame whose file is not open yet, until a deletion (asked
 * for then), a write in flight or a file being finished gives room back;
 * with nothing that can, the recording ends, whole, at the line.  The
 * writer never allocates under min-free-space, whatever its rate. */

static gboolean
ledger_on (RtfWriter * w)
{
  return w->space_on && w->space.now.min_free > 0 && !w->error;
}

static guint64
round_up (guint64 v, guint64 block)
{
  return block > 1 ? (v + block - 1) / block * block : v;
}

/* What o may still allocate of what was handed to the disk: frame bytes
 * in flight past its reservation and what is known written, its fallocate
 * in flight, its index bytes not yet on file.  statfs may show some of it
 * already: counted twice then, on the safe side. */
static guint64
owed (RtfWriter * w, const RtfOutput * o)
{
  guint64 done, end, n = 0;

  if (o == NULL)
    return 0;
  done = MAX (o->reserved_end, round_up (o->written_end, w->block));
  end = round_up (o->offset, w->block);
  if (end > done)
    n += end - done;
  if (o->reserving)
    n += o->reserve_len;
  return n + o->index_len;
}

/* A set that rotates: the oldest files go once the room the ledger sees
 * above the line is under the guard's margin (an eighth of
 * min-free-space), so that the deletion lands before the writer needs the
 * room.  check() judges by the free space with every reservation counted,
 * the next file's too, which is no room for the current file: flat out
 * its deletion came when the writer already waited for it (14 deletions,
 * 14 frames held, at 92 MB/s on a 200 MB tmpfs). */
static void
ask_early (RtfWriter * w, gint64 room)
{
  guint64 reserved, deletable, margin = w->space.now.min_free /
      RTF_SPACE_MARGIN_SHARE;
  gboolean pending;

  if (!w->space.can_delete || w->worker == NULL || w->space_room_asked
      || room >= (gint64) margin || rtf_clock_now_ns () < w->space_retry_ns)
    return;
  rtf_file_worker_space (w->worker, &reserved, &deletable, &pending);
  if (pending || deletable == 0)
    return;
  rtf_file_worker_make_room (w->worker, (guint64) ((gint64) margin - room));
  w->space_room_asked = TRUE;
}

/* The budget from statfs now, for a frame of `frame` bytes (0: a
 * reservation asks): the room, at most a share of min-free-space - a
 * recording looks again at least that often, so up to
 * RTF_SPACE_LEDGER_SHARE recordings on one filesystem, each keeping the
 * same line, never take the last of the room together between looks - or
 * the frame when it is more.  For a frame the share paces the looks; it
 * never refuses what the room holds (issue 23, torture F5: capped at the
 * share whatever the room, a frame larger than a quarter of
 * min-free-space never fitted, and a recording with 78 GB free ended
 * after its first reservation was used up).  A reservation may be
 * smaller than asked, and is: at most the share (a grant of the whole
 * 20 MB preallocation near the line took the room the current file's
 * frames needed - 6 to 8 frames held a run flat out on a 200 MB tmpfs,
 * a deletion's wait for statfs running to its 1 s bound - where grants
 * of at most the share hold none). */
static void
ledger_refresh (RtfWriter * w, guint64 frame)
{
  RtfFileWorkerLedger l = { 0 };
  guint64 fs_free, fs_size, min_free = w->space.now.min_free;
  gint64 room;

  /* the helper's grants before statfs: one made in between is counted
   * twice, never not at all */
  if (w->worker)
    rtf_file_worker_ledger (w->worker, &l);
  if (rtf_space_statfs (w->cur->file.fd, NULL, &fs_free, &fs_size) != 0) {
    /* not known this time: a share (or the frame), and a look again after it */
    w->space_budget = rtf_space_guard_ledger_budget (G_MAXINT64, min_free,
        frame);
    return;
  }
  room = (gint64) MIN (fs_free, (guint64) G_MAXINT64 / 2) - (gint64) MIN
      (min_free, (guint64) G_MAXINT64 / 2) - (gint64) MIN (l.granted,
      (guint64) G_MAXINT64 / 4) - (gint64) owed (w, w->cur) -
      (gint64) owed (w, w->prev);
  w->space_budget = rtf_space_guard_ledger_budget (room, min_free, frame);
  ask_early (w, room);
}

/* What f allocates: its bytes past what its file has reserved (the block
 * its HEAD shares with the frame before is that frame's).  Its index
 * record is not counted: 96 bytes a frame (0.03% of the 307 KB
 * frames), which the line's own margin takes - a recording whose
 * reservation reaches the line still writes the index of the frames in
 * it, and ends exactly when a frame's bytes no longer fit above it. */
static guint64
need_of (RtfWriter * w, const RtfFrame * f, gboolean split, guint64 prepared)
{
  const RtfOutput *o = w->cur;
  guint64 covered, end;

  if (split) {
    end = round_up (f->size, w->block);
    return end > prepared ? end - prepared : 0;
  }
  covered = MAX (round_up (o->offset, w->block), o->reserved_end +
      (o->reserving ? o->reserve_len : 0));
  end = round_up (o->offset + f->size, w->block);
  return end > covered ? end - covered : 0;
}

/* No room for f: what will give some back, asked for or waited for; with
 * nothing, the recording ends */
static void
hold_for_room (RtfWriter * w, const RtfFrame * f, gboolean split, guint64 need)
{
  RtfFileWorkerLedger l = { 0 };
  guint64 reserved = 0, deletable = 0, coming;
  gboolean pending = FALSE, asked = FALSE, dropped = FALSE;
  gint64 now = rtf_clock_now_ns ();

  /* the level is critical now, said with fresh figures (once a frame) */
  if (w->space_held != f)
    check_with (w, now, TRUE);
  if (w->worker) {
    rtf_file_worker_space (w->worker, &reserved, &deletable, &pending);
    rtf_file_worker_ledger (w->worker, &l);
  }
  /* the oldest files of the set go: what f needs and the guard's margin
   * (a file in use is passed over; when none could go, not asked again
   * before space_retry_ns) */
  if (w->space.can_delete && deletable > 0 && !pending
      && now >= w->space_retry_ns) {
    rtf_file_worker_make_room (w->worker, need + w->space.now.min_free /
        RTF_SPACE_MARGIN_SHARE);
    w->space_room_asked = asked = TRUE;
  }
  /* reservations given back by themselves: of files being finished; the
   * next file's is of no use to a frame of this one: it is let go (the
   * next file is opened again, reserving what is left then) */
  coming = reserved > l.prepared ? reserved - l.prepared : 0;
  if (!split && l.prepared > 0) {
    rtf_file_worker_drop_prepared (w->worker);
    dropped = TRUE;
  }
  if (asked || dropped || pending || coming > 0 || w->frames_in_flight > 0
      || w->prev != NULL || (w->space.can_delete && deletable > 0)) {
    if (w->space_held != f) {
      w->space_holds++;
      rtf_writer_log (w, w->space_holds == 1 ? RTF_LOG_INFO : RTF_LOG_DEBUG,
          "no room for frame %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
          " bytes) above min-free-space (%" G_GUINT64_FORMAT "): it waits "
          "until %s", f->seq, need, w->space.now.min_free,
          asked || pending ? "older files are deleted" :
          "writes in flight and files being finished give room back");
    }
    w->space_held = (RtfFrame *) f;
    return;
  }
  rtf_writer_log_in (w, RTF_LOG_SPACE, RTF_LOG_INFO, "no room for frame %" G_GUINT64_FORMAT
      " above min-free-space (%" G_GUINT64_FORMAT ")%s: ending the "
      "recording", f->seq, w->space.now.min_free,
      w->config.rotate ? " and no older file to delete for it" : "");
  /* no time is left: a check while f waited said what the rate gives for
   * the bytes above the line, which f does not fit in (disk-space
   * test_levels on Debian 13: time-left 38.9 ms at the end) */
  w->space.now.time_left = 0;
  publish (w);
  rtf_writer_fail_at (w, RTF_FAIL_SPACE, ENOSPC, NULL, NULL);
}

gboolean
rtf_writer_space_admit (RtfWriter * w, const RtfFrame * f, gboolean split)
{
  RtfFileWorkerLedger l = { 0 };
  guint64 need;

  /* admitted already: it waited for its file */
  if (f == w->space_admitted && f->seq == w->space_admitted_seq)
    return TRUE;
  if (!ledger_on (w))
    return TRUE;
  if (split && w->worker) {
    rtf_file_worker_ledger (w->worker, &l);
    if (l.prepared_number != w->cur->number + 1)
      l.prepared = 0;
  }
  need = need_of (w, f, split, l.prepared);
  if (need > 0 && (gint64) need > w->space_budget)
    ledger_refresh (w, need);
  if (need > 0 && (gint64) need > w->space_budget) {
    hold_for_room (w, f, split, need);
    return FALSE;
  }
  w->space_budget -= (gint64) need;
  w->space_admitted = (RtfFrame *) f;
  w->space_admitted_seq = f->seq;
  if (w->space_held == f)
    rtf_writer_log_in (w, RTF_LOG_SPACE, RTF_LOG_DEBUG, "room for frame %" G_GUINT64_FORMAT
        " now", f->seq);
  w->space_held = NULL;
  return TRUE;
}

guint64
rtf_writer_space_grant (RtfWriter * w, guint64 want)
{
  guint64 grant;

  if (!ledger_on (w) || want == 0)
    return want;
  ledger_refresh (w, 0);
  grant = w->space_budget > 0 ? MIN (want, (guint64) w->space_budget) : 0;
  /* near the end: whole MiB (none: the next file allocates as it goes) */
  if (grant < want)
    grant &= ~(guint64) ((1 << 20) - 1);
  w->space_budget -= (gint64) grant;
  return grant;
}

void
rtf_writer_space_ungrant (RtfWriter * w, guint64 grant)
{
  if (ledger_on (w))
    w->space_budget += (gint64) MIN (grant, (guint64) G_MAXINT64 / 4);
}

guint64
rtf_writer_space_reserve_limit (RtfWriter * w, guint64 want)
{
  guint64 limit;

  if (!ledger_on (w))
    return want;
  if ((gint64) want > w->space_budget)
    ledger_refresh (w, 0);
  limit = w->space_budget > 0 ? MIN (want, (guint64) w->space_budget) : 0;
  /* near the end: what is left of the room, in whole MiB (none: the
   * writes allocate as they go, each taken from the ledger) */
  if (limit < want)
    limit &= ~(guint64) ((1 << 20) - 1);
  w->space_budget -= (gint64) limit;
  return limit;
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
