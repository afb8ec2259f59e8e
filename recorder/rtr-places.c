/* rtframe-record: where each camera records (rtr-places.h) */
#include "rtr-places.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* The value of the camera's sink property `name`, or NULL */
static const gchar *
prop_value (const RtrCamera * cam, const gchar * name)
{
  gsize len = strlen (name);
  guint i;

  for (i = 0; cam->sink && cam->sink[i]; i++)
    if (strncmp (cam->sink[i], name, len) == 0 && cam->sink[i][len] == '=')
      return cam->sink[i] + len + 1;
  return NULL;
}

/* The quoted strings of a GStreamer array, <"/a/c-%05d.raw","/b/...">
 * (\" and \\ escaped inside) */
static gchar **
array_strings (const gchar * text)
{
  GPtrArray *out = g_ptr_array_new ();
  const gchar *p = text;

  while ((p = strchr (p, '"')) != NULL) {
    GString *one = g_string_new (NULL);

    for (p++; *p && *p != '"'; p++) {
      if (*p == '\\' && p[1])
        p++;
      g_string_append_c (one, *p);
    }
    g_ptr_array_add (out, g_string_free (one, FALSE));
    if (*p == '"')
      p++;
  }
  g_ptr_array_add (out, NULL);
  return (gchar **) g_ptr_array_free (out, FALSE);
}

/* The places the camera records to: its location, or each of locations */
gchar **
rtr_places_of (const RtrCamera * cam)
{
  const gchar *locations = prop_value (cam, "locations");
  gchar *one[] = { cam->location, NULL };

  return locations ? array_strings (locations) : g_strdupv (one);
}

/* The directory a place's files go to, as the sink will name it ("%%"
 * is "%"); NULL when the pattern's fields name it (made by none before
 * the sink opens a file there, which says so) */
static gchar *
dir_of (const gchar * place)
{
  gchar *dir = g_path_get_dirname (place);
  GString *plain = g_string_new (NULL);
  const gchar *p;

  for (p = dir; *p; p++) {
    if (*p == '%' && p[1] != '%') {
      g_string_free (plain, TRUE);
      g_free (dir);
      return NULL;
    }
    g_string_append_c (plain, *p);
    p += *p == '%';
  }
  g_free (dir);
  return g_string_free (plain, FALSE);
}

gboolean
rtr_places_writable (const RtrCamera * cam, gchar ** why)
{
  gchar **places = rtr_places_of (cam);
  gboolean ok = TRUE;
  guint i;

  for (i = 0; ok && places[i]; i++) {
    gchar *dir = dir_of (places[i]);
    struct stat st;
    const gchar *what = NULL;
    gint err = 0;

    if (dir == NULL)
      continue;
    if (stat (dir, &st) != 0)
      err = errno, what = "is not there";
    else if (!S_ISDIR (st.st_mode))
      what = "is no directory";
    else if (access (dir, W_OK | X_OK) != 0)
      err = errno, what = "cannot be written by this user";
    if (what) {
      *why = g_strdup_printf ("camera %s: %s, the directory of %s, %s%s%s%s",
          cam->name, dir, places[i], what, err ? " (" : "",
          err ? g_strerror (err) : "", err ? ")" : "");
      ok = FALSE;
    }
    g_free (dir);
  }
  g_strfreev (places);
  return ok;
}

gboolean
rtr_places_is_mount_point (const gchar * path)
{
  gchar *up = g_build_filename (path, "..", NULL);
  struct stat st, parent;
  gboolean is = stat (path, &st) == 0 && stat (up, &parent) == 0
      && (st.st_dev != parent.st_dev || st.st_ino == parent.st_ino);

  g_free (up);
  return is;
}

/* A directory is on one of the filesystems mounted at mounts */
static gboolean
on_mount (const struct stat *st, gchar ** mounts)
{
  struct stat m;
  guint k;

  for (k = 0; mounts[k]; k++)
    if (stat (mounts[k], &m) == 0 && m.st_dev == st->st_dev)
      return TRUE;
  return FALSE;
}

gboolean
rtr_places_mounted (const RtrCamera * cam, gchar ** mounts, gchar ** why)
{
  gchar **places = rtr_places_of (cam);
  struct stat root, st;
  gboolean ok = TRUE;
  guint i;

  if (stat ("/", &root) != 0)
    root.st_dev = 0;
  for (i = 0; ok && places[i]; i++) {
    gchar *dir = dir_of (places[i]);

    /* (one not there is rtr_places_writable()'s to tell; one the pattern
     * names, the sink's) */
    if (dir == NULL || stat (dir, &st) != 0) {
      g_free (dir);
      continue;
    }
    if (mounts && !on_mount (&st, mounts)) {
      gchar *which = g_strjoinv (", ", mounts);

      *why = g_strdup_printf ("camera %s: %s, the directory of %s, is on "
          "none of the filesystems require-mount names (%s): is its disk "
          "mounted? (findmnt --target %s)", cam->name, dir, places[i],
          which, dir);
      g_free (which);
      ok = FALSE;
    } else if (mounts == NULL && st.st_dev == root.st_dev) {
      *why = g_strdup_printf ("camera %s: %s, the directory of %s, is on "
          "the root filesystem, and require-mount asks for a disk mounted "
          "there: is it mounted? (findmnt --target %s)", cam->name, dir,
          places[i], dir);
      ok = FALSE;
    }
    g_free (dir);
  }
  g_strfreev (places);
  return ok;
}

/* The directory of path as a file: same when both are the same inode
 * (a link to a directory, "./x", "x/../x"); by text where one is not
 * there yet */
static gboolean
same_dir (const gchar * a, const gchar * b)
{
  gchar *da = g_path_get_dirname (a), *db = g_path_get_dirname (b);
  struct stat sa, sb;
  gboolean same;

  if (stat (da, &sa) == 0 && stat (db, &sb) == 0) {
    same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  } else {
    gchar *ca = g_canonicalize_filename (da, NULL);
    gchar *cb = g_canonicalize_filename (db, NULL);

    same = g_str_equal (ca, cb);
    g_free (ca);
    g_free (cb);
  }
  g_free (da);
  g_free (db);
  return same;
}

/* s begins with (ends with: at_end) t, and what is left is digits */
static gboolean
digits_beyond (const gchar * s, const gchar * t, gboolean at_end)
{
  gsize ls = strlen (s), lt = strlen (t), i;
  const gchar *rest;

  if (lt > ls || (at_end ? strcmp (s + ls - lt, t) : strncmp (s, t, lt)))
    return FALSE;
  rest = at_end ? s : s + lt;
  for (i = 0; i < ls - lt; i++)
    if (!g_ascii_isdigit (rest[i]))
      return FALSE;
  return TRUE;
}

/* Whether patterns (or names) a and b, in one directory, can name the
 * same file: a name of one matched by the other.  For two patterns:
 * the prefixes and the suffixes each differ by digits at most (x%d.raw
 * and x1%d.raw both make x11.raw; x-%d.raw and x-%1d.raw are one). */
static gboolean
names_meet (const gchar * a, const gchar * b)
{
  RtfPattern pa, pb;
  gboolean meet;
  guint64 n;
  gchar *base;

  if (!rtf_pattern_parse (a, &pa)) {
    if (!rtf_pattern_parse (b, &pb)) {
      gchar *ba = g_path_get_basename (a), *bb = g_path_get_basename (b);

      meet = g_str_equal (ba, bb);
      g_free (ba);
      g_free (bb);
      return meet;
    }
    base = g_path_get_basename (a);
    meet = rtf_pattern_match (&pb, base, &n);
    g_free (base);
    rtf_pattern_clear (&pb);
    return meet;
  }
  if (!rtf_pattern_parse (b, &pb)) {
    base = g_path_get_basename (b);
    meet = rtf_pattern_match (&pa, base, &n);
    g_free (base);
    rtf_pattern_clear (&pa);
    return meet;
  }
  meet = (digits_beyond (pa.prefix, pb.prefix, FALSE)
      || digits_beyond (pb.prefix, pa.prefix, FALSE))
      && (digits_beyond (pa.suffix, pb.suffix, TRUE)
      || digits_beyond (pb.suffix, pa.suffix, TRUE));
  rtf_pattern_clear (&pa);
  rtf_pattern_clear (&pb);
  return meet;
}

gboolean
rtr_places_apart (const RtrCamera * a, const RtrCamera * b, gchar ** why)
{
  gchar **pa = rtr_places_of (a), **pb = rtr_places_of (b);
  guint i, j;
  gboolean apart = TRUE;

  for (i = 0; apart && pa[i]; i++)
    for (j = 0; apart && pb[j]; j++)
      if (same_dir (pa[i], pb[j]) && names_meet (pa[i], pb[j])) {
        *why = g_strdup_printf ("cameras %s and %s record to the same "
            "location, or to names that can meet (%s, %s): one would "
            "replace the other's files", b->name, a->name, pb[j], pa[i]);
        apart = FALSE;
      }
  g_strfreev (pa);
  g_strfreev (pb);
  return apart;
}
