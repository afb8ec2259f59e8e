/* rtframe: a bounded ring of frame events (deadline misses, drops and, on
 * request, every write) and of free-space level changes, from the threads
 * that see them to the one that reports them */
#ifndef __RTF_EVENTS_H__
#define __RTF_EVENTS_H__

#include "rtf-frame.h"
#include "rtf-space-guard.h"

G_BEGIN_DECLS

typedef enum
{
  RTF_EVENT_MISSED,             /* deadline passed */
  RTF_EVENT_LATE_DONE,          /* a frame that missed was written */
  RTF_EVENT_DROPPED,            /* dropped (its deadline is missed with it) */
  RTF_EVENT_DROPPED_AFTER_MISS, /* dropped, its miss was already reported */
  RTF_EVENT_WRITTEN,            /* every byte of a frame is in the file */
  RTF_EVENT_UPSTREAM_GAP,       /* upstream lost frames before a frame */
  RTF_EVENT_DISK_SPACE          /* the free space crossed a level */
} RtfEventKind;

typedef struct
{
  RtfEventKind kind;
  RtfFrameReport report;        /* WRITTEN: detected_ns is the completion;
                                 * UPSTREAM_GAP: the frame after the gap,
                                 * detected_ns its arrival; DISK_SPACE:
                                 * unset */
  union
  {
    struct
    {
      gint64 submit_ns;
      guint64 offset;
      gboolean copied;
      guint64 file;             /* its file's number in the set */
      guint location;           /* which location of a spread */
    } written;                  /* WRITTEN */
    RtfFrameOrigin upstream;    /* UPSTREAM_GAP: what upstream said of the
                                 * frame after the gap, and the gap */
    RtfSpaceReport space;       /* DISK_SPACE */
  } u;
} RtfEvent;

typedef struct _RtfEvents RtfEvents;

RtfEvents *rtf_events_new (guint capacity);
void rtf_events_free (RtfEvents * ev);
gboolean rtf_events_push (RtfEvents * ev, RtfEventKind kind,
    const RtfFrameReport * report);
gboolean rtf_events_push_written (RtfEvents * ev, const RtfFrame * f);
gboolean rtf_events_push_upstream_gap (RtfEvents * ev,
    const RtfFrameReport * report, const RtfFrameOrigin * origin);
gboolean rtf_events_push_space (RtfEvents * ev, const RtfSpaceReport * r);
void rtf_events_wait (RtfEvents * ev, gint64 until_us);
guint rtf_events_pop (RtfEvents * ev, RtfEvent * out, guint max,
    guint64 * overflowed);
void rtf_events_wake (RtfEvents * ev);

G_END_DECLS

#endif /* __RTF_EVENTS_H__ */
