/* rtframe-dump: writes what the index of a recording (one file or a
 * rotated set) says of every frame, as CSV on stdout - one header line,
 * then one line a frame, for a spreadsheet or Python.  It only reads.
 * A recording spread over several locations (its manifest), or one whose
 * files hold frames out of order (frames failed over from a location that
 * left, appended after later ones), is written in frame-number order.  Exit status 0: every file read; 1: a file of the
 * set could not be read, or a part of the recording is missing (a
 * location, files in the middle of a set): its frames are missing from
 * the output, which says so on stderr; 2: the recording could not be
 * opened. */
#include "rtf-build-info.h"
#include "rtf-check.h"
#include "rtf-recording.h"
#include "rtf-upstream-gap.h"

#include <stdio.h>

static guint64 start_index;

static gboolean version;

static const GOptionEntry entries[] = {
  {"start-index", 's', 0, G_OPTION_ARG_INT64, &start_index,
      "Lowest file number of a pattern to read (default 0)", "N"},
  {"version", 0, 0, G_OPTION_ARG_NONE, &version,
      "Print the version and exit", NULL},
  {NULL}
};

/* The columns, in order (docs/reference.md says what each is) */
static const gchar header[] = "frame,file,pts,duration,running_time,"
    "camera_timestamp,upstream_offset,arrival,written,latency,byte_offset,"
    "size,flags,missed,copied,gap,gap_missing,gap_detected_by,prerecorded,"
    "event_start,location,wall_clock";

/* A time or number, or nothing where the index has none */
static void
put_u64 (guint64 v)
{
  if (v != RTF_INDEX_NONE)
    printf ("%" G_GUINT64_FORMAT, v);
  putchar (',');
}

/* A frame's line: r, a record of file f */
static void
put_record (const RtfIndexRecord * r, const RtfRecordingFile * f)
{
  gboolean gap = (r->flags & RTF_INDEX_REC_GAP) != 0;
  gint64 wall;

  printf ("%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",", r->seq, f->number);
  put_u64 (r->pts);
  put_u64 (r->duration);
  put_u64 (r->running_time);
  put_u64 (r->reference_ns);
  put_u64 (r->upstream_offset);
  printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
      G_GUINT64_FORMAT ",%u,%u,%d,%d,%d,", r->arrival_ns, r->complete_ns,
      r->complete_ns - r->arrival_ns, r->offset, r->size, r->flags,
      (r->flags & RTF_INDEX_REC_MISSED) != 0,
      (r->flags & RTF_INDEX_REC_COPIED) != 0, gap);
  if (gap)
    printf ("%u,%s,", r->gap_missing, rtf_gap_how_name (r->gap_how));
  else
    printf (",,");
  printf ("%d,%d,%u,", (r->flags & RTF_INDEX_REC_PRERECORDED) != 0,
      (r->flags & RTF_INDEX_REC_EVENT_START) != 0, f->location);
  /* (when it arrived, on the wall clock: through the header's anchor) */
  if (rtf_index_wall_clock (&f->index->header, r->arrival_ns, &wall))
    printf ("%" G_GINT64_FORMAT, wall);
  putchar ('\n');
}

/* What is missing from the recording, on stderr: 1 for a location or
 * files missing; frame numbers no file holds are a note (the lines show
 * them) */
static gint
report_missing (const RtfRecording * rec)
{
  GPtrArray *missing = g_ptr_array_new_with_free_func (g_free);
  guint i, n = rtf_check_recording (rec, TRUE, missing);

  fflush (stdout);              /* (whole lines first, see report_notes) */
  for (i = 0; i < missing->len; i++)
    fprintf (stderr, "rtframe-dump: %s\n",
        (const gchar *) g_ptr_array_index (missing, i));
  if (rec->missing) {
    gchar *list = rtf_check_gaps_text (rec, 20);

    fprintf (stderr, "rtframe-dump: note: %" G_GUINT64_FORMAT " frame "
        "numbers no file holds: %s\n", rec->missing, list);
    g_free (list);
  }
  g_ptr_array_unref (missing);
  return n ? 1 : 0;
}

/* What the reader took care of, on stderr: files at the set's names that
 * are not the recording's, locations that hold no frame, frames failed
 * over (the lines are in number order) */
static void
report_notes (const RtfRecording * rec)
{
  /* the lines so far go out first: with 2>&1 a note would otherwise
   * land in the middle of a line at a buffer's edge, which a reader of
   * the CSV takes for a frame (hostile-readers, once the lines grew) */
  fflush (stdout);
  if (rec->note)
    fprintf (stderr, "rtframe-dump: note: %s\n", rec->note);
  if (rec->failed_over)
    fprintf (stderr, "rtframe-dump: note: frames failed over from another "
        "location: %" G_GUINT64_FORMAT ", placed in number order\n",
        rec->failed_over);
}

/* The frames of a spread, or of files whose frames are out of order (a
 * frame failed over), in frame-number order */
static void
put_in_order (RtfRecording * rec)
{
  guint64 n;

  for (n = 0; n < rec->n_frames; n++) {
    guint file;
    const RtfIndexRecord *r = rtf_recording_frame (rec, n, &file);

    put_record (r, &rec->files[file]);
  }
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("LOCATION - every frame of a "
      "recording as CSV");
  GError *error = NULL;
  RtfRecording *rec;
  gchar *description;
  gint status = 0;
  guint i;
  guint64 j;

  g_option_context_add_main_entries (ctx, entries, NULL);
  description = g_strdup_printf ("LOCATION is a recorded file or the "
      "pattern it was recorded with (cam0-%%05d.raw): then every file of the "
      "set, in order; or the manifest of a recording over several locations "
      "(cam0-.raw.rtfspread): every location's frames, in frame-number "
      "order.\nColumns: %s (times in ns; empty: not known).\nExit "
      "status: 0 every file read, 1 a file could not be read or a part of "
      "the recording is missing (said on stderr), 2 the recording cannot be "
      "opened.", header);
  g_option_context_set_description (ctx, description);
  g_free (description);
  if (g_option_context_parse (ctx, &argc, &argv, &error) && version) {
    g_option_context_free (ctx);
    rtf_print_version ("rtframe-dump");
    return 0;
  }
  if (error != NULL || argc != 2) {
    fprintf (stderr, "%s\n", error ? error->message :
        "usage: rtframe-dump [OPTION...] LOCATION");
    g_clear_error (&error);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);

  rec = rtf_recording_open (argv[1], start_index, FALSE, &error);
  if (rec == NULL) {
    fprintf (stderr, "rtframe-dump: %s\n", error->message);
    g_error_free (error);
    return 2;
  }
  printf ("%s\n", header);
  for (i = 0; i < rec->n_files; i++) {
    const RtfRecordingFile *f = &rec->files[i];

    if (f->state == RTF_FILE_NEVER_WRITTEN)
      continue;
    fflush (stdout);            /* (whole lines first, see report_notes) */
    if (f->state != RTF_FILE_OK) {
      fprintf (stderr, "rtframe-dump: %s: not read: %s (%s)\n", f->path,
          f->why, rtf_file_state_name (f->state));
      status = 1;
      continue;
    }
    if (f->in_use)
      fprintf (stderr, "rtframe-dump: %s is being recorded: its frames so "
          "far\n", f->path);
    if (f->walk.why)
      fprintf (stderr, "rtframe-dump: %s: its first %" G_GUINT64_FORMAT
          " frames: %s\n", f->path, f->walk.frames, f->walk.why);
    for (j = 0; j < f->walk.frames && rec->order == NULL; j++)
      put_record (&f->index->records[j], f);
  }
  if (rec->order)
    put_in_order (rec);
  report_notes (rec);
  i = report_missing (rec);     /* (MAX evaluates twice) */
  status = MAX (status, (gint) i);
  if (fflush (stdout) != 0 || ferror (stdout)) {
    perror ("rtframe-dump: writing");
    status = 2;
  }
  rtf_recording_free (rec);
  return status;
}
