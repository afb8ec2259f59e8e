/* rtframe-record: a run never records over an earlier one (rtr-takes.h) */
#include "rtr-takes.h"
#include "rtf-pattern.h"

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
 * file or an index), FALSE when there is none */
static gboolean
highest_there (const gchar * pattern, guint64 * highest)
{
  RtfPattern p;
  GDir *d;
  const gchar *name;
  gboolean found = FALSE;

  if (!rtf_pattern_parse (pattern, &p))
    return FALSE;
  d = g_dir_open (p.dir, 0, NULL);
  while (d && (name = g_dir_read_name (d)) != NULL) {
    gchar *data = g_str_has_suffix (name, ".idx") ?
        g_strndup (name, strlen (name) - 4) : g_strdup (name);
    guint64 n;

    if (rtf_pattern_match (&p, data, &n) && (!found || n > *highest)) {
      *highest = n;
      found = TRUE;
    }
    g_free (data);
  }
  if (d)
    g_dir_close (d);
  rtf_pattern_clear (&p);
  return found;
}

static void
add_prop (RtrCamera * cam, gchar * prop)
{
  guint n = cam->sink ? g_strv_length (cam->sink) : 0;

  cam->sink = g_renew (gchar *, cam->sink, n + 2);
  cam->sink[n] = prop;
  cam->sink[n + 1] = NULL;
}

static gboolean
keep_earlier (RtrConfig * c, RtrCamera * cam, GError ** error)
{
  gchar *index;
  gboolean there;
  guint64 highest = 0;
  struct stat st;

  if (has_prop (cam, "locations"))
    return TRUE;
  switch (rtf_pattern_check (cam->location, NULL)) {
    case RTF_PATTERN_OK:
      if (has_prop (cam, "start-index")
          || !highest_there (cam->location, &highest))
        return TRUE;
      if (highest >= G_MAXUINT)
        return rtr_config_fail (error, "%s: %s has a file numbered %"
            G_GUINT64_FORMAT ": no number is left after it", cam->name,
            cam->location, highest);
      g_print ("%s: files of %s up to number %" G_GUINT64_FORMAT " are an "
          "earlier recording's: this one starts at %" G_GUINT64_FORMAT
          " (they are kept)\n", cam->name, cam->location, highest, highest + 1);
      add_prop (cam, g_strdup_printf ("start-index=%" G_GUINT64_FORMAT,
              highest + 1));
      return TRUE;
    case RTF_PATTERN_NONE:
      /* (a regular file, or an index beside it: a FIFO or a device is a
       * place to write to, as the sink takes it) */
      index = g_strconcat (cam->location, ".idx", NULL);
      there = (lstat (cam->location, &st) == 0 && S_ISREG (st.st_mode))
          || lstat (index, &st) == 0;
      g_free (index);
      if (there && !c->overwrite)
        return rtr_config_fail (error, "%s: %s is there already (an earlier "
            "recording?): rtframe-record does not record over it - move it "
            "away, give another location (a pattern such as %s-%%05d.raw "
            "goes on after an earlier take's files), or --overwrite",
            cam->name, cam->location, cam->name);
      return TRUE;
    default:                   /* (the sink refuses it, saying why) */
      return TRUE;
  }
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
