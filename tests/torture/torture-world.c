/* The torture test's world (torture-world.h): filesystems, cgroup, filler
 * and foreign files of one round, made from its plan and undone after. */
#include "torture-world.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rtf-pattern.h"
#include "rtf-spread-manifest.h"

#define BLKIO "/sys/fs/cgroup/blkio"
#define FILLER "filler.bin"

/* ---- commands ---------------------------------------------------------- */

gint
torture_sh (const gchar * fmt, ...)
{
  va_list args;
  gchar *cmd, *out = NULL;
  gchar *argv[] = { (gchar *) "/bin/sh", (gchar *) "-c", NULL, NULL };
  gint status = -1;

  va_start (args, fmt);
  cmd = g_strdup_vprintf (fmt, args);
  va_end (args);
  argv[2] = cmd;
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
          NULL, &out, NULL, &status, NULL))
    status = -1;
  else
    status = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
  g_free (out);
  g_free (cmd);
  return status;
}

static gchar *
sh_out (const gchar * cmd)
{
  gchar *argv[] = { (gchar *) "/bin/sh", (gchar *) "-c", (gchar *) cmd, NULL };
  gchar *out = NULL;
  gint status;

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
          NULL, &out, NULL, &status, NULL) || !WIFEXITED (status)
      || WEXITSTATUS (status) != 0) {
    g_free (out);
    return NULL;
  }
  return g_strstrip (out);
}

/* ---- fingerprints ------------------------------------------------------ */

#define HASH_WHOLE (8 * 1048576)

static guint64
fnv (guint64 h, const guint8 * d, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    h = (h ^ d[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return h;
}

/* The content of a regular file: all of it, or of a large one (a filler)
 * its first and last MiB (its size, times and inode catch the rest) */
static guint64
hash_file (const gchar * path, off_t size)
{
  gint fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  guint8 *buf;
  ssize_t n;

  if (fd < 0)
    return 0;
  buf = g_malloc (1048576);
  if (size <= HASH_WHOLE) {
    while ((n = read (fd, buf, 1048576)) > 0)
      h = fnv (h, buf, n);
  } else {
    if ((n = pread (fd, buf, 1048576, 0)) > 0)
      h = fnv (h, buf, n);
    if ((n = pread (fd, buf, 1048576, size - 1048576)) > 0)
      h = fnv (h, buf, n);
  }
  g_free (buf);
  close (fd);
  return h;
}

void
torture_fingerprint_take (TortureFingerprint * fp, const gchar * path)
{
  struct stat sb;

  memset (fp, 0, sizeof (*fp));
  if (lstat (path, &sb) != 0)
    return;
  fp->exists = TRUE;
  fp->mode = sb.st_mode;
  fp->dev = sb.st_dev;
  fp->ino = sb.st_ino;
  fp->size = sb.st_size;
  fp->mtime_ns = sb.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) +
      sb.st_mtim.tv_nsec;
  fp->ctime_ns = sb.st_ctim.tv_sec * G_GINT64_CONSTANT (1000000000) +
      sb.st_ctim.tv_nsec;
  if (S_ISREG (sb.st_mode))
    fp->hash = hash_file (path, sb.st_size);
  else if (S_ISLNK (sb.st_mode))
    fp->target = g_file_read_link (path, NULL);
}

void
torture_fingerprint_clear (TortureFingerprint * fp)
{
  g_free (fp->target);
  fp->target = NULL;
}

gboolean
torture_fingerprint_equal (const TortureFingerprint * a,
    const TortureFingerprint * b, GString * why)
{
  gsize len = why->len;

  if (a->exists != b->exists) {
    g_string_append (why, b->exists ? "appeared" : "is gone");
    return FALSE;
  }
  if (!a->exists)
    return TRUE;
  if ((a->mode & S_IFMT) != (b->mode & S_IFMT))
    g_string_append (why, "type changed; ");
  if (a->mode != b->mode)
    g_string_append_printf (why, "mode %o -> %o; ", a->mode, b->mode);
  if (a->dev != b->dev || a->ino != b->ino)
    g_string_append (why, "another inode; ");
  if (a->size != b->size)
    g_string_append_printf (why, "size %" G_GINT64_FORMAT " -> %"
        G_GINT64_FORMAT "; ", (gint64) a->size, (gint64) b->size);
  if (a->mtime_ns != b->mtime_ns)
    g_string_append (why, "mtime changed; ");
  if (a->ctime_ns != b->ctime_ns)
    g_string_append (why, "ctime changed; ");
  if (a->hash != b->hash)
    g_string_append (why, "content changed; ");
  if (g_strcmp0 (a->target, b->target) != 0)
    g_string_append_printf (why, "link target %s -> %s; ", a->target,
        b->target);
  return why->len == len;
}

/* ---- locations --------------------------------------------------------- */

static gboolean
loop_fs (TortureWorld * w, TortureLoc * l, guint i, const TortureLocPlan * lp)
{
  struct stat sb;

  l->image = g_strdup_printf ("%s/img%u", w->shm_dir, i);
  if (torture_sh ("truncate -s %uM '%s'", lp->fs_mb, l->image) != 0)
    return FALSE;
  {
    gchar *cmd = g_strdup_printf ("losetup -f --show '%s'", l->image);

    l->loopdev = sh_out (cmd);
    g_free (cmd);
  }
  if (l->loopdev == NULL || stat (l->loopdev, &sb) != 0)
    return FALSE;
  l->major = major (sb.st_rdev);
  l->minor = minor (sb.st_rdev);
  if (lp->fs == TORTURE_FS_XFS)
    return torture_sh ("mkfs.xfs -q -f '%s'", l->loopdev) == 0
        && torture_sh ("mount '%s' '%s'", l->loopdev, l->mount) == 0;
  return torture_sh ("mkfs.ext4 -q -F '%s'", l->loopdev) == 0
      && torture_sh ("mount '%s' '%s'", l->loopdev, l->mount) == 0;
}

static gboolean
make_location (TortureWorld * w, guint i, const TortureLocPlan * lp)
{
  TortureLoc *l = &w->loc[i];
  gboolean ok = TRUE;

  switch (lp->fs) {
    case TORTURE_FS_DIR:
      l->dir = g_strdup_printf ("%s/loc%u", w->round_dir, i);
      return g_mkdir (l->dir, 0755) == 0;
    case TORTURE_FS_SHM:
      l->dir = g_strdup_printf ("%s/loc%u", w->shm_dir, i);
      return g_mkdir (l->dir, 0755) == 0;
    default:
      break;
  }
  l->mount = g_strdup_printf ("%s/mnt%u", w->round_dir, i);
  l->dir = g_strdup_printf ("%s/d", l->mount);
  if (g_mkdir (l->mount, 0755) != 0)
    return FALSE;
  if (lp->fs == TORTURE_FS_TMPFS)
    ok = torture_sh ("mount -t tmpfs -o size=%uM tmpfs '%s'", lp->fs_mb,
        l->mount) == 0;
  else if (lp->fs == TORTURE_FS_RAMFS)
    ok = torture_sh ("mount -t ramfs ramfs '%s'", l->mount) == 0;
  else
    ok = loop_fs (w, l, i, lp);
  /* mounted as soon as mount said so: undone by torture_world_free */
  l->mounted = ok || (l->loopdev && torture_sh ("mountpoint -q '%s'",
          l->mount) == 0);
  return ok && g_mkdir (l->dir, 0755) == 0;
}

/* A filler leaving `free` bytes for the recording (statfs's f_bavail);
 * watched as a foreign file unless the round removes its directory (an
 * rmdir fault's rm -rf takes it with it: 5 false finds in a 60-min run) */
static gboolean
fill_location (TortureWorld * w, guint i, guint64 free_left, gboolean watch)
{
  gchar *path = g_strdup_printf ("%s/" FILLER, w->loc[i].dir);
  struct statvfs sv;
  guint64 avail, size;
  gint fd;
  gboolean ok = FALSE;

  if (statvfs (w->loc[i].dir, &sv) != 0)
    goto out;
  avail = (guint64) sv.f_bavail * sv.f_frsize;
  size = avail > free_left + 65536 ? avail - free_left : 0;
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    goto out;
  ok = size == 0 || posix_fallocate (fd, 0, size) == 0;
  close (fd);
  if (ok && watch) {
    TortureForeign *f = g_new0 (TortureForeign, 1);

    f->path = g_strdup (path);
    f->what = g_strdup_printf ("filler of location %u (%" G_GUINT64_FORMAT
        " bytes, %" G_GUINT64_FORMAT " left free)", i, size, free_left);
    g_ptr_array_add (w->foreign, f);
  }
out:
  g_free (path);
  return ok;
}

gchar *
torture_world_location (const TorturePlan * p, const TortureWorld * w,
    guint loc, guint session)
{
  return g_strdup_printf ("%s/%s%s", w->loc[loc].dir, session ? "s2-" : "",
      p->name);
}

gchar *
torture_world_keep_location (const TortureWorld * w)
{
  return g_strdup_printf ("%s/events/event-%%05d", w->loc[0].dir);
}

gboolean
torture_world_in_location (const TorturePlan * p, const TortureWorld * w,
    guint loc, guint session, const gchar * path)
{
  gchar *l = torture_world_location (p, w, loc, session);
  gchar *dir = g_path_get_dirname (l);
  gchar *cdir = g_canonicalize_filename (dir, "/");
  gchar *cpath = g_canonicalize_filename (path, "/");
  gchar *prefix = g_strconcat (cdir, "/", NULL);
  gboolean in = g_str_has_prefix (cpath, prefix)
      && strchr (cpath + strlen (prefix), '/') == NULL;

  g_free (prefix);
  g_free (cpath);
  g_free (cdir);
  g_free (dir);
  g_free (l);
  return in;
}

guint
torture_world_location_of (const TorturePlan * p, const TortureWorld * w,
    guint session, const gchar * path)
{
  guint k;

  for (k = 0; k < p->n_loc; k++)
    if (torture_world_in_location (p, w, k, session, path))
      return k;
  return p->n_loc;
}

gchar *
torture_world_moved_dir (const TortureWorld * w, guint loc)
{
  return g_strconcat (w->loc[loc].dir, ".gone", NULL);
}

/* The stall's throttle lifted: a killed child cannot lift it itself,
 * and its writes in the kernel would keep its files in use */
void
torture_world_lift_throttles (TortureWorld * w)
{
  gchar *path;
  guint i;

  if (w->cgroup == NULL)
    return;
  path = g_build_filename (w->cgroup, "blkio.throttle.write_bps_device", NULL);
  for (i = 0; i < w->n_loc; i++) {
    gchar *line;
    gint fd;

    if (w->loc[i].major == 0)
      continue;
    line = g_strdup_printf ("%u:%u 0\n", w->loc[i].major, w->loc[i].minor);
    fd = open (path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      if (write (fd, line, strlen (line)) < 0) {
        /* (no throttle was set on it) */
      }
      close (fd);
    }
    g_free (line);
  }
  g_free (path);
}

void
torture_world_restore (TortureWorld * w)
{
  guint i;

  torture_world_lift_throttles (w);
  for (i = 0; i < w->n_loc; i++) {
    gchar *moved = torture_world_moved_dir (w, i);

    if (g_file_test (moved, G_FILE_TEST_IS_DIR)
        && !g_file_test (w->loc[i].dir, G_FILE_TEST_EXISTS))
      g_rename (moved, w->loc[i].dir);
    g_free (moved);
  }
}

/* ---- foreign files ----------------------------------------------------- */

static gboolean
write_random (const gchar * path, guint size, guint64 seed)
{
  TortureRng r;
  guint8 *buf = g_malloc (size + 8);
  guint i;
  gint fd;
  gboolean ok;

  torture_rng_init (&r, seed);
  for (i = 0; i < size; i += 8) {
    guint64 v = torture_rng_u64 (&r);

    memcpy (buf + i, &v, 8);
  }
  /* never what a reader could take for an index or a manifest */
  if (size > 0)
    buf[0] = 'U';
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  ok = fd >= 0 && write (fd, buf, size) == (ssize_t) size;
  if (fd >= 0)
    close (fd);
  g_free (buf);
  return ok;
}

static void
add_foreign (TortureWorld * w, const gchar * path, gchar * what,
    gboolean may_replace)
{
  TortureForeign *f = g_new0 (TortureForeign, 1);

  f->path = g_strdup (path);
  f->what = what;
  f->may_replace_if_reached = may_replace;
  g_ptr_array_add (w->foreign, f);
}

/* A user's file elsewhere, for a link to point at */
static gchar *
link_target (TortureWorld * w, guint i, const TortureForeignPlan * fp,
    guint64 seed)
{
  gchar *target = g_strdup_printf ("%s/target%u", w->round_dir, i);

  if (!write_random (target, fp->size, seed)) {
    g_free (target);
    return NULL;
  }
  add_foreign (w, target, g_strdup_printf ("the target of foreign link %u",
          i), FALSE);
  return target;
}

static gboolean
make_foreign (const TorturePlan * p, TortureWorld * w, guint i)
{
  const TortureForeignPlan *fp = &p->foreign[i];
  gchar *loc = torture_world_location (p, w, fp->loc, 0);
  gchar *path = NULL, *target = NULL, *base;
  guint64 seed = p->seed ^ ((i + 1) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  gboolean ok = FALSE, may_replace = FALSE;

  switch (fp->kind) {
    case TORTURE_FOREIGN_BEFORE:
    case TORTURE_FOREIGN_FAR:
    case TORTURE_FOREIGN_NEXT:
      path = rtf_pattern_format (loc, fp->number);
      may_replace = fp->kind == TORTURE_FOREIGN_NEXT;
      ok = write_random (path, fp->size, seed);
      break;
    case TORTURE_FOREIGN_NEXT_FIFO:
      path = rtf_pattern_format (loc, fp->number);
      ok = mkfifo (path, 0644) == 0;
      break;
    case TORTURE_FOREIGN_NEXT_LINK:
    case TORTURE_FOREIGN_LOC_LINK:
      path = fp->kind == TORTURE_FOREIGN_LOC_LINK ? g_strdup (loc) :
          rtf_pattern_format (loc, fp->number);
      may_replace = fp->kind == TORTURE_FOREIGN_NEXT_LINK;
      target = link_target (w, i, fp, seed);
      ok = target && symlink (target, path) == 0;
      break;
    case TORTURE_FOREIGN_INDEX:{
      gchar *data = p->pattern ? rtf_pattern_format (loc, fp->number) :
          g_strdup (loc);

      path = g_strconcat (data, ".idx", NULL);
      g_free (data);
      ok = write_random (path, fp->size, seed);
      break;
    }
    case TORTURE_FOREIGN_MANIFEST:
    case TORTURE_FOREIGN_MANIFEST_FIFO:
      path = rtf_spread_manifest_path (loc);
      ok = fp->kind == TORTURE_FOREIGN_MANIFEST ?
          write_random (path, fp->size, seed) : mkfifo (path, 0644) == 0;
      break;
    case TORTURE_FOREIGN_HIDDEN:{
      gchar *named = fp->number % 2 ? rtf_spread_manifest_path (loc) :
          rtf_pattern_format (loc, fp->number);

      base = g_path_get_basename (named);
      path = g_strdup_printf ("%s/.%s.%08x.%s", w->loc[fp->loc].dir, base,
          (guint) (seed & 0xffffffff), fp->number % 2 ? "tmp" : "rtfprep");
      g_free (base);
      g_free (named);
      ok = write_random (path, fp->size, seed);
      break;
    }
    default:
      break;
  }
  if (ok) {
    base = g_path_get_basename (path);
    add_foreign (w, path, g_strdup_printf ("foreign %u: %s %s", i,
            torture_foreign_name (fp->kind), base), may_replace);
    g_free (base);
  } else if (path && g_file_test (path, G_FILE_TEST_EXISTS)) {
    /* two draws at one name: the first one stays */
    ok = TRUE;
  }
  g_free (target);
  g_free (path);
  g_free (loc);
  return ok;
}

/* ---- the world --------------------------------------------------------- */

static gboolean
write_ini (const TorturePlan * p, TortureWorld * w, GError ** error)
{
  GKeyFile *kf = g_key_file_new ();
  gchar *path = g_build_filename (w->round_dir, "world.ini", NULL);
  gboolean ok;
  guint i;

  g_key_file_set_string (kf, "world", "round-dir", w->round_dir);
  g_key_file_set_string (kf, "world", "shm-dir", w->shm_dir);
  g_key_file_set_string (kf, "world", "cgroup", w->cgroup ? w->cgroup : "");
  g_key_file_set_integer (kf, "world", "locations", w->n_loc);
  for (i = 0; i < w->n_loc; i++) {
    gchar *group = g_strdup_printf ("loc%u", i);

    g_key_file_set_string (kf, group, "dir", w->loc[i].dir);
    g_key_file_set_integer (kf, group, "major", w->loc[i].major);
    g_key_file_set_integer (kf, group, "minor", w->loc[i].minor);
    g_free (group);
  }
  ok = g_key_file_save_to_file (kf, path, error);
  g_key_file_unref (kf);
  g_free (path);
  return ok;
}

TortureWorld *
torture_world_read (const gchar * round_dir)
{
  GKeyFile *kf = g_key_file_new ();
  gchar *path = g_build_filename (round_dir, "world.ini", NULL);
  TortureWorld *w = NULL;
  guint i;

  if (g_key_file_load_from_file (kf, path, 0, NULL)) {
    w = g_new0 (TortureWorld, 1);
    w->round_dir = g_key_file_get_string (kf, "world", "round-dir", NULL);
    w->shm_dir = g_key_file_get_string (kf, "world", "shm-dir", NULL);
    w->cgroup = g_key_file_get_string (kf, "world", "cgroup", NULL);
    if (w->cgroup && !*w->cgroup)
      g_clear_pointer (&w->cgroup, g_free);
    w->n_loc = MIN (g_key_file_get_integer (kf, "world", "locations", NULL),
        TORTURE_MAX_LOC);
    for (i = 0; i < w->n_loc; i++) {
      gchar *group = g_strdup_printf ("loc%u", i);

      w->loc[i].dir = g_key_file_get_string (kf, group, "dir", NULL);
      w->loc[i].major = g_key_file_get_integer (kf, group, "major", NULL);
      w->loc[i].minor = g_key_file_get_integer (kf, group, "minor", NULL);
      g_free (group);
    }
    w->foreign = g_ptr_array_new ();
  }
  g_key_file_unref (kf);
  g_free (path);
  return w;
}

void
torture_world_forget (TortureWorld * w)
{
  guint i;

  if (w == NULL)
    return;
  for (i = 0; i < TORTURE_MAX_LOC; i++)
    g_free (w->loc[i].dir);
  g_ptr_array_unref (w->foreign);
  g_free (w->round_dir);
  g_free (w->shm_dir);
  g_free (w->cgroup);
  g_free (w);
}

static gchar *
round_dir_for (const gchar * base, guint64 seed)
{
  guint n;

  for (n = 0;; n++) {
    gchar *d = n ? g_strdup_printf ("%s/r-%016" G_GINT64_MODIFIER "x-%u",
        base, seed, n) : g_strdup_printf ("%s/r-%016" G_GINT64_MODIFIER "x",
        base, seed);

    if (!g_file_test (d, G_FILE_TEST_EXISTS))
      return d;
    g_free (d);
  }
}

TortureWorld *
torture_world_make (const TorturePlan * p, const gchar * base, GError ** error)
{
  TortureWorld *w = g_new0 (TortureWorld, 1);
  gchar *name;
  guint i;

  w->foreign = g_ptr_array_new ();
  w->round_dir = round_dir_for (base, p->seed);
  name = g_path_get_basename (w->round_dir);
  w->shm_dir = g_strdup_printf ("/dev/shm/rtf-torture-%d/%s", getpid (), name);
  g_free (name);
  w->n_loc = p->n_loc;
  if (g_mkdir_with_parents (w->round_dir, 0755) != 0
      || g_mkdir_with_parents (w->shm_dir, 0755) != 0)
    goto failed;
  for (i = 0; i < p->n_loc; i++)
    if (!make_location (w, i, &p->loc[i]))
      goto failed;
  if (p->stall_loc >= 0) {
    static guint n;

    w->cgroup = g_strdup_printf (BLKIO "/rtf-torture-%d-%u", getpid (), n++);
    if (g_mkdir (w->cgroup, 0755) != 0)
      goto failed;
  }
  for (i = 0; i < p->n_foreign; i++) {
    /* a directory the round removes takes its files with it */
    if (p->rmdir_loc == (gint) p->foreign[i].loc
        && p->rmdir_how == TORTURE_RMDIR_RM)
      continue;
    if (!make_foreign (p, w, i))
      goto failed;
  }
  /* a recording's directory already there, a user's file in it: the
   * sink numbers on from it and leaves it as it is */
  if (p->keep && p->keep_existing >= 0 && !(p->rmdir_loc == 0
          && p->rmdir_how == TORTURE_RMDIR_RM)) {
    gchar *keep = torture_world_keep_location (w);
    gchar *dir = rtf_pattern_format (keep, (guint64) p->keep_existing);
    gchar *path = g_build_filename (dir, "notes.txt", NULL);
    gboolean ok = g_mkdir_with_parents (dir, 0755) == 0
        && write_random (path, 1000, p->seed);

    if (ok)
      add_foreign (w, path, g_strdup_printf ("a user's file in the "
              "recording directory %d already there", p->keep_existing),
          FALSE);
    g_free (path);
    g_free (dir);
    g_free (keep);
    if (!ok)
      goto failed;
  }
  if (p->fill_loc >= 0
      && !fill_location (w, p->fill_loc, p->loc[p->fill_loc].fill_free,
          p->rmdir_loc != p->fill_loc || p->rmdir_how != TORTURE_RMDIR_RM))
    goto failed;
  for (i = 0; i < w->foreign->len; i++) {
    TortureForeign *f = g_ptr_array_index (w->foreign, i);

    torture_fingerprint_take (&f->fp, f->path);
  }
  if (!write_ini (p, w, error))
    goto failed_quietly;
  return w;

failed:
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "could not make "
      "the round's world in %s (%s)", w->round_dir, g_strerror (errno));
failed_quietly:
  torture_world_free (w, FALSE);
  return NULL;
}

/* Copies a location on a filesystem of its own (or in /dev/shm) into the
 * round dir before it goes, the filler left out */
static void
keep_location (TortureWorld * w, guint i)
{
  TortureLoc *l = &w->loc[i];
  gchar *moved = torture_world_moved_dir (w, i);

  if (g_str_has_prefix (l->dir, w->round_dir) && l->mount == NULL) {
    /* already there: only the big files go (listed) */
    torture_sh ("cd '%s' && for f in *; do if [ -f \"$f\" ] && [ ! -L \"$f\" ] "
        "&& [ $(stat -c %%s \"$f\") -gt 16777216 ]; then ls -l \"$f\" >> "
        "NOT-KEPT; rm -f \"$f\"; fi; done", l->dir);
    g_free (moved);
    return;
  }
  /* (files over 16 MiB are listed, not copied: a failing round keeps
   * its indexes and small files, and the disk is not filled by CI runs) */
  torture_sh ("mkdir -p '%s/kept-loc%u' && cd '%s' && for f in .[!.]* *; do "
      "[ -e \"$f\" ] || [ -L \"$f\" ] || continue; [ \"$f\" = " FILLER " ] "
      "&& continue; if [ -f \"$f\" ] && [ $(stat -c %%s \"$f\") -gt 16777216 ]; "
      "then ls -l \"$f\" >> '%s/kept-loc%u/NOT-COPIED'; continue; fi; "
      "cp -a \"$f\" '%s/kept-loc%u/'; done", w->round_dir, i, l->dir,
      w->round_dir, i, w->round_dir, i);
  g_free (moved);
}

static gboolean
umount_retry (const gchar * dir)
{
  guint tries;

  /* a killed process's io_uring ring keeps its files (and so the
   * filesystem) busy until its writes have ended, a few ms */
  for (tries = 0; tries < 250; tries++) {
    if (torture_sh ("umount '%s'", dir) == 0)
      return TRUE;
    g_usleep (20 * 1000);
  }
  return torture_sh ("umount -l '%s'", dir) == 0;
}

void
torture_world_free (TortureWorld * w, gboolean keep)
{
  guint i;

  if (w == NULL)
    return;
  torture_world_restore (w);
  for (i = 0; i < w->n_loc; i++) {
    TortureLoc *l = &w->loc[i];

    if (keep && l->dir)
      keep_location (w, i);
    if (l->mounted || (l->mount && torture_sh ("mountpoint -q '%s'",
                l->mount) == 0))
      umount_retry (l->mount);
    if (l->loopdev)
      torture_sh ("losetup -d '%s'", l->loopdev);
    g_free (l->dir);
    g_free (l->mount);
    g_free (l->image);
    g_free (l->loopdev);
  }
  if (w->cgroup) {
    guint tries;

    /* the child is gone; its cgroup empties when the kernel has reaped it */
    for (tries = 0; tries < 100 && g_rmdir (w->cgroup) != 0
        && errno == EBUSY; tries++)
      g_usleep (20 * 1000);
  }
  if (w->shm_dir)
    torture_sh ("rm -rf --one-file-system '%s'", w->shm_dir);
  if (!keep && w->round_dir)
    torture_sh ("rm -rf --one-file-system '%s'", w->round_dir);
  for (i = 0; w->foreign && i < w->foreign->len; i++) {
    TortureForeign *f = g_ptr_array_index (w->foreign, i);

    torture_fingerprint_clear (&f->fp);
    g_free (f->path);
    g_free (f->what);
    g_free (f);
  }
  if (w->foreign)
    g_ptr_array_unref (w->foreign);
  g_free (w->round_dir);
  g_free (w->shm_dir);
  g_free (w->cgroup);
  g_free (w);
}

guint
torture_world_check_foreign (TortureWorld * w,
    gboolean (*reached) (const gchar * path, gpointer data), gpointer data,
    GString * report)
{
  guint i, changed = 0;

  for (i = 0; i < w->foreign->len; i++) {
    TortureForeign *f = g_ptr_array_index (w->foreign, i);
    TortureFingerprint now;
    GString *why = g_string_new (NULL);

    torture_fingerprint_take (&now, f->path);
    if (!torture_fingerprint_equal (&f->fp, &now, why)
        && !(f->may_replace_if_reached && reached (f->path, data))) {
      g_string_append_printf (report, "foreign file changed: %s (%s): %s\n",
          f->path, f->what, why->str);
      changed++;
    }
    g_string_free (why, TRUE);
    torture_fingerprint_clear (&now);
  }
  return changed;
}

/* ---- leftovers of runs that are gone ----------------------------------- */

/* The pid in "...rtf-torture-<pid>..." if that process is gone, else 0 */
static gint
dead_pid_in (const gchar * s)
{
  const gchar *at = strstr (s, "rtf-torture-");
  gint pid;

  if (at == NULL)
    return 0;
  pid = atoi (at + strlen ("rtf-torture-"));
  if (pid <= 0 || pid == getpid () || kill (pid, 0) == 0 || errno != ESRCH)
    return 0;
  return pid;
}

void
torture_world_sweep (const gchar * base)
{
  gchar *mounts = NULL, *loops, **lines;
  guint i;
  GDir *d;
  const gchar *name;

  if (g_file_get_contents ("/proc/mounts", &mounts, NULL, NULL)) {
    lines = g_strsplit (mounts, "\n", -1);
    for (i = 0; lines[i]; i++) {
      gchar **f = g_strsplit (lines[i], " ", 3);

      if (f[0] && f[1] && dead_pid_in (f[1]))
        torture_sh ("umount -l '%s'", f[1]);
      g_strfreev (f);
    }
    g_strfreev (lines);
    g_free (mounts);
  }
  loops = sh_out ("losetup -nO NAME,BACK-FILE 2>/dev/null");
  if (loops) {
    lines = g_strsplit (loops, "\n", -1);
    for (i = 0; lines[i]; i++) {
      gchar **f = g_strsplit_set (g_strstrip (lines[i]), " ", 2);

      if (f[0] && f[1] && strstr (f[1], "/dev/shm/rtf-torture-")
          && dead_pid_in (f[1]))
        torture_sh ("losetup -d '%s'", f[0]);
      g_strfreev (f);
    }
    g_strfreev (lines);
    g_free (loops);
  }
  if ((d = g_dir_open (BLKIO, 0, NULL))) {
    while ((name = g_dir_read_name (d)))
      if (dead_pid_in (name)) {
        gchar *p = g_build_filename (BLKIO, name, NULL);

        g_rmdir (p);
        g_free (p);
      }
    g_dir_close (d);
  }
  if ((d = g_dir_open ("/dev/shm", 0, NULL))) {
    while ((name = g_dir_read_name (d)))
      if (dead_pid_in (name))
        torture_sh ("rm -rf --one-file-system '/dev/shm/%s'", name);
    g_dir_close (d);
  }
  /* a run's directory stays when it kept a round (--keep, a failure) */
  if (base && (d = g_dir_open (base, 0, NULL))) {
    while ((name = g_dir_read_name (d))) {
      gchar *keep = g_strdup_printf ("%s/%s/.keep", base, name);

      struct stat sb;

      /* kept rounds go after a week */
      if (dead_pid_in (name) && (!g_file_test (keep, G_FILE_TEST_EXISTS)
              || (stat (keep, &sb) == 0 && sb.st_mtime < time (NULL) - 7 *
                  24 * 3600)))
        torture_sh ("rm -rf --one-file-system '%s/%s'", base, name);
      g_free (keep);
    }
    g_dir_close (d);
  }
}

gchar *
torture_file_path (const gchar * loc, guint64 n)
{
  gchar *path = rtf_pattern_format (loc, n);
  RtfPattern p;
  GDir *d;
  const gchar *name;

  if (!rtf_pattern_is_timed (loc) || !rtf_pattern_parse (loc, &p))
    return path;
  d = g_dir_open (p.dir, 0, NULL);
  while (d && (name = g_dir_read_name (d)) != NULL) {
    guint64 found;

    if (rtf_pattern_match (&p, name, &found) && found == n) {
      gchar *slash = strrchr (path, '/');
      gchar *in_dir = slash ? g_strdup_printf ("%.*s/%s",
          (gint) (slash - path), path, name) : g_strdup (name);

      g_free (path);
      path = in_dir;
      break;
    }
  }
  if (d)
    g_dir_close (d);
  rtf_pattern_clear (&p);
  return path;
}
