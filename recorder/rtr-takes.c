/* rtframe-record: a run never records over an earlier one (rtr-takes.h) */
#include "rtr-takes.h"
#include "rtr-places.h"
#include "rtf-pattern.h"
#include "rtf-spread-manifest.h"

#include <string.h>
#include <sys/stat.h>

/* A "name=value" of the camera's sink properties named `name` */
static gboolean
has_prop (const RtrCamera * cam, const gchar * name)
{
  gsize len = strlen (name);
  guint i;

  for (i = 0; cam->sink && cam->sink[i]; i++)
    if (strncmp (cam->sink[i], name, len) == 0 && cam->sink[i][len] == '=')
      return TRUE;
  return FALSE;
}

/* The highest number of a file of the pattern in its directory (a data
 * file or an index): *found FALSE when there is none; FALSE with *error
 * when the directory cannot be read (then nothing could say which
 * numbers are free - the second adversarial read of issue 25, L3) */
static gboolean
highest_there (const gchar * pattern, guint64 * highest, gboolean * found,
    GError ** error)
{
  RtfPattern p;
  GDir *d;
  const gchar *name;
  GError *err = NULL;

  if (!rtf_pattern_parse (pattern, &p))
    return TRUE;
  d = g_dir_open (p.dir, 0, &err);
  if (d == NULL && !g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
    rtr_config_fail (error, "%s: %s: which files are there cannot be seen, "
        "nor which numbers are free", pattern, err->message);
    g_error_free (err);
    rtf_pattern_clear (&p);
    return FALSE;
  }
  g_clear_error (&err);
  while (d && (name = g_dir_read_name (d)) != NULL) {
    gchar *data = g_str_has_suffix (name, ".idx") ?
        g_strndup (name, strlen (name) - 4) : g_strdup (name);
    guint64 n;

    if (rtf_pattern_match (&p, data, &n) && (!*found || n > *highest)) {
      *highest = n;
      *found = TRUE;
    }
    g_free (data);
  }
  if (d)
    g_dir_close (d);
  rtf_pattern_clear (&p);
  return TRUE;
}

static void
add_prop (RtrCamera * cam, gchar * prop)
{
  guint n = cam->sink ? g_strv_length (cam->sink) : 0;

  cam->sink = g_renew (gchar *, cam->sink, n + 2);
  cam->sink[n] = prop;
  cam->sink[n + 1] = NULL;
}

/* A spread's manifest beside one of places: an earlier recording over
 * several locations, which a new one would replace (its files stay, but
 * could no longer be read as one recording) */
static gboolean
manifest_there (RtrConfig * c, RtrCamera * cam, gchar ** places,
    GError ** error)
{
  guint i;

  for (i = 0; places[i] && places[1]; i++) {
    gchar *manifest = rtf_spread_manifest_path (places[i]);
    struct stat st;
    gboolean there = manifest && lstat (manifest, &st) == 0;

    if (there && !c->overwrite) {
      rtr_config_fail (error, "%s: %s is there already: an earlier "
          "recording over these locations, whose manifest this one would "
          "replace - move it away, or --overwrite", cam->name, manifest);
      g_free (manifest);
      return TRUE;
    }
    g_free (manifest);
  }
  return FALSE;
}

/* A set (every place a pattern): starts after the highest file there */
static gboolean
continue_set (RtrCamera * cam, gchar ** places, GError ** error)
{
  guint64 highest = 0;
  gboolean found = FALSE;
  guint i;

  for (i = 0; places[i]; i++)
    if (!highest_there (places[i], &highest, &found, error))
      return FALSE;
  if (has_prop (cam, "start-index") || !found)
    return TRUE;
  if (highest >= G_MAXUINT)
    return rtr_config_fail (error, "%s: %s has a file numbered %"
        G_GUINT64_FORMAT ": no number is left after it", cam->name,
        cam->location, highest);
  g_print ("%s: files of %s up to number %" G_GUINT64_FORMAT " are an "
      "earlier recording's: this one starts at %" G_GUINT64_FORMAT
      " (they are kept)\n", cam->name, places[1] ? "its locations" :
      cam->location, highest, highest + 1);
  add_prop (cam, g_strdup_printf ("start-index=%" G_GUINT64_FORMAT,
          highest + 1));
  return TRUE;
}

/* One file at each place: refused when one is there (a regular file, its
 * index, or a link) unless overwrite; a FIFO or a device is a place to
 * write to, as the sink takes it */
static gboolean
refuse_file_there (RtrConfig * c, RtrCamera * cam, const gchar * place,
    GError ** error)
{
  gchar *index = g_strconcat (place, ".idx", NULL);
  struct stat st;
  gboolean link = lstat (place, &st) == 0 && S_ISLNK (st.st_mode);
  gboolean there = (lstat (place, &st) == 0 && S_ISREG (st.st_mode))
      || lstat (index, &st) == 0;

  g_free (index);
  /* (the sink refuses a link too, but at start: exit 1, restarted by
   * systemd - the second adversarial read, L2) */
  if (link)
    return rtr_config_fail (error, "%s: %s is a symbolic link: rtframesink "
        "never writes through one; give the file's own path", cam->name, place);
  if (there && !c->overwrite)
    return rtr_config_fail (error, "%s: %s is there already (an earlier "
        "recording?): rtframe-record does not record over it - move it "
        "away, give another location (a pattern such as %s-%%05d.raw goes "
        "on after an earlier take's files), or --overwrite", cam->name,
        place, cam->name);
  return TRUE;
}

static gboolean
keep_earlier (RtrConfig * c, RtrCamera * cam, GError ** error)
{
  gchar **places = rtr_places_of (cam);
  gboolean ok = TRUE;
  guint i;

  if (places[0] == NULL) {
    g_strfreev (places);
    return TRUE;                /* (the sink refuses it, saying why) */
  }
  if (manifest_there (c, cam, places, error)) {
    g_strfreev (places);
    return FALSE;
  }
  switch (rtf_pattern_check (places[0], NULL)) {
    case RTF_PATTERN_OK:
      ok = continue_set (cam, places, error);
      break;
    case RTF_PATTERN_NONE:
      /* (the sink refuses these at start, exit 1, restarted by systemd:
       * bad input is exit 2 - the second adversarial read, M3) */
      if (has_prop (cam, "max-file-size") || has_prop (cam,
              "max-file-duration") || has_prop (cam, "max-files")) {
        ok = rtr_config_fail (error, "%s: max-file-size, max-file-duration "
            "and max-files split a recording into files named by a "
            "pattern: %s has no %%d", cam->name, places[0]);
        break;
      }
      for (i = 0; ok && places[i]; i++)
        ok = refuse_file_there (c, cam, places[i], error);
      break;
    default:                   /* (the sink refuses it, saying why) */
      break;
  }
  g_strfreev (places);
  return ok;
}

gboolean
rtr_takes_keep_earlier (RtrConfig * c, GError ** error)
{
  guint i;

  for (i = 0; i < c->cameras->len; i++)
    if (!keep_earlier (c, g_ptr_array_index (c->cameras, i), error))
      return FALSE;
  return TRUE;
}
