/* rtframe: the recording id and the mark on each data file. */
#include "rtf-file-mark.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/xattr.h>

void
rtf_recording_id_new (RtfRecordingId * id)
{
  gsize got = 0;

  while (got < sizeof (id->bytes)) {
    ssize_t n = getrandom (id->bytes + got, sizeof (id->bytes) - got, 0);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += n;
  }
  /* no getrandom (a very old kernel): GLib's generator, seeded from
   * /dev/urandom and the time */
  for (; got < sizeof (id->bytes); got++)
    id->bytes[got] = (guint8) g_random_int ();
}

gboolean
rtf_recording_id_equal (const RtfRecordingId * a, const RtfRecordingId * b)
{
  return memcmp (a->bytes, b->bytes, sizeof (a->bytes)) == 0;
}

gboolean
rtf_recording_id_is_zero (const RtfRecordingId * id)
{
  static const RtfRecordingId zero = { {0} };

  return rtf_recording_id_equal (id, &zero);
}

gchar *
rtf_recording_id_to_string (const RtfRecordingId * id)
{
  gchar *s = g_malloc (RTF_RECORDING_ID_SIZE * 2 + 1);
  guint i;

  for (i = 0; i < RTF_RECORDING_ID_SIZE; i++)
    g_snprintf (s + 2 * i, 3, "%02x", id->bytes[i]);
  return s;
}

gint
rtf_file_mark_set (gint fd, const RtfRecordingId * id, guint64 number)
{
  gchar *hex = rtf_recording_id_to_string (id);
  gchar *value = g_strdup_printf ("id=%s file=%" G_GUINT64_FORMAT, hex,
      number);
  gint ret = 0;

  if (fsetxattr (fd, RTF_FILE_MARK_XATTR, value, strlen (value), 0) < 0)
    ret = errno;
  g_free (value);
  g_free (hex);
  return ret;
}

gboolean
rtf_file_mark_get (gint fd, RtfRecordingId * id, guint64 * number)
{
  gchar value[96], hex[RTF_RECORDING_ID_SIZE * 2 + 1];
  ssize_t n = fgetxattr (fd, RTF_FILE_MARK_XATTR, value, sizeof (value) - 1);
  guint64 num;
  guint i;
  gint end = 0;

  if (n <= 0)
    return FALSE;
  value[n] = '\0';
  if (sscanf (value, "id=%32[0-9a-f] file=%" G_GUINT64_FORMAT "%n", hex, &num,
          &end) != 2 || end != n || strlen (hex) != sizeof (hex) - 1)
    return FALSE;
  for (i = 0; i < RTF_RECORDING_ID_SIZE; i++)
    id->bytes[i] = (guint8) (g_ascii_xdigit_value (hex[2 * i]) << 4 |
        g_ascii_xdigit_value (hex[2 * i + 1]));
  *number = num;
  return TRUE;
}
