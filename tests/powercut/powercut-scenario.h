/* The power-cut test's scenarios: what is recorded where, shared by the
 * recorder (powercut-record.c, in the guest, on a dm-log-writes device)
 * and the checker (powercut-check.c, which replays the log): the
 * filesystems as slices of the logged device, the sinks with their
 * streams, properties and event times, the files of the user's that lie
 * beside the recording, and a filler that brings the free space near
 * min-free-space.
 *
 * One logged device holds every filesystem of a scenario (dm-linear
 * slices of the dm-log-writes device): one log orders every write of the
 * recording, so a point in it is one moment on every disk at once, as a
 * power cut is. */
#ifndef __POWERCUT_SCENARIO_H__
#define __POWERCUT_SCENARIO_H__

#include <glib.h>

G_BEGIN_DECLS

#define PC_MAX_SLICES 3
#define PC_MAX_SINKS 4
#define PC_MAX_LOCATIONS 2
#define PC_MAX_EVENTS 6
#define PC_MAX_FOREIGN 3

/* A filesystem, or an XFS realtime section, on part of the logged device */
typedef struct
{
  const gchar *name;            /* its mount point's name (and pc-NAME) */
  guint from_pct, to_pct;       /* the part of the logged device */
  const gchar *rt_of;           /* a realtime section of that slice's XFS
                                 * (NULL: a filesystem of its own) */
} PcSlice;

/* start-recording or stop-recording at a running time, asked when the
 * stream reaches asked_at (ahead of the frames it applies to) */
typedef struct
{
  gboolean start;
  guint64 at_ns;
  guint64 asked_at_ns;
} PcEvent;

typedef struct
{
  const gchar *name;
  guint stream;                 /* the frames' stamp (rtf_test_fill_frame) */
  const gchar *caps;
  gsize frame_size;
  guint64 duration_ns;
  guint n_frames;
  /* "slice/pattern"; two: the locations property (a spread) */
  const gchar *locations[PC_MAX_LOCATIONS];
  const gchar *props;           /* "name=value ..." set on rtframesink */
  PcEvent events[PC_MAX_EVENTS];
  guint n_events;
  /* "slice/pattern" of keep-location (NULL: none): the sink is a ring
   * (pre-record on disk), each recording kept in a directory of its own
   * on the ring's filesystem (powercut-keep.h checks them) */
  const gchar *keep;
} PcSink;

/* A user's file beside the recording: its bytes from a seed */
typedef struct
{
  const gchar *path;            /* "slice/name" */
  gsize size;
  guint seed;
} PcForeign;

typedef struct
{
  const gchar *name;
  const gchar *what;            /* for the report */
  PcSlice slices[PC_MAX_SLICES];
  guint n_slices;
  PcSink sinks[PC_MAX_SINKS];
  guint n_sinks;
  PcForeign foreign[PC_MAX_FOREIGN];
  guint n_foreign;
  const gchar *fill_slice;      /* a filler there (NULL: none) */
  guint64 fill_leave;           /* bytes it leaves free */
} PcScenario;

const PcScenario *pc_scenario_find (const gchar * name);
/* The slice's part of a device of `sectors` 512-byte sectors */
void pc_slice_extent (const PcSlice * s, guint64 sectors, guint64 * start,
    guint64 * length);
/* root/slice/pattern of location i (g_free) */
gchar *pc_sink_location (const PcSink * k, guint i, const gchar * root);
guint pc_sink_n_locations (const PcSink * k);
/* root/slice/pattern of keep-location (g_free; NULL: none) */
gchar *pc_sink_keep (const PcSink * k, const gchar * root);
/* The bytes of a user's file */
void pc_foreign_fill (const PcForeign * f, guint8 * buf);

G_END_DECLS
#endif /* __POWERCUT_SCENARIO_H__ */
