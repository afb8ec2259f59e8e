/* rtframe-record: the recorder - cameras given as GStreamer source
 * descriptions, one rtframesink each, from the command line or a config
 * file; a status line a second and a summary at the end.
 *
 *   rtframe-record [--config FILE] [--source DESC ...] [--streams N]
 *                  [--seconds S] [--dir DIR] [--caps CAPS]
 *                  [--sink-props "name=value ..."] [--rotate S]
 *                  [--trigger [--event T ...] [--pre-record S]
 *                  [--post-record S]]
 *
 * With neither --config nor --source it records the demo: --streams
 * videotestsrc cameras of the user's workload (3 x 2048x928 P010, 20 Hz)
 * for --seconds (default 5).
 *
 * SIGINT and SIGTERM end every recording with EOS (the files closed,
 * their preallocated tail given back, the summary printed); a second one
 * stops at once.  SIGHUP starts a new file at every camera recording to
 * a pattern.  docs/deploying.md has the config file, the exit statuses
 * and the signals. */
#include "config.h"
#include "rtr-commands.h"
#include "rtr-config.h"
#include "rtr-figures.h"
#include "rtr-http.h"
#include "rtr-manifests.h"
#include "rtr-metrics.h"
#include "rtr-notify.h"
#include "rtr-pipeline.h"
#include "rtr-status.h"
#include "rtr-takes.h"
#include "rtr-filesystems.h"
#include "rtr-durations.h"
#include "rtf-pattern.h"
#include "rtr-triggers.h"

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef enum
{
  RUN_STARTING,                 /* going to PLAYING */
  RUN_RECORDING,                /* PLAYING */
  RUN_STOPPING,                 /* EOS sent, waiting for it to come out */
  RUN_ENDED                     /* EOS out, an error, or given up */
} RunState;

typedef struct
{
  RtrConfig *config;
  GstElement *pipeline;
  GMainLoop *loop;
  RtrFigures *figures;
  RtrCommands *commands;        /* triggers, starts and stops on all */
  RtrManifests *manifests;      /* each event's and take's, beside them */
  RtrTriggers *triggers;        /* events only */
  RtrHttp *http;                /* the API, or NULL */
  RunState state;
  RtrExit status;
  guint stop_timer;             /* the stop's EOS waited for until then */
  guint signals[5];             /* SIGINT, SIGTERM, SIGHUP, the seconds,
                                 * the watchdog */
  gboolean terminal;            /* stdout is one: the status line rewritten */
  guint status_ticks;           /* seconds of status lines so far */
} Recorder;

static void
end (Recorder * r, RtrExit status)
{
  r->state = RUN_ENDED;
  r->status = MAX (r->status, status);
  g_main_loop_quit (r->loop);
}

static gboolean
on_stop_timeout (gpointer data)
{
  Recorder *r = data;

  r->stop_timer = 0;
  g_printerr ("\nrtframe-record: the cameras did not end within %.1f s of "
      "the stop (stop-timeout): stopping without waiting; run "
      "rtframe-verify on the files\n", r->config->stop_timeout);
  end (r, RTR_EXIT_ERROR);
  return G_SOURCE_REMOVE;
}

/* EOS into every source: each sink writes what it holds, closes its
 * file, gives its preallocated tail back and posts its last figures */
static void
stop (Recorder * r, const gchar * why)
{
  if (r->state == RUN_STOPPING) {
    g_printerr ("\nrtframe-record: %s again: stopping now, without "
        "waiting for the cameras' EOS\n", why);
    end (r, RTR_EXIT_ERROR);
    return;
  }
  if (r->state == RUN_ENDED)
    return;
  g_print ("\nstopping (%s): every camera ends its recording\n", why);
  rtr_notify_stopping ();
  r->state = RUN_STOPPING;
  gst_element_send_event (r->pipeline, gst_event_new_eos ());
  r->stop_timer = g_timeout_add ((guint) (r->config->stop_timeout * 1000),
      on_stop_timeout, r);
}

static gboolean
on_sigint (gpointer data)
{
  stop (data, "SIGINT");
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigterm (gpointer data)
{
  stop (data, "SIGTERM");
  return G_SOURCE_CONTINUE;
}

static gboolean
on_seconds (gpointer data)
{
  Recorder *r = data;

  r->signals[3] = 0;
  stop (r, "its time is up");
  return G_SOURCE_REMOVE;
}

/* A new file at every camera that records to a pattern, all from the
 * same running time (each camera's first frame at or after it: the files
 * line up); what was done, a line a camera */
static gchar *
split_all (Recorder * r, const gchar * by)
{
  GString *said = g_string_new (NULL);
  GstClockTime at = r->commands ? rtr_commands_now (r->commands) :
      GST_CLOCK_TIME_NONE;
  guint i;

  for (i = 0; i < r->config->cameras->len; i++) {
    const RtrCamera *cam = g_ptr_array_index (r->config->cameras, i);
    GstElement *sink = rtr_pipeline_sink (r->pipeline, cam);

    /* (the engine's parser: "a-100%%.raw" is one file, not a set - the
     * adversarial read of issue 25, M6: /split said done and did not) */
    if (rtf_pattern_check (cam->location, NULL) == RTF_PATTERN_OK
        && GST_CLOCK_TIME_IS_VALID (at)) {
      g_signal_emit_by_name (sink, "split-at-running-time", (guint64) at);
      g_string_append_printf (said, "%s: %s: a new file from %.3f s\n",
          cam->name, by, at / 1e9);
    } else if (rtf_pattern_check (cam->location, NULL) == RTF_PATTERN_OK) {
      g_signal_emit_by_name (sink, "split-now");
      g_string_append_printf (said, "%s: %s: a new file from the next "
          "frame\n", cam->name, by);
    } else {
      g_string_append_printf (said, "%s: %s: records one file (no %%d in "
          "%s), not split\n", cam->name, by, cam->location);
    }
    gst_object_unref (sink);
  }
  return g_string_free (said, FALSE);
}

static gboolean
on_sighup (gpointer data)
{
  gchar *said = split_all (data, "SIGHUP");

  g_print ("\n%s", said);
  g_free (said);
  return G_SOURCE_CONTINUE;
}

/* ---- the API (rtr-http.c) ---------------------------------------------- */

static const gchar *
state_name (RunState state)
{
  static const gchar *const names[] = { "starting", "recording", "stopping",
    "ended"
  };

  return names[state];
}

/* A command needs the pipeline PLAYING */
static guint
not_recording (Recorder * r, JsonBuilder * b)
{
  gchar *why = g_strdup_printf ("not recording (%s)", state_name (r->state));

  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, why);
  g_free (why);
  return 409;
}

static guint
api_record (gpointer data, gboolean start, GstClockTime at,
    const gchar * label, JsonBuilder * b)
{
  Recorder *r = data;

  if (r->state != RUN_RECORDING) {
    rtr_commands_tally_refused (r->commands, start ? "start" : "stop");
    return not_recording (r, b);
  }
  return start ? rtr_commands_start (r->commands, at, label, b) :
      rtr_commands_stop (r->commands, at, b);
}

static guint
api_trigger (gpointer data, const gchar * label, JsonBuilder * b)
{
  Recorder *r = data;

  if (r->state != RUN_RECORDING) {
    rtr_commands_tally_refused (r->commands, "trigger");
    return not_recording (r, b);
  }
  return rtr_commands_trigger (r->commands, label, b);
}

static guint
api_split (gpointer data, JsonBuilder * b)
{
  Recorder *r = data;
  gchar *message;

  if (r->state != RUN_RECORDING)
    return not_recording (r, b);
  message = split_all (r, "API");
  g_print ("\n%s", message);
  json_builder_set_member_name (b, "done");
  json_builder_add_string_value (b, message);
  g_free (message);
  return 200;
}

static guint
api_note (gpointer data, const gchar * id, const gchar * note, JsonBuilder * b)
{
  return rtr_commands_note (((Recorder *) data)->commands, id, note, b);
}

static gchar *
api_events (gpointer data)
{
  return rtr_commands_list_json (((Recorder *) data)->commands);
}

static gchar *
api_status (gpointer data)
{
  Recorder *r = data;
  GPtrArray *filesystems = rtr_filesystems_measure (r->figures);
  gchar *text = rtr_status_json (r->figures, state_name (r->state),
      r->commands, filesystems);

  g_ptr_array_unref (filesystems);
  return text;
}

static gchar *
api_metrics (gpointer data)
{
  Recorder *r = data;
  GPtrArray *filesystems = rtr_filesystems_measure (r->figures);
  gchar *text = rtr_metrics_text (r->figures, r->commands, filesystems);

  g_ptr_array_unref (filesystems);
  return text;
}

static const RtrControl control = {
  api_record, api_trigger, api_split, api_note, api_events, api_status,
  api_metrics
};

static gboolean
on_status (gpointer data)
{
  Recorder *r = data;

  gchar *line;
  guint every = (guint) r->config->status_every;

  if (r->state == RUN_RECORDING || r->state == RUN_STOPPING) {
    line = rtr_figures_status_line (r->figures);
    /* on a terminal one line rewritten; into a log (a file, the journal)
     * a line now and then, whole, not a second's \r-joined fragment */
    if (r->terminal) {
      g_print ("\r%s   ", line);
      fflush (stdout);
    } else if (every > 0 && ++r->status_ticks % every == 0) {
      g_print ("%s\n", line);
    }
    rtr_notify_status (line);
    g_free (line);
  }
  return G_SOURCE_CONTINUE;
}

/* A start that failed ends the run even if no element said why */
static gboolean
on_start_failed (gpointer data)
{
  Recorder *r = data;

  if (r->state != RUN_ENDED) {
    g_printerr ("rtframe-record: the pipeline could not start\n");
    end (r, RTR_EXIT_ERROR);
  }
  return G_SOURCE_REMOVE;
}

static void
on_error (Recorder * r, GstMessage * msg)
{
  GError *err = NULL;
  gchar *dbg = NULL;

  rtr_figures_failed (r->figures, msg);
  gst_message_parse_error (msg, &err, &dbg);
  g_printerr ("\nerror from %s: %s (%s)\n", GST_OBJECT_NAME (msg->src),
      err->message, dbg ? dbg : "");
  g_error_free (err);
  g_free (dbg);
  end (r, RTR_EXIT_ERROR);
}

static void
on_state_changed (Recorder * r, GstMessage * msg)
{
  GstState old, now;

  if (GST_MESSAGE_SRC (msg) != GST_OBJECT (r->pipeline))
    return;
  gst_message_parse_state_changed (msg, &old, &now, NULL);
  if (now == GST_STATE_PLAYING && r->state == RUN_STARTING) {
    r->state = RUN_RECORDING;
    rtr_figures_started (r->figures);
    rtr_notify_ready ();
    /* --seconds counts from here, not from before a camera took its time
     * to start (the adversarial read of issue 25); the demo counts its
     * frames itself (num-buffers): exact files */
    if (r->config->seconds > 0 && !r->config->demo)
      r->signals[3] = g_timeout_add ((guint) (r->config->seconds * 1000),
          on_seconds, r);
  }
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Recorder *r = data;

  if (r->manifests)
    rtr_manifests_take (r->manifests, msg);
  if (rtr_figures_take (r->figures, msg))
    return TRUE;
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_STATE_CHANGED:
      on_state_changed (r, msg);
      break;
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;

      gst_message_parse_warning (msg, &err, NULL);
      g_printerr ("\nwarning from %s: %s\n", GST_OBJECT_NAME (msg->src),
          err->message);
      g_error_free (err);
      break;
    }
    case GST_MESSAGE_ERROR:
      on_error (r, msg);
      break;
    case GST_MESSAGE_EOS:
      rtr_figures_ended (r->figures);
      end (r, rtr_figures_print_summary (r->figures));
      break;
    default:
      break;
  }
  return TRUE;
}

/* ---- the command line -------------------------------------------------- */

typedef struct
{
  gchar *config;
  gchar **sources;
  gint streams;
  gdouble seconds;
  gchar *dir;
  gchar *caps;
  gchar *sink_props;
  gint rotate;
  gboolean events;
  gchar **event_at;
  gdouble pre_record;
  gdouble post_record;
  gdouble stop_timeout;
  gdouble http_idle_timeout;
  gdouble status_every;
  gchar *http;
  gchar *http_token_file;
  gboolean overwrite;
  gboolean require_mount;
  gchar **require_mounts;
  gchar *http_control;
  gchar *pre_record_on;
  gboolean idle;
  gboolean version;
} Options;

static void
options_clear (Options * o)
{
  g_free (o->config);
  g_strfreev (o->sources);
  g_free (o->dir);
  g_free (o->caps);
  g_free (o->sink_props);
  g_strfreev (o->event_at);
  g_strfreev (o->require_mounts);
  g_free (o->http_control);
  g_free (o->pre_record_on);
  g_free (o->http);
  g_free (o->http_token_file);
}

/* What the command line says over the config file: a number given is
 * anything but the NOT_GIVEN it starts as - a negative one too, which
 * rtr_config_check() refuses (the adversarial read of issue 25, M2:
 * --seconds -2 was taken for not given, and recorded without end) */
#define NOT_GIVEN (-G_MAXDOUBLE)
#define NOT_GIVEN_INT G_MININT

static void
override (RtrConfig * c, Options * o)
{
  if (o->seconds != NOT_GIVEN)
    c->seconds = o->seconds;
  if (o->dir) {
    g_free (c->dir);
    c->dir = g_strdup (o->dir);
  }
  if (o->rotate != NOT_GIVEN_INT)
    c->rotate = o->rotate >= 0 ? (guint) o->rotate : G_MAXUINT;
  if (o->events)
    c->events = TRUE;
  if (o->event_at) {
    g_strfreev (c->event_at);
    c->event_at = g_strdupv (o->event_at);
  }
  if (o->pre_record != NOT_GIVEN)
    c->pre_record = o->pre_record;
  if (o->post_record != NOT_GIVEN)
    c->post_record = o->post_record;
  if (o->stop_timeout != NOT_GIVEN)
    c->stop_timeout = o->stop_timeout;
  if (o->http_idle_timeout != NOT_GIVEN)
    c->http_idle_timeout = o->http_idle_timeout;
  if (o->status_every != NOT_GIVEN)
    c->status_every = o->status_every;
  if (o->http) {
    g_free (c->http);
    c->http = g_strdup (o->http);
  }
  if (o->http_token_file) {
    g_free (c->http_token_file);
    c->http_token_file = g_strdup (o->http_token_file);
  }
  if (o->overwrite)
    c->overwrite = TRUE;
  if (o->require_mount)
    c->require_mount = TRUE;
  if (o->http_control)
    c->http_control_open = g_str_equal (o->http_control, "open");
  if (o->pre_record_on)
    c->pre_record_on_disk = g_str_equal (o->pre_record_on, "disk");
  if (o->require_mounts) {
    g_strfreev (c->require_mounts);
    c->require_mounts = g_strdupv (o->require_mounts);
  }
  if (o->idle)
    c->idle = TRUE;
}

/* prop goes first in every camera's sink properties (taken): a user's
 * own value for it, later, wins */
static void
prepend_prop (RtrConfig * c, const gchar * prop)
{
  guint i;

  for (i = 0; i < c->cameras->len; i++) {
    RtrCamera *cam = g_ptr_array_index (c->cameras, i);
    guint n = g_strv_length (cam->sink);
    gchar **props = g_new0 (gchar *, n + 2);

    props[0] = g_strdup (prop);
    memcpy (props + 1, cam->sink, n * sizeof (gchar *));
    g_free (cam->sink);
    cam->sink = props;
  }
}

/* pre-record-on=disk: each camera's events in directories beside its
 * ring (<camera>-event-%05d), on its filesystem */
static void
add_keep_locations (RtrConfig * c)
{
  guint i;

  for (i = 0; i < c->cameras->len; i++) {
    RtrCamera *cam = g_ptr_array_index (c->cameras, i);
    gchar *dir = g_path_get_dirname (cam->location);
    gchar *base = g_strconcat (cam->name, "-event-%05d", NULL);
    gchar *keep = g_build_filename (dir, base, NULL);
    guint n = g_strv_length (cam->sink);

    cam->sink = g_renew (gchar *, cam->sink, n + 2);
    memmove (cam->sink + 1, cam->sink, (n + 1) * sizeof (gchar *));
    cam->sink[0] = g_strdup_printf ("keep-location=%s", keep);
    g_free (keep);
    g_free (base);
    g_free (dir);
  }
}

/* Rotation: max-file-duration.  Events: the sinks hold pre-record
 * seconds (in memory, or on the disk) and write only what a trigger asks
 * for. */
static void
add_recorder_props (RtrConfig * c)
{
  gchar *prop;

  if (c->rotate) {
    prop = g_strdup_printf ("max-file-duration=%" G_GUINT64_FORMAT,
        (guint64) c->rotate * GST_SECOND);
    prepend_prop (c, prop);
    g_free (prop);
  }
  if (c->events) {
    prop = g_strdup_printf ("pre-record-time=%" G_GUINT64_FORMAT,
        (guint64) (c->pre_record * GST_SECOND));
    prepend_prop (c, prop);
    g_free (prop);
    prepend_prop (c, "record=false");
    if (c->pre_record_on_disk)
      add_keep_locations (c);
  } else if (c->idle) {
    /* the first take waits for a start (POST /record/start) */
    prepend_prop (c, "record=false");
  }
}

static RtrConfig *
config_from (Options * o, GError ** error)
{
  RtrConfig *c = rtr_config_new ();
  guint i;
  gboolean ok = TRUE;

  if (o->config)
    ok = rtr_config_load (c, o->config, error);
  if (ok && o->http_control && !g_str_equal (o->http_control, "open")
      && !g_str_equal (o->http_control, "token"))
    ok = FALSE, g_set_error (error, RTR_CONFIG_ERROR, 0, "--http-control: "
        "\"%s\" is neither token nor open", o->http_control);
  if (ok && o->pre_record_on && !g_str_equal (o->pre_record_on, "memory")
      && !g_str_equal (o->pre_record_on, "disk"))
    ok = FALSE, g_set_error (error, RTR_CONFIG_ERROR, 0, "--pre-record-on: "
        "\"%s\" is neither memory nor disk", o->pre_record_on);
  if (ok)
    override (c, o);
  for (i = 0; ok && o->sources && o->sources[i]; i++) {
    gchar *name = g_strdup_printf ("cam%u", c->cameras->len);

    ok = rtr_config_add_camera (c, name, o->sources[i], o->caps, NULL,
        o->sink_props, error);
    g_free (name);
  }
  if (ok && !o->config && !o->sources) {
    /* the demo's default: 5 s (--seconds 0: until stopped) */
    if (o->seconds == NOT_GIVEN)
      c->seconds = 5;
    ok = rtr_config_add_demo (c, o->streams, o->caps, o->sink_props, error);
  } else if (ok && o->streams != NOT_GIVEN_INT)
    ok = FALSE, g_set_error (error, RTR_CONFIG_ERROR, 0, "--streams is for "
        "the demo: with --config or --source the cameras are those");
  if (ok)
    ok = rtr_config_check (c, error);
  if (ok && c->http_token_file && !c->http)
    ok = FALSE, g_set_error (error, RTR_CONFIG_ERROR, 0, "a token file "
        "without http (the address to listen on)");
  if (ok && c->http)
    ok = rtr_http_check (c->http, c->http_token_file, error);
  if (ok)
    ok = rtr_takes_keep_earlier (c, error);
  if (!ok) {
    rtr_config_free (c);
    return NULL;
  }
  add_recorder_props (c);
  return c;
}

/* --require-mount, or --require-mount=PATH (each one adds a mount) */
static gboolean
on_require_mount (const gchar * name, const gchar * value, gpointer data,
    GError ** error)
{
  Options *o = data;

  o->require_mount = TRUE;
  if (value) {
    guint n = o->require_mounts ? g_strv_length (o->require_mounts) : 0;

    o->require_mounts = g_renew (gchar *, o->require_mounts, n + 2);
    o->require_mounts[n] = g_strdup (value);
    o->require_mounts[n + 1] = NULL;
  }
  return TRUE;
}

/* A time option: seconds, or with its unit (rtr-durations.h) */
static gboolean
on_time (const gchar * name, const gchar * value, gpointer data,
    GError ** error)
{
  Options *o = data;
  gdouble s;

  if (!rtr_duration_seconds (value, &s)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "%s: \"%s\" is no time (%s)", name, value, RTR_DURATION_FORMS);
    return FALSE;
  }
  if (g_str_equal (name, "--seconds"))
    o->seconds = s;
  else if (g_str_equal (name, "--pre-record"))
    o->pre_record = s;
  else if (g_str_equal (name, "--post-record"))
    o->post_record = s;
  else if (g_str_equal (name, "--stop-timeout"))
    o->stop_timeout = s;
  else if (g_str_equal (name, "--http-idle-timeout"))
    o->http_idle_timeout = s;
  else if (g_str_equal (name, "--status-every"))
    o->status_every = s;
  else                          /* --rotate: whole seconds, else refused */
    o->rotate = s == (gint) s ? (gint) s : -1;
  return TRUE;
}

static gboolean
parse (Options * o, int *argc, char ***argv, GError ** error)
{
  GOptionEntry entries[] = {
    {"config", 'c', 0, G_OPTION_ARG_FILENAME, &o->config,
        "The cameras and settings from this file (docs/deploying.md)", "FILE"},
    {"source", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->sources,
        "A camera: a GStreamer source description, e.g. \"v4l2src "
          "device=/dev/video0\" (repeat: cam0, cam1, ...)", "DESC"},
    {"streams", 0, 0, G_OPTION_ARG_INT, &o->streams,
        "The demo: this many videotestsrc cameras (default 3)", "N"},
    {"seconds", 0, 0, G_OPTION_ARG_CALLBACK, on_time,
        "Record this long, then stop (0: until stopped; the demo's default "
          "5)", "S"},
    {"dir", 0, 0, G_OPTION_ARG_FILENAME, &o->dir,
        "Where the cameras' files go (<camera>.raw)", "DIR"},
    {"caps", 0, 0, G_OPTION_ARG_STRING, &o->caps,
        "Caps of the --source cameras and the demo's", "CAPS"},
    {"sink-props", 0, 0, G_OPTION_ARG_STRING, &o->sink_props,
          "rtframesink properties of the --source cameras and the demo's",
        "\"NAME=VALUE ...\""},
    {"rotate", 0, 0, G_OPTION_ARG_CALLBACK, on_time,
        "A new file every S seconds: <camera>-%05d.raw", "S"},
    {"trigger", 0, 0, G_OPTION_ARG_NONE, &o->events,
        "Record events only: Enter or SIGUSR1 triggers one (SIGUSR2 "
          "stops it), each in <camera>-event-%05d.raw", NULL},
    {"idle", 0, 0, G_OPTION_ARG_NONE, &o->idle,
        "Record nothing until a take is started (POST /record/start; not "
          "with --trigger)", NULL},
    {"event", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->event_at,
        "--trigger: a trigger T seconds in (repeat)", "T"},
    {"pre-record", 0, 0, G_OPTION_ARG_CALLBACK, on_time,
        "--trigger: seconds kept from before a trigger (default 2)", "S"},
    {"pre-record-on", 0, 0, G_OPTION_ARG_STRING, &o->pre_record_on,
        "--trigger: where the pre-record seconds are kept: in memory "
          "(the default: seconds), or on the disk, in a ring of files "
          "(<camera>-ring-%05d.raw) of which each event keeps its own "
          "(<camera>-event-%05d/): minutes", "memory|disk"},
    {"post-record", 0, 0, G_OPTION_ARG_CALLBACK, on_time,
        "--trigger: seconds recorded after a trigger (default 5)", "S"},
    {"stop-timeout", 0, 0, G_OPTION_ARG_CALLBACK, on_time,
        "Seconds a stop waits for the cameras to end (default 10)", "S"},
    {"http", 0, 0, G_OPTION_ARG_STRING, &o->http,
          "Control and metrics over HTTP on HOST:PORT (or PORT: 127.0.0.1)",
        "ADDR"},
    {"http-token-file", 0, 0, G_OPTION_ARG_FILENAME, &o->http_token_file,
        "Every HTTP request must carry this file's token (Bearer)", "FILE"},
    {"http-control", 0, 0, G_OPTION_ARG_STRING, &o->http_control,
        "Without a token file: \"open\" lets anyone who reaches the "
          "port send commands (stop, split, trigger); the default "
          "\"token\" refuses them (403)", "token|open"},
    {"http-idle-timeout", 0, 0, G_OPTION_ARG_CALLBACK, on_time,
        "Seconds an HTTP connection may do nothing before it is closed "
          "(default 30)", "S"},
    {"status-every", 0, 0, G_OPTION_ARG_CALLBACK, on_time,
        "Where the output is no terminal (a log, the journal): a status "
          "line every S seconds (default 10; 0: none); on a terminal one "
          "line, rewritten every second", "S"},
    {"overwrite", 0, 0, G_OPTION_ARG_NONE, &o->overwrite,
          "Record over a camera's file that is there already (without it "
          "such a run is refused; a set goes on after the files there)",
        NULL},
    {"require-mount", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
          on_require_mount,
          "Refuse to start (exit 2) when a camera's directory is on the "
          "root filesystem, or with =PATH (repeat) on none of the "
          "filesystems mounted there: a data disk not mounted",
        "[=PATH]"},
    {"version", 0, 0, G_OPTION_ARG_NONE, &o->version,
        "Print the version and exit", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- record cameras with "
      "rtframesink");
  GOptionGroup *main_group;
  gboolean ok;

  o->streams = NOT_GIVEN_INT;
  o->seconds = o->pre_record = o->post_record = o->stop_timeout =
      o->http_idle_timeout = o->status_every = NOT_GIVEN;
  o->rotate = NOT_GIVEN_INT;
  /* (a group of the main options: the time options' callback gets o) */
  main_group = g_option_group_new (NULL, NULL, NULL, o, NULL);
  g_option_group_add_entries (main_group, entries);
  g_option_context_set_main_group (ctx, main_group);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  g_option_context_set_description (ctx, "Times (S, T) are seconds, or a "
      "number with its unit: 500ms, 2s, 1.5min, 1h.\n"
      "Exit status: 0 every frame "
      "offered was written; 1 a recording ended with an error; 2 bad input "
      "(nothing recorded); 3 recorded, but frames were dropped or lost.");
  ok = g_option_context_parse (ctx, argc, argv, error);
  g_option_context_free (ctx);
  if (ok && *argc > 1) {
    g_set_error (error, RTR_CONFIG_ERROR, 0, "unexpected argument \"%s\" "
        "(a camera is given with --source)", (*argv)[1]);
    ok = FALSE;
  }
  /* (-1 was "not given": --streams -1 ran the demo - the second
   * adversarial read of issue 25, L1) */
  if (ok && o->streams == NOT_GIVEN_INT && !o->config && !o->sources)
    o->streams = 3;
  else if (ok && o->streams != NOT_GIVEN_INT && o->streams < 1) {
    g_set_error (error, RTR_CONFIG_ERROR, 0, "--streams: 1 or more");
    ok = FALSE;
  }
  return ok;
}

static void
watch (Recorder * r)
{
  gst_bus_add_watch (GST_ELEMENT_BUS (r->pipeline), on_message, r);
  r->signals[0] = g_unix_signal_add (SIGINT, on_sigint, r);
  r->signals[1] = g_unix_signal_add (SIGTERM, on_sigterm, r);
  r->signals[2] = g_unix_signal_add (SIGHUP, on_sighup, r);
  r->terminal = isatty (STDOUT_FILENO);
  g_timeout_add_seconds (1, on_status, r);
  r->signals[4] = rtr_notify_watchdog_start ();
  r->commands = rtr_commands_new (r->config, r->pipeline,
      !r->config->events && !r->config->idle);
  r->manifests = rtr_manifests_new (r->config, r->commands);
  if (r->config->events) {
    r->triggers = rtr_triggers_new (r->config, r->commands);
    rtr_triggers_watch (r->triggers);
  }
}

/* The sinks' deadlines into the histogram; with the API, a message a
 * frame written feeds it.  FALSE when the port cannot be had (taken,
 * not allowed): nothing has recorded yet. */
static gboolean
start_api (Recorder * r, GError ** error)
{
  guint i;

  for (i = 0; i < r->config->cameras->len; i++) {
    GstElement *sink = rtr_pipeline_sink (r->pipeline,
        g_ptr_array_index (r->config->cameras, i));
    guint64 deadline = 0;

    g_object_get (sink, "deadline", &deadline, NULL);
    rtr_figures_set_deadline (r->figures, i, deadline);
    if (r->config->http)
      g_object_set (sink, "frame-messages", TRUE, NULL);
    gst_object_unref (sink);
  }
  if (r->config->http == NULL)
    return TRUE;
  r->http = rtr_http_start (r->config->http, r->config->http_token_file,
      r->config->http_control_open, (guint) r->config->http_idle_timeout,
      &control, r, error);
  if (r->http) {
    gchar *url = rtr_http_url (r->config->http);

    g_print ("control and metrics: %s/status, %s/metrics\n", url, url);
    g_free (url);
  }
  return r->http != NULL;
}

static void
unwatch (Recorder * r)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (r->signals); i++)
    if (r->signals[i])
      g_source_remove (r->signals[i]);
  if (r->stop_timer)
    g_source_remove (r->stop_timer);
  gst_bus_remove_watch (GST_ELEMENT_BUS (r->pipeline));
  while (g_source_remove_by_user_data (r));     /* the status line's */
  rtr_triggers_free (r->triggers);
  rtr_manifests_free (r->manifests);
  rtr_commands_free (r->commands);
}

static void
announce (const RtrConfig * c)
{
  guint i;

  g_print ("recording %u camera%s from %s%s\n", c->cameras->len,
      c->cameras->len == 1 ? "" : "s", c->origin, c->events ?
      ", events only" : c->idle ? ", idle until a take is started (POST "
      "/record/start)" : "");
  for (i = 0; i < c->cameras->len; i++) {
    const RtrCamera *cam = g_ptr_array_index (c->cameras, i);

    g_print ("  %s: %s%s%s -> %s\n", cam->name, cam->source,
        cam->caps ? " ! " : "", cam->caps ? cam->caps : "", cam->location);
  }
}

/* Run from a build tree (build/recorder/rtframe-record) with no plugin
 * path given and no rtframesink installed: the plugin built beside it
 * (build/gst), so the README's commands work as written.  A plugin path
 * set, even empty, is the user's word on where GStreamer looks. */
static void
plugin_of_build_tree (void)
{
  GstElementFactory *f;
  gchar *exe, *dir, *gst_dir, *so;

  if (g_getenv ("GST_PLUGIN_PATH_1_0") || g_getenv ("GST_PLUGIN_PATH"))
    return;
  if ((f = gst_element_factory_find ("rtframesink")) != NULL) {
    gst_object_unref (f);
    return;
  }
  if ((exe = g_file_read_link ("/proc/self/exe", NULL)) == NULL)
    return;
  dir = g_path_get_dirname (exe);
  gst_dir = g_build_filename (dir, "..", "gst", NULL);
  so = g_build_filename (gst_dir, "libgstrtframe.so", NULL);
  if (g_file_test (so, G_FILE_TEST_IS_REGULAR))
    gst_registry_scan_path (gst_registry_get (), gst_dir);
  g_free (so);
  g_free (gst_dir);
  g_free (dir);
  g_free (exe);
}

int
main (int argc, char **argv)
{
  Options o = { 0 };
  Recorder r = { 0 };
  GError *error = NULL;

  if (!parse (&o, &argc, &argv, &error)) {
    g_printerr ("rtframe-record: %s\n", error->message);
    g_error_free (error);
    options_clear (&o);
    return RTR_EXIT_USAGE;
  }
  if (o.version) {
    gchar *gst = gst_version_string ();

    g_print ("rtframe-record %s (%s)\n", VERSION, gst);
    g_free (gst);
    options_clear (&o);
    return RTR_EXIT_OK;
  }
  plugin_of_build_tree ();
  r.config = config_from (&o, &error);
  options_clear (&o);
  if (r.config)
    r.pipeline = rtr_pipeline_build (r.config, &error);
  if (r.pipeline == NULL) {
    g_printerr ("rtframe-record: %s\n", error->message);
    g_error_free (error);
    rtr_config_free (r.config);
    return RTR_EXIT_USAGE;
  }
  r.loop = g_main_loop_new (NULL, FALSE);
  r.figures = rtr_figures_new (r.config);
  if (!start_api (&r, &error)) {
    g_printerr ("rtframe-record: %s\n", error->message);
    g_error_free (error);
    gst_object_unref (r.pipeline);
    g_main_loop_unref (r.loop);
    rtr_figures_free (r.figures);
    rtr_config_free (r.config);
    return RTR_EXIT_USAGE;
  }
  watch (&r);
  announce (r.config);
  if (gst_element_set_state (r.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    g_timeout_add (1000, on_start_failed, &r);  /* its error is on the bus */
  g_main_loop_run (r.loop);
  gst_element_set_state (r.pipeline, GST_STATE_NULL);
  rtr_manifests_settle (r.manifests);
  unwatch (&r);
  rtr_http_free (r.http);
  gst_object_unref (r.pipeline);
  g_main_loop_unref (r.loop);
  rtr_figures_free (r.figures);
  rtr_config_free (r.config);
  return r.status;
}
