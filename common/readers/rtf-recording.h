/* rtframe: a recording read back - one file, or every file of a rotated
 * set in order - through its indexes, as one sequence of frames.  Used by
 * rtframesrc, rtframe-verify and rtframe-recover.  Each file is
 * identified before anything is read from it: a regular file (never a
 * link, a FIFO or a device), not being written, whose index names it. */
#ifndef __RTF_RECORDING_H__
#define __RTF_RECORDING_H__

#include "rtf-recording-file.h"
#include "rtf-spread-manifest.h"

G_BEGIN_DECLS

typedef struct
{
  guint file;
  guint64 record;
} RtfFrameRef;

/* Numbers first..last (frame or file numbers) */
typedef struct
{
  guint64 first, last;
} RtfRange;

/* A location of a spread recording its manifest names, not read: its
 * files are gone (a disk dead or not mounted), or they are not the
 * manifest's recording */
typedef struct
{
  gchar *location;              /* as the manifest names it */
  gchar *why;                   /* what was found where it was looked for */
  guint index;                  /* its place in the manifest's list */
  guint64 frames;               /* written there, as the final manifest
                                 * says; G_MAXUINT64: not known (no final
                                 * state: the recording did not end with
                                 * EOS) */
} RtfMissingLocation;

/* A location of a spread that holds fewer frames than the final manifest
 * says were written there (none of its files deleted by the sink): a file
 * of it removed or cut after the recording */
typedef struct
{
  gchar *location;
  guint64 found, written;
} RtfShortLocation;

/* Files missing in the middle of a set: numbers between two files proven
 * to be the recording's (the first files of a set may be gone for good
 * reasons: max-files, min-free-space; files in the middle never are) */
typedef struct
{
  gchar *location;              /* the pattern */
  RtfRange numbers;             /* the file numbers missing */
} RtfMissingFiles;

typedef struct
{
  RtfRecordingFile *files;
  guint n_files;
  guint64 n_frames;             /* whole frames over every OK file */
  RtfRecordingId id;            /* of its first version 2 index, or zero */
  gchar *note;                  /* a file after the set that belongs to
                                 * another recording, or NULL */
  /* Hidden files of the pattern's names that a crash left: a file of a
   * set prepared while its name held an earlier take's file, and never
   * moved there (".cam-00004.raw.1a2b3c4d.rtfprep"), each identified
   * (state NEVER_WRITTEN or OK; number: the one its name hides) */
  RtfRecordingFile *leftovers;
  guint n_leftovers;
  /* A spread recording, opened through its manifest (a ".rtfspread"
   * file, rtf-spread-manifest.h), or a set whose records are out of order
   * (failed_over below): frame n of the stream is files[order[n].file]'s
   * record order[n].record, in frame-number order; a number found twice
   * (at two locations: failed over after all) is read once and counted in
   * duplicates.  NULL otherwise: the files' records in their order. */
  RtfFrameRef *order;
  gchar **locations;            /* from the manifest (a spread), or NULL */
  gchar *manifest_beside;       /* a file or set opened by its own name
                                 * with a spread's manifest beside it
                                 * (rtf_spread_manifest_path()): it may be
                                 * one location of that spread, whose
                                 * frames alone are not the recording - the
                                 * manifest's path; NULL otherwise */
  guint64 start_index;          /* a spread's: every location's first file
                                 * number (the manifest's start-index) */
  guint64 duplicates;
  RtfMissingLocation *missing_locations;
  guint n_missing_locations;
  RtfMissingFiles *missing_files;
  guint n_missing_files;
  /* A spread's final state, as the sink wrote it at EOS: the manifest it
   * was read from (the one given, or one beside another location) and
   * what each location holds (as locations); NULL when no manifest holds
   * it (the process died before EOS, or it is still recording) - then a
   * location without files is missing whatever it held.  A location
   * without files that the final state says holds no frame is no part
   * missing (a note says so). */
  gchar *final_manifest;
  RtfSpreadLocationEnd *ends;
  RtfShortLocation *short_locations;
  guint n_short_locations;
  /* Frame numbers no file holds between the recording's first and last
   * frame (not counting those before a recording's first frame: frames
   * not recorded between events), in ranges, in order */
  guint64 missing;
  RtfRange *gaps;
  guint n_gaps;
  /* Records of frames failed over (RTF_INDEX_REC_FAILED_OVER: written
   * again at this location after the one placed left), and of those read
   * one location at a time, in the order of its files, the records whose
   * number is below one before them: a frame failed over is appended
   * after the frames its location took meanwhile.  Then order puts every
   * frame in frame-number order, as for a spread. */
  guint64 failed_over;
  guint64 out_of_order;
} RtfRecording;

/* location: a file, or a pattern (rtf_pattern_check() OK): then every file
 * the pattern names from the lowest number >= start_index on, as long as
 * they belong to the same recording: after a gap in the numbers, only a
 * file proven to be the recording's (its index's or its mark's id) goes
 * on with it, the numbers in between listed in missing_files; or a
 * manifest (".rtfspread", rtf_spread_recording_open()).  With
 * require_index, a file that is not OK is an error (what a player needs);
 * else every file is listed with its state (what the tools report). */
/* (rtf-recording-open.c, above both readers) */
RtfRecording *rtf_recording_open (const gchar * location,
    guint64 start_index, gboolean require_index, GError ** error);
void rtf_recording_free (RtfRecording * rec);

/* One camera's part of an event or take (rtf-take-recording.c): the
 * files its manifest (".rtftake") names for that camera (NULL or "": the
 * take's only camera), and of their frames those of the take, in order
 * (order[]); NULL with *error when the manifest cannot be read, names no
 * such camera, or a file cannot be read (require_index: not OK) */
RtfRecording *rtf_take_recording_open (const gchar * manifest,
    const gchar * camera, gboolean require_index, GError ** error);

/* A spread recording from its manifest (rtf-spread-recording.c), as
 * rtf_recording_open(): every location it names that can be read (a
 * location none of whose candidates (rtf_spread_manifest_candidates())
 * holds the manifest's recording is listed in missing_locations, the
 * others read); NULL with *error when the manifest is refused, names the
 * same files twice, or no location can be read.  A location is opened as
 * a file or a set, never as a manifest. */
RtfRecording *rtf_spread_recording_open (const gchar * manifest,
    gboolean require_index, GError ** error);
/* rtf_recording_open() of a file or a set, never a manifest (what a
 * manifest's locations are opened with) */
RtfRecording *rtf_recording_open_files (const gchar * location,
    guint64 start_index, gboolean require_index, GError ** error);
/* ... of the recording `wanted` (a manifest names it): a set is read as
 * that recording's, whatever else its names hold (NULL: chosen as
 * rtf_recording_open_files() chooses) */
RtfRecording *rtf_recording_open_files_of (const gchar * location,
    guint64 start_index, const RtfRecordingId * wanted,
    gboolean require_index, GError ** error);
/* rec->order: the frames of every OK file in frame-number order, a
 * number found twice read once (counted in rec->duplicates); n_frames
 * the frames in that order */
void rtf_recording_order_by_number (RtfRecording * rec);
/* Counts the frame numbers missing from rec (rec->missing, rec->gaps) */
void rtf_recording_find_gaps (RtfRecording * rec);
/* f is a location's first file of a spread: made at start, before the
 * manifests were written and any frame was reported written, so after a
 * crash it is what shows the location was recording and held no frame
 * (rtframe-recover keeps it, emptied, rather than delete it: a location
 * with no file is missing) */
gboolean rtf_recording_is_location_first (const RtfRecording * rec,
    const RtfRecordingFile * f);

/* The first file of rec that is in use (being written), or NULL */
const RtfRecordingFile *rtf_recording_in_use (const RtfRecording * rec);

/* rtf_recording_open() for the tools, which wait up to wait_ms for a file
 * in use to be let go: a process killed a moment ago holds its files
 * until the kernel has ended the writes it had in flight (its io_uring
 * ring is torn down after it).  A recording still written stays in use. */
/* (rtf-recording-open.c) */
RtfRecording *rtf_recording_open_settled (const gchar * location,
    guint64 start_index, guint wait_ms, GError ** error);

/* The record of frame n of the set (0 <= n < n_frames), and its file. */
const RtfIndexRecord *rtf_recording_frame (RtfRecording * rec, guint64 n,
    guint * file);

G_END_DECLS
#endif /* __RTF_RECORDING_H__ */
