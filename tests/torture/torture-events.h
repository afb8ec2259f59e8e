/* The torture test's model of event recording: the frames an event
 * recorder writes, from the requests it was given and the frames' running
 * times - not from what the sink says it did.
 *
 * The documented semantics (docs/reference.md, "Signals"): a recording
 * starts with the first frame whose running time is at or after the
 * start's, the frames held from start - pre-record-time on written first
 * (fewer when the pre-record memory let the oldest go: a run ending at the
 * start), and stops with the last frame before the stop's running time;
 * "now" is the pipeline clock's running time when asked; a start is
 * refused while a recording is on with no stop asked, a stop while none is
 * on or asked; a stop at or before a start asked cancels it.
 *
 * Which frame a request meets first depends on the threads: the child
 * logs each frame as it reaches the sink, and each request between two
 * lines, with the clock's running time at both.  The model tries every
 * frame a request can have met first (the last one given before it began,
 * and those given while it ran) and every "now" those times allow, keeps
 * the outcomes that agree with what was written (and the answers the
 * signals gave), and fails the round when none does. */
#ifndef __TORTURE_EVENTS_H__
#define __TORTURE_EVENTS_H__

#include "torture-check.h"

G_BEGIN_DECLS

/* reported: stamp -> TortureWritten; ended: the session ended on its own
 * (after the planned kill the last frames may not be told) */
void torture_events_check (const TorturePlan * p, const TortureHistory * h,
    guint s, GHashTable * reported, gboolean ended, TortureVerdict * v);

G_END_DECLS
#endif /* __TORTURE_EVENTS_H__ */
