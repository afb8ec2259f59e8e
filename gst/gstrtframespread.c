/* rtframesink's locations: several disks, one stream (locations=).  The
 * spread (common/spread/rtf-spread.c) owns a writer per location and decides
 * where each frame goes; here is what the element adds: starting it (a
 * manifest beside each location, the other locations' writer threads as
 * tasks), offering each frame to the location placed, offering again the
 * frames of a location that failed, syncing every location at EOS, and
 * the messages of a location that left (its figures:
 * gstrtframefigures.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframedebug.h"
#include "gstrtframespread.h"
#include "gstrtframesink-private.h"
#include "gstrtframememory.h"
#include "gstrtframemessages.h"
#include "gstrtframeparts.h"
#include "rtf-spread-manifest.h"
#include "rtf-spread-names.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <unistd.h>

#define GST_CAT_DEFAULT gst_rtframe_spread_debug

/* A frame of a location that failed, waiting to be offered again: what
 * render attached to it, and its number */
typedef struct
{
  GstBuffer *buffer;
  guint64 seq;
  RtfFrameTimes times;
  RtfFrameOrigin origin;
  guint flags;
  gboolean missed;              /* its missed deadline was reported there */
} GstRtFrameRedo;

/* ---- what the spread tells (writer threads, callback lock held) ------ */

static void
spread_location_left (guint index, const gchar * location,
    RtfLocationState state, const RtfFailure * failure, gpointer user_data)
{
  GstStructure *s;
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);
  gchar *why = failure ? g_strdup (g_strerror (failure->err)) :
      g_strdup_printf ("a frame waited longer than location-timeout (%"
      GST_TIME_FORMAT ")", GST_TIME_ARGS (self->location_timeout));

  if (failure && (failure->err == ENOSPC || failure->err == EDQUOT))
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
        ("Location \"%s\" is full; recording goes on at the other "
            "locations.", location), ("%s", failure->detail));
  else
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
        ("Location \"%s\" left the recording (%s); recording goes on at "
            "the other locations.", location, why),
        ("%s", failure && failure->detail ? failure->detail : why));
  s = gst_structure_new_empty (GST_RTFRAME_MSG_LOCATION_LEFT);
  gst_rtframe_structure_set_path (s, "location", location);
  /* location-index as in frame-written; index, the name before issue 26,
   * the same number of the type every other index has */
  gst_structure_set (s, "location-index", G_TYPE_UINT, index,
      "index", G_TYPE_UINT64, (guint64) index,
      "state", G_TYPE_STRING, rtf_location_state_name (state),
      "reason", G_TYPE_STRING, why,
      "errno", G_TYPE_INT, failure ? failure->err : 0, NULL);
  gst_element_post_message (GST_ELEMENT_CAST (self),
      gst_message_new_element (GST_OBJECT_CAST (self), s));
  g_free (why);
  /* its parts of recordings end with it */
  gst_rtframe_parts_location_left (self, index);
}

/* A frame not written at a location that failed or stalled: the buffer
 * is kept (another reference: writes of it may still be in flight there,
 * frame_done lets that location's mapping go), render offers it again.
 * FALSE when its buffer is gone already - a frame written behind a
 * backlog gave it back (rtf-spread.c, loc_frame_unpinned()): it is
 * counted lost, never written elsewhere without its bytes. */
static gboolean
spread_frame_failed_over (RtfFrame * frame, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);
  GstRtFrameMapping *m = frame->user;
  GstRtFrameRedo *redo;

  if (m->buffer == NULL) {
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
        ("Frame %" G_GUINT64_FORMAT " is lost: its location failed, and "
            "its buffer went back to upstream once it was written there "
            "behind a recording's pre-record.", frame->seq),
        ("written behind a backlog, it gave its memory back (a camera's "
            "pool has few buffers); frames-lost counts it"));
    return FALSE;
  }
  redo = g_new0 (GstRtFrameRedo, 1);
  redo->buffer = gst_buffer_ref (m->buffer);
  redo->seq = frame->seq;
  redo->times = frame->times;
  redo->origin = frame->origin;
  redo->flags = frame->flags;
  redo->missed = frame->miss_reported;
  g_mutex_lock (&self->redo_lock);
  g_queue_push_tail (&self->redo, redo);
  g_mutex_unlock (&self->redo_lock);
  GST_DEBUG_OBJECT (self, "frame %" G_GUINT64_FORMAT " goes to another "
      "location", redo->seq);
  return TRUE;
}

/* ---- start and stop ---------------------------------------------------- */

/* The other locations must be what location would be: all patterns or
 * all files */
static gboolean
locations_agree (gchar ** locations, gboolean rotate, gchar ** why)
{
  guint i;

  for (i = 0; locations[i]; i++) {
    RtfPatternKind kind = rtf_pattern_check (locations[i], why);

    if (kind == RTF_PATTERN_INVALID)
      return FALSE;
    /* (a spread's manifest names each location's files by number; a name
     * made at the first frame is not one it can hold) */
    if (kind == RTF_PATTERN_OK && rtf_pattern_is_timed (locations[i])) {
      *why = g_strdup_printf ("\"%s\": time fields in names are not taken "
          "with several locations", locations[i]);
      return FALSE;
    }
    if ((kind == RTF_PATTERN_OK) != rotate) {
      *why = g_strdup_printf ("\"%s\" and \"%s\": either every location is "
          "a pattern or none", locations[0], locations[i]);
      return FALSE;
    }
  }
  return TRUE;
}

/* Beside which locations the manifests are written */
typedef enum
{
  BESIDE_EVERY,                 /* start: every location */
  BESIDE_UNSTALLED              /* EOS (the final state), or the stream going
                                 * on after it: those in the set, and those
                                 * that failed - at most a warning there, a
                                 * disk full or gone, not a wait -, never
                                 * one that stalled (a write there may wait
                                 * as long as its disk) */
} Beside;

/* What the manifests written say, kept on the element (qdata) from start
 * to stop: the stream going on after an EOS that wrote the final state (a
 * flush) takes it back first; and the lock held on each manifest (flock,
 * one descriptor for each location, -1: none) - a recording starting at
 * the same names finds them live and leaves them (the adversarial review,
 * M1: a second recorder replaced a running one's manifests) - released
 * when the spread is freed */
typedef struct
{
  guint64 first_index;
  RtfSpreadManifestState state;
  guint n;
  gint *held;
} Manifests;

static GQuark
manifests_quark (void)
{
  static gsize q;

  if (g_once_init_enter (&q))
    g_once_init_leave (&q, g_quark_from_static_string
        ("rtframesink-spread-manifests"));
  return (GQuark) q;
}

static Manifests *
manifests_of (GstRtFrameSink * self)
{
  return g_object_get_qdata (G_OBJECT (self), manifests_quark ());
}

static Manifests *
manifests_new (guint n, guint64 first_index)
{
  Manifests *written = g_new0 (Manifests, 1);
  guint i;

  written->first_index = first_index;
  written->n = n;
  written->held = g_new (gint, n);
  for (i = 0; i < n; i++)
    written->held[i] = -1;
  return written;
}

/* The locks go: another recording may take the names now */
static void
manifests_free (Manifests * written)
{
  guint i;

  for (i = 0; i < written->n; i++)
    if (written->held[i] >= 0)
      close (written->held[i]);
  g_free (written->held);
  g_free (written);
}

/* One manifest; beside a location that failed it is tried once,
 * quietly (the manifests beside the others say all) */
static void
write_one (GstRtFrameSink * self, const RtfSpreadManifest * m, guint i,
    RtfLocationState state)
{
  gchar *why = NULL;

  if (rtf_spread_manifest_write_held (m->locations[i], m,
          &manifests_of (self)->held[i], &why) == RTF_SPREAD_MANIFEST_OURS)
    return;
  if (state == RTF_LOCATION_FAILED)
    GST_INFO_OBJECT (self, "no manifest beside \"%s\", which left the "
        "recording: %s", m->locations[i], why);
  else
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
        ("Could not write the manifest beside \"%s\"; read the recording "
            "through another location's.", m->locations[i]), ("%s", why));
  g_free (why);
}

/* The manifest beside the locations `beside` says (a name holding
 * something that is not a manifest is left as it was:
 * rtf_spread_manifest_write()), with the final state when ends */
static void
write_manifests (GstRtFrameSink * self, RtfSpread * s, guint64 first_index,
    const RtfSpreadLocationEnd * ends, Beside beside)
{
  RtfSpreadManifest m = { {{0}}, 0 };
  guint i, n = rtf_spread_n_locations (s);

  m.id = *rtf_spread_recording_id (s);
  m.start_index = first_index;
  m.locations = g_new0 (gchar *, n + 1);
  m.state = ends ? RTF_SPREAD_MANIFEST_FINAL : RTF_SPREAD_MANIFEST_STARTED;
  m.ends = (RtfSpreadLocationEnd *) ends;
  for (i = 0; i < n; i++)
    m.locations[i] = (gchar *) rtf_spread_location (s, i);
  for (i = 0; i < n; i++) {
    RtfLocationState state = rtf_spread_location_state (s, i);

    if (beside == BESIDE_EVERY || state != RTF_LOCATION_STALLED)
      write_one (self, &m, i, beside == BESIDE_EVERY ? RTF_LOCATION_ACTIVE :
          state);
  }
  g_free (m.locations);
}

static RtfSpreadEndState
end_state_of (RtfLocationState state)
{
  switch (state) {
    case RTF_LOCATION_ACTIVE:
      return RTF_SPREAD_END_ACTIVE;
    case RTF_LOCATION_STALLED:
      return RTF_SPREAD_END_STALLED;
    case RTF_LOCATION_FAILED:
      break;
  }
  return RTF_SPREAD_END_FAILED;
}

/* The recording ended in order - EOS, every location in the set written
 * and synced (synced), or a stop whose writers all ended (not synced: what
 * each writer synced) -: the manifest beside each location (and each
 * that failed) says what every location holds.  A location that got no
 * frame holds no file at all (the file prepared for it is deleted), which
 * only this tells from a disk that died (issue 23, F2; torture seed
 * 0x9c4d571aa338ce82: a stop without EOS deleted them and left the
 * recording's manifests saying it went on).  The streaming thread (EOS)
 * or stop(). */
static void
write_final_manifests (GstRtFrameSink * self, gboolean synced)
{
  RtfSpread *s = self->spread;
  guint i, n = rtf_spread_n_locations (s);
  RtfSpreadLocationEnd *ends = g_new0 (RtfSpreadLocationEnd, n);

  for (i = 0; i < n; i++) {
    RtfSpreadLocationInfo info;
    RtfWriterStats st;

    rtf_spread_get_location (s, i, &info, &st, NULL);
    ends[i].state = end_state_of (info.state);
    ends[i].frames = st.frames_written;
    ends[i].files_deleted = st.files_deleted;
    /* in the set at EOS: all it wrote is synced now */
    ends[i].frames_durable = synced && info.state == RTF_LOCATION_ACTIVE ?
        st.frames_written : MIN (st.frames_durable, st.frames_written);
    GST_DEBUG_OBJECT (self,
        "at the end location %u (%s): %s, %" G_GUINT64_FORMAT
        " frames written, %" G_GUINT64_FORMAT " files deleted", i,
        rtf_spread_location (s, i), rtf_spread_end_state_name (ends[i].state),
        ends[i].frames, ends[i].files_deleted);
  }
  write_manifests (self, s, manifests_of (self)->first_index, ends,
      BESIDE_UNSTALLED);
  manifests_of (self)->state = RTF_SPREAD_MANIFEST_FINAL;
  g_free (ends);
}

/* A frame after an EOS that wrote the final state: the manifests say
 * again that the recording goes on, before the frame can be written
 * (else a crash would leave a final state the files contradict) */
static void
take_final_back (GstRtFrameSink * self)
{
  Manifests *written = manifests_of (self);

  if (G_LIKELY (written->state != RTF_SPREAD_MANIFEST_FINAL))
    return;
  written->state = RTF_SPREAD_MANIFEST_STARTED;
  GST_DEBUG_OBJECT (self, "the stream goes on after EOS: the manifests lose "
      "their final state");
  write_manifests (self, self->spread, written->first_index, NULL,
      BESIDE_UNSTALLED);
}

/* The other locations' frames get mappings like the first's (kept by
 * the spread: a location given up at stop keeps them to its end) */
static void
attach_mappings (GstRtFrameSink * self, RtfSpread * s)
{
  guint i, n = rtf_spread_n_locations (s);

  for (i = 1; i < n; i++)
    rtf_spread_set_location_user (s, i,
        gst_rtframe_sink_mappings_new (rtf_writer_get_queue (rtf_spread_writer
                (s, i))), g_free);
}

/* A location given up at stop has ended its writes (its writer thread):
 * the reference it held on the element goes */
static void
spread_location_released (guint index, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  GST_INFO_OBJECT (self, "the stalled writes at location %u have ended; "
      "its file holds the frames reported written", index);
  gst_object_unref (self);
}

/* Start, before anything is created: what is at every manifest's name
 * may be replaced by this recording (nothing, or an earlier take of
 * these locations, locked now in written->held); a running recording's
 * manifest or another recording's is left as it was and the start
 * refused (the error posted); something that is no manifest is left too,
 * with a warning when it is written (write_one). */
static gboolean
claim_manifests (GstRtFrameSink * self, Manifests * written)
{
  RtfSpreadManifest m = { {{0}}, 0 };
  RtfSpreadManifestClaim claim = RTF_SPREAD_MANIFEST_OURS;
  gchar *why = NULL;
  guint i;

  m.locations = self->locations;
  for (i = 0; i < written->n; i++) {
    claim = rtf_spread_manifest_claim (self->locations[i], &m,
        &written->held[i], &why);
    if (claim == RTF_SPREAD_MANIFEST_LIVE
        || claim == RTF_SPREAD_MANIFEST_FOREIGN)
      break;
    g_clear_pointer (&why, g_free);
  }
  if (i == written->n)
    return TRUE;
  if (claim == RTF_SPREAD_MANIFEST_LIVE)
    GST_ELEMENT_ERROR (self, RESOURCE, BUSY,
        ("Cannot record to \"%s\": %s; record under another name.",
            self->locations[i], why), (NULL));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot record to \"%s\": %s; remove it, or record under another "
            "name.", self->locations[i], why), (NULL));
  g_free (why);
  return FALSE;
}

RtfWriter *
gst_rtframe_sink_spread_new (GstRtFrameSink * self,
    const RtfWriterConfig * config, const RtfWriterCallbacks * writer_callbacks,
    gchar ** failed_location, gint * err, RtfFailStep * step, gchar ** why)
{
  RtfSpreadCallbacks cb = { 0 };
  RtfSpreadConfig sc = { 0 };
  Manifests *written;
  RtfSpread *s;
  guint failed = 0;

  /* the indexes number the frames: without them frames placed at
   * different locations (and those written again after a location
   * failed) cannot be put back in order (torture seeds
   * 0x68307185efbc9e4e, 0x125d23d74b1ad53e) */
  if (!config->index && g_strv_length (self->locations) > 1) {
    *why = g_strdup ("index=false with several locations: a recording "
        "spread over locations is put back in frame order by its indexes; "
        "record with index=true (the default)");
    return NULL;
  }
  if (!locations_agree (self->locations, config->rotate, why)
      || !rtf_spread_names_apart ((const gchar * const *) self->locations,
          g_strv_length (self->locations), config->rotate,
          config->first_file_number, why))
    return NULL;
  written = manifests_new (g_strv_length (self->locations),
      config->first_file_number);
  if (!claim_manifests (self, written)) {
    manifests_free (written);
    return NULL;                /* posted */
  }
  sc.locations = (const gchar * const *) self->locations;
  sc.n_locations = g_strv_length (self->locations);
  sc.placement = (RtfPlacement) self->placement;
  sc.location_timeout = self->location_timeout;
  sc.deadline = self->deadline;
  /* (the spread keeps its own copy) */
  cb.writer = *writer_callbacks;
  cb.location_left = spread_location_left;
  cb.frame_failed_over = spread_frame_failed_over;
  cb.location_released = spread_location_released;
  s = rtf_spread_new (config, &sc, &cb, self, &failed, err, step);
  if (s == NULL) {
    manifests_free (written);
    *failed_location = g_strdup (self->locations[failed]);
    return NULL;
  }
  attach_mappings (self, s);
  g_object_set_qdata_full (G_OBJECT (self), manifests_quark (), written,
      (GDestroyNotify) manifests_free);
  write_manifests (self, s, config->first_file_number, NULL, BESIDE_EVERY);
  self->spread = s;
  return rtf_spread_writer (s, 0);
}

gint
gst_rtframe_sink_spread_run (GstRtFrameSink * self)
{
  rtf_spread_start (self->spread, 1, &self->helper_threads);
  return rtf_spread_wait_started (self->spread);
}

static void
redo_free (GstRtFrameRedo * redo)
{
  gst_buffer_unref (redo->buffer);
  g_free (redo);
}

/* Stop, the writers shut down: the other locations' writers get until
 * end_us (g_get_monotonic_time(), < 0: no limit) to finish, like the
 * first's (stop-timeout); one still writing then is given up - its file
 * keeps the frames reported written, the frames it held are lost and the
 * error says how many.  Until its writes end it holds a reference on the
 * element (released on its thread).  When all ended (first_finished: the
 * first location's writer) the manifests get the final state. */
void
gst_rtframe_sink_spread_finish (GstRtFrameSink * self, gint64 end_us,
    gboolean first_finished)
{
  guint i, n, given_up, pending;
  guint64 lost, lost_ending;

  if (self->spread == NULL)
    return;
  /* a reference for each that may be given up, taken before: one given up
   * may end (and release its reference) as soon as it is */
  n = rtf_spread_n_locations (self->spread);
  for (i = 1; i < n; i++)
    gst_object_ref (self);
  given_up = rtf_spread_finish (self->spread, 1, end_us, &lost);
  for (i = 1 + given_up; i < n; i++)
    gst_object_unref (self);
  /* frames of a location that left, not offered again before the stop
   * (render had no next frame): accepted, and written nowhere */
  g_mutex_lock (&self->redo_lock);
  pending = g_queue_get_length (&self->redo);
  g_mutex_unlock (&self->redo_lock);
  if (pending > 0)
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Stopped before %u frames of a location that left the recording "
            "were written at another.", pending),
        ("they failed over after the last frame; stop without EOS does "
            "not place them again"));
  /* frames a location failed while the writers drained: lost */
  lost_ending = rtf_spread_frames_lost_ending (self->spread);
  if (lost_ending > 0)
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Stopped while a location failed: %" G_GUINT64_FORMAT " frames "
            "accepted there were not written.", lost_ending),
        ("a location failed after the stop began; its frames are not "
            "placed again at a stop without EOS"));
  /* every writer ended in order, nothing lost or left unplaced: the
   * recording's end is known; its manifests say it (at EOS they do
   * already) */
  if (given_up == 0 && pending == 0 && lost_ending == 0 && first_finished
      && manifests_of (self)->state != RTF_SPREAD_MANIFEST_FINAL)
    write_final_manifests (self, FALSE);
  if (given_up == 0)
    return;
  if (lost == 0) {
    GST_INFO_OBJECT (self, "stopped before the stalled writes at %u "
        "location(s) ended; their frames not written were written at "
        "others", given_up);
    return;
  }
  GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
      ("Stopped before %u location(s) finished writing: %" G_GUINT64_FORMAT
          " frames accepted there were not written.", given_up, lost),
      ("the writes did not end within stop-timeout; each file is cut back "
          "to the frames reported written when its stalled writes end"));
}

/* After every location's writer has ended or been given up */
void
gst_rtframe_sink_spread_free (GstRtFrameSink * self)
{
  if (self->spread == NULL)
    return;
  rtf_spread_free (self->spread);
  self->spread = NULL;
  g_object_set_qdata (G_OBJECT (self), manifests_quark (), NULL);
  g_mutex_lock (&self->redo_lock);
  g_queue_clear_full (&self->redo, (GDestroyNotify) redo_free);
  g_mutex_unlock (&self->redo_lock);
}

/* ---- frames (the streaming thread) ------------------------------------- */

/* Places a frame and offers it until a location takes or drops it: a
 * location found failed is left for the next */
static RtfOffer
place_and_offer (GstRtFrameSink * self, const GstRtFrameRedo * redo,
    RtfLeaky leaky, const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame, RtfWriter ** w, gint * index)
{
  gsize size = self->format.frame_size;

  for (;;) {
    gint i = redo ? rtf_spread_place_again (self->spread, size, redo->seq) :
        rtf_spread_place (self->spread, size);
    RtfOffer res;

    if (i < 0)
      return RTF_OFFER_CLOSED;  /* the last location posted its error */
    *w = rtf_spread_writer (self->spread, i);
    *index = i;
    res = redo ? rtf_writer_offer_again (*w, size, times, origin,
        redo->missed, frame) :
        rtf_writer_offer (*w, size, leaky, times, origin, frame);
    rtf_spread_offered (self->spread, i, redo != NULL, res);
    if (res != RTF_OFFER_CLOSED)
      return res;
  }
}

RtfOffer
gst_rtframe_sink_spread_offer (GstRtFrameSink * self, RtfLeaky leaky,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame, RtfWriter ** w, gint * index)
{
  return place_and_offer (self, NULL, leaky, times, origin, frame, w, index);
}

static GstRtFrameRedo *
redo_pop (GstRtFrameSink * self)
{
  GstRtFrameRedo *redo;

  g_mutex_lock (&self->redo_lock);
  redo = g_queue_pop_head (&self->redo);
  g_mutex_unlock (&self->redo_lock);
  return redo;
}

/* One frame failed over, offered again under its number (never dropped:
 * it was accepted) */
static GstFlowReturn
redo_one (GstRtFrameSink * self, GstRtFrameRedo * redo)
{
  RtfFrame *frame;
  RtfWriter *w;
  gint index;

  switch (place_and_offer (self, redo, RTF_LEAKY_NO, &redo->times,
          &redo->origin, &frame, &w, &index)) {
    case RTF_OFFER_TAKEN:
      break;
    case RTF_OFFER_FLUSHING:
      g_mutex_lock (&self->redo_lock);
      g_queue_push_head (&self->redo, redo);
      g_mutex_unlock (&self->redo_lock);
      return GST_FLOW_FLUSHING;
    default:
      redo_free (redo);
      return GST_FLOW_ERROR;
  }
  if (!gst_rtframe_sink_attach (self, frame, redo->buffer)) {
    rtf_writer_cancel (w, frame);
    redo_free (redo);
    return GST_FLOW_ERROR;
  }
  redo->buffer = NULL;          /* the frame's now */
  /* the part of its recording open there ends after it */
  gst_rtframe_parts_redone (self, index, redo->seq);
  /* it opens no recording where it goes (rtf_frame_opens_recording());
   * one held before its recording is a live frame there, told as held
   * (a backlog frame is the queue's: numbered and counted apart) */
  frame->flags = (redo->flags & ~(RTF_FRAME_PART_START |
          RTF_FRAME_PRERECORDED)) | RTF_FRAME_FAILED_OVER |
      (rtf_frame_prerecorded (redo->flags) ? RTF_FRAME_HELD : 0);
  rtf_writer_commit (w, frame);
  g_free (redo);
  return GST_FLOW_OK;
}

GstFlowReturn
gst_rtframe_sink_spread_redo (GstRtFrameSink * self)
{
  GstRtFrameRedo *redo;
  GstFlowReturn ret = GST_FLOW_OK;

  if (self->spread == NULL)
    return GST_FLOW_OK;
  take_final_back (self);
  while (ret == GST_FLOW_OK && (redo = redo_pop (self)) != NULL)
    ret = redo_one (self, redo);
  return ret;
}

/* EOS: every location written and synced, the frames of a location that
 * failed meanwhile written elsewhere: 0, -1 flushing, or an errno (ENODEV:
 * none left, the error is posted) */
gint
gst_rtframe_sink_spread_sync (GstRtFrameSink * self)
{
  for (;;) {
    gboolean more;
    gint ret;

    if (gst_rtframe_sink_spread_redo (self) == GST_FLOW_FLUSHING)
      return -1;
    ret = rtf_spread_sync (self->spread);
    if (ret != 0)
      return ret;
    g_mutex_lock (&self->redo_lock);
    more = !g_queue_is_empty (&self->redo);
    g_mutex_unlock (&self->redo_lock);
    if (!more) {
      write_final_manifests (self, TRUE);
      return 0;
    }
    /* a location failed meanwhile: its frames go to the others */
  }
}
