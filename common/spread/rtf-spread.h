/* rtframe: one stream over several writers - each location (a disk) is a
 * writer of its own (its ring, queue, in-flight budget, files, indexes),
 * the spread numbers the frames of the stream, places each on the
 * location that will complete it soonest, and takes a location whose
 * writes fail (or that stalls past location-timeout) out of the set; the
 * frames not written there go to another location under the same
 * numbers.  Every location's files carry the same recording id.
 *
 *   rtf-spread.c           life cycle, a location's state, the writers'
 *                          callbacks per location (failover)
 *   rtf-spread-producer.c  placing frames, a stall seen and the location
 *                          retired, EOS
 *   rtf-spread-stop.c      writers given up at stop (a bounded wait)
 *   rtf-spread-figures.c   the stream's figures and each location's
 *   rtf-spread-place.c     the placement decision (pure, unit-tested)
 *   rtf-spread-manifest.c  the manifest beside each location's files
 *   rtf-spread-private.h   the insides they share; threads and locks */
#ifndef __RTF_SPREAD_H__
#define __RTF_SPREAD_H__

#include "rtf-writer.h"
#include "rtf-spread-place.h"

G_BEGIN_DECLS typedef struct _RtfSpread RtfSpread;

typedef struct
{
  /* every location's writer, user_data the owner's; frame_done is
   * called for every frame, after frame_failed_over for one placed
   * again; failed only when no location is left */
  RtfWriterCallbacks writer;
  /* A location left the set, others remain: STALLED (its oldest frame
   * waited longer than location_timeout; failure NULL) on the producer's
   * thread, or FAILED on its writer thread (callback lock held). */
  void (*location_left) (guint index, const gchar * location,
      RtfLocationState state, const RtfFailure * failure, gpointer user_data);
  /* A frame not written at a location that failed or stalled: the owner
   * keeps what it needs of it (a reference to its data, its seq, times,
   * origin, flags) and offers it again from the producer's thread
   * (rtf_spread_place_again()); writer.frame_done follows (FAILED), when
   * its memory is no longer read - at once, or when the writes in flight
   * at a stalled location end.  The location's writer thread (or the
   * producer's, for frames queued at a stalled location), callback lock
   * held.  TRUE when the owner took it; FALSE (it cannot: nothing of the
   * frame is left to write) counts it lost there. */
    gboolean (*frame_failed_over) (RtfFrame * frame, gpointer user_data);
  /* A location's writer given up at stop (rtf_spread_finish()) has ended,
   * on its own thread: what the owner kept alive for it may go now (its
   * rtf_spread_set_location_user() data is freed already). */
  void (*location_released) (guint index, gpointer user_data);
} RtfSpreadCallbacks;

typedef struct
{
  const gchar *const *locations;        /* one per disk: files or patterns */
  guint n_locations;
  RtfPlacement placement;
  guint64 location_timeout;     /* ns; 0: a slow location is never left */
  guint64 deadline;             /* ns a frame has, 0 none: placement takes
                                 * locations that both finish a frame
                                 * within an eighth of it as equal */
} RtfSpreadConfig;

/* Makes a writer per location from base (its location replaced, one
 * recording id for all).  On failure NULL, *failed the location that
 * could not be opened, *err and *step as rtf_writer_new(). */
RtfSpread *rtf_spread_new (const RtfWriterConfig * base,
    const RtfSpreadConfig * config, const RtfSpreadCallbacks * callbacks,
    gpointer user_data, guint * failed, gint * err, RtfFailStep * step);
/* Joins the threads the spread started and frees their writers (those
 * given up by rtf_spread_finish() free themselves, and the spread after
 * the last of them; the owner joins the threads it runs itself first) */
void rtf_spread_free (RtfSpread * s);

guint rtf_spread_n_locations (RtfSpread * s);
RtfWriter *rtf_spread_writer (RtfSpread * s, guint index);
const gchar *rtf_spread_location (RtfSpread * s, guint index);
RtfLocationState rtf_spread_location_state (RtfSpread * s, guint index);
const RtfRecordingId *rtf_spread_recording_id (RtfSpread * s);

/* Runs the writers of locations first.. on threads from starter (the
 * owner runs those before first itself); FALSE when one did not start.
 * Then rtf_spread_wait_started(): 0 or the first errno. */
gboolean rtf_spread_start (RtfSpread * s, guint first,
    const RtfThreadStarter * starter);
gint rtf_spread_wait_started (RtfSpread * s);
/* Every writer writes what it holds and ends (then rtf_spread_finish(),
 * rtf_spread_free()) */
void rtf_spread_shutdown (RtfSpread * s);
/* The owner gives location index's writer up (rtf_writer_abandon(), at
 * stop: the first location's, which the owner runs): first the spread
 * lets it go - the writer, which the spread no longer reaches; it holds a
 * reference for the writer's callbacks, dropped by rtf_spread_unref()
 * once the writer has freed itself.  Then rtf_spread_given_up() with its
 * final figures (NULL: it had finished, the spread takes it back and drops
 * that reference): the frames lost there, not written elsewhere. */
RtfWriter *rtf_spread_let_go (RtfSpread * s, guint index);
guint64 rtf_spread_given_up (RtfSpread * s, guint index, RtfWriter * writer,
    const RtfWriterStats * final);
void rtf_spread_unref (RtfSpread * s);
/* The owner's data for a location (its frames' cells), freed with the
 * location's writer - by rtf_spread_free(), or when a writer given up at
 * stop ends */
void rtf_spread_set_location_user (RtfSpread * s, guint index,
    gpointer user, GDestroyNotify user_free);
/* Stop, after rtf_spread_shutdown(): waits for the writers of locations
 * first.. to finish until end_us (g_get_monotonic_time(); < 0: no
 * limit); a writer still writing then is given up (rtf_writer_abandon()):
 * its frames not written elsewhere are lost (added to *lost), it frees
 * itself when its writes end, calling location_released.  The number
 * given up. */
guint rtf_spread_finish (RtfSpread * s, guint first, gint64 end_us,
    guint64 * lost);

/* ---- the producer's side (one thread) ------------------------------- */

/* The location for the next frame of `size` bytes, numbered for it
 * (rtf_writer_number_next()); -1 when none is left.  Then
 * rtf_writer_offer() to its writer, and rtf_spread_offered(). */
gint rtf_spread_place (RtfSpread * s, gsize size);
/* The same for a frame failed over: its number stays seq */
gint rtf_spread_place_again (RtfSpread * s, gsize size, guint64 seq);
/* What the offer to location index gave: a frame taken or dropped used
 * its number; CLOSED takes the location out (its writer failed: place
 * again). */
void rtf_spread_offered (RtfSpread * s, gint index, gboolean again,
    RtfOffer offer);
/* A frame came that no location is offered (an event recorder between
 * recordings): a location stalled past location-timeout leaves now, as
 * at a placement, so the frames it holds are written elsewhere at once,
 * not when the next recording places a frame */
void rtf_spread_watch (RtfSpread * s);
/* The number of the last frame rtf_spread_place() placed and a location
 * took */
guint64 rtf_spread_last_taken (RtfSpread * s);
void rtf_spread_set_flushing (RtfSpread * s, gboolean flushing);

/* ---- event recording (the producer's side) ---------------------------- */

/* A frame kept in memory before a recording (rtf_writer_hold()): it takes
 * the stream's next number (returned), counted held at the first
 * location until it is offered or let go (rtf_writer_discard() there) */
guint64 rtf_spread_hold (RtfSpread * s, gsize size,
    const RtfFrameOrigin * origin);
/* ... handed over at a start: placed like any frame and offered as a
 * backlog frame under its number (rtf_writer_offer_backlog()) to the
 * location placed (*index); a location found failed is left for the
 * next.  CLOSED when none is left: the frame is held at the first
 * location still. */
RtfOffer rtf_spread_offer_backlog (RtfSpread * s, gsize size, guint64 seq,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame, gint * index);
/* Every location in the set written and synced: 0 (a location that
 * failed meanwhile left the set, its frames failed over: sync again once
 * they are placed), -1 (flushing), the errno of the last location when it
 * failed, or ENODEV when none was left (its failure was told). */
gint rtf_spread_sync (RtfSpread * s);

/* ---- figures ---------------------------------------------------------- */

/* The stream's: the locations' summed, frames failed over counted once */
void rtf_spread_get_stats (RtfSpread * s, RtfWriterStats * st,
    RtfWriterLatency * latency);
/* One location's, and frames placed there / failed over from it */
typedef struct
{
  RtfLocationState state;
  guint64 frames_placed;
  guint64 frames_failed_over;
  gint64 latency_estimate_ns;   /* what placement expects of a frame */
} RtfSpreadLocationInfo;
void rtf_spread_get_location (RtfSpread * s, guint index,
    RtfSpreadLocationInfo * info, RtfWriterStats * st,
    RtfWriterLatency * latency);
guint64 rtf_spread_frames_failed_over (RtfSpread * s);
/* Frames a location failed after rtf_spread_shutdown(): lost (not placed
 * again) */
guint64 rtf_spread_frames_lost_ending (RtfSpread * s);

G_END_DECLS
#endif /* __RTF_SPREAD_H__ */
