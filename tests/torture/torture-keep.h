/* The torture test's check of pre-record on disk (keep-location): every
 * frame goes into the ring at the location, and each recording keeps the
 * ring's files holding its frames by linking them into a directory of its
 * own (keep-location numbered on from the highest there).  Judged from
 * the requests, not from what the sink reports: the recordings the rules
 * make (tests/recording-model.c, walked as torture-events.c walks it,
 * nothing held lost for memory: a ring holds up to 16384 frames' numbers)
 * are held, in the order they start, against the directories on the disk
 * - every frame the rules give a recording read back there, byte-exact
 * and once (whole ring files: frames before its first and after its last
 * may be there too) - and against the sink's recording-started/-stopped
 * (first and last frame the rules', the directory the one its number
 * names). */
#ifndef __TORTURE_KEEP_H__
#define __TORTURE_KEEP_H__

#include "torture-check.h"

G_BEGIN_DECLS

/* A recording the rules make: the frames given (indexes of the session's
 * "in" frames) it holds, ascending, and how many of them come from its
 * pre-record (its backlog) */
typedef struct
{
  guint64 serial;
  GArray *frames;               /* guint */
  guint backlog;
} TortureKeepWant;

void torture_keep_want_free (gpointer want);

/* wants: TortureKeepWant, in the order the recordings start; known: the
 * frames given before this index have a known fate (after a kill the
 * frames after the last report do not); ended: the session ended on its
 * own */
void torture_keep_check (const TorturePlan * p, TortureWorld * w,
    const TortureSession * S, GHashTable * reported, guint known,
    gboolean ended, const GPtrArray * wants, TortureVerdict * v);

G_END_DECLS
#endif /* __TORTURE_KEEP_H__ */
