/* rtframe: the recordings asked for - spans of running time built from
 * the requests alone, in the order they were made.  Where the frames
 * are decides nothing here: the same requests give the same spans and the
 * same answers however the streaming and writer threads are timed
 * (rtf-recorder.c walks the frames over the spans).
 *
 * The rules (docs/reference.md#recording-rules):
 *   start at T   refused when a recording is asked at T (start <= T <
 *                stop); else a recording from T on, joining the next one
 *                asked after T if there is one (it begins earlier), or
 *                open until a stop.
 *   stop at T    refused when no recording is asked at or after T; else
 *                the one at T ends at T and those starting at or after T
 *                are cancelled (a stop at a start cancels that start).
 *   extend to T  (the recording at A ends at T, later than it was asked
 *                to): refused when none is at A, when it has no stop yet,
 *                or when its stop is at or after T; recordings it reaches
 *                become part of it.
 * At most RTF_SCHEDULE_MAX recordings are remembered: a new one beyond
 * that forgets the earliest. */
#ifndef __RTF_SCHEDULE_H__
#define __RTF_SCHEDULE_H__

#include <glib.h>

G_BEGIN_DECLS
/* A stop not asked for yet */
#define RTF_SCHEDULE_OPEN G_MAXUINT64
#define RTF_SCHEDULE_MAX 1024
/* An id's bytes, its NUL included */
#define RTF_RECORDING_ID_MAX 64
    typedef enum
{
  RTF_REQUEST_START,
  RTF_REQUEST_STOP,
  RTF_REQUEST_EXTEND
} RtfRequestKind;

typedef struct
{
  RtfRequestKind kind;
  guint64 running_time;         /* T */
  guint64 recording_at;         /* extend: A, the recording to extend */
  const gchar *id;              /* start: the new recording's (NULL: none) */
} RtfRequest;

/* One recording asked for */
typedef struct
{
  guint64 start;                /* the first frame at or after it is its */
  guint64 stop;                 /* the last before it (OPEN: none asked) */
  guint64 serial;               /* 1, 2, ... in the order made */
  gboolean begun;               /* the frames reached it (rtf-recorder.c) */
  gchar id[RTF_RECORDING_ID_MAX];       /* given by the start ("": none) */
} RtfSpan;

/* What a request did, or why not */
typedef struct
{
  gboolean accepted;
  /* "new", "joined", "cut", "cancelled", "extended"; refused: "refused" */
  const gchar *did;
  gchar reason[200];            /* in words, for a log or a reply */
  RtfSpan span;                 /* the recording made or changed (refused:
                                 * the one in the way, serial 0 if none) */
} RtfAnswer;

typedef struct
{
  RtfSpan *spans;               /* RTF_SCHEDULE_MAX, sorted by start, disjoint */
  guint n;
  guint64 serials;              /* the last serial given */
} RtfSchedule;

void rtf_schedule_init (RtfSchedule * s);
void rtf_schedule_clear (RtfSchedule * s);
/* The answer to q; with commit, the change made too */
gboolean rtf_schedule_apply (RtfSchedule * s, const RtfRequest * q,
    gboolean commit, RtfAnswer * a);
/* The span holding running time t (start <= t < stop), or -1 */
gint rtf_schedule_at (const RtfSchedule * s, guint64 t);
/* The span of that serial, or -1 (a stop took it out) */
gint rtf_schedule_find (const RtfSchedule * s, guint64 serial);

G_END_DECLS
#endif /* __RTF_SCHEDULE_H__ */
