/* rtframe: the manifest of a spread recording (see rtf-spread-manifest.h)
 * as a file.  Read like every file a reader finds: rtf_safe_open() (no
 * link, no FIFO - opening one blocks until a writer comes -, regular
 * files only), its size bounded before a byte is read.  Written once at
 * the start, beside each location: a hidden file created with O_EXCL,
 * renamed to its name only when that name holds nothing (and still does:
 * RENAME_NOREPLACE) or a manifest (still the inode looked at); what a file
 * of another kind is, is left as it was. */
#include "rtf-spread-manifest.h"
#include "rtf-pattern.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAD "[rtframe-spread]"

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

gboolean
rtf_spread_manifest_probe (gint fd)
{
  gchar buf[sizeof (HEAD)];
  gssize n = pread (fd, buf, sizeof (HEAD) - 1, 0);

  return n == (gssize) sizeof (HEAD) - 1
      && memcmp (buf, HEAD, sizeof (HEAD) - 1) == 0;
}

gboolean
rtf_spread_manifest_read (const gchar * path, RtfSpreadManifest * m,
    gchar ** why)
{
  struct stat st;
  gchar *text = NULL, *what = NULL;
  gboolean short_read, ok = FALSE;
  gint fd, err;

  memset (m, 0, sizeof (*m));
  fd = rtf_safe_open (path, FALSE, &st, &what);
  if (fd < 0) {
    *why = g_strdup_printf ("%s %s", path, what);
    g_free (what);
    return FALSE;
  }
  if (st.st_size > RTF_SPREAD_MANIFEST_MAX_BYTES) {
    *why = g_strdup_printf ("%s has %" G_GUINT64_FORMAT " bytes: a manifest "
        "is at most %u bytes (64 KiB); not read", path,
        (guint64) st.st_size, RTF_SPREAD_MANIFEST_MAX_BYTES);
    goto out;
  }
  text = g_malloc (st.st_size + 1);
  if ((err = rtf_read_full (fd, 0, text, st.st_size, &short_read)) != 0) {
    *why = g_strdup_printf ("%s cannot be read: %s", path, short_read ?
        "it ended while being read" : g_strerror (err));
    goto out;
  }
  text[st.st_size] = '\0';
  ok = rtf_spread_manifest_parse (text, st.st_size, m, &what);
  if (!ok) {
    *why = g_strdup_printf ("%s is no rtframe spread manifest this build "
        "reads: %s", path, what);
    g_free (what);
  }
out:
  g_free (text);
  close (fd);
  return ok;
}

void
rtf_spread_manifest_clear (RtfSpreadManifest * m)
{
  g_clear_pointer (&m->locations, g_strfreev);
  g_clear_pointer (&m->relative, g_strfreev);
  g_clear_pointer (&m->ends, g_free);
}

static void
add_candidate (GPtrArray * c, const gchar * dir, const gchar * path)
{
  gchar *full = g_path_is_absolute (path) ? g_strdup (path) :
      g_build_filename (dir, path, NULL);
  guint i;

  for (i = 0; i < c->len; i++)
    if (strcmp (g_ptr_array_index (c, i), full) == 0) {
      g_free (full);
      return;
    }
  g_ptr_array_add (c, full);
}

static const gchar *
skip_dot (const gchar * path)
{
  while (g_str_has_prefix (path, "./"))
    path += 2;
  return path;
}

/* The directory a manifest of version 1 was recorded from, as the path it
 * is read by says: it names its locations as they were given (relative to
 * the recorder's working directory), and it lies beside one of them, at
 * rtf_spread_manifest_path (that location); the path less that name is
 * the directory.  NULL when no relative location fits. */
static gchar *
recorded_from (const gchar * manifest, const RtfSpreadManifest * m)
{
  gsize len = strlen (manifest);
  gchar *dir = NULL;
  guint i;

  for (i = 0; m->locations[i] && dir == NULL; i++) {
    gchar *own;
    gsize own_len;

    if (g_path_is_absolute (m->locations[i]))
      continue;
    own = rtf_spread_manifest_path (skip_dot (m->locations[i]));
    own_len = strlen (own);
    if (strcmp (manifest, own) == 0)
      dir = g_strdup (".");
    else if (len > own_len && manifest[len - own_len - 1] == '/'
        && strcmp (manifest + len - own_len, own) == 0)
      dir = len - own_len - 1 == 0 ? g_strdup ("/") :
          g_strndup (manifest, len - own_len - 1);
    g_free (own);
  }
  return dir;
}

gchar **
rtf_spread_manifest_candidates (const gchar * manifest,
    const RtfSpreadManifest * m, guint i)
{
  GPtrArray *c = g_ptr_array_new ();
  gchar *dir = g_path_get_dirname (manifest), *from;

  if (m->relative)
    add_candidate (c, dir, m->relative[i]);
  if (m->version < 2 && !g_path_is_absolute (m->locations[i])
      && (from = recorded_from (manifest, m)) != NULL) {
    add_candidate (c, from, skip_dot (m->locations[i]));
    g_free (from);
  }
  add_candidate (c, dir, m->locations[i]);
  g_ptr_array_add (c, NULL);
  g_free (dir);
  return (gchar **) g_ptr_array_free (c, FALSE);
}

/* Whether other holds the final state of m's recording: the same id and
 * the same locations */
static gboolean
final_of (const RtfSpreadManifest * m, const RtfSpreadManifest * other)
{
  guint i;

  if (other->state != RTF_SPREAD_MANIFEST_FINAL
      || !rtf_recording_id_equal (&m->id, &other->id)
      || g_strv_length (m->locations) != g_strv_length (other->locations))
    return FALSE;
  for (i = 0; m->locations[i]; i++)
    if (strcmp (m->locations[i], other->locations[i]) != 0)
      return FALSE;
  return TRUE;
}

gchar *
rtf_spread_manifest_find_final (const gchar * manifest,
    const RtfSpreadManifest * m, RtfSpreadLocationEnd ** ends)
{
  guint i, c, n = g_strv_length (m->locations);

  *ends = NULL;
  if (m->state == RTF_SPREAD_MANIFEST_FINAL) {
    *ends = g_memdup2 (m->ends, n * sizeof (RtfSpreadLocationEnd));
    return g_strdup (manifest);
  }
  for (i = 0; i < n; i++) {
    gchar **cands = rtf_spread_manifest_candidates (manifest, m, i);

    for (c = 0; cands[c]; c++) {
      gchar *path = rtf_spread_manifest_path (cands[c]), *why = NULL;
      RtfSpreadManifest other;

      if (rtf_spread_manifest_read (path, &other, &why)
          && final_of (m, &other)) {
        *ends = other.ends;
        other.ends = NULL;
        rtf_spread_manifest_clear (&other);
        g_strfreev (cands);
        return path;
      }
      rtf_spread_manifest_clear (&other);
      g_free (why);
      g_free (path);
    }
    g_strfreev (cands);
  }
  return NULL;
}

/* ---- writing ------------------------------------------------------------ */

/* location made absolute against the working directory (its ".." kept:
 * the kernel resolves them as the sink did) */
static gchar *
absolute (const gchar * location)
{
  gchar *cwd, *abs;

  if (g_path_is_absolute (location))
    return g_strdup (location);
  location = skip_dot (location);
  cwd = g_get_current_dir ();
  abs = g_build_filename (cwd, location, NULL);
  g_free (cwd);
  return abs;
}

/* The directory of an absolute path with every link and ".." resolved
 * (it exists: the sink made files there), or as it is */
static gchar *
real_dir (const gchar * path)
{
  gchar *dir = g_path_get_dirname (path);
  gchar *real = realpath (dir, NULL);

  if (real == NULL)
    return dir;
  g_free (dir);
  dir = g_strdup (real);
  free (real);
  return dir;
}

/* to (absolute) relative to the directory from (absolute, resolved) */
static gchar *
relative_path (const gchar * from, const gchar * to)
{
  gchar *to_dir = real_dir (to), *base = g_path_get_basename (to);
  gchar **a = g_strsplit (from + 1, "/", -1), **b;
  GString *rel = g_string_new (NULL);
  guint k = 0, i;

  b = g_strsplit (to_dir + 1, "/", -1);
  while (a[k] && b[k] && strcmp (a[k], b[k]) == 0)
    k++;
  for (i = k; a[i]; i++)
    if (a[i][0])
      g_string_append (rel, "../");
  for (i = k; b[i]; i++)
    if (b[i][0])
      g_string_append_printf (rel, "%s/", b[i]);
  g_string_append (rel, base);
  g_strfreev (a);
  g_strfreev (b);
  g_free (base);
  g_free (to_dir);
  return g_string_free (rel, FALSE);
}

/* What this manifest holds: every location absolute, and relative to the
 * directory of `self` (the location it is written beside) */
static void
manifest_for (const RtfSpreadManifest * m, const gchar * self,
    RtfSpreadManifest * out)
{
  guint i, n = g_strv_length (m->locations);
  gchar *here = real_dir (self);

  out->id = m->id;
  out->start_index = m->start_index;
  out->version = RTF_SPREAD_MANIFEST_VERSION;
  out->state = m->state;
  if (m->state == RTF_SPREAD_MANIFEST_FINAL)
    out->ends = g_memdup2 (m->ends, n * sizeof (RtfSpreadLocationEnd));
  out->locations = g_new0 (gchar *, n + 1);
  out->relative = g_new0 (gchar *, n + 1);
  for (i = 0; i < n; i++) {
    out->locations[i] = absolute (m->locations[i]);
    out->relative[i] = g_path_is_absolute (here) ?
        relative_path (here, out->locations[i]) : g_strdup (out->locations[i]);
  }
  g_free (here);
}

typedef enum
{
  NAME_FREE,                    /* nothing at the name */
  NAME_MANIFEST,                /* a manifest (this build reads it or not) */
  NAME_OTHER                    /* anything else: left as it is */
} NameHolds;

/* What is at the manifest's name, looked at without following a link or
 * opening anything but a regular file (a FIFO there would block) */
static NameHolds
name_holds (const gchar * path, struct stat *st, gchar ** why)
{
  gchar *what = NULL;
  gboolean manifest;
  gint fd;

  if (lstat (path, st) < 0 && errno == ENOENT)
    return NAME_FREE;
  fd = rtf_safe_open (path, FALSE, st, &what);
  if (fd < 0) {
    *why = g_strdup_printf ("%s %s: left as it is", path, what);
    g_free (what);
    return NAME_OTHER;
  }
  manifest = st->st_size <= RTF_SPREAD_MANIFEST_MAX_BYTES
      && rtf_spread_manifest_probe (fd);
  close (fd);
  if (manifest)
    return NAME_MANIFEST;
  *why = g_strdup_printf ("%s holds a file that is not a manifest (it does "
      "not begin with \"" HEAD "\", or is larger than one): left as it is",
      path);
  return NAME_OTHER;
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

/* tmp at path: over the manifest looked at, or where nothing is (never
 * over what came in between) */
static gboolean
move_to_name (const gchar * tmp, const gchar * path, NameHolds holds,
    const struct stat *st, gchar ** why)
{
  gint err = 0;

  if (holds == NAME_MANIFEST && !rtf_same_file (path, st))
    err = EEXIST;
  else if (holds == NAME_MANIFEST)
    err = rename (tmp, path) < 0 ? errno : 0;
  else if (renameat2 (AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0)
    err = errno == EINVAL && rename (tmp, path) == 0 ? 0 : errno;
  if (err == 0)
    return TRUE;
  *why = g_strdup_printf ("%s: %s", path, err == EEXIST ? "something else "
      "was put there meanwhile: left as it is" : g_strerror (err));
  unlink (tmp);
  return FALSE;
}

gboolean
rtf_spread_manifest_write (const gchar * location,
    const RtfSpreadManifest * m, gchar ** why)
{
  RtfSpreadManifest out = { 0 };
  gchar *self = absolute (location), *path, *tmp = NULL, *text, *dir, *base;
  gboolean ok = FALSE;
  struct stat st;
  NameHolds holds;
  gsize len;

  path = rtf_spread_manifest_path (self);
  manifest_for (m, self, &out);
  text = rtf_spread_manifest_to_text (&out, &len);
  if (len > RTF_SPREAD_MANIFEST_MAX_BYTES) {
    *why = g_strdup_printf ("%s: its manifest would have %" G_GSIZE_FORMAT
        " bytes, more than a reader takes (%u): not written", path, len,
        RTF_SPREAD_MANIFEST_MAX_BYTES);
    goto out;
  }
  holds = name_holds (path, &st, why);
  if (holds == NAME_OTHER)
    goto out;
  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp = g_strdup_printf ("%s/.%s.%08x.tmp", dir, base, g_random_int ());
  g_free (base);
  g_free (dir);
  ok = write_hidden (tmp, text, len, why)
      && move_to_name (tmp, path, holds, &st, why);
out:
  rtf_spread_manifest_clear (&out);
  g_free (text);
  g_free (tmp);
  g_free (path);
  g_free (self);
  return ok;
}
