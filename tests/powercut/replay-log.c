/* replay-log: lists the entries of a dm-log-writes log, or replays part of
 * it onto a device or a file, for the power-cut test: the log of a
 * recording made on a dm-log-writes device is replayed onto a fresh image
 * up to each flush, FUA write and mark, and the image is checked there.
 *
 *   replay-log --log LOG --list           every entry, then a summary
 *   replay-log --log LOG --points         the flush, FUA and mark entries
 *   replay-log --log LOG --target T [--from A] [--to B | --to-mark TEXT]
 *
 * A line of an entry: INDEX FLAGS SECTOR NR_SECTORS [mark TEXT], FLAGS as
 * letters (F flush, U FUA, D discard, M mark, m metadata, - none), the
 * sectors in the log's sectorsize, the text of a mark escaped as in C so
 * that an entry stays one line.  A replay applies entries A (default 0)
 * to B (default the last; --to-mark: the first mark with that text at or
 * after A) and syncs the target before it exits.  The target must exist
 * and be at least as large as the highest sector the entries write.
 *
 * Exit status 0: done; 1: the replay failed; 2: bad usage or a log that
 * cannot be read. */
#include "rtf-log-writes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

enum
{
  EXIT_REPLAY = 1,
  EXIT_USAGE = 2
};

static gchar *log_path, *target_path, *to_mark;
static gboolean list, points;
/* (to: G_MININT64 when not given) */
static gint64 from = 0, to = G_MININT64;

static const GOptionEntry options[] = {
  {"log", 'l', 0, G_OPTION_ARG_FILENAME, &log_path,
      "The dm-log-writes log (a file or a block device)", "LOG"},
  {"list", 0, 0, G_OPTION_ARG_NONE, &list,
      "List every entry, then a summary", NULL},
  {"points", 0, 0, G_OPTION_ARG_NONE, &points,
      "List the flush, FUA and mark entries", NULL},
  {"target", 't', 0, G_OPTION_ARG_FILENAME, &target_path,
      "Replay onto this device or file", "T"},
  {"from", 0, 0, G_OPTION_ARG_INT64, &from,
      "First entry to apply (default 0)", "A"},
  {"to", 0, 0, G_OPTION_ARG_INT64, &to,
      "Last entry to apply (default the last of the log)", "B"},
  {"to-mark", 0, 0, G_OPTION_ARG_STRING, &to_mark,
      "Apply up to and including the first mark with this text", "TEXT"},
  {NULL}
};

static void
print_entry (const RtfLogEntry * e)
{
  gchar flags[RTF_LOG_FLAGS_TEXT];

  rtf_log_flags_text (e->flags, flags);
  printf ("%" G_GUINT64_FORMAT " %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
      e->index, flags, e->sector, e->nr_sectors);
  if (e->mark != NULL) {
    gchar *text = g_strescape (e->mark, NULL);

    printf (" mark %s", text);
    g_free (text);
  }
  putchar ('\n');
}

static void
print_stats (const RtfLogStats * s)
{
  printf ("%" G_GUINT64_FORMAT " entries: %" G_GUINT64_FORMAT " writes, %"
      G_GUINT64_FORMAT " flushes, %" G_GUINT64_FORMAT " FUA, %"
      G_GUINT64_FORMAT " discards, %" G_GUINT64_FORMAT " marks, %"
      G_GUINT64_FORMAT " bytes of data", s->entries, s->writes, s->flushes,
      s->fua, s->discards, s->marks, s->data_bytes);
}

static void
print_list (const RtfLogWrites * log, gboolean only_points)
{
  RtfLogStats s;
  guint64 i;

  for (i = 0; i < log->n_entries; i++)
    if (!only_points || rtf_log_entry_is_point (&log->entries[i]))
      print_entry (&log->entries[i]);
  if (only_points)
    return;
  rtf_log_writes_stats (log, 0, G_MAXUINT64, &s);
  print_stats (&s);
  printf ("; sectorsize %u, entries end at byte %" G_GUINT64_FORMAT " of %"
      G_GUINT64_FORMAT "\n", log->sectorsize, log->end, log->size);
}

/* The last entry to apply, from --to or --to-mark; FALSE (said why) when
 * the log has none such */
static gboolean
last_entry (const RtfLogWrites * log, guint64 * last)
{
  const RtfLogEntry *mark;

  if (to_mark == NULL) {
    *last = to != G_MININT64 ? (guint64) to : log->n_entries - 1;
    return TRUE;
  }
  mark = rtf_log_writes_find_mark (log, to_mark, from);
  if (mark == NULL) {
    g_printerr ("replay-log: %s has no mark \"%s\" at or after entry %"
        G_GINT64_FORMAT "\n", log->name, to_mark, from);
    return FALSE;
  }
  *last = mark->index;
  return TRUE;
}

static gint
replay (const RtfLogWrites * log, guint64 last)
{
  GError *error = NULL;
  RtfLogStats s;
  gint fd = open (target_path, O_WRONLY | O_CLOEXEC);

  if (fd < 0) {
    g_printerr ("replay-log: %s: %s\n", target_path, g_strerror (errno));
    return EXIT_REPLAY;
  }
  /* the replayed state on the disk before anyone mounts the target */
  if (!rtf_log_writes_apply_range (log, from, last, fd, &error)
      || fsync (fd) < 0) {
    g_printerr ("replay-log: replaying %s onto %s: %s\n", log->name,
        target_path, error != NULL ? error->message : g_strerror (errno));
    g_clear_error (&error);
    close (fd);
    return EXIT_REPLAY;
  }
  close (fd);
  rtf_log_writes_stats (log, from, last, &s);
  printf ("applied entries %" G_GINT64_FORMAT "..%" G_GUINT64_FORMAT
      " of %s onto %s: ", from, last, log->name, target_path);
  print_stats (&s);
  printf ("\nlast entry: ");
  print_entry (&log->entries[last]);
  return 0;
}

/* What was asked makes sense on its own (before the log is read) */
static gboolean
usage_ok (void)
{
  const gchar *why = NULL;

  if (log_path == NULL)
    why = "--log is needed";
  else if ((list || points) + (target_path != NULL) != 1)
    why = "give one of --list, --points, --target";
  else if (to_mark != NULL && to != G_MININT64)
    why = "--to and --to-mark exclude each other";
  else if (from < 0 || (to != G_MININT64 && to < 0))
    why = "an entry's index is 0 or more";
  if (why != NULL)
    g_printerr ("replay-log: %s (--help for more)\n", why);
  return why == NULL;
}

static gint
run (void)
{
  GError *error = NULL;
  RtfLogWrites *log = rtf_log_writes_open (log_path, &error);
  guint64 last;
  gint status = EXIT_USAGE;

  if (log == NULL) {
    g_printerr ("replay-log: %s\n", error->message);
    g_error_free (error);
    return EXIT_USAGE;
  }
  if (list || points) {
    print_list (log, points);
    status = 0;
  } else if (log->n_entries == 0)
    g_printerr ("replay-log: %s has no entries to replay\n", log->name);
  else if (last_entry (log, &last)) {
    if ((guint64) from > last || last >= log->n_entries)
      g_printerr ("replay-log: entries %" G_GINT64_FORMAT "..%"
          G_GUINT64_FORMAT ": %s has entries 0..%" G_GUINT64_FORMAT "\n",
          from, last, log->name, log->n_entries - 1);
    else
      status = replay (log, last);
  }
  rtf_log_writes_free (log);
  return status;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("- read or replay a "
      "dm-log-writes log");
  GError *error = NULL;
  gint status;

  g_option_context_add_main_entries (ctx, options, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc > 1) {
    g_printerr ("replay-log: %s (--help for more)\n", error != NULL ?
        error->message : "unexpected arguments");
    g_clear_error (&error);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  status = EXIT_USAGE;
  if (usage_ok ())
    status = run ();
  g_free (log_path);
  g_free (target_path);
  g_free (to_mark);
  return status;
}
