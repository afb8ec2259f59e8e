/* rtframe: rtframesink's pre-record on disk (keep-location) - an event
 * recorder that writes every frame into a ring of files at location, and
 * keeps each recording by linking the files that hold its frames into a
 * directory of its own (common/writer/rtf-writer-ring.c, never a copy).
 *
 * The recordings are decided by the same recorder as from memory
 * (common/frames/rtf-recorder.c), so the same requests keep the same
 * frames on every camera: the recorder holds each frame's number and
 * times only (the frame itself is in the ring), and a start's backlog is
 * the frames from its start less pre-record-time, the first of which is
 * the recording's first frame.  The memory does not grow with
 * pre-record-time beyond those few bytes a frame. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframedebug.h"
#include "gstrtframerecord.h"
#include "gstrtframering.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define GST_CAT_DEFAULT gst_rtframe_recorder_debug

/* ---- start ------------------------------------------------------------- */

/* The highest number of a name the pattern makes that is there - a
 * recording's directory of keep-location, a file of the ring
 * (G_MAXUINT64: none) */
static guint64
highest_there (const gchar * pattern)
{
  RtfPattern p;
  GDir *d;
  const gchar *name;
  guint64 n, high = G_MAXUINT64;

  if (!rtf_pattern_parse (pattern, &p))
    return high;
  if ((d = g_dir_open (p.dir, 0, NULL)) != NULL) {
    while ((name = g_dir_read_name (d)) != NULL)
      if (rtf_pattern_match (&p, name, &n)
          && (high == G_MAXUINT64 || n > high))
        high = n;
    g_dir_close (d);
  }
  rtf_pattern_clear (&p);
  return high;
}

/* The device of the nearest directory of path that is there */
static gboolean
device_of (const gchar * path, dev_t * dev)
{
  gchar *dir = g_strdup (path);
  struct stat st;
  gboolean found;

  while (!(found = stat (dir, &st) == 0) && strcmp (dir, "/") != 0
      && strcmp (dir, ".") != 0) {
    gchar *up = g_path_get_dirname (dir);

    g_free (dir);
    dir = up;
  }
  g_free (dir);
  *dev = st.st_dev;
  return found;
}

gboolean
gst_rtframe_sink_ring_check (GstRtFrameSink * self, const gchar * location,
    gboolean rotate, gchar ** why)
{
  gchar *loc_dir, *keep_dir;
  dev_t a, b;
  gboolean same;

  self->ring = FALSE;
  if (self->keep_location == NULL || self->keep_location[0] == '\0')
    return TRUE;
  if (self->locations) {
    *why = g_strdup ("keep-location records one location's ring: with "
        "locations, pre-record is kept in memory");
    return FALSE;
  }
  if (!rotate) {
    *why = g_strdup_printf ("keep-location needs location to be a pattern "
        "(cam0-%%05d.raw): the ring is a set of files, \"%s\" is one file",
        location);
    return FALSE;
  }
  if (self->pre_record_time == 0) {
    *why = g_strdup ("keep-location keeps pre-record-time before each "
        "recording: set pre-record-time");
    return FALSE;
  }
  if (self->max_files) {
    *why = g_strdup ("with keep-location the ring keeps pre-record-time of "
        "files: max-files cannot be set too");
    return FALSE;
  }
  /* a frame dropped from the queue may be one a recording counts already
   * (held by number); one dropped as it comes never is */
  if (self->leaky == GST_RTFRAME_LEAKY_DOWNSTREAM) {
    *why = g_strdup ("with keep-location leaky=downstream would drop "
        "frames a recording has already counted: use leaky=upstream or no");
    return FALSE;
  }
  if (rtf_pattern_check (self->keep_location, why) != RTF_PATTERN_OK) {
    gchar *inner = *why;

    *why = g_strdup_printf ("keep-location \"%s\" must name each "
        "recording's directory by its number (events/event-%%05d)%s%s",
        self->keep_location, inner ? ": " : "", inner ? inner : "");
    g_free (inner);
    return FALSE;
  }
  if (rtf_pattern_is_timed (self->keep_location)) {
    *why = g_strdup ("keep-location names directories by number only");
    return FALSE;
  }
  /* a ring keeps by linking: one filesystem */
  loc_dir = g_path_get_dirname (location);
  keep_dir = g_path_get_dirname (self->keep_location);
  same = device_of (loc_dir, &a) && device_of (keep_dir, &b) && a == b;
  if (!same)
    *why = g_strdup_printf ("keep-location (%s) must be on the filesystem "
        "of location (%s): a recording keeps the ring's files by linking "
        "them, never by copying", keep_dir, loc_dir);
  g_free (loc_dir);
  g_free (keep_dir);
  if (!same)
    return FALSE;
  self->keep_next = highest_there (self->keep_location) + 1;
  /* the ring goes on after the files there (an earlier run's, which
   * recordings may keep: their names are never taken over) */
  self->ring_first_file = MAX ((guint64) self->start_index,
      highest_there (location) + 1);
  self->ring_gone_upto = G_MAXUINT64;
  self->ring_floor = 0;
  self->ring_short_told = 0;
  self->ring = TRUE;
  return TRUE;
}

/* ---- frames (the streaming thread) ------------------------------------ */

/* The frame number the next frame offered gets at the latest: the asks
 * made now are taken before it */
static guint64
next_seq (GstRtFrameSink * self)
{
  return self->last_seq == G_MAXUINT64 ? 0 : self->last_seq + 1;
}

/* Held entries too old for any recording go (the frames stay in the
 * ring until the floor passes their file) */
static void
forget_expired (GstRtFrameSink * self)
{
  RtfHeldFrame h;

  while (rtf_recorder_pop_expired (self->recorder, &h));
}

void
gst_rtframe_sink_ring_forget_all (GstRtFrameSink * self)
{
  RtfHeldFrame h;

  if (self->recorder)
    while (rtf_recorder_pop_all (self->recorder, &h));
}

/* A recording starts: it keeps the frames of its backlog (their numbers
 * only) and every frame from now until its end */
static void
keep_begin (GstRtFrameSink * self, const RtfRecordTurn * turn)
{
  RtfHeldFrame h;
  guint64 first = G_MAXUINT64, from_rt = G_MAXUINT64;
  guint n = 0;

  self->keep_frames = self->keep_bytes = 0;
  self->keep_last = self->keep_last_rt = G_MAXUINT64;
  while (rtf_recorder_pop_backlog (self->recorder, 0, 0, &h)) {
    if (n++ == 0) {
      first = h.seq;
      from_rt = h.times.running_time;
    }
    self->keep_frames++;
    self->keep_bytes += h.size;
    self->keep_last = h.seq;
    self->keep_last_rt = h.times.running_time;
  }
  /* started and ended before this frame with no frame held for it: there
   * is nothing of it (as from memory: it never was) */
  if (n == 0 && turn && turn->ended)
    return;
  self->keep_prerecorded = n;
  /* none held: it starts with the frame coming */
  if (first == G_MAXUINT64) {
    first = next_seq (self);
    from_rt = self->ring_times.running_time;
  }
  self->keep_first = first;
  (void) gst_rtframe_sink_mark_first (self, turn, n, from_rt);
  GST_INFO_OBJECT (self, "recording %" G_GUINT64_FORMAT " keeps frames "
      "from %" G_GUINT64_FORMAT " (%u before its start)",
      self->recordings_marked - 1, first, n);
  rtf_writer_keep_begin (self->writer, self->recordings_marked - 1, first,
      from_rt, n, next_seq (self));
}

void
gst_rtframe_sink_ring_keep_end (GstRtFrameSink * self)
{
  RtfKeepInfo info = { 0 };

  info.keep = self->recordings_marked - 1;
  info.first_seq = self->keep_first;
  info.last_seq = self->keep_last;
  info.last_running_time = self->keep_last_rt;
  info.frames = self->keep_frames;
  info.bytes = self->keep_bytes;
  info.prerecorded = self->keep_prerecorded;
  rtf_writer_keep_end (self->writer, &info, next_seq (self));
  /* its last file ends with it: the next frame starts a new one, which
   * the ring alone holds */
  g_atomic_int_set (&self->split_pending, 1);
}

/* min-free-space took frames of the ring a recording could still want
 * (the file helper says how far): they are held no more, so no later
 * recording counts them */
static void
forget_gone (GstRtFrameSink * self)
{
  guint64 gone = __atomic_load_n (&self->ring_gone_upto, __ATOMIC_RELAXED);
  guint64 oldest;

  if (gone == G_MAXUINT64)
    return;
  while ((oldest = rtf_recorder_oldest_held (self->recorder)) != G_MAXUINT64
      && oldest <= gone && rtf_recorder_expire_oldest (self->recorder))
    forget_expired (self);
}

/* (a start is only asked of the writer: it cannot fail here) */
static gboolean
keep_begin_turn (GstRtFrameSink * self, const RtfRecordTurn * turn)
{
  keep_begin (self, turn);
  return TRUE;
}

static const GstRtFrameTurnOps ring_turns = {
  forget_expired, keep_begin_turn
};

gboolean
gst_rtframe_sink_ring_frame (GstRtFrameSink * self,
    const RtfFrameTimes * times, gsize size)
{
  RtfRecordAction action;
  RtfRecordTurn live;
  gboolean has_live;

  self->ring_times = *times;
  self->ring_size = size;
  forget_gone (self);
  (void) gst_rtframe_sink_take_turns (self, times->running_time, &ring_turns,
      &action, &live, &has_live);
  /* a recording from the first frame (record=true), or one that starts
   * with no frame held before it */
  if (action == RTF_RECORD_WRITE && !self->recording_open)
    keep_begin (self, has_live ? &live : NULL);
  self->ring_hold = action == RTF_RECORD_HOLD;
  return action == RTF_RECORD_WRITE;
}

/* The frame offered was taken as `seq` (or not: G_MAXUINT64): held by
 * number, counted in the recording on, and the ring's floor moves */
void
gst_rtframe_sink_ring_committed (GstRtFrameSink * self, guint64 seq)
{
  RtfHeldFrame h = { 0 };
  gsize size = self->ring_size;
  guint64 floor;

  if (seq != G_MAXUINT64 && self->ring_hold
      && rtf_recorder_make_room (self->recorder, size)) {
    forget_expired (self);
    h.seq = seq;
    h.size = size;
    h.times = self->ring_times;
    rtf_frame_origin_clear (&h.origin);
    h.position = 0;
    rtf_recorder_hold (self->recorder, &h);
  } else if (seq != G_MAXUINT64 && self->recording_open) {
    self->keep_last = seq;
    self->keep_frames++;
    self->keep_bytes += size;
    self->keep_last_rt = self->ring_times.running_time;
  }
  if (seq != G_MAXUINT64)
    self->last_seq = seq;
  self->ring_hold = FALSE;
  /* no recording will want a frame older than the oldest held, or than
   * the recording on's first (its files are linked as it goes) */
  floor = rtf_recorder_oldest_held (self->recorder);
  if (floor == G_MAXUINT64)
    floor = self->recording_open ? self->keep_first : next_seq (self);
  __atomic_store_n (&self->ring_floor, floor, __ATOMIC_RELAXED);
  rtf_writer_ring_floor (self->writer, floor);
}

/* ---- caps ------------------------------------------------------------ */

gboolean
gst_rtframe_sink_ring_caps (GstRtFrameSink * self, guint max_frames)
{
  const GstRtFrameFormat *fmt = &self->format;
  guint64 needed;

  if (!fmt->is_video || GST_VIDEO_INFO_FPS_N (&fmt->info) <= 0
      || GST_VIDEO_INFO_FPS_D (&fmt->info) <= 0)
    return TRUE;
  needed = gst_util_uint64_scale_ceil (self->pre_record_time,
      GST_VIDEO_INFO_FPS_N (&fmt->info),
      GST_VIDEO_INFO_FPS_D (&fmt->info) * GST_SECOND);
  if (needed > max_frames)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("pre-record-time is %.3f s, but the ring keeps %u frames at most "
            "before a recording (%.3f s at this frame rate).",
            self->pre_record_time / 1e9, max_frames,
            (gdouble) max_frames * GST_VIDEO_INFO_FPS_D (&fmt->info) /
            GST_VIDEO_INFO_FPS_N (&fmt->info)),
        ("%" G_GUINT64_FORMAT " frames wanted", needed));
  return TRUE;
}
