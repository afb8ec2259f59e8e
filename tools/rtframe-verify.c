/* rtframe-verify: checks a recording (one file or a rotated set) against
 * its indexes: that each index is the file's, sizes, order, gaps,
 * checksums, and sums up the missed deadlines.  It only reads.  Exit
 * status 0: no fault; 1: faults (listed); 2: the recording could not be
 * read, or a file of it is in use (being recorded). */
#include "rtf-check.h"
#include "rtf-histogram.h"
#include "rtf-recording.h"

#include <stdio.h>
#include <stdlib.h>

static gboolean allow_gaps, no_checksums, quiet;
static guint64 start_index;
static gint wait_ms = 3000;

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
  {NULL}
};

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("LOCATION - check a recording "
      "against its index");
  GError *error = NULL;
  RtfRecording *rec;
  RtfHistogram latency;
  guint64 faults = 0, gaps = 0, missed = 0, frames = 0, bytes = 0, sums = 0;
  guint64 recordings = 0, prerecorded = 0;
  guint64 prev_last = 0, in_use = 0;
  gboolean have_prev = FALSE;
  guint i, j;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "LOCATION is a recorded file or "
      "the pattern it was recorded with (cam0-%05d.raw): then every file of "
      "the set is checked, in order.\nExit status: 0 no fault, 1 faults, 2 "
      "the recording cannot be read.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 2) {
    fprintf (stderr, "%s\n", error ? error->message :
        "usage: rtframe-verify [OPTION...] LOCATION");
    return 2;
  }
  g_option_context_free (ctx);

  rec = rtf_recording_open_settled (argv[1], start_index, wait_ms, &error);
  if (rec == NULL) {
    fprintf (stderr, "rtframe-verify: %s\n", error->message);
    return 2;
  }
  rtf_histogram_reset (&latency);
  for (i = 0; i < rec->n_files; i++) {
    RtfRecordingFile *f = &rec->files[i];
    RtfCheck c;

    if (f->in_use) {
      printf ("IN USE %s: a recording is writing it (or rtframe-recover "
          "repairs it): not checked\n", f->path);
      in_use++;
      continue;
    }
    if (f->state == RTF_FILE_NEVER_WRITTEN) {
      if (!quiet)
        printf ("%s: empty, opened ahead for a split that never came\n",
            f->path);
      continue;
    }
    rtf_check_file (f, !no_checksums, 0, &c);
    for (j = 0; j < c.faults->len; j++)
      printf ("FAULT %s\n", (const gchar *) g_ptr_array_index (c.faults, j));
    faults += c.faults->len;
    gaps += c.gaps;
    missed += c.missed;
    recordings += c.recordings;
    prerecorded += c.prerecorded;
    frames += c.good_frames;
    bytes += c.good_end;
    sums += c.checked_sums;
    if (c.good_frames > 0) {
      const RtfIndexRecord *first = &f->index->records[0];

      /* (frames not recorded between two recordings are no gap) */
      if (have_prev && first->seq > prev_last + 1
          && !(first->flags & RTF_INDEX_REC_EVENT_START))
        gaps += first->seq - prev_last - 1;
      prev_last = f->index->records[c.good_frames - 1].seq;
      have_prev = TRUE;
      for (j = 0; j < c.good_frames; j++) {
        const RtfIndexRecord *r = &f->index->records[j];

        /* a pre-recorded frame waited in memory for its recording */
        if (r->complete_ns >= r->arrival_ns
            && !(r->flags & RTF_INDEX_REC_PRERECORDED))
          rtf_histogram_add (&latency, r->complete_ns - r->arrival_ns);
      }
    }
    if (!quiet)
      printf ("%s: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
          " bytes, %s%s\n", f->path, c.good_frames, c.good_end,
          f->index ? f->index->header.format : rtf_file_state_name (f->state),
          c.faults->len ? "" : ", OK");
    rtf_check_clear (&c);
  }
  if (gaps && !allow_gaps) {
    printf ("FAULT %" G_GUINT64_FORMAT " frame numbers missing from the "
        "sequence (frames dropped while recording; --allow-gaps accepts "
        "that)\n", gaps);
    faults++;
  }
  if (!quiet) {
    printf ("%u file%s, %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
        " bytes, %" G_GUINT64_FORMAT " checksums compared, %" G_GUINT64_FORMAT
        " frames missing\n", rec->n_files, rec->n_files == 1 ? "" : "s",
        frames, bytes, sums, gaps);
    if (recordings > 1 || prerecorded > 0)
      printf ("%" G_GUINT64_FORMAT " recording%s (events), %" G_GUINT64_FORMAT
          " frames held before their recording started (pre-record)\n",
          recordings, recordings == 1 ? "" : "s", prerecorded);
    if (latency.count)
      printf ("write latency (arrival to on disk): p50 %.1f ms, p99 %.1f ms, "
          "max %.1f ms; %" G_GUINT64_FORMAT " frames missed their deadline\n",
          rtf_histogram_percentile (&latency, 0.50) / 1e6,
          rtf_histogram_percentile (&latency, 0.99) / 1e6, latency.max / 1e6,
          missed);
    if (rec->note)
      printf ("note: %s\n", rec->note);
    for (i = 0; i < rec->n_leftovers; i++)
      printf ("note: %s: a file prepared for a split and never given its "
          "name, left by a crash (no frame of it was reported written; "
          "rtframe-recover deletes it)\n", rec->leftovers[i].path);
    printf ("%s\n", faults ? "FAULTS FOUND" : in_use ? "IN USE" : "OK");
  }
  rtf_recording_free (rec);
  return faults ? 1 : in_use ? 2 : 0;
}
