/* rtframe-record: records N live streams with rtframesink, watches the bus,
 * prints a status line every second and a summary at the end.
 *
 *   rtframe-record [--streams 3] [--seconds 5] [--dir .] [--rotate S]
 *                  [--caps video/x-raw,format=P010_10LE,width=2048,...]
 *                  [--sink-props "deadline=50000000 leaky=no"]
 *
 * With --rotate S each stream goes to a set of files of S seconds,
 * cam<N>-00000.raw, cam<N>-00001.raw, ... (location cam<N>-%05d.raw). 
 *
 * With --trigger it records events: the sinks receive every frame but
 * write only when triggered - by Enter on the terminal or SIGUSR1 (now),
 * or --event T (T seconds of running time in; repeat for more) - each
 * event keeping the --pre-record seconds before the trigger (default 2)
 * and the --post-record seconds after it (default 5) in a file of its own,
 * cam<N>-event-00000.raw, -00001.raw, ...  Every stream is given the same
 * running time, so all cameras start and stop at the same frame.  SIGUSR2
 * stops a recording now.
 *
 * Exit status: 0 when every frame was written, 2 when frames were dropped
 * or lost, 1 on an error.  What an application embedding rtframesink does:
 * read rtframesink-stats (periodic, and final before EOS) and
 * rtframesink-deadline-missed messages from the bus. */
#include <gst/gst.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_STREAMS 16

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline;
  guint n_streams;
  guint64 post_record;          /* --trigger: ns recorded after a trigger */
  guint events;                 /* triggers given */
  GstStructure *last[MAX_STREAMS];      /* latest stats of each sink */
  guint64 misses_seen;
  gint status;
} App;

static gint
stream_index (GstMessage * msg)
{
  const gchar *name = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
  guint i;

  if (sscanf (name, "cam%u", &i) == 1 && i < MAX_STREAMS)
    return (gint) i;
  return -1;
}

static guint64
u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  gst_structure_get_uint64 (s, field, &v);
  return v;
}

static void
print_status (App * app)
{
  guint64 frames = 0, misses = 0, p99 = 0;
  gdouble rate = 0, r;
  guint i;

  for (i = 0; i < app->n_streams; i++) {
    const GstStructure *s = app->last[i];

    if (s == NULL)
      continue;
    frames += u64 (s, "frames-written");
    misses += u64 (s, "frames-missed");
    p99 = MAX (p99, u64 (s, "latency-p99"));
    if (gst_structure_get_double (s, "throughput-interval", &r))
      rate += r;
  }
  g_print ("\rframes %" G_GUINT64_FORMAT "  %.0f MB/s  misses %"
      G_GUINT64_FORMAT "  p99 %.1f ms   ", frames, rate / 1e6, misses,
      p99 / 1e6);
}

static void
print_summary (App * app)
{
  guint i;

  g_print ("\n\nsummary\n%-6s %8s %8s %8s %8s %8s %8s %8s %9s %8s %9s\n",
      "stream", "written", "dropped", "missed", "lost", "p50 ms", "p99 ms",
      "p99.9 ms", "max ms", "MB/s", "engine");
  for (i = 0; i < app->n_streams; i++) {
    const GstStructure *s = app->last[i];
    gdouble tp = 0;

    if (s == NULL) {
      g_print ("cam%-3u (no statistics)\n", i);
      app->status = MAX (app->status, 1);
      continue;
    }
    gst_structure_get_double (s, "throughput", &tp);
    g_print ("cam%-3u %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8"
        G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8.2f %8.2f %8.2f %9.2f %8.1f"
        " %9s\n", i, u64 (s, "frames-written"), u64 (s, "frames-dropped"),
        u64 (s, "frames-missed"), u64 (s, "frames-lost"),
        u64 (s, "latency-p50") / 1e6, u64 (s, "latency-p99") / 1e6,
        u64 (s, "latency-p99.9") / 1e6, u64 (s, "latency-max") / 1e6,
        tp / 1e6, gst_structure_get_string (s, "io-engine"));
    if (u64 (s, "frames-dropped") > 0 || u64 (s, "frames-lost") > 0)
      app->status = MAX (app->status, 2);
  }
}

/* ---- event recording (--trigger) ------------------------------------ */

/* The pipeline's running time now: what a trigger gives every sink */
static GstClockTime
running_time_now (App * app)
{
  GstClock *clock = gst_element_get_clock (app->pipeline);
  GstClockTime now;

  if (clock == NULL)
    return GST_CLOCK_TIME_NONE;
  now = gst_clock_get_time (clock) - gst_element_get_base_time (app->pipeline);
  gst_object_unref (clock);
  return now;
}

/* Every camera's sink gets the same instant: each starts with its first
 * frame at or after it (less pre-record) */
static void
emit_all (App * app, const gchar * signal, GstClockTime rt)
{
  guint i;

  for (i = 0; i < app->n_streams; i++) {
    gchar *name = g_strdup_printf ("cam%u", i);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (app->pipeline), name);
    gboolean ok = FALSE;

    g_signal_emit_by_name (sink, signal, (guint64) rt, &ok);
    if (!ok)
      g_printerr ("\ncam%u: %s refused\n", i, signal);
    gst_object_unref (sink);
    g_free (name);
  }
}

/* A trigger: record from now (with the frames held before it) to
 * post-record after it */
static void
trigger (App * app)
{
  GstClockTime rt = running_time_now (app);

  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return;
  g_print ("\ntrigger %u at %.3f s\n", app->events++, rt / 1e9);
  emit_all (app, "start-recording", rt);
  emit_all (app, "stop-recording", rt + app->post_record);
}

static gboolean
on_sigusr1 (gpointer user_data)
{
  trigger (user_data);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigusr2 (gpointer user_data)
{
  emit_all (user_data, "stop-recording", GST_CLOCK_TIME_NONE);
  return G_SOURCE_CONTINUE;
}

/* --event T: at T seconds of the pipeline's running time, not of the
 * program's (a loaded machine took 0.9 s to reach PLAYING, and an event at
 * 1 s of wall-clock time then had 0.1 s to hold, not 0.5) */
typedef struct
{
  App *app;
  GstClockTime at;
} TimedEvent;

static gboolean
on_timed_event (gpointer user_data)
{
  TimedEvent *t = user_data;
  GstClockTime rt = running_time_now (t->app);

  if (!GST_CLOCK_TIME_IS_VALID (rt) || rt < t->at) {
    g_timeout_add (GST_CLOCK_TIME_IS_VALID (rt) ?
        (guint) ((t->at - rt) / GST_MSECOND) + 1 : 20, on_timed_event, t);
    return G_SOURCE_REMOVE;
  }
  trigger (t->app);
  g_free (t);
  return G_SOURCE_REMOVE;
}

static gboolean
on_stdin (GIOChannel * ch, GIOCondition cond, gpointer user_data)
{
  gchar *line = NULL;

  if (g_io_channel_read_line (ch, &line, NULL, NULL, NULL) !=
      G_IO_STATUS_NORMAL)
    return G_SOURCE_REMOVE;     /* no terminal (EOF): the other triggers */
  g_free (line);
  trigger (user_data);
  return G_SOURCE_CONTINUE;
}

static void
print_recording (GstMessage * msg, const GstStructure * s)
{
  guint64 number = 0, frames = 0, held = 0;
  guint held_started = 0;

  gst_structure_get_uint64 (s, "number", &number);
  if (gst_structure_has_name (s, "rtframesink-recording-started")) {
    gst_structure_get_uint (s, "prerecorded-frames", &held_started);
    g_print ("\n%s: event %" G_GUINT64_FORMAT " started in %s (%u frames "
        "from before the trigger)\n", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        number, gst_structure_get_string (s, "location"), held_started);
  } else {
    gst_structure_get_uint64 (s, "frames", &frames);
    gst_structure_get_uint64 (s, "prerecorded-frames", &held);
    g_print ("\n%s: event %" G_GUINT64_FORMAT " stopped (%s): %"
        G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " of them held\n",
        GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), number,
        gst_structure_get_string (s, "reason"), frames, held);
  }
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  App *app = user_data;
  const GstStructure *s = gst_message_get_structure (msg);
  gint i;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:
      i = stream_index (msg);
      if (i < 0)
        break;
      if (gst_structure_has_name (s, "rtframesink-stats")) {
        if (app->last[i])
          gst_structure_free (app->last[i]);
        app->last[i] = gst_structure_copy (s);
        print_status (app);
      } else if (gst_structure_has_name (s, "rtframesink-recording-started")
          || gst_structure_has_name (s, "rtframesink-recording-stopped")) {
        print_recording (msg, s);
      } else if (gst_structure_has_name (s, "rtframesink-deadline-missed")) {
        gint64 lateness = 0;

        gst_structure_get_int64 (s, "lateness", &lateness);
        /* the first few in full, then only the count in the status line */
        if (app->misses_seen++ < 5)
          g_print ("\ncam%d: frame %" G_GUINT64_FORMAT " missed its deadline "
              "(%s, %.1f ms late)\n", i, u64 (s, "frame"),
              gst_structure_get_string (s, "where"), lateness / 1e6);
      }
      break;
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;

      gst_message_parse_warning (msg, &err, NULL);
      g_printerr ("\nwarning from %s: %s\n", GST_OBJECT_NAME (msg->src),
          err->message);
      g_error_free (err);
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("\nerror from %s: %s (%s)\n", GST_OBJECT_NAME (msg->src),
          err->message, dbg ? dbg : "");
      g_error_free (err);
      g_free (dbg);
      app->status = 1;
      g_main_loop_quit (app->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      print_summary (app);
      g_main_loop_quit (app->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

/* Enter, SIGUSR1, SIGUSR2 and the --event times */
static void
watch_triggers (App * app, gchar ** event_at)
{
  GIOChannel *in = g_io_channel_unix_new (0);
  guint i;

  g_io_add_watch (in, G_IO_IN | G_IO_HUP, on_stdin, app);
  g_io_channel_unref (in);
  g_unix_signal_add (SIGUSR1, on_sigusr1, app);
  g_unix_signal_add (SIGUSR2, on_sigusr2, app);
  for (i = 0; event_at && event_at[i]; i++) {
    TimedEvent *t = g_new (TimedEvent, 1);

    t->app = app;
    t->at = (GstClockTime) (g_ascii_strtod (event_at[i], NULL) * GST_SECOND);
    g_timeout_add ((guint) (t->at / GST_MSECOND), on_timed_event, t);
  }
  g_print ("events: Enter or kill -USR1 %d to trigger, kill -USR2 %d to "
      "stop\n", (gint) getpid (), (gint) getpid ());
}

int
main (int argc, char **argv)
{
  gint streams = 3, seconds = 5, fps_n = 20, fps_d = 1, rotate = 0;
  gchar *dir = NULL, *caps = NULL, *sink_props = NULL, *recording;
  gboolean events = FALSE;
  gdouble pre_record = 2, post_record = 5;
  gchar **event_at = NULL;
  GOptionEntry entries[] = {
    {"streams", 0, 0, G_OPTION_ARG_INT, &streams, "Streams (1-16)", "N"},
    {"seconds", 0, 0, G_OPTION_ARG_INT, &seconds, "Seconds to record", "S"},
    {"dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Where cam<N>.raw go", "DIR"},
    {"caps", 0, 0, G_OPTION_ARG_STRING, &caps, "Caps of every stream", "CAPS"},
    {"sink-props", 0, 0, G_OPTION_ARG_STRING, &sink_props,
        "Extra rtframesink properties", "PROPS"},
    {"rotate", 0, 0, G_OPTION_ARG_INT, &rotate,
        "A new file every S seconds: cam<N>-%05d.raw", "S"},
    {"trigger", 0, 0, G_OPTION_ARG_NONE, &events,
        "Record events only: Enter or SIGUSR1 triggers one (SIGUSR2 "
          "stops it), each in cam<N>-event-%05d.raw", NULL},
    {"event", 0, 0, G_OPTION_ARG_STRING_ARRAY, &event_at,
        "--trigger: a trigger T seconds in (repeat)", "T"},
    {"pre-record", 0, 0, G_OPTION_ARG_DOUBLE, &pre_record,
        "--trigger: seconds kept from before a trigger (default 2)", "S"},
    {"post-record", 0, 0, G_OPTION_ARG_DOUBLE, &post_record,
        "--trigger: seconds recorded after a trigger (default 5)", "S"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- record live streams with "
      "rtframesink");
  GError *err = NULL;
  GString *desc = g_string_new (NULL);
  GstElement *pipeline;
  GstCaps *c;
  App app = { 0 };
  guint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  g_option_context_free (ctx);
  if (streams < 1 || streams > MAX_STREAMS || seconds < 1 || pre_record < 0
      || post_record <= 0 || (event_at && !events)) {
    g_printerr ("--streams 1-%d, --seconds >= 1, --pre-record >= 0, "
        "--post-record > 0, --event with --trigger\n", MAX_STREAMS);
    return 1;
  }
  if (caps == NULL)
    caps = g_strdup ("video/x-raw,format=P010_10LE,width=2048,height=928,"
        "framerate=20/1");
  c = gst_caps_from_string (caps);
  if (c == NULL || !gst_structure_get_fraction (gst_caps_get_structure (c,
              0), "framerate", &fps_n, &fps_d) || fps_n <= 0) {
    g_printerr ("--caps needs a framerate: %s\n", caps);
    return 1;
  }
  gst_caps_unref (c);

  /* --trigger: the sinks hold --pre-record seconds and write only events */
  recording = events ? g_strdup_printf ("record=false pre-record-time=%"
      G_GUINT64_FORMAT, (guint64) (pre_record * GST_SECOND)) : g_strdup ("");
  for (i = 0; i < (guint) streams; i++) {
    gchar *rotation = rotate > 0 ?
        g_strdup_printf ("%s-%%05d.raw\" max-file-duration=%" G_GUINT64_FORMAT,
        events ? "-event" : "", (guint64) rotate * GST_SECOND) :
        g_strdup (events ? "-event-%05d.raw\"" : ".raw\"");

    g_string_append_printf (desc, "videotestsrc is-live=true pattern=ball "
        "num-buffers=%d foreground-color=%u ! %s ! rtframesink name=cam%u "
        "location=\"%s/cam%u%s stats-interval=1000000000 %s %s ",
        (gint) ((gint64) seconds * fps_n / fps_d),
        0xff000000u | (0xffu << (8 * (i % 3))), caps, i, dir ? dir : ".", i,
        rotation, recording, sink_props ? sink_props : "");
    g_free (rotation);
  }
  pipeline = gst_parse_launch (desc->str, &err);
  if (pipeline == NULL) {
    g_printerr ("pipeline: %s\n", err->message);
    return 1;
  }
  app.loop = g_main_loop_new (NULL, FALSE);
  app.pipeline = pipeline;
  app.n_streams = streams;
  app.post_record = (guint64) (post_record * GST_SECOND);
  gst_bus_add_watch (GST_ELEMENT_BUS (pipeline), on_message, &app);
  if (events)
    watch_triggers (&app, event_at);
  g_print ("recording %d stream(s) of %s for %d s\n", streams, caps, seconds);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  g_main_loop_run (app.loop);
  gst_element_set_state (pipeline, GST_STATE_NULL);

  gst_bus_remove_watch (GST_ELEMENT_BUS (pipeline));
  gst_object_unref (pipeline);
  g_main_loop_unref (app.loop);
  for (i = 0; i < MAX_STREAMS; i++)
    if (app.last[i])
      gst_structure_free (app.last[i]);
  g_string_free (desc, TRUE);
  g_free (dir);
  g_free (caps);
  g_free (sink_props);
  g_free (recording);
  g_strfreev (event_at);
  return app.status;
}
