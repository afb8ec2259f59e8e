/* rtframe: checking one recorded file against its index. */
#include "rtf-check.h"
#include "rtf-crc32c.h"
#include "rtf-pattern.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static void
fault (RtfCheck * c, const gchar * path, const gchar * format, ...)
G_GNUC_PRINTF (3, 4);

     static void fault (RtfCheck * c, const gchar * path, const gchar * format,
    ...)
{
  va_list args;
  gchar *msg;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (c->faults, g_strdup_printf ("%s: %s", path, msg));
  g_free (msg);
}

/* 0, or the errno reading it failed with (EIO: the file ended) */
static gint
frame_crc (gint fd, guint64 offset, guint32 size, guint8 * buf, gsize buf_len,
    guint32 * crc)
{
  guint64 done = 0;

  *crc = 0;
  while (done < size) {
    gsize want = MIN (buf_len, size - done);
    gboolean short_read;
    gint err = rtf_read_full (fd, offset + done, buf, want, &short_read);

    if (err)
      return err;
    *crc = rtf_crc32c (*crc, buf, want);
    done += want;
  }
  return 0;
}

/* Whether the frame at offset holds zeros over all of its part of a
 * block, aligned in the file as the writer's blocks are (at least a
 * sector of it): what a direct write that never reached the disk leaves
 * - an unwritten extent reads as zeros, and a frame's part of the block
 * it shares with the frame before reads as the padding of that frame's
 * write (a power-cut replay: 3,240 bytes at a frame's start) - and what a
 * byte flipped in place or a file written over seldom does */
static gboolean
holds_zero_block (gint fd, guint64 offset, guint32 size, guint64 block,
    guint8 * buf, gsize buf_len)
{
  guint64 end = offset + size, at;
  gboolean found = FALSE;

  block = MIN (block, buf_len);
  for (at = offset / block * block; !found && at < end; at += block) {
    guint64 from = MAX (at, offset), to = MIN (at + block, end), i;
    gboolean short_read;

    if (to - from < MIN (512, size))
      continue;
    if (rtf_read_full (fd, from, buf, to - from, &short_read) != 0)
      return FALSE;
    for (i = 0; i < to - from && buf[i] == 0; i++);
    found = i == to - from;
  }
  return found;
}

/* Compares the checksums of the whole frames from from_frame on: a
 * mismatch is a fault and the check goes on; a read error ends it. */
static void
check_sums (const RtfRecordingFile * f, guint64 from_frame, RtfCheck * c)
{
  const RtfIndex *idx = f->index;
  const gsize buf_len = 4 << 20;
  gchar *why = NULL;
  guint8 *buf;
  guint64 i;
  gint fd = rtf_recording_file_reopen (f, FALSE, FALSE, &why);

  if (fd < 0) {
    fault (c, f->path, "cannot read it: %s", why);
    c->read_error = TRUE;
    g_free (why);
    return;
  }
  buf = g_malloc (buf_len);
  for (i = 0; i < f->walk.frames; i++) {
    const RtfIndexRecord *r = &idx->records[i];
    guint32 crc;
    gint err;

    if (!(r->flags & RTF_INDEX_REC_CHECKSUM) || f->first_frame + i < from_frame)
      continue;
    c->checked_sums++;
    if ((err = frame_crc (fd, r->offset, r->size, buf, buf_len, &crc)) != 0) {
      fault (c, f->path, "frame %" G_GUINT64_FORMAT " (bytes %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") cannot be read: %s; "
          "the check stops here", r->seq, r->offset, r->offset + r->size,
          g_strerror (err));
      c->read_error = TRUE;
      break;
    }
    if (crc != r->checksum) {
      fault (c, f->path, "frame %" G_GUINT64_FORMAT " (bytes %"
          G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") is corrupt: CRC32C "
          "%08x, the index says %08x", r->seq, r->offset,
          r->offset + r->size, crc, r->checksum);
      c->first_bad = MIN (c->first_bad, i);
      c->bad_sums++;
      if (!holds_zero_block (fd, r->offset, r->size, idx->header.block ?
              idx->header.block : 4096, buf, buf_len))
        c->bad_unzeroed++;
    } else if (c->bad_sums) {
      c->good_after_bad++;
    }
  }
  close (fd);
  g_free (buf);
}

void
rtf_check_file (const RtfRecordingFile * f, gboolean checksums,
    guint64 from_frame, RtfCheck * c)
{
  const RtfIndex *idx = f->index;
  guint64 i;

  memset (c, 0, sizeof (*c));
  c->first_bad = G_MAXUINT64;
  c->faults = g_ptr_array_new_with_free_func (g_free);
  if (f->state == RTF_FILE_NEVER_WRITTEN)
    return;
  if (f->state != RTF_FILE_OK) {
    fault (c, f->path, "%s (%s)", f->why, rtf_file_state_name (f->state));
    return;
  }
  if (idx->damage)
    fault (c, f->index_path, "%s", idx->damage);
  if (f->walk.why)
    fault (c, f->path, "%s", f->walk.why);
  c->good_frames = f->walk.frames;
  c->good_end = f->walk.end;
  for (i = 0; i < f->walk.frames; i++) {
    const RtfIndexRecord *r = &idx->records[i];

    if (i > 0 && r->seq > idx->records[i - 1].seq + 1
        && !(r->flags & RTF_INDEX_REC_EVENT_START))
      c->gaps += r->seq - idx->records[i - 1].seq - 1;
    if (r->flags & RTF_INDEX_REC_MISSED)
      c->missed++;
    if (r->flags & RTF_INDEX_REC_EVENT_START)
      c->recordings++;
    if (r->flags & RTF_INDEX_REC_PRERECORDED)
      c->prerecorded++;
    if (r->flags & RTF_INDEX_REC_GAP) {
      c->upstream_gaps++;
      c->missing_upstream += r->gap_missing;
    }
  }
  if (f->walk.stop == RTF_INDEX_WHOLE && f->data_size > f->walk.end)
    fault (c, f->path, "%" G_GUINT64_FORMAT " bytes after the last indexed "
        "frame (a recording that did not end cleanly: rtframe-recover cuts "
        "them)", f->data_size - f->walk.end);
  if (checksums && (idx->header.flags & RTF_INDEX_HAS_CHECKSUMS))
    check_sums (f, from_frame, c);
}

void
rtf_check_clear (RtfCheck * c)
{
  g_clear_pointer (&c->faults, g_ptr_array_unref);
}

/* ---- the recording as a whole --------------------------------------- */

gchar *
rtf_check_gaps_text (const RtfRecording * rec, guint max)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < rec->n_gaps && i < max; i++) {
    const RtfRange *g = &rec->gaps[i];

    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? ", " : "", g->first);
    if (g->last > g->first)
      g_string_append_printf (s, "-%" G_GUINT64_FORMAT, g->last);
  }
  if (rec->n_gaps > max)
    g_string_append_printf (s, " and %u more range%s", rec->n_gaps - max,
        rec->n_gaps - max == 1 ? "" : "s");
  return g_string_free (s, FALSE);
}

/* The file of the set `location` numbered n that rec holds, or NULL */
static const RtfRecordingFile *
held_file (const RtfRecording * rec, const gchar * location, guint64 n)
{
  const RtfRecordingFile *held = NULL;
  guint i;

  /* (by number, not by name: a name with time fields is known only once
   * found) */
  for (i = 0; i < rec->n_files && held == NULL; i++)
    if (rtf_pattern_names (location, rec->files[i].path, n))
      held = &rec->files[i];
  return held;
}

static gboolean
holds_file (const RtfRecording * rec, const gchar * location, guint64 n)
{
  return held_file (rec, location, n) != NULL;
}

/* Files of a set found, that a player cannot read (rtf_recording_open()
 * with require_index lists them with the missing ones): what it is, and
 * that their frames do not play */
/* The frame numbers between the files read around files[at] (those it
 * held, as far as they show), as text; "" when none is read before it */
static gchar *
numbers_around (const RtfRecording * rec, guint at)
{
  const RtfRecordingFile *before = NULL, *after = NULL;
  guint64 first, last;
  guint i;

  for (i = at; i-- > 0 && before == NULL;)
    if (rec->files[i].state == RTF_FILE_OK && rec->files[i].walk.frames)
      before = &rec->files[i];
  for (i = at + 1; i < rec->n_files && after == NULL; i++)
    if (rec->files[i].state == RTF_FILE_OK && rec->files[i].walk.frames)
      after = &rec->files[i];
  if (before == NULL || after == NULL)
    return g_strdup ("");
  first = before->index->records[before->walk.frames - 1].seq + 1;
  last = after->index->records[0].seq;
  if (last <= first)
    return g_strdup ("");
  return last - 1 == first ? g_strdup_printf (" (frame %" G_GUINT64_FORMAT
      ", between the files read around it)", first) :
      g_strdup_printf (" (frames %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
      ", between the files read around it)", first, last - 1);
}

static gchar *
unread_files_text (const RtfRecording * rec, const RtfRecordingFile * f,
    const RtfMissingFiles * m)
{
  gchar *numbers = numbers_around (rec, f - rec->files), *text;

  if (m->numbers.first == m->numbers.last)
    text = g_strdup_printf ("file %" G_GUINT64_FORMAT " of the set %s (%s) "
        "cannot be read: %s (%s): the frames it holds%s are not played",
        m->numbers.first, m->location, f->path, f->why,
        rtf_file_state_name (f->state), numbers);
  else
    text = g_strdup_printf ("files %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT " of the set %s cannot be read, the first (%s): %s "
        "(%s): the frames they hold%s are not played", m->numbers.first,
        m->numbers.last, m->location, f->path, f->why,
        rtf_file_state_name (f->state), numbers);
  g_free (numbers);
  return text;
}

static gchar *
missing_files_text (const RtfRecording * rec, const RtfMissingFiles * m)
{
  const RtfRecordingFile *held = held_file (rec, m->location,
      m->numbers.first);
  gchar *first, *last, *text;

  if (held && held->state != RTF_FILE_OK)
    return unread_files_text (rec, held, m);
  first = rtf_pattern_format (m->location, m->numbers.first);
  last = rtf_pattern_format (m->location, m->numbers.last);
  /* (else, a spread: the files before are the ones its final state says
   * the sink deleted, rtf-spread-recording.c) */
  const gchar *where = m->numbers.first > 0 && holds_file (rec, m->location,
      m->numbers.first - 1) ? "between files proven to be the recording's" :
      "after the oldest files, which the sink deleted (the final state's "
      "location-files-deleted), and before the first file found";

  if (m->numbers.first == m->numbers.last)
    text = g_strdup_printf ("file %" G_GUINT64_FORMAT " of the set %s is "
        "missing (%s), %s: its frames are not in the recording",
        m->numbers.first, m->location, first, where);
  else
    text = g_strdup_printf ("files %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT " of the set %s are missing (%s to %s), %s: their "
        "frames are not in the recording", m->numbers.first, m->numbers.last,
        m->location, first, last, where);
  g_free (first);
  g_free (last);
  return text;
}

static gchar *
missing_location_text (const RtfRecording * rec, const RtfMissingLocation * l)
{
  if (l->frames != G_MAXUINT64)
    return g_strdup_printf ("location %s of the recording is missing (%s): "
        "the %" G_GUINT64_FORMAT " frames reported written there (the final "
        "state in %s) are not read", l->location, l->why, l->frames,
        rec->final_manifest);
  return g_strdup_printf ("location %s of the recording is missing (%s): the "
      "frames it holds are not read (no manifest holds the recording's final "
      "state - it did not end with EOS or a stop -, so nothing shows it held "
      "none)", l->location, l->why);
}

/* The place of location in rec's list (the manifest's), or G_MAXUINT */
static guint
location_index (const RtfRecording * rec, const gchar * location)
{
  guint i;

  for (i = 0; rec->locations && rec->locations[i]; i++)
    if (g_strcmp0 (rec->locations[i], location) == 0)
      return i;
  return G_MAXUINT;
}

/* The frames the final state says were reported written, or 0 (none) */
static guint64
final_written (const RtfRecording * rec)
{
  guint64 n = 0;
  guint i;

  if (rec->ends == NULL)
    return 0;
  for (i = 0; rec->locations && rec->locations[i]; i++)
    n += MIN (rec->ends[i].frames, G_MAXUINT32);
  return n;
}

static gchar *
short_location_text (const RtfRecording * rec, const RtfShortLocation * s)
{
  guint i = location_index (rec, s->location);
  const RtfSpreadLocationEnd *e = i == G_MAXUINT || rec->ends == NULL ?
      NULL : &rec->ends[i];

  if (e == NULL || e->files_deleted == 0)
    return g_strdup_printf ("location %s holds %" G_GUINT64_FORMAT " frames, "
        "%" G_GUINT64_FORMAT " were reported written there (the final state "
        "in %s; the sink deleted none of its files): %" G_GUINT64_FORMAT
        " are missing", s->location, s->found, s->written,
        rec->final_manifest, s->written - s->found);
  return g_strdup_printf ("location %s holds %" G_GUINT64_FORMAT " of the %"
      G_GUINT64_FORMAT " frames reported written there (the final state in "
      "%s); the %" G_GUINT64_FORMAT " files the sink deleted there (its "
      "oldest: max-files, min-free-space)%s held at most %" G_GUINT64_FORMAT
      " of them - no more frame numbers below its first frame are in no file, "
      "once the locations whose first frame comes before have theirs -: at "
      "least %" G_GUINT64_FORMAT " frames reported written there are missing "
      "(its newest files lost?)", s->location, s->found, e->frames,
      rec->final_manifest, e->files_deleted, e->state ==
      RTF_SPREAD_END_ACTIVE ? "" : " and the frames not yet durable when it "
      "left", e->frames - (s->written - s->found) - s->found,
      s->written - s->found);
}

/* Whether every file is paired with an intact index: then a frame number
 * none holds was never reported written (its record would be there) -
 * unless a final state says more frames were reported written than the
 * files hold */
static gboolean
indexes_intact (const RtfRecording * rec)
{
  guint i;

  if (rec->n_missing_locations || rec->n_missing_files
      || rec->n_short_locations || final_written (rec) > rec->n_frames)
    return FALSE;
  for (i = 0; i < rec->n_files; i++) {
    const RtfRecordingFile *f = &rec->files[i];

    if (f->state == RTF_FILE_NEVER_WRITTEN)
      continue;
    if (f->state != RTF_FILE_OK || f->index->n_damaged
        || f->walk.stop == RTF_INDEX_INCONSISTENT)
      return FALSE;
  }
  return TRUE;
}

/* What the frame numbers no file holds can be, as far as rec shows */
static gchar *
gaps_why (const RtfRecording * rec)
{
  guint64 written = final_written (rec);
  gboolean deleted = FALSE, left = FALSE;
  guint i;

  if (indexes_intact (rec))
    return g_strdup ("no index of the recording holds them, so none was "
        "reported written: frames dropped while recording, or in flight "
        "when a recording stopped without EOS (a crash)");
  if (written <= rec->n_frames)
    return g_strdup ("frames dropped while recording, in flight at a crash, "
        "or held by the parts of the recording reported above");
  for (i = 0; rec->locations[i]; i++) {
    deleted |= rec->ends[i].files_deleted > 0;
    left |= rec->ends[i].frames_durable < rec->ends[i].frames;
  }
  return g_strdup_printf ("the final state in %s says %" G_GUINT64_FORMAT
      " frames were reported written, %" G_GUINT64_FORMAT " are found: frames "
      "dropped while recording, or frames reported written that were %s%s%s%s",
      rec->final_manifest, written, rec->n_frames, deleted ? "in files the "
      "sink deleted (max-files, min-free-space)" : "", deleted && left ?
      ", " : "", left ? "not yet durable when their location left the "
      "recording (the notes say which)" : "", deleted || left ?
      " or in parts of the recording reported above" : "in parts of the "
      "recording reported above");
}

guint
rtf_check_recording (const RtfRecording * rec, gboolean allow_gaps,
    GPtrArray * faults)
{
  guint before = faults->len, i;

  for (i = 0; i < rec->n_missing_locations; i++)
    g_ptr_array_add (faults, missing_location_text (rec,
            &rec->missing_locations[i]));
  for (i = 0; i < rec->n_short_locations; i++) {
    g_ptr_array_add (faults, short_location_text (rec,
            &rec->short_locations[i]));
  }
  for (i = 0; i < rec->n_missing_files; i++)
    g_ptr_array_add (faults, missing_files_text (rec, &rec->missing_files[i]));
  if (rec->missing && !allow_gaps) {
    gchar *list = rtf_check_gaps_text (rec, 20), *why = gaps_why (rec);

    g_ptr_array_add (faults, g_strdup_printf ("%" G_GUINT64_FORMAT " frame "
            "numbers missing from the sequence: %s (%s; --allow-gaps accepts "
            "that)", rec->missing, list, why));
    g_free (list);
    g_free (why);
  }
  return faults->len - before;
}
