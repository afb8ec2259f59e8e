/* The power-cut test's disks at a point: the log replayed onto a base
 * image (in order, never rewound), a scratch copy of it for each point
 * (the mount's log recovery and rtframe-recover write to it, never to the
 * base), and the scenario's slices of the scratch copy on loop devices,
 * mounted as the recorder mounted them. */
#ifndef __POWERCUT_IMAGE_H__
#define __POWERCUT_IMAGE_H__

#include "powercut-scenario.h"
#include "rtf-log-writes.h"

G_BEGIN_DECLS

typedef struct
{
  const PcScenario *sc;
  gchar *work;                  /* a directory of its own (tmpfs is best) */
  gchar *root;                  /* work/mnt: the slices mounted there */
  gchar *base_path, *scratch_path;
  gint base_fd;
  guint64 size;                 /* bytes of the logged device */
  guint64 applied;              /* entries on the base: 0..applied-1 */
  gchar *loop[PC_MAX_SLICES];
  gboolean mounted[PC_MAX_SLICES];
} PcImage;

PcImage *pc_image_new (const PcScenario * sc, const gchar * work,
    guint64 size, GError ** error);
void pc_image_free (PcImage * im);
/* The base brought up to entry `to` (inclusive) of log */
gboolean pc_image_advance (PcImage * im, const RtfLogWrites * log,
    guint64 to, GError ** error);
/* A fresh scratch copy of the base (holes stay holes); *fd open on it for
 * writes of its own (a subset of later entries), or NULL */
gboolean pc_image_scratch (PcImage * im, gint * fd, GError ** error);
/* Each slice of the scratch copy on a loop device, each XFS mounted under
 * root (a realtime section with its XFS); FALSE with why */
gboolean pc_image_mount (PcImage * im, GString * why);
/* Unmounts and lets the loop devices go; FALSE when one could not be */
gboolean pc_image_unmount (PcImage * im, GString * why);

G_END_DECLS
#endif /* __POWERCUT_IMAGE_H__ */
