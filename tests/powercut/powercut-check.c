/* powercut-check: replays the log of a power-cut recording
 * (powercut-record.c) and checks the disks at every point (root: loop
 * devices, mounts).
 *
 *   powercut-check --log LOG --history FILE --work DIR [--tools DIR]
 *                  [--points N|all] [--subsets M] [--seed S]
 *                  [--only ENTRY[/SUBSET]] [--keep]
 *
 * The points are the flushes and FUA writes from the recorder's "ready"
 * mark on, and the log's end (powercut-points.h): all of them where there
 * are at most N (default 200), else the first, the last and N - 2 drawn
 * by the seed; and M of the flushes (default 20) again with a subset of
 * the writes after them.  At each the log is replayed onto an image (a
 * copy of a base brought forward in order), its XFS slices mounted (log
 * recovery), every sink's recording read (powercut-read.h) and held
 * against the last mark the disk is the same at: the recorder's claims
 * of frames durable then (powercut-invariants.h), and a ring's recordings
 * against what it had told of them then (powercut-keep.h).  A
 * failure names its point and how to run that point alone (--only; with
 * --keep its image stays in DIR).
 *
 * Exit 0: every point held; 1: a point failed; 2: it could not run. */
#include <gst/gst.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "powercut-history.h"
#include "powercut-image.h"
#include "powercut-invariants.h"
#include "powercut-keep.h"
#include "powercut-points.h"
#include "powercut-read.h"

static gchar *opt_log, *opt_history, *opt_work, *opt_tools, *opt_points;
static gchar *opt_only;
static gint opt_subsets = 20;
static gint64 opt_seed = 1;
static gboolean opt_keep;

static const GOptionEntry options[] = {
  {"log", 0, 0, G_OPTION_ARG_FILENAME, &opt_log,
      "The dm-log-writes log (a file or a device)", "LOG"},
  {"history", 0, 0, G_OPTION_ARG_FILENAME, &opt_history,
      "The recorder's history", "FILE"},
  {"work", 0, 0, G_OPTION_ARG_FILENAME, &opt_work,
      "A directory for the images and mounts (tmpfs is fastest)", "DIR"},
  {"tools", 0, 0, G_OPTION_ARG_FILENAME, &opt_tools,
      "The rtframe tools' directory (default $RTFRAME_TOOLS_DIR)", "DIR"},
  {"points", 0, 0, G_OPTION_ARG_STRING, &opt_points,
      "How many points: N (default 200) or all", "N"},
  {"subsets", 0, 0, G_OPTION_ARG_INT, &opt_subsets,
      "Flushes checked again with a subset of the writes after them "
        "(default 20)", "M"},
  {"seed", 0, 0, G_OPTION_ARG_INT64, &opt_seed,
      "Draws the sample and the subsets (default 1)", "S"},
  {"only", 0, 0, G_OPTION_ARG_STRING, &opt_only,
      "Check this point alone: ENTRY, or ENTRY/SUBSET", "P"},
  {"keep", 0, 0, G_OPTION_ARG_NONE, &opt_keep,
      "Keep a failing point's image and its mounts' notes", NULL},
  {NULL}
};

typedef struct
{
  const PcScenario *sc;
  PcHistory *h;
  RtfLogWrites *log;
  GArray *marks;                /* PcMarkAt */
  PcImage *im;
  GHashTable *deleted[PC_MAX_SINKS];
  guint checked, failed, subsets;
  gdouble seconds;
} Check;

/* ---- one point ----------------------------------------------------------- */

/* "ENTRY" or "ENTRY/SUBSET" (g_free) */
static gchar *
point_name (const PcPoint * p)
{
  return p->subset ? g_strdup_printf ("%" G_GUINT64_FORMAT "/%"
      G_GUINT64_FORMAT, p->entry, p->subset) : g_strdup_printf ("%"
      G_GUINT64_FORMAT, p->entry);
}

static gchar *
describe (Check * c, const PcPoint * p, const PcMark * m)
{
  const RtfLogEntry *e = &c->log->entries[p->entry];
  gchar flags[RTF_LOG_FLAGS_TEXT], *name = point_name (p), *text, claims[24];

  rtf_log_flags_text (e->flags, flags);
  if (m)
    g_snprintf (claims, sizeof claims, "mark m%u", m->id);
  else
    g_strlcpy (claims, "no mark yet", sizeof claims);
  text = g_strdup_printf ("point %s (entry %s%s%s%s; the claims of %s)",
      name, flags, e->mark ? " " : "", e->mark ? e->mark : "",
      p->subset ? " and a subset of the writes after it" : "", claims);
  g_free (name);
  return text;
}

/* The scratch image of p: the base, and a subset's writes over it */
static gboolean
image_of (Check * c, const PcPoint * p, guint64 * claims_before,
    GError ** error)
{
  gint fd = -1;
  gboolean ok;

  *claims_before = pc_points_claims_end (c->log, p->entry);
  if (!pc_image_scratch (c->im, p->subset ? &fd : NULL, error))
    return FALSE;
  if (p->subset == 0)
    return TRUE;
  {
    GArray *take = pc_points_subset (c->log, p->entry, p->subset,
        claims_before);
    guint i;

    ok = TRUE;
    for (i = 0; ok && i < take->len; i++)
      ok = rtf_log_writes_apply (c->log, g_array_index (take, guint64, i), fd,
          error);
    g_array_unref (take);
  }
  close (fd);
  return ok;
}

static void
read_all (Check * c, const PcMark * m, GString * problems, GString * notes)
{
  guint s;

  for (s = 0; s < c->sc->n_sinks; s++) {
    GHashTable *gone = pc_claimed_files_gone (c->sc, c->h, s, m,
        c->im->root);
    PcRead r;

    pc_read_sink (c->sc, s, c->im->root, opt_tools, &r);
    g_string_append (problems, r.problems->str);
    g_string_append_printf (notes, "%s: %" G_GUINT64_FORMAT " frames "
        "played\n%s", c->sc->sinks[s].name, r.n_played, r.notes->str);
    pc_check_claims (c->sc, c->h, s, m, &r, c->deleted[s], gone, problems);
    pc_read_clear (&r);
    /* a ring's recordings, once recover has repaired the ring */
    if (c->sc->sinks[s].keep)
      pc_check_keeps (c->sc, c->h, s, m, c->im->root, opt_tools, problems,
          notes);
    g_hash_table_unref (gone);
  }
  pc_check_foreign (c->sc, c->im->root, problems);
}

static void
report (Check * c, const PcPoint * p, const PcMark * m, GString * problems,
    GString * notes)
{
  gchar *what = describe (c, p, m), *name = point_name (p);

  c->failed++;
  g_print ("FAIL %s:\n%s", what, problems->str);
  g_print ("  what the readers said:\n%s", notes->str);
  g_print ("  this point alone: powercut-check --log %s --history %s "
      "--work %s --only %s --keep\n", opt_log, opt_history, opt_work, name);
  g_free (name);
  g_free (what);
}

static gboolean
check_point (Check * c, const PcPoint * p)
{
  GString *problems = g_string_new (NULL), *notes = g_string_new (NULL);
  GError *error = NULL;
  guint64 before;
  const PcMark *m = NULL;
  guint id;
  gboolean ok = TRUE;

  if (!pc_image_advance (c->im, c->log, p->entry, &error)
      || !image_of (c, p, &before, &error)) {
    g_printerr ("powercut-check: %s\n", error->message);
    g_error_free (error);
    return FALSE;
  }
  id = pc_points_claims (c->marks, before);
  m = id == G_MAXUINT ? NULL : pc_history_mark (c->h, id);
  if (id != G_MAXUINT && m == NULL)
    g_string_append_printf (problems, "mark m%u is in the log, not in the "
        "history\n", id);
  if (pc_image_mount (c->im, problems))
    read_all (c, m, problems, notes);
  if (!pc_image_unmount (c->im, problems))
    ok = FALSE;
  c->checked++;
  c->subsets += p->subset != 0;
  if (problems->len > 0)
    report (c, p, m, problems, notes);
  g_string_free (problems, TRUE);
  g_string_free (notes, TRUE);
  return ok;
}

/* ---- the run ------------------------------------------------------------- */

static GArray *
points_to_check (Check * c, guint64 from)
{
  GArray *points;
  guint n = 200;

  if (opt_only) {
    PcPoint p = { g_ascii_strtoull (opt_only, NULL, 10), 0 };
    const gchar *slash = strchr (opt_only, '/');

    if (slash)
      p.subset = g_ascii_strtoull (slash + 1, NULL, 10);
    points = g_array_new (FALSE, FALSE, sizeof (PcPoint));
    if (p.entry < c->log->n_entries)
      g_array_append_val (points, p);
    return points;
  }
  if (opt_points)
    n = g_str_equal (opt_points, "all") ? 0 : (guint) atoi (opt_points);
  return pc_points_choose (c->log, from, n, (guint) MAX (opt_subsets, 0),
      (guint64) opt_seed);
}

static gboolean
open_all (Check * c, GError ** error)
{
  guint s;

  if (!(c->h = pc_history_read (opt_history, error)))
    return FALSE;
  c->sc = c->h->sc;
  if (c->h->sectors == 0 || c->h->root == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no device "
        "size or root", opt_history);
    return FALSE;
  }
  if (!(c->log = rtf_log_writes_open (opt_log, error)))
    return FALSE;
  c->marks = pc_points_marks (c->log);
  for (s = 0; s < c->sc->n_sinks; s++)
    c->deleted[s] = pc_deleted_files (c->sc, c->h, s);
  c->im = pc_image_new (c->sc, opt_work, c->h->sectors * 512, error);
  return c->im != NULL;
}

/* The recording itself: whole, no error, every message came */
static gboolean
recording_whole (Check * c)
{
  guint i;

  if (!c->h->end || !c->h->eos || c->h->bad_lines)
    g_print ("FAIL the recording did not end well (end %d, eos %d, %u lines "
        "not read)\n", c->h->end, c->h->eos, c->h->bad_lines);
  for (i = 0; i < c->h->errors->len; i++)
    g_print ("FAIL the recording posted an error: %s\n",
        (const gchar *) g_ptr_array_index (c->h->errors, i));
  for (i = 0; i < c->h->warnings->len; i++)
    g_print ("powercut-check: the recording warned: %s\n",
        (const gchar *) g_ptr_array_index (c->h->warnings, i));
  return c->h->end && c->h->eos && !c->h->bad_lines && c->h->errors->len == 0;
}

gint
main (gint argc, gchar ** argv)
{
  GOptionContext *ctx = g_option_context_new ("- check a power-cut log");
  GError *error = NULL;
  Check c = { 0 };
  GArray *points;
  gint64 ready, t0 = g_get_monotonic_time ();
  guint i, s;
  gint status = 0;

  g_option_context_add_main_entries (ctx, options, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || !opt_log
      || !opt_history || !opt_work) {
    g_printerr ("powercut-check: %s\n", error ? error->message :
        "--log, --history and --work are needed");
    return 2;
  }
  g_option_context_free (ctx);
  if (!opt_tools)
    opt_tools = g_strdup (g_getenv ("RTFRAME_TOOLS_DIR"));
  if (!opt_tools || !open_all (&c, &error)) {
    g_printerr ("powercut-check: %s\n", error ? error->message :
        "no --tools and no RTFRAME_TOOLS_DIR");
    return 2;
  }
  if (!recording_whole (&c))
    status = 1;
  ready = pc_points_mark_entry (c.log, "ready");
  if (ready < 0) {
    g_printerr ("powercut-check: no mark \"ready\" in %s\n", opt_log);
    return 2;
  }
  points = points_to_check (&c, (guint64) ready);
  g_print ("powercut-check: %s (%s): %" G_GUINT64_FORMAT " log entries, %u "
      "marks; checking %u points\n", c.sc->name, c.sc->what,
      c.log->n_entries, c.marks->len, points->len);
  for (i = 0; i < points->len; i++)
    if (!check_point (&c, &g_array_index (points, PcPoint, i))) {
      status = 2;
      break;
    }
  c.seconds = (g_get_monotonic_time () - t0) / 1e6;
  g_print ("powercut-check: %u points checked (%u with a subset of the "
      "writes after a flush), %u failed, %.0f s\n", c.checked, c.subsets,
      c.failed, c.seconds);
  if (c.failed && status == 0)
    status = 1;
  if (!opt_keep || c.failed == 0)
    pc_image_free (c.im);
  for (s = 0; s < c.sc->n_sinks; s++)
    g_hash_table_unref (c.deleted[s]);
  g_array_unref (points);
  g_array_unref (c.marks);
  rtf_log_writes_free (c.log);
  pc_history_free (c.h);
  return status;
}
