/* rtframe: the spread's insides, shared by its files (rtf-spread.h lists
 * them).  Not for use outside common/spread/rtf-spread*.c.
 *
 * Threads: the producer places, numbers and offers (rtf_spread_place(),
 * rtf_spread_offered()); each location's writer thread calls back through
 * the wrappers of rtf-spread.c, which keep that location's latency
 * estimate and state.  `lock` guards the locations' states and figures,
 * and which writer each location has: it is taken for a few assignments
 * and to read a writer's figures (rtf_writer_get_stats(), _get_latency():
 * the writer's `lock` and its queue's inside it), never across I/O or any
 * other call into a writer, and inside a writer's callback lock (never
 * the other way round). */
#ifndef __RTF_SPREAD_PRIVATE_H__
#define __RTF_SPREAD_PRIVATE_H__

#include "rtf-spread.h"
#include "rtf-thread.h"

G_BEGIN_DECLS
/* What became of a location's writer */
    typedef enum
{
  WRITER_IN_USE,                /* the spread's: joined and freed with it */
  WRITER_RETIRED,               /* stalled: it hands back what it holds and
                                 * ends on its own (rtf_writer_retire()) */
  WRITER_GIVEN_UP               /* still writing at stop: abandoned, it
                                 * frees itself (l->writer NULL) */
} SpreadWriterFate;

typedef struct
{
  RtfSpread *spread;
  guint index;
  gchar *location;
  RtfWriter *writer;            /* NULL once given up (under the lock:
                                 * figures are read from it under it) */
  RtfThread *thread;            /* started by the spread, or NULL */
  guint depth;
  SpreadWriterFate fate;        /* the owner's thread; with writer, under
                                 * the lock once given up */
  SpreadWriterFate given_up_from;       /* its fate before */
  RtfLocationState state_before;        /* and its state */
  RtfWriterStats final;         /* given up: its last figures */
  gpointer user;                /* the owner's, freed with the writer */
  GDestroyNotify user_free;
  /* under the spread's lock */
  RtfLocationState state;
  gint64 latency_ns;            /* estimate, submit -> done */
  gint64 progress_ns;           /* last completion, or start of work */
  guint64 placed, failed_over;
  guint64 handed_back;          /* handed back in flight, placed again, and
                                 * not yet released here */
} SpreadLocation;

typedef enum
{
  SPREAD_RUNNING,
  SPREAD_ENDING                 /* shut down: nothing is failed over */
} SpreadPhase;

struct _RtfSpread
{
  /* the owner's, and one per writer given up at stop still running
   * (atomic): the last frees the spread */
  gint refs;
  GMutex lock;
  SpreadLocation *loc;
  guint n;
  RtfSpreadCallbacks cb;
  gpointer user_data;
  RtfPlacement placement;
  guint64 timeout;
  gint64 slack;                 /* placement: an eighth of the deadline */
  RtfRecordingId id;
  SpreadPhase phase;            /* lock */
  guint64 failed_over, replaced;        /* lock */
  /* frames a location failed once the stop began (SPREAD_ENDING): not
   * placed again, lost (lock) */
  guint64 lost_ending;
  /* the producer's */
  gboolean watching;            /* a stall is looked for while it waits
                                 * for room at a location (with
                                 * location-timeout), from its first
                                 * placement on */
  guint turn;
  guint64 next_seq;
  RtfPlaceCandidate *cand;
};

/* rtf-spread.c: another location still takes frames; marks l failed,
 * TRUE when it was in the set before (both: lock held) */
gboolean rtf_spread_others_left (RtfSpread * s, guint index);
gboolean rtf_spread_mark_failed (SpreadLocation * l);
/* the owner's data for l goes (with its writer) */
void rtf_spread_location_free_user (SpreadLocation * l);

G_END_DECLS
#endif /* __RTF_SPREAD_PRIVATE_H__ */
