/* rtframe: opening a recording, whatever names it - a file, a set's
 * pattern, or a spread's manifest: the one place that chooses between the
 * set reader (rtf-recording.c) and the spread reader
 * (rtf-spread-recording.c), above both */
#include "rtf-recording.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The path of a manifest found at the name a spread writes beside this
 * location: a regular file (not followed through a link) that begins as
 * one; NULL when there is none.  Not read further: whether it names this
 * location or is an earlier take's, a tool told about it keeps to what is
 * safe for a spread's location (rtframe-recover keeps a location's last
 * file; the adversarial read of 70d174f had it delete a spread location's
 * only file, in flight, when given the location's pattern). */
static gchar *
find_manifest_beside (const gchar * location)
{
  gchar *path = rtf_spread_manifest_path (location);
  gint fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  gboolean one;

  one = fd >= 0 && fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
      && rtf_spread_manifest_probe (fd);
  if (fd >= 0)
    close (fd);
  if (!one)
    g_clear_pointer (&path, g_free);
  return path;
}

RtfRecording *
rtf_recording_open (const gchar * location, guint64 start_index,
    gboolean require_index, GError ** error)
{
  RtfRecording *rec;

  if (rtf_spread_manifest_is_path (location))
    return rtf_spread_recording_open (location, require_index, error);
  rec = rtf_recording_open_files (location, start_index, require_index, error);
  if (rec)
    rec->manifest_beside = find_manifest_beside (location);
  return rec;
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
