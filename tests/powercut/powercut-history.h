/* The power-cut test's history: what the sinks told the recorder, one
 * line per event, each appended with one write(2) the moment it comes,
 * and the marks put into the log between them.
 *
 *   scenario NAME
 *   device SECTORS                 the logged device's size (512 bytes)
 *   root DIR                       where the slices were mounted
 *   w SINK FRAME PTS FILE LOC      rtframesink-frame-written
 *   mark ID SINK:LOC:COUNT ...     mark "mID" was put into the log after
 *                                  these frames-durable counts were told
 *                                  (each the stream's, or a location's)
 *   msg SINK STRUCTURE             another element message of a sink
 *                                  (a ring's recording-started, -stopped
 *                                  and file-kept each followed by a mark:
 *                                  a point after it was told them)
 *   error SINK TEXT                an error (escaped)
 *   warning SINK TEXT              a warning (escaped)
 *   eos                            EOS reached the bus
 *   end                            the recording is over, the log closed
 *
 * SINK is the sink's place in the scenario, LOC the location's in its
 * locations (0 with one).  Frame k of a sink carries stamp k and pts k *
 * its duration. */
#ifndef __POWERCUT_HISTORY_H__
#define __POWERCUT_HISTORY_H__

#include <gst/gst.h>

#include "powercut-scenario.h"

G_BEGIN_DECLS

/* ---- writing (the recorder) -------------------------------------------- */
gint pc_history_open (const gchar * path);
/* One line, one write(2); FALSE when it could not be written */
gboolean pc_history_printf (gint fd, const gchar * fmt, ...)
    G_GNUC_PRINTF (2, 3);

/* ---- reading (the checker) --------------------------------------------- */

typedef struct
{
  guint64 frame, k, file;
  guint loc;
} PcWritten;

typedef struct
{
  guint id;
  guint64 durable[PC_MAX_SINKS][PC_MAX_LOCATIONS];
} PcMark;

typedef struct
{
  const PcScenario *sc;         /* the scenario its first line names */
  gchar *scenario;
  guint64 sectors;              /* of the logged device */
  gchar *root;                  /* where the recorder mounted the slices */
  GArray *written[PC_MAX_SINKS];        /* PcWritten, in the order told */
  GArray *marks;                /* PcMark, in order */
  GPtrArray *messages[PC_MAX_SINKS];    /* GstStructure */
  GArray *message_marks[PC_MAX_SINKS];  /* guint: the marks before each
                                         * message in the history */
  GPtrArray *errors;            /* gchar* "SINK TEXT" */
  GPtrArray *warnings;          /* gchar* "SINK TEXT" */
  gboolean eos, end;
  guint bad_lines;
} PcHistory;

/* The history at path, of the scenario its first line names */
PcHistory *pc_history_read (const gchar * path, GError ** error);
void pc_history_free (PcHistory * h);
/* The mark of id (NULL: none) */
const PcMark *pc_history_mark (const PcHistory * h, guint id);
/* The frames of sink written at location loc, in the order they were
 * written there: the first n of them are those a frames-durable count of
 * n covers (each location's writer releases and syncs in that order) */
GArray *pc_history_written_at (const PcHistory * h, guint sink, guint loc);
/* Whether message i of sink was told before mark m (NULL: no mark yet,
 * none was) - written into the history before that mark's line, so
 * before the mark went into the log */
gboolean pc_history_told_before (const PcHistory * h, guint sink, guint i,
    const PcMark * m);

G_END_DECLS
#endif /* __POWERCUT_HISTORY_H__ */
