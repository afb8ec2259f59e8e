/* rtframe: the manifest of a spread recording (see rtf-spread-manifest.h).
 * Written once at the start, beside each location: a hidden file created
 * with O_EXCL, renamed to its name only when that name holds nothing or
 * a manifest (what a file of another kind is, is left as it was). */
#include "rtf-spread-manifest.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define GROUP "rtframe-spread"

gchar *
rtf_spread_manifest_path (const gchar * location)
{
  RtfPattern p;
  gchar *path;

  if (!rtf_pattern_parse (location, &p))
    return g_strconcat (location, RTF_SPREAD_MANIFEST_SUFFIX, NULL);
  path = g_strdup_printf ("%s/%s%s" RTF_SPREAD_MANIFEST_SUFFIX, p.dir,
      p.prefix, p.suffix);
  rtf_pattern_clear (&p);
  return path;
}

gboolean
rtf_spread_manifest_is_path (const gchar * path)
{
  return g_str_has_suffix (path, RTF_SPREAD_MANIFEST_SUFFIX);
}

static gboolean
parse_id (const gchar * hex, RtfRecordingId * id)
{
  guint i;

  if (hex == NULL || strlen (hex) != RTF_RECORDING_ID_SIZE * 2)
    return FALSE;
  for (i = 0; i < RTF_RECORDING_ID_SIZE; i++) {
    gint hi = g_ascii_xdigit_value (hex[2 * i]);
    gint lo = g_ascii_xdigit_value (hex[2 * i + 1]);

    if (hi < 0 || lo < 0)
      return FALSE;
    id->bytes[i] = (guint8) (hi << 4 | lo);
  }
  return TRUE;
}

gboolean
rtf_spread_manifest_read (const gchar * path, RtfSpreadManifest * m,
    gchar ** why)
{
  GKeyFile *kf = g_key_file_new ();
  GError *error = NULL;
  gchar *hex = NULL;

  memset (m, 0, sizeof (*m));
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &error))
    goto failed;
  hex = g_key_file_get_string (kf, GROUP, "recording-id", &error);
  if (hex == NULL)
    goto failed;
  if (!parse_id (hex, &m->id)) {
    *why = g_strdup_printf ("%s: recording-id \"%s\" is not an id", path, hex);
    goto out;
  }
  m->start_index = g_key_file_get_uint64 (kf, GROUP, "start-index", NULL);
  m->locations = g_key_file_get_string_list (kf, GROUP, "locations", NULL,
      &error);
  if (m->locations == NULL)
    goto failed;
  if (m->locations[0] == NULL) {
    *why = g_strdup_printf ("%s names no location", path);
    goto out;
  }
  g_free (hex);
  g_key_file_free (kf);
  return TRUE;

  /* ERRORS */
failed:
  *why = g_strdup_printf ("%s is no rtframe spread manifest: %s", path,
      error->message);
  g_clear_error (&error);
out:
  g_free (hex);
  g_key_file_free (kf);
  rtf_spread_manifest_clear (m);
  return FALSE;
}

void
rtf_spread_manifest_clear (RtfSpreadManifest * m)
{
  g_strfreev (m->locations);
  m->locations = NULL;
}

/* What is at the manifest's name may be replaced: nothing, or a
 * manifest (of this recording or an earlier one) */
static gboolean
replaceable (const gchar * path, gchar ** why)
{
  RtfSpreadManifest old;
  gchar *not_one = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK))
    return TRUE;
  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK)
      && rtf_spread_manifest_read (path, &old, &not_one)) {
    rtf_spread_manifest_clear (&old);
    return TRUE;
  }
  *why = g_strdup_printf ("%s holds a file that is not a manifest (%s): "
      "left as it is", path, not_one ? not_one : "a link");
  g_free (not_one);
  return FALSE;
}

static gchar *
manifest_text (const RtfSpreadManifest * m, gsize * len)
{
  GKeyFile *kf = g_key_file_new ();
  gchar *hex = rtf_recording_id_to_string (&m->id), *text;

  g_key_file_set_string (kf, GROUP, "recording-id", hex);
  g_key_file_set_uint64 (kf, GROUP, "start-index", m->start_index);
  g_key_file_set_string_list (kf, GROUP, "locations",
      (const gchar * const *) m->locations, g_strv_length (m->locations));
  text = g_key_file_to_data (kf, len, NULL);
  g_key_file_free (kf);
  g_free (hex);
  return text;
}

static gboolean
write_hidden (const gchar * tmp, const gchar * text, gsize len, gchar ** why)
{
  gint fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
      0644);
  gboolean ok;

  if (fd < 0) {
    *why = g_strdup_printf ("%s: %s", tmp, g_strerror (errno));
    return FALSE;
  }
  ok = write (fd, text, len) == (gssize) len && fdatasync (fd) == 0;
  if (!ok)
    *why = g_strdup_printf ("%s: %s", tmp, g_strerror (errno));
  close (fd);
  if (!ok)
    unlink (tmp);
  return ok;
}

gboolean
rtf_spread_manifest_write (const gchar * location,
    const RtfSpreadManifest * m, gchar ** why)
{
  gchar *path = rtf_spread_manifest_path (location), *tmp, *text, *dir;
  gchar *base;
  gboolean ok = FALSE;
  gsize len;

  if (!replaceable (path, why)) {
    g_free (path);
    return FALSE;
  }
  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp = g_strdup_printf ("%s/.%s.%08x.tmp", dir, base, g_random_int ());
  text = manifest_text (m, &len);
  if (write_hidden (tmp, text, len, why)) {
    ok = rename (tmp, path) == 0;
    if (!ok) {
      *why = g_strdup_printf ("%s: %s", path, g_strerror (errno));
      unlink (tmp);
    }
  }
  g_free (text);
  g_free (tmp);
  g_free (base);
  g_free (dir);
  g_free (path);
  return ok;
}
