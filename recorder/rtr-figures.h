/* rtframe-record: what each camera's rtframesink told the bus - its
 * latest statistics, its file, its misses - and the lines printed from
 * them: a status line a second, a summary at the end.  Rates are bytes
 * written over the time they took, from the sinks' own counters. */
#ifndef __RTR_FIGURES_H__
#define __RTR_FIGURES_H__

#include "rtr-config.h"

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  const RtrCamera *cam;
  GstStructure *stats;          /* the latest rtframesink-stats, or NULL */
  gchar *file;                  /* the file being written, or NULL */
  guint64 misses_told;          /* deadline-missed messages printed */
} RtrCameraFigures;

typedef struct
{
  GPtrArray *cameras;           /* RtrCameraFigures, in config order */
  gint64 started;               /* monotonic us when PLAYING was reached */
  gint64 ended;                 /* monotonic us of the end (EOS), or 0 */
  gint64 last_tick;             /* monotonic us of the last status line */
  guint64 last_bytes;           /* bytes written then, all cameras */
  guint64 misses_printed;       /* deadline misses printed in full */
  gboolean events;              /* the recording is of triggered events */
} RtrFigures;

RtrFigures *rtr_figures_new (const RtrConfig * c);
void rtr_figures_free (RtrFigures * f);

/* Takes what a camera's sink said (element messages); FALSE when the
 * message is none of theirs */
gboolean rtr_figures_take (RtrFigures * f, GstMessage * msg);

/* The recording runs from now (PLAYING), or ended now (EOS) */
void rtr_figures_started (RtrFigures * f);
void rtr_figures_ended (RtrFigures * f);

/* The status line (\r, no newline): frames, MB/s since the last one,
 * misses, the worst p99 */
void rtr_figures_print_status (RtrFigures * f);

/* The summary, one line a camera; returns RTR_EXIT_FRAMES when a camera
 * dropped or lost frames, RTR_EXIT_OK else */
RtrExit rtr_figures_print_summary (RtrFigures * f);

G_END_DECLS

#endif /* __RTR_FIGURES_H__ */
