/* The torture test's world: the round's directories and filesystems
 * (tmpfs, ramfs, XFS and ext4 on loop devices over /dev/shm), its blkio
 * cgroup, the filler of a location that fills up, and the foreign files
 * the recording must leave as they were, with their fingerprints.
 * Everything made is undone by torture_world_free(), whatever happened. */
#ifndef __TORTURE_WORLD_H__
#define __TORTURE_WORLD_H__

#include <sys/types.h>

#include "torture-draw.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean exists;
  mode_t mode;
  dev_t dev;
  ino_t ino;
  off_t size;
  gint64 mtime_ns, ctime_ns;
  guint64 hash;                 /* content (regular files) */
  gchar *target;                /* symlink */
} TortureFingerprint;

typedef struct
{
  gchar *path;
  gchar *what;                  /* "before cam-00001.raw", ... */
  gboolean may_replace_if_reached;      /* a set name: the sink may put its
                                         * file there once it reaches it */
  TortureFingerprint fp;
} TortureForeign;

typedef struct
{
  gchar *dir;                   /* where the location's files go */
  gchar *mount;                 /* its own filesystem's mount point, or NULL */
  gchar *image, *loopdev;
  guint major, minor;           /* of the loop device (0:0 none) */
  gboolean mounted;
} TortureLoc;

typedef struct
{
  gchar *round_dir;             /* history, world.ini, logs, disk dirs */
  gchar *shm_dir;               /* /dev/shm: images, shm locations */
  gchar *cgroup;                /* blkio cgroup for the child, or NULL */
  guint n_loc;
  TortureLoc loc[TORTURE_MAX_LOC];
  GPtrArray *foreign;           /* TortureForeign */
  gboolean dir_moved;           /* the mvdir fault's directory */
} TortureWorld;

/* Makes the round's world under base (a directory on a disk); NULL with
 * *error when it cannot (then nothing is left behind) */
TortureWorld *torture_world_make (const TorturePlan * p, const gchar * base,
    GError ** error);
/* Undoes everything it made; keep: leave the round dir (and copy what
 * lived on its own filesystems into it) */
void torture_world_free (TortureWorld * w, gboolean keep);

/* The location (file or pattern) of loc in session s (0, 1: after a
 * restart the recording goes on under other names) */
gchar *torture_world_location (const TorturePlan * p, const TortureWorld * w,
    guint loc, guint session);
/* keep-location of a keep round (plan.keep): recordings' directories
 * under location 0's directory, on its filesystem (g_free) */
gchar *torture_world_keep_location (const TortureWorld * w);
/* Whether path is a file in the directory of location loc (session) */
gboolean torture_world_in_location (const TorturePlan * p,
    const TortureWorld * w, guint loc, guint session, const gchar * path);
/* The location whose directory holds path (session); p->n_loc: none */
guint torture_world_location_of (const TorturePlan * p,
    const TortureWorld * w, guint session, const gchar * path);
/* The name the mvdir fault gives the directory */
gchar *torture_world_moved_dir (const TortureWorld * w, guint loc);
/* After the round, before reading it: lifts the stall's throttle (a
 * killed child could not) and puts a moved directory back */
void torture_world_restore (TortureWorld * w);
/* The stalls' blkio throttles lifted (the parent's, after a child that
 * could not lift them) */
void torture_world_lift_throttles (TortureWorld * w);

/* Each foreign file compared with its fingerprint: one line per change in
 * *report.  reached(path) says whether the recording made a file of its own
 * at that name (then a set name may hold it).  Returns the changes. */
guint torture_world_check_foreign (TortureWorld * w,
    gboolean (*reached) (const gchar * path, gpointer data), gpointer data,
    GString * report);

/* For the child: the world the parent made (round_dir/world.ini); NULL
 * when it cannot be read.  torture_world_forget() frees what it read and
 * undoes nothing (the parent does). */
TortureWorld *torture_world_read (const gchar * round_dir);
void torture_world_forget (TortureWorld * w);

void torture_fingerprint_take (TortureFingerprint * fp, const gchar * path);
gboolean torture_fingerprint_equal (const TortureFingerprint * a,
    const TortureFingerprint * b, GString * why);
void torture_fingerprint_clear (TortureFingerprint * fp);

/* Unmounts, detaches and removes what runs of torture that are gone left
 * under base, /dev/shm and the blkio hierarchy (a run killed hard) */
void torture_world_sweep (const gchar * base);

/* Runs a shell command quietly: its exit status (-1: not run) */
gint
torture_sh (const gchar * fmt, ...)
G_GNUC_PRINTF (1, 2);

/* The path of file n of the set loc: as the pattern formats it, or for
 * a pattern with time fields the file of that number in its directory
 * (the zero-time name when there is none) */
gchar *torture_file_path (const gchar * loc, guint64 n);

G_END_DECLS
#endif /* __TORTURE_WORLD_H__ */
