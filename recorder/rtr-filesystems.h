/* rtframe-record: the filesystems the cameras write to, for the metrics -
 * each one's free space, the rate at which every camera writing there
 * writes while it records, and the seconds of recording left at that rate.
 *
 * Measured by the recorder at each scrape (statvfs of each camera's
 * directories), so the figures are there while the cameras are armed
 * between events as while they record.  A sink's own time-left is its
 * camera's alone, at the rate it writes now: three cameras on one disk
 * each showed about 600 s while the disk had 200 s for the three, and
 * between events the rate, and the figure, was gone. */
#ifndef __RTR_FILESYSTEMS_H__
#define __RTR_FILESYSTEMS_H__

#include "rtr-figures.h"

G_BEGIN_DECLS typedef struct
{
  gchar *mount;                 /* where the filesystem is mounted */
  guint64 free;                 /* bytes free to the recorder (f_bavail) */
  guint64 reserve;              /* the most min-free-space of the sinks
                                 * writing there (0 until they said) */
  gdouble rate;                 /* bytes/s of every camera writing there
                                 * while recording (0: none known yet) */
  guint writers;                /* cameras (a spread's locations each
                                 * count) writing there */
  gboolean recycling;           /* every one of them records continuously
                                 * and deletes its own oldest files to
                                 * stay above its reserve (a pattern and
                                 * min-free-space): running out is how it
                                 * records */
} RtrFilesystem;

/* The filesystems of every camera's places, in the order first met
 * (RtrFilesystem, freed with the array); a place that cannot be measured
 * is left out */
GPtrArray *rtr_filesystems_measure (const RtrFigures * f);

/* Seconds until `free` reaches `reserve` at `rate`; < 0: no rate known */
gdouble rtr_filesystem_time_left (const RtrFilesystem * fs);

G_END_DECLS
#endif /* __RTR_FILESYSTEMS_H__ */
