/* The power-cut test's scenarios (powercut-scenario.h) */
#include "powercut-scenario.h"

#include <string.h>

#define MS (G_GUINT64_CONSTANT (1000000))

/* Every feature whose durability a power cut can break, at once:
 *  - a spread over two filesystems with its manifest, rotating (8 frames
 *    a file) with max-files=3 at each, sync-interval 50 ms, checksums,
 *    the pwrite engine (its one helper thread writes the index behind the
 *    frames: a frame reported before its record is written shows);
 *    frames of 263,000 bytes, no multiple of the block: every frame has a
 *    HEAD and a TAIL block, from page-aligned (zero-copy) memory;
 *  - an event recorder beside it (record=false, 400 ms pre-record, three
 *    events), rotating (10 frames a file), on the filesystem a filler
 *    brings near min-free-space (40 MB), which deletes its oldest files;
 *    frames of 204,800 bytes, a multiple of the block; io_uring;
 *  - a second spread over the two, half as long (its EOS comes while the
 *    others go on), rotating with no file deleted (min-free-space=0: the
 *    filler leaves it room) and synced only at EOS (sync-interval=0):
 *    the final state its manifests
 *    get at EOS says how many frames each location holds, which the
 *    readers hold each location to (with no file deleted, a location
 *    short of it is a fault) - so that state must not be on disk before
 *    the frames it counts are;
 *  - a ring (pre-record on disk: keep-location) on the filesystem the
 *    filler fills, its min-free-space under the event recorder's (a ring
 *    frees little: above the other's guard it could only end), 400 ms
 *    before each of three recordings asked ahead, files of 6 frames of
 *    100,500 bytes (no block multiple) so that each recording keeps
 *    several, sync-interval 50 ms, checksums; its recordings' directories
 *    under b/kept, linked from the ring;
 *  - a user's file beside each, and one at a name of the event set's
 *    pattern far past its files. */
static const PcScenario scenarios[] = {
  {
        "main",
        "a spread over two XFS (rotation, max-files, sync-interval), an "
        "event recorder near min-free-space, a spread synced at EOS only, "
        "a ring keeping its recordings by links",
        {{"a", 0, 50, NULL}, {"b", 50, 100, NULL}},
        2,
        {
              {"spread", 11,
                    "video/x-raw,format=GRAY8,width=1000,height=263,"
                    "framerate=25/1", 263000, 40 * MS, 300,
                    {"a/sp-%05d.raw", "b/sp-%05d.raw"},
                    "max-file-size=2104000 max-files=3 "
                    "sync-interval=50000000 checksums=true "
                    "preallocate=16777216 io-depth=4 io-engine=psync",
                  {{0}}, 0},
              {"event", 12,
                    "video/x-raw,format=GRAY16_LE,width=512,height=200,"
                    "framerate=25/1", 204800, 40 * MS, 300,
                    {"b/ev-%05d.raw", NULL},
                    "record=false pre-record-time=400000000 "
                    "max-file-size=2048000 min-free-space=41943040 "
                    "sync-interval=100000000 checksums=true "
                    "preallocate=8388608",
                    {{TRUE, 1000 * MS, 200 * MS}, {FALSE, 2600 * MS, 200 * MS},
                        {TRUE, 4200 * MS, 3000 * MS}, {FALSE, 6000 * MS,
                            3000 * MS}, {TRUE, 7500 * MS, 6500 * MS}},
                  5},
              {"final", 14,
                    "video/x-raw,format=GRAY8,width=640,height=360,"
                    "framerate=25/1", 230400, 40 * MS, 150,
                    {"a/fs-%05d.raw", "b/fs-%05d.raw"},
                    "max-file-size=1843200 sync-interval=0 checksums=true "
                    "preallocate=4194304 min-free-space=0",
                  {{0}}, 0},
              {"ring", 15,
                    "video/x-raw,format=GRAY8,width=500,height=201,"
                    "framerate=25/1", 100500, 40 * MS, 300,
                    {"b/ring-%05d.raw", NULL},
                    "record=false pre-record-time=400000000 "
                    "max-file-size=603000 min-free-space=33554432 "
                    "sync-interval=50000000 checksums=true "
                    "preallocate=1048576",
                    {{TRUE, 2000 * MS, 500 * MS}, {FALSE, 3000 * MS, 500 * MS},
                        {TRUE, 5200 * MS, 4000 * MS}, {FALSE, 6000 * MS,
                            4000 * MS}, {TRUE, 9000 * MS, 7000 * MS},
                        {FALSE, 10400 * MS, 7000 * MS}},
                  6, "b/kept/ev-%05d"},
            },
        4,
        {{"a/notes.txt", 10000, 1}, {"b/ev-99999.raw", 5000, 2},
            {"b/sp-.raw.txt", 3000, 3}},
        3,
      "b", 100 * 1048576},
  /* XFS with a realtime section: the data files on it (realtime=true),
   * their indexes and the log on the data section - two devices, one
   * log; frames no multiple of the realtime extent */
  {
        "realtime",
        "XFS with a realtime section (realtime=true, rotation, max-files)",
        {{"meta", 0, 40, NULL}, {"rt", 40, 100, "meta"}},
        2,
        {
              {"rt", 13,
                    "video/x-raw,format=GRAY8,width=1000,height=263,"
                    "framerate=25/1", 263000, 40 * MS, 150,
                    {"meta/rt-%05d.raw", NULL},
                    "realtime=true max-file-size=2630000 max-files=4 "
                    "sync-interval=50000000 checksums=true "
                    "preallocate=8388608",
                  {{0}}, 0},
            },
        1,
        {{"meta/notes.txt", 10000, 4}},
        1,
      NULL, 0},
};

const PcScenario *
pc_scenario_find (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (scenarios); i++)
    if (g_strcmp0 (scenarios[i].name, name) == 0)
      return &scenarios[i];
  return NULL;
}

void
pc_slice_extent (const PcSlice * s, guint64 sectors, guint64 * start,
    guint64 * length)
{
  /* (whole MiB: the slices stay aligned for any block size) */
  guint64 mib = sectors / 2048;

  *start = mib * s->from_pct / 100 * 2048;
  *length = mib * s->to_pct / 100 * 2048 - *start;
}

gchar *
pc_sink_location (const PcSink * k, guint i, const gchar * root)
{
  return g_build_filename (root, k->locations[i], NULL);
}

guint
pc_sink_n_locations (const PcSink * k)
{
  return k->locations[1] ? 2 : 1;
}

gchar *
pc_sink_keep (const PcSink * k, const gchar * root)
{
  return k->keep ? g_build_filename (root, k->keep, NULL) : NULL;
}

void
pc_foreign_fill (const PcForeign * f, guint8 * buf)
{
  guint32 x = f->seed * 2654435761u + 1;
  gsize i;

  for (i = 0; i < f->size; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    buf[i] = (guint8) x;
  }
}
