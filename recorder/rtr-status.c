/* rtframe-record: the status as JSON */
#include "rtf-pattern.h"
#include "rtr-status.h"
#include "rtr-json.h"
#include "rtr-filesystems.h"

#include <json-glib/json-glib.h>

static void
add_u64 (JsonBuilder * b, const gchar * name, const GstStructure * s,
    const gchar * field)
{
  guint64 v = 0;
  guint small;

  if (s && gst_structure_get_uint (s, field, &small))
    v = small;
  else if (s)
    gst_structure_get_uint64 (s, field, &v);
  json_builder_set_member_name (b, name);
  if (v == G_MAXUINT64)         /* not known */
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, (gint64) MIN (v, (guint64) G_MAXINT64));
}

/* A path as JSON text: bytes that are not UTF-8 (Linux allows any) as
 * U+FFFD, as the sink's messages show them - json-glib wrote them raw, and
 * /status was no JSON (the adversarial read of issue 25, M6) */
static void
add_path (JsonBuilder * b, const gchar * path)
{
  gchar *valid;

  if (path == NULL) {
    json_builder_add_null_value (b);
    return;
  }
  valid = g_utf8_make_valid (path, -1);
  json_builder_add_string_value (b, valid);
  g_free (valid);
}

static void
add_locations (JsonBuilder * b, const GstStructure * s)
{
  const GValue *list = s ? gst_structure_get_value (s, "locations") : NULL;
  guint k;

  if (list == NULL)
    return;
  json_builder_set_member_name (b, "locations");
  json_builder_begin_array (b);
  for (k = 0; k < gst_value_array_get_size (list); k++) {
    const GstStructure *l =
        gst_value_get_structure (gst_value_array_get_value (list, k));

    json_builder_begin_object (b);
    json_builder_set_member_name (b, "location");
    add_path (b, gst_structure_get_string (l, "location"));
    json_builder_set_member_name (b, "state");
    json_builder_add_string_value (b, gst_structure_get_string (l, "state"));
    add_u64 (b, "frames-written", l, "frames-written");
    add_u64 (b, "frames-missed", l, "frames-missed");
    add_u64 (b, "bytes-written", l, "bytes-written");
    add_u64 (b, "latency-p99-ns", l, "latency-p99");
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

static void
add_camera (JsonBuilder * b, const RtrFigures * f, const RtrCameraFigures * cf)
{
  const GstStructure *s = cf->stats;
  guint64 written = 0;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, cf->cam->name);
  json_builder_set_member_name (b, "state");
  json_builder_add_string_value (b,
      rtr_camera_state_name (rtr_figures_camera_state (f, cf)));
  json_builder_set_member_name (b, "location");
  add_path (b, cf->cam->location);
  json_builder_set_member_name (b, "file");
  /* a set's file as file-opened said; one file's, once it holds a frame
   * (no file-opened is posted for it: it said null with 40 frames
   * written) */
  if (cf->file)
    add_path (b, cf->file);
  else if (s && gst_structure_get_uint64 (s, "frames-written", &written)
      && written > 0 && rtf_pattern_check (cf->cam->location, NULL) ==
      RTF_PATTERN_NONE)
    add_path (b, cf->cam->location);
  else
    json_builder_add_null_value (b);
  add_u64 (b, "frames-received", s, "frames-received");
  add_u64 (b, "frames-written", s, "frames-written");
  add_u64 (b, "frames-dropped", s, "frames-dropped");
  add_u64 (b, "frames-missed", s, "frames-missed");
  add_u64 (b, "frames-lost", s, "frames-lost");
  add_u64 (b, "bytes-written", s, "bytes-written");
  add_u64 (b, "frames-queued", s, "frames-queued");
  add_u64 (b, "free-space", s, "free-space");
  add_u64 (b, "time-left-ns", s, "time-left");
  add_u64 (b, "latency-p50-ns", s, "latency-p50");
  add_u64 (b, "latency-p99-ns", s, "latency-p99");
  add_u64 (b, "latency-max-ns", s, "latency-max");
  /* events: how far back one starting now would reach (memory or ring) */
  add_u64 (b, "pre-record-ns", s, "pre-record-span");
  add_u64 (b, "pre-record-bytes", s, "pre-record-bytes");
  json_builder_set_member_name (b, "deadline-ns");
  json_builder_add_int_value (b, (gint64) cf->deadline_ns);
  add_locations (b, s);
  json_builder_end_object (b);
}

/* Each filesystem: its free space, reserve, the rate every camera
 * writing there records at, the seconds of recording left (null: no
 * rate known yet) */
static void
add_filesystems (JsonBuilder * b, const GPtrArray * fss)
{
  guint i;

  json_builder_set_member_name (b, "filesystems");
  json_builder_begin_array (b);
  for (i = 0; fss && i < fss->len; i++) {
    const RtrFilesystem *fs = g_ptr_array_index (fss, i);
    gdouble left = rtr_filesystem_time_left (fs);

    json_builder_begin_object (b);
    json_builder_set_member_name (b, "mount");
    add_path (b, fs->mount);
    json_builder_set_member_name (b, "free-bytes");
    json_builder_add_int_value (b, (gint64) MIN (fs->free, G_MAXINT64));
    json_builder_set_member_name (b, "reserve-bytes");
    json_builder_add_int_value (b, (gint64) MIN (fs->reserve, G_MAXINT64));
    json_builder_set_member_name (b, "recording-rate-bytes");
    json_builder_add_double_value (b, fs->rate);
    json_builder_set_member_name (b, "time-left-seconds");
    if (left >= 0)
      json_builder_add_double_value (b, left);
    else
      json_builder_add_null_value (b);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

gchar *
rtr_status_json (const RtrFigures * f, const gchar * state,
    RtrCommands * commands, const GPtrArray * filesystems)
{
  JsonBuilder *b = json_builder_new ();
  guint i;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "state");
  json_builder_add_string_value (b, state);
  json_builder_set_member_name (b, "events");
  json_builder_add_boolean_value (b, f->events);
  if (commands)
    rtr_commands_status (commands, b);
  json_builder_set_member_name (b, "seconds");
  json_builder_add_double_value (b, f->started ?
      ((f->ended ? f->ended : g_get_monotonic_time ()) - f->started) / 1e6 :
      0.0);
  json_builder_set_member_name (b, "cameras");
  json_builder_begin_array (b);
  for (i = 0; i < f->cameras->len; i++)
    add_camera (b, f, g_ptr_array_index (f->cameras, i));
  json_builder_end_array (b);
  add_filesystems (b, filesystems);
  json_builder_end_object (b);
  return rtr_json_text (b);
}
