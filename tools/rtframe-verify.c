/* rtframe-verify: checks a recording (one file or a rotated set) against
 * its indexes: that each index is the file's, sizes, order, gaps,
 * checksums, and sums up the missed deadlines; lists the frames lost
 * upstream, before the recorder (index version 3), which are no fault of
 * the recording.  What is missing from the recording as a whole is a
 * fault too: a location of a spread not found (unless the final state
 * the sink wrote in the manifests at EOS says it holds no frame: a note),
 * one holding fewer frames than that state says, files missing in the
 * middle of a set, frame numbers no file holds (each range listed;
 * --allow-gaps accepts those).  A file after the set's last one that is
 * not the recording's (a FIFO, a user's file without index or mark,
 * another recording's) ends the set, with a note.  Frames failed over
 * from a location that left are counted and read in frame-number order.
 * It only reads.  Exit status 0: no fault;
 * 1: faults (listed); 2: the recording could not be read, or a file of it
 * is in use (being recorded). */
#include "json-out.h"
#include "rtf-build-info.h"
#include "rtf-check.h"
#include "rtf-histogram.h"
#include "rtf-recording.h"
#include "rtf-recover.h"
#include "rtf-take-manifest.h"
#include "rtf-upstream-gap.h"

#include <stdio.h>
#include <stdlib.h>

static gboolean allow_gaps, no_checksums, quiet;
static guint64 start_index;
static gint wait_ms = 3000;

static gboolean version, json;

static const GOptionEntry entries[] = {
  {"start-index", 's', 0, G_OPTION_ARG_INT64, &start_index,
      "Lowest file number of a pattern to look at (default 0)", "N"},
  {"allow-gaps", 0, 0, G_OPTION_ARG_NONE, &allow_gaps,
        "Frames missing from the sequence (dropped by leaky) are no fault",
      NULL},
  {"no-checksums", 0, 0, G_OPTION_ARG_NONE, &no_checksums,
      "Do not read the frames to compare their checksums", NULL},
  {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print faults only", NULL},
  {"wait", 'w', 0, G_OPTION_ARG_INT, &wait_ms,
        "How long to wait for a file in use to be let go (default 3000 ms)",
      "MS"},
  {"json", 'j', 0, G_OPTION_ARG_NONE, &json,
      "Write the verdict as one JSON object on stdout (docs/reference.md "
        "lists its members)", NULL},
  {"version", 0, 0, G_OPTION_ARG_NONE, &version,
      "Print the version and exit", NULL},
  {NULL}
};

/* --json: the document, built as the checks go; the faults and notes,
 * written at its end */
static JsonOut js;
/* a recording or a take's file could not be opened (a take's exit 2 then
 * says UNREADABLE, not IN USE) */
static gboolean unreadable_seen;
static GPtrArray *js_faults, *js_notes;

/* A fault: a line "FAULT <text>", or an item of "faults" */
static void
say_fault (gchar * text)
{
  if (json)
    g_ptr_array_add (js_faults, text);
  else {
    printf ("FAULT %s\n", text);
    g_free (text);
  }
}

/* A note: a line "note: <text>" (not with --quiet), or an item of
 * "notes" */
static void
say_note (gchar * text)
{
  if (json)
    g_ptr_array_add (js_notes, text);
  else {
    if (!quiet)
      printf ("note: %s\n", text);
    g_free (text);
  }
}

static void
json_strings (const gchar * key, GPtrArray * texts)
{
  guint i;

  json_out_begin_array (&js, key);
  for (i = 0; i < texts->len; i++)
    json_out_string (&js, NULL, g_ptr_array_index (texts, i));
  json_out_end_array (&js);
}

/* One line for each record of f's good frames that says upstream lost
 * frames before it */
static void
print_upstream_gaps (const RtfRecordingFile * f, guint64 good_frames)
{
  guint64 i;

  for (i = 0; i < good_frames; i++) {
    const RtfIndexRecord *r = &f->index->records[i];
    GString *detail;

    if (!(r->flags & RTF_INDEX_REC_GAP))
      continue;
    detail = g_string_new ("detected by ");
    g_string_append (detail, r->gap_how ? rtf_gap_how_name (r->gap_how) : "?");
    if (r->upstream_offset != RTF_INDEX_NONE)
      g_string_append_printf (detail, "; its offset %" G_GUINT64_FORMAT,
          r->upstream_offset);
    if (r->pts != RTF_INDEX_NONE)
      g_string_append_printf (detail, "%s pts %" G_GUINT64_FORMAT ".%09"
          G_GUINT64_FORMAT " s", r->upstream_offset != RTF_INDEX_NONE ?
          "," : ";", r->pts / 1000000000, r->pts % 1000000000);
    if (r->gap_missing)
      printf ("UPSTREAM GAP %s: %u frame%s lost before frame %"
          G_GUINT64_FORMAT " (%s)\n", f->path, r->gap_missing,
          r->gap_missing == 1 ? "" : "s", r->seq, detail->str);
    else
      printf ("UPSTREAM GAP %s: frames lost before frame %" G_GUINT64_FORMAT
          ", how many not known (%s)\n", f->path, r->seq, detail->str);
    g_string_free (detail, TRUE);
  }
}

/* What the sink wrote at EOS of each location (a spread) */
static void
print_final (const RtfRecording * rec)
{
  guint i;

  printf ("final state (%s):", rec->final_manifest);
  for (i = 0; rec->locations[i]; i++)
    printf ("%s %s %s, %" G_GUINT64_FORMAT " frames", i ? ";" : "",
        rec->locations[i], rtf_spread_end_state_name (rec->ends[i].state),
        rec->ends[i].frames);
  printf ("\n");
}

/* Frames written again at a location after the one placed left: appended
 * after the frames it took meanwhile, read in number order */
static void
print_failed_over (const RtfRecording * rec)
{
  printf ("frames failed over from another location: %" G_GUINT64_FORMAT
      ", placed in number order", rec->failed_over);
  if (rec->out_of_order)
    printf (" (%" G_GUINT64_FORMAT " of them after a later frame in the "
        "file%s)", rec->out_of_order, rec->locations ? "s of their location"
        : "s");
  if (rec->duplicates && rec->locations == NULL)
    printf ("; %" G_GUINT64_FORMAT " numbers found twice, read once",
        rec->duplicates);
  printf ("\n");
}

/* Prepared files whose index holds records: their rename was lost (a
 * power cut), and their frames may have been reported written - not read
 * with the recording (L1 of adversarial review 2): a fault each */
static guint
print_leftovers_with_frames (const RtfRecording * rec)
{
  guint i, n = 0;

  for (i = 0; i < rec->n_leftovers; i++) {
    const RtfRecordingFile *f = &rec->leftovers[i];

    if (rtf_recording_leftover_holds_none (f))
      continue;
    /* (worded as recover says it: "<path>: prepared for a split ...
     * left as it is") */
    if (f->state == RTF_FILE_OK)
      say_fault (g_strdup_printf ("%s: prepared for a split and never given "
              "its name (%s), but its index holds %" G_GUINT64_FORMAT
              " record%s (%" G_GUINT64_FORMAT " whole frame%s): its rename "
              "was lost (a power cut) or a kill came before it, and those "
              "frames may have been reported written; not read with the "
              "recording, left as it is (rtframe-recover says how to give it "
              "its name)", f->path, f->index->header.data_name,
              f->index->n_records, f->index->n_records == 1 ? "" : "s",
              f->walk.frames, f->walk.frames == 1 ? "" : "s"));
    else
      say_fault (g_strdup_printf ("%s: prepared for a split and never given "
              "its name, and its index holds something (%s): some of its "
              "frames may have been reported written; left as it is",
              f->path, f->why));
    n++;
  }
  return n;
}

/* A hidden file that holds no frame: a crash's leftover when its mark
 * proves it (recover deletes it), else what recover says of it - a user's
 * file of that form carries no mark, and recover leaves it */
static void
print_leftover_note (const RtfRecording * rec, const RtfRecordingFile * f)
{
  RtfRecoverPlan plan;

  rtf_recover_plan_leftover (rec, f, &plan);
  if (plan.action == RTF_RECOVER_DELETE)
    say_note (g_strdup_printf ("%s: a file prepared for a split and never "
            "given its name, left by a crash (its index holds no record, so "
            "no frame of it was reported written; rtframe-recover deletes "
            "it)", f->path));
  else
    say_note (g_strdup_printf ("%s: %s", f->path, plan.why));
  rtf_recover_plan_clear (&plan);
}

/* What the checks of every file add up to */
typedef struct
{
  guint64 faults, missed, frames, bytes, sums, recordings, prerecorded;
  guint64 in_use, upstream_gaps, missing_upstream;
  gboolean have_upstream;
  RtfHistogram latency;
} Totals;

/* A file not checked: in use, or empty */
static void
tell_unchecked (const RtfRecording * rec, const RtfRecordingFile * f)
{
  const gchar *why = f->in_use ? "a recording is writing it (or "
      "rtframe-recover repairs it): not checked" :
      rtf_recording_is_location_first (rec, f) ? "a location's first file, "
      "made at start: the location holds no frame" : "opened ahead for a "
      "split that never came";

  if (json) {
    json_out_begin_object (&js, NULL);
    json_out_string (&js, "path", f->path);
    json_out_string (&js, "state", f->in_use ? "in-use" : "empty");
    json_out_string (&js, "why", why);
    json_out_end_object (&js);
  } else if (f->in_use)
    printf ("IN USE %s: %s\n", f->path, why);
  else if (!quiet)
    printf ("%s: empty, %s\n", f->path, why);
}

/* A wall-clock time (ns since the epoch) as ISO 8601 in UTC, to the
 * microsecond */
static gchar *
iso_time (gint64 realtime_ns)
{
  GDateTime *s = g_date_time_new_from_unix_utc (realtime_ns / 1000000000);
  GDateTime *t = s ? g_date_time_add (s, (realtime_ns % 1000000000) / 1000) :
      NULL;
  gchar *text = t ? g_date_time_format (t, "%Y-%m-%dT%H:%M:%S.%fZ") :
      g_strdup ("?");

  if (t)
    g_date_time_unref (t);
  if (s)
    g_date_time_unref (s);
  return text;
}

/* When f was made, and when its first and last whole frames arrived, on
 * the wall clock (the last two through its header's clock anchor: FALSE
 * without one) */
static gboolean
wall_clock_of (const RtfRecordingFile * f, guint64 good_frames,
    gint64 * first, gint64 * last)
{
  const RtfIndexHeader *h = &f->index->header;

  return good_frames > 0
      && rtf_index_wall_clock (h, f->index->records[0].arrival_ns, first)
      && rtf_index_wall_clock (h, f->index->records[good_frames -
          1].arrival_ns, last);
}

/* A file checked: its figures */
static void
tell_checked (const RtfRecordingFile * f, const RtfCheck * c)
{
  const gchar *format = f->index ? f->index->header.format : NULL;
  gint64 first = 0, last = 0;
  gboolean wall = f->index && wall_clock_of (f, c->good_frames, &first,
      &last);

  if (json) {
    json_out_begin_object (&js, NULL);
    json_out_string (&js, "path", f->path);
    json_out_string (&js, "state", c->faults->len ? "faults" : "ok");
    json_out_u64 (&js, "number", f->number);
    json_out_u64 (&js, "location", f->location);
    json_out_u64 (&js, "frames", c->good_frames);
    json_out_u64 (&js, "bytes", c->good_end);
    json_out_string (&js, "caps", format);
    json_out_string (&js, "camera-timestamp-caps", f->index ?
        f->index->header.reference : NULL);
    json_out_u64 (&js, "upstream-gaps", c->upstream_gaps);
    json_out_u64 (&js, "fault-count", c->faults->len);
    if (f->index && f->index->header.created_ns > 0)
      json_out_take_string (&js, "created",
          iso_time (f->index->header.created_ns));
    if (wall) {
      json_out_take_string (&js, "first-frame-wall-clock", iso_time (first));
      json_out_take_string (&js, "last-frame-wall-clock", iso_time (last));
    }
    json_out_end_object (&js);
    return;
  }
  if (quiet)
    return;
  printf ("%s: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
      " bytes, %s%s\n", f->path, c->good_frames, c->good_end,
      format ? format : rtf_file_state_name (f->state),
      c->faults->len ? "" : ", OK");
  if (f->index && f->index->header.reference)
    printf ("%s: camera timestamps of %s\n", f->path,
        f->index->header.reference);
  if (wall) {
    gchar *a = iso_time (first), *b = iso_time (last);

    printf ("%s: frames arrived from %s to %s (wall clock, UTC)\n", f->path,
        a, b);
    g_free (a);
    g_free (b);
  } else if (f->index && f->index->header.created_ns > 0) {
    gchar *a = iso_time (f->index->header.created_ns);

    printf ("%s: made at %s (wall clock, UTC)\n", f->path, a);
    g_free (a);
  }
  if (f->index)
    print_upstream_gaps (f, c->good_frames);
}

static void
check_files (const RtfRecording * rec, Totals * t)
{
  guint i, j;

  for (i = 0; i < rec->n_files; i++) {
    RtfRecordingFile *f = &rec->files[i];
    RtfCheck c;

    if (f->in_use || f->state == RTF_FILE_NEVER_WRITTEN) {
      t->in_use += f->in_use;
      tell_unchecked (rec, f);
      continue;
    }
    rtf_check_file (f, !no_checksums, 0, &c);
    for (j = 0; j < c.faults->len; j++)
      say_fault (g_strdup (g_ptr_array_index (c.faults, j)));
    t->faults += c.faults->len;
    t->upstream_gaps += c.upstream_gaps;
    t->missing_upstream += c.missing_upstream;
    if (f->index && f->index->header.version >= 3)
      t->have_upstream = TRUE;
    t->missed += c.missed;
    t->recordings += c.recordings;
    t->prerecorded += c.prerecorded;
    t->frames += c.good_frames;
    t->bytes += c.good_end;
    t->sums += c.checked_sums;
    for (j = 0; j < c.good_frames; j++) {
      const RtfIndexRecord *r = &f->index->records[j];

      /* a pre-recorded frame waited in memory for its recording */
      if (r->complete_ns >= r->arrival_ns
          && !(r->flags & RTF_INDEX_REC_PRERECORDED))
        rtf_histogram_add (&t->latency, r->complete_ns - r->arrival_ns);
    }
    tell_checked (f, &c);
    rtf_check_clear (&c);
  }
}

/* The notes on what the readers took care of */
static void
tell_notes (const RtfRecording * rec)
{
  guint i;

  if (rec->note)
    say_note (g_strdup (rec->note));
  if (rec->manifest_beside)
    say_note (g_strdup_printf ("%s is beside it: this may be one location "
            "of a recording spread over several, and its frames alone not "
            "the whole recording; name the manifest to check every "
            "location", rec->manifest_beside));
  for (i = 0; i < rec->n_leftovers; i++)
    if (rtf_recording_leftover_holds_none (&rec->leftovers[i]))
      print_leftover_note (rec, &rec->leftovers[i]);
}

/* The sums, as lines */
static void
print_summary (const RtfRecording * rec, const Totals * t)
{
  printf ("%u file%s, %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
      " bytes, %" G_GUINT64_FORMAT " checksums compared, %" G_GUINT64_FORMAT
      " frames missing\n", rec->n_files, rec->n_files == 1 ? "" : "s",
      t->frames, t->bytes, t->sums, rec->missing);
  if (rec->locations)
    printf ("spread over %u locations: %" G_GUINT64_FORMAT " frames in "
        "frame-number order, %" G_GUINT64_FORMAT " found twice (written "
        "again after a location failed; read once); %u location%s not "
        "found\n", g_strv_length (rec->locations), rec->n_frames,
        rec->duplicates, rec->n_missing_locations,
        rec->n_missing_locations == 1 ? "" : "s");
  if (rec->ends)
    print_final (rec);
  if (rec->failed_over)
    print_failed_over (rec);
  if (t->recordings > 1 || t->prerecorded > 0)
    printf ("%" G_GUINT64_FORMAT " recording%s (events), %" G_GUINT64_FORMAT
        " frames held before their recording started (pre-record)\n",
        t->recordings, t->recordings == 1 ? "" : "s", t->prerecorded);
  if (t->have_upstream)
    printf ("upstream: %" G_GUINT64_FORMAT " gap%s, %" G_GUINT64_FORMAT
        " frames lost before the recorder (no fault of the recording)\n",
        t->upstream_gaps, t->upstream_gaps == 1 ? "" : "s",
        t->missing_upstream);
  if (t->latency.count)
    printf ("write latency (arrival to on disk): p50 %.1f ms, p99 %.1f ms, "
        "max %.1f ms; %" G_GUINT64_FORMAT " frames missed their deadline\n",
        rtf_histogram_percentile (&t->latency, 0.50) / 1e6,
        rtf_histogram_percentile (&t->latency, 0.99) / 1e6,
        t->latency.max / 1e6, t->missed);
}

/* The sums, as members of the document */
static void
json_summary (const RtfRecording * rec, const Totals * t)
{
  guint i;

  json_out_u64 (&js, "frames", t->frames);
  json_out_u64 (&js, "bytes", t->bytes);
  json_out_u64 (&js, "checksums-compared", t->sums);
  json_out_u64 (&js, "frames-missing", rec->missing);
  json_out_u64 (&js, "recordings", t->recordings);
  json_out_u64 (&js, "prerecorded", t->prerecorded);
  json_out_u64 (&js, "upstream-gaps", t->upstream_gaps);
  json_out_u64 (&js, "frames-lost-upstream", t->missing_upstream);
  json_out_u64 (&js, "frames-missed-deadline", t->missed);
  json_out_u64 (&js, "failed-over", rec->failed_over);
  json_out_u64 (&js, "duplicates", rec->duplicates);
  if (t->latency.count) {
    json_out_begin_object (&js, "latency-ms");
    json_out_double (&js, "p50", rtf_histogram_percentile (&t->latency,
            0.50) / 1e6);
    json_out_double (&js, "p99", rtf_histogram_percentile (&t->latency,
            0.99) / 1e6);
    json_out_double (&js, "max", t->latency.max / 1e6);
    json_out_end_object (&js);
  }
  if (rec->locations) {
    json_out_begin_array (&js, "locations");
    for (i = 0; rec->locations[i]; i++) {
      json_out_begin_object (&js, NULL);
      json_out_string (&js, "location", rec->locations[i]);
      if (rec->ends) {
        json_out_string (&js, "final-state", rtf_spread_end_state_name
            (rec->ends[i].state));
        json_out_u64 (&js, "final-frames", rec->ends[i].frames);
      }
      json_out_end_object (&js);
    }
    json_out_end_array (&js);
    json_out_u64 (&js, "locations-not-found", rec->n_missing_locations);
  }
}

/* --json when the recording cannot be opened */
static void
json_unreadable (const gchar * location, const gchar * why)
{
  gchar *text;

  json_out_init (&js);
  json_out_begin_object (&js, NULL);
  json_out_string (&js, "location", location);
  json_out_string (&js, "verdict", "unreadable");
  json_out_u64 (&js, "exit", 2);
  json_out_string (&js, "error", why);
  json_out_end_object (&js);
  text = json_out_finish (&js);
  fputs (text, stdout);
  g_free (text);
}

/* One recording checked (nested: inside a take's document, an item of its
 * "files"); its exit status */
static gint
verify_location (const gchar * location, gboolean nested)
{
  GError *error = NULL;
  RtfRecording *rec;
  Totals t = { 0 };
  GPtrArray *whole;
  const gchar *verdict;
  gint status;
  guint j;

  rec = rtf_recording_open_settled (location, start_index, wait_ms, &error);
  if (rec == NULL) {
    unreadable_seen = TRUE;
    fprintf (stderr, "rtframe-verify: %s\n", error->message);
    if (json && nested) {
      json_out_begin_object (&js, NULL);
      json_out_string (&js, "location", location);
      json_out_string (&js, "verdict", "unreadable");
      json_out_u64 (&js, "exit", 2);
      json_out_string (&js, "error", error->message);
      json_out_end_object (&js);
    } else if (json) {
      json_unreadable (location, error->message);
    }
    g_clear_error (&error);
    return 2;
  }
  if (json) {
    if (!nested)
      json_out_init (&js);
    js_faults = g_ptr_array_new_with_free_func (g_free);
    js_notes = g_ptr_array_new_with_free_func (g_free);
    json_out_begin_object (&js, NULL);
    json_out_string (&js, "location", location);
    json_out_begin_array (&js, "files");
  }
  rtf_histogram_reset (&t.latency);
  check_files (rec, &t);
  if (json)
    json_out_end_array (&js);
  /* what no file's check sees: a location or files missing, and the
   * frame numbers no file holds (in a spread, each location holds some:
   * the numbers no location holds) */
  whole = g_ptr_array_new_with_free_func (g_free);
  t.faults += rtf_check_recording (rec, allow_gaps, whole);
  for (j = 0; j < whole->len; j++)
    say_fault (g_strdup (g_ptr_array_index (whole, j)));
  g_ptr_array_unref (whole);
  if (json)
    json_summary (rec, &t);
  else if (!quiet)
    print_summary (rec, &t);
  tell_notes (rec);
  t.faults += print_leftovers_with_frames (rec);
  verdict = t.faults ? "FAULTS FOUND" : t.in_use ? "IN USE" : "OK";
  status = t.faults ? 1 : t.in_use ? 2 : 0;
  if (json) {
    json_strings ("faults", js_faults);
    json_strings ("notes", js_notes);
    json_out_string (&js, "verdict", verdict);
    json_out_u64 (&js, "exit", status);
    json_out_end_object (&js);
    if (!nested) {
      gchar *text = json_out_finish (&js);

      fputs (text, stdout);
      g_free (text);
    }
    g_ptr_array_unref (js_faults);
    g_ptr_array_unref (js_notes);
  } else if (!quiet)
    printf ("%s\n", verdict);
  rtf_recording_free (rec);
  return status;
}

/* The frames of a camera's part found in its files: records first..last */
/* A fault of a camera's part: a line, or (JSON) an item of the camera's
 * "faults" */
static void
say_part_fault (gchar * text)
{
  if (json)
    json_out_string (&js, NULL, text);
  else
    printf ("FAULT %s\n", text);
  g_free (text);
}

/* A camera's part of a take, its files read together (a camera recording
 * to several locations has files at each, their frames interleaved): the
 * frames of the take it holds (*found), and the faults - frame numbers of
 * the take no file holds, a part that cannot be read.  Each file alone is
 * checked with gaps allowed: the numbers it lacks may be another
 * location's. */
static guint
check_part (const gchar * manifest, const RtfTakeCamera * c, guint64 * found)
{
  GError *error = NULL;
  RtfRecording *rec = rtf_take_recording_open (manifest, c->name, FALSE,
      &error);
  guint faults = 0, g;

  *found = 0;
  if (rec == NULL) {
    say_part_fault (g_strdup_printf ("camera %s: %s", c->name, error->message));
    g_clear_error (&error);
    return 1;
  }
  *found = rec->n_frames;
  rtf_recording_find_gaps (rec);
  for (g = 0; g < rec->n_gaps && !allow_gaps; g++, faults++)
    say_part_fault (g_strdup_printf ("camera %s: frames %" G_GUINT64_FORMAT
            " to %" G_GUINT64_FORMAT " of the take are in none of its files "
            "(none was reported written: dropped while recording, or in "
            "flight when it stopped without EOS; --allow-gaps accepts that)",
            c->name, rec->gaps[g].first, rec->gaps[g].last));
  rtf_recording_free (rec);
  return faults;
}

/* A take's verdict: a file that could not be read is no file in use */
static const gchar *
take_verdict (gint status)
{
  return status == 1 ? "FAULTS FOUND" : status != 2 ? "OK" :
      unreadable_seen ? "UNREADABLE" : "IN USE";
}

/* A take's manifest: every camera's files checked, each camera holding
 * the frames its part was told to have */
static gint
verify_take (const gchar * path)
{
  GError *error = NULL;
  RtfTakeManifest *m = rtf_take_manifest_load (path, &error);
  gint status = 0;
  guint c, f;

  if (m == NULL) {
    fprintf (stderr, "rtframe-verify: %s\n", error->message);
    if (json)
      json_unreadable (path, error->message);
    g_clear_error (&error);
    return 2;
  }
  if (json) {
    json_out_init (&js);
    json_out_begin_object (&js, NULL);
    json_out_string (&js, "take", m->id);
    json_out_string (&js, "manifest", path);
    json_out_begin_array (&js, "cameras");
  }
  for (c = 0; c < m->cameras->len; c++) {
    const RtfTakeCamera *cam = g_ptr_array_index (m->cameras, c);
    guint64 found;

    if (json) {
      json_out_begin_object (&js, NULL);
      json_out_string (&js, "name", cam->name);
      json_out_begin_array (&js, "recordings");
    } else if (!quiet) {
      printf ("camera %s of %s %s:\n", cam->name, m->kind, m->id);
    }
    for (f = 0; cam->files[f]; f++) {
      gchar *file = rtf_take_manifest_file_path (path, cam->files[f]);
      gboolean gaps = allow_gaps;
      gint one;

      allow_gaps = TRUE;        /* (judged over the whole part below) */
      one = verify_location (file, TRUE);
      allow_gaps = gaps;
      status = MAX (status, one);
      g_free (file);
    }
    if (json)
      json_out_end_array (&js);
    found = 0;
    if (json)
      json_out_begin_array (&js, "faults");
    if (cam->first_frame != RTF_TAKE_NONE && check_part (path, cam, &found))
      status = MAX (status, 1);
    if (json)
      json_out_end_array (&js);
    if (cam->stopped && found < cam->frames) {
      gchar *why = g_strdup_printf ("camera %s: %" G_GUINT64_FORMAT " of "
          "the %" G_GUINT64_FORMAT " frames of %s its recorder told are in "
          "its files", cam->name, found, cam->frames, m->id);

      if (json)
        json_out_string (&js, "fault", why);
      else
        printf ("FAULT %s\n", why);
      g_free (why);
      status = MAX (status, 1);
    }
    if (json) {
      json_out_u64 (&js, "frames", found);
      json_out_end_object (&js);
    }
  }
  if (json) {
    gchar *text;

    json_out_end_array (&js);
    json_out_string (&js, "verdict", take_verdict (status));
    json_out_u64 (&js, "exit", status);
    json_out_end_object (&js);
    text = json_out_finish (&js);
    fputs (text, stdout);
    g_free (text);
  } else if (!quiet) {
    printf ("%s %s: %s\n", m->kind, m->id, take_verdict (status));
  }
  rtf_take_manifest_free (m);
  return status;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("LOCATION - check a recording "
      "against its index");
  GError *error = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "LOCATION is a recorded file or "
      "the pattern it was recorded with (cam0-%05d.raw): then every file of "
      "the set is checked, in order; or the manifest of a recording spread "
      "over several locations (cam0-.raw.rtfspread): every location's; or "
      "an event's or take's manifest (event-12.rtftake): every camera's "
      "files of it, each holding the frames its recorder told.\n"
      "Exit status: 0 no fault, 1 faults, 2 the recording cannot be read, "
      "or a file of it is in use.");
  if (g_option_context_parse (ctx, &argc, &argv, &error) && version) {
    g_option_context_free (ctx);
    rtf_print_version ("rtframe-verify");
    return 0;
  }
  if (error != NULL || argc != 2) {
    fprintf (stderr, "%s\n", error ? error->message :
        "usage: rtframe-verify [OPTION...] LOCATION");
    g_clear_error (&error);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (rtf_take_manifest_is_path (argv[1]))
    return verify_take (argv[1]);
  return verify_location (argv[1], FALSE);
}
