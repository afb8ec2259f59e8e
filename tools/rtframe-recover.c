/* rtframe-recover: cuts a recording that did not end cleanly (a crash, a
 * kill, a power cut) back to its last whole frame, and its index to
 * match.  For a rotated set, every file.
 *
 * It only ever cuts a tail, of a file it has proven to be a file of the
 * recording (common/readers/rtf-recover.c; docs/reliability.md): anything else it
 * finds is left exactly as it was, and said.  Exit status 0: the recording
 * is whole now (rtframe-verify passes, given the same --allow-gaps); 1: it
 * is not: something was left as it was (each said why: not a file of the
 * recording, a damaged frame, a cut larger than a crash leaves without
 * --force), or a part of it is missing - a location of a spread, files in
 * the middle of a set, frame numbers no file holds (listed, as
 * rtframe-verify lists them); 2: it could not be read, or is in use (being
 * recorded). */
#include "rtf-build-info.h"
#include "rtf-check.h"
#include "rtf-recording.h"
#include "rtf-recover.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static guint64 start_index;
static gint tail = -1, wait_ms = 3000;
static gboolean dry_run, force, allow_gaps;

static gboolean version;

static const GOptionEntry entries[] = {
  {"start-index", 's', 0, G_OPTION_ARG_INT64, &start_index,
      "Lowest file number of a pattern to look at (default 0)", "N"},
  {"verify-tail", 't', 0, G_OPTION_ARG_INT, &tail,
      "Compare the checksums of only the last N frames of each file "
        "(default: every frame that has one)", "N"},
  {"dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
      "Say what would be cut, change nothing", NULL},
  {"wait", 'w', 0, G_OPTION_ARG_INT, &wait_ms,
      "How long to wait for a file in use to be let go (default 3000 ms: "
        "a process killed a moment ago holds its files until the kernel has "
        "ended its writes)", "MS"},
  {"force", 0, 0, G_OPTION_ARG_NONE, &force,
        "Cut even more than a crash can leave past the last indexed frame "
        "(an index that may not be the file's: look with --dry-run first)",
      NULL},
  {"allow-gaps", 0, 0, G_OPTION_ARG_NONE, &allow_gaps,
      "Frame numbers no file holds (dropped while recording, in flight at "
        "a crash) do not keep the exit status from 0, as rtframe-verify "
        "--allow-gaps", NULL},
  {"version", 0, 0, G_OPTION_ARG_NONE, &version,
      "Print the version and exit", NULL},
  {NULL}
};

/* The frames whose checksum does not match: reported, kept or (torn: a
 * power cut's tail) cut; damaged index records: kept, or cut with the
 * tail (index_cut: the records after the last whole frame went, and no
 * damaged record lay before it) */
static void
print_damage (const RtfCheck * c, gboolean index_cut, gboolean torn_cut)
{
  guint i;

  for (i = 0; i < c->faults->len; i++) {
    const gchar *text = g_ptr_array_index (c->faults, i);

    if (strstr (text, "cannot be read"))
      printf ("  %s\n", text);
    else if (index_cut && strstr (text, "damaged or torn"))
      printf ("  %s: %s with the tail\n", text, dry_run ? "would be cut" :
          "cut");
    else if (torn_cut && strstr (text, "is corrupt"))
      printf ("  %s: %s with the tail\n", text, dry_run ? "would be cut" :
          "cut");
    else if (strstr (text, "is corrupt") || strstr (text, "damaged"))
      printf ("  %s: kept as it is\n", text);
  }
}

static gint
apply (RtfRecordingFile * f, const RtfRecoverPlan * plan)
{
  gchar *why = NULL;
  gint err;

  if (dry_run)
    return 0;
  err = rtf_recover_apply (f, plan, &why);
  if (err) {
    printf ("  failed, nothing more of it changed: %s\n", why);
    g_free (why);
    return 2;
  }
  return 0;
}

/* 0 whole now, 1 left something as it was, 2 could not read or change;
 * *gone: f was deleted (or would be, with --dry-run) */
static gint
recover_file (RtfRecording * rec, RtfRecordingFile * f, gboolean later_stays,
    gboolean * gone)
{
  RtfRecoverPlan plan;
  RtfCheck c;
  guint64 from = 0;
  gboolean cut;
  gint ret = 0;

  if (tail >= 0 && f->walk.frames > (guint64) tail)
    from = f->first_frame + f->walk.frames - tail;
  rtf_check_file (f, TRUE, from, &c);
  if (c.read_error) {
    printf ("%s: could not be read to the end, left as it is:\n", f->path);
    print_damage (&c, FALSE, FALSE);
    rtf_check_clear (&c);
    return 2;
  }
  rtf_recover_plan (rec, f, &plan);
  rtf_recover_plan_sums (rec, f, &c, &plan);
  rtf_recover_plan_in_run (rec, f, later_stays, &plan);
  switch (plan.action) {
    case RTF_RECOVER_WHOLE:
      if (plan.why)
        printf ("%s: %s\n", f->path, plan.why);
      else
        printf ("%s: whole, %" G_GUINT64_FORMAT " frames\n", f->path,
            f->walk.frames);
      break;
    case RTF_RECOVER_REFUSE:
      printf ("%s: %s\n", f->path, plan.why);
      ret = 1;
      break;
    case RTF_RECOVER_DELETE:
      printf ("%s: no frame of it was reported written (%s): %s\n", f->path,
          plan.why ? plan.why : "its index holds none",
          dry_run ? "would delete it" : plan.needs_force && !force ?
          "left as it is" : "deleted");
      break;
    case RTF_RECOVER_CUT:
      printf ("%s: keeping %" G_GUINT64_FORMAT " frames (%" G_GUINT64_FORMAT
          " bytes); %s %" G_GUINT64_FORMAT " bytes of data and %"
          G_GUINT64_FORMAT " index records\n", f->path, plan.keep_frames,
          plan.keep_bytes, dry_run || (plan.needs_force && !force) ?
          "would cut" : "cut", plan.cut_bytes, plan.cut_records);
      if (f->walk.why)
        printf ("  because: %s\n", f->walk.why);
      if (plan.why && !plan.needs_force && (!f->walk.why || plan.torn_frames))
        printf ("  because: %s\n", plan.why);
      break;
  }
  if (plan.needs_force) {
    printf ("  %s: %s\n", force ? "cut with --force" : "refused", plan.why);
    if (!force)
      ret = 1;
  }
  if ((plan.action == RTF_RECOVER_CUT || plan.action == RTF_RECOVER_DELETE)
      && (!plan.needs_force || force)) {
    gint applied = apply (f, &plan);    /* (MAX evaluates twice) */

    ret = MAX (ret, applied);
    *gone = plan.action == RTF_RECOVER_DELETE && applied == 0;
  }
  cut = plan.action == RTF_RECOVER_CUT && (!plan.needs_force || force);
  print_damage (&c, cut && plan.cut_records > 0 && f->index->n_damaged == 0,
      cut && plan.torn_frames > 0);
  if ((c.bad_sums && !(cut && plan.torn_frames > 0))
      || (f->index && f->index->n_damaged))
    ret = MAX (ret, 1);
  rtf_recover_plan_clear (&plan);
  rtf_check_clear (&c);
  return ret;
}

/* A hidden file prepared for a split that a crash left */
static gint
recover_leftover (RtfRecording * rec, RtfRecordingFile * f)
{
  RtfRecoverPlan plan;
  gint ret = 0;

  rtf_recover_plan_leftover (rec, f, &plan);
  if (plan.action == RTF_RECOVER_DELETE) {
    printf ("%s: %s: %s\n", f->path, plan.why, dry_run ? "would delete it" :
        "deleted");
    ret = apply (f, &plan);
  } else {
    printf ("%s: %s\n", f->path, plan.why);
    ret = 1;
  }
  rtf_recover_plan_clear (&plan);
  return ret;
}

/* What is missing from the recording, which no cut brings back: said as
 * rtframe-verify says it (1 when there is any) */
static gint
report_missing (const RtfRecording * rec)
{
  GPtrArray *missing = g_ptr_array_new_with_free_func (g_free);
  guint i, n = rtf_check_recording (rec, allow_gaps, missing);

  for (i = 0; i < missing->len; i++)
    printf ("not whole: %s\n", (const gchar *) g_ptr_array_index (missing, i));
  g_ptr_array_unref (missing);
  return n ? 1 : 0;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("LOCATION - cut a crashed "
      "recording back to its whole frames");
  GError *error = NULL;
  RtfRecording *rec;
  gboolean later_stays = FALSE;
  gint ret = 0;
  guint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "LOCATION is a recorded file or "
      "the pattern it was recorded with (cam0-%05d.raw).  Only files proven "
      "to be files of the recording are changed (a regular file, not a link, "
      "whose index names it), and only their tail: the bytes after the last "
      "frame that lies whole in the file and the records after its record.  "
      "A damaged frame in the middle is reported and kept.  Anything else is "
      "left as it is, and said.  LOCATION may also be the manifest of a "
      "recording over several locations (cam0-.raw.rtfspread): every "
      "location's files.\nExit status: 0 the recording is whole now "
      "(rtframe-verify passes); 1 something was left as it was, or a part of "
      "the recording is missing (a location, files, frame numbers: listed); "
      "2 it could not be read, or is being recorded.");
  if (g_option_context_parse (ctx, &argc, &argv, &error) && version) {
    g_option_context_free (ctx);
    rtf_print_version ("rtframe-recover");
    return 0;
  }
  if (error != NULL || argc != 2) {
    fprintf (stderr, "%s\n", error ? error->message :
        "usage: rtframe-recover [OPTION...] LOCATION");
    g_clear_error (&error);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);

  rec = rtf_recording_open_settled (argv[1], start_index, wait_ms, &error);
  if (rec == NULL && g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
      && strchr (argv[1], '%')) {
    /* the readers find every name the sink writes (one pattern parser) */
    printf ("%s: %s: nothing to recover\n", argv[1], error->message);
    g_clear_error (&error);
    return 0;
  }
  if (rec == NULL) {
    fprintf (stderr, "rtframe-recover: %s\n", error->message);
    g_clear_error (&error);
    return 2;
  }
  if (rtf_recording_in_use (rec)) {
    printf ("%s: in use: a recording is writing it (or another "
        "rtframe-recover is at work); nothing was changed\n",
        rtf_recording_in_use (rec)->path);
    rtf_recording_free (rec);
    return 2;
  }
  /* from the last file back: the files a set ends with that were opened
   * ahead and never written go before the ones ahead of them, so that a
   * recover killed midway never leaves a set with a hole (torture
   * 0x7e3fbac3a7829dbb) */
  for (i = rec->n_files; i-- > 0;) {
    const RtfRecordingFile *f = &rec->files[i];
    gboolean gone = FALSE;
    gint one;

    /* (a spread's files come location by location; a set's are all of
     * location 0) */
    if (i + 1 < rec->n_files && rec->files[i + 1].location != f->location)
      later_stays = FALSE;
    one = recover_file (rec, &rec->files[i], later_stays, &gone);
    ret = MAX (ret, one);
    later_stays = later_stays || !gone;
  }
  for (i = 0; i < rec->n_leftovers; i++) {
    gint one = recover_leftover (rec, &rec->leftovers[i]);

    ret = MAX (ret, one);
  }
  i = report_missing (rec);     /* (MAX evaluates twice) */
  ret = MAX (ret, (gint) i);
  if (rec->note)
    printf ("note: %s\n", rec->note);
  if (rec->manifest_beside)
    printf ("note: %s is beside it: this may be one location of a recording "
        "spread over several, so this location's last file was kept even "
        "when empty (deleted, the location would read as a disk lost); name "
        "the manifest to recover every location\n", rec->manifest_beside);
  rtf_recording_free (rec);
  return ret;
}
