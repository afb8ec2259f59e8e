/* rtframe-record: what each camera's rtframesink told the bus - its
 * latest statistics, its file, its misses - and the lines printed from
 * them: a status line a second, a summary at the end.  Rates are bytes
 * written over the time they took, from the sinks' own counters. */
#ifndef __RTR_FIGURES_H__
#define __RTR_FIGURES_H__

#include "rtr-config.h"

#include <gst/gst.h>

G_BEGIN_DECLS
/* Write latency buckets (seconds) of the metrics' histogram; the
 * camera's deadline is one more edge */
#define RTR_LATENCY_EDGES { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.25, \
      0.5, 1.0, 2.5 }
#define RTR_N_LATENCY_EDGES 10
    typedef struct
{
  const RtrCamera *cam;
  guint64 deadline_ns;          /* the sink's deadline, 0: none */
  gdouble edges[RTR_N_LATENCY_EDGES + 1];       /* sorted, the deadline in */
  guint n_edges;
  guint64 buckets[RTR_N_LATENCY_EDGES + 1];     /* frames with latency <=
                                                 * edge (not cumulative) */
  guint64 latency_count;        /* frames in the histogram */
  gdouble latency_sum;          /* their latencies, seconds */
  GstStructure *stats;          /* the latest rtframesink-stats, or NULL */
  gchar *file;                  /* the file being written, or NULL */
  guint64 misses_told;          /* deadline-missed messages printed */
  gboolean recording;           /* between its recording-started and
                                 * recording-stopped */
  gboolean failed;              /* its sink posted an error */
  gdouble arrival_rate;         /* frames/s from the camera, between its
                                 * last two stats messages */
  guint64 last_received;        /* frames-received, elapsed (ns) of the */
  guint64 last_elapsed;         /* last stats message */
} RtrCameraFigures;

/* What a camera does now, for the metrics: one rule serves a continuous
 * rig and an event rig alike when it asks what the camera should do */
typedef enum
{
  RTR_CAMERA_IDLE,              /* the pipeline is not running */
  RTR_CAMERA_ARMED,             /* running, frames not recorded now
                                 * (between events, before a take) */
  RTR_CAMERA_RECORDING,         /* a recording is on */
  RTR_CAMERA_FAILED,            /* its sink failed, or every location */
  RTR_N_CAMERA_STATES
} RtrCameraState;

typedef struct
{
  GPtrArray *cameras;           /* RtrCameraFigures, in config order */
  gint64 started;               /* monotonic us when PLAYING was reached */
  gint64 ended;                 /* monotonic us of the end (EOS), or 0 */
  gint64 last_tick;             /* monotonic us of the last status line */
  guint64 last_bytes;           /* bytes written then, all cameras */
  guint64 misses_printed;       /* deadline misses printed in full */
  gboolean events;              /* the recording is of triggered events */
  gboolean continuous;          /* every frame recorded from the start
                                 * (not events, not takes started on
                                 * command) */
  gint64 process_start_us;      /* wall clock when the recorder started */
} RtrFigures;

RtrFigures *rtr_figures_new (const RtrConfig * c);
/* Each camera's deadline, read from its sink (the histogram's edge) */
void rtr_figures_set_deadline (RtrFigures * f, guint i, guint64 deadline_ns);
void rtr_figures_free (RtrFigures * f);

/* Takes what a camera's sink said (element messages); FALSE when the
 * message is none of theirs */
gboolean rtr_figures_take (RtrFigures * f, GstMessage * msg);

/* The recording runs from now (PLAYING), or ended now (EOS) */
void rtr_figures_started (RtrFigures * f);
void rtr_figures_ended (RtrFigures * f);
/* An error message: its camera failed (FALSE: none of the cameras') */
gboolean rtr_figures_failed (RtrFigures * f, GstMessage * msg);

RtrCameraState rtr_figures_camera_state (const RtrFigures * f,
    const RtrCameraFigures * cf);
const gchar *rtr_camera_state_name (RtrCameraState state);

/* Prints the status line (\r, no newline) and returns it: frames, MB/s since the last one,
 * misses, the worst p99 */
/* The status line (every camera's frames, MB/s since the line before,
 * misses, the worst p99), taken */
gchar *rtr_figures_status_line (RtrFigures * f);

/* The summary, one line a camera; returns RTR_EXIT_FRAMES when a camera
 * dropped or lost frames, RTR_EXIT_OK else */
RtrExit rtr_figures_print_summary (RtrFigures * f);

G_END_DECLS
#endif /* __RTR_FIGURES_H__ */
