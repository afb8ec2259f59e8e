/* rtframe: frames lost before the recorder - what upstream says of each
 * frame (its sequence number, its timestamp, a discontinuity) and the
 * gaps that follow from it.  Pure logic: no clock, no I/O, no allocation;
 * the element feeds it from each buffer (gst/gstrtframesink.c) and the
 * index keeps what it found (docs/recording.md). */
#ifndef __RTF_UPSTREAM_GAP_H__
#define __RTF_UPSTREAM_GAP_H__

#include <glib.h>

G_BEGIN_DECLS

/* How a gap was seen: bits, several may be set */
typedef enum
{
  RTF_GAP_OFFSET = 1 << 0,      /* the frame counter (buffer offset) skipped */
  RTF_GAP_DISCONT = 1 << 1,     /* upstream flagged a discontinuity */
  RTF_GAP_TIMESTAMP = 1 << 2    /* the timestamp jumped by more than one and
                                 * a half frame durations */
} RtfGapHow;

#define RTF_GAP_HOW_ALL (RTF_GAP_OFFSET | RTF_GAP_DISCONT | RTF_GAP_TIMESTAMP)

/* What upstream said of one frame (G_MAXUINT64: not set) */
typedef struct
{
  guint64 offset, offset_end;   /* the buffer's; a frame counter when
                                 * offset_end == offset + 1 */
  guint64 pts;                  /* ns */
  gboolean discont;             /* flagged a discontinuity */
} RtfUpstreamFrame;

/* A gap before a frame (how == 0: none) */
typedef struct
{
  guint32 how;                  /* RtfGapHow bits */
  guint64 missing;              /* frames missing; 0: not known (a
                                 * discontinuity with nothing to count by) */
  guint64 first_offset;         /* the first missing frame's counter, or
                                 * G_MAXUINT64 */
  guint64 first_pts;            /* when the first missing frame was due
                                 * (ns), or G_MAXUINT64 */
} RtfUpstreamGap;

/* What the detector remembers of the frame before */
typedef struct
{
  guint64 frame_duration;       /* ns at the caps' frame rate, 0: none (no
                                 * timestamp check) */
  gboolean seen;                /* a frame was seen since the reset */
  guint64 last_counter;         /* its frame counter, or G_MAXUINT64 */
  guint64 last_pts;             /* its pts, or G_MAXUINT64 */
} RtfGapDetector;

static inline void
rtf_upstream_gap_clear (RtfUpstreamGap * gap)
{
  gap->how = 0;
  gap->missing = 0;
  gap->first_offset = gap->first_pts = G_MAXUINT64;
}

/* Forgets the frame before (start, flush): the next frame starts afresh,
 * its discontinuity (a source's first buffer has one) is no gap. */
void rtf_gap_detector_reset (RtfGapDetector * d, guint64 frame_duration);
/* The caps changed: a new frame duration (0: none), the frame before kept */
void rtf_gap_detector_set_frame_duration (RtfGapDetector * d,
    guint64 frame_duration);

/* Whether frames were lost between the frame before and f: TRUE with *gap
 * filled, else FALSE with *gap cleared.  The rules (docs/design.md):
 *   - a frame counter on both frames (offset_end == offset + 1) decides
 *     the count: it skipped by more than one -> that many missing; the
 *     timestamps are then not looked at (a late frame is not a lost one);
 *     a counter that goes back or repeats started again: no gap;
 *   - else, with a frame duration, a timestamp later than the one before
 *     by more than 1.5 durations -> round(jump / duration) - 1 missing;
 *   - a discontinuity flag on any frame but the first since the reset is
 *     a gap, counted by the above where they count (else missing 0). */
gboolean rtf_gap_detector_check (RtfGapDetector * d,
    const RtfUpstreamFrame * f, RtfUpstreamGap * gap);

/* gap followed by later (a frame that carried gap was not recorded: the
 * next one carries both).  Into gap. */
void rtf_upstream_gap_merge (RtfUpstreamGap * gap, const RtfUpstreamGap * later);

/* "offset", "discont", "timestamp", or several joined by '+' ("offset+
 * discont"); "" for none.  Static strings. */
const gchar *rtf_gap_how_name (guint32 how);

G_END_DECLS

#endif /* __RTF_UPSTREAM_GAP_H__ */
