/* rtframe: a recording read back - one file, or every file of a rotated
 * set in order - through its indexes, as one sequence of frames.  Used by
 * rtframesrc, rtframe-verify and rtframe-recover. */
#ifndef __RTF_RECORDING_H__
#define __RTF_RECORDING_H__

#include "rtf-index.h"

G_BEGIN_DECLS

typedef struct
{
  gchar *path;
  gchar *index_path;
  guint64 number;               /* in the set (0 for a plain file) */
  RtfIndex *index;              /* NULL: no readable index (index_error) */
  gchar *index_error;
  guint64 data_size;            /* bytes of the data file */
  guint64 first_frame;          /* position of its first record in the set */
} RtfRecordingFile;

typedef struct
{
  RtfRecordingFile *files;
  guint n_files;
  guint64 n_frames;             /* records over every file */
} RtfRecording;

/* location: a file, or a pattern (rtf_pattern_check() OK): then every file
 * the pattern names from the lowest number >= start_index on, as long as
 * the numbers follow each other.  With require_index, a file without a
 * valid index header is an error; else it is listed with index NULL. */
RtfRecording *rtf_recording_open (const gchar * location,
    guint64 start_index, gboolean require_index, GError ** error);
void rtf_recording_free (RtfRecording * rec);

/* The record of frame n of the set (0 <= n < n_frames), and its file. */
const RtfIndexRecord *rtf_recording_frame (RtfRecording * rec, guint64 n,
    guint * file);

G_END_DECLS

#endif /* __RTF_RECORDING_H__ */
