/* The torture test's bounded runs (torture-spawn.h) */
#include "torture-spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t torture_interrupted;

#define KEEP_OUTPUT (4 * 1048576)

static void
child_setup (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static gchar *
read_head (const gchar * path)
{
  gchar *text = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &text, &len, NULL))
    return g_strdup ("");
  if (len > KEEP_OUTPUT)
    text[KEEP_OUTPUT] = '\0';
  return text;
}

/* gdb's stacks of every thread of pid (bounded itself) */
static gchar *
stacks_of (GPid pid)
{
  gchar *spid = g_strdup_printf ("%d", pid);
  gchar *argv[] = { (gchar *) "timeout", (gchar *) "60", (gchar *) "gdb",
    (gchar *) "-batch", (gchar *) "-p", spid, (gchar *) "-ex",
    (gchar *) "thread apply all bt", NULL
  };
  gchar *out = NULL, *err = NULL;

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
          &err, NULL, NULL))
    out = g_strdup ("(gdb could not be run)");
  g_free (err);
  g_free (spid);
  return out;
}

void
torture_spawn (gchar ** argv, guint timeout_ms, const gchar * out_path,
    const gchar * err_path, TortureRun * run)
{
  torture_spawn_hooked (argv, timeout_ms, out_path, err_path, 0, NULL, NULL,
      run);
}

void
torture_spawn_hooked (gchar ** argv, guint timeout_ms,
    const gchar * out_path, const gchar * err_path, guint hook_ms,
    TortureSpawnHook hook, gpointer data, TortureRun * run)
{
  gchar *tmp_out = NULL, *tmp_err = NULL;
  gint out_fd, err_fd;
  GPid pid;
  gint64 start = g_get_monotonic_time (), end;
  GError *error = NULL;

  memset (run, 0, sizeof (*run));
  if (out_path == NULL) {
    out_fd = g_file_open_tmp ("torture-out-XXXXXX", &tmp_out, NULL);
    out_path = tmp_out;
  } else {
    out_fd = open (out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (err_path == NULL) {
    err_fd = g_file_open_tmp ("torture-err-XXXXXX", &tmp_err, NULL);
    err_path = tmp_err;
  } else {
    err_fd = open (err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (out_fd < 0 || err_fd < 0 || !g_spawn_async_with_fds (NULL, argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, child_setup, NULL, &pid, -1, out_fd,
          err_fd, &error)) {
    run->err = g_strdup_printf ("could not run %s: %s", argv[0],
        error ? error->message : g_strerror (errno));
    g_clear_error (&error);
    goto out;
  }
  run->started = TRUE;
  end = start + (gint64) timeout_ms *1000;
  for (;;) {
    pid_t got = waitpid (pid, &run->status, WNOHANG);

    if (got == pid)
      break;
    if (hook && g_get_monotonic_time () > start + (gint64) hook_ms * 1000) {
      hook (data);
      hook = NULL;
    }
    if (torture_interrupted && !run->interrupted) {
      run->interrupted = TRUE;
      kill (pid, SIGKILL);
    } else if (!run->hung && g_get_monotonic_time () > end) {
      run->hung = TRUE;
      run->stacks = stacks_of (pid);
      kill (pid, SIGKILL);
    }
    g_usleep (5000);
  }
  g_spawn_close_pid (pid);
  run->seconds = (g_get_monotonic_time () - start) / 1e6;
out:
  if (out_fd >= 0)
    close (out_fd);
  if (err_fd >= 0)
    close (err_fd);
  if (run->started) {
    run->out = read_head (out_path);
    run->err = read_head (err_path);
  }
  if (tmp_out)
    g_unlink (tmp_out);
  if (tmp_err)
    g_unlink (tmp_err);
  g_free (tmp_out);
  g_free (tmp_err);
  if (run->out == NULL)
    run->out = g_strdup ("");
  if (run->err == NULL)
    run->err = g_strdup ("");
}

void
torture_run_clear (TortureRun * run)
{
  g_free (run->out);
  g_free (run->err);
  g_free (run->stacks);
  memset (run, 0, sizeof (*run));
}

gchar *
torture_run_describe (const TortureRun * run)
{
  if (!run->started)
    return g_strdup_printf ("not run: %s", run->err);
  if (run->hung)
    return g_strdup_printf ("hung (killed after %.1f s)", run->seconds);
  if (run->interrupted)
    return g_strdup ("interrupted");
  if (WIFSIGNALED (run->status))
    return g_strdup_printf ("killed by %s", g_strsignal (WTERMSIG
            (run->status)));
  return g_strdup_printf ("exit %d", WEXITSTATUS (run->status));
}

gboolean
torture_run_exited (const TortureRun * run, gint code)
{
  return run->started && !run->hung && WIFEXITED (run->status)
      && WEXITSTATUS (run->status) == code;
}

gboolean
torture_run_sanitizer (const TortureRun * run)
{
  static const gchar *says[] = { "ERROR: AddressSanitizer",
    "ERROR: LeakSanitizer", "runtime error:", "WARNING: ThreadSanitizer",
    "UndefinedBehaviorSanitizer"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (says); i++)
    if ((run->err && strstr (run->err, says[i]))
        || (run->out && strstr (run->out, says[i])))
      return TRUE;
  return FALSE;
}

gint
torture_tool (const gchar * tool, gchar ** out, ...)
{
  const gchar *dir = g_getenv ("RTFRAME_TOOLS_DIR");
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  const gchar *arg;
  TortureRun run;
  va_list args;
  gint code;

  g_ptr_array_add (argv, g_build_filename (dir ? dir : ".", tool, NULL));
  va_start (args, out);
  while ((arg = va_arg (args, const gchar *)) != NULL)
      g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (argv, NULL);
  torture_spawn ((gchar **) argv->pdata, 60000, NULL, NULL, &run);
  code = run.started && WIFEXITED (run.status) && !run.hung ?
      WEXITSTATUS (run.status) : -1;
  if (out) {
    gchar *how = torture_run_describe (&run);

    *out = g_strdup_printf ("%s%s%s%s%s", run.out, *run.err ? "[stderr] " :
        "", run.err, code < 0 ? "\n[" : "", code < 0 ? how : "");
    if (code < 0) {
      gchar *t = *out;

      *out = g_strconcat (t, "]", run.stacks ? "\n" : "", run.stacks ?
          run.stacks : "", NULL);
      g_free (t);
    }
    g_free (how);
  }
  g_ptr_array_unref (argv);
  torture_run_clear (&run);
  return code;
}
