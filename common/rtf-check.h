/* rtframe: checking one recorded file against its index - what
 * rtframe-verify reports and rtframe-recover cuts back to */
#ifndef __RTF_CHECK_H__
#define __RTF_CHECK_H__

#include "rtf-recording.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 good_frames;          /* leading records that are whole and right */
  guint64 good_end;             /* data bytes they cover */
  guint64 checked_sums;         /* checksums compared */
  guint64 missed;               /* of the good frames: written after deadline */
  guint64 gaps;                 /* frame numbers missing between records */
  GPtrArray *faults;            /* text of each fault found, in order */
} RtfCheck;

/* Checks f: its index header and records (contiguous offsets from 0,
 * sizes equal to the header's frame size, increasing frame numbers), the
 * data size against the last record, and with checksums the CRC32C of
 * every frame that has one (from_frame: only records from this one on). */
void rtf_check_file (const RtfRecordingFile * f, gboolean checksums,
    guint64 from_frame, RtfCheck * check);
void rtf_check_clear (RtfCheck * check);

G_END_DECLS

#endif /* __RTF_CHECK_H__ */
