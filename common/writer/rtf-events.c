/* rtframe: a bounded ring of frame events (deadlines, drops, writes,
 * upstream gaps).
 *
 * The writer thread (and the streaming thread, for drops) push events; a
 * reporter thread pops them and turns them into bus messages.  Pushing
 * copies one small struct under a mutex held for that copy only: no
 * allocation, no call into the application, so a burst of misses costs
 * the writer nothing.  When the ring is full the event is counted as
 * overflowed instead, and the reporter says how many were lost. */
#include "rtf-events.h"
#include "rtf-output.h"

struct _RtfEvents
{
  GMutex lock;
  GCond cond;
  RtfEvent *ring;
  guint capacity, first, count;
  guint64 overflowed;
  gboolean wake;
};

RtfEvents *
rtf_events_new (guint capacity)
{
  RtfEvents *ev = g_new0 (RtfEvents, 1);

  g_mutex_init (&ev->lock);
  g_cond_init (&ev->cond);
  ev->capacity = MAX (capacity, 1);
  ev->ring = g_new0 (RtfEvent, ev->capacity);
  return ev;
}

void
rtf_events_free (RtfEvents * ev)
{
  if (ev == NULL)
    return;
  g_free (ev->ring);
  g_cond_clear (&ev->cond);
  g_mutex_clear (&ev->lock);
  g_free (ev);
}

/* FALSE when the ring was full (the event is counted, not kept). */
static gboolean
push_event (RtfEvents * ev, const RtfEvent * event)
{
  gboolean kept = FALSE;

  g_mutex_lock (&ev->lock);
  if (ev->count < ev->capacity) {
    ev->ring[(ev->first + ev->count) % ev->capacity] = *event;
    ev->count++;
    kept = TRUE;
  } else {
    ev->overflowed++;
  }
  g_cond_signal (&ev->cond);
  g_mutex_unlock (&ev->lock);
  return kept;
}

gboolean
rtf_events_push (RtfEvents * ev, RtfEventKind kind,
    const RtfFrameReport * report)
{
  RtfEvent e = { 0 };

  e.kind = kind;
  e.report = *report;
  return push_event (ev, &e);
}

/* A frame the writer has just released as written. */
gboolean
rtf_events_push_written (RtfEvents * ev, const RtfFrame * f)
{
  RtfEvent e = { 0 };

  e.kind = RTF_EVENT_WRITTEN;
  rtf_frame_report_init (&e.report, f, f->complete_ns, RTF_FRAME_WRITTEN, 0, 0,
      0);
  e.u.written.submit_ns = f->submit_ns;
  e.u.written.offset = f->offset;
  e.u.written.copied = f->copied;
  /* which file holds it: a failed-over frame lies out of number order in
   * another location's file, so first-frame..last-frame of a file does
   * not say which frames it holds (torture 0x02bbb7c342b85d4c) */
  e.u.written.file = f->output ? ((RtfOutput *) f->output)->number : 0;
  e.u.written.location = f->location;
  return push_event (ev, &e);
}

/* Upstream lost frames before the frame reported (the producer's thread,
 * as it offers the frame) */
gboolean
rtf_events_push_upstream_gap (RtfEvents * ev, const RtfFrameReport * report,
    const RtfFrameOrigin * origin)
{
  RtfEvent e = { 0 };

  e.kind = RTF_EVENT_UPSTREAM_GAP;
  e.report = *report;
  e.u.upstream = *origin;
  return push_event (ev, &e);
}

/* The free space crossed a level (rare: no more than a few a minute). */
gboolean
rtf_events_push_space (RtfEvents * ev, const RtfSpaceReport * r)
{
  RtfEvent e = { 0 };

  e.kind = RTF_EVENT_DISK_SPACE;
  e.u.space = *r;
  return push_event (ev, &e);
}

/* Waits until an event comes, rtf_events_wake() is called, or the
 * monotonic time until_us (g_get_monotonic_time ()) passes. */
void
rtf_events_wait (RtfEvents * ev, gint64 until_us)
{
  g_mutex_lock (&ev->lock);
  while (ev->count == 0 && ev->overflowed == 0 && !ev->wake) {
    if (!g_cond_wait_until (&ev->cond, &ev->lock, until_us))
      break;
  }
  ev->wake = FALSE;
  g_mutex_unlock (&ev->lock);
}

/* Takes up to max events, without waiting.  *overflowed gets the events
 * lost since the last call. */
guint
rtf_events_pop (RtfEvents * ev, RtfEvent * out, guint max, guint64 * overflowed)
{
  guint n = 0;

  g_mutex_lock (&ev->lock);
  while (n < max && ev->count > 0) {
    out[n++] = ev->ring[ev->first];
    ev->first = (ev->first + 1) % ev->capacity;
    ev->count--;
  }
  *overflowed = ev->overflowed;
  ev->overflowed = 0;
  g_mutex_unlock (&ev->lock);
  return n;
}

void
rtf_events_wake (RtfEvents * ev)
{
  g_mutex_lock (&ev->lock);
  ev->wake = TRUE;
  g_cond_signal (&ev->cond);
  g_mutex_unlock (&ev->lock);
}
