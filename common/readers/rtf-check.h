/* rtframe: checking one recorded file against its index - what
 * rtframe-verify reports, and what rtframe-recover looks at before it
 * cuts a tail (never because of what it finds here: a damaged frame is
 * reported and kept). */
#ifndef __RTF_CHECK_H__
#define __RTF_CHECK_H__

#include "rtf-recording.h"

G_BEGIN_DECLS typedef struct
{
  guint64 good_frames;          /* records whose frames are whole in the
                                 * file, in order (rtf_index_walk()) */
  guint64 good_end;             /* data bytes they cover */
  guint64 checked_sums;         /* checksums compared */
  guint64 bad_sums;             /* of those, mismatches (frames kept) */
  guint64 first_bad;            /* the place among the whole frames of the
                                 * first mismatch (G_MAXUINT64: none) */
  guint64 good_after_bad;       /* frames that match after it */
  guint64 bad_unzeroed;         /* mismatches holding no block of zeros
                                 * (aligned as the writes were): not what a
                                 * write that never landed leaves */
  guint64 missed;               /* of the good frames: written after deadline */
  guint64 gaps;                 /* frame numbers missing between records
                                 * (not before a recording's first frame:
                                 * frames not recorded between events) */
  guint64 recordings;           /* records of a recording's first frame */
  guint64 prerecorded;          /* of the good frames: held before their
                                 * recording started */
  guint64 upstream_gaps;        /* of the good frames: records after frames
                                 * lost upstream (RTF_INDEX_REC_GAP) */
  guint64 missing_upstream;     /* the frames those records say were lost */
  gboolean read_error;          /* a frame could not be read: the check is
                                 * incomplete, and nothing may be cut */
  GPtrArray *faults;            /* text of each fault found, in order */
} RtfCheck;

/* Checks f (identified by rtf_recording_open()): its state, its index
 * (damaged records), its records against the data (rtf_index_walk()),
 * the bytes after the last frame, and with checksums the CRC32C of every
 * frame that has one (from_frame: only records from this one on). */
void rtf_check_file (const RtfRecordingFile * f, gboolean checksums,
    guint64 from_frame, RtfCheck * check);
void rtf_check_clear (RtfCheck * check);

/* The faults of a recording as a whole, which no file's check sees, each
 * a text appended to faults (g_free): a location of a spread not read
 * (with the frames written there when the final state says), a location
 * holding fewer frames than the final state says were written there,
 * files missing in the middle of a set, and unless allow_gaps the frame
 * numbers no file holds (rec->gaps, listed).  What is no part of the
 * recording (rec->note: a file after a set that is not the recording's, a
 * location that holds no frame) is no fault.  Every reader reports these
 * the same way: rtframe-verify and rtframe-recover as faults (exit 1),
 * rtframe-dump on stderr, rtframesrc as warnings.  Returns how many. */
guint rtf_check_recording (const RtfRecording * rec, gboolean allow_gaps,
    GPtrArray * faults);
/* rec's gaps as text, "3, 5-9, 12", at most max ranges ("... and 40 more
 * ranges") */
gchar *rtf_check_gaps_text (const RtfRecording * rec, guint max);

G_END_DECLS
#endif /* __RTF_CHECK_H__ */
