/* rtframe-record: commands to every camera at once (rtr-commands.h) */
#include "rtr-commands.h"
#include "rtr-json.h"
#include "rtf-take-manifest.h"

#include <string.h>

struct _RtrCommands
{
  const RtrConfig *config;
  GstElement *pipeline;
  GPtrArray *sinks;             /* GstElement, one per camera, in order */
  GPtrArray *recordings;        /* RtrRecording, oldest first */
  guint events, takes;          /* ids given */
  const gchar *outcome;         /* the last command's: done's word or
                                 * "refused" */
  guint64 tallies[8];           /* commands answered, as `tallies` */
};

/* Each command and each outcome it can have, counted from the start (all
 * there from the first scrape: Prometheus' increase() sees the first) */
static const struct
{
  const gchar *command, *outcome;
} tallies[] = {
  {"trigger", "triggered"}, {"trigger", "extended"}, {"trigger", "refused"},
  {"start", "started"}, {"start", "joined"}, {"start", "refused"},
  {"stop", "stopped"}, {"stop", "refused"},
};

G_STATIC_ASSERT (G_N_ELEMENTS (tallies) ==
    G_SIZEOF_MEMBER (struct _RtrCommands, tallies) / sizeof (guint64));

static void
tally (RtrCommands * k, const gchar * command)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (tallies); i++)
    if (g_str_equal (tallies[i].command, command)
        && g_strcmp0 (tallies[i].outcome, k->outcome) == 0)
      k->tallies[i]++;
  k->outcome = NULL;
}

void
rtr_commands_tally_refused (RtrCommands * k, const gchar * command)
{
  if (k == NULL)
    return;
  k->outcome = "refused";
  tally (k, command);
}

guint
rtr_commands_n_tallies (void)
{
  return G_N_ELEMENTS (tallies);
}

guint64
rtr_commands_tally (RtrCommands * k, guint i, const gchar ** command,
    const gchar ** outcome)
{
  *command = tallies[i].command;
  *outcome = tallies[i].outcome;
  return k->tallies[i];
}

/* What one camera's sink answered */
typedef struct
{
  gboolean accepted, passed;
  gchar *did, *reason;
  GstClockTime position;
} Answer;

static void
answer_clear (Answer * a)
{
  g_free (a->did);
  g_free (a->reason);
  memset (a, 0, sizeof *a);
}

static void
recording_free (gpointer data)
{
  RtrRecording *rec = data;

  g_free (rec->id);
  g_free (rec->label);
  g_ptr_array_unref (rec->notes);
  g_free (rec);
}

static RtrRecording *
add_recording (RtrCommands * k, RtrRecordingKind kind, GstClockTime start,
    GstClockTime stop, const gchar * label)
{
  RtrRecording *rec = g_new0 (RtrRecording, 1);

  rec->kind = kind;
  rec->id = kind == RTR_RECORDING_EVENT ?
      g_strdup_printf ("event-%u", ++k->events) :
      g_strdup_printf ("take-%u", ++k->takes);
  rec->start = start;
  rec->stop = stop;
  rec->utc_us = g_get_real_time ();
  rec->label = g_strdup (label);
  rec->notes = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (k->recordings, rec);
  return rec;
}

/* The highest N of dir's manifests KIND-N.rtftake (0: none): a run's ids
 * go on after it, never naming an earlier run's */
static guint
highest_id (const gchar * dir, const gchar * kind)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  gchar *prefix = g_strconcat (kind, "-", NULL);
  const gchar *name;
  guint highest = 0;

  while (d && (name = g_dir_read_name (d))) {
    gchar *end = NULL;
    guint64 n;

    if (!g_str_has_prefix (name, prefix)
        || !g_str_has_suffix (name, RTF_TAKE_MANIFEST_SUFFIX))
      continue;
    n = g_ascii_strtoull (name + strlen (prefix), &end, 10);
    if (end && g_str_equal (end, RTF_TAKE_MANIFEST_SUFFIX) && n < G_MAXUINT)
      highest = MAX (highest, (guint) n);
  }
  if (d)
    g_dir_close (d);
  g_free (prefix);
  return highest;
}

static Answer *answers_new (RtrCommands * k);
static void answers_free (RtrCommands * k, Answer * answers);
static gboolean ask_all (RtrCommands * k, const gchar * action,
    GstClockTime t, GstClockTime at, const gchar * id, gboolean check,
    Answer * answers);

RtrCommands *
rtr_commands_new (const RtrConfig * c, GstElement * pipeline, gboolean take_on)
{
  RtrCommands *k = g_new0 (RtrCommands, 1);
  guint i;

  k->config = c;
  k->pipeline = pipeline;
  k->sinks = g_ptr_array_new_with_free_func (gst_object_unref);
  for (i = 0; i < c->cameras->len; i++) {
    const RtrCamera *cam = g_ptr_array_index (c->cameras, i);

    g_ptr_array_add (k->sinks, gst_bin_get_by_name (GST_BIN (pipeline),
            cam->name));
  }
  k->recordings = g_ptr_array_new_with_free_func (recording_free);
  /* ids go on after the manifests of earlier runs in dir */
  k->events = highest_id (c->dir ? c->dir : ".", "event");
  k->takes = highest_id (c->dir ? c->dir : ".", "take");
  /* a take from the first frame (record=true), its id given to every
   * sink before it starts */
  if (take_on) {
    Answer *answers = answers_new (k);
    RtrRecording *rec = add_recording (k, RTR_RECORDING_TAKE, 0,
        GST_CLOCK_TIME_NONE, NULL);

    ask_all (k, "start", 0, GST_CLOCK_TIME_NONE, rec->id, FALSE, answers);
    answers_free (k, answers);
  }
  return k;
}

void
rtr_commands_free (RtrCommands * k)
{
  if (k == NULL)
    return;
  g_ptr_array_unref (k->sinks);
  g_ptr_array_unref (k->recordings);
  g_free (k);
}

/* ---- asking the sinks ---------------------------------------------------- */

static GstClockTime
running_time_now (GstElement * pipeline)
{
  GstClock *clock = gst_element_get_clock (pipeline);
  GstClockTime now;

  if (clock == NULL)
    return GST_CLOCK_TIME_NONE;
  now = gst_clock_get_time (clock) - gst_element_get_base_time (pipeline);
  gst_object_unref (clock);
  return now;
}

GstClockTime
rtr_commands_running_time (RtrCommands * k)
{
  return running_time_now (k->pipeline);
}

static const gchar *
camera_name (RtrCommands * k, guint i)
{
  return ((const RtrCamera *) g_ptr_array_index (k->config->cameras, i))->name;
}

/* One request to one sink */
static void
ask (GstElement * sink, const gchar * action, GstClockTime t,
    GstClockTime at, const gchar * id, gboolean check, Answer * a)
{
  GstStructure *req = gst_structure_new ("request", "action", G_TYPE_STRING,
      action, "running-time", G_TYPE_UINT64, (guint64) t,
      "check", G_TYPE_BOOLEAN, check, NULL), *reply = NULL;
  guint64 position = GST_CLOCK_TIME_NONE;

  if (GST_CLOCK_TIME_IS_VALID (at))
    gst_structure_set (req, "recording-at", G_TYPE_UINT64, (guint64) at, NULL);
  if (id)
    gst_structure_set (req, "id", G_TYPE_STRING, id, NULL);
  answer_clear (a);
  g_signal_emit_by_name (sink, "request-recording", req, &reply);
  gst_structure_free (req);
  if (reply == NULL) {
    a->did = g_strdup ("refused");
    a->reason = g_strdup ("the sink took no request (see its log)");
    return;
  }
  gst_structure_get_boolean (reply, "accepted", &a->accepted);
  gst_structure_get_boolean (reply, "passed", &a->passed);
  gst_structure_get_uint64 (reply, "position", &position);
  a->position = position;
  a->did = g_strdup (gst_structure_get_string (reply, "did"));
  a->reason = g_strdup (gst_structure_get_string (reply, "reason"));
  gst_structure_free (reply);
}

/* The request asked of every camera (check: answered only).  TRUE when
 * every camera takes it at t, none past it already. */
static gboolean
ask_all (RtrCommands * k, const gchar * action, GstClockTime t,
    GstClockTime at, const gchar * id, gboolean check, Answer * answers)
{
  gboolean all = TRUE;
  guint i;

  for (i = 0; i < k->sinks->len; i++) {
    ask (g_ptr_array_index (k->sinks, i), action, t, at, id, check,
        &answers[i]);
    all &= answers[i].accepted && !answers[i].passed;
    /* checked on all: a camera whose frames passed t since would make it
     * at its next frame - said, never hidden */
    if (!check && (answers[i].passed || !answers[i].accepted))
      g_printerr ("\n%s: %s at %.3f s %s: %s\n", camera_name (k, i), action,
          t / 1e9, answers[i].accepted ? "made late" : "refused after its "
          "check", answers[i].reason ? answers[i].reason : "");
  }
  return all;
}

/* "Now" for a command is this much ahead of the clock: the time it takes
 * to ask every camera and then make it on every camera, so that no
 * camera's frames pass it in between.  A hostile test (eight clients at
 * once, three cameras, this 2-core VM) had a camera's frame pass a stop
 * 0.6 ms after the clock was read; asking three cameras twice takes
 * about 1 ms here, and 100 ms leaves room for the main loop being kept
 * from the CPU that long on a loaded machine (a commit made late is said
 * on stderr and in the reply).  A start's pre-record covers the instant;
 * a stop lands two frames later at 20 fps. */
#define NOW_AHEAD (100 * GST_MSECOND)

/* A running time every camera's frames are still before: now by the
 * clock (and NOW_AHEAD), or just past the newest frame of a camera ahead
 * of it (a source that is not live).  NONE: no running time yet. */
static GstClockTime
common_time (RtrCommands * k, GstClockTime asked, Answer * answers)
{
  GstClockTime t = GST_CLOCK_TIME_IS_VALID (asked) ? asked :
      running_time_now (k->pipeline);
  guint i;

  if (!GST_CLOCK_TIME_IS_VALID (t) || GST_CLOCK_TIME_IS_VALID (asked))
    return t;
  t += NOW_AHEAD;
  /* a stop asked now, checked: each answer says where its frames are */
  for (i = 0; i < k->sinks->len; i++) {
    ask (g_ptr_array_index (k->sinks, i), "stop", t, GST_CLOCK_TIME_NONE,
        NULL, TRUE, &answers[i]);
    if (GST_CLOCK_TIME_IS_VALID (answers[i].position))
      t = MAX (t, answers[i].position + 1);
  }
  return t;
}

GstClockTime
rtr_commands_now (RtrCommands * k)
{
  Answer *answers = answers_new (k);
  GstClockTime t = common_time (k, GST_CLOCK_TIME_NONE, answers);

  answers_free (k, answers);
  return t;
}

/* ---- replies ------------------------------------------------------------- */

static gchar *
utc_text (gint64 us)
{
  GDateTime *dt = g_date_time_new_from_unix_utc (us / G_USEC_PER_SEC);
  gchar *day = g_date_time_format (dt, "%Y-%m-%dT%H:%M:%S");
  gchar *s = g_strdup_printf ("%s.%03dZ", day,
      (gint) ((us % G_USEC_PER_SEC) / 1000));

  g_free (day);
  g_date_time_unref (dt);
  return s;
}

static void
add_time (JsonBuilder * b, const gchar * name, GstClockTime t)
{
  json_builder_set_member_name (b, name);
  if (GST_CLOCK_TIME_IS_VALID (t))
    json_builder_add_int_value (b, (gint64) t);
  else
    json_builder_add_null_value (b);
}

gchar *
rtr_commands_utc (const RtrRecording * rec)
{
  return utc_text (rec->utc_us);
}

void
rtr_commands_describe (const RtrRecording * rec, JsonBuilder * b)
{
  gchar *utc = utc_text (rec->utc_us);
  guint i;

  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, rec->id);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, rec->kind == RTR_RECORDING_EVENT ?
      "event" : "take");
  add_time (b, "running-time", rec->start);
  add_time (b, "stop-running-time", rec->stop);
  json_builder_set_member_name (b, "utc");
  json_builder_add_string_value (b, utc);
  json_builder_set_member_name (b, "label");
  if (rec->label)
    json_builder_add_string_value (b, rec->label);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (i = 0; i < rec->notes->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (rec->notes, i));
  json_builder_end_array (b);
  g_free (utc);
}

static void
add_cameras (RtrCommands * k, const Answer * answers, JsonBuilder * b)
{
  guint i;

  json_builder_set_member_name (b, "cameras");
  json_builder_begin_object (b);
  for (i = 0; i < k->sinks->len; i++) {
    const Answer *a = &answers[i];

    json_builder_set_member_name (b, camera_name (k, i));
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "accepted");
    json_builder_add_boolean_value (b, a->accepted && !a->passed);
    json_builder_set_member_name (b, "did");
    json_builder_add_string_value (b, a->did ? a->did : "");
    json_builder_set_member_name (b, "reason");
    json_builder_add_string_value (b, a->passed ? "its frames are past "
        "this running time already" : a->reason ? a->reason : "");
    add_time (b, "position", a->position);
    json_builder_end_object (b);
  }
  json_builder_end_object (b);
}

static guint
refused (RtrCommands * k, JsonBuilder * b, const Answer * answers,
    const gchar * fmt, ...)
G_GNUC_PRINTF (4, 5);

     static guint
         refused (RtrCommands * k, JsonBuilder * b, const Answer * answers,
    const gchar * fmt, ...)
{
  va_list ap;
  gchar *why;

  va_start (ap, fmt);
  why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, why);
  if (answers)
    add_cameras (k, answers, b);
  g_printerr ("\ncommand refused: %s\n", why);
  g_free (why);
  k->outcome = "refused";
  return 409;
}

/* Why a check failed, in words: a camera past the time, or the first
 * camera's own reason */
static gchar *
why_refused (RtrCommands * k, const Answer * answers, GstClockTime t)
{
  guint i;

  for (i = 0; i < k->sinks->len; i++)
    if (answers[i].passed)
      return g_strdup_printf ("%.3f s is past %s's newest frame (%.3f s): a "
          "time the frames passed cannot be the same instant on every "
          "camera", t / 1e9, camera_name (k, i), answers[i].position / 1e9);
  for (i = 0; i < k->sinks->len; i++)
    if (!answers[i].accepted)
      return g_strdup_printf ("%s: %s", camera_name (k, i),
          answers[i].reason ? answers[i].reason : "refused");
  return g_strdup ("refused");
}

static guint
done (RtrCommands * k, JsonBuilder * b, const gchar * what,
    const RtrRecording * rec, const Answer * answers)
{
  json_builder_set_member_name (b, "done");
  json_builder_add_string_value (b, what);
  if (rec)
    rtr_commands_describe (rec, b);
  add_cameras (k, answers, b);
  k->outcome = what;
  return 200;
}

/* ---- the recordings ------------------------------------------------------ */

const GPtrArray *
rtr_commands_recordings (RtrCommands * k)
{
  return k->recordings;
}

RtrRecording *
rtr_commands_find (RtrCommands * k, const gchar * id)
{
  guint i;

  for (i = 0; i < k->recordings->len; i++) {
    RtrRecording *rec = g_ptr_array_index (k->recordings, i);

    if (g_str_equal (rec->id, id))
      return rec;
  }
  return NULL;
}

/* The recording at running time t (start <= t < stop) */
static RtrRecording *
recording_at (RtrCommands * k, GstClockTime t)
{
  guint i;

  for (i = k->recordings->len; i-- > 0;) {
    RtrRecording *rec = g_ptr_array_index (k->recordings, i);

    if (rec->start <= t && (!GST_CLOCK_TIME_IS_VALID (rec->stop)
            || t < rec->stop))
      return rec;
  }
  return NULL;
}

/* The first recording starting after t */
static RtrRecording *
next_after (RtrCommands * k, GstClockTime t)
{
  RtrRecording *best = NULL;
  guint i;

  for (i = 0; i < k->recordings->len; i++) {
    RtrRecording *rec = g_ptr_array_index (k->recordings, i);

    if (rec->start > t && (best == NULL || rec->start < best->start))
      best = rec;
  }
  return best;
}

const RtrRecording *
rtr_commands_current (RtrCommands * k)
{
  GstClockTime now = running_time_now (k->pipeline);

  return GST_CLOCK_TIME_IS_VALID (now) ? recording_at (k, now) : NULL;
}

/* A stop at t: what is recorded ends there, what starts after is gone */
static void
stopped_at (RtrCommands * k, GstClockTime t)
{
  guint i = 0;

  while (i < k->recordings->len) {
    RtrRecording *rec = g_ptr_array_index (k->recordings, i);

    if (GST_CLOCK_TIME_IS_VALID (rec->stop) && rec->stop <= t) {
      i++;
    } else if (rec->start < t) {
      rec->stop = t;
      i++;
    } else {
      g_ptr_array_remove_index (k->recordings, i);
    }
  }
}

/* ---- the commands -------------------------------------------------------- */

static Answer *
answers_new (RtrCommands * k)
{
  return g_new0 (Answer, MAX (k->sinks->len, 1));
}

static void
answers_free (RtrCommands * k, Answer * answers)
{
  guint i;

  for (i = 0; i < k->sinks->len; i++)
    answer_clear (&answers[i]);
  g_free (answers);
}

/* An event from t to t + post-record */
static guint
new_event (RtrCommands * k, GstClockTime t, const gchar * label,
    Answer * answers, JsonBuilder * b)
{
  GstClockTime post = (GstClockTime) (k->config->post_record * GST_SECOND);
  gchar *id = g_strdup_printf ("event-%u", k->events + 1);
  RtrRecording *rec;
  guint i;

  if (!ask_all (k, "start", t, GST_CLOCK_TIME_NONE, id, TRUE, answers)) {
    gchar *why = why_refused (k, answers, t);
    guint status = refused (k, b, answers, "no event at %.3f s: %s",
        t / 1e9, why);

    g_free (why);
    g_free (id);
    return status;
  }
  for (i = 0; i < k->sinks->len; i++)
    if (g_strcmp0 (answers[i].did, "new") != 0) {
      g_free (id);
      return refused (k, b, answers, "a recording is asked after %.3f s "
          "already: an event would join it", t / 1e9);
    }
  /* checked on all: made on all (the stop after a new start is always
   * taken; the reply tells the starts) */
  ask_all (k, "start", t, GST_CLOCK_TIME_NONE, id, FALSE, answers);
  {
    Answer *stops = answers_new (k);

    ask_all (k, "stop", t + post, GST_CLOCK_TIME_NONE, NULL, FALSE, stops);
    answers_free (k, stops);
  }
  g_free (id);
  rec = add_recording (k, RTR_RECORDING_EVENT, t, t + post, label);
  g_print ("\n%s at %.3f s to %.3f s%s%s\n", rec->id, t / 1e9,
      (t + post) / 1e9, label ? ": " : "", label ? label : "");
  return done (k, b, "triggered", rec, answers);
}

guint
rtr_commands_trigger (RtrCommands * k, const gchar * label, JsonBuilder * b)
{
  GstClockTime post = (GstClockTime) (k->config->post_record * GST_SECOND);
  Answer *answers = answers_new (k);
  RtrRecording *on, *next;
  GstClockTime t;
  guint status;

  if (!k->config->events) {
    status = refused (k, b, NULL, "not recording events (events=true, "
        "--trigger): every frame is recorded, or takes are started and "
        "stopped (/record/start, /record/stop)");
    goto out;
  }
  t = common_time (k, GST_CLOCK_TIME_NONE, answers);
  if (!GST_CLOCK_TIME_IS_VALID (t)) {
    status = refused (k, b, NULL, "the pipeline has no running time yet");
    goto out;
  }
  on = recording_at (k, t);
  if (on == NULL) {
    status = new_event (k, t, label, answers, b);
  } else if (on->kind == RTR_RECORDING_TAKE) {
    status = refused (k, b, NULL, "%s is being recorded (since %.3f s): a "
        "trigger adds nothing to it", on->id, on->start / 1e9);
  } else if ((next = next_after (k, on->start)) != NULL
      && next->start < t + post) {
    /* (the sinks would make that one part of the event, its id gone) */
    status = refused (k, b, NULL, "%s would run into %s, asked from %.3f s: "
        "not extended to %.3f s", on->id, next->id, next->start / 1e9,
        (t + post) / 1e9);
  } else if (!ask_all (k, "extend", t + post, t, NULL, TRUE, answers)) {
    gchar *why = why_refused (k, answers, t);

    status = refused (k, b, answers, "%s not extended to %.3f s: %s", on->id,
        (t + post) / 1e9, why);
    g_free (why);
  } else {
    ask_all (k, "extend", t + post, t, NULL, FALSE, answers);
    on->stop = t + post;
    g_print ("\n%s extended to %.3f s\n", on->id, on->stop / 1e9);
    status = done (k, b, "extended", on, answers);
  }
out:
  answers_free (k, answers);
  tally (k, "trigger");
  return status;
}

guint
rtr_commands_start (RtrCommands * k, GstClockTime at, const gchar * label,
    JsonBuilder * b)
{
  Answer *answers = answers_new (k);
  gchar *id = g_strdup_printf ("take-%u", k->takes + 1);
  RtrRecording *rec, *on;
  GstClockTime t = common_time (k, at, answers);
  guint status;

  if (!GST_CLOCK_TIME_IS_VALID (t)) {
    status = refused (k, b, NULL, "the pipeline has no running time yet");
  } else if ((on = recording_at (k, t)) != NULL) {
    status = refused (k, b, NULL, "%s is being recorded at %.3f s (since "
        "%.3f s)", on->id, t / 1e9, on->start / 1e9);
  } else if (!ask_all (k, "start", t, GST_CLOCK_TIME_NONE, id, TRUE, answers)) {
    gchar *why = why_refused (k, answers, t);

    status = refused (k, b, answers, "no take from %.3f s: %s", t / 1e9, why);
    g_free (why);
  } else if (g_strcmp0 (answers[0].did, "joined") == 0
      && (rec = next_after (k, t)) != NULL) {
    /* one asked to start later begins at t instead: it keeps its id */
    ask_all (k, "start", t, GST_CLOCK_TIME_NONE, id, FALSE, answers);
    rec->start = t;
    g_print ("\n%s from %.3f s (begins earlier)\n", rec->id, t / 1e9);
    status = done (k, b, "joined", rec, answers);
  } else {
    ask_all (k, "start", t, GST_CLOCK_TIME_NONE, id, FALSE, answers);
    rec = add_recording (k, RTR_RECORDING_TAKE, t, GST_CLOCK_TIME_NONE, label);
    g_print ("\n%s from %.3f s\n", rec->id, t / 1e9);
    status = done (k, b, "started", rec, answers);
  }
  g_free (id);
  answers_free (k, answers);
  tally (k, "start");
  return status;
}

guint
rtr_commands_stop (RtrCommands * k, GstClockTime at, JsonBuilder * b)
{
  Answer *answers = answers_new (k);
  GstClockTime t = common_time (k, at, answers);
  RtrRecording *on;
  guint status;

  if (!GST_CLOCK_TIME_IS_VALID (t)) {
    status = refused (k, b, NULL, "the pipeline has no running time yet");
  } else if (!ask_all (k, "stop", t, GST_CLOCK_TIME_NONE, NULL, TRUE, answers)) {
    gchar *why = why_refused (k, answers, t);

    status = refused (k, b, answers, "no stop at %.3f s: %s", t / 1e9, why);
    g_free (why);
  } else {
    /* (one starting at t is cancelled: gone after the stop) */
    on = recording_at (k, t);
    if (on && on->start >= t)
      on = NULL;
    ask_all (k, "stop", t, GST_CLOCK_TIME_NONE, NULL, FALSE, answers);
    stopped_at (k, t);
    g_print ("\nstopped at %.3f s\n", t / 1e9);
    status = done (k, b, "stopped", on, answers);
  }
  answers_free (k, answers);
  tally (k, "stop");
  return status;
}

/* ---- what was made ------------------------------------------------------- */

guint
rtr_commands_note (RtrCommands * k, const gchar * id, const gchar * note,
    JsonBuilder * b)
{
  RtrRecording *rec = rtr_commands_find (k, id);

  if (rec == NULL) {
    json_builder_set_member_name (b, "error");
    json_builder_add_string_value (b, "no event or take of that id (GET "
        "/events lists them)");
    return 404;
  }
  g_ptr_array_add (rec->notes, g_strdup (note));
  json_builder_set_member_name (b, "done");
  json_builder_add_string_value (b, "noted");
  rtr_commands_describe (rec, b);
  return 200;
}

gchar *
rtr_commands_list_json (RtrCommands * k)
{
  JsonBuilder *b = json_builder_new ();
  guint i;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "recordings");
  json_builder_begin_array (b);
  for (i = 0; i < k->recordings->len; i++) {
    json_builder_begin_object (b);
    rtr_commands_describe (g_ptr_array_index (k->recordings, i), b);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return rtr_json_text (b);
}

void
rtr_commands_status (RtrCommands * k, JsonBuilder * b)
{
  const RtrRecording *now = rtr_commands_current (k);

  json_builder_set_member_name (b, "armed");
  json_builder_add_boolean_value (b, k->config->events && now == NULL);
  json_builder_set_member_name (b, "recording");
  if (now) {
    json_builder_begin_object (b);
    rtr_commands_describe (now, b);
    json_builder_end_object (b);
  } else {
    json_builder_add_null_value (b);
  }
  json_builder_set_member_name (b, "events-made");
  json_builder_add_int_value (b, k->events);
  json_builder_set_member_name (b, "takes-made");
  json_builder_add_int_value (b, k->takes);
}
