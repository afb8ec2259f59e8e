/* rtframe: what ties the files of a recording together and to the
 * sink that wrote them: a recording id (random, one per recording, in
 * every index header of it) and a mark on each data file (an extended
 * attribute naming that id and the file's number).  A tool cuts or
 * deletes a file only when it can prove it is a file of the recording;
 * the mark is that proof where the filesystem keeps extended attributes.
 * docs/reliability.md says how each tool uses it. */
#ifndef __RTF_FILE_MARK_H__
#define __RTF_FILE_MARK_H__

#include <glib.h>

G_BEGIN_DECLS

#define RTF_RECORDING_ID_SIZE 16
#define RTF_FILE_MARK_XATTR "user.rtframe"

typedef struct
{
  guint8 bytes[RTF_RECORDING_ID_SIZE];
} RtfRecordingId;

/* A new random id (getrandom(2)). */
void rtf_recording_id_new (RtfRecordingId * id);
gboolean rtf_recording_id_equal (const RtfRecordingId * a,
    const RtfRecordingId * b);
gboolean rtf_recording_id_is_zero (const RtfRecordingId * id);
/* 32 hex digits, for messages (caller frees) */
gchar *rtf_recording_id_to_string (const RtfRecordingId * id);

/* Marks the open data file fd as file `number` of recording id: 0, or the
 * errno when the filesystem keeps no extended attributes (ramfs, some
 * FUSE; then the readers fall back to the index alone). */
gint rtf_file_mark_set (gint fd, const RtfRecordingId * id, guint64 number);

/* Reads the mark of fd: TRUE with *id and *number when it has one. */
gboolean rtf_file_mark_get (gint fd, RtfRecordingId * id, guint64 * number);

G_END_DECLS

#endif /* __RTF_FILE_MARK_H__ */
