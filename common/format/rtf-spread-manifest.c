/* rtframe: the manifest of a spread recording (see rtf-spread-manifest.h)
 * as a file.  Read like every file a reader finds: rtf_safe_open() (no
 * link, no FIFO - opening one blocks until a writer comes -, regular
 * files only), its size bounded before a byte is read.  Written at the
 * start (and at EOS), beside each location: a hidden file created with
 * O_EXCL and locked, renamed to its name only when that name holds
 * nothing (and still does: RENAME_NOREPLACE) or a manifest the recording
 * may replace (its own, or an earlier take's of its locations, locked
 * and still the inode looked at); anything else is left as it was. */
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
rtf_spread_manifest_probe (gint fd)
{
  gchar buf[sizeof (HEAD)];
  gssize n = pread (fd, buf, sizeof (HEAD) - 1, 0);

  return n == (gssize) sizeof (HEAD) - 1
      && memcmp (buf, HEAD, sizeof (HEAD) - 1) == 0;
}

/* The manifest open at fd (st: its fstat), named path in *why */
static gboolean
read_fd (gint fd, const struct stat *st, const gchar * path,
    RtfSpreadManifest * m, gchar ** why)
{
  gchar *text, *what = NULL;
  gboolean short_read, ok = FALSE;
  gint err;

  if (st->st_size > RTF_SPREAD_MANIFEST_MAX_BYTES) {
    *why = g_strdup_printf ("%s has %" G_GUINT64_FORMAT " bytes: a manifest "
        "is at most %u bytes (64 KiB); not read", path,
        (guint64) st->st_size, RTF_SPREAD_MANIFEST_MAX_BYTES);
    return FALSE;
  }
  text = g_malloc (st->st_size + 1);
  if ((err = rtf_read_full (fd, 0, text, st->st_size, &short_read)) != 0) {
    *why = g_strdup_printf ("%s cannot be read: %s", path, short_read ?
        "it ended while being read" : g_strerror (err));
    goto out;
  }
  text[st->st_size] = '\0';
  ok = rtf_spread_manifest_parse (text, st->st_size, m, &what);
  if (!ok) {
    *why = g_strdup_printf ("%s is no rtframe spread manifest this build "
        "reads: %s", path, what);
    g_free (what);
  }
out:
  g_free (text);
  return ok;
}

gboolean
rtf_spread_manifest_read (const gchar * path, RtfSpreadManifest * m,
    gchar ** why)
{
  struct stat st;
  gchar *what = NULL;
  gboolean ok;
  gint fd;

  memset (m, 0, sizeof (*m));
  fd = rtf_safe_open (path, FALSE, &st, &what);
  if (fd < 0) {
    *why = g_strdup_printf ("%s %s", path, what);
    g_free (what);
    return FALSE;
  }
  ok = read_fd (fd, &st, path, m, why);
  close (fd);
  return ok;
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
  NAME_MANIFEST                 /* a manifest this recording may replace:
                                 * its own (the lock in *held), or an
                                 * earlier take of its locations (locked
                                 * now, in *held) */
} NameHolds;

/* Whether the recording's lock (held: -1 or a descriptor) is on the inode
 * st describes: its own manifest, which it may rewrite (its lock would
 * make any other open of it look live).  The descriptor keeps the inode,
 * so its number is not reused while held. */
static gboolean
holds_it (gint held, const struct stat *st)
{
  struct stat hs;

  return held >= 0 && fstat (held, &hs) == 0 && hs.st_dev == st->st_dev
      && hs.st_ino == st->st_ino;
}

/* Whether the path still names the inode open at fd: the holder of a
 * live manifest renames its next one into place before it lets the
 * lock of the last go, so a lock taken on a manifest that is no longer
 * at the name proves nothing */
static gboolean
still_named (const gchar * path, gint fd)
{
  struct stat a, b;

  return fstat (fd, &a) == 0 && lstat (path, &b) == 0
      && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static gboolean
in_list (gchar ** list, const gchar * s)
{
  guint i;

  for (i = 0; list[i]; i++)
    if (strcmp (list[i], s) == 0)
      return TRUE;
  return FALSE;
}

/* The same locations, in any order (neither list names one twice: a
 * reader refuses such a manifest, the sink such locations) */
static gboolean
same_set (gchar ** a, gchar ** b)
{
  guint i;

  if (a == NULL || b == NULL || g_strv_length (a) != g_strv_length (b))
    return FALSE;
  for (i = 0; a[i]; i++)
    if (!in_list (b, a[i]))
      return FALSE;
  return TRUE;
}

/* Whether theirs (at the name) is an earlier take of ours: the same
 * locations, absolute, as given (version 1), or relative to the
 * manifest's directory (the set moved as a whole) */
static gboolean
earlier_take (const RtfSpreadManifest * theirs, const RtfSpreadManifest * m,
    const RtfSpreadManifest * ours)
{
  return same_set (theirs->locations, ours->locations)
      || same_set (theirs->locations, m->locations)
      || (theirs->relative && same_set (theirs->relative, ours->relative));
}

/* The manifest open (and locked) at fd: ours to replace, or another
 * recording's (FOREIGN, *why) */
static RtfSpreadManifestClaim
judge (gint fd, const struct stat *st, const gchar * path,
    const RtfSpreadManifest * m, const RtfSpreadManifest * ours, gchar ** why)
{
  RtfSpreadManifest theirs = { {{0}}, 0 };
  gchar *what = NULL, *list;
  gboolean take;

  if (!read_fd (fd, st, path, &theirs, &what)) {
    /* a manifest (its head says so) of some other build, or damaged:
     * nothing proves it is this recording's */
    *why = g_strdup_printf ("%s, maybe another recording's", what);
    g_free (what);
    return RTF_SPREAD_MANIFEST_FOREIGN;
  }
  take = earlier_take (&theirs, m, ours);
  if (!take) {
    list = g_strjoinv (";", theirs.locations);
    *why = g_strdup_printf ("\"%s\" is the manifest of another recording "
        "(locations %s)", path, list);
    g_free (list);
  }
  rtf_spread_manifest_clear (&theirs);
  return take ? RTF_SPREAD_MANIFEST_OURS : RTF_SPREAD_MANIFEST_FOREIGN;
}

/* A manifest found at the name (not the recording's own): opened without
 * following a link or opening anything but a regular file (a FIFO would
 * block), locked - a running recording holds the lock on the manifests
 * it wrote (LIVE) -, looked at.  OURS: *fd is open and locked;
 * CLAIM_AGAIN (private): it was renamed away meanwhile. */
#define CLAIM_AGAIN ((RtfSpreadManifestClaim) (RTF_SPREAD_MANIFEST_FAILED + 1))
static RtfSpreadManifestClaim
try_claim (const gchar * path, const RtfSpreadManifest * m,
    const RtfSpreadManifest * ours, struct stat *st, gint * fd, gchar ** why)
{
  RtfSpreadManifestClaim claim;
  gchar *what = NULL;
  gint err;

  *fd = rtf_safe_open (path, FALSE, st, &what);
  if (*fd < 0) {
    *why = g_strdup_printf ("%s %s: left as it is", path, what);
    g_free (what);
    return RTF_SPREAD_MANIFEST_NOT_ONE;
  }
  if (st->st_size > RTF_SPREAD_MANIFEST_MAX_BYTES
      || !rtf_spread_manifest_probe (*fd)) {
    *why = g_strdup_printf ("%s holds a file that is not a manifest (it does "
        "not begin with \"" HEAD "\", or is larger than one): left as it is",
        path);
    claim = RTF_SPREAD_MANIFEST_NOT_ONE;
  } else if ((err = rtf_lock (*fd, TRUE)) == EWOULDBLOCK) {
    *why = g_strdup_printf ("the manifest \"%s\" belongs to a recording "
        "that is running", path);
    claim = RTF_SPREAD_MANIFEST_LIVE;
  } else if (err != 0) {
    *why = g_strdup_printf ("the manifest \"%s\" cannot be locked (%s), so "
        "whether its recording is running is not known: left as it is",
        path, g_strerror (err));
    claim = RTF_SPREAD_MANIFEST_NOT_ONE;
  } else if (!still_named (path, *fd)) {
    claim = CLAIM_AGAIN;
  } else {
    claim = judge (*fd, st, path, m, ours, why);
  }
  if (claim != RTF_SPREAD_MANIFEST_OURS) {
    close (*fd);
    *fd = -1;
  }
  return claim;
}

/* What is at the manifest's name, and whether this recording may write
 * there: OURS with *holds (and, for a manifest, its lock in *held and its
 * lstat in *st), else what is there, left as it is (*why) */
static RtfSpreadManifestClaim
claim_name (const gchar * path, const RtfSpreadManifest * m,
    const RtfSpreadManifest * ours, gint * held, NameHolds * holds,
    struct stat *st, gchar ** why)
{
  RtfSpreadManifestClaim claim = CLAIM_AGAIN;
  guint tries;
  gint fd;

  /* a live holder renames its next manifest in now and then (at EOS):
   * a few looks find the name still */
  for (tries = 0; tries < 8 && claim == CLAIM_AGAIN; tries++) {
    *holds = NAME_FREE;
    if (lstat (path, st) < 0 && errno == ENOENT)
      return RTF_SPREAD_MANIFEST_OURS;
    *holds = NAME_MANIFEST;
    if (holds_it (*held, st))
      return RTF_SPREAD_MANIFEST_OURS;
    claim = try_claim (path, m, ours, st, &fd, why);
  }
  if (claim == CLAIM_AGAIN) {
    *why = g_strdup_printf ("%s: a new manifest came there each time it "
        "was looked at: left as it is", path);
    return RTF_SPREAD_MANIFEST_NOT_ONE;
  }
  if (claim == RTF_SPREAD_MANIFEST_OURS) {
    /* an earlier take of its locations: this recording's lock now */
    if (*held >= 0)
      close (*held);
    *held = fd;
  }
  return claim;
}

/* The new manifest in a hidden file, locked before a byte is in it (a
 * recording starting meanwhile finds it live once it has the name):
 * its descriptor, or -1 */
/* The manifest's next version under the hidden name tmp in the directory
 * dfd holds (written, synced, locked): its descriptor, or -1 with *why
 * (what was made is gone again) */
static gint
write_hidden (gint dfd, const gchar * tmp, const gchar * text, gsize len,
    gchar ** why)
{
  gint fd = openat (dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
      O_CLOEXEC, 0644);
  gint err = 0;

  if (fd < 0) {
    *why = g_strdup_printf ("%s: %s", tmp, g_strerror (errno));
    return -1;
  }
  if ((err = rtf_lock (fd, TRUE)) == 0) {
    errno = 0;
    if (write (fd, text, len) != (gssize) len || fdatasync (fd) != 0)
      err = errno ? errno : EIO;
  }
  if (err == 0)
    return fd;
  *why = g_strdup_printf ("%s: %s", tmp, g_strerror (err));
  close (fd);
  unlinkat (dfd, tmp, 0);
  return -1;
}

/* tmp at name (both in the directory dfd holds): over the manifest looked
 * at, or where nothing is (never over what came in between) */
static gboolean
move_to_name (gint dfd, const gchar * tmp, const gchar * path,
    NameHolds holds, const struct stat *st, gchar ** why)
{
  gchar *name = g_path_get_basename (path);
  struct stat now;
  gint err = 0;

  if (holds == NAME_MANIFEST && (fstatat (dfd, name, &now,
              AT_SYMLINK_NOFOLLOW) != 0 || !rtf_same_inode (&now, st)))
    err = EEXIST;
  else if (holds == NAME_MANIFEST)
    err = renameat (dfd, tmp, dfd, name) < 0 ? errno : 0;
  else if (renameat2 (dfd, tmp, dfd, name, RENAME_NOREPLACE) < 0)
    err = errno == EINVAL && renameat (dfd, tmp, dfd, name) == 0 ? 0 : errno;
  g_free (name);
  if (err == 0)
    return TRUE;
  *why = g_strdup_printf ("%s: %s", path, err == EEXIST ? "something else "
      "was put there meanwhile: left as it is" : g_strerror (err));
  unlinkat (dfd, tmp, 0);
  return FALSE;
}

/* A hidden name (a base name) for path's next version */
static gchar *
hidden_name (const gchar * path)
{
  gchar *base = g_path_get_basename (path);
  gchar *tmp = g_strdup_printf (".%s.%08x.tmp", base, g_random_int ());

  g_free (base);
  return tmp;
}

RtfSpreadManifestClaim
rtf_spread_manifest_claim (const gchar * location,
    const RtfSpreadManifest * m, gint * held, gchar ** why)
{
  RtfSpreadManifest ours = { {{0}}, 0 };
  gchar *self = absolute (location), *path;
  RtfSpreadManifestClaim claim;
  NameHolds holds;
  struct stat st;

  path = rtf_spread_manifest_path (self);
  manifest_for (m, self, &ours);
  claim = claim_name (path, m, &ours, held, &holds, &st, why);
  rtf_spread_manifest_clear (&ours);
  g_free (path);
  g_free (self);
  return claim;
}

RtfSpreadManifestClaim
rtf_spread_manifest_write_held (const gchar * location,
    const RtfSpreadManifest * m, gint * held, gchar ** why)
{
  RtfSpreadManifest out = { 0 };
  gchar *self = absolute (location), *path, *tmp = NULL, *text, *dir;
  RtfSpreadManifestClaim claim = RTF_SPREAD_MANIFEST_NOT_ONE;
  struct stat st;
  NameHolds holds;
  gsize len;
  gint fd, dfd = -1;

  path = rtf_spread_manifest_path (self);
  manifest_for (m, self, &out);
  text = rtf_spread_manifest_to_text (&out, &len);
  if (len > RTF_SPREAD_MANIFEST_MAX_BYTES) {
    *why = g_strdup_printf ("%s: its manifest would have %" G_GSIZE_FORMAT
        " bytes, more than a reader takes (%u): not written", path, len,
        RTF_SPREAD_MANIFEST_MAX_BYTES);
    goto out;
  }
  claim = claim_name (path, m, &out, held, &holds, &st, why);
  if (claim != RTF_SPREAD_MANIFEST_OURS)
    goto out;
  /* made, moved and (failing) deleted in the one directory, held: a
   * directory moved away meanwhile takes the hidden file with it, and
   * its path no longer reaches it (torture 0xf8e3070e0104877d: left in
   * the moved directory when the move to the name was refused) */
  dir = g_path_get_dirname (path);
  dfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  g_free (dir);
  if (dfd < 0) {
    *why = g_strdup_printf ("%s: %s", path, g_strerror (errno));
    claim = RTF_SPREAD_MANIFEST_FAILED;
    goto out;
  }
  tmp = hidden_name (path);
  fd = write_hidden (dfd, tmp, text, len, why);
  if (fd < 0 || !move_to_name (dfd, tmp, path, holds, &st, why)) {
    if (fd >= 0)
      close (fd);
    claim = RTF_SPREAD_MANIFEST_FAILED;
    goto out;
  }
  /* the new one is at the name, locked: the last one's lock may go */
  if (*held >= 0)
    close (*held);
  *held = fd;
out:
  if (dfd >= 0)
    close (dfd);
  rtf_spread_manifest_clear (&out);
  g_free (text);
  g_free (tmp);
  g_free (path);
  g_free (self);
  return claim;
}

gboolean
rtf_spread_manifest_write (const gchar * location,
    const RtfSpreadManifest * m, gchar ** why)
{
  gint held = -1;
  gboolean ok = rtf_spread_manifest_write_held (location, m, &held, why)
      == RTF_SPREAD_MANIFEST_OURS;

  if (held >= 0)
    close (held);
  return ok;
}
