/* The recording rules, modelled apart from the engine's schedule
 * (common/frames/rtf-schedule.c): the recordings asked for as a step
 * function of running time - a recording's serial (0: none) painted over
 * the timeline request by request - and the frames walked over it.  The
 * randomized rules test and the torture test compare what the sink wrote
 * with what this says. */
#ifndef __RECORDING_MODEL_H__
#define __RECORDING_MODEL_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  MODEL_START,
  MODEL_STOP,
  MODEL_EXTEND
} ModelKind;

typedef struct _RecModel RecModel;

/* recording: a recording from the first frame (record=true); pre: the
 * pre-record time (ns); hold_max: the most frames held (0: none) */
RecModel *rec_model_new (gboolean recording, guint64 pre, guint hold_max);
void rec_model_free (RecModel * m);

/* A request at running time t (extend: of the recording at `at`): the
 * answer the rules give; *serial: the recording made or changed (0:
 * none).  Made when accepted. */
gboolean rec_model_request (RecModel * m, ModelKind kind, guint64 t,
    guint64 at, guint64 * serial);

/* What becomes of the next frame, of position pos: written (and as the
 * first of a recording, *starts), or not; frames held before are written
 * as backlogs, through rec_model_backlog() */
typedef struct
{
  gboolean written;             /* this frame */
  gboolean starts;              /* ... as a recording's first live frame */
  guint64 serial;               /* its recording's */
} ModelFrame;
void rec_model_frame (RecModel * m, guint index, guint64 pos,
    ModelFrame * out);
/* The frames (indexes given to rec_model_frame) written as backlogs so
 * far, each with the serial of its recording, in the order written */
const GArray *rec_model_backlog (RecModel * m);
typedef struct
{
  guint index;
  guint64 serial;
  gboolean first;               /* its recording's first frame */
  guint at;                     /* written in the turn of this frame (its
                                 * index), before it */
} ModelBacklog;

G_END_DECLS
#endif
