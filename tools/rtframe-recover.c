/* rtframe-recover: cuts a recording that did not end cleanly (a crash, a
 * kill, a power cut) back to its last whole, verified frame, and repairs
 * its index to match.  For a rotated set, every file.  Exit status 0: the
 * recording is whole now (rtframe-verify passes); 1: something could not
 * be repaired; 2: it could not be read. */
#include "rtf-check.h"
#include "rtf-recording.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static guint64 start_index;
static gint tail = -1;
static gboolean dry_run;

static const GOptionEntry entries[] = {
  {"start-index", 's', 0, G_OPTION_ARG_INT64, &start_index,
      "Lowest file number of a pattern to look at (default 0)", "N"},
  {"verify-tail", 't', 0, G_OPTION_ARG_INT, &tail,
      "Compare the checksums of only the last N frames of each file "
        "(default: every frame that has one)", "N"},
  {"dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
      "Say what would be cut, change nothing", NULL},
  {NULL}
};

/* 0 done, 1 failed */
static gint
recover_file (RtfRecordingFile * f)
{
  RtfCheck c;
  guint64 from = 0, index_size, cut_bytes, cut_records;
  gint ret = 0;

  if (f->index == NULL) {
    struct stat st;

    /* The header goes to the index with the file's first frame: without
     * one, no frame of the file was reported written (or it is a file
     * opened ahead for the next split, never written). */
    if (f->data_size == 0 || stat (f->index_path, &st) < 0 || st.st_size == 0) {
      printf ("%s: %" G_GUINT64_FORMAT " bytes, no frame of it was "
          "reported written (its index is empty): %s\n", f->path,
          f->data_size, dry_run ? "would delete it" : "deleted");
      if (!dry_run) {
        (void) unlink (f->path);
        (void) unlink (f->index_path);
      }
      return 0;
    }
    printf ("%s: %" G_GUINT64_FORMAT " bytes but no usable index (%s): "
        "cannot tell its frames; play it with filesrc ! rawvideoparse\n",
        f->path, f->data_size, f->index_error);
    return 1;
  }
  if (tail >= 0 && f->index->n_records > (guint64) tail)
    from = f->first_frame + f->index->n_records - tail;
  rtf_check_file (f, TRUE, from, &c);
  index_size = f->index->header.header_size +
      c.good_frames * (guint64) RTF_INDEX_RECORD_SIZE;
  cut_bytes = f->data_size - MIN (f->data_size, c.good_end);
  cut_records = f->index->n_records - c.good_frames;
  if (cut_bytes == 0 && index_size == f->index->file_bytes) {
    printf ("%s: whole, %" G_GUINT64_FORMAT " frames\n", f->path,
        c.good_frames);
    rtf_check_clear (&c);
    return 0;
  }
  printf ("%s: keeping %" G_GUINT64_FORMAT " frames (%" G_GUINT64_FORMAT
      " bytes); %s %" G_GUINT64_FORMAT " bytes of data and %"
      G_GUINT64_FORMAT " index records (%" G_GUINT64_FORMAT " bytes)\n",
      f->path, c.good_frames, c.good_end, dry_run ? "would cut" : "cut",
      cut_bytes, cut_records, f->index->file_bytes - index_size);
  if (c.faults->len)
    printf ("  because: %s\n", (const gchar *) g_ptr_array_index (c.faults, 0));
  if (!dry_run) {
    if (truncate (f->path, (off_t) c.good_end) < 0) {
      printf ("  cutting %s failed: %s\n", f->path, g_strerror (errno));
      ret = 1;
    }
    if (truncate (f->index_path, (off_t) index_size) < 0) {
      printf ("  cutting %s failed: %s\n", f->index_path, g_strerror (errno));
      ret = 1;
    }
  }
  rtf_check_clear (&c);
  return ret;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("LOCATION - cut a crashed "
      "recording back to its whole frames");
  GError *error = NULL;
  RtfRecording *rec;
  gint ret = 0;
  guint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "LOCATION is a recorded file or "
      "the pattern it was recorded with (cam0-%05d.raw).  A frame is kept "
      "when its index record is intact, it lies whole in the file right "
      "after the one before, and its checksum (if recorded) matches; the "
      "file and the index are cut after the last such frame.  Frames whose "
      "data reached the disk but whose record did not are cut too: nothing "
      "says what they are.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 2) {
    fprintf (stderr, "%s\n", error ? error->message :
        "usage: rtframe-recover [OPTION...] LOCATION");
    return 2;
  }
  g_option_context_free (ctx);

  rec = rtf_recording_open (argv[1], start_index, FALSE, &error);
  if (rec == NULL && g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
      && strchr (argv[1], '%')) {
    /* a set none of whose files got a frame (killed before the first) */
    printf ("%s: %s: nothing to recover\n", argv[1], error->message);
    return 0;
  }
  if (rec == NULL) {
    fprintf (stderr, "rtframe-recover: %s\n", error->message);
    return 2;
  }
  for (i = 0; i < rec->n_files; i++)
    ret |= recover_file (&rec->files[i]);
  if (!dry_run)
    sync ();
  rtf_recording_free (rec);
  return ret;
}
