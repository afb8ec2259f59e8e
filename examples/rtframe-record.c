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
 * Exit status: 0 when every frame was written, 2 when frames were dropped
 * or lost, 1 on an error.  What an application embedding rtframesink does:
 * read rtframesink-stats (periodic, and final before EOS) and
 * rtframesink-deadline-missed messages from the bus. */
#include <gst/gst.h>
#include <stdio.h>
#include <string.h>

#define MAX_STREAMS 16

typedef struct
{
  GMainLoop *loop;
  guint n_streams;
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

int
main (int argc, char **argv)
{
  gint streams = 3, seconds = 5, fps_n = 20, fps_d = 1, rotate = 0;
  gchar *dir = NULL, *caps = NULL, *sink_props = NULL;
  GOptionEntry entries[] = {
    {"streams", 0, 0, G_OPTION_ARG_INT, &streams, "Streams (1-16)", "N"},
    {"seconds", 0, 0, G_OPTION_ARG_INT, &seconds, "Seconds to record", "S"},
    {"dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Where cam<N>.raw go", "DIR"},
    {"caps", 0, 0, G_OPTION_ARG_STRING, &caps, "Caps of every stream", "CAPS"},
    {"sink-props", 0, 0, G_OPTION_ARG_STRING, &sink_props,
        "Extra rtframesink properties", "PROPS"},
    {"rotate", 0, 0, G_OPTION_ARG_INT, &rotate,
        "A new file every S seconds: cam<N>-%05d.raw", "S"},
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
  if (streams < 1 || streams > MAX_STREAMS || seconds < 1) {
    g_printerr ("--streams 1-%d, --seconds >= 1\n", MAX_STREAMS);
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

  for (i = 0; i < (guint) streams; i++) {
    gchar *rotation = rotate > 0 ?
        g_strdup_printf ("-%%05d.raw\" max-file-duration=%" G_GUINT64_FORMAT,
        (guint64) rotate * GST_SECOND) : g_strdup (".raw\"");

    g_string_append_printf (desc, "videotestsrc is-live=true pattern=ball "
        "num-buffers=%d foreground-color=%u ! %s ! rtframesink name=cam%u "
        "location=\"%s/cam%u%s stats-interval=1000000000 %s ",
        (gint) ((gint64) seconds * fps_n / fps_d),
        0xff000000u | (0xffu << (8 * (i % 3))), caps, i, dir ? dir : ".", i,
        rotation, sink_props ? sink_props : "");
    g_free (rotation);
  }
  pipeline = gst_parse_launch (desc->str, &err);
  if (pipeline == NULL) {
    g_printerr ("pipeline: %s\n", err->message);
    return 1;
  }
  app.loop = g_main_loop_new (NULL, FALSE);
  app.n_streams = streams;
  gst_bus_add_watch (GST_ELEMENT_BUS (pipeline), on_message, &app);
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
  return app.status;
}
