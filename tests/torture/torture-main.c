/* torture: the randomized torture test of issue 23.
 *
 * Rounds, each from a seed: the generator draws a plan (torture-draw.c),
 * the world is made (torture-world.c), a child records it
 * (torture-record.c) writing a history, the checker reads the recording
 * back through the project's readers and holds it against the history
 * (torture-check.c).  One line per round; a failing round prints its
 * plan, what was found, its history's tail and the command that runs it
 * again from its seed alone.
 *
 *   torture [--seconds N | --minutes N | --rounds N] [--seed S] [--keep]
 *           [--dir BASE] [--verbose] [--first-failure]
 *
 * Without --seconds/--minutes/--rounds/--seed it runs for
 * $RTFRAME_TORTURE_SECONDS (150) seconds with fresh seeds.  Exit 0: every
 * round held; 1: a round failed; 77: nothing can run here; 130:
 * interrupted (after cleaning up). */
#include <gst/gst.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "torture-check.h"
#include "torture-draw.h"
#include "torture-lock.h"
#include "torture-spawn.h"
#include "torture-world.h"
#include "torture.h"

#ifndef TORTURE_BUILD_ROOT
#define TORTURE_BUILD_ROOT "."
#endif

static gint64 opt_seconds = -1, opt_minutes = -1, opt_rounds = -1;
static gchar *opt_seed, *opt_dir;
static gboolean opt_keep, opt_verbose, opt_first_failure;

static const GOptionEntry entries[] = {
  {"seconds", 0, 0, G_OPTION_ARG_INT64, &opt_seconds,
      "Run rounds with fresh seeds for N seconds", "N"},
  {"minutes", 0, 0, G_OPTION_ARG_INT64, &opt_minutes,
      "Run rounds with fresh seeds for N minutes", "N"},
  {"rounds", 0, 0, G_OPTION_ARG_INT64, &opt_rounds,
      "Run N rounds with fresh seeds", "N"},
  {"seed", 0, 0, G_OPTION_ARG_STRING, &opt_seed,
      "Run the one round of this seed (0x...)", "S"},
  {"keep", 0, 0, G_OPTION_ARG_NONE, &opt_keep,
      "Keep every round's directory (a failing round's is always kept)", NULL},
  {"dir", 0, 0, G_OPTION_ARG_FILENAME, &opt_dir,
      "Where rounds live (default /var/tmp/rtf-torture)", "BASE"},
  {"verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose,
      "Print every round's notes (tools' exits, errors told)", NULL},
  {"first-failure", 0, 0, G_OPTION_ARG_NONE, &opt_first_failure,
      "Stop after the first round that fails (tools/mutants.sh: how long "
        "a planted bug lives)", NULL},
  {NULL}
};

typedef struct
{
  gchar *self, *run_dir;
  guint abilities;
  guint rounds, failed;
  gboolean kept;
  GHashTable *coverage;
  GPtrArray *failed_seeds;
  guint64 reported, read, dropped, lost, excused;
  gdouble slowest;
} Run;

static void
on_signal (int sig)
{
  torture_interrupted = 1;
}

static void
set_default_env (void)
{
  g_setenv ("GST_PLUGIN_PATH_1_0", TORTURE_BUILD_ROOT "/gst", FALSE);
  g_setenv ("GST_REGISTRY_1_0", TORTURE_BUILD_ROOT
      "/tests/torture/registry.bin", FALSE);
  g_setenv ("RTFRAME_TOOLS_DIR", TORTURE_BUILD_ROOT "/tools", FALSE);
  /* a sanitizer build's plugin only loads into a process with its runtime */
  g_setenv ("GST_REGISTRY_FORK", "no", FALSE);
}

static guint64
fresh_seed (void)
{
  guint64 s = 0;
  gint fd = open ("/dev/urandom", O_RDONLY | O_CLOEXEC);

  if (fd < 0 || read (fd, &s, sizeof (s)) != sizeof (s))
    s = g_get_real_time () ^ ((guint64) getpid () << 32);
  if (fd >= 0)
    close (fd);
  return s;
}

static guint
abilities (void)
{
  guint a = 0;

  if (geteuid () == 0) {
    a |= TORTURE_CAN_MOUNT;
    if (g_file_test ("/sys/fs/cgroup/blkio/cgroup.procs", G_FILE_TEST_EXISTS))
      a |= TORTURE_CAN_BLKIO;
  }
  return a;
}

/* ---- one round --------------------------------------------------------- */

static guint
child_bound_ms (const TorturePlan * p)
{
  /* the EOS wait's 30 s, the pushing thrice over, a stall, the stops */
  return 45000 + 3 * p->est_ms + p->stall_len_ms +
      (guint) (3 * p->stop_timeout / 1000000);
}

static void
run_child (Run * run, const TorturePlan * p, TortureWorld * w,
    TortureRun * child)
{
  gchar *seed = g_strdup_printf ("0x%016" G_GINT64_MODIFIER "x", p->seed);
  gchar *ab = g_strdup_printf ("%u", p->abilities);
  gchar *out = g_build_filename (w->round_dir, "child.out", NULL);
  gchar *err = g_build_filename (w->round_dir, "child.err", NULL);
  gchar *argv[] = { run->self, (gchar *) "--record", seed, w->round_dir, ab,
    NULL
  };

  /* a stall outlives a child that kills itself while its writes are
   * held: the kernel keeps the dying child until they end (seed
   * 0x8756f72d8778088f hung 82 s); lifted at its planned end with 2 s to
   * spare for the child's start */
  if (p->stall_loc >= 0)
    torture_spawn_hooked (argv, child_bound_ms (p), out, err,
        p->stall_ms + p->stall_len_ms + 2000,
        (TortureSpawnHook) torture_world_lift_throttles, w, child);
  else
    torture_spawn (argv, child_bound_ms (p), out, err, child);
  g_free (seed);
  g_free (ab);
  g_free (out);
  g_free (err);
}

static void
print_failure (Run * run, const TorturePlan * p, TortureWorld * w,
    const TortureVerdict * v)
{
  gchar *keys = torture_plan_keys (p);

  g_print ("---- the plan:\n%s", keys);
  g_print ("---- what the checker found:\n%s", v->problems->str);
  g_print ("---- the history's tail (%s/history):\n%s", w->round_dir,
      v->history_tail);
  g_print ("---- notes:\n%.6000s", v->notes->str);
  g_print ("---- kept: %s\n---- run it again: tools/torture.sh --seed "
      "0x%016" G_GINT64_MODIFIER "x\n", w->round_dir, p->seed);
  g_free (keys);
}

static gboolean
run_round (Run * run, guint64 seed)
{
  TorturePlan p;
  TortureWorld *w;
  TortureRun child;
  TortureVerdict v;
  GError *error = NULL;
  gint64 start = g_get_monotonic_time ();
  gchar *line;
  gdouble secs;
  gboolean keep, failed;

  torture_plan_draw (&p, seed, run->abilities);
  line = torture_plan_line (&p);
  g_print ("round %u seed 0x%016" G_GINT64_MODIFIER "x %s ... ", run->rounds,
      seed, line);
  g_free (line);
  torture_plan_count (&p, run->coverage);
  w = torture_world_make (&p, run->run_dir, &error);
  if (w == NULL) {
    g_print ("SETUP FAILED: %s\n", error->message);
    g_ptr_array_add (run->failed_seeds, g_strdup_printf ("0x%016"
            G_GINT64_MODIFIER "x  # setup failed: %s", seed, error->message));
    g_error_free (error);
    return FALSE;
  }
  run_child (run, &p, w, &child);
  if (child.interrupted || torture_interrupted) {
    g_print ("interrupted\n");
    torture_run_clear (&child);
    torture_world_free (w, FALSE);
    return TRUE;
  }
  torture_check_round (&p, w, &child, run->self, &v);
  secs = (g_get_monotonic_time () - start) / 1e6;
  run->slowest = MAX (run->slowest, secs);
  g_print ("%s (%" G_GUINT64_FORMAT " reported, %" G_GUINT64_FORMAT " read, %"
      G_GUINT64_FORMAT " dropped, %" G_GUINT64_FORMAT " lost, %"
      G_GUINT64_FORMAT " excused, %" G_GUINT64_FORMAT " errors) %.1f s\n",
      v.failed ? "FAILED" : "ok", v.reported, v.read, v.dropped, v.lost,
      v.excused, v.errors, secs);
  run->reported += v.reported;
  run->read += v.read;
  run->dropped += v.dropped;
  run->lost += v.lost;
  run->excused += v.excused;
  if (v.failed)
    print_failure (run, &p, w, &v);
  else if (opt_verbose && v.notes->len)
    g_print ("%s", v.notes->str);
  keep = v.failed || opt_keep;
  if (keep)
    run->kept = TRUE;
  if (keep && !v.failed)
    g_print ("  kept: %s\n", w->round_dir);
  if (run->kept) {
    gchar *mark = g_build_filename (run->run_dir, ".keep", NULL);

    g_file_set_contents (mark, "", 0, NULL);
    g_free (mark);
  }
  failed = v.failed;
  if (failed) {
    gchar *first = g_strndup (v.problems->str, strcspn (v.problems->str,
            "\n"));
    gchar **parts = g_strsplit (first, w->round_dir, -1);
    gchar *sig = g_strjoinv ("<round>", parts);

    g_ptr_array_add (run->failed_seeds, g_strdup_printf ("0x%016"
            G_GINT64_MODIFIER "x  # %.160s", seed, sig));
    g_strfreev (parts);
    g_free (sig);
    g_free (first);
  }
  torture_verdict_clear (&v);
  torture_run_clear (&child);
  torture_world_free (w, keep);
  return !failed;
}

/* ---- the run ----------------------------------------------------------- */

static void
print_coverage (Run * run)
{
  GList *keys = g_list_sort (g_hash_table_get_keys (run->coverage),
      (GCompareFunc) g_strcmp0), *l;

  g_print ("coverage (rounds that drew each feature and fault):\n");
  for (l = keys; l; l = l->next)
    g_print ("  %-36s %u\n", (const gchar *) l->data,
        GPOINTER_TO_UINT (g_hash_table_lookup (run->coverage, l->data)));
  g_list_free (keys);
}

static void
print_summary (Run * run)
{
  guint i;

  print_coverage (run);
  g_print ("%u rounds, %u failed; frames: %" G_GUINT64_FORMAT " reported "
      "written, %" G_GUINT64_FORMAT " read back, %" G_GUINT64_FORMAT
      " dropped, %" G_GUINT64_FORMAT " lost (told), %" G_GUINT64_FORMAT
      " excused; slowest round %.1f s\n", run->rounds, run->failed,
      run->reported, run->read, run->dropped, run->lost, run->excused,
      run->slowest);
  for (i = 0; i < run->failed_seeds->len; i++)
    g_print ("  failed: tools/torture.sh --seed %s\n",
        (const gchar *) g_ptr_array_index (run->failed_seeds, i));
}

static gint64
seconds_to_run (void)
{
  const gchar *env = g_getenv ("RTFRAME_TORTURE_SECONDS");

  if (opt_seconds >= 0)
    return opt_seconds;
  if (opt_minutes >= 0)
    return opt_minutes * 60;
  if (opt_rounds >= 0 || opt_seed)
    return (gint64) 100 *365 * 24 * 3600;       /* (no time limit) */
  return env ? g_ascii_strtoll (env, NULL, 10) : 150;
}

static gint
run_rounds (Run * run)
{
  gint64 end = g_get_monotonic_time () + seconds_to_run () * G_USEC_PER_SEC;

  while (!torture_interrupted) {
    guint64 seed;

    if (opt_seed)
      seed = g_ascii_strtoull (opt_seed, NULL, 0);
    else if (opt_rounds >= 0 ? run->rounds >= opt_rounds :
        g_get_monotonic_time () >= end)
      break;
    else
      seed = fresh_seed ();
    if (!run_round (run, seed) && !torture_interrupted)
      run->failed++;
    run->rounds++;
    if (opt_seed || (opt_first_failure && run->failed))
      break;
  }
  print_summary (run);
  if (torture_interrupted)
    return 130;
  return run->failed ? 1 : 0;
}

static void
install_handlers (void)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof (sa));
  sa.sa_handler = on_signal;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
}

static gint
main_rounds (gint argc, gchar ** argv)
{
  GOptionContext *ctx = g_option_context_new ("- the randomized torture "
      "test of rtframesink and its readers");
  GError *error = NULL;
  Run run;
  const gchar *base;
  gchar *user_base;
  gint code, lock;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  memset (&run, 0, sizeof (run));
  run.self = g_file_read_link ("/proc/self/exe", NULL);
  run.abilities = abilities ();
  if (!(run.abilities & TORTURE_CAN_MOUNT))
    g_print ("not root: no filesystems, loop devices or blkio throttles of "
        "its own; rounds record into directories only\n");
  install_handlers ();
  /* as a user nothing the root tests share is touched: no lock */
  lock = run.abilities & TORTURE_CAN_MOUNT ? torture_lock_root_tests () : -2;
  if (lock == -1) {
    g_print ("SKIP: cannot take " TORTURE_ROOT_LOCK "\n");
    return 77;
  }
  user_base = g_strdup_printf ("%s/rtf-torture-uid%u", g_get_tmp_dir (),
      (guint) getuid ());
  base = opt_dir ? opt_dir : geteuid () == 0 ? "/var/tmp/rtf-torture" :
      user_base;
  torture_world_sweep (base);
  run.run_dir = g_strdup_printf ("%s/rtf-torture-%d", base, getpid ());
  if (g_mkdir_with_parents (run.run_dir, 0755) != 0) {
    g_print ("SKIP: cannot make %s: %s\n", run.run_dir, g_strerror (errno));
    return 77;
  }
  run.coverage = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  run.failed_seeds = g_ptr_array_new_with_free_func (g_free);
  code = run_rounds (&run);
  torture_sh ("rm -rf --one-file-system /dev/shm/rtf-torture-%d", getpid ());
  if (!run.kept)
    torture_sh ("rm -rf --one-file-system '%s'", run.run_dir);
  else
    g_print ("kept rounds are in %s\n", run.run_dir);
  g_hash_table_unref (run.coverage);
  g_ptr_array_unref (run.failed_seeds);
  g_free (run.run_dir);
  g_free (run.self);
  g_free (user_base);
  return code;
}

int
main (int argc, char **argv)
{
  set_default_env ();
  if (argc == 5 && strcmp (argv[1], "--record") == 0) {
    /* RTFRAME_TORTURE_CHILD_DEBUG=rtframesink:6: the child's GStreamer
     * log, in the round dir (the readers' would overwrite it) */
    const gchar *debug = g_getenv ("RTFRAME_TORTURE_CHILD_DEBUG");

    if (debug) {
      gchar *log = g_build_filename (argv[3], "child-gst.log", NULL);

      g_setenv ("GST_DEBUG", debug, TRUE);
      g_setenv ("GST_DEBUG_FILE", log, TRUE);
      g_free (log);
    }
    gst_init (NULL, NULL);
    return torture_record_main (g_ascii_strtoull (argv[2], NULL, 0), argv[3],
        atoi (argv[4]));
  }
  if (argc == 8 && strcmp (argv[1], "--read") == 0) {
    gst_init (NULL, NULL);
    return torture_read_main (argv[2], g_ascii_strtoull (argv[3], NULL, 10),
        atoi (argv[4]), g_ascii_strtoull (argv[5], NULL, 10),
        g_ascii_strtoull (argv[6], NULL, 10), argv[7]);
  }
  gst_init (&argc, &argv);
  return main_rounds (argc, argv);
}
