/* The torture test's model of event recording: the frames an event
 * recorder writes, from the requests it was given and the frames' running
 * times - not from what the sink says it did.
 *
 * The rules (docs/reference.md, "Recording rules") decide from the
 * requests alone; the one thing the timing adds is where the frames were
 * when a request came, which the sink tells in each request's message
 * (rtframesink-recording-request: "position", the newest frame's).  The
 * model (tests/recording-model.c) applies each request there, answers it
 * - the sink's answer must be the same - and walks the frames: the ones it
 * says are written must be, the others not.  One allowance: a recording's
 * pre-record may miss its oldest frames when the memory that holds them
 * (frames copied out of upstream's buffers) was shared with an earlier
 * backlog still being written; never the first pre-record, never a frame
 * after one that was written. */
#ifndef __TORTURE_EVENTS_H__
#define __TORTURE_EVENTS_H__

#include "torture-check.h"

G_BEGIN_DECLS

/* reported: stamp -> TortureWritten; ended: the session ended on its own
 * (after the planned kill the last frames may not be told) */
/* (w: a keep round's recordings are read from their directories,
 * torture-keep.h) */
void torture_events_check (const TorturePlan * p, TortureWorld * w,
    const TortureHistory * h, guint s, GHashTable * reported, gboolean ended,
    TortureVerdict * v);

G_END_DECLS
#endif /* __TORTURE_EVENTS_H__ */
