/* rtframe: opening a recording, whatever names it - a file, a set's
 * pattern, or a spread's manifest: the one place that chooses between the
 * set reader (rtf-recording.c) and the spread reader
 * (rtf-spread-recording.c), above both */
#include "rtf-recording.h"

RtfRecording *
rtf_recording_open (const gchar * location, guint64 start_index,
    gboolean require_index, GError ** error)
{
  if (rtf_spread_manifest_is_path (location))
    return rtf_spread_recording_open (location, require_index, error);
  return rtf_recording_open_files (location, start_index, require_index, error);
}

RtfRecording *
rtf_recording_open_settled (const gchar * location, guint64 start_index,
    guint wait_ms, GError ** error)
{
  gint64 end = g_get_monotonic_time () + wait_ms * (gint64) 1000;

  for (;;) {
    RtfRecording *rec = rtf_recording_open (location, start_index, FALSE,
        error);

    if (rec == NULL || rtf_recording_in_use (rec) == NULL
        || g_get_monotonic_time () >= end)
      return rec;
    rtf_recording_free (rec);
    g_usleep (20 * 1000);
  }
}
