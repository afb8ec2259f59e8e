/* rtframe: event recording with locations.  One stream over several
 * writers (gstrtframespread.c) writes a recording in parts: each location
 * that takes a frame of it opens its own part with that frame (a new file
 * of a set, RTF_FRAME_PART_START; the recording's very first frame is
 * RTF_FRAME_EVENT_START wherever it went, the one the index flags), and
 * ends it with the last frame it took when the recording ends.  Here:
 * which location's part is open and its last frame (the streaming
 * thread); the recording each part belongs to, found again by its first
 * frame's number when the location's writer tells of it; and the
 * recording's two messages (record_lock): recording-started when the
 * part with its first frame begins, recording-stopped once the recording
 * has ended and every part with it (the figures of the parts added up) -
 * the started messages in the order of the recordings, the stopped ones
 * too, each after its own started, whichever location's writer tells
 * first. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframedebug.h"
#include "gstrtframeparts.h"
#include "gstrtframemessages.h"

#define GST_CAT_DEFAULT gst_rtframe_recorder_debug

/* One location's part of a recording */
typedef struct
{
  guint64 recording;            /* the stream's number of the recording */
  guint location;
} Part;

/* A recording's parts: how many opened and ended, whether the recording
 * ended, what the ended parts told, added up, and its messages not posted
 * yet (an earlier recording's come first) */
typedef struct
{
  guint parts, parts_ended;
  gboolean ended;
  RtfRecordingInfo sum;         /* (path: path) */
  gchar *path;                  /* the file of its newest frame */
  gchar *first_path;            /* ... of the first part that began */
  guint first_location;
  gboolean announced;           /* its recording-started posted */
  GstStructure *started, *stopped;      /* waiting for their turn */
} Sum;

struct _GstRtFrameParts
{
  guint n;
  /* streaming thread: each location's part of the recording on, open or
   * not, and the last frame it took */
  gboolean *open;
  guint64 *last_seq;
  /* record_lock: the parts not ended, by their first frame's number; the
   * recordings not told stopped, by number */
  GHashTable *by_first;
  GHashTable *sums;
  guint64 next_started;         /* the first recording not announced */
  guint64 next_stopped;         /* ... not told stopped */
};

static void
sum_free (gpointer data)
{
  Sum *s = data;

  g_free (s->path);
  g_free (s->first_path);
  if (s->started)
    gst_structure_free (s->started);
  if (s->stopped)
    gst_structure_free (s->stopped);
  g_free (s);
}

GstRtFrameParts *
gst_rtframe_parts_new (guint n_locations)
{
  GstRtFrameParts *p = g_new0 (GstRtFrameParts, 1);

  p->n = n_locations;
  p->open = g_new0 (gboolean, n_locations);
  p->last_seq = g_new0 (guint64, n_locations);
  p->by_first = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      g_free);
  p->sums = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      sum_free);
  return p;
}

void
gst_rtframe_parts_free (GstRtFrameParts * p)
{
  if (p == NULL)
    return;
  g_free (p->open);
  g_free (p->last_seq);
  g_hash_table_destroy (p->by_first);
  g_hash_table_destroy (p->sums);
  g_free (p);
}

/* (record_lock held) */
static Sum *
sum_of (GstRtFrameParts * p, guint64 recording)
{
  Sum *s = g_hash_table_lookup (p->sums, &recording);

  if (s == NULL) {
    s = g_new0 (Sum, 1);
    s->sum.number = recording;
    s->sum.first_seq = s->sum.last_seq = G_MAXUINT64;
    s->sum.first_running_time = s->sum.last_running_time = G_MAXUINT64;
    g_hash_table_insert (p->sums, g_memdup2 (&recording, sizeof recording), s);
  }
  return s;
}

/* What recording `recording` was asked with (record_lock held) */
static GstRtFrameRecordAsk
ask_of (GstRtFrameSink * self, guint64 recording)
{
  GstRtFrameRecordAsk a = { G_MAXUINT64, G_MAXUINT64, G_MAXUINT64, 0,
    G_MAXUINT64, "end", 0, ""
  };
  GstRtFrameRecordAsk *known = g_hash_table_lookup (self->asked, &recording);

  if (known)
    a = *known;
  return a;
}

/* The messages whose turn has come, into out: the recordings' started in
 * their order, and their stopped in their order, each after its own
 * started (record_lock held) */
static void
tell_in_turn (GstRtFrameSink * self, GPtrArray * out)
{
  GstRtFrameParts *p = self->parts;
  gboolean more = TRUE;
  Sum *s;

  while (more) {
    more = FALSE;
    s = g_hash_table_lookup (p->sums, &p->next_started);
    if (s != NULL && s->started != NULL) {
      g_ptr_array_add (out, s->started);
      s->started = NULL;
      s->announced = TRUE;
      p->next_started++;
      more = TRUE;
    }
    s = g_hash_table_lookup (p->sums, &p->next_stopped);
    if (s != NULL && s->announced && s->stopped != NULL) {
      guint64 recording = p->next_stopped++;

      g_ptr_array_add (out, s->stopped);
      s->stopped = NULL;
      g_hash_table_remove (self->asked, &recording);
      g_hash_table_remove (p->sums, &recording);
      more = TRUE;
    }
  }
}

/* Once the recording ended and every part with it: its recording-stopped
 * message - and its recording-started, made of its first part, when the
 * part with its first frame never began (that frame went to another
 * location after its own failed) - told in turn, into out (record_lock
 * held) */
static void
stopped_when_all_ended (GstRtFrameSink * self, guint64 recording,
    GPtrArray * out)
{
  GstRtFrameParts *p = self->parts;
  GstRtFrameRecordAsk a = ask_of (self, recording);
  Sum *s = g_hash_table_lookup (p->sums, &recording);

  if (s == NULL || !s->ended || s->parts_ended < s->parts || s->stopped)
    return;
  s->sum.path = s->path;
  s->stopped = gst_rtframe_structure_recording_stopped (&a, &s->sum, recording);
  GST_INFO_OBJECT (self, "recording %" G_GUINT64_FORMAT " stopped (%s): %"
      G_GUINT64_FORMAT " frames written in %u parts", recording,
      a.stop_reason, s->sum.frames, s->parts);
  if (!s->announced && s->started == NULL) {
    RtfRecordingInfo first = s->sum;

    first.path = s->first_path;
    first.location = s->first_location;
    s->started = gst_rtframe_structure_recording_started (&a, &first,
        recording);
  }
  tell_in_turn (self, out);
}

static void
post_all (GstRtFrameSink * self, GPtrArray * told)
{
  guint i;

  for (i = 0; i < told->len; i++)
    gst_rtframe_sink_queue_message (self,
        gst_message_new_element (GST_OBJECT_CAST (self),
            g_ptr_array_index (told, i)));
  g_ptr_array_free (told, TRUE);
}

/* ---- the streaming thread ----------------------------------------------- */

guint
gst_rtframe_parts_take (GstRtFrameSink * self, guint index, guint64 seq,
    guint64 recording, guint flags)
{
  GstRtFrameParts *p = self->parts;
  Part *part;

  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " of recording %"
      G_GUINT64_FORMAT " at location %u (flags 0x%x, part %s)", seq,
      recording, index, flags, p->open[index] ? "open" : "not open");
  /* (the recording's first frame opens its part wherever it went: no
   * part of the one before is open by then) */
  if (p->open[index] && !(flags & RTF_FRAME_EVENT_START)) {
    p->last_seq[index] = seq;
    return 0;
  }
  p->open[index] = TRUE;
  p->last_seq[index] = seq;
  part = g_new0 (Part, 1);
  part->recording = recording;
  part->location = index;
  g_mutex_lock (&self->record_lock);
  g_hash_table_insert (p->by_first, g_memdup2 (&seq, sizeof seq), part);
  sum_of (p, recording)->parts++;
  g_mutex_unlock (&self->record_lock);
  return flags & RTF_FRAME_EVENT_START ? 0 : RTF_FRAME_PART_START;
}

void
gst_rtframe_parts_redone (GstRtFrameSink * self, guint index, guint64 seq)
{
  GstRtFrameParts *p = self->parts;

  if (p != NULL && p->open[index])
    p->last_seq[index] = MAX (p->last_seq[index], seq);
}

void
gst_rtframe_parts_end (GstRtFrameSink * self, guint64 recording,
    guint64 end_asked, const gchar * reason, gboolean eos)
{
  GstRtFrameParts *p = self->parts;
  GPtrArray *told = g_ptr_array_new ();
  GstRtFrameRecordAsk *a;
  guint i;

  for (i = 0; i < p->n; i++) {
    RtfWriter *w = rtf_spread_writer (self->spread, i);

    if (p->open[i] && !eos && w != NULL)
      rtf_writer_end_recording (w, p->last_seq[i]);
    p->open[i] = FALSE;
  }
  g_mutex_lock (&self->record_lock);
  if ((a = g_hash_table_lookup (self->asked, &recording)) != NULL) {
    a->stop_asked = end_asked;
    a->stop_reason = reason;
  }
  sum_of (p, recording)->ended = TRUE;
  stopped_when_all_ended (self, recording, told);
  g_mutex_unlock (&self->record_lock);
  post_all (self, told);
}

/* ---- the writers' threads ----------------------------------------------- */

void
gst_rtframe_parts_started (GstRtFrameSink * self, const RtfRecordingInfo * info)
{
  GPtrArray *told = g_ptr_array_new ();
  GstRtFrameRecordAsk a;
  Part *part;
  Sum *s;

  g_mutex_lock (&self->record_lock);
  part = g_hash_table_lookup (self->parts->by_first, &info->first_seq);
  if (part == NULL) {
    g_mutex_unlock (&self->record_lock);
    g_ptr_array_free (told, TRUE);
    return;                     /* (its location left before) */
  }
  s = sum_of (self->parts, part->recording);
  if (s->first_path == NULL) {
    s->first_path = g_strdup (info->path);
    s->first_location = info->location;
  }
  if (info->part) {
    GST_DEBUG_OBJECT (self, "recording %" G_GUINT64_FORMAT ": its part at "
        "location %u begins at frame %" G_GUINT64_FORMAT " in %s",
        part->recording, info->location, info->first_seq, info->path);
  } else if (!s->announced && s->started == NULL) {
    GST_INFO_OBJECT (self, "recording %" G_GUINT64_FORMAT " started at "
        "frame %" G_GUINT64_FORMAT " in %s", part->recording, info->first_seq,
        info->path);
    a = ask_of (self, part->recording);
    s->started = gst_rtframe_structure_recording_started (&a, info,
        part->recording);
    tell_in_turn (self, told);
  }
  g_mutex_unlock (&self->record_lock);
  post_all (self, told);
}

/* (record_lock held) */
static void
add_part (Sum * s, const RtfRecordingInfo * info)
{
  RtfRecordingInfo *t = &s->sum;

  t->frames += info->frames;
  t->bytes += info->bytes;
  t->prerecorded += info->prerecorded;
  t->lost += info->lost;
  if (t->first_seq == G_MAXUINT64 || info->first_seq < t->first_seq) {
    t->first_seq = info->first_seq;
    t->first_running_time = info->first_running_time;
  }
  if (info->last_seq != G_MAXUINT64 && (t->last_seq == G_MAXUINT64
          || info->last_seq > t->last_seq)) {
    t->last_seq = info->last_seq;
    t->last_running_time = info->last_running_time;
    t->location = info->location;
    if (info->path) {
      g_free (s->path);
      s->path = g_strdup (info->path);
    }
  }
}

void
gst_rtframe_parts_stopped (GstRtFrameSink * self, const RtfRecordingInfo * info)
{
  GPtrArray *told = g_ptr_array_new ();
  Part *part;

  g_mutex_lock (&self->record_lock);
  part = g_hash_table_lookup (self->parts->by_first, &info->first_seq);
  if (part != NULL) {
    guint64 recording = part->recording;
    Sum *s = sum_of (self->parts, recording);

    add_part (s, info);
    s->parts_ended++;
    g_hash_table_remove (self->parts->by_first, &info->first_seq);
    stopped_when_all_ended (self, recording, told);
  }
  g_mutex_unlock (&self->record_lock);
  /* (none: its location left the recording before, which ended it) */
  post_all (self, told);
}

void
gst_rtframe_parts_location_left (GstRtFrameSink * self, guint index)
{
  GPtrArray *told;
  GHashTableIter it;
  gpointer key, value;

  if (self->parts == NULL)
    return;
  told = g_ptr_array_new ();
  g_mutex_lock (&self->record_lock);
  g_hash_table_iter_init (&it, self->parts->by_first);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    Part *part = value;
    guint64 recording = part->recording;

    if (part->location != index)
      continue;
    sum_of (self->parts, recording)->parts_ended++;
    g_hash_table_iter_remove (&it);
    stopped_when_all_ended (self, recording, told);
  }
  g_mutex_unlock (&self->record_lock);
  post_all (self, told);
}
