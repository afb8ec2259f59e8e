/* The torture test's retention check: the files of a set the recording
 * kept, held against what was asked of it.  max-files=N keeps the newest
 * N files that got frames at each location (fewer only where a deletion
 * for min-free-space says why), and deletes for it only a file that N
 * newer ones follow; min-free-space deletes the oldest file left of the
 * set, and only while the free space is near the line.  Judged from the
 * disk as the recording left it, before any reader (rtframe-recover
 * deletes too). */
#ifndef __TORTURE_RETENTION_H__
#define __TORTURE_RETENTION_H__

#include "torture-check.h"

G_BEGIN_DECLS

/* removed: the locations whose directory a fault removed or moved away
 * (a bit each): not looked at;
 * ended: the session ended on its own (not the planned kill) */
void torture_retention_check (const TorturePlan * p, TortureWorld * w,
    const TortureHistory * h, guint s, guint removed, gboolean ended,
    TortureVerdict * v);

G_END_DECLS
#endif /* __TORTURE_RETENTION_H__ */
