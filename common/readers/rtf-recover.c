/* rtframe: cutting a crashed recording back to its whole frames. */
#include "rtf-recover.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static void
refuse (RtfRecoverPlan * plan, gchar * why)
{
  plan->action = RTF_RECOVER_REFUSE;
  plan->why = why;
}

/* The recording id a file's mark must name for the file to be taken as
 * the recording's: rec's (its first index of version 2 on); none for a
 * recording whose indexes are of version 1 (they name no recording, and
 * files marked by the sink are another, newer recording's); for one
 * with no index at all (a single file killed before its first record),
 * its first mark's.  FALSE when there is none. */
static gboolean
recording_id (const RtfRecording * rec, RtfRecordingId * id)
{
  guint i;

  if (!rtf_recording_id_is_zero (&rec->id)) {
    *id = rec->id;
    return TRUE;
  }
  for (i = 0; i < rec->n_files; i++)
    if (rec->files[i].state == RTF_FILE_OK)
      return FALSE;             /* an index of version 1: no id */
  for (i = 0; i < rec->n_files; i++)
    if (rec->files[i].has_mark) {
      *id = rec->files[i].mark_id;
      return TRUE;
    }
  return FALSE;
}

/* Why f's mark does not prove it the recording's, or NULL */
static gchar *
mark_not_ours (const RtfRecording * rec, const RtfRecordingFile * f)
{
  RtfRecordingId id;

  if (!recording_id (rec, &id))
    return g_strdup ("marked by rtframesink, but the recording's files "
        "name no recording id (index version 1): nothing shows it is "
        "theirs; left as it is");
  if (!rtf_recording_id_equal (&id, &f->mark_id))
    return g_strdup ("marked as a file of another recording: left as it " "is");
  return NULL;
}

/* A file opened ahead for a split that never came, or one whose index
 * header never reached the disk (killed while its first frame was in
 * flight): no frame of it was reported written.  Deleted only when its
 * mark says the sink made it for this recording. */
static void
plan_never_written (const RtfRecording * rec, const RtfRecordingFile * f,
    RtfRecoverPlan * plan)
{
  gchar *theirs;

  if (f->state == RTF_FILE_NEVER_WRITTEN
      && rtf_recording_is_location_first (rec, f)) {
    /* nothing changed: deleted, the location would read as missing */
    plan->action = RTF_RECOVER_WHOLE;
    plan->why = g_strdup ("empty: a location's first file, made at start; "
        "kept, it shows the location held no frame");
  } else if (!f->has_mark && f->state == RTF_FILE_NO_INDEX) {
    refuse (plan, g_strdup_printf ("%s: not identified as a file of the "
            "recording (nor does it carry rtframesink's mark), left as it is",
            f->why));
  } else if (!f->has_mark) {
    refuse (plan, g_strdup ("empty, but nothing shows rtframesink made it "
            "(no rtframe mark: a filesystem without extended attributes, "
            "or not a file of a recording): left as it is"));
  } else if ((theirs = mark_not_ours (rec, f)) != NULL) {
    refuse (plan, g_strdup_printf ("empty, and %s", theirs));
    g_free (theirs);
  } else if (f->state == RTF_FILE_NEVER_WRITTEN) {
    plan->action = RTF_RECOVER_DELETE;
    plan->why = g_strdup ("opened ahead for a split that never came (empty, "
        "marked by rtframesink)");
  } else {
    plan->action = RTF_RECOVER_DELETE;
    plan->cut_bytes = f->data_size;
    plan->why = g_strdup_printf ("its index is empty: its first frame was "
        "still being written (%" G_GUINT64_FORMAT " bytes of it reached the "
        "file, marked by rtframesink)", f->data_size);
  }
}

static guint64
crash_limit (const RtfIndexHeader * h)
{
  guint64 in_flight = h->max_in_flight ? h->max_in_flight :
      RTF_RECOVER_LEGACY_IN_FLIGHT;
  guint64 block = h->block ? h->block : RTF_RECOVER_MAX_BLOCK;

  return in_flight * h->frame_size + block;
}

/* Whether f's end can be a tail a crash left: its set's (its location's)
 * last file holding records, of a recording that did not end with EOS
 * (no final state).  A file a later one follows was closed before it,
 * and at EOS every file was. */
static gboolean
crash_tail_possible (const RtfRecording * rec, const RtfRecordingFile * f)
{
  return !f->has_successor && rec->ends == NULL;
}

static const gchar *
why_no_crash (const RtfRecording * rec, const RtfRecordingFile * f)
{
  return f->has_successor ? "a later file of the recording holds frames, so "
      "this one was closed before it" : "the recording ended with EOS (the "
      "final state in its manifest)";
}

/* f's index has records after its last intact one (damaged, or a record
 * cut short) and data after the last whole frame the walk keeps: those
 * bytes may be the frames of the damaged records */
static gboolean
damaged_tail_over_data (const RtfRecordingFile * f, const RtfRecoverPlan * p)
{
  return f->index->file_bytes > f->index->valid_bytes && p->cut_bytes > 0;
}

/* Nothing of f is cut where its end is no crash's (R1, U1 of adversarial
 * review 2): a damaged record at the end of its index stands for a frame
 * reported written whose bytes are in the file, and records past the
 * data for frames reported written that were cut or overwritten after
 * the recording.  TRUE when refused. */
static gboolean
refuse_not_a_crash (const RtfRecording * rec, const RtfRecordingFile * f,
    RtfRecoverPlan * plan)
{
  const RtfIndex *idx = f->index;
  guint64 records = (idx->file_bytes - idx->valid_bytes +
      idx->header.record_size - 1) / idx->header.record_size;
  gchar *what;

  if (crash_tail_possible (rec, f))
    return FALSE;
  if (f->walk.stop == RTF_INDEX_BEYOND_DATA) {
    refuse (plan, g_strdup_printf ("its index holds records of frames "
            "reported written that are not in the file (%s), and %s: the "
            "file was cut or written over after the recording, not by a "
            "crash; left as it is, and its index (they say what was there)",
            f->walk.why, why_no_crash (rec, f)));
    return TRUE;
  }
  if (!damaged_tail_over_data (f, plan))
    return FALSE;
  what = records == 1 ? g_strdup_printf ("the last record of its index "
      "(from byte %" G_GUINT64_FORMAT ") is", idx->valid_bytes) :
      g_strdup_printf ("the last %" G_GUINT64_FORMAT " records of its index "
      "(from byte %" G_GUINT64_FORMAT ") are", records, idx->valid_bytes);
  refuse (plan, g_strdup_printf ("%s damaged, and %s: no tail a crash tore, "
          "so the %" G_GUINT64_FORMAT " bytes after its last indexed frame "
          "(from byte %" G_GUINT64_FORMAT ") likely hold frames reported "
          "written.  Nothing is cut: the file and its index are left as they "
          "are.  Its frames before that byte play; the rest can be copied out "
          "from it (%" G_GUINT64_FORMAT " bytes a frame)", what,
          why_no_crash (rec, f), plan->cut_bytes, plan->keep_bytes,
          idx->header.frame_size));
  g_free (what);
  return TRUE;
}

void
rtf_recover_plan (const RtfRecording * rec, const RtfRecordingFile * f,
    RtfRecoverPlan * plan)
{
  const RtfIndex *idx = f->index;
  guint64 kept_slots;

  memset (plan, 0, sizeof (*plan));
  if (f->in_use) {
    refuse (plan, g_strdup ("in use: a recording (or another rtframe-"
            "recover) holds its lock; nothing is cut while it is written"));
    return;
  }
  if (f->state == RTF_FILE_NEVER_WRITTEN
      || (f->state == RTF_FILE_NO_INDEX && f->index_empty)) {
    plan_never_written (rec, f, plan);
    return;
  }
  if (f->state != RTF_FILE_OK) {
    refuse (plan, g_strdup_printf ("%s: not identified as a file of the "
            "recording, left as it is", f->why));
    return;
  }
  if (f->walk.stop == RTF_INDEX_INCONSISTENT) {
    refuse (plan, g_strdup_printf ("its index contradicts itself (%s): "
            "left as it is", f->walk.why));
    return;
  }
  /* the index keeps every record up to the last whole frame's */
  kept_slots = f->walk.frames ? idx->records[f->walk.frames - 1].slot + 1 : 0;
  plan->keep_bytes = f->walk.end;
  plan->keep_frames = f->walk.frames;
  plan->keep_index_bytes = idx->header.header_size +
      kept_slots * (guint64) idx->header.record_size;
  plan->cut_bytes = f->data_size - f->walk.end;
  plan->cut_records = (idx->file_bytes - plan->keep_index_bytes +
      idx->header.record_size - 1) / idx->header.record_size;
  plan->limit = crash_limit (&idx->header);
  if (plan->cut_bytes == 0 && idx->file_bytes == plan->keep_index_bytes) {
    plan->action = RTF_RECOVER_WHOLE;
    return;
  }
  if (refuse_not_a_crash (rec, f, plan))
    return;
  /* deleted only when its index holds no record: one whose records lie
   * past its data lost frames reported written, it was not opened ahead
   * (U1 of adversarial review 2) - cut, its index's header kept */
  plan->action = f->walk.frames == 0 && f->proof == RTF_PROOF_MARK
      && idx->n_records == 0 && idx->file_bytes == idx->valid_bytes
      && !rtf_recording_is_location_first (rec, f) ?
      RTF_RECOVER_DELETE : RTF_RECOVER_CUT;
  if (plan->cut_bytes > plan->limit) {
    /* A file whose mark names its index's recording and number has its
     * own index: the bytes past it are frames whose records never reached
     * the disk - a power cut leaves those, where another file's sync made
     * a frame's data durable before its index was synced (measured: 5
     * frames past 1 record, io-depth 4) - or an index cut short by other
     * means.  Either way more than a crash of the process leaves: shown,
     * cut only when asked. */
    plan->needs_force = TRUE;
    plan->why = g_strdup_printf ("%" G_GUINT64_FORMAT " bytes past the last "
        "indexed frame, more than a killed recording leaves (%"
        G_GUINT64_FORMAT ": %u frames in flight and a block): %s",
        plan->cut_bytes, plan->limit, idx->header.max_in_flight ?
        idx->header.max_in_flight : RTF_RECOVER_LEGACY_IN_FLIGHT,
        f->proof == RTF_PROOF_MARK ? "after a power cut, frames whose data "
        "reached the disk before their index records did (they were not "
        "durable); or an index cut short" : "the index may not be this "
        "file's");
  } else if (f->walk.stop == RTF_INDEX_BEYOND_DATA
      && f->proof == RTF_PROOF_LEGACY) {
    plan->needs_force = TRUE;
    plan->why = g_strdup_printf ("%s, and its index (version 1) does not "
        "name the file it belongs to", f->walk.why);
  }
}

/* No later file of f's location is there, in any state but opened
 * ahead and never written: a file a later one follows, even a damaged
 * one, was closed before it (has_successor counts only later files with
 * records) */
static gboolean
last_at_location (const RtfRecording * rec, const RtfRecordingFile * f)
{
  guint i;

  for (i = 0; i < rec->n_files; i++)
    if (&rec->files[i] != f && rec->files[i].location == f->location
        && rec->files[i].state != RTF_FILE_NEVER_WRITTEN
        && rec->files[i].number != G_MAXUINT64
        && rec->files[i].number > f->number)
      return FALSE;
  return TRUE;
}

/* f's end can be a crash's beyond doubt: the last file of its location,
 * of a recording read through its pattern or manifest (not a file of a
 * set given by its own name, nor one location of a spread whose manifest
 * may say it ended), with one name only (a ring's file kept by a
 * recording is also in that recording's directory, where it is not the
 * last) */
static gboolean
surely_crash_tail (const RtfRecording * rec, const RtfRecordingFile * f)
{
  if (!crash_tail_possible (rec, f) || rec->manifest_beside
      || f->data_st.st_nlink != 1 || !last_at_location (rec, f))
    return FALSE;
  /* given by its name: not a file of a set (its number past 0) */
  return !f->alone || f->index->header.file_number == 0;
}

/* The frames from check->first_bad on, each compared and none matching,
 * are whole records in a row whose frames each hold a block of zeros */
static gboolean
run_all_torn (const RtfRecordingFile * f, const RtfCheck * c)
{
  const RtfIndex *idx = f->index;
  guint64 i, run = f->walk.frames - c->first_bad;

  if (c->bad_sums != run || c->bad_unzeroed > 0)
    return FALSE;
  for (i = c->first_bad; i < f->walk.frames; i++)
    if (!(idx->records[i].flags & RTF_INDEX_REC_CHECKSUM)
        || idx->records[i].slot != idx->records[c->first_bad].slot +
        (i - c->first_bad))
      return FALSE;
  return TRUE;
}

/* The frames from check->first_bad on are a tail a power cut tore: the
 * file is proven f's by its mark, its end is surely a crash's, a frame
 * compared before them matched (the file was the recording's up to
 * there), they are no more than the writer had in flight, and each was
 * compared, mismatched and holds a block of zeros where its bytes never
 * landed.  A byte flipped, a file written over (cp keeps the inode and
 * its mark), a file closed before a later one: each fails one of these,
 * and is left as it is. */
static gboolean
torn_tail (const RtfRecording * rec, const RtfRecordingFile * f,
    const RtfCheck * c)
{
  guint64 in_flight = f->index->header.max_in_flight ?
      f->index->header.max_in_flight : RTF_RECOVER_LEGACY_IN_FLIGHT;

  return f->state == RTF_FILE_OK && f->proof == RTF_PROOF_MARK
      && c->first_bad < f->walk.frames && c->good_after_bad == 0
      && c->checked_sums > c->bad_sums
      && f->walk.frames - c->first_bad <= in_flight
      && run_all_torn (f, c) && surely_crash_tail (rec, f);
}

static void
cut_torn (const RtfRecordingFile * f, const RtfCheck * c, RtfRecoverPlan * plan)
{
  const RtfIndex *idx = f->index;
  const RtfIndexRecord *r = &idx->records[c->first_bad];
  guint64 rs = idx->header.record_size;

  plan->action = RTF_RECOVER_CUT;
  plan->keep_bytes = r->offset;
  plan->keep_frames = c->first_bad;
  plan->torn_frames = f->walk.frames - c->first_bad;
  plan->keep_index_bytes = idx->header.header_size + r->slot * rs;
  plan->cut_bytes = f->data_size - r->offset;
  plan->cut_records = (idx->file_bytes - plan->keep_index_bytes + rs - 1) / rs;
  if (plan->needs_force)
    return;                     /* its why says what else lies past */
  g_free (plan->why);
  plan->why = g_strdup_printf ("the last %" G_GUINT64_FORMAT " of its "
      "indexed frames (from frame %" G_GUINT64_FORMAT ") do not match their "
      "checksums, and no frame after them does: a power cut kept their "
      "records and not their bytes (they were never durable); cut with the "
      "tail, no whole frame goes", plan->torn_frames, r->seq);
}

void
rtf_recover_plan_sums (const RtfRecording * rec, const RtfRecordingFile * f,
    const RtfCheck * c, RtfRecoverPlan * plan)
{
  if (c->bad_sums == 0 || plan->action == RTF_RECOVER_REFUSE)
    return;
  if (torn_tail (rec, f, c)) {
    cut_torn (f, c, plan);
    return;
  }
  if (plan->action != RTF_RECOVER_CUT && plan->action != RTF_RECOVER_DELETE)
    return;
  g_free (plan->why);
  plan->action = RTF_RECOVER_REFUSE;
  plan->needs_force = FALSE;
  plan->why = g_strdup_printf ("%" G_GUINT64_FORMAT " of its %"
      G_GUINT64_FORMAT " indexed frames do not match their checksums (listed "
      "below): the bytes may not be the recording's (a file written over "
      "it, or damage), so nothing is cut; the data and the index are left as "
      "they are", c->bad_sums, f->walk.frames);
}

/* A file to delete while a later file of its location stays (its delete
 * failed or was refused): deleted, it would leave a hole in the set, a
 * file missing between files of the recording (adversarial read of
 * ccd141f, F1) - kept, for a second run once the later one is dealt with */
static void
refuse_hole (RtfRecoverPlan * plan)
{
  g_free (plan->why);
  plan->action = RTF_RECOVER_REFUSE;
  plan->needs_force = FALSE;
  plan->why = g_strdup ("holds no frame reported written, but a later file "
      "of its set stays: deleted, it would leave a hole in the set; left as "
      "it is (run rtframe-recover again once that one is dealt with)");
}

/* f is the first of its location's files the reader found (max-files
 * may have deleted the ones before it) */
static gboolean
first_left_at_location (const RtfRecording * rec, const RtfRecordingFile * f)
{
  guint i;

  for (i = 0; i < rec->n_files && &rec->files[i] != f; i++)
    if (rec->files[i].location == f->location)
      return FALSE;
  return TRUE;
}

/* A file holding no frame that the run would delete as the last of its
 * spread location (no earlier file, no later one staying): deleted, the
 * location would read as a disk lost.  Kept instead, as small as a
 * reader takes for empty: as it is when never written, cut to its
 * frames (none) when it has an index header, cut to nothing when its
 * first frame was in flight (its index empty).  Torture
 * 0xc1caf5093a2a4d22 (max-files deleted the file before it), the
 * adversarial reads of 68ae2f7 (two empty files there, both deleted) and
 * of bb79aa8 (H1: one with bytes of its first frame, deleted). */
static void
keep_last_left (const RtfRecordingFile * f, RtfRecoverPlan * plan)
{
  const gchar *why = "the only file left at its location (max-files "
      "deleted the ones before it, or it is the first)";

  if (f->state == RTF_FILE_NEVER_WRITTEN) {
    g_free (plan->why);
    plan->action = RTF_RECOVER_WHOLE;
    plan->why = g_strdup_printf ("empty: %s; kept, it shows the location "
        "is there", why);
  } else if (f->state == RTF_FILE_OK) {
    plan->action = plan->cut_bytes || plan->cut_records ? RTF_RECOVER_CUT :
        RTF_RECOVER_WHOLE;
  } else {                      /* its index empty, its first frame cut */
    g_free (plan->why);
    plan->action = RTF_RECOVER_CUT;
    plan->keep_bytes = 0;
    plan->keep_index_bytes = 0;
    plan->why = g_strdup_printf ("its index is empty: its first frame was "
        "still being written (%" G_GUINT64_FORMAT " bytes of it reached the "
        "file); %s: cut to nothing and kept, it shows the location is there",
        f->data_size, why);
  }
}

void
rtf_recover_plan_in_run (const RtfRecording * rec,
    const RtfRecordingFile * f, gboolean later_stays, RtfRecoverPlan * plan)
{
  if (plan->action != RTF_RECOVER_DELETE)
    return;
  if (later_stays)
    refuse_hole (plan);
  else if ((rec->locations || rec->manifest_beside)
      && first_left_at_location (rec, f))
    keep_last_left (f, plan);
}

/* Its index holds records: its rename was lost (a power cut on a
 * filesystem that did not keep the rename before the file's data) and
 * its frames were reported written (L1 of adversarial review 2) - or a
 * kill came before the rename, and none was; nothing on disk tells which.
 * Left for the user to give it its name. */
static void
refuse_leftover_with_frames (const RtfRecordingFile * f, RtfRecoverPlan * plan)
{
  gchar *dir = g_path_get_dirname (f->path), *name = NULL, *at;
  struct stat st;

  if (f->state != RTF_FILE_OK) {
    refuse (plan, g_strdup_printf ("prepared for a split, and its index "
            "holds something (%s): some of its frames may have been reported "
            "written; left as it is", f->why));
    g_free (dir);
    return;
  }
  name = g_build_filename (dir, f->index->header.data_name, NULL);
  at = lstat (name, &st) == 0 ? g_strdup ("that name holds another file: "
      "move it away first") : g_strdup ("that name is free");
  refuse (plan, g_strdup_printf ("prepared for a split and never given its "
          "name, but its index holds %" G_GUINT64_FORMAT " record%s (%"
          G_GUINT64_FORMAT " whole frame%s in the file): its rename was lost "
          "(a power cut) or a kill came before it, and those frames may have "
          "been reported written; "
          "left as it is.  To read them with the recording, rename it to %s "
          "and its index to %s.idx (%s), then run rtframe-recover again",
          f->index->n_records, f->index->n_records == 1 ? "" : "s",
          f->walk.frames, f->walk.frames == 1 ? "" : "s", name, name, at));
  g_free (at);
  g_free (name);
  g_free (dir);
}

/* A prepared file where no mark can be (ramfs keeps no extended
 * attributes) and whose index holds no header yet (it is written with the
 * first frame): a kill between its creation and its first frame leaves
 * exactly this, but so could anyone, and nothing on disk tells the two
 * apart (torture 0x4d1ae2f5c6c97ffd).  Left, saying how to tell. */
static void
refuse_unmarkable_leftover (RtfRecoverPlan * plan)
{
  refuse (plan, g_strdup ("named like a file rtframesink prepares for a "
          "split, empty and without an index header (no frame of it was "
          "written), but its filesystem keeps no marks (no extended "
          "attributes), so nothing proves it is the recording's: left as it "
          "is.  A recording killed after it prepared the file leaves this; "
          "delete it and its .idx by hand if they are not yours"));
}

void
rtf_recover_plan_leftover (const RtfRecording * rec,
    const RtfRecordingFile * f, RtfRecoverPlan * plan)
{
  gchar *theirs = NULL;

  memset (plan, 0, sizeof (*plan));
  if (f->in_use)
    refuse (plan, g_strdup ("in use: the recording it was prepared for is "
            "still running"));
  else if (f->state == RTF_FILE_NOT_REGULAR || f->state == RTF_FILE_UNREADABLE)
    refuse (plan, g_strdup_printf ("%s: left as it is", f->why));
  else if (f->no_marks && rtf_recording_leftover_holds_none (f))
    refuse_unmarkable_leftover (plan);
  else if (!f->has_mark || f->mark_number != f->number)
    refuse (plan, g_strdup ("named like a file rtframesink prepares, but it "
            "carries no rtframe mark for that file: left as it is"));
  else if ((theirs = mark_not_ours (rec, f)) != NULL)
    refuse (plan, g_strdup_printf ("prepared for a split, %s", theirs));
  else if (!rtf_recording_leftover_holds_none (f))
    refuse_leftover_with_frames (f, plan);
  else {
    plan->action = RTF_RECOVER_DELETE;
    plan->why = g_strdup ("prepared for a split and never given its name "
        "(no frame of it was reported written)");
  }
  g_free (theirs);
}

void
rtf_recover_plan_clear (RtfRecoverPlan * plan)
{
  g_clear_pointer (&plan->why, g_free);
}

static gint
fail (gint err, gchar ** why, gchar * text)
{
  *why = text;
  return err;
}

/* Cuts (or with keep 0 and delete, removes) one of f's two files */
static gint
cut_one (const RtfRecordingFile * f, gboolean index, guint64 expect_size,
    guint64 keep, gboolean delete, gchar ** why)
{
  const gchar *path = index ? f->index_path : f->path;
  struct stat st;
  gchar *w = NULL;
  gint fd = rtf_recording_file_reopen (f, index, TRUE, &w), err;

  if (fd < 0) {
    gchar *text = g_strdup_printf ("%s %s", path, w);

    err = errno;
    g_free (w);
    return fail (err, why, text);
  }
  g_free (w);
  if ((err = rtf_lock (fd, TRUE)) != 0) {
    close (fd);
    return fail (err, why, g_strdup_printf ("%s is in use (locked): not "
            "changed", path));
  }
  if (fstat (fd, &st) < 0 || (guint64) st.st_size != expect_size) {
    close (fd);
    return fail (ESTALE, why, g_strdup_printf ("%s changed since it was "
            "checked: not changed", path));
  }
  if (delete && keep == 0) {
    /* the name still the inode just checked (and locked) */
    if (!rtf_same_file (path, &st))
      err = ESTALE;
    else if (unlink (path) < 0)
      err = errno;
  } else {
    err = ftruncate (fd, (off_t) keep) < 0 || fdatasync (fd) < 0 ? errno : 0;
  }
  close (fd);
  if (err)
    return fail (err, why, g_strdup_printf ("%s: %s", path, g_strerror (err)));
  return 0;
}

gint
rtf_recover_apply (const RtfRecordingFile * f, const RtfRecoverPlan * plan,
    gchar ** why)
{
  gboolean delete = plan->action == RTF_RECOVER_DELETE;
  guint64 index_size = 0;
  gint err;

  *why = NULL;
  if (plan->action != RTF_RECOVER_CUT && !delete)
    return 0;
  index_size = f->index_st.st_size;
  /* the data first: an index longer than its data is what a reader
   * copes with, the other way round loses frames */
  err = cut_one (f, FALSE, f->data_size, delete ? 0 : plan->keep_bytes,
      delete, why);
  if (err || f->index_st.st_ino == 0)
    return err;
  return cut_one (f, TRUE, index_size, delete ? 0 : plan->keep_index_bytes,
      delete, why);
}
