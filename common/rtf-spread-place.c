/* rtframe: where the next frame of a spread stream goes (see
 * rtf-spread-place.h).  Soonest completion: a location writes `depth`
 * frames at once, each batch taking about its recent latency, so a frame
 * placed behind `held` others is done after (held / depth + 1) batches.
 * A throttled or stalling disk shows a longer latency and more frames
 * held, and gets fewer frames; an idle one gets the next. */
#include "rtf-spread-place.h"

/* A location not measured yet (no frame written there) takes a frame
 * only when idle: piling frames onto a disk of unknown speed would hold
 * them all behind it if it is slow */
#define ETA_UNKNOWN (G_MAXINT64 / 4)

gint64
rtf_place_eta (const RtfPlaceCandidate * c)
{
  guint depth = MAX (c->depth, 1);

  if (c->latency_ns == 0)
    return c->held == 0 ? 0 : ETA_UNKNOWN + c->held;
  return c->latency_ns * (gint64) (c->held / depth + 1);
}

static gboolean
better (const RtfPlaceCandidate * a, const RtfPlaceCandidate * b)
{
  gint64 ea = rtf_place_eta (a), eb = rtf_place_eta (b);

  if (ea != eb)
    return ea < eb;
  return a->held < b->held;
}

static gint
choose_soonest (const RtfPlaceCandidate * c, guint n)
{
  gint best = -1;
  guint i;

  for (i = 0; i < n; i++) {
    if (c[i].state != RTF_LOCATION_ACTIVE)
      continue;
    if (best < 0 || better (&c[i], &c[best]))
      best = i;
  }
  return best;
}

static gint
choose_round_robin (const RtfPlaceCandidate * c, guint n, guint * turn)
{
  guint k;

  for (k = 0; k < n; k++) {
    guint i = (*turn + k) % n;

    if (c[i].state == RTF_LOCATION_ACTIVE) {
      *turn = (i + 1) % n;
      return i;
    }
  }
  return -1;
}

gint
rtf_place_choose (RtfPlacement placement, const RtfPlaceCandidate * c,
    guint n, guint * turn)
{
  if (placement == RTF_PLACEMENT_ROUND_ROBIN)
    return choose_round_robin (c, n, turn);
  return choose_soonest (c, n);
}

/* An exponential average over about 8 frames: a disk that slows down is
 * seen within a few frames, one slow write does not decide alone */
gint64
rtf_place_latency_update (gint64 estimate_ns, gint64 sample_ns)
{
  if (sample_ns < 0)
    sample_ns = 0;
  if (estimate_ns == 0)
    return MAX (sample_ns, 1);
  return MAX (estimate_ns + (sample_ns - estimate_ns) / 8, 1);
}

const gchar *
rtf_location_state_name (RtfLocationState state)
{
  switch (state) {
    case RTF_LOCATION_ACTIVE:
      return "active";
    case RTF_LOCATION_STALLED:
      return "stalled";
    case RTF_LOCATION_FAILED:
      return "failed";
  }
  return "unknown";
}
