/* The torture test's checker: after a round, what the recording child was
 * told (its history) against what the project's readers find (rtframesrc,
 * rtframe-verify, rtframe-dump; rtframe-recover first after a kill; the
 * data files byte by byte with index=false), and the foreign files
 * against their fingerprints.
 *
 * The invariant: every frame reported written (a rtframesink-frame-written
 * message) is read back exactly once, byte-exact, in frame-number order;
 * nothing read is anything but a frame pushed in that recording; every
 * foreign file is as it was; the child ended (on its own, or by the planned
 * SIGKILL) within its bound, with no crash and no sanitizer report.
 * Frames dropped by leaky, lost with an error, or deleted by max-files /
 * min-free-space (announced) are counted, not failures. */
#ifndef __TORTURE_CHECK_H__
#define __TORTURE_CHECK_H__

#include "torture-draw.h"
#include "torture-history.h"
#include "torture-spawn.h"
#include "torture-world.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean failed;
  GString *problems;            /* what breaks the invariant, a line each */
  GString *notes;               /* what is allowed and worth saying */
  guint64 reported, read, dropped, lost, excused, extra, errors;
  gchar *history_tail;
} TortureVerdict;

/* self: this program (the reader runs as "self --read ...") */
void torture_check_round (const TorturePlan * p, TortureWorld * w,
    const TortureRun * child, const gchar * self, TortureVerdict * v);
void torture_verdict_clear (TortureVerdict * v);

G_END_DECLS
#endif /* __TORTURE_CHECK_H__ */
