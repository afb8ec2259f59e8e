/* rtframe: frames lost before the recorder, from what upstream says of
 * each frame.  Runs on the streaming thread for every frame: a few
 * integer operations, nothing allocated. */
#include "rtf-upstream-gap.h"

#define NONE G_MAXUINT64

void
rtf_gap_detector_reset (RtfGapDetector * d, guint64 frame_duration)
{
  d->frame_duration = frame_duration;
  d->seen = FALSE;
  d->last_counter = d->last_pts = NONE;
}

void
rtf_gap_detector_set_frame_duration (RtfGapDetector * d, guint64 frame_duration)
{
  d->frame_duration = frame_duration;
}

/* The buffer offset as a frame counter: set, with offset_end one past it
 * (v4l2src: the driver's sequence number; videotestsrc: its frame count).
 * A byte offset (offset_end = offset + size) is not one. */
static guint64
counter_of (const RtfUpstreamFrame * f)
{
  if (f->offset == NONE || f->offset_end == NONE
      || f->offset_end != f->offset + 1)
    return NONE;
  return f->offset;
}

/* Frames missing in a jump of `jump` ns at `duration` ns a frame: the
 * jump rounded to whole durations, less the frame that came.  0 when the
 * jump is not more than 1.5 durations. */
static guint64
missing_in_jump (guint64 jump, guint64 duration)
{
  guint64 whole = jump / duration, rest = jump % duration;

  if (jump <= duration + duration / 2)
    return 0;
  if (rest >= duration - duration / 2)
    whole++;
  return whole - 1;
}

gboolean
rtf_gap_detector_check (RtfGapDetector * d, const RtfUpstreamFrame * f,
    RtfUpstreamGap * gap)
{
  guint64 counter = counter_of (f);
  gboolean counted = FALSE;

  rtf_upstream_gap_clear (gap);
  if (d->seen) {
    if (counter != NONE && d->last_counter != NONE && counter > d->last_counter) {
      /* the source's own count decides, whatever the timestamps say */
      counted = TRUE;
      if (counter - d->last_counter > 1) {
        gap->how |= RTF_GAP_OFFSET;
        gap->missing = counter - d->last_counter - 1;
        gap->first_offset = d->last_counter + 1;
      }
    }
    if (!counted && d->frame_duration > 0 && f->pts != NONE
        && d->last_pts != NONE && f->pts > d->last_pts) {
      guint64 n = missing_in_jump (f->pts - d->last_pts, d->frame_duration);

      if (n > 0) {
        gap->how |= RTF_GAP_TIMESTAMP;
        gap->missing = n;
      }
    }
    if (f->discont)
      gap->how |= RTF_GAP_DISCONT;
    if (gap->missing > 0 && d->last_pts != NONE && d->frame_duration > 0)
      gap->first_pts = d->last_pts + d->frame_duration;
  }
  d->seen = TRUE;
  d->last_counter = counter;
  d->last_pts = f->pts;
  return gap->how != 0;
}

void
rtf_upstream_gap_merge (RtfUpstreamGap * gap, const RtfUpstreamGap * later)
{
  if (later->how == 0)
    return;
  if (gap->how == 0) {
    *gap = *later;
    return;
  }
  gap->how |= later->how;
  gap->missing = later->missing > G_MAXUINT64 - gap->missing ? G_MAXUINT64 :
      gap->missing + later->missing;
  if (gap->first_offset == NONE)
    gap->first_offset = later->first_offset;
  if (gap->first_pts == NONE)
    gap->first_pts = later->first_pts;
}

const gchar *
rtf_gap_how_name (guint32 how)
{
  static const gchar *const names[] = {
    "", "offset", "discont", "offset+discont", "timestamp",
    "offset+timestamp", "discont+timestamp", "offset+discont+timestamp"
  };

  return names[how & RTF_GAP_HOW_ALL];
}
