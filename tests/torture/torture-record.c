/* The torture test's recording child: appsrc ! capsfilter ! rtframesink,
 * fed stamped frames (frame k carries stamp k and pts k * duration), the
 * plan's properties, its event-recording actions and faults at their
 * moments from a timeline thread, its changes in the stream from the
 * pushing thread; everything the sink says goes to the history at once
 * (torture-history.h) from a bus sync handler. */
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rtf-pattern.h"
#include "rtf-test-util.h"
#include "torture-draw.h"
#include "torture-history.h"
#include "torture-world.h"
#include "torture.h"

/* the longest wait for EOS to reach the bus: far more than any round's
 * disk needs once its stall has ended (the parent's bound is above it) */
#define EOS_WAIT_S 60

typedef struct
{
  TorturePlan plan;
  TortureWorld *world;
  gint hist;
  GstElement *pipeline, *src, *sink;
  GMutex lock;
  GCond cond;
  gint eos, errors;             /* seen on the bus (under lock) */
  guint session;
  gint64 t0;                    /* monotonic us of the first push (0: not
                                 * yet) */
  gboolean finished;            /* the pushing is over, the pipeline down */
  gboolean namer_connected;     /* format-location-full (plan.namer) */
} Rec;

#define HIST(r, ...) \
  G_STMT_START { if (!torture_history_printf ((r)->hist, __VA_ARGS__)) \
      _exit (5); } G_STMT_END

/* ---- the bus ----------------------------------------------------------- */

static const gchar *
domain_name (GQuark q)
{
  if (q == GST_RESOURCE_ERROR)
    return "RESOURCE";
  if (q == GST_STREAM_ERROR)
    return "STREAM";
  if (q == GST_CORE_ERROR)
    return "CORE";
  if (q == GST_LIBRARY_ERROR)
    return "LIBRARY";
  return g_quark_to_string (q);
}

static void
log_error (Rec * r, GstMessage * msg, gboolean error)
{
  GError *err = NULL;
  gchar *debug = NULL, *text, *dbg;

  if (error)
    gst_message_parse_error (msg, &err, &debug);
  else
    gst_message_parse_warning (msg, &err, &debug);
  text = g_strescape (err->message, NULL);
  dbg = g_strescape (debug ? debug : "", NULL);
  HIST (r, "%s\t%s\t%d\t%s\t%s [from %s]", error ? "error" : "warning",
      domain_name (err->domain), err->code, text, dbg,
      GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
  g_free (text);
  g_free (dbg);
  g_free (debug);
  g_error_free (err);
}

/* The free space of the filesystem that held path, as an unprivileged
 * writer sees it (what min-free-space is kept against) */
static guint64
free_space_at (const gchar * path)
{
  gchar *dir = g_path_get_dirname (path);
  struct statvfs sv;
  guint64 bytes = G_MAXUINT64;

  if (statvfs (dir, &sv) == 0)
    bytes = (guint64) sv.f_bavail * sv.f_frsize;
  g_free (dir);
  return bytes;
}

/* A deletion for min-free-space: the free space right after it, so the
 * checker can tell a deletion the disk needed from one it did not */
static void
log_deleted (Rec * r, const GstStructure * s)
{
  const gchar *reason = gst_structure_get_string (s, "reason");
  const gchar *path = gst_structure_get_string (s, "location");

  if (path && g_strcmp0 (reason, "min-free-space") == 0)
    HIST (r, "free %" G_GUINT64_FORMAT, free_space_at (path));
}

static void
log_element (Rec * r, GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  guint64 frame = 0, pts = 0, offset = 0, file = 0;
  guint location = 0;
  gchar *str;

  if (gst_structure_has_name (s, "rtframesink-frame-written")) {
    gst_structure_get_uint64 (s, "frame", &frame);
    gst_structure_get_uint64 (s, "pts", &pts);
    gst_structure_get_uint64 (s, "offset", &offset);
    gst_structure_get_uint64 (s, "file-index", &file);
    gst_structure_get_uint (s, "location-index", &location);
    HIST (r, "w %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
        G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %u", frame, pts, offset,
        file, location);
    return;
  }
  if (!g_str_has_prefix (gst_structure_get_name (s), "rtframesink-")
      || gst_structure_has_name (s, "rtframesink-deadline-missed")
      || gst_structure_has_name (s, "rtframesink-late-completion")
      || gst_structure_has_name (s, "rtframesink-upstream-gap"))
    return;
  str = gst_structure_to_string (s);
  HIST (r, "msg %s", str);
  g_free (str);
  if (gst_structure_has_name (s, "rtframesink-file-deleted"))
    log_deleted (r, s);
}

/* A drop: the sink posts a QoS message for each frame it drops */
static void
log_qos (Rec * r, GstMessage * msg)
{
  guint64 running_time, stream_time, timestamp, duration;
  gboolean live;

  if (GST_MESSAGE_SRC (msg) != GST_OBJECT_CAST (r->sink))
    return;
  gst_message_parse_qos (msg, &live, &running_time, &stream_time, &timestamp,
      &duration);
  HIST (r, "q %" G_GUINT64_FORMAT, timestamp);
}

static GstBusSyncReply
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Rec *r = data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:
      log_element (r, msg);
      break;
    case GST_MESSAGE_QOS:
      log_qos (r, msg);
      break;
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING:
      log_error (r, msg, GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
        g_mutex_lock (&r->lock);
        r->errors++;
        g_cond_broadcast (&r->cond);
        g_mutex_unlock (&r->lock);
      }
      break;
    case GST_MESSAGE_EOS:
      HIST (r, "eos");
      g_mutex_lock (&r->lock);
      r->eos++;
      g_cond_broadcast (&r->cond);
      g_mutex_unlock (&r->lock);
      break;
    default:
      break;
  }
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* Waits until eos (or errors) passes `eos_before`; FALSE on timeout */
static gboolean
wait_eos (Rec * r, gint eos_before, gint errors_before)
{
  gint64 end = g_get_monotonic_time () + EOS_WAIT_S * G_TIME_SPAN_SECOND;
  gboolean ok = TRUE;

  g_mutex_lock (&r->lock);
  while (r->eos == eos_before && r->errors == errors_before && ok)
    ok = g_cond_wait_until (&r->cond, &r->lock, end);
  g_mutex_unlock (&r->lock);
  return ok;
}

static gint
errors_seen (Rec * r)
{
  gint n;

  g_mutex_lock (&r->lock);
  n = r->errors;
  g_mutex_unlock (&r->lock);
  return n;
}

static gint
eos_seen (Rec * r)
{
  gint n;

  g_mutex_lock (&r->lock);
  n = r->eos;
  g_mutex_unlock (&r->lock);
  return n;
}

/* ---- the pipeline ------------------------------------------------------ */

static gboolean
on_seek_data (GstAppSrc * src, guint64 offset, gpointer data)
{
  return TRUE;                  /* frames are made, not read: any place */
}

static void
set_locations (Rec * r)
{
  const TorturePlan *p = &r->plan;
  guint i;

  if (p->use_locations) {
    GString *v = g_string_new ("<");

    for (i = 0; i < p->n_loc; i++) {
      gchar *l = torture_world_location (p, r->world, i, r->session);

      g_string_append_printf (v, "%s\"%s\"", i ? "," : "", l);
      g_free (l);
    }
    g_string_append_c (v, '>');
    gst_util_set_object_arg (G_OBJECT (r->sink), "locations", v->str);
    g_string_free (v, TRUE);
  } else {
    gchar *l = torture_world_location (p, r->world, 0, r->session);

    g_object_set (r->sink, "location", l, NULL);
    g_free (l);
  }
}

/* format-location-full: the time fields from the first frame's pts (as
 * a camera's clock would give them, from 2000-01-01); with namer 2 every
 * odd file is asked a name the pattern does not make, which the sink
 * must refuse for its own */
static gchar *
name_file (GstElement * sink, guint id, GstSample * sample, Rec * r)
{
  GstBuffer *b = gst_sample_get_buffer (sample);
  gchar *loc = torture_world_location (&r->plan, r->world, 0, r->session);
  gint64 us = G_GINT64_CONSTANT (946684800000000);
  gchar *name;

  if (b && GST_BUFFER_PTS_IS_VALID (b))
    us += (gint64) (GST_BUFFER_PTS (b) / 1000);
  if (r->plan.namer == 2 && id % 2) {
    gchar *dir = g_path_get_dirname (loc);

    name = g_strdup_printf ("%s/not-a-file-of-the-set-%u.raw", dir, id);
    g_free (dir);
  } else {
    name = rtf_pattern_format_at (loc, id, us);
  }
  g_free (loc);
  return name;
}

static void
set_sink_props (Rec * r)
{
  const TorturePlan *p = &r->plan;
  GObject *s = G_OBJECT (r->sink);

  set_locations (r);
  if (p->pattern)
    g_object_set (s, "max-file-size", p->max_file_size, "max-file-duration",
        p->max_file_duration, "max-files", p->max_files, "start-index",
        p->start_index, NULL);
  g_object_set (s, "frame-messages", TRUE, "min-free-space",
      p->min_free_space, "index", p->index, "checksums", p->checksums,
      "sync-interval", p->sync_interval, "io-depth", p->io_depth,
      "preallocate", p->preallocate, "max-size-buffers", p->max_size_buffers,
      "max-size-bytes", p->max_size_bytes, "deadline", p->deadline,
      "location-timeout", p->location_timeout, "stop-timeout",
      p->stop_timeout, "stats-interval", p->stats_interval, "record",
      !p->record_false, "pre-record-time", p->pre_record_time, NULL);
  if (p->extent_size_hint)
    g_object_set (s, "extent-size-hint", p->extent_size_hint, NULL);
  if (p->keep) {
    gchar *keep = torture_world_keep_location (r->world);

    g_object_set (s, "keep-location", keep, NULL);
    g_free (keep);
  }
  gst_util_set_object_arg (s, "io-engine", p->io_engine);
  gst_util_set_object_arg (s, "direct", p->direct);
  gst_util_set_object_arg (s, "leaky", p->leaky);
  gst_util_set_object_arg (s, "placement", p->placement);
  /* A pause races in GStreamer's core when the sink changes state
   * asynchronously: PAUSED then PLAYING can leave the pipeline PAUSED for
   * good, the bin's continuing thread and the streaming thread each
   * waiting for the other (seed 0x383906b5f8ad46f8; appsrc ! capsfilter !
   * fakesink hung 1 in 198 and 1 in 13 pauses on GStreamer 1.22, even
   * after waiting for the start to settle).  With async=false the sink
   * still holds the frame it is given in PAUSED (the preroll wait its
   * unlock must end) and no run of 4,000 hung.  A camera's pipeline is
   * live and never prerolls either. */
  if (p->mid == TORTURE_MID_PAUSE)
    g_object_set (s, "async", FALSE, NULL);
  if (p->namer && !r->namer_connected) {
    g_signal_connect (s, "format-location-full", G_CALLBACK (name_file), r);
    r->namer_connected = TRUE;
  }
}

/* Every frame as it reaches the sink's pad, with its running time: what
 * was asked of the sink, against which the checker counts what it
 * reports (written, dropped, lost, discarded) and models event recording.
 * (On the streaming thread, before render: the next frame's line cannot
 * come before this frame's render has returned.) */
static GstPadProbeReturn
on_frame_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Rec *r = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstEvent *ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  guint64 rt = G_MAXUINT64;

  if (ev) {
    const GstSegment *segment;

    gst_event_parse_segment (ev, &segment);
    rt = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));
    gst_event_unref (ev);
  }
  HIST (r, "in %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
      GST_BUFFER_PTS (buf), rt);
  return GST_PAD_PROBE_OK;
}

static void
watch_frames_in (Rec * r)
{
  GstPad *pad = gst_element_get_static_pad (r->sink, "sink");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_frame_in, r, NULL);
  gst_object_unref (pad);
}

static gboolean
make_pipeline (Rec * r)
{
  gchar *caps_str = torture_plan_caps (&r->plan);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstElement *filter;
  GstBus *bus;

  r->pipeline = gst_pipeline_new ("torture");
  r->src = gst_element_factory_make ("appsrc", "src");
  filter = gst_element_factory_make ("capsfilter", "filter");
  r->sink = gst_element_factory_make ("rtframesink", "sink");
  g_free (caps_str);
  if (!r->src || !filter || !r->sink || !caps) {
    if (caps)
      gst_caps_unref (caps);
    return FALSE;
  }
  /* not block=TRUE: a push into a full appsrc whose streaming thread has
   * stopped on an error waits forever (push_frames waits for room itself) */
  g_object_set (r->src, "caps", caps, "format", GST_FORMAT_TIME,
      "stream-type", GST_APP_STREAM_TYPE_SEEKABLE, "block", FALSE,
      "max-bytes", (guint64) 0, NULL);
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  g_signal_connect (r->src, "seek-data", G_CALLBACK (on_seek_data), r);
  set_sink_props (r);
  gst_bin_add_many (GST_BIN (r->pipeline), r->src, filter, r->sink, NULL);
  if (!gst_element_link_many (r->src, filter, r->sink, NULL))
    return FALSE;
  watch_frames_in (r);
  bus = gst_pipeline_get_bus (GST_PIPELINE (r->pipeline));
  gst_bus_set_sync_handler (bus, on_message, r, NULL);
  gst_object_unref (bus);
  return TRUE;
}

static GstBuffer *
make_frame (Rec * r, guint64 k)
{
  const TorturePlan *p = &r->plan;
  GstAllocationParams params;
  GstBuffer *buf;
  GstMapInfo map;

  gst_allocation_params_init (&params);
  if (p->aligned)
    params.align = 4095;
  buf = gst_buffer_new_allocate (NULL, p->frame_size, &params);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  rtf_test_fill_frame (map.data, map.size, p->stream, k);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = k * p->duration_ns;
  GST_BUFFER_DURATION (buf) = p->duration_ns;
  GST_BUFFER_OFFSET (buf) = k;
  GST_BUFFER_OFFSET_END (buf) = k + 1;
  return buf;
}

static void
log_final (Rec * r)
{
  GstStructure *st = NULL;
  gchar *str;

  g_object_get (r->sink, "stats", &st, NULL);
  if (st == NULL)
    return;
  str = gst_structure_to_string (st);
  HIST (r, "final %u %s", r->session, str);
  g_free (str);
  gst_structure_free (st);
}

static const gchar *
state_result (GstStateChangeReturn ret)
{
  return ret == GST_STATE_CHANGE_FAILURE ? "failed" :
      ret == GST_STATE_CHANGE_ASYNC ? "async" : "ok";
}

/* ---- the timeline: actions and faults at their moments ----------------- */

/* a cgroup file takes one write(2), not g_file_set_contents's rename */
static gboolean
write_file (const gchar * path, const gchar * text)
{
  gint fd = open (path, O_WRONLY | O_CLOEXEC);
  gssize n = strlen (text);
  gboolean ok = fd >= 0 && write (fd, text, n) == n;

  if (fd >= 0)
    close (fd);
  return ok;
}

typedef enum
{
  ITEM_ACT,
  ITEM_STALL_ON,
  ITEM_STALL_OFF,
  ITEM_RMDIR,
  ITEM_KILL,
  ITEM_SPLIT_AT
} ItemKind;

typedef struct
{
  guint ms;
  ItemKind kind;
  guint act;
} Item;

static gint
item_cmp (gconstpointer a, gconstpointer b)
{
  const Item *x = a, *y = b;

  return x->ms < y->ms ? -1 : x->ms > y->ms;
}

static GstClockTime
running_time_now (Rec * r)
{
  GstClock *clock = gst_element_get_clock (r->pipeline);
  GstClockTime now;

  if (clock == NULL)
    return GST_CLOCK_TIME_NONE;
  now = gst_clock_get_time (clock) - gst_element_get_base_time (r->pipeline);
  gst_object_unref (clock);
  return now;
}

static gboolean
record_event (Rec * r, gboolean on)
{
  GstStructure *s = gst_structure_new ("rtframe-record", "record",
      G_TYPE_BOOLEAN, on, NULL);

  return gst_element_send_event (r->pipeline,
      gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s));
}

/* One request-recording (at NONE: now; id NULL: none): accepted? */
static gboolean
request (Rec * r, const gchar * action, GstClockTime at, const gchar * id,
    gboolean check)
{
  GstStructure *req = gst_structure_new ("request", "action", G_TYPE_STRING,
      action, "check", G_TYPE_BOOLEAN, check, NULL), *reply = NULL;
  gboolean ok = FALSE;

  if (at != GST_CLOCK_TIME_NONE)
    gst_structure_set (req, "running-time", G_TYPE_UINT64, (guint64) at, NULL);
  if (id)
    gst_structure_set (req, "id", G_TYPE_STRING, id, NULL);
  g_signal_emit_by_name (r->sink, "request-recording", req, &reply);
  if (reply) {
    gst_structure_get_boolean (reply, "accepted", &ok);
    gst_structure_free (reply);
  }
  gst_structure_free (req);
  return ok;
}

/* A start asked with check first, then made: the answer told is the
 * made one's - inverted when the check said otherwise, so that the
 * checker (which compares it with the sink's own message) fails the
 * round.  (The child is the only one asking: nothing changes between.) */
static gboolean
start_checked (Rec * r, GstClockTime at, guint ms)
{
  gchar *id = g_strdup_printf ("t%u", ms);
  gboolean check = request (r, "start", at, id, TRUE);
  gboolean made = request (r, "start", at, id, FALSE);

  g_free (id);
  /* (without a clock each takes "the next frame", which may move) */
  return at == GST_CLOCK_TIME_NONE || check == made ? made : !made;
}

/* Whether the sink is PLAYING: "now" is its clock's running time then,
 * else the next frame */
static gint
sink_playing (Rec * r)
{
  GstState state;

  GST_OBJECT_LOCK (r->sink);
  state = GST_STATE (r->sink);
  GST_OBJECT_UNLOCK (r->sink);
  return state == GST_STATE_PLAYING;
}

/* An action, between two lines: "act-begin MS WHAT RT P" before it and
 * "act MS WHAT RESULT RT AT P" after it, RT the pipeline clock's running
 * time then (G_MAXUINT64: none), AT the running time asked (G_MAXUINT64:
 * now), P 1 while the sink is PLAYING.  A sink asked for "now" takes the
 * clock's running time somewhere between the two RTs; the frames whose
 * lines come between them may have been handled before or after the
 * request. */
static void
do_action (Rec * r, const TortureAction * a, guint ms)
{
  gboolean ok = TRUE;
  GstClockTime at = GST_CLOCK_TIME_NONE, before = running_time_now (r);

  HIST (r, "act-begin %u %s %" G_GUINT64_FORMAT " %d", ms,
      torture_act_name (a->kind), (guint64) before, sink_playing (r));
  if (a->kind == TORTURE_ACT_START_AT || a->kind == TORTURE_ACT_STOP_AT
      || a->kind == TORTURE_ACT_EXTEND
      || a->kind == TORTURE_ACT_START_CHECKED) {
    at = before;
    if (at != GST_CLOCK_TIME_NONE)
      at += a->delta_ns;
  } else if (a->kind == TORTURE_ACT_START_PAST
      || a->kind == TORTURE_ACT_STOP_PAST) {
    at = before;
    if (at != GST_CLOCK_TIME_NONE)
      at = at > a->delta_ns ? at - a->delta_ns : 0;
  }
  switch (a->kind) {
    case TORTURE_ACT_START_NOW:
    case TORTURE_ACT_START_AT:
    case TORTURE_ACT_START_PAST:
      g_signal_emit_by_name (r->sink, "start-recording", (guint64) at, &ok);
      break;
    case TORTURE_ACT_STOP_NOW:
    case TORTURE_ACT_STOP_AT:
    case TORTURE_ACT_STOP_PAST:
      g_signal_emit_by_name (r->sink, "stop-recording", (guint64) at, &ok);
      break;
    case TORTURE_ACT_EXTEND:
      /* the recording on now, extended to `at` */
      ok = request (r, "extend", at, NULL, FALSE);
      break;
    case TORTURE_ACT_START_CHECKED:
      ok = start_checked (r, at, ms);
      break;
    case TORTURE_ACT_RECORD_TRUE:
    case TORTURE_ACT_RECORD_FALSE:
      g_object_set (r->sink, "record", a->kind == TORTURE_ACT_RECORD_TRUE,
          NULL);
      break;
    case TORTURE_ACT_EVENT_START:
    case TORTURE_ACT_EVENT_STOP:
      ok = record_event (r, a->kind == TORTURE_ACT_EVENT_START);
      break;
    default:
      break;
  }
  HIST (r, "act %u %s %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d",
      ms, torture_act_name (a->kind), ok ? "ok" : "no",
      (guint64) running_time_now (r), (guint64) at, sink_playing (r));
}

static gboolean
throttle (Rec * r, guint64 bps)
{
  const TortureLoc *l = &r->world->loc[r->plan.stall_loc];
  gchar *path = g_build_filename (r->world->cgroup,
      "blkio.throttle.write_bps_device", NULL);
  gchar *line = g_strdup_printf ("%u:%u %" G_GUINT64_FORMAT "\n", l->major,
      l->minor, bps);
  gboolean ok = write_file (path, line);

  g_free (path);
  g_free (line);
  return ok;
}

static void
do_rmdir (Rec * r, guint ms)
{
  const gchar *dir = r->world->loc[r->plan.rmdir_loc].dir;
  gboolean ok;

  if (r->plan.rmdir_how == TORTURE_RMDIR_MV) {
    gchar *to = torture_world_moved_dir (r->world, r->plan.rmdir_loc);

    ok = g_rename (dir, to) == 0;
    g_free (to);
    HIST (r, "fault %u mvdir %s", ms, ok ? "ok" : g_strerror (errno));
  } else {
    gchar *argv[] = { (gchar *) "rm", (gchar *) "-rf", (gchar *) dir, NULL };
    guint tries;

    /* the sink may make a file in it while rm empties it: again */
    for (tries = 0, ok = FALSE; tries < 5 && !ok; tries++)
      ok = g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, NULL, NULL)
          && !g_file_test (dir, G_FILE_TEST_EXISTS);
    HIST (r, "fault %u rmdir %s", ms, ok ? "ok" : "not-all-gone");
  }
}

static void
do_item (Rec * r, const Item * it)
{
  switch (it->kind) {
    case ITEM_ACT:
      do_action (r, &r->plan.act[it->act], it->ms);
      break;
    case ITEM_STALL_ON:
    case ITEM_STALL_OFF:{
      gboolean on = it->kind == ITEM_STALL_ON;
      gboolean ok = throttle (r, on ? r->plan.stall_bps : 0);

      HIST (r, "fault %u stall-%s %s", it->ms, on ? "on" : "off",
          ok ? "ok" : "failed");
      break;
    }
    case ITEM_RMDIR:
      do_rmdir (r, it->ms);
      break;
    case ITEM_SPLIT_AT:{
      GstClockTime at = running_time_now (r);

      if (at != GST_CLOCK_TIME_NONE) {
        at += r->plan.split_delta_ns[it->act];
        g_signal_emit_by_name (r->sink, "split-at-running-time", (guint64) at);
      }
      HIST (r, "act %u split-at-running-time %" G_GUINT64_FORMAT, it->ms,
          (guint64) at);
      break;
    }
    case ITEM_KILL:
      HIST (r, "fault %u kill", it->ms);
      kill (getpid (), SIGKILL);
      break;
  }
}

static GArray *
timeline_items (const TorturePlan * p)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (Item));
  guint i;

  for (i = 0; i < p->n_act; i++) {
    Item it = { p->act[i].at_ms, ITEM_ACT, i };
    g_array_append_val (a, it);
  }
  for (i = 0; i < p->n_split; i++) {
    Item it = { p->split_ms[i], ITEM_SPLIT_AT, i };
    g_array_append_val (a, it);
  }
  if (p->stall_loc >= 0) {
    Item on = { p->stall_ms, ITEM_STALL_ON, 0 };
    Item off = { p->stall_ms + p->stall_len_ms, ITEM_STALL_OFF, 0 };
    g_array_append_val (a, on);
    g_array_append_val (a, off);
  }
  if (p->rmdir_loc >= 0) {
    Item it = { p->rmdir_ms, ITEM_RMDIR, 0 };
    g_array_append_val (a, it);
  }
  if (p->kill_ms >= 0) {
    Item it = { (guint) p->kill_ms, ITEM_KILL, 0 };
    g_array_append_val (a, it);
  }
  g_array_sort (a, item_cmp);
  return a;
}

/* Runs the items at their moments after the first push; once the round
 * is finished only what undoes a fault (the stall's end) still runs */
static gpointer
timeline (gpointer data)
{
  Rec *r = data;
  GArray *items = timeline_items (&r->plan);
  guint i;

  g_mutex_lock (&r->lock);
  while (r->t0 == 0 && !r->finished)
    g_cond_wait (&r->cond, &r->lock);
  for (i = 0; i < items->len; i++) {
    const Item *it = &g_array_index (items, Item, i);
    gint64 due = r->t0 + (gint64) it->ms * 1000;

    while (!r->finished && g_get_monotonic_time () < due)
      g_cond_wait_until (&r->cond, &r->lock, due);
    if (r->finished && it->kind != ITEM_STALL_OFF)
      continue;
    g_mutex_unlock (&r->lock);
    do_item (r, it);
    g_mutex_lock (&r->lock);
  }
  g_mutex_unlock (&r->lock);
  g_array_unref (items);
  return NULL;
}

/* ---- the stream -------------------------------------------------------- */

static GstStateChangeReturn
set_state (Rec * r, GstState state)
{
  return gst_element_set_state (r->pipeline, state);
}

static gboolean
flush_seek (Rec * r, guint64 k)
{
  /* to the next frame's pts: the frames after it are in the new segment */
  return gst_element_seek_simple (r->pipeline, GST_FORMAT_TIME,
      GST_SEEK_FLAG_FLUSH, k * r->plan.duration_ns);
}

static void
do_mid (Rec * r, guint64 k)
{
  const gchar *what = torture_mid_name (r->plan.mid);

  switch (r->plan.mid) {
    case TORTURE_MID_EOS_CONTINUE:{
      gint eos = eos_seen (r), errors = errors_seen (r);
      gboolean got;

      /* the sink posted an error (a write failed after its frame was
       * taken, so the push went through): it forwards no EOS after that -
       * an EOS message would say the recording ended whole -, as finish()
       * knows (seed 0x142bbb9a8d795b50 waited 30 s for one) */
      if (errors > 0) {
        HIST (r, "mid %" G_GUINT64_FORMAT " eos skipped: an error was posted",
            k);
        break;
      }
      gst_app_src_end_of_stream (GST_APP_SRC (r->src));
      got = wait_eos (r, eos, errors);
      HIST (r, "mid %" G_GUINT64_FORMAT " eos %s", k, got ? "ok" : "timeout");
      if (!got)
        _exit (4);
      HIST (r, "mid %" G_GUINT64_FORMAT " flush-seek %s", k,
          flush_seek (r, k) ? "ok" : "failed");
      break;
    }
    case TORTURE_MID_FLUSH:
      HIST (r, "mid %" G_GUINT64_FORMAT " %s %s", k, what,
          flush_seek (r, k) ? "ok" : "failed");
      break;
    case TORTURE_MID_PAUSE:{
      GstStateChangeReturn a, b;

      /* (the sink is not async in these rounds: set_sink_props) - as an
       * application does, the pause waits for the pipeline to settle
       * (bounded: a frame 0 not yet pushed never prerolls) */
      if (k > 0)
        gst_element_get_state (r->pipeline, NULL, NULL, 5 * GST_SECOND);
      a = set_state (r, GST_STATE_PAUSED);

      g_usleep (20000);
      b = set_state (r, GST_STATE_PLAYING);
      HIST (r, "mid %" G_GUINT64_FORMAT " %s %s %s", k, what, state_result (a),
          state_result (b));
      break;
    }
    case TORTURE_MID_RESTART:{
      GstStateChangeReturn ret = set_state (r, GST_STATE_NULL);

      log_final (r);
      r->session = 1;
      set_locations (r);
      HIST (r, "session 1");
      HIST (r, "mid %" G_GUINT64_FORMAT " %s %s %s", k, what,
          state_result (ret), state_result (set_state (r, GST_STATE_PLAYING)));
      break;
    }
    default:
      break;
  }
}

static void
pace (Rec * r, guint64 pushed)
{
  gint64 due, now;

  if (r->plan.rate == 0)
    return;
  due = r->t0 + (gint64) (pushed * G_USEC_PER_SEC / r->plan.rate);
  now = g_get_monotonic_time ();
  if (due > now)
    g_usleep (due - now);
}

/* Waits while appsrc holds a frame not yet taken downstream (so the frames
 * reach the sink as they are pushed, as from a camera); FALSE when an
 * error came meanwhile */
static gboolean
wait_for_room (Rec * r, guint64 k)
{
  gint64 since = g_get_monotonic_time ();
  guint64 level = 0;
  gboolean said = FALSE;

  for (;;) {
    if (errors_seen (r))
      return FALSE;
    g_object_get (r->src, "current-level-buffers", &level, NULL);
    if (level < 1)
      return TRUE;
    /* no disk of a round stalls this long: the stream stopped (the
     * parent's bound takes the stacks) */
    if (!said && g_get_monotonic_time () - since > 20 * G_USEC_PER_SEC) {
      HIST (r, "# frame %" G_GUINT64_FORMAT " not taken downstream for 20 s, "
          "no error: the stream stopped", k - 1);
      said = TRUE;
    }
    g_usleep (200);
  }
}

/* Pushes the frames until the plan's end or an error; returns how the
 * pushing ended */
static const gchar *
push_frames (Rec * r)
{
  const TorturePlan *p = &r->plan;
  guint64 k;

  g_mutex_lock (&r->lock);
  r->t0 = g_get_monotonic_time ();
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
  for (k = 0; k < p->n_frames; k++) {
    GstFlowReturn ret;

    if (k == p->end_frame)
      return "planned";
    if (p->mid != TORTURE_MID_NONE && k == p->mid_frame)
      do_mid (r, k);
    if (!wait_for_room (r, k))
      return "error";
    ret = gst_app_src_push_buffer (GST_APP_SRC (r->src), make_frame (r, k));
    if (ret != GST_FLOW_OK) {
      HIST (r, "# push %" G_GUINT64_FORMAT " refused: %s", k,
          gst_flow_get_name (ret));
      return "refused";
    }
    HIST (r, "push %" G_GUINT64_FORMAT, k);
    pace (r, k + 1);
  }
  return "all";
}

static void
finish (Rec * r)
{
  const gchar *how = "null";

  if (r->plan.end == TORTURE_END_EOS && !errors_seen (r)) {
    gint eos = eos_seen (r), errors = errors_seen (r);

    gst_app_src_end_of_stream (GST_APP_SRC (r->src));
    if (!wait_eos (r, eos, errors)) {
      HIST (r, "# eos did not come within %d s", EOS_WAIT_S);
      _exit (4);
    }
    how = eos_seen (r) > eos ? "eos" : "error";
  } else if (errors_seen (r)) {
    how = "error";
  }
  /* (from here the bus may flush: a request made meanwhile may be told
   * to no one) */
  HIST (r, "# setting to NULL");
  HIST (r, "# set to NULL: %s", state_result (set_state (r, GST_STATE_NULL)));
  log_final (r);
  g_mutex_lock (&r->lock);
  r->finished = TRUE;
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
  HIST (r, "end %s", how);
}

static gboolean
join_cgroup (const TortureWorld * w)
{
  gchar *path, *pid;
  gboolean ok;

  if (w->cgroup == NULL)
    return TRUE;
  path = g_build_filename (w->cgroup, "cgroup.procs", NULL);
  pid = g_strdup_printf ("%d\n", getpid ());
  ok = write_file (path, pid);
  g_free (path);
  g_free (pid);
  return ok;
}

gint
torture_record_main (guint64 seed, const gchar * round_dir, guint abilities)
{
  Rec r;
  gchar *path;
  const gchar *pushed;
  GThread *thread;

  memset (&r, 0, sizeof (r));
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  torture_plan_draw (&r.plan, seed, abilities);
  r.world = torture_world_read (round_dir);
  if (r.world == NULL || r.world->n_loc != r.plan.n_loc) {
    g_printerr ("cannot read the world in %s\n", round_dir);
    return 2;
  }
  /* before the sink's threads: the writer and io_uring's workers are
   * throttled with it */
  if (!join_cgroup (r.world)) {
    g_printerr ("cannot join %s: %s\n", r.world->cgroup, g_strerror (errno));
    return 2;
  }
  path = g_build_filename (round_dir, "history", NULL);
  r.hist = torture_history_open (path);
  if (r.hist < 0) {
    g_printerr ("cannot open %s: %s\n", path, g_strerror (errno));
    return 2;
  }
  g_free (path);
  HIST (&r, "# child %d seed 0x%016" G_GINT64_MODIFIER "x", getpid (), seed);
  if (!make_pipeline (&r)) {
    g_printerr ("cannot make the pipeline\n");
    return 2;
  }
  HIST (&r, "session 0");
  thread = g_thread_new ("timeline", timeline, &r);
  HIST (&r, "# set to PLAYING: %s", state_result (set_state (&r,
              GST_STATE_PLAYING)));
  pushed = push_frames (&r);
  HIST (&r, "# pushing ended: %s", pushed);
  finish (&r);
  g_thread_join (thread);
  gst_object_unref (r.pipeline);
  torture_world_forget (r.world);
  close (r.hist);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
  return 0;
}
