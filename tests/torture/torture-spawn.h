/* The torture test's bounded runs: a program (the recording child, the
 * reader, the tools) run with its output in files and a time bound; one
 * that outlives it is a hang: its threads' stacks are taken with gdb and
 * it is killed. */
#ifndef __TORTURE_SPAWN_H__
#define __TORTURE_SPAWN_H__

#include <glib.h>
#include <signal.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean started;
  gint status;                  /* waitpid's */
  gboolean hung;                /* outlived its bound: killed */
  gboolean interrupted;         /* the run was interrupted (SIGINT/TERM) */
  gdouble seconds;
  gchar *out, *err;             /* what it printed (the first MBs) */
  gchar *stacks;                /* gdb's, when it hung */
} TortureRun;

/* Set by the parent's SIGINT/SIGTERM handler: runs end at once */
extern volatile sig_atomic_t torture_interrupted;

/* Runs argv (argv[0] a path) with its stdout and stderr in out_path and
 * err_path (NULL: a file of its own, removed after), for at most
 * timeout_ms; the child dies with the parent (PR_SET_PDEATHSIG). */
void torture_spawn (gchar ** argv, guint timeout_ms, const gchar * out_path,
    const gchar * err_path, TortureRun * run);
/* torture_spawn(), and hook(data) run once in the parent hook_ms after the
 * start if the child still runs (a stall's planned end, which a child that
 * killed itself meanwhile cannot reach) */
typedef void (*TortureSpawnHook) (gpointer data);
void torture_spawn_hooked (gchar ** argv, guint timeout_ms,
    const gchar * out_path, const gchar * err_path, guint hook_ms,
    TortureSpawnHook hook, gpointer data, TortureRun * run);
void torture_run_clear (TortureRun * run);

/* "exit 0", "killed by SIGSEGV", "hung (killed after 40 s)" */
gchar *torture_run_describe (const TortureRun * run);
gboolean torture_run_exited (const TortureRun * run, gint code);
/* a sanitizer's report in what it printed */
gboolean torture_run_sanitizer (const TortureRun * run);

/* A tool of the build (RTFRAME_TOOLS_DIR/tool), bounded; out gets what it
 * printed (g_free) */
gint
torture_tool (const gchar * tool, gchar ** out, ...)
    G_GNUC_NULL_TERMINATED;

G_END_DECLS
#endif /* __TORTURE_SPAWN_H__ */
