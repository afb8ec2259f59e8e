/* rtframe: how one frame becomes aligned writes */
#ifndef __RTF_LAYOUT_H__
#define __RTF_LAYOUT_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RTF_SEGMENT_FRAME,            /* straight from the frame's own memory */
  RTF_SEGMENT_STAGING,          /* from the frame copied to staging memory */
  RTF_SEGMENT_HEAD,             /* previous frame's tail + this frame's head */
  RTF_SEGMENT_TAIL              /* this frame's last partial block */
} RtfSegmentSource;

typedef struct
{
  RtfSegmentSource source;
  guint64 file_offset;          /* multiple of the block size */
  gsize length;                 /* multiple of the block size */
  gsize frame_offset;           /* first byte of the frame it carries */
  gsize frame_length;           /* bytes of the frame it carries */
} RtfSegment;

#define RTF_LAYOUT_MAX_SEGMENTS 3

typedef struct
{
  RtfSegment seg[RTF_LAYOUT_MAX_SEGMENTS];
  guint n_seg;
  gsize head_carry;             /* bytes of the previous frame in the HEAD */
  guint64 end_block;            /* offset of the block holding the new tail */
  gsize end_carry;              /* bytes of the file in that block, 0..block-1 */
  gboolean zero_copy;           /* the frame's bulk is written from its memory */
} RtfLayout;

void rtf_layout_plan (guint64 offset, gsize size, gsize block,
    gsize mem_align, const guint8 * contiguous, RtfLayout * layout);

G_END_DECLS

#endif /* __RTF_LAYOUT_H__ */
