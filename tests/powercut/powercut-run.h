/* The power-cut test's commands: running a program (dmsetup, mkfs.xfs,
 * mount, losetup, the rtframe tools) bounded in time, and a mark put into
 * a dm-log-writes log. */
#ifndef __POWERCUT_RUN_H__
#define __POWERCUT_RUN_H__

#include <glib.h>

G_BEGIN_DECLS

/* Runs argv (NULL-terminated, searched in PATH) for at most timeout_s
 * seconds; its exit status (-1: it could not run, or was killed at the
 * bound), its stdout and stderr together in *out (g_free) if out */
gint pc_run_argv (const gchar * const *argv, guint timeout_s, gchar ** out);
/* The same, the arguments as a list; TRUE on exit status 0, else an error
 * naming the command and what it printed */
gboolean pc_run (GError ** error, const gchar * program, ...)
    G_GNUC_NULL_TERMINATED;

/* Puts a mark with text into the log of the dm-log-writes device name
 * (the DM_TARGET_MSG ioctl: the mark lands after every entry the target
 * had logged, in the order of the calls) */
gboolean pc_dm_mark (const gchar * name, const gchar * text, GError ** error);

G_END_DECLS
#endif /* __POWERCUT_RUN_H__ */
