/* rtframe-record: each camera's figures, and the lines made of them */
#include "rtr-figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* deadline misses printed one by one before only the count shows */
#define MISSES_PRINTED 5

RtrFigures *
rtr_figures_new (const RtrConfig * c)
{
  RtrFigures *f = g_new0 (RtrFigures, 1);
  guint i;

  f->events = c->events;
  f->continuous = !c->events && !c->idle;
  f->process_start_us = g_get_real_time ();
  f->cameras = g_ptr_array_new ();
  for (i = 0; i < c->cameras->len; i++) {
    RtrCameraFigures *cf = g_new0 (RtrCameraFigures, 1);

    cf->cam = g_ptr_array_index (c->cameras, i);
    g_ptr_array_add (f->cameras, cf);
    rtr_figures_set_deadline (f, i, 0);
  }
  return f;
}

void
rtr_figures_free (RtrFigures * f)
{
  guint i;

  if (f == NULL)
    return;
  for (i = 0; i < f->cameras->len; i++) {
    RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);

    if (cf->stats)
      gst_structure_free (cf->stats);
    g_free (cf->file);
    g_free (cf);
  }
  g_ptr_array_unref (f->cameras);
  g_free (f);
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

void
rtr_figures_set_deadline (RtrFigures * f, guint i, guint64 deadline_ns)
{
  RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
  const gdouble edges[] = RTR_LATENCY_EDGES;
  gdouble d = deadline_ns / 1e9;
  guint k;

  cf->deadline_ns = deadline_ns;
  cf->n_edges = 0;
  for (k = 0; k < RTR_N_LATENCY_EDGES; k++)
    if (edges[k] != d)
      cf->edges[cf->n_edges++] = edges[k];
  if (deadline_ns)
    cf->edges[cf->n_edges++] = d;
  qsort (cf->edges, cf->n_edges, sizeof (gdouble), cmp_double);
}

/* A frame written: its latency into the histogram */
static void
take_written (RtrCameraFigures * cf, const GstStructure * s)
{
  guint64 latency = 0;
  gboolean held = FALSE;
  gdouble sec;
  guint k;

  /* a frame held for pre-record waited in memory by design: its latency
   * is no write's (the adversarial read of issue 25, M4: 42 of 98 event
   * frames over the deadline's bucket while none missed) */
  if (!gst_structure_get_uint64 (s, "latency", &latency)
      || (gst_structure_get_boolean (s, "prerecorded", &held) && held))
    return;
  sec = latency / 1e9;
  for (k = 0; k < cf->n_edges && sec > cf->edges[k]; k++);
  if (k < cf->n_edges)
    cf->buckets[k]++;
  cf->latency_count++;
  cf->latency_sum += sec;
}

void
rtr_figures_started (RtrFigures * f)
{
  if (f->started == 0)
    f->started = f->last_tick = g_get_monotonic_time ();
}

void
rtr_figures_ended (RtrFigures * f)
{
  if (f->ended == 0)
    f->ended = g_get_monotonic_time ();
}

static guint64
u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  if (s)
    gst_structure_get_uint64 (s, field, &v);
  return v;
}

static RtrCameraFigures *
camera_of (RtrFigures * f, GstMessage * msg)
{
  const gchar *name = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
  guint i;

  for (i = 0; i < f->cameras->len; i++) {
    RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);

    if (g_strcmp0 (cf->cam->name, name) == 0)
      return cf;
  }
  return NULL;
}

/* Started and stopped: told by the id the commands gave (an event's, a
 * take's); a recording without one (a continuous recording's first take,
 * from the first frame) is no news */
static void
print_recording (RtrFigures * f, RtrCameraFigures * cf, const GstStructure * s)
{
  const gchar *id = gst_structure_get_string (s, "id");
  guint64 frames = 0, held = 0;

  if (id == NULL || *id == '\0')
    return;
  if (gst_structure_has_name (s, "rtframesink-recording-started")) {
    g_print ("\n%s: %s started in %s (%" G_GUINT64_FORMAT " frames from "
        "before its start)\n", cf->cam->name, id,
        gst_structure_get_string (s, "location"),
        u64 (s, "prerecorded-frames"));
  } else {
    frames = u64 (s, "frames");
    held = u64 (s, "prerecorded-frames");
    g_print ("\n%s: %s stopped (%s): %" G_GUINT64_FORMAT " frames, %"
        G_GUINT64_FORMAT " of them held\n", cf->cam->name, id,
        gst_structure_get_string (s, "reason"), frames, held);
  }
}

static void
print_miss (RtrFigures * f, RtrCameraFigures * cf, const GstStructure * s)
{
  gint64 lateness = 0;

  cf->misses_told++;
  if (f->misses_printed++ >= MISSES_PRINTED)
    return;
  gst_structure_get_int64 (s, "lateness", &lateness);
  g_print ("\n%s: frame %" G_GUINT64_FORMAT " missed its deadline (%s, "
      "%.1f ms late)%s\n", cf->cam->name, u64 (s, "frame"),
      gst_structure_get_string (s, "where"), lateness / 1e6,
      f->misses_printed == MISSES_PRINTED ? "; from now on counted in the "
      "status line" : "");
}

/* The camera an element is part of: its sink ("cam0"), or one of the
 * elements rtr-pipeline.c names after it ("cam0.source", and what that
 * bin holds) */
static RtrCameraFigures *
camera_of_element (RtrFigures * f, GstObject * element)
{
  GstObject *o = gst_object_ref (element), *parent;
  RtrCameraFigures *found = NULL;
  guint i;

  while (o && found == NULL) {
    const gchar *name = GST_OBJECT_NAME (o);

    for (i = 0; i < f->cameras->len && found == NULL; i++) {
      RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
      gsize n = strlen (cf->cam->name);

      if (strncmp (name, cf->cam->name, n) == 0
          && (name[n] == '\0' || name[n] == '.'))
        found = cf;
    }
    parent = gst_object_get_parent (o);
    gst_object_unref (o);
    o = parent;
  }
  if (o)
    gst_object_unref (o);
  return found;
}

gboolean
rtr_figures_failed (RtrFigures * f, GstMessage * msg)
{
  RtrCameraFigures *cf = GST_MESSAGE_SRC (msg) ?
      camera_of_element (f, GST_MESSAGE_SRC (msg)) : NULL;

  if (cf)
    cf->failed = TRUE;
  return cf != NULL;
}

/* Every location of a spread failed (one failed: the others write on) */
static gboolean
every_location_failed (const GstStructure * stats)
{
  const GValue *list = stats ? gst_structure_get_value (stats, "locations") :
      NULL;
  guint k, n = list ? gst_value_array_get_size (list) : 0;

  for (k = 0; k < n; k++) {
    const GstStructure *l =
        gst_value_get_structure (gst_value_array_get_value (list, k));

    if (g_strcmp0 (gst_structure_get_string (l, "state"), "failed") != 0)
      return FALSE;
  }
  return n > 0;
}

RtrCameraState
rtr_figures_camera_state (const RtrFigures * f, const RtrCameraFigures * cf)
{
  if (cf->failed || every_location_failed (cf->stats))
    return RTR_CAMERA_FAILED;
  if (f->started == 0 || f->ended != 0)
    return RTR_CAMERA_IDLE;
  return cf->recording ? RTR_CAMERA_RECORDING : RTR_CAMERA_ARMED;
}

const gchar *
rtr_camera_state_name (RtrCameraState state)
{
  static const gchar *const names[] = { "idle", "armed", "recording",
    "failed"
  };

  return names[state];
}

/* Frames a second from the camera, armed or recording (a camera without
 * a frame rate in its caps: the rate its frames take on disk) */
static void
take_arrival (RtrCameraFigures * cf, const GstStructure * s)
{
  guint64 received = u64 (s, "frames-received"), elapsed = u64 (s, "elapsed");

  if (elapsed > cf->last_elapsed + GST_SECOND / 2
      && received >= cf->last_received) {
    cf->arrival_rate = (received - cf->last_received) /
        ((elapsed - cf->last_elapsed) / 1e9);
    cf->last_received = received;
    cf->last_elapsed = elapsed;
  } else if (elapsed < cf->last_elapsed) {      /* started again */
    cf->last_received = received;
    cf->last_elapsed = elapsed;
  }
}

gboolean
rtr_figures_take (RtrFigures * f, GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  RtrCameraFigures *cf;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT || s == NULL
      || (cf = camera_of (f, msg)) == NULL)
    return FALSE;
  if (gst_structure_has_name (s, "rtframesink-stats")) {
    if (cf->stats)
      gst_structure_free (cf->stats);
    cf->stats = gst_structure_copy (s);
    take_arrival (cf, s);
  } else if (gst_structure_has_name (s, "rtframesink-frame-written")) {
    take_written (cf, s);
  } else if (gst_structure_has_name (s, "rtframesink-file-opened")) {
    g_free (cf->file);
    cf->file = g_strdup (gst_structure_get_string (s, "location"));
  } else if (gst_structure_has_name (s, "rtframesink-recording-started")
      || gst_structure_has_name (s, "rtframesink-recording-stopped")) {
    cf->recording = gst_structure_has_name (s, "rtframesink-recording-started");
    print_recording (f, cf, s);
  } else if (gst_structure_has_name (s, "rtframesink-deadline-missed")) {
    print_miss (f, cf, s);
  } else {
    return FALSE;
  }
  return TRUE;
}

gchar *
rtr_figures_status_line (RtrFigures * f)
{
  guint64 frames = 0, misses = 0, p99 = 0, bytes = 0;
  gint64 now = g_get_monotonic_time ();
  gdouble rate;
  gchar *line;
  guint i;

  for (i = 0; i < f->cameras->len; i++) {
    const GstStructure *s = ((RtrCameraFigures *)
        g_ptr_array_index (f->cameras, i))->stats;

    frames += u64 (s, "frames-written");
    misses += u64 (s, "frames-missed");
    bytes += u64 (s, "bytes-written");
    p99 = MAX (p99, u64 (s, "latency-p99"));
  }
  /* bytes the sinks say they wrote since the last line, over the time
   * since (not a sum of each sink's own interval rate) */
  rate = now > f->last_tick && bytes >= f->last_bytes ?
      (bytes - f->last_bytes) / ((now - f->last_tick) / 1e6) : 0;
  f->last_tick = now;
  f->last_bytes = bytes;
  line = g_strdup_printf ("frames %" G_GUINT64_FORMAT "  %.0f MB/s  misses %"
      G_GUINT64_FORMAT "  p99 %.1f ms", frames, rate / 1e6, misses, p99 / 1e6);
  return line;
}

RtrExit
rtr_figures_print_summary (RtrFigures * f)
{
  gdouble seconds = f->started && f->ended > f->started ?
      (f->ended - f->started) / 1e6 : 0;
  RtrExit status = RTR_EXIT_OK;
  guint i;

  g_print ("\n\nsummary (%.1f s)\n%-8s %8s %8s %8s %8s %8s %8s %8s %9s %8s "
      "%9s\n", seconds, "camera", "written", "dropped", "missed", "lost",
      "p50 ms", "p99 ms", "p99.9 ms", "max ms", "MB/s", "engine");
  for (i = 0; i < f->cameras->len; i++) {
    RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
    const GstStructure *s = cf->stats;

    if (s == NULL) {
      g_print ("%-8s (no statistics: it did not record)\n", cf->cam->name);
      status = RTR_EXIT_FRAMES;
      continue;
    }
    g_print ("%-8s %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8"
        G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8.2f %8.2f %8.2f %9.2f "
        "%8.1f %9s\n", cf->cam->name, u64 (s, "frames-written"),
        u64 (s, "frames-dropped"), u64 (s, "frames-missed"),
        u64 (s, "frames-lost"), u64 (s, "latency-p50") / 1e6,
        u64 (s, "latency-p99") / 1e6, u64 (s, "latency-p99.9") / 1e6,
        u64 (s, "latency-max") / 1e6, seconds > 0 ?
        u64 (s, "bytes-written") / seconds / 1e6 : 0.0,
        gst_structure_get_string (s, "io-engine"));
    if (u64 (s, "frames-dropped") > 0 || u64 (s, "frames-lost") > 0)
      status = RTR_EXIT_FRAMES;
  }
  return status;
}
