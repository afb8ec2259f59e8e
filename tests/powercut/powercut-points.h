/* The power-cut test's points: where in the log a power cut is replayed
 * (every flush, FUA write and mark after the filesystems were made, or a
 * seeded sample of them), the crashes between two flushes (a flush and a
 * seeded subset of the writes the disk had completed after it, in any
 * order: what a disk with a volatile cache may have kept), and which of
 * the recorder's marks - its claims of frames durable - hold at each.
 * No I/O, no GStreamer: decisions only. */
#ifndef __POWERCUT_POINTS_H__
#define __POWERCUT_POINTS_H__

#include "rtf-log-writes.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 entry;                /* the log replayed up to it, included */
  guint64 subset;               /* 0: that; else the seed of a subset of the
                                 * writes after it (entry is a flush) */
} PcPoint;

/* The recorder's marks ("m<ID>") in the log, by entry */
typedef struct
{
  guint64 entry;
  guint id;
} PcMarkAt;

GArray *pc_points_marks (const RtfLogWrites * log);
/* The entry of the first mark with this text (-1: none) */
gint64 pc_points_mark_entry (const RtfLogWrites * log, const gchar * text);

/* The points from entry `from` on - each flush, each FUA write and the
 * end of the log: the states the disk passes through -: all of them when
 * there are at most n (n 0: all), else the first, the last and n - 2
 * drawn by seed; and `subsets` of the flushes among them, each followed
 * by a subset point */
GArray *pc_points_choose (const RtfLogWrites * log, guint64 from, guint n,
    guint subsets, guint64 seed);

/* A subset after flush entry f: the entries (indexes) to write over the
 * log replayed up to f.  The crash comes before entry *cut, the next
 * flush: every FUA write before it, each plain write of the epoch by a
 * coin (the disk may have kept any of them), nothing after it. */
GArray *pc_points_subset (const RtfLogWrites * log, guint64 f,
    guint64 seed, guint64 * cut);

/* Where the marks whose claims the disk at point `entry` must meet end:
 * the next entry that is not a mark (the disk is the same up to it) */
guint64 pc_points_claims_end (const RtfLogWrites * log, guint64 entry);
/* The id of the last mark before entry `before` (G_MAXUINT: none) */
guint pc_points_claims (GArray * marks, guint64 before);

G_END_DECLS
#endif /* __POWERCUT_POINTS_H__ */
