/* The torture test's frame accounting: every frame that reached the sink
 * (the child's "in" lines, taken on the sink's pad before render) held
 * against what the sink said of it.  A frame is written (a frame-written
 * message), dropped (a QoS message), lost after an error or discarded by
 * an event recorder (both counted in the stats), or the one frame a
 * flush, a stop or an error caught on its way in; nothing else.  Checked
 * against the frames given, not against the sink's own frames-received:
 * a frame the sink forgets entirely is found. */
#ifndef __TORTURE_ACCOUNT_H__
#define __TORTURE_ACCOUNT_H__

#include "torture-check.h"

G_BEGIN_DECLS

/* reported: stamp -> TortureWritten (the frames reported written once);
 * ended: the session ended on its own (not the planned kill) */
void torture_account_session (const TorturePlan * p, const TortureHistory * h,
    guint s, GHashTable * reported, gboolean ended, TortureVerdict * v);

G_END_DECLS
#endif /* __TORTURE_ACCOUNT_H__ */
