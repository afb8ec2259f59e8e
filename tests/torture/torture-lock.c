/* The torture test's share of the machine: root tests (loop devices,
 * sysctls, cgroups) never run two at once, each under an flock of
 * /var/tmp/rtf-root-tests.lock.  Taken here unless an ancestor already
 * holds it (`flock LOCK meson test ...`, tools/torture.sh): waiting for
 * it then would wait for ourselves. */
#include "torture-lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static gint
parent_of (gint pid)
{
  gchar *path = g_strdup_printf ("/proc/%d/stat", pid), *text = NULL, *close;
  gint ppid = 0;

  if (g_file_get_contents (path, &text, NULL, NULL)
      && (close = strrchr (text, ')')))
    sscanf (close + 2, "%*c %d", &ppid);
  g_free (text);
  g_free (path);
  return ppid;
}

static gboolean
is_ancestor (gint pid)
{
  gint p = getpid ();

  while (p > 1) {
    if (p == pid)
      return TRUE;
    p = parent_of (p);
  }
  return FALSE;
}

/* The pid holding an flock on the file (dev, ino), 0 if none */
static gint
holder_of (dev_t dev, ino_t ino)
{
  gchar *text = NULL, **lines;
  gint pid = 0;
  guint i;

  if (!g_file_get_contents ("/proc/locks", &text, NULL, NULL))
    return 0;
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] && !pid; i++) {
    guint maj, min;
    guint64 inode;
    gint p;

    if (strstr (lines[i], "FLOCK") && !strstr (lines[i], "->")
        && sscanf (strstr (lines[i], "FLOCK"), "FLOCK %*s %*s %d %x:%x:%"
            G_GUINT64_FORMAT, &p, &maj, &min, &inode) == 4
        && makedev (maj, min) == dev && inode == ino)
      pid = p;
  }
  g_strfreev (lines);
  g_free (text);
  return pid;
}

gint
torture_lock_root_tests (void)
{
  gint fd = open (TORTURE_ROOT_LOCK, O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
  struct stat sb;
  gboolean said = FALSE;

  if (fd < 0 || fstat (fd, &sb) != 0)
    return -1;
  while (flock (fd, LOCK_EX | LOCK_NB) != 0) {
    gint holder = holder_of (sb.st_dev, sb.st_ino);

    if (errno != EWOULDBLOCK) {
      close (fd);
      return -1;
    }
    if (holder && is_ancestor (holder)) {
      close (fd);
      return -2;                /* held for us */
    }
    if (!said)
      g_print ("waiting for " TORTURE_ROOT_LOCK " (another root test runs: "
          "pid %d)\n", holder);
    said = TRUE;
    g_usleep (200 * 1000);
  }
  return fd;
}
