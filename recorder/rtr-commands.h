/* rtframe-record: commands to every camera at once - a trigger, a start,
 * a stop - and the events and takes they make.
 *
 * A command is asked of every camera's sink first (request-recording with
 * check=true) at one running time, past every camera's newest frame; only
 * when every camera takes it is it made on all, so the cameras never
 * disagree; a refusal changes nothing and says, camera by camera, why.
 * The sinks' rules decide (docs/reference.md#recording-rules):
 *   trigger   (events) no event on: an event from now to post-record
 *             later; an event on: it ends post-record after now instead;
 *             a take on: refused (it records already)
 *   start     a take from the time given (or now), open until a stop
 *   stop      what is recorded ends at the time given (or now)
 * Every event and take gets an id, the same on every camera ("event-3",
 * "take-2"), its running times, the wall-clock time of the command and an
 * optional label; the sinks' messages carry the id, so each camera's
 * files are found by it. */
#ifndef __RTR_COMMANDS_H__
#define __RTR_COMMANDS_H__

#include "rtr-config.h"

#include <gst/gst.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS typedef enum
{
  RTR_RECORDING_EVENT,
  RTR_RECORDING_TAKE
} RtrRecordingKind;

/* An event or a take, as the commands made it */
typedef struct
{
  gchar *id;
  RtrRecordingKind kind;
  GstClockTime start, stop;     /* running times (stop NONE: none asked) */
  gint64 utc_us;                /* the wall clock when it was commanded */
  gchar *label;                 /* or NULL */
  GPtrArray *notes;             /* gchar *, added later */
} RtrRecording;

typedef struct _RtrCommands RtrCommands;

/* take_on: a take runs from the first frame (continuous recording) */
RtrCommands *rtr_commands_new (const RtrConfig * c, GstElement * pipeline,
    gboolean take_on);
void rtr_commands_free (RtrCommands * k);

/* Each answers with an HTTP status (200 done, 409 refused or not
 * possible now) and adds its reply's members to `reply` (an object begun
 * by the caller): "done" or "error", "id", "kind", "running-time",
 * "stop-running-time", "utc", "label", and "cameras": what each camera's
 * sink answered.  at: GST_CLOCK_TIME_NONE for now. */
guint rtr_commands_trigger (RtrCommands * k, const gchar * label,
    JsonBuilder * reply);
guint rtr_commands_start (RtrCommands * k, GstClockTime at,
    const gchar * label, JsonBuilder * reply);
guint rtr_commands_stop (RtrCommands * k, GstClockTime at, JsonBuilder * reply);

/* The pipeline's running time now (NONE: none yet) */
GstClockTime rtr_commands_running_time (RtrCommands * k);
/* "Now" as the commands take it: a running time every camera's frames
 * are still before (NONE: none yet) - for a split on all at one instant */
GstClockTime rtr_commands_now (RtrCommands * k);

/* The events and takes made so far, oldest first (RtrRecording) */
const GPtrArray *rtr_commands_recordings (RtrCommands * k);
/* The one recording now (its stop not reached), or NULL */
const RtrRecording *rtr_commands_current (RtrCommands * k);
/* The one of that id, or NULL */
RtrRecording *rtr_commands_find (RtrCommands * k, const gchar * id);
/* When it was commanded, ISO 8601 UTC with milliseconds */
gchar *rtr_commands_utc (const RtrRecording * rec);
/* Its members (id, kind, times, utc, label, notes) added to an object */
void rtr_commands_describe (const RtrRecording * rec, JsonBuilder * b);
/* A note added to the recording of that id: 200, or 404 (none) */
guint rtr_commands_note (RtrCommands * k, const gchar * id,
    const gchar * note, JsonBuilder * reply);
/* GET /events: every recording, oldest first (JSON) */
gchar *rtr_commands_list_json (RtrCommands * k);
/* The commands answered so far, for the metrics: the i-th (below
 * rtr_commands_n_tallies ()) command ("trigger", "start", "stop") and
 * outcome (done's word: "triggered", "extended", "started", "joined",
 * "stopped"; or "refused") with its count */
guint rtr_commands_n_tallies (void);
/* A command refused before the cameras were asked (the recorder not
 * running yet, or stopping), counted with the refusals */
void rtr_commands_tally_refused (RtrCommands * k, const gchar * command);
guint64 rtr_commands_tally (RtrCommands * k, guint i, const gchar ** command,
    const gchar ** outcome);
/* /status's members: "armed" (events, nothing recorded now), "recording"
 * (the one now, or null), "events-made", "takes-made" */
void rtr_commands_status (RtrCommands * k, JsonBuilder * b);

G_END_DECLS
#endif /* __RTR_COMMANDS_H__ */
