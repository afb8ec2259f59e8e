/* rtframe: the recording an index belongs to, for a player handed the
 * index rather than the recording (rtframeindexdemux: gst-play-1.0
 * /data/cam0.raw.idx).
 *
 * The data file is the index's name less ".idx".  Its header holds the
 * recording's id (shared by every file of the recording and by a spread's
 * manifest), the file's number in its set and the data file's name - not
 * the pattern the set was written with, nor whether the file is one of a
 * set or of a spread.  So the whole recording is played only where one is
 * proven: a spread's manifest beside the file's location that names the
 * same recording id, or a set - the file's name with its number written
 * as a conversion (cam-00004.raw, number 4: cam-%05d.raw) - holding other
 * files of the same recording id.  Otherwise (a file alone, a version 1
 * index that names no recording, or whole FALSE) the file alone. */
#ifndef __RTF_INDEX_RECORDING_H__
#define __RTF_INDEX_RECORDING_H__

#include "rtf-index.h"

G_BEGIN_DECLS

typedef enum
{
  RTF_INDEX_RECORDING_FILE,     /* the data file alone */
  RTF_INDEX_RECORDING_SET,      /* the rotated set it is a file of */
  RTF_INDEX_RECORDING_SPREAD    /* the spread it is part of */
} RtfIndexRecordingKind;

typedef struct
{
  RtfIndexRecordingKind kind;
  gchar *data_path;             /* the index's data file */
  gchar *location;              /* what to play: the data file, the set's
                                 * pattern, the spread's manifest */
  guint64 start_index;          /* a set's: its first file's number */
} RtfIndexRecording;

/* The recording of the index at index_path whose header is h: FALSE with
 * *error when the name does not end in ".idx" or the header names
 * another data file (G_FILE_ERROR_INVAL), or the data file is not there
 * (G_FILE_ERROR_NOENT) */
gboolean rtf_index_recording_find (const gchar * index_path,
    const RtfIndexHeader * h, gboolean whole, RtfIndexRecording * out,
    GError ** error);
void rtf_index_recording_clear (RtfIndexRecording * r);
/* "file", "set", "spread" */
const gchar *rtf_index_recording_kind_name (RtfIndexRecordingKind kind);

G_END_DECLS
#endif /* __RTF_INDEX_RECORDING_H__ */
