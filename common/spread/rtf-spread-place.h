/* rtframe: where the next frame of a spread stream goes - no I/O, no
 * locks, no GStreamer: the decision alone, from what each location's
 * writer shows (unit test spread-place). */
#ifndef __RTF_SPREAD_PLACE_H__
#define __RTF_SPREAD_PLACE_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RTF_PLACEMENT_SOONEST,        /* the location expected to finish first */
  RTF_PLACEMENT_ROUND_ROBIN     /* each location in turn (to compare) */
} RtfPlacement;

typedef enum
{
  RTF_LOCATION_ACTIVE,          /* takes frames */
  RTF_LOCATION_STALLED,         /* a frame waited there longer than
                                 * location-timeout: no new frames */
  RTF_LOCATION_FAILED           /* a write failed: out of the set */
} RtfLocationState;

typedef struct
{
  RtfLocationState state;
  guint held;                   /* frames queued or in flight there */
  guint depth;                  /* frames it writes at once */
  gint64 latency_ns;            /* recent submit -> done of a frame, 0:
                                 * none measured yet */
} RtfPlaceCandidate;

/* The expected time until a new frame placed at c is written: a frame
 * every latency_ns / depth, for it and the held ones ahead of it; with no
 * latency measured, 0 when idle, else longer than any measured one */
gint64 rtf_place_eta (const RtfPlaceCandidate * c);

/* The location for the next frame: the ACTIVE one with the least
 * rtf_place_eta() - estimates within a factor of two, or both within
 * slack_ns, count as equal: then fewer held, then the first from *turn
 * on - or with ROUND_ROBIN the next ACTIVE one from *turn on; *turn
 * goes past the one chosen.  -1 when none is ACTIVE. */
gint rtf_place_choose (RtfPlacement placement, const RtfPlaceCandidate * c,
    guint n, guint * turn, gint64 slack_ns);

/* A location's latency estimate after a frame took sample_ns */
gint64 rtf_place_latency_update (gint64 estimate_ns, gint64 sample_ns);

const gchar *rtf_location_state_name (RtfLocationState state);

G_END_DECLS
#endif /* __RTF_SPREAD_PLACE_H__ */
