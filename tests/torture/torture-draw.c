/* The torture test's generator: seed -> RoundPlan (torture-draw.h).
 *
 * Every draw is made in a fixed order from the round's own PRNG, so a plan
 * depends on the seed and the machine's abilities only.  The ranges are
 * chosen so a round takes a few seconds: frames of 300 B to ~1 MB, at most
 * ~120 MB or ~4 s of pushing. */
#include "torture-draw.h"

#include <gst/video/video.h>
#include <math.h>
#include <string.h>

/* ---- xoshiro256**, seeded by splitmix64 -------------------------------- */

static guint64
splitmix64 (guint64 * x)
{
  guint64 z = (*x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void
torture_rng_init (TortureRng * r, guint64 seed)
{
  guint i;

  for (i = 0; i < 4; i++)
    r->s[i] = splitmix64 (&seed);
}

static inline guint64
rotl (guint64 x, gint k)
{
  return (x << k) | (x >> (64 - k));
}

guint64
torture_rng_u64 (TortureRng * r)
{
  guint64 *s = r->s;
  guint64 result = rotl (s[1] * 5, 7) * 9, t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

guint64
torture_rng_range (TortureRng * r, guint64 lo, guint64 hi)
{
  if (hi <= lo)
    return lo;
  if (hi - lo == G_MAXUINT64)
    return torture_rng_u64 (r);
  return lo + torture_rng_u64 (r) % (hi - lo + 1);
}

gboolean
torture_rng_chance (TortureRng * r, guint percent)
{
  return torture_rng_range (r, 0, 99) < percent;
}

guint64
torture_rng_log (TortureRng * r, guint64 lo, guint64 hi)
{
  gdouble a = log ((gdouble) MAX (lo, 1)), b = log ((gdouble) MAX (hi, lo));
  gdouble u = (gdouble) (torture_rng_u64 (r) >> 11) / (gdouble) (1ULL << 53);
  guint64 v = (guint64) exp (a + (b - a) * u);

  return CLAMP (v, lo, hi);
}

#define PICK(r, arr) (arr[torture_rng_range (r, 0, G_N_ELEMENTS (arr) - 1)])

/* ---- the stream -------------------------------------------------------- */

typedef struct
{
  const gchar *name;
  gboolean bayer;
  gdouble bytes_per_pixel;      /* about: to aim at a frame size */
} Format;

static const Format formats[] = {
  {"GRAY8", FALSE, 1.0}, {"GRAY16_LE", FALSE, 2.0}, {"P010_10LE", FALSE, 3.0},
  {"I420_10LE", FALSE, 3.0}, {"v210", FALSE, 2.67}, {"NV12", FALSE, 1.5},
  {"UYVY", FALSE, 2.0}, {"bggr", TRUE, 1.0}, {"rggb", TRUE, 1.0},
};

static gsize
frame_size_of (const Format * f, guint w, guint h)
{
  GstVideoInfo info;

  if (f->bayer)
    return (gsize) GST_ROUND_UP_4 (w) * h;
  gst_video_info_init (&info);
  if (!gst_video_info_set_format (&info, gst_video_format_from_string
          (f->name), w, h))
    return 0;
  return info.size;
}

/* A width and height giving a frame of about `target` bytes (a multiple
 * of 4096 when block is asked and one is found) */
static void
draw_dims (TortureRng * r, TorturePlan * p, const Format * f, gsize target,
    gboolean block)
{
  guint tries;

  for (tries = 0; tries < (block ? 400u : 40u); tries++) {
    guint max_w = MIN (2048, MAX (2, (guint) (target / f->bytes_per_pixel)));
    guint w = torture_rng_range (r, 2, max_w);
    guint h = MAX (1, (guint) (target / f->bytes_per_pixel / w));
    gsize size;

    if (torture_rng_chance (r, 30))
      w |= 1;                   /* odd widths */
    size = frame_size_of (f, w, h);
    if (size < 300 || size > 1200000)
      continue;
    if (block && size % 4096 != 0)
      continue;
    p->width = w;
    p->height = h;
    p->frame_size = size;
    return;
  }
  /* GRAY8 64 x N: always works */
  p->format = "GRAY8";
  p->bayer = FALSE;
  p->width = 64;
  p->height = MAX (8, (guint) (target / 64));
  if (block)
    p->height = GST_ROUND_UP_64 (p->height);
  p->frame_size = (gsize) 64 *p->height;
}

static void
draw_stream (TortureRng * r, TorturePlan * p)
{
  const Format *f = &formats[torture_rng_range (r, 0,
          G_N_ELEMENTS (formats) - 1)];
  static const guint fps[] = { 0, 20, 30, 60, 100, 1000 };
  gsize target = torture_rng_log (r, 300, 1100000);
  guint64 volume;

  p->format = f->name;
  p->bayer = f->bayer;
  draw_dims (r, p, f, target, torture_rng_chance (r, 25));
  p->fps_n = PICK (r, fps);
  p->duration_ns = GST_SECOND / (p->fps_n ? p->fps_n : 30);
  p->stream = torture_rng_range (r, 1, 99);
  p->aligned = torture_rng_chance (r, 50);
  if (torture_rng_chance (r, 40)) {
    p->rate = 0;                /* flat out: up to ~120 MB */
    volume = torture_rng_log (r, 1000000, 120000000);
    p->n_frames = CLAMP (volume / p->frame_size, 10, 3000);
    /* ~300 MB/s and ~40 us a frame on this VM, both generous */
    p->est_ms = (guint) (p->n_frames * (p->frame_size / 300000.0 + 0.04));
  } else {
    p->rate = torture_rng_log (r, 20, 500);
    p->n_frames = CLAMP (p->rate * torture_rng_range (r, 300, 4000) / 1000,
        10, 3000);
    p->est_ms = p->n_frames * 1000 / p->rate;
  }
  p->est_ms = MAX (p->est_ms, 10);
}

/* ---- where ------------------------------------------------------------- */

static const gchar *patterns[] = {
  "cam-%05d.raw", "c%d.raw", "rec_%03u.bin", "cam1%d.raw", "take%02lu.raw"
};
static const gchar *singles[] = { "cam.raw", "take.bin", "v.raw" };

static TortureFs
draw_fs (TortureRng * r, guint abilities)
{
  guint v = torture_rng_range (r, 0, 99);

  if (!(abilities & TORTURE_CAN_MOUNT))
    return v < 60 ? TORTURE_FS_DIR : TORTURE_FS_SHM;
  if (v < 25)
    return TORTURE_FS_DIR;
  if (v < 40)
    return TORTURE_FS_SHM;
  if (v < 55)
    return TORTURE_FS_TMPFS;
  if (v < 80)
    return TORTURE_FS_XFS;
  if (v < 95)
    return TORTURE_FS_EXT4;
  return TORTURE_FS_RAMFS;
}

/* A filesystem of its own big enough for the whole recording (a fill is
 * drawn apart) */
static guint
fs_mb_for (TortureRng * r, TortureFs fs, guint64 volume)
{
  guint need = (guint) (volume / 1000000) + 64;

  switch (fs) {
    case TORTURE_FS_XFS:       /* mkfs.xfs 6.x: 300 MB at least */
      return MAX (need, 300 + (guint) torture_rng_range (r, 0, 100));
    case TORTURE_FS_TMPFS:
    case TORTURE_FS_EXT4:
      return need + (guint) torture_rng_range (r, 0, 64);
    default:
      return 0;
  }
}

static void
draw_where (TortureRng * r, TorturePlan * p)
{
  guint v = torture_rng_range (r, 0, 99), i;
  guint64 volume = (guint64) p->n_frames * p->frame_size;

  p->n_loc = v < 60 ? 1 : v < 85 ? 2 : 3;
  p->use_locations = p->n_loc > 1 || torture_rng_chance (r, 15);
  for (i = 0; i < p->n_loc; i++) {
    p->loc[i].fs = draw_fs (r, p->abilities);
    p->loc[i].fs_mb = fs_mb_for (r, p->loc[i].fs, volume);
  }
  p->pattern = torture_rng_chance (r, 65);
  p->name = p->pattern ? PICK (r, patterns) : PICK (r, singles);
  if (!p->pattern)
    return;
  if (torture_rng_chance (r, 40))
    p->start_index = torture_rng_range (r, 1, 20);
  if (torture_rng_chance (r, 50)) {
    p->max_file_size = p->frame_size * torture_rng_range (r, 1, 20);
    if (torture_rng_chance (r, 50))     /* not a multiple of the frame */
      p->max_file_size += torture_rng_range (r, 1, p->frame_size - 1);
  }
  if (torture_rng_chance (r, 25))
    p->max_file_duration = p->duration_ns * torture_rng_range (r, 2, 50);
  if (torture_rng_chance (r, 30))
    p->max_files = torture_rng_range (r, 1, 6);
}

/* ---- properties -------------------------------------------------------- */

static void
draw_props (TortureRng * r, TorturePlan * p)
{
  static const guint64 syncs[] = { 0, 1000000, 20000000, 100000000,
    100000000, GST_SECOND
  };
  static const guint64 prealloc[] = { 0, 65536, 1048576, 16777216,
    134217728, 134217728
  };
  static const guint bufs[] = { 1, 2, 4, 16, 16, 64 };
  static const guint64 deadlines[] = { 0, 2000000, 20000000, 50000000,
    GST_SECOND
  };
  static const guint64 loc_timeouts[] = { 0, 100000000, 500000000,
    2 * GST_SECOND
  };
  static const guint64 stop_timeouts[] = { 500000000, 2 * GST_SECOND,
    5 * GST_SECOND
  };
  guint v = torture_rng_range (r, 0, 99);

  p->min_free_space = v < 50 ? -1 : v < 70 ? 0 :
      (gint64) torture_rng_log (r, 262144, 64 * 1048576);
  p->index = torture_rng_chance (r, 85);
  /* (the sink refuses index=false with several locations: test-spread) */
  if (p->use_locations && p->n_loc > 1)
    p->index = TRUE;
  p->checksums = torture_rng_chance (r, 50);
  p->sync_interval = PICK (r, syncs);
  v = torture_rng_range (r, 0, 99);
  p->io_engine = v < 60 ? "auto" : v < 90 ? "psync" : "io-uring";
  p->io_depth = torture_rng_range (r, 1, 16);
  v = torture_rng_range (r, 0, 99);
  p->direct = v < 75 ? "auto" : v < 95 ? "off" : "on";
  p->preallocate = PICK (r, prealloc);
  v = torture_rng_range (r, 0, 99);
  p->leaky = v < 60 ? "no" : v < 80 ? "upstream" : "downstream";
  p->max_size_buffers = PICK (r, bufs);
  p->max_size_bytes = torture_rng_chance (r, 80) ? 268435456 :
      p->frame_size * torture_rng_range (r, 1, 16);
  p->deadline = PICK (r, deadlines);
  p->placement = torture_rng_chance (r, 50) ? "soonest" : "round-robin";
  p->location_timeout = PICK (r, loc_timeouts);
  p->stop_timeout = PICK (r, stop_timeouts);
  p->stats_interval = torture_rng_chance (r, 30) ? 50000000 : 0;
}

/* ---- event recording --------------------------------------------------- */

static void
draw_events (TortureRng * r, TorturePlan * p)
{
  guint i;

  /* (a round in three: the recording rules are checked exactly, and a
   * round in five was too few to catch a recording split at a wrong
   * frame within the mutants' 300 s) */
  if (!torture_rng_chance (r, 33))
    return;
  p->record_false = torture_rng_chance (r, 70);
  if (torture_rng_chance (r, 50))
    p->pre_record_time = torture_rng_log (r, 10000000, 1500000000);
  p->n_act = torture_rng_range (r, 1, TORTURE_MAX_ACT);
  for (i = 0; i < p->n_act; i++) {
    p->act[i].kind = torture_rng_range (r, 0, TORTURE_N_ACT - 1);
    p->act[i].at_ms = torture_rng_range (r, 0, p->est_ms + 200);
    p->act[i].delta_ns = torture_rng_range (r, 0, 300) * GST_MSECOND;
  }
}

/* ---- faults ------------------------------------------------------------ */

static gint
loop_location (TortureRng * r, const TorturePlan * p)
{
  guint start = torture_rng_range (r, 0, p->n_loc - 1), i;

  for (i = 0; i < p->n_loc; i++) {
    guint l = (start + i) % p->n_loc;

    if (p->loc[l].fs == TORTURE_FS_XFS || p->loc[l].fs == TORTURE_FS_EXT4)
      return l;
  }
  return -1;
}

static void
draw_fill (TortureRng * r, TorturePlan * p)
{
  guint64 volume = (guint64) p->n_frames * p->frame_size;
  static const TortureFs kinds[] = { TORTURE_FS_TMPFS, TORTURE_FS_XFS,
    TORTURE_FS_EXT4
  };
  TortureLocPlan *l;

  p->fill_loc = -1;
  if (!(p->abilities & TORTURE_CAN_MOUNT) || !torture_rng_chance (r, 20))
    return;
  p->fill_loc = torture_rng_range (r, 0, p->n_loc - 1);
  l = &p->loc[p->fill_loc];
  if (l->fs == TORTURE_FS_DIR || l->fs == TORTURE_FS_SHM
      || l->fs == TORTURE_FS_RAMFS) {
    l->fs = PICK (r, kinds);
    l->fs_mb = fs_mb_for (r, l->fs, volume);
  }
  /* what the recording finds free: from a frame or two to most of what
   * its share of the stream needs */
  l->fill_free = torture_rng_log (r, MIN (p->frame_size * 2, 65536) + 65536,
      MAX (volume / p->n_loc * 4 / 5, 200000));
}

static void
draw_faults (TortureRng * r, TorturePlan * p)
{
  p->kill_ms = torture_rng_chance (r, 20) ?
      (gint) torture_rng_range (r, 0, p->est_ms + 100) : -1;

  p->stall_loc = -1;
  if ((p->abilities & TORTURE_CAN_BLKIO) && torture_rng_chance (r, 25)) {
    static const guint64 bps[] = { 20000, 200000, 2000000 };

    p->stall_loc = loop_location (r, p);
    p->stall_ms = torture_rng_range (r, 0, p->est_ms);
    p->stall_len_ms = torture_rng_range (r, 100, 2000);
    p->stall_bps = PICK (r, bps);
  }
  draw_fill (r, p);

  p->rmdir_loc = -1;
  if (torture_rng_chance (r, 8)) {
    p->rmdir_loc = torture_rng_range (r, 0, p->n_loc - 1);
    p->rmdir_ms = torture_rng_range (r, 0, p->est_ms);
    p->rmdir_how = torture_rng_chance (r, 50) ? TORTURE_RMDIR_RM :
        TORTURE_RMDIR_MV;
  }

  p->mid = TORTURE_MID_NONE;
  if (torture_rng_chance (r, 25) && p->n_frames > 2) {
    p->mid = torture_rng_range (r, 1, TORTURE_N_MID - 1);
    p->mid_frame = torture_rng_range (r, 1, p->n_frames - 1);
  }
  p->end = torture_rng_chance (r, 85) ? TORTURE_END_EOS : TORTURE_END_NULL;
  p->end_frame = p->n_frames;
  if (p->end == TORTURE_END_NULL && torture_rng_chance (r, 50))
    p->end_frame = torture_rng_range (r, 0, p->n_frames);
}

/* ---- foreign files ----------------------------------------------------- */

guint64
torture_plan_far_number (const TorturePlan * p)
{
  /* more files than frames cannot be made (each event, split and restart
   * starts one at most): a gap after that ends any set the readers find */
  return (guint64) p->start_index + p->n_frames + 2 * TORTURE_MAX_ACT + 20;
}

static gboolean
foreign_possible (const TorturePlan * p, TortureForeignKind k)
{
  switch (k) {
    case TORTURE_FOREIGN_BEFORE:
      return p->pattern && p->start_index > 0;
    case TORTURE_FOREIGN_FAR:
    case TORTURE_FOREIGN_NEXT:
    case TORTURE_FOREIGN_NEXT_FIFO:
    case TORTURE_FOREIGN_NEXT_LINK:
    case TORTURE_FOREIGN_HIDDEN:
      return p->pattern;
    case TORTURE_FOREIGN_LOC_LINK:
      return !p->pattern;
    default:
      return TRUE;
  }
}

static void
draw_foreign (TortureRng * r, TorturePlan * p)
{
  /* weights: the common ones often, those that end the round at its
   * start (an index name, a linked location) rarely */
  static const guint weight[TORTURE_N_FOREIGN] = {
    [TORTURE_FOREIGN_BEFORE] = 10,[TORTURE_FOREIGN_FAR] = 6,
    [TORTURE_FOREIGN_NEXT] = 10,[TORTURE_FOREIGN_NEXT_FIFO] = 3,
    [TORTURE_FOREIGN_NEXT_LINK] = 4,[TORTURE_FOREIGN_INDEX] = 2,
    [TORTURE_FOREIGN_MANIFEST] = 6,[TORTURE_FOREIGN_MANIFEST_FIFO] = 4,
    [TORTURE_FOREIGN_HIDDEN] = 6,[TORTURE_FOREIGN_LOC_LINK] = 1,
  };
  guint n = torture_rng_chance (r, 60) ? torture_rng_range (r, 1,
      TORTURE_MAX_FOREIGN) : 0, i, total = 0, k;

  for (k = 0; k < TORTURE_N_FOREIGN; k++)
    total += weight[k];
  for (i = 0; i < n; i++) {
    TortureForeignPlan *f = &p->foreign[p->n_foreign];
    guint pick = torture_rng_range (r, 0, total - 1);

    for (k = 0; pick >= weight[k]; k++)
      pick -= weight[k];
    f->kind = k;
    f->loc = torture_rng_range (r, 0, p->n_loc - 1);
    f->size = torture_rng_log (r, 1, 3000000);
    switch (k) {
      case TORTURE_FOREIGN_BEFORE:
        f->number = torture_rng_range (r, 0, p->start_index - 1);
        break;
      case TORTURE_FOREIGN_FAR:
        f->number = torture_plan_far_number (p) + torture_rng_range (r, 0, 9);
        break;
      case TORTURE_FOREIGN_INDEX:
      case TORTURE_FOREIGN_HIDDEN:
      case TORTURE_FOREIGN_NEXT:
      case TORTURE_FOREIGN_NEXT_FIFO:
      case TORTURE_FOREIGN_NEXT_LINK:
        f->number = p->start_index + torture_rng_range (r, 0, 4);
        break;
      default:
        break;
    }
    if (foreign_possible (p, k))
      p->n_foreign++;
  }
}

/* Drawn last, so every earlier seed keeps the rest of its plan */
static void
draw_naming (TortureRng * r, TorturePlan * p)
{
  static const gchar *timed[] = {
    "cam-%F-%H%M%S-%05d.raw", "t%y%j_%03u.raw", "%Y%m%%%H-%d.bin"
  };
  guint i, kept = 0;

  if (p->pattern && torture_rng_chance (r, 25)) {
    p->n_split = torture_rng_range (r, 1, G_N_ELEMENTS (p->split_ms));
    for (i = 0; i < p->n_split; i++) {
      p->split_ms[i] = torture_rng_range (r, 0, p->est_ms + 100);
      p->split_delta_ns[i] = torture_rng_range (r, 0, 200) * GST_MSECOND;
    }
  }
  if (!p->pattern || p->use_locations || !torture_rng_chance (r, 30))
    return;
  p->timed = TRUE;
  p->name = PICK (r, timed);
  p->namer = torture_rng_range (r, 0, 2);
  /* a file of the pattern at a number the recording may take refuses
   * the start (rtframesink: never two files of one number): only those
   * before start-index, and the names that are no file of the set */
  for (i = 0; i < p->n_foreign; i++) {
    TortureForeignKind k = p->foreign[i].kind;

    if (k == TORTURE_FOREIGN_BEFORE || k == TORTURE_FOREIGN_MANIFEST
        || k == TORTURE_FOREIGN_MANIFEST_FIFO || k == TORTURE_FOREIGN_HIDDEN)
      p->foreign[kept++] = p->foreign[i];
  }
  p->n_foreign = kept;
}

/* extent-size-hint (issue 27 changed how it is set: after the realtime
 * flag, on its own), where every location is an XFS of its own: drawn
 * last, so the draws before it are those of the seeds before it */
static void
draw_xflags (TortureRng * r, TorturePlan * p)
{
  static const guint64 hints[] = { 4096, 65536, 1048576, 67108864 };
  guint i;

  for (i = 0; i < p->n_loc; i++)
    if (p->loc[i].fs != TORTURE_FS_XFS)
      return;
  if (torture_rng_chance (r, 30))
    p->extent_size_hint = PICK (r, hints);
}

/* keep-location (pre-record on disk, c1a0816), in an event round with one
 * location given as a pattern: pre-record-time drawn if it was not,
 * max-files off (the sink refuses both), sometimes a recording's
 * directory already there and sometimes files of a few frames, so a
 * recording keeps several.  Drawn last, so the draws before it are those
 * of the seeds before it. */
static void
draw_keep (TortureRng * r, TorturePlan * p)
{
  p->keep_existing = -1;
  if (!(p->record_false || p->n_act) || p->n_loc != 1 || p->use_locations
      || !p->pattern || p->namer == 2 || !torture_rng_chance (r, 60))
    return;
  p->keep = TRUE;
  p->max_files = 0;
  /* (the sink refuses leaky=downstream with a ring: frames it drops from
   * the queue may be counted by a recording already; upstream drops as
   * they come) */
  if (g_strcmp0 (p->leaky, "downstream") == 0)
    p->leaky = "upstream";
  if (p->pre_record_time == 0)
    p->pre_record_time = torture_rng_log (r, 10000000, 1500000000);
  if (torture_rng_chance (r, 30))
    p->keep_existing = (gint) torture_rng_range (r, 0, 12);
  if (torture_rng_chance (r, 40)) {
    p->max_file_size = 0;
    p->max_file_duration = p->duration_ns * torture_rng_range (r, 1, 8);
  }
}

void
torture_plan_draw (TorturePlan * p, guint64 seed, guint abilities)
{
  TortureRng r;

  memset (p, 0, sizeof (*p));
  torture_rng_init (&r, seed);
  p->seed = seed;
  p->abilities = abilities;
  draw_stream (&r, p);
  draw_where (&r, p);
  draw_props (&r, p);
  draw_events (&r, p);
  draw_faults (&r, p);
  draw_foreign (&r, p);
  draw_naming (&r, p);
  draw_xflags (&r, p);
  draw_keep (&r, p);
}

/* ---- printing ---------------------------------------------------------- */

const gchar *
torture_fs_name (TortureFs fs)
{
  static const gchar *n[] = { "dir", "shm", "tmpfs", "xfs", "ext4", "ramfs" };
  return fs < G_N_ELEMENTS (n) ? n[fs] : "?";
}

const gchar *
torture_act_name (TortureActKind k)
{
  static const gchar *n[] = { "start-now", "stop-now", "start-at", "stop-at",
    "record-true", "record-false", "event-start", "event-stop",
    "start-past", "stop-past", "extend", "start-checked"
  };
  return k < G_N_ELEMENTS (n) ? n[k] : "?";
}

const gchar *
torture_mid_name (TortureMid m)
{
  static const gchar *n[] = { "none", "eos-continue", "flush", "pause",
    "restart"
  };
  return m < G_N_ELEMENTS (n) ? n[m] : "?";
}

const gchar *
torture_foreign_name (TortureForeignKind k)
{
  static const gchar *n[] = { "before", "far", "next", "next-fifo",
    "next-link", "index", "manifest", "manifest-fifo", "hidden", "loc-link"
  };
  return k < G_N_ELEMENTS (n) ? n[k] : "?";
}

gchar *
torture_plan_caps (const TorturePlan * p)
{
  return g_strdup_printf ("video/x-%s,format=%s,width=%u,height=%u,"
      "framerate=%u/1", p->bayer ? "bayer" : "raw", p->format, p->width,
      p->height, p->fps_n);
}

gchar *
torture_plan_faults (const TorturePlan * p)
{
  GString *s = g_string_new (NULL);

#define ADD(cond, ...) if (cond) { if (s->len) g_string_append_c (s, ','); \
    g_string_append_printf (s, __VA_ARGS__); }
  ADD (p->fill_loc >= 0, "fill%d", p->fill_loc);
  ADD (p->stall_loc >= 0, "stall%d@%ums+%ums", p->stall_loc, p->stall_ms,
      p->stall_len_ms);
  ADD (p->rmdir_loc >= 0, "%s%d@%ums", p->rmdir_how == TORTURE_RMDIR_RM ?
      "rmdir" : "mvdir", p->rmdir_loc, p->rmdir_ms);
  ADD (p->kill_ms >= 0, "kill@%dms", p->kill_ms);
  ADD (p->mid != TORTURE_MID_NONE, "%s@%u", torture_mid_name (p->mid),
      p->mid_frame);
  ADD (p->end == TORTURE_END_NULL, "null@%u", p->end_frame);
#undef ADD
  if (s->len == 0)
    g_string_append (s, "none");
  return g_string_free (s, FALSE);
}

static void
append_locs (GString * s, const TorturePlan * p)
{
  guint i;

  for (i = 0; i < p->n_loc; i++)
    g_string_append_printf (s, "%s%s", i ? "," : "",
        torture_fs_name (p->loc[i].fs));
}

gchar *
torture_plan_line (const TorturePlan * p)
{
  GString *s = g_string_new (NULL);
  gchar *faults = torture_plan_faults (p);

  g_string_append_printf (s, "fmt=%s %ux%u size=%" G_GSIZE_FORMAT
      " frames=%u %s locations=%u(", p->format, p->width, p->height,
      p->frame_size, p->n_frames, p->rate ? "paced" : "flat-out", p->n_loc);
  append_locs (s, p);
  g_string_append_printf (s, ") %s", p->pattern ? p->timed ? "timed-pattern"
      : "pattern" : "file");
  if (p->namer)
    g_string_append_printf (s, " namer=%u", p->namer);
  if (p->n_split)
    g_string_append_printf (s, " split-at=%u", p->n_split);
  if (p->max_file_size || p->max_file_duration || p->max_files)
    g_string_append (s, " rotate");
  if (p->record_false || p->n_act)
    g_string_append_printf (s, " events=%u", p->n_act);
  if (p->keep)
    g_string_append_printf (s, " keep%s", p->keep_existing >= 0 ?
        "(existing)" : "");
  g_string_append_printf (s, " io=%s/%u leaky=%s%s faults=%s foreign=%u",
      p->io_engine, p->io_depth, p->leaky, p->index ? "" : " index=false",
      faults, p->n_foreign);
  g_free (faults);
  return g_string_free (s, FALSE);
}

gchar *
torture_plan_keys (const TorturePlan * p)
{
  GString *s = g_string_new (NULL);
  gchar *caps = torture_plan_caps (p);
  guint i;

  g_string_append_printf (s, "seed=0x%016" G_GINT64_MODIFIER "x\n"
      "abilities=%s%s\ncaps=%s\nframe-size=%" G_GSIZE_FORMAT "\n"
      "stream=%u\nframes=%u\nrate=%u\naligned=%d\nest-ms=%u\n",
      p->seed, p->abilities & TORTURE_CAN_MOUNT ? "mount " : "",
      p->abilities & TORTURE_CAN_BLKIO ? "blkio" : "", caps, p->frame_size,
      p->stream, p->n_frames, p->rate, p->aligned, p->est_ms);
  for (i = 0; i < p->n_loc; i++)
    g_string_append_printf (s, "loc%u=%s mb=%u fill-free=%" G_GUINT64_FORMAT
        "\n", i, torture_fs_name (p->loc[i].fs), p->loc[i].fs_mb,
        p->loc[i].fill_free);
  g_string_append_printf (s, "use-locations=%d\nname=%s\nstart-index=%u\n"
      "max-file-size=%" G_GUINT64_FORMAT "\nmax-file-duration=%"
      G_GUINT64_FORMAT "\nmax-files=%u\nmin-free-space=%" G_GINT64_FORMAT
      "\nindex=%d\nchecksums=%d\nsync-interval=%" G_GUINT64_FORMAT
      "\nio-engine=%s\nio-depth=%u\ndirect=%s\npreallocate=%" G_GUINT64_FORMAT
      "\nleaky=%s\nmax-size-buffers=%u\nmax-size-bytes=%" G_GUINT64_FORMAT
      "\ndeadline=%" G_GUINT64_FORMAT "\nplacement=%s\nlocation-timeout=%"
      G_GUINT64_FORMAT "\nstop-timeout=%" G_GUINT64_FORMAT
      "\nstats-interval=%" G_GUINT64_FORMAT "\nrecord=%s\npre-record-time=%"
      G_GUINT64_FORMAT "\nextent-size-hint=%" G_GUINT64_FORMAT "\n",
      p->use_locations, p->name, p->start_index,
      p->max_file_size, p->max_file_duration, p->max_files, p->min_free_space,
      p->index, p->checksums, p->sync_interval, p->io_engine, p->io_depth,
      p->direct, p->preallocate, p->leaky, p->max_size_buffers,
      p->max_size_bytes, p->deadline, p->placement, p->location_timeout,
      p->stop_timeout, p->stats_interval, p->record_false ? "false" : "true",
      p->pre_record_time, p->extent_size_hint);
  g_string_append_printf (s, "keep-location=%d existing=%d\n", p->keep,
      p->keep_existing);
  for (i = 0; i < p->n_act; i++)
    g_string_append_printf (s, "action%u=%s at=%ums delta=%" G_GUINT64_FORMAT
        "ns\n", i, torture_act_name (p->act[i].kind), p->act[i].at_ms,
        p->act[i].delta_ns);
  g_string_append_printf (s, "kill-ms=%d\nstall=%d at=%ums len=%ums bps=%"
      G_GUINT64_FORMAT "\nfill=%d\nrmdir=%d at=%ums how=%s\nmid=%s at=%u\n"
      "end=%s at=%u\n", p->kill_ms, p->stall_loc, p->stall_ms,
      p->stall_len_ms, p->stall_bps, p->fill_loc, p->rmdir_loc, p->rmdir_ms,
      p->rmdir_how == TORTURE_RMDIR_RM ? "rm" : "mv",
      torture_mid_name (p->mid), p->mid_frame,
      p->end == TORTURE_END_EOS ? "eos" : "null", p->end_frame);
  for (i = 0; i < p->n_foreign; i++)
    g_string_append_printf (s, "foreign%u=%s loc=%u number=%" G_GUINT64_FORMAT
        " size=%u\n", i, torture_foreign_name (p->foreign[i].kind),
        p->foreign[i].loc, p->foreign[i].number, p->foreign[i].size);
  g_free (caps);
  return g_string_free (s, FALSE);
}

static void
count (GHashTable * counts, const gchar * key)
{
  gpointer v = g_hash_table_lookup (counts, key);

  g_hash_table_insert (counts, g_strdup (key),
      GUINT_TO_POINTER (GPOINTER_TO_UINT (v) + 1));
}

static void
countf (GHashTable * counts, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

     static void countf (GHashTable * counts, const gchar * fmt, ...)
{
  va_list args;
  gchar *key;

  va_start (args, fmt);
  key = g_strdup_vprintf (fmt, args);
  va_end (args);
  count (counts, key);
  g_free (key);
}

void
torture_plan_count (const TorturePlan * p, GHashTable * counts)
{
  guint i;

  countf (counts, "format %s", p->format);
  countf (counts, "frame size %s", p->frame_size < 4096 ? "< 4 KiB" :
      p->frame_size < 262144 ? "4-256 KiB" : ">= 256 KiB");
  if (p->frame_size % 4096 == 0)
    count (counts, "frame size a block multiple");
  count (counts, p->rate ? "paced" : "flat out");
  count (counts, p->aligned ? "buffers page-aligned" : "buffers unaligned");
  countf (counts, "locations %u%s", p->n_loc, p->use_locations ?
      " (locations=)" : "");
  for (i = 0; i < p->n_loc; i++)
    countf (counts, "fs %s", torture_fs_name (p->loc[i].fs));
  count (counts, p->pattern ? "pattern" : "single file");
  if (p->timed)
    count (counts, "time fields in names");
  if (p->namer)
    countf (counts, "format-location-full %s", p->namer == 2 ?
        "(a name refused)" : "");
  if (p->n_split)
    count (counts, "split-at-running-time");
  if (p->start_index)
    count (counts, "start-index");
  if (p->max_file_size)
    count (counts, "max-file-size");
  if (p->max_file_duration)
    count (counts, "max-file-duration");
  if (p->max_files)
    count (counts, "max-files");
  countf (counts, "min-free-space %s", p->min_free_space < 0 ? "auto" :
      p->min_free_space == 0 ? "off" : "set");
  if (!p->index)
    count (counts, "index=false");
  if (p->checksums)
    count (counts, "checksums");
  if (p->extent_size_hint)
    countf (counts, "extent-size-hint %" G_GUINT64_FORMAT " KiB",
        p->extent_size_hint / 1024);
  countf (counts, "sync-interval %" G_GUINT64_FORMAT " ms",
      p->sync_interval / 1000000);
  countf (counts, "io-engine %s", p->io_engine);
  countf (counts, "direct %s", p->direct);
  countf (counts, "leaky %s", p->leaky);
  if (p->n_loc > 1)
    countf (counts, "placement %s", p->placement);
  if (p->record_false)
    count (counts, "record=false");
  if (p->pre_record_time)
    count (counts, "pre-record-time");
  if (p->keep)
    count (counts, "keep-location");
  if (p->keep && p->keep_existing >= 0)
    count (counts, "keep-location (a directory there)");
  if (p->keep && p->max_file_duration && p->max_file_duration <= 8 *
      p->duration_ns)
    count (counts, "keep-location (files of a few frames)");
  for (i = 0; i < p->n_act; i++)
    countf (counts, "action %s", torture_act_name (p->act[i].kind));
  if (p->kill_ms >= 0)
    count (counts, "fault kill");
  if (p->stall_loc >= 0)
    countf (counts, "fault stall %" G_GUINT64_FORMAT " B/s", p->stall_bps);
  if (p->fill_loc >= 0)
    countf (counts, "fault fill (%s)",
        torture_fs_name (p->loc[p->fill_loc].fs));
  if (p->rmdir_loc >= 0)
    countf (counts, "fault %s", p->rmdir_how == TORTURE_RMDIR_RM ? "rmdir" :
        "mvdir");
  if (p->mid != TORTURE_MID_NONE)
    countf (counts, "mid %s", torture_mid_name (p->mid));
  count (counts, p->end == TORTURE_END_EOS ? "end eos" : "end null");
  for (i = 0; i < p->n_foreign; i++)
    countf (counts, "foreign %s", torture_foreign_name (p->foreign[i].kind));
}
