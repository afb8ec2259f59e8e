/* The torture test's generator: a seed (64-bit) becomes a RoundPlan - every
 * property of the recording, the stream, the storage, the faults and the
 * foreign files of one round - by a PRNG of its own (xoshiro256**, seeded
 * by splitmix64), so the same seed gives the same plan on any run, in the
 * parent and in the recording child alike. */
#ifndef __TORTURE_DRAW_H__
#define __TORTURE_DRAW_H__

#include <glib.h>

G_BEGIN_DECLS

/* ---- the PRNG ---------------------------------------------------------- */
typedef struct
{
  guint64 s[4];
} TortureRng;

void torture_rng_init (TortureRng * r, guint64 seed);
guint64 torture_rng_u64 (TortureRng * r);
/* lo..hi, both included */
guint64 torture_rng_range (TortureRng * r, guint64 lo, guint64 hi);
/* TRUE with probability percent/100 */
gboolean torture_rng_chance (TortureRng * r, guint percent);
/* log-uniform in lo..hi (lo >= 1) */
guint64 torture_rng_log (TortureRng * r, guint64 lo, guint64 hi);

/* ---- what the machine allows ------------------------------------------ */

typedef enum
{
  TORTURE_CAN_MOUNT = 1 << 0,   /* root: tmpfs, loop devices, XFS, ext4 */
  TORTURE_CAN_BLKIO = 1 << 1,   /* cgroup v1 blkio at /sys/fs/cgroup/blkio */
} TortureAbility;

/* ---- the plan ---------------------------------------------------------- */

typedef enum
{
  TORTURE_FS_DIR,               /* a directory on the disk of the round dir */
  TORTURE_FS_SHM,               /* a directory in /dev/shm (big tmpfs) */
  TORTURE_FS_TMPFS,             /* a tmpfs of its own, size= */
  TORTURE_FS_XFS,               /* XFS on a loop device over /dev/shm */
  TORTURE_FS_EXT4,              /* ext4 on a loop device over /dev/shm */
  TORTURE_FS_RAMFS,             /* ramfs: no O_DIRECT, no xattrs, no statfs */
  TORTURE_N_FS
} TortureFs;

typedef struct
{
  TortureFs fs;
  guint fs_mb;                  /* size of a filesystem of its own */
  guint64 fill_free;            /* fill: a filler leaves this many bytes free
                                 * (0: no filler) */
} TortureLocPlan;

typedef enum
{
  TORTURE_ACT_START_NOW,        /* start-recording (NONE) */
  TORTURE_ACT_STOP_NOW,         /* stop-recording (NONE) */
  TORTURE_ACT_START_AT,         /* start-recording (now + delta) */
  TORTURE_ACT_STOP_AT,          /* stop-recording (now + delta) */
  TORTURE_ACT_RECORD_TRUE,      /* the record property */
  TORTURE_ACT_RECORD_FALSE,
  TORTURE_ACT_EVENT_START,      /* rtframe-record event, upstream to the
                                 * pipeline */
  TORTURE_ACT_EVENT_STOP,
  TORTURE_ACT_START_PAST,       /* start-recording (now - delta): a time the
                                 * frames may have passed */
  TORTURE_ACT_STOP_PAST,        /* stop-recording (now - delta) */
  TORTURE_ACT_EXTEND,           /* request-recording: the recording on now
                                 * extended to now + delta */
  TORTURE_ACT_START_CHECKED,    /* request-recording at now + delta with an
                                 * id: asked with check first, then made
                                 * (the two answers must agree) */
  TORTURE_N_ACT
} TortureActKind;

typedef struct
{
  TortureActKind kind;
  guint at_ms;                  /* after the first frame was pushed */
  guint64 delta_ns;             /* _AT: how far ahead of now */
} TortureAction;

/* Something that happens in the stream, by the pushing thread, before
 * frame at_frame is pushed */
typedef enum
{
  TORTURE_MID_NONE,
  TORTURE_MID_EOS_CONTINUE,     /* EOS, wait for it, a flushing seek, go on */
  TORTURE_MID_FLUSH,            /* a flushing seek */
  TORTURE_MID_PAUSE,            /* PLAYING -> PAUSED -> PLAYING */
  TORTURE_MID_RESTART,          /* -> NULL, new location names, -> PLAYING */
  TORTURE_N_MID
} TortureMid;

typedef enum
{
  TORTURE_END_EOS,              /* EOS, wait for it, then NULL */
  TORTURE_END_NULL,             /* NULL without EOS */
} TortureEnd;

typedef enum
{
  TORTURE_RMDIR_RM,             /* rm -rf: the location's files are gone */
  TORTURE_RMDIR_MV,             /* renamed away, put back after the round */
} TortureRmdir;

/* Files the recording must not change (or may replace only once reached) */
typedef enum
{
  TORTURE_FOREIGN_BEFORE,       /* a pattern name before start-index */
  TORTURE_FOREIGN_FAR,          /* a pattern name after a gap past the last
                                 * file the recording could make */
  TORTURE_FOREIGN_NEXT,         /* a pattern name the recording may reach:
                                 * replaced only if reached */
  TORTURE_FOREIGN_NEXT_FIFO,    /* a FIFO there: never replaced, no hang */
  TORTURE_FOREIGN_NEXT_LINK,    /* a symlink there to a user's file: the
                                 * target never changes */
  TORTURE_FOREIGN_INDEX,        /* a user's file (not an index) at the index
                                 * name of a file the recording may make */
  TORTURE_FOREIGN_MANIFEST,     /* a user's file at the manifest name */
  TORTURE_FOREIGN_MANIFEST_FIFO,        /* a FIFO at the manifest name */
  TORTURE_FOREIGN_HIDDEN,       /* a name like a prepared file's
                                 * (".cam-00001.raw.1a2b3c4d.rtfprep") or
                                 * a manifest's temporary */
  TORTURE_FOREIGN_LOC_LINK,     /* the single-file location is a symlink to a
                                 * user's file */
  TORTURE_N_FOREIGN
} TortureForeignKind;

typedef struct
{
  TortureForeignKind kind;
  guint loc;
  guint64 number;               /* pattern number, where it has one */
  guint size;                   /* bytes of a regular file */
} TortureForeignPlan;

#define TORTURE_MAX_LOC 3
#define TORTURE_MAX_ACT 6
#define TORTURE_MAX_FOREIGN 6

typedef struct
{
  guint64 seed;
  guint abilities;

  /* the stream */
  const gchar *format;          /* GStreamer's name (or a Bayer one) */
  gboolean bayer;
  guint width, height, fps_n;   /* fps_n 0: caps framerate 0/1 */
  gsize frame_size;
  guint64 duration_ns;          /* pts of frame k = k * duration_ns */
  guint stream;                 /* stamp of the frames: 1..99 */
  guint n_frames;
  guint rate;                   /* frames pushed a second, 0: flat out */
  gboolean aligned;             /* page-aligned buffers (zero-copy path) */

  /* where */
  guint n_loc;
  gboolean use_locations;       /* the locations property (else location) */
  TortureLocPlan loc[TORTURE_MAX_LOC];
  gboolean pattern;
  const gchar *name;            /* file name or pattern, in each location */
  guint start_index;
  guint64 max_file_size, max_file_duration;
  guint max_files;
  /* naming (issue 26): time fields in the pattern (one location), a
   * format-location-full handler (1: names from the first frame's pts,
   * 2: the same with a name the pattern does not make for every other
   * file, which the sink must refuse), split-at-running-time asked at
   * split_ms after the first frame for now + split_delta_ns */
  gboolean timed;
  guint namer;
  guint n_split;
  guint split_ms[3];
  guint64 split_delta_ns[3];

  /* properties */
  gint64 min_free_space;        /* -1 auto (the default) */
  gboolean index, checksums;
  guint64 sync_interval;
  const gchar *io_engine;
  guint io_depth;
  const gchar *direct;
  guint64 preallocate;
  guint64 extent_size_hint;     /* 0: not set; only with every location on
                                 * an XFS of its own */
  const gchar *leaky;
  guint max_size_buffers;
  guint64 max_size_bytes;
  guint64 deadline;
  const gchar *placement;
  guint64 location_timeout, stop_timeout;
  guint64 stats_interval;

  /* event recording */
  gboolean record_false;        /* record=false at the start */
  guint64 pre_record_time;
  guint n_act;
  TortureAction act[TORTURE_MAX_ACT];
  /* pre-record on disk (keep-location): every frame into the ring at the
   * location (one, a pattern), each recording kept by links in
   * <location's dir>/events/event-%05d (torture_world_keep_location());
   * keep_existing: the number of a recording's directory already there
   * (with a user's file in it), so numbering goes on after it (-1: none) */
  gboolean keep;
  gint keep_existing;

  /* faults */
  gint kill_ms;                 /* SIGKILL after this (-1: none) */
  gint stall_loc;               /* blkio throttle on it (-1: none) */
  guint stall_ms, stall_len_ms;
  guint64 stall_bps;
  gint fill_loc;                /* -1: none (see loc[].fill_free) */
  gint rmdir_loc;               /* -1: none */
  guint rmdir_ms;
  TortureRmdir rmdir_how;
  TortureMid mid;
  guint mid_frame;
  TortureEnd end;
  guint end_frame;              /* the round ends before pushing this one
                                 * (n_frames: after all) */

  guint n_foreign;
  TortureForeignPlan foreign[TORTURE_MAX_FOREIGN];

  guint est_ms;                 /* how long the pushing should take */
} TorturePlan;

/* Draws the plan of seed for a machine with these abilities */
void torture_plan_draw (TorturePlan * p, guint64 seed, guint abilities);
/* One line: the draws that matter most (g_free) */
gchar *torture_plan_line (const TorturePlan * p);
/* Every draw as "key=value", one a line (g_free) */
gchar *torture_plan_keys (const TorturePlan * p);
/* The caps string (g_free) */
gchar *torture_plan_caps (const TorturePlan * p);
/* The faults drawn, as "fill,kill,..." ("none"), for the summary line */
gchar *torture_plan_faults (const TorturePlan * p);
/* Adds 1 to counts[name] for every feature and fault drawn (coverage) */
void torture_plan_count (const TorturePlan * p, GHashTable * counts);

const gchar *torture_fs_name (TortureFs fs);
const gchar *torture_act_name (TortureActKind k);
const gchar *torture_mid_name (TortureMid m);
const gchar *torture_foreign_name (TortureForeignKind k);
/* A pattern number the recording cannot reach: after a gap */
guint64 torture_plan_far_number (const TorturePlan * p);

G_END_DECLS
#endif /* __TORTURE_DRAW_H__ */
