/* rtframe: the free-space guard - how much room a recording has left on
 * its filesystem, how fast it uses it, and what to do when it runs short.
 *
 * Decisions only.  The writer thread gives it a sample at least once a
 * second and at every new file (rtf-writer-space.c: fstatfs, and the
 * space the recording holds reserved ahead), and it says at which level
 * the free space is, whether that level changed, and what to do: go on,
 * delete the recording's oldest closed files (a set that rotates), or end
 * the recording before the filesystem is full.  No I/O but
 * rtf_space_statfs(), no clock of its own: tests/test-space-guard.c drives
 * it with made-up samples.  docs/recording.md, "Free space". */
#ifndef __RTF_SPACE_GUARD_H__
#define __RTF_SPACE_GUARD_H__

#include <glib.h>

G_BEGIN_DECLS

/* min-free-space "auto": 1 GiB (a preallocation step of 128 MiB and
 * about 2.5 s of three 2048x928 10-bit streams at 20 fps, 342 MB/s), or
 * a twentieth of the filesystem when that is less, so a small disk can
 * still record */
#define RTF_SPACE_AUTO G_MAXUINT64
#define RTF_SPACE_AUTO_BYTES (G_GUINT64_CONSTANT (1) << 30)
#define RTF_SPACE_AUTO_SHARE 20
/* a figure not known (yet) */
#define RTF_SPACE_UNKNOWN G_MAXUINT64
/* checks: at least once a second ... */
#define RTF_SPACE_CHECK_NS G_GINT64_CONSTANT (1000000000)
/* ... and up to every 20 ms when the room left lasts only a few checks */
#define RTF_SPACE_CHECK_MIN_NS G_GINT64_CONSTANT (20000000)
/* a set that rotates deletes its oldest files once the free space is
 * within an eighth of min-free-space of it, back to that margin */
#define RTF_SPACE_MARGIN_SHARE 8
/* the writer's ledger (rtf-writer-space.c) takes at most this share of
 * min-free-space before it looks at statfs again: so many recordings
 * keeping the same line on one filesystem never take the last of the
 * room together between two looks */
#define RTF_SPACE_LEDGER_SHARE 4
/* a deletion that gave nothing back (the files in use) is not asked for
 * again by a frame held for room before this */
#define RTF_SPACE_RETRY_NS G_GINT64_CONSTANT (100000000)
/* the write rate: measured over the last 10 s at most, a sample a second */
#define RTF_SPACE_RATE_SAMPLES 11

/* Where the free space stands against min-free-space.  Going down a
 * level is at once; going back up needs a quarter of min-free-space more
 * than the level's line, so free space wavering at a line does not post
 * a message on every check, and space the recording's own deletions gave
 * back does not count until the recording has written as much again: a
 * set that rotates (max-files, or the guard deleting its oldest files)
 * keeps its level instead of climbing at every deletion and falling back
 * as it writes (issue 26: low, very-low, critical again on every file of
 * a ring, 114 messages in 8 s).  Space freed by anything else (another
 * program's files deleted) raises the level as before. */
typedef enum
{
  RTF_SPACE_OK,                 /* >= 4 x min-free-space */
  RTF_SPACE_LOW,                /* < 4 x */
  RTF_SPACE_VERY_LOW,           /* < 2 x */
  RTF_SPACE_CRITICAL            /* < 1 x: the guard acts */
} RtfSpaceLevel;

/* What the writer measured at now_ns */
typedef struct
{
  gint64 now_ns;
  guint64 fs_free;              /* statfs: f_bavail * f_frsize */
  guint64 fs_size;              /* f_blocks * f_frsize */
  guint64 reserved;             /* space the recording reserved ahead and
                                 * has not written: statfs counts it used,
                                 * the recording gives it back when it
                                 * ends */
  guint64 written;              /* bytes of frames written so far */
  guint64 deletable;            /* what deleting every closed file of the
                                 * recording would give back (0: none, or
                                 * they may not be deleted) */
  gboolean room_pending;        /* a deletion asked for is still going */
  guint64 freed;                /* what the recording's own deletions
                                 * (max-files, min-free-space) gave back so
                                 * far, in all */
  gboolean idle;                /* nothing goes to the current file and
                                 * nothing is in flight (an event recorder
                                 * between recordings): the newest frames
                                 * are in the last closed file */
  gboolean no_room;             /* the writer's ledger found no room above
                                 * min-free-space for its next frame: the
                                 * level is critical (time left 0), and
                                 * the writer acts itself: GO_ON */
} RtfSpaceSample;

/* The figures of the last check: what a level change reports, and what
 * the statistics show */
typedef struct
{
  RtfSpaceLevel level, previous;
  guint64 free;                 /* fs_free + reserved: the recording's room */
  guint64 fs_free, reserved;
  guint64 min_free;             /* in force (auto resolved); 0: guard off */
  guint64 rate;                 /* bytes/s written, measured; 0: not yet */
  guint64 time_left;            /* ns until free reaches min_free at that
                                 * rate (until full when the guard is off);
                                 * RTF_SPACE_UNKNOWN without a rate */
  gint64 detected_ns;           /* when it was measured */
} RtfSpaceReport;

typedef enum
{
  RTF_SPACE_GO_ON,
  RTF_SPACE_MAKE_ROOM,          /* delete the oldest closed files of the
                                 * recording until *room bytes are back
                                 * (a set that rotates, within an eighth
                                 * of min-free-space of the line) */
  RTF_SPACE_END                 /* end the recording now, whole */
} RtfSpaceAction;

typedef struct
{
  guint64 asked;                /* min-free-space: bytes, 0 off, AUTO */
  gboolean can_delete;          /* the recording's older files may go */
  gboolean measured;            /* a sample came */
  /* the recording's own deletions: what they gave back, as the last
   * sample said; of that, what it has not written again yet (not counted
   * to go up a level); bytes written at the last sample */
  guint64 freed_seen, own_freed, own_written;
  RtfSpaceReport now;
  /* samples for the rate, (time, bytes written) a second apart: a ring */
  gint64 t[RTF_SPACE_RATE_SAMPLES];
  guint64 w[RTF_SPACE_RATE_SAMPLES];
  guint n, first;
  /* the next check: at this time, or once this much is written (a
   * quarter of the room left: a recording faster than the checks, or
   * before its rate is known, is looked at again in time) */
  gint64 next_check_ns;
  guint64 next_check_written;
} RtfSpaceGuard;

/* min_free: bytes, 0 (off: the figures are still measured, nothing is
 * done) or RTF_SPACE_AUTO.  can_delete: the recording is a set of files
 * whose oldest may be deleted to stay above it. */
void rtf_space_guard_init (RtfSpaceGuard * g, guint64 min_free,
    gboolean can_delete);
/* The bytes min-free-space stands for on a filesystem of fs_size bytes
 * (0: not known) */
guint64 rtf_space_guard_resolve (guint64 asked, guint64 fs_size);

/* One check.  *crossed is TRUE when the level changed (g->now says from
 * what), or at the first check when it is not OK.  MAKE_ROOM: *room is
 * what to give back. */
RtfSpaceAction rtf_space_guard_check (RtfSpaceGuard * g,
    const RtfSpaceSample * s, gboolean * crossed, guint64 * room);
/* When the next check is due (CLOCK_MONOTONIC ns) ... */
gint64 rtf_space_guard_next_check (const RtfSpaceGuard * g);
/* ... or whether it is due now, at now_ns with `written` bytes written */
gboolean rtf_space_guard_due (const RtfSpaceGuard * g, gint64 now_ns,
    guint64 written);

/* How much of `want` bytes may be reserved ahead (fallocate) while the
 * filesystem has fs_free: never so much that it falls under min_free
 * (min_free 0: all of it) */
guint64 rtf_space_guard_reserve_limit (guint64 min_free, guint64 fs_free,
    guint64 want);

/* The writer's ledger (rtf-writer-space.c) after a look at statfs: of
 * `room` bytes above min_free (what is on its way taken off already), what
 * it may allocate before it looks again, for an allocation of `want`
 * bytes: a share of min-free-space (RTF_SPACE_LEDGER_SHARE), or `want`
 * when that is more - the share paces the looks, it never refuses what
 * the room holds - and never more than the room (<= 0: none) */
gint64 rtf_space_guard_ledger_budget (gint64 room, guint64 min_free,
    guint64 want);

/* With min-free-space off (0), how much of `want` bytes may be reserved
 * ahead while the filesystem has fs_free and the file holds `reserved`
 * bytes reserved past its frames: never more than it leaves free, so a
 * reservation never fills the filesystem (the index, other files and the
 * frames past it keep the other half); under `want`, whole MiB (0: none -
 * the writes allocate as they go).  With it on, reserve_limit() keeps the
 * line, and the line that room. */
guint64 rtf_space_guard_reserve_share (guint64 fs_free, guint64 reserved,
    guint64 want);

RtfSpaceLevel rtf_space_level_of (guint64 free, guint64 min_free);
/* "ok", "low", "very-low", "critical" */
const gchar *rtf_space_level_name (RtfSpaceLevel level);

/* statfs of the filesystem holding fd (or, fd < 0, path): 0 with the
 * bytes free for unprivileged writers (f_bavail) and its size; an errno;
 * EOPNOTSUPP when it reports no size (ramfs keeps no count). */
gint rtf_space_statfs (gint fd, const gchar * path, guint64 * fs_free,
    guint64 * fs_size);

G_END_DECLS

#endif /* __RTF_SPACE_GUARD_H__ */
