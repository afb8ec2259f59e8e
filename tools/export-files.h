/* rtframe-export: the files a run writes.  Each is written under a
 * hidden temporary name beside its own (created, never opened through a
 * link) and takes its name only once whole, without replacing anything
 * unless --overwrite (and never a link, nor anything but a regular
 * file, nor a file of the recording read, an rtframe index, manifest or
 * marked data file, or a locked file); at a failure every file this run
 * made - temporary or named - is removed, what it replaced put back, and
 * nothing else changed. */
#ifndef __EXPORT_FILES_H__
#define __EXPORT_FILES_H__

#include <glib.h>

G_BEGIN_DECLS typedef struct ExportFiles ExportFiles;

ExportFiles *export_files_new (gboolean overwrite);
/* Whether path may be written: TRUE, or FALSE with *why (it exists and
 * --overwrite was not given; it is a link or not a regular file; its
 * directory is not there) */
gboolean export_files_may_write (ExportFiles * files, const gchar * path,
    gchar ** why);
/* Creates the temporary file for path: a descriptor (the files own it),
 * or -1 with *why */
gint export_files_create (ExportFiles * files, const gchar * path,
    gchar ** why);
/* Writes len bytes at the end of fd: FALSE with *why */
gboolean export_files_write (gint fd, gconstpointer data, gsize len,
    gchar ** why);
/* The file of fd is whole: synced, closed, named path.  FALSE with *why */
gboolean export_files_commit (ExportFiles * files, gint fd, gchar ** why);
/* path (a file of the recording exported) is never replaced */
void export_files_protect (ExportFiles * files, const gchar * path);
/* A failure: removes every file this run made, and puts back what
 * --overwrite replaced */
void export_files_abandon (ExportFiles * files);
/* Success: what --overwrite replaced goes */
void export_files_finish (ExportFiles * files);
void export_files_free (ExportFiles * files);

G_END_DECLS
#endif /* __EXPORT_FILES_H__ */
