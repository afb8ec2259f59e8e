/* The power-cut test's commands (powercut-run.h) */
#include "powercut-run.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void
stderr_to_stdout (gpointer data)
{
  dup2 (STDOUT_FILENO, STDERR_FILENO);
}

gint
pc_run_argv (const gchar * const *argv, guint timeout_s, gchar ** out)
{
  GString *s = g_string_new (NULL);
  GError *error = NULL;
  gint fd = -1, status = -1;
  GPid pid = 0;
  gboolean killed = FALSE;
  gint64 end = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;

  /* (stderr into the same pipe: what the command said, in order) */
  if (!g_spawn_async_with_pipes (NULL, (gchar **) argv, NULL,
          G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, stderr_to_stdout,
          NULL, &pid, NULL, &fd, NULL, &error)) {
    g_string_append (s, error->message);
    g_error_free (error);
  } else {
    gint flags = fcntl (fd, F_GETFL);

    /* the output, until the child closes it or the bound passes */
    fcntl (fd, F_SETFL, flags | O_NONBLOCK);
    for (;;) {
      gchar buf[4096];
      gssize n = read (fd, buf, sizeof buf);

      if (n > 0) {
        if (s->len < 1048576)
          g_string_append_len (s, buf, n);
        continue;
      }
      if (n == 0)
        break;
      if (errno != EAGAIN && errno != EINTR)
        break;
      if (g_get_monotonic_time () > end) {
        kill (pid, SIGKILL);
        killed = TRUE;
        break;
      }
      g_usleep (1000);
    }
    close (fd);
    if (waitpid (pid, &status, 0) < 0 || killed)
      status = -1;
    else if (WIFEXITED (status))
      status = WEXITSTATUS (status);
    else
      status = -1;
    g_spawn_close_pid (pid);
  }
  if (killed)
    g_string_append_printf (s, "\n(killed after %u s)", timeout_s);
  if (out)
    *out = g_string_free (s, FALSE);
  else
    g_string_free (s, TRUE);
  return status;
}

gboolean
pc_run (GError ** error, const gchar * program, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  const gchar *a;
  va_list args;
  gchar *out = NULL, *cmd;
  gint status;

  g_ptr_array_add (argv, (gpointer) program);
  va_start (args, program);
  while ((a = va_arg (args, const gchar *)) != NULL)
    g_ptr_array_add (argv, (gpointer) a);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  status = pc_run_argv ((const gchar * const *) argv->pdata, 300, &out);
  if (status != 0) {
    cmd = g_strjoinv (" ", (gchar **) argv->pdata);
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: exit %d: %s",
        cmd, status, out);
    g_free (cmd);
  }
  g_free (out);
  g_ptr_array_unref (argv);
  return status == 0;
}

gboolean
pc_dm_mark (const gchar * name, const gchar * text, GError ** error)
{
  struct
  {
    struct dm_ioctl io;
    guint8 data[512];
  } buf;
  struct dm_target_msg *msg = (struct dm_target_msg *) buf.data;
  gint fd, r;

  memset (&buf, 0, sizeof buf);
  buf.io.version[0] = DM_VERSION_MAJOR;
  buf.io.data_size = sizeof buf;
  buf.io.data_start = sizeof buf.io;
  g_strlcpy (buf.io.name, name, sizeof buf.io.name);
  msg->sector = 0;
  g_snprintf (msg->message, sizeof buf.data - sizeof *msg, "mark %s", text);
  fd = open ("/dev/mapper/control", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "/dev/mapper/control: %s", g_strerror (errno));
    return FALSE;
  }
  r = ioctl (fd, DM_TARGET_MSG, &buf);
  if (r < 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "mark %s on %s: %s", text, name, g_strerror (errno));
  close (fd);
  return r == 0;
}
