/* rtframe: where the next frame of a spread stream goes (see
 * rtf-spread-place.h).  Soonest completion: a location writes `depth`
 * frames at once, each taking about its recent latency, so it finishes a
 * frame every latency / depth, and a frame placed behind `held` others is
 * done after about (held + 1) of those.  (Counted in whole batches of
 * depth instead, equal disks were told apart by their latency alone: the
 * one a little faster took frames until its batch was full, and the
 * latency of two equal throttled disks was 441 ms at p99 where round robin
 * had 8 ms.)
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
  return c->latency_ns * (gint64) (c->held + 1) / depth;
}

/* Estimates within a factor of two are taken as equal, and so are two
 * that both finish within slack (an eighth of the deadline: well in
 * time): then the location holding fewer frames is better, and with as
 * many the one met first from the turn on, so equal disks alternate.
 * (With a finer comparison, the disk a little faster took frames in runs
 * until a throughput cap it cannot see, a throttle's budget or a drive's
 * cache, made it slow.  The factor of two alone was not enough: idle, two
 * equal throttled disks showed 2 and 5 ms, the first took 6 frames in a
 * row, went over its throttle's budget, and the frames behind waited
 * 111-145 ms - p99 113-140 ms where round robin had 4-20 ms.) */
static gboolean
better (const RtfPlaceCandidate * a, const RtfPlaceCandidate * b,
    gint64 slack_ns)
{
  gint64 ea = rtf_place_eta (a), eb = rtf_place_eta (b);
  gint64 margin = MAX (ea, eb) / 2;

  /* well in time: the frame itself is written after at least one write's
   * latency, however many the disk writes at once */
  if (MAX (ea, a->latency_ns) <= slack_ns && MAX (eb, b->latency_ns)
      <= slack_ns)
    return a->held < b->held;
  if (ea + margin < eb || eb + margin < ea)
    return ea < eb;
  return a->held < b->held;
}

static gint
choose_soonest (const RtfPlaceCandidate * c, guint n, guint * turn,
    gint64 slack_ns)
{
  gint best = -1;
  guint k;

  for (k = 0; k < n; k++) {
    guint i = (*turn + k) % n;

    if (c[i].state != RTF_LOCATION_ACTIVE)
      continue;
    if (best < 0 || better (&c[i], &c[best], slack_ns))
      best = i;
  }
  if (best >= 0)
    *turn = (best + 1) % n;
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
    guint n, guint * turn, gint64 slack_ns)
{
  if (placement == RTF_PLACEMENT_ROUND_ROBIN)
    return choose_round_robin (c, n, turn);
  return choose_soonest (c, n, turn, slack_ns);
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
