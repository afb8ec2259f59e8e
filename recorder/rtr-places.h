/* rtframe-record: where each camera records - its location, or each of
 * the `locations` in its sink properties - and whether two cameras can
 * write the same file (the second adversarial read of issue 25, H2: with
 * x%d.raw and x1%d.raw, one camera replaced the other's files 10-12 and
 * the run ended 0; M2: x-%d.raw and x-%1d.raw, or one file through a
 * linked directory, passed the check and failed at start) */
#ifndef __RTR_PLACES_H__
#define __RTR_PLACES_H__

#include "rtr-config.h"

G_BEGIN_DECLS
/* The camera's places: its location, or each of its locations= */
    gchar ** rtr_places_of (const RtrCamera * cam);

/* FALSE, *why saying which, when the directory of one of the camera's
 * places is not there, is no directory, or cannot be written by this
 * user: found before anything records (exit 2), not once the pipeline
 * runs (exit 1, which a service restarts) */
gboolean rtr_places_writable (const RtrCamera * cam, gchar ** why);
/* FALSE, *why saying which, when the directory of one of the camera's
 * places is on the root filesystem (mounts NULL), or on none of the
 * filesystems mounted at mounts (require-mount): a data disk that did not
 * mount leaves its mount point an empty directory of the filesystem
 * below, and the recording would fill that disk */
gboolean rtr_places_mounted (const RtrCamera * cam, gchar ** mounts,
    gchar ** why);
/* TRUE when path is where a filesystem is mounted (or /) */
gboolean rtr_places_is_mount_point (const gchar * path);
/* FALSE, *why saying which, when a file name one of a's places makes is
 * one b's places make too (a directory compared as an inode) */
gboolean rtr_places_apart (const RtrCamera * a, const RtrCamera * b,
    gchar ** why);

G_END_DECLS
#endif
