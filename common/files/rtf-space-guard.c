/* rtframe: the free-space guard's decisions (rtf-space-guard.h) */
#include "rtf-space-guard.h"

#include <errno.h>
#include <string.h>
#include <sys/statfs.h>

void
rtf_space_guard_init (RtfSpaceGuard * g, guint64 min_free, gboolean can_delete)
{
  memset (g, 0, sizeof (*g));
  g->asked = min_free;
  g->can_delete = can_delete;
  g->now.min_free = min_free == RTF_SPACE_AUTO ? 0 : min_free;
  g->now.free = g->now.fs_free = RTF_SPACE_UNKNOWN;
  g->now.time_left = RTF_SPACE_UNKNOWN;
}

guint64
rtf_space_guard_resolve (guint64 asked, guint64 fs_size)
{
  if (asked != RTF_SPACE_AUTO)
    return asked;
  if (fs_size == 0)
    return RTF_SPACE_AUTO_BYTES;
  return MIN (RTF_SPACE_AUTO_BYTES, fs_size / RTF_SPACE_AUTO_SHARE);
}

RtfSpaceLevel
rtf_space_level_of (guint64 free, guint64 min_free)
{
  /* (4 x and 2 x of a min_free near G_MAXUINT64 would wrap: saturate) */
  guint64 two = min_free > G_MAXUINT64 / 2 ? G_MAXUINT64 : 2 * min_free;
  guint64 four = min_free > G_MAXUINT64 / 4 ? G_MAXUINT64 : 4 * min_free;

  if (min_free == 0 || free >= four)
    return RTF_SPACE_OK;
  if (free >= two)
    return RTF_SPACE_LOW;
  if (free >= min_free)
    return RTF_SPACE_VERY_LOW;
  return RTF_SPACE_CRITICAL;
}

const gchar *
rtf_space_level_name (RtfSpaceLevel level)
{
  static const gchar *names[] = { "ok", "low", "very-low", "critical" };

  return level <= RTF_SPACE_CRITICAL ? names[level] : "?";
}

/* The level after `level`, with free now: down at once, up only a
 * quarter of min_free past the line, not counting own_freed (what the
 * recording's deletions gave back and it has not written again) */
static RtfSpaceLevel
next_level (RtfSpaceLevel level, guint64 free, guint64 min_free,
    guint64 own_freed)
{
  RtfSpaceLevel raw = rtf_space_level_of (free, min_free), up;
  guint64 margin = min_free / 4 + own_freed;

  if (raw >= level)
    return raw;
  up = rtf_space_level_of (free > margin ? free - margin : 0, min_free);
  return MIN (up, level);
}

/* What the recording's own deletions gave back since the last sample is
 * added to own_freed, and what it wrote since taken off it */
static void
count_own_freed (RtfSpaceGuard * g, const RtfSpaceSample * s)
{
  guint64 wrote = s->written > g->own_written ? s->written - g->own_written : 0;

  if (s->freed > g->freed_seen)
    g->own_freed += s->freed - g->freed_seen;
  g->freed_seen = s->freed;
  g->own_freed -= MIN (g->own_freed, wrote);
  g->own_written = s->written;
}

/* Bytes per second written, from the oldest sample kept to s */
static void
measure_rate (RtfSpaceGuard * g, const RtfSpaceSample * s)
{
  guint last = (g->first + g->n - 1) % RTF_SPACE_RATE_SAMPLES;
  gint64 span;

  /* one sample a second (checks come more often near the end) */
  if (g->n == 0 || s->now_ns - g->t[last] >= RTF_SPACE_CHECK_NS * 9 / 10) {
    if (g->n == RTF_SPACE_RATE_SAMPLES) {
      g->first = (g->first + 1) % RTF_SPACE_RATE_SAMPLES;
      g->n--;
    }
    last = (g->first + g->n) % RTF_SPACE_RATE_SAMPLES;
    g->t[last] = s->now_ns;
    g->w[last] = s->written;
    g->n++;
  }
  span = s->now_ns - g->t[g->first];
  /* half a second at least: a rate from a few frames says little */
  if (span >= RTF_SPACE_CHECK_NS / 2 && s->written >= g->w[g->first])
    g->now.rate = (guint64) ((gdouble) (s->written - g->w[g->first]) *
        1e9 / span);
}

static guint64
time_left (const RtfSpaceReport * r)
{
  gdouble ns;

  if (r->rate == 0)
    return RTF_SPACE_UNKNOWN;
  if (r->free <= r->min_free)
    return 0;
  ns = (gdouble) (r->free - r->min_free) * 1e9 / r->rate;
  return ns >= (gdouble) (G_MAXUINT64 - 1) ? G_MAXUINT64 - 1 : (guint64) ns;
}

RtfSpaceAction
rtf_space_guard_check (RtfSpaceGuard * g, const RtfSpaceSample * s,
    gboolean * crossed, guint64 * room)
{
  RtfSpaceReport *r = &g->now;
  RtfSpaceLevel level;
  guint64 target;

  *crossed = FALSE;
  *room = 0;
  if (!g->measured)
    r->min_free = rtf_space_guard_resolve (g->asked, s->fs_size);
  r->fs_free = s->fs_free;
  r->reserved = s->reserved;
  r->free = s->fs_free > G_MAXUINT64 - s->reserved ? G_MAXUINT64 :
      s->fs_free + s->reserved;
  r->detected_ns = s->now_ns;
  measure_rate (g, s);
  r->time_left = s->no_room ? 0 : time_left (r);

  count_own_freed (g, s);
  level = g->measured ? next_level (r->level, r->free, r->min_free,
      g->own_freed) : rtf_space_level_of (r->free, r->min_free);
  if (s->no_room && r->min_free > 0)
    level = RTF_SPACE_CRITICAL;
  if (!g->measured || level != r->level) {
    *crossed = g->measured || level != RTF_SPACE_OK;
    r->previous = g->measured ? r->level : RTF_SPACE_OK;
    r->level = level;
  }
  g->measured = TRUE;

  /* next check: once a second, or four times in the time left, or when
   * a quarter of the room left is written */
  g->next_check_written = s->written + MAX ((r->free > r->min_free ?
          r->free - r->min_free : 0) / 4, 1);
  g->next_check_ns = s->now_ns + RTF_SPACE_CHECK_NS;
  if (r->free < r->min_free)
    g->next_check_ns = s->now_ns + 5 * RTF_SPACE_CHECK_MIN_NS;
  else if (r->time_left != RTF_SPACE_UNKNOWN
      && r->time_left / 4 < (guint64) RTF_SPACE_CHECK_NS)
    g->next_check_ns = s->now_ns + MAX ((gint64) (r->time_left / 4),
        RTF_SPACE_CHECK_MIN_NS);

  if (r->min_free == 0 || s->room_pending || s->no_room)
    return RTF_SPACE_GO_ON;
  /* a set that rotates deletes before the line, so the free space stays
   * above it while the deletion is on its way: back to the line plus the
   * margin */
  target = r->min_free + r->min_free / RTF_SPACE_MARGIN_SHARE;
  if (r->free >= target)
    return RTF_SPACE_GO_ON;
  if (g->can_delete && s->deletable > 0
      && s->deletable >= (r->free < r->min_free ? r->min_free - r->free : 0)) {
    /* idle, the closed files hold the newest frames: room is made once
     * frames come again (review of issue 17: every event file went while
     * the recorder was idle) */
    if (s->idle)
      return RTF_SPACE_GO_ON;
    *room = MIN (target - r->free, s->deletable);
    return RTF_SPACE_MAKE_ROOM;
  }
  if (r->free >= r->min_free)
    return RTF_SPACE_GO_ON;
  /* under the line, and deleting every older file would not be enough
   * (or none may be deleted): they stay, and the recording ends */
  return RTF_SPACE_END;
}

gint64
rtf_space_guard_next_check (const RtfSpaceGuard * g)
{
  return g->next_check_ns;
}

gboolean
rtf_space_guard_due (const RtfSpaceGuard * g, gint64 now_ns, guint64 written)
{
  /* (before the first sample: at next_check_ns, 0, or when the writer
   * says to look again after statfs failed) */
  return now_ns >= g->next_check_ns
      || (g->measured && written >= g->next_check_written);
}

guint64
rtf_space_guard_reserve_limit (guint64 min_free, guint64 fs_free, guint64 want)
{
  if (min_free == 0)
    return want;
  if (fs_free <= min_free)
    return 0;
  return MIN (want, fs_free - min_free);
}

gint64
rtf_space_guard_ledger_budget (gint64 room, guint64 min_free, guint64 want)
{
  guint64 cap = MAX (min_free / RTF_SPACE_LEDGER_SHARE, want);

  return MIN (room, (gint64) MIN (cap, (guint64) G_MAXINT64 / 4));
}

guint64
rtf_space_guard_reserve_share (guint64 fs_free, guint64 reserved, guint64 want)
{
  guint64 share;

  /* after it: fs_free - x free, reserved + x reserved, x <= the first */
  share = fs_free > reserved ? (fs_free - reserved) / 2 : 0;
  if (share >= want)
    return want;
  return share & ~(guint64) ((1 << 20) - 1);
}

gint
rtf_space_statfs (gint fd, const gchar * path, guint64 * fs_free,
    guint64 * fs_size)
{
  struct statfs st;
  gint r;

  do {
    r = fd >= 0 ? fstatfs (fd, &st) : statfs (path, &st);
  } while (r < 0 && errno == EINTR);
  if (r < 0)
    return errno;
  if (st.f_blocks == 0)
    return EOPNOTSUPP;
  *fs_free = (guint64) st.f_bavail * (guint64) st.f_frsize;
  *fs_size = (guint64) st.f_blocks * (guint64) st.f_frsize;
  return 0;
}
