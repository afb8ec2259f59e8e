/* rtframe-record: Prometheus metrics */
#include "config.h"
#include "rtr-metrics.h"
#include "rtr-filesystems.h"

#include <string.h>

typedef enum
{
  COUNTER,
  GAUGE
} Kind;

/* A stats field as one metric a camera */
typedef struct
{
  const gchar *name;
  Kind kind;
  const gchar *field;
  gdouble scale;                /* to base units */
  const gchar *help;
} Metric;

static const Metric camera_metrics[] = {
  {"rtframe_frames_received_total", COUNTER, "frames-received", 1,
      "Frames the sink received from its camera."},
  {"rtframe_frames_written_total", COUNTER, "frames-written", 1,
      "Frames written to disk (reported written: whole in the file)."},
  {"rtframe_frames_dropped_total", COUNTER, "frames-dropped", 1,
      "Frames dropped by the sink (leaky) and never written."},
  {"rtframe_frames_missed_total", COUNTER, "frames-missed", 1,
      "Frames that missed their write deadline (written late or dropped)."},
  {"rtframe_frames_lost_total", COUNTER, "frames-lost", 1,
      "Frames that could not be written (an I/O error or a stop timeout)."},
  {"rtframe_bytes_written_total", COUNTER, "bytes-written", 1,
      "Bytes of the frames written."},
  {"rtframe_files_deleted_total", COUNTER, "files-deleted", 1,
      "Files deleted by max-files or min-free-space."},
  {"rtframe_recordings_total", COUNTER, "recordings", 1,
      "Recordings (events, takes) the sink started."},
  {"rtframe_pre_record_seconds", GAUGE, "pre-record-span", 1e-9,
      "Seconds before now an event starting now would begin with (held in "
        "memory, or in the ring on disk): under pre-record when the camera "
        "has not run that long, or the memory or the disk is short."},
  {"rtframe_pre_record_bytes", GAUGE, "pre-record-bytes", 1,
      "Bytes of those frames (in memory, or in the ring on disk)."},
  {"rtframe_queue_frames", GAUGE, "frames-queued", 1,
      "Frames queued for the writer, not yet taken."},
  {"rtframe_frames_in_flight", GAUGE, "frames-in-flight", 1,
      "Frames taken by the writer and not yet written."},
  {"rtframe_queue_high_water_frames", GAUGE, "queue-high-water-frames", 1,
      "The most frames the queue held so far."},
  {"rtframe_free_space_bytes", GAUGE, "free-space", 1,
      "Bytes free for the recording on its filesystem at the last check."},
  {"rtframe_time_left_seconds", GAUGE, "time-left", 1e-9,
      "Seconds until the free space reaches min-free-space at this camera's "
        "own write rate now (the disk's for every camera: "
        "rtframe_filesystem_time_left_seconds)."},
};

static const Metric location_metrics[] = {
  {"rtframe_location_frames_written_total", COUNTER, "frames-written", 1,
      "Frames written at this location."},
  {"rtframe_location_frames_missed_total", COUNTER, "frames-missed", 1,
      "Frames that missed their deadline at this location."},
  {"rtframe_location_frames_failed_over_total", COUNTER,
        "frames-failed-over", 1,
      "Frames this location could not write, written at another."},
  {"rtframe_location_bytes_written_total", COUNTER, "bytes-written", 1,
      "Bytes written at this location."},
  {"rtframe_location_queue_frames", GAUGE, "frames-queued", 1,
      "Frames queued at this location."},
};

/* A label value, escaped as the format asks (\\, \", \n); bytes that are
 * not UTF-8 (a path may hold any) as U+FFFD: Prometheus refuses a whole
 * scrape for one such label, and says the recorder is down */
static void
append_label (GString * out, const gchar * name, const gchar * value)
{
  gchar *valid = g_utf8_make_valid (value ? value : "", -1);
  const gchar *p;

  g_string_append_printf (out, "%s=\"", name);
  for (p = valid; *p; p++) {
    if (*p == '\\' || *p == '"')
      g_string_append_c (out, '\\');
    if (*p == '\n')
      g_string_append (out, "\\n");
    else
      g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
  g_free (valid);
}

static void
head (GString * out, const gchar * name, const gchar * type, const gchar * help)
{
  g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", name, help,
      name, type);
}

static gboolean
field_value (const GstStructure * s, const gchar * field, gdouble scale,
    gdouble * v)
{
  guint64 u;
  guint small;

  if (s == NULL)
    return FALSE;
  if (gst_structure_get_uint (s, field, &small))
    u = small;
  else if (!gst_structure_get_uint64 (s, field, &u))
    return FALSE;
  if (u == G_MAXUINT64)         /* not known */
    return FALSE;
  *v = u * scale;
  return TRUE;
}

static void
camera_metric (GString * out, const RtrFigures * f, const Metric * m)
{
  guint i;
  gdouble v;

  head (out, m->name, m->kind == COUNTER ? "counter" : "gauge", m->help);
  for (i = 0; i < f->cameras->len; i++) {
    const RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);

    if (!field_value (cf->stats, m->field, m->scale, &v))
      continue;
    g_string_append_printf (out, "%s{", m->name);
    append_label (out, "camera", cf->cam->name);
    g_string_append_printf (out, "} %.17g\n", v);
  }
}

static void
location_metric (GString * out, const RtrFigures * f, const Metric * m)
{
  guint i, k;
  gboolean headed = FALSE;

  for (i = 0; i < f->cameras->len; i++) {
    const RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
    const GValue *list = cf->stats ?
        gst_structure_get_value (cf->stats, "locations") : NULL;

    for (k = 0; list && k < gst_value_array_get_size (list); k++) {
      const GstStructure *l =
          gst_value_get_structure (gst_value_array_get_value (list, k));
      gdouble v;

      if (!field_value (l, m->field, m->scale, &v))
        continue;
      if (!headed)
        head (out, m->name, m->kind == COUNTER ? "counter" : "gauge", m->help);
      headed = TRUE;
      g_string_append_printf (out, "%s{", m->name);
      append_label (out, "camera", cf->cam->name);
      g_string_append_c (out, ',');
      append_label (out, "location", gst_structure_get_string (l, "location"));
      g_string_append_printf (out, "} %.17g\n", v);
    }
  }
}

/* 1 for the state each location is in, labelled */
static void
location_states (GString * out, const RtrFigures * f)
{
  guint i, k;
  gboolean headed = FALSE;

  for (i = 0; i < f->cameras->len; i++) {
    const RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
    const GValue *list = cf->stats ?
        gst_structure_get_value (cf->stats, "locations") : NULL;

    for (k = 0; list && k < gst_value_array_get_size (list); k++) {
      const GstStructure *l =
          gst_value_get_structure (gst_value_array_get_value (list, k));

      if (!headed)
        head (out, "rtframe_location_state", "gauge", "1 for the state a "
            "location is in (active, stalled, failed).");
      headed = TRUE;
      g_string_append (out, "rtframe_location_state{");
      append_label (out, "camera", cf->cam->name);
      g_string_append_c (out, ',');
      append_label (out, "location", gst_structure_get_string (l, "location"));
      g_string_append_c (out, ',');
      append_label (out, "state", gst_structure_get_string (l, "state"));
      g_string_append (out, "} 1\n");
    }
  }
}

static void
latency_histogram (GString * out, const RtrFigures * f)
{
  const gchar *name = "rtframe_write_latency_seconds";
  guint i, k;

  head (out, name, "histogram", "Time from a frame's arrival at the sink to "
      "its last byte written; the camera's deadline is a bucket edge.");
  for (i = 0; i < f->cameras->len; i++) {
    const RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
    guint64 cumulative = 0;

    for (k = 0; k < cf->n_edges; k++) {
      cumulative += cf->buckets[k];
      g_string_append_printf (out, "%s_bucket{", name);
      append_label (out, "camera", cf->cam->name);
      /* (12 digits: a deadline of 25000001 ns is its own bucket, not a
       * second le="0.025" - the adversarial read of issue 25, M5) */
      g_string_append_printf (out, ",le=\"%.12g\"} %" G_GUINT64_FORMAT "\n",
          cf->edges[k], cumulative);
    }
    g_string_append_printf (out, "%s_bucket{", name);
    append_label (out, "camera", cf->cam->name);
    g_string_append_printf (out, ",le=\"+Inf\"} %" G_GUINT64_FORMAT "\n",
        cf->latency_count);
    g_string_append_printf (out, "%s_sum{", name);
    append_label (out, "camera", cf->cam->name);
    g_string_append_printf (out, "} %.9f\n", cf->latency_sum);
    g_string_append_printf (out, "%s_count{", name);
    append_label (out, "camera", cf->cam->name);
    g_string_append_printf (out, "} %" G_GUINT64_FORMAT "\n",
        cf->latency_count);
  }
}

static void
deadlines (GString * out, const RtrFigures * f)
{
  guint i;

  head (out, "rtframe_deadline_seconds", "gauge", "Each frame's write "
      "deadline from its arrival (0: none).");
  for (i = 0; i < f->cameras->len; i++) {
    const RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);

    g_string_append (out, "rtframe_deadline_seconds{");
    append_label (out, "camera", cf->cam->name);
    g_string_append_printf (out, "} %.9f\n", cf->deadline_ns / 1e9);
  }
}

/* Every state of every camera, 1 for the one it is in: a rule asks for
 * state="recording" and holds for continuous and event rigs alike */
static void
camera_states (GString * out, const RtrFigures * f)
{
  guint i, k;

  head (out, "rtframe_camera_state", "gauge", "1 for what the camera does "
      "now: idle (not running), armed (running, not recording: between "
      "events, before a take), recording, failed.");
  for (i = 0; i < f->cameras->len; i++) {
    const RtrCameraFigures *cf = g_ptr_array_index (f->cameras, i);
    RtrCameraState now = rtr_figures_camera_state (f, cf);

    for (k = 0; k < RTR_N_CAMERA_STATES; k++) {
      g_string_append (out, "rtframe_camera_state{");
      append_label (out, "camera", cf->cam->name);
      g_string_append_c (out, ',');
      append_label (out, "state", rtr_camera_state_name (k));
      g_string_append_printf (out, "} %d\n", k == now);
    }
  }
}

static void
commands (GString * out, RtrCommands * k)
{
  guint i;

  if (k == NULL)
    return;
  head (out, "rtframe_commands_total", "counter", "Commands to every camera "
      "(trigger, start, stop) answered, by outcome (refused: nothing "
      "changed).");
  for (i = 0; i < rtr_commands_n_tallies (); i++) {
    const gchar *command, *outcome;
    guint64 n = rtr_commands_tally (k, i, &command, &outcome);

    g_string_append (out, "rtframe_commands_total{");
    append_label (out, "command", command);
    g_string_append_c (out, ',');
    append_label (out, "outcome", outcome);
    g_string_append_printf (out, "} %" G_GUINT64_FORMAT "\n", n);
  }
}

/* A filesystem's figures: each a value, or < 0 where it is not known */
static gdouble
fs_free (const RtrFilesystem * fs)
{
  return fs->free;
}

static gdouble
fs_reserve (const RtrFilesystem * fs)
{
  return fs->reserve;
}

static gdouble
fs_rate (const RtrFilesystem * fs)
{
  return fs->rate > 0 ? fs->rate : -1;
}

static gdouble
fs_recycling (const RtrFilesystem * fs)
{
  return fs->recycling;
}

static const struct
{
  const gchar *name;
    gdouble (*value) (const RtrFilesystem * fs);
  const gchar *help;
} filesystem_metrics[] = {
  {"rtframe_filesystem_free_bytes", fs_free,
      "Bytes free on a filesystem the cameras write to."},
  {"rtframe_filesystem_reserve_bytes", fs_reserve,
      "Bytes the sinks writing there keep free (the most min-free-space of "
        "them)."},
  {"rtframe_filesystem_recording_rate_bytes", fs_rate,
      "Bytes a second every camera writing there writes while it records "
        "(frame size at the caps' frame rate, or at the rate frames "
        "arrive)."},
  {"rtframe_filesystem_recycling", fs_recycling,
      "1 when every camera writing there records continuously and deletes "
        "its own oldest files to stay above its reserve (a pattern and "
        "min-free-space): running out is how it records."},
  {"rtframe_filesystem_time_left_seconds", rtr_filesystem_time_left,
      "Seconds of recording left on the filesystem with every camera "
        "writing there recording, until the free space reaches the "
        "reserve."},
};

static void
filesystems (GString * out, const GPtrArray * fss)
{
  guint i, k;

  for (k = 0; k < G_N_ELEMENTS (filesystem_metrics); k++) {
    head (out, filesystem_metrics[k].name, "gauge", filesystem_metrics[k].help);
    for (i = 0; i < fss->len; i++) {
      const RtrFilesystem *fs = g_ptr_array_index (fss, i);
      gdouble v = filesystem_metrics[k].value (fs);

      if (v < 0)
        continue;
      g_string_append_printf (out, "%s{", filesystem_metrics[k].name);
      append_label (out, "mount", fs->mount);
      g_string_append_printf (out, "} %.17g\n", v);
    }
  }
}

static void
recorder_info (GString * out, const RtrFigures * f)
{
  /* (a restart shows as a change of it: a recorder that fails and is
   * started again by systemd is down for less than a scrape) */
  head (out, "rtframe_recorder_start_time_seconds", "gauge", "When the "
      "recorder process started, seconds since the Unix epoch.");
  g_string_append_printf (out, "rtframe_recorder_start_time_seconds %.3f\n",
      f->process_start_us / 1e6);
  head (out, "rtframe_recorder_info", "gauge", "The recorder: its version "
      "and mode (continuous: every frame or takes; events: triggered "
      "events).");
  g_string_append (out, "rtframe_recorder_info{");
  append_label (out, "version", VERSION);
  g_string_append_c (out, ',');
  append_label (out, "mode", f->events ? "events" : "continuous");
  g_string_append (out, "} 1\n");
}

gchar *
rtr_metrics_text (const RtrFigures * f, RtrCommands * k, const GPtrArray * fss)
{
  GString *out = g_string_new (NULL);
  guint i;

  recorder_info (out, f);
  camera_states (out, f);
  for (i = 0; i < G_N_ELEMENTS (camera_metrics); i++)
    camera_metric (out, f, &camera_metrics[i]);
  latency_histogram (out, f);
  deadlines (out, f);
  for (i = 0; i < G_N_ELEMENTS (location_metrics); i++)
    location_metric (out, f, &location_metrics[i]);
  location_states (out, f);
  commands (out, k);
  filesystems (out, fss);
  return g_string_free (out, FALSE);
}
