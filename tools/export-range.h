/* rtframe-export: which frames a range asks for - the recording's frame
 * numbers (as rtframe-dump prints them) from --from/--to/--frames, or
 * the frames whose running time falls in --from-time/--to-time - read
 * from the recording's indexes as rtframesrc reads them. */
#ifndef __EXPORT_RANGE_H__
#define __EXPORT_RANGE_H__

#include <glib.h>

#include "rtf-recording.h"

G_BEGIN_DECLS
/* What was asked on the command line */
    typedef struct
{
  gboolean has_from, has_to, has_frames, has_from_time, has_to_time;
  guint64 from, to, frames;
  gdouble from_time, to_time;   /* seconds of running time */
} ExportAsk;

/* The frames to export, in playback order */
typedef struct
{
  guint64 *numbers;
  guint64 n;
  guint64 first, last;          /* the recording's first and last frame */
  guint64 not_recorded;         /* numbers in the range no file holds */
} ExportRange;

/* 0: *range filled; 1: the recording cannot be read; 2: the range is
 * outside the recording, or asks nothing (*why says which, g_free) */
gint export_range_choose (const gchar * location, const gchar * camera,
    const ExportAsk * ask, ExportRange * range, gchar ** why);
/* The recording at location: a file, a set, a spread's manifest, or a
 * take's (".rtftake": the part of camera, NULL for its only one) */
RtfRecording *export_open (const gchar * location, const gchar * camera,
    gboolean require_index, GError ** error);
void export_range_clear (ExportRange * range);

G_END_DECLS
#endif /* __EXPORT_RANGE_H__ */
