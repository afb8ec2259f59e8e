/* Unit tests of common/files/rtf-space-guard.c: the free-space guard's
 * decisions on made-up samples (the root test disk-space runs it on real
 * filesystems) */
#include "rtf-space-guard.h"

#define MB G_GUINT64_CONSTANT (1000000)
#define SEC G_GINT64_CONSTANT (1000000000)

/* A recording writing `rate` bytes/s from t = 0, on a filesystem that
 * starts with `start` bytes free: the sample at time t */
static RtfSpaceSample
at (gint64 t, guint64 start, guint64 rate)
{
  RtfSpaceSample s = { 0 };
  guint64 written = (guint64) ((gdouble) rate * t / SEC);

  s.now_ns = t;
  s.fs_size = 100000 * MB;
  s.fs_free = start > written ? start - written : 0;
  s.written = written;
  return s;
}

static void
test_auto_min_free (void)
{
  /* 1 GiB, or a twentieth of a smaller filesystem */
  g_assert_cmpuint (rtf_space_guard_resolve (RTF_SPACE_AUTO,
          2000000 * MB), ==, G_GUINT64_CONSTANT (1) << 30);
  g_assert_cmpuint (rtf_space_guard_resolve (RTF_SPACE_AUTO, 400 * MB), ==,
      20 * MB);
  g_assert_cmpuint (rtf_space_guard_resolve (RTF_SPACE_AUTO, 0), ==,
      G_GUINT64_CONSTANT (1) << 30);
  g_assert_cmpuint (rtf_space_guard_resolve (123, 400 * MB), ==, 123);
  g_assert_cmpuint (rtf_space_guard_resolve (0, 400 * MB), ==, 0);
}

static void
test_levels (void)
{
  const guint64 m = 100 * MB;

  g_assert_cmpint (rtf_space_level_of (400 * MB, m), ==, RTF_SPACE_OK);
  g_assert_cmpint (rtf_space_level_of (400 * MB - 1, m), ==, RTF_SPACE_LOW);
  g_assert_cmpint (rtf_space_level_of (200 * MB, m), ==, RTF_SPACE_LOW);
  g_assert_cmpint (rtf_space_level_of (200 * MB - 1, m), ==,
      RTF_SPACE_VERY_LOW);
  g_assert_cmpint (rtf_space_level_of (100 * MB, m), ==, RTF_SPACE_VERY_LOW);
  g_assert_cmpint (rtf_space_level_of (100 * MB - 1, m), ==,
      RTF_SPACE_CRITICAL);
  g_assert_cmpint (rtf_space_level_of (0, 0), ==, RTF_SPACE_OK);
  /* no overflow near the top */
  g_assert_cmpint (rtf_space_level_of (G_MAXUINT64 - 1, G_MAXUINT64 / 3),
      ==, RTF_SPACE_LOW);
  g_assert_cmpstr (rtf_space_level_name (RTF_SPACE_VERY_LOW), ==, "very-low");
}

/* Down through every level as the recording fills the disk, each crossing
 * once, then back up only past the margin */
static void
test_crossings_and_hysteresis (void)
{
  RtfSpaceGuard g;
  RtfSpaceSample s;
  gboolean crossed;
  guint64 room;
  RtfSpaceLevel seen[8];
  guint n = 0;
  gint64 t;

  rtf_space_guard_init (&g, 100 * MB, FALSE);
  /* 500 MB free, 100 MB/s: ok at first, no message */
  s = at (0, 500 * MB, 100 * MB);
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  g_assert_false (crossed);
  for (t = SEC / 10; t <= 4 * SEC + SEC / 2; t += SEC / 10) {
    s = at (t, 500 * MB, 100 * MB);
    rtf_space_guard_check (&g, &s, &crossed, &room);
    if (crossed) {
      g_assert_cmpint (g.now.previous, ==, n ? seen[n - 1] : RTF_SPACE_OK);
      seen[n++] = g.now.level;
    }
  }
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (seen[0], ==, RTF_SPACE_LOW);
  g_assert_cmpint (seen[1], ==, RTF_SPACE_VERY_LOW);
  g_assert_cmpint (seen[2], ==, RTF_SPACE_CRITICAL);

  /* back: 110 MB free is over the line, not past the margin (125 MB) */
  s.now_ns += SEC / 10;
  s.fs_free = 110 * MB;
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_false (crossed);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_CRITICAL);
  s.now_ns += SEC / 10;
  s.fs_free = 126 * MB;
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_true (crossed);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_VERY_LOW);
  g_assert_cmpint (g.now.previous, ==, RTF_SPACE_CRITICAL);
  /* and all the way up at once */
  s.now_ns += SEC / 10;
  s.fs_free = 900 * MB;
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_true (crossed);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_OK);
  /* down again at once */
  s.now_ns += SEC / 10;
  s.fs_free = 399 * MB;
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_true (crossed);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_LOW);
}

/* A set that rotates: every file the recording deletes (120 MB back)
 * would lift the level, and the writing bring it down again - two
 * messages a file before issue 26.  The level holds now; space freed by
 * anything else still lifts it */
static void
test_ring_keeps_its_level (void)
{
  RtfSpaceGuard g;
  RtfSpaceSample s = { 0 };
  gboolean crossed;
  guint64 room, free = 150 * MB;
  guint n = 0, deletions = 0, i;

  rtf_space_guard_init (&g, 100 * MB, TRUE);
  s.fs_size = 100000 * MB;
  for (i = 0; i < 400; i++) {
    s.now_ns = i * (SEC / 10);
    s.fs_free = free;
    s.deletable = 600 * MB;
    if (rtf_space_guard_check (&g, &s, &crossed, &room) == RTF_SPACE_MAKE_ROOM) {
      /* a file of 120 MB deleted (max-files or the guard, alike) */
      free += 120 * MB;
      s.freed += 120 * MB;
      deletions++;
    }
    n += crossed;
    free -= 2 * MB;
    s.written += 2 * MB;
  }
  g_assert_cmpuint (deletions, >, 5);
  /* very-low at the first check, and nothing since */
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_VERY_LOW);

  /* another program deletes 500 MB: up */
  s.now_ns += SEC / 10;
  s.fs_free = free + 500 * MB;
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_true (crossed);
  g_assert_cmpint (g.now.level, <, RTF_SPACE_VERY_LOW);
}

/* Low already at the first check: said at once */
static void
test_first_check_low (void)
{
  RtfSpaceGuard g;
  RtfSpaceSample s = at (0, 150 * MB, 0);
  gboolean crossed;
  guint64 room;

  rtf_space_guard_init (&g, 100 * MB, FALSE);
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_true (crossed);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_VERY_LOW);
  g_assert_cmpint (g.now.previous, ==, RTF_SPACE_OK);
  g_assert_cmpuint (g.now.time_left, ==, RTF_SPACE_UNKNOWN);
}

/* The rate over the last seconds, and the time left at it */
static void
test_rate_and_time_left (void)
{
  RtfSpaceGuard g;
  RtfSpaceSample s;
  gboolean crossed;
  guint64 room;
  gint64 t;

  rtf_space_guard_init (&g, 100 * MB, FALSE);
  for (t = 0; t <= 3 * SEC; t += SEC / 4) {
    s = at (t, 10000 * MB, 50 * MB);
    rtf_space_guard_check (&g, &s, &crossed, &room);
  }
  g_assert_cmpuint (g.now.rate, >=, 49 * MB);
  g_assert_cmpuint (g.now.rate, <=, 51 * MB);
  /* (10000 - 150 - 100) MB at 50 MB/s: 195 s */
  g_assert_cmpuint (g.now.time_left / SEC, >=, 193);
  g_assert_cmpuint (g.now.time_left / SEC, <=, 197);
  /* the rate follows a change within the window (10 s) */
  for (; t <= 25 * SEC; t += SEC / 2) {
    s.now_ns = t;
    s.written += 10 * MB;       /* 20 MB/s now */
    rtf_space_guard_check (&g, &s, &crossed, &room);
  }
  g_assert_cmpuint (g.now.rate, >=, 19 * MB);
  g_assert_cmpuint (g.now.rate, <=, 21 * MB);
}

/* Checks come once a second, more often as the room runs out, and when a
 * quarter of the room left has been written */
static void
test_next_check (void)
{
  RtfSpaceGuard g;
  RtfSpaceSample s;
  gboolean crossed;
  guint64 room;
  gint64 t;

  rtf_space_guard_init (&g, 100 * MB, FALSE);
  g_assert_true (rtf_space_guard_due (&g, 0, 0));
  s = at (0, 10000 * MB, 0);
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_cmpint (rtf_space_guard_next_check (&g), ==, SEC);
  g_assert_false (rtf_space_guard_due (&g, SEC - 1, 0));
  g_assert_true (rtf_space_guard_due (&g, SEC, 0));
  /* no rate known yet: a quarter of the 9900 MB of room written */
  g_assert_false (rtf_space_guard_due (&g, 1, 2475 * MB - 1));
  g_assert_true (rtf_space_guard_due (&g, 1, 2475 * MB));

  /* 100 MB/s with 200 MB of room: 2 s left, a check every 0.5 s */
  rtf_space_guard_init (&g, 100 * MB, FALSE);
  for (t = 0; t <= 2 * SEC; t += SEC / 2) {
    s = at (t, 500 * MB, 100 * MB);
    rtf_space_guard_check (&g, &s, &crossed, &room);
  }
  g_assert_cmpint (rtf_space_guard_next_check (&g) - s.now_ns, ==, SEC / 2);
  /* never more often than every 20 ms: 2 MB of room is 20 ms */
  s = at (t, 500 * MB, 100 * MB);
  s.fs_free = 102 * MB;
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_cmpint (rtf_space_guard_next_check (&g) - s.now_ns, ==,
      RTF_SPACE_CHECK_MIN_NS);
}

/* One file: the recording ends once under the line, not before */
static void
test_end_without_rotation (void)
{
  RtfSpaceGuard g;
  RtfSpaceSample s = at (0, 101 * MB, 0);
  gboolean crossed;
  guint64 room;

  rtf_space_guard_init (&g, 100 * MB, FALSE);
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  s.fs_free = 100 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  s.fs_free = 100 * MB - 1;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_END);
  /* what the recording reserved ahead counts as its room */
  s.reserved = 2;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  g_assert_cmpuint (g.now.free, ==, 100 * MB + 1);
  g_assert_cmpuint (g.now.fs_free, ==, 100 * MB - 1);
}

/* A set that rotates: its oldest files go, from a margin above the line
 * on, back to it; when they are not enough, it ends */
static void
test_rotation_makes_room (void)
{
  RtfSpaceGuard g;
  RtfSpaceSample s = at (0, 130 * MB, 0);
  gboolean crossed;
  guint64 room;

  rtf_space_guard_init (&g, 100 * MB, TRUE);
  s.deletable = 50 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  /* 112.5 MB is line + margin: at 110 MB, 2.5 MB to give back */
  s.fs_free = 110 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_MAKE_ROOM);
  g_assert_cmpuint (room, ==, 2500000);
  /* nothing more while that deletion goes on */
  s.room_pending = TRUE;
  s.fs_free = 90 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  /* under the line: all that is missing, at most what there is */
  s.room_pending = FALSE;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_MAKE_ROOM);
  g_assert_cmpuint (room, ==, 22500000);
  s.deletable = 15 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_MAKE_ROOM);
  g_assert_cmpuint (room, ==, 15 * MB);
  /* idle (an event recorder between recordings): its closed files hold
   * the newest frames, none goes */
  s.idle = TRUE;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  s.idle = FALSE;
  /* every older file is not enough to get back over the line: they stay,
   * the recording ends */
  s.deletable = 9 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_END);
  /* nothing to delete, over the line: on until the line */
  s.deletable = 0;
  s.fs_free = 105 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  s.fs_free = 99 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_END);
}

/* Off: measured, never acts; the time left is until full */
/* The writer's ledger found no room above the line for its next frame
 * (issue 23): critical whatever the figures, no time left, and the guard
 * leaves the acting to the writer (it holds the frame, asks for room or
 * ends); the next ordinary sample goes back up past the margin */
static void
test_no_room (void)
{
  const guint64 m = 100 * MB;
  RtfSpaceGuard g;
  RtfSpaceSample s = at (0, 120 * MB, 0);
  gboolean crossed;
  guint64 room;

  rtf_space_guard_init (&g, m, TRUE);
  s.deletable = 500 * MB;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_VERY_LOW);
  s.now_ns = SEC;
  s.no_room = TRUE;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
  g_assert_true (crossed);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_CRITICAL);
  g_assert_cmpint (g.now.previous, ==, RTF_SPACE_VERY_LOW);
  g_assert_cmpuint (g.now.time_left, ==, 0);
  g_assert_cmpuint (room, ==, 0);
  /* room made: 150 MB free is past the line and its margin (125 MB) */
  s.now_ns = 2 * SEC;
  s.no_room = FALSE;
  s.fs_free = 150 * MB;
  rtf_space_guard_check (&g, &s, &crossed, &room);
  g_assert_true (crossed);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_VERY_LOW);
}

static void
test_off (void)
{
  RtfSpaceGuard g;
  RtfSpaceSample s;
  gboolean crossed;
  guint64 room;
  gint64 t;

  rtf_space_guard_init (&g, 0, TRUE);
  for (t = 0; t <= 2 * SEC; t += SEC / 2) {
    s = at (t, 300 * MB, 100 * MB);
    g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
        RTF_SPACE_GO_ON);
    g_assert_false (crossed);
  }
  g_assert_cmpuint (g.now.min_free, ==, 0);
  g_assert_cmpint (g.now.level, ==, RTF_SPACE_OK);
  /* 100 MB at 100 MB/s */
  g_assert_cmpuint (g.now.time_left / (SEC / 10), ==, 10);
  s.fs_free = 0;
  g_assert_cmpint (rtf_space_guard_check (&g, &s, &crossed, &room), ==,
      RTF_SPACE_GO_ON);
}

static void
test_reserve_limit (void)
{
  g_assert_cmpuint (rtf_space_guard_reserve_limit (0, 5, 128 * MB), ==,
      128 * MB);
  g_assert_cmpuint (rtf_space_guard_reserve_limit (100 * MB, 1000 * MB,
          128 * MB), ==, 128 * MB);
  g_assert_cmpuint (rtf_space_guard_reserve_limit (100 * MB, 150 * MB,
          128 * MB), ==, 50 * MB);
  g_assert_cmpuint (rtf_space_guard_reserve_limit (100 * MB, 90 * MB,
          128 * MB), ==, 0);
}

/* Issue 23, torture F5: the ledger's budget after a look is capped at a
 * quarter of min-free-space only as a pace; an allocation larger than
 * that (a frame of 598 kB over a line of 843 kB, of 2 MB over a line of
 * 1 MB) gets what it asks while the room holds it, and nothing more than
 * the room, whatever the line */
static void
test_ledger_budget (void)
{
  static const guint64 lines[] = { 4096, 843013, 1000000, 100 * MB };
  static const guint64 wants[] = { 0, 1, 210753, 598016, 1000000, 2000001,
    128 * MB
  };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (lines); i++) {
    for (j = 0; j < G_N_ELEMENTS (wants); j++) {
      guint64 line = lines[i], want = wants[j];
      guint64 share = line / RTF_SPACE_LEDGER_SHARE;

      /* plenty of room: the want, or the share when that is more */
      g_assert_cmpint (rtf_space_guard_ledger_budget (78000 * (gint64) MB,
              line, want), ==, (gint64) MAX (want, share));
      /* room for exactly the want: it fits */
      g_assert_cmpint (rtf_space_guard_ledger_budget ((gint64) want, line,
              want), >=, (gint64) want);
      /* less room than the want: the room, never more */
      if (want > 0)
        g_assert_cmpint (rtf_space_guard_ledger_budget ((gint64) want - 1,
                line, want), ==, (gint64) want - 1);
      /* none: none */
      g_assert_cmpint (rtf_space_guard_ledger_budget (-5, line, want), ==, -5);
    }
  }
}

/* Issue 23, torture F3: a reservation never takes more than it leaves
 * free - 128 MiB asked with 98 MB free is 49 MB (whole MiB), and with
 * 49 MB reserved and 49 MB free nothing more - so the index, other files
 * and the frames past it keep the other half */
static void
test_reserve_share (void)
{
  const guint64 MiB = G_GUINT64_CONSTANT (1) << 20;

  g_assert_cmpuint (rtf_space_guard_reserve_share (1000000 * MB, 0,
          128 * MiB), ==, 128 * MiB);
  g_assert_cmpuint (rtf_space_guard_reserve_share (256 * MiB, 0, 128 * MiB),
      ==, 128 * MiB);
  g_assert_cmpuint (rtf_space_guard_reserve_share (98 * MB, 0, 128 * MiB),
      ==, 46 * MiB);
  g_assert_cmpuint (rtf_space_guard_reserve_share (49 * MB, 49 * MB,
          128 * MiB), ==, 0);
  g_assert_cmpuint (rtf_space_guard_reserve_share (49 * MB, 20 * MB,
          128 * MiB), ==, 13 * MiB);
  g_assert_cmpuint (rtf_space_guard_reserve_share (MiB, 0, 128 * MiB), ==, 0);
  g_assert_cmpuint (rtf_space_guard_reserve_share (0, 0, 128 * MiB), ==, 0);
  g_assert_cmpuint (rtf_space_guard_reserve_share (0, 5 * MB, 128 * MiB),
      ==, 0);
  /* what fits is taken whole, not cut to MiB */
  g_assert_cmpuint (rtf_space_guard_reserve_share (10 * MB, 0, 12345), ==,
      12345);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/space-guard/auto", test_auto_min_free);
  g_test_add_func ("/space-guard/levels", test_levels);
  g_test_add_func ("/space-guard/crossings-and-hysteresis",
      test_crossings_and_hysteresis);
  g_test_add_func ("/space-guard/first-check-low", test_first_check_low);
  g_test_add_func ("/space-guard/ring-keeps-its-level",
      test_ring_keeps_its_level);
  g_test_add_func ("/space-guard/rate-and-time-left", test_rate_and_time_left);
  g_test_add_func ("/space-guard/next-check", test_next_check);
  g_test_add_func ("/space-guard/end-without-rotation",
      test_end_without_rotation);
  g_test_add_func ("/space-guard/rotation-makes-room",
      test_rotation_makes_room);
  g_test_add_func ("/space-guard/no-room", test_no_room);
  g_test_add_func ("/space-guard/off", test_off);
  g_test_add_func ("/space-guard/reserve-limit", test_reserve_limit);
  g_test_add_func ("/space-guard/ledger-budget", test_ledger_budget);
  g_test_add_func ("/space-guard/reserve-share", test_reserve_share);
  return g_test_run ();
}
