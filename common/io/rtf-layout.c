/* rtframe: how one frame becomes aligned writes.
 *
 * Frames are concatenated byte-exactly, so a frame starts wherever the
 * previous one ended, but direct I/O only writes whole blocks from aligned
 * memory.  A frame of `size` bytes at file `offset` is written as:
 *
 *   HEAD    (only if offset is not block-aligned) the block at
 *           offset - head_carry: the previous frame's last head_carry bytes
 *           (kept by the writer), then this frame's first bytes, then zeros.
 *   FRAME   the block-aligned middle, straight from the frame's memory, when
 *           that memory is contiguous and aligned (zero-copy), followed by
 *   TAIL    the last partial block: the remaining bytes, then zeros;
 *   or
 *   STAGING everything after the HEAD, copied once into aligned staging
 *           memory and zero-padded to a whole block.
 *
 * The zeros past the end of the frame are overwritten by the next frame's
 * HEAD, or cut off by the final ftruncate().  With block = 1 (buffered I/O)
 * every frame is one FRAME (or STAGING) segment. */
#include "rtf-layout.h"

void
rtf_layout_plan (guint64 offset, gsize size, gsize block, gsize mem_align,
    const guint8 * contiguous, RtfLayout * layout)
{
  gsize a, h = 0, body, full, rest;
  guint64 pos;
  guint n = 0;

  g_return_if_fail (block > 0 && mem_align > 0);

  layout->zero_copy = FALSE;
  a = offset % block;
  layout->head_carry = a;
  pos = offset - a;

  if (a > 0 && size > 0) {
    h = MIN (block - a, size);
    layout->seg[n++] = (RtfSegment) {
    RTF_SEGMENT_HEAD, pos, block, 0, h};
    pos += block;
  }

  body = size - h;
  full = body - body % block;
  rest = body % block;

  if (body > 0) {
    if (full > 0 && contiguous != NULL
        && ((guintptr) (contiguous + h)) % mem_align == 0) {
      layout->zero_copy = TRUE;
      layout->seg[n++] = (RtfSegment) {
      RTF_SEGMENT_FRAME, pos, full, h, full};
      if (rest > 0)
        layout->seg[n++] = (RtfSegment) {
        RTF_SEGMENT_TAIL, pos + full, block, h + full, rest};
    } else {
      layout->seg[n++] = (RtfSegment) {
      RTF_SEGMENT_STAGING, pos, full + (rest ? block : 0), h, body};
    }
  }
  layout->n_seg = n;

  layout->end_carry = (offset + size) % block;
  layout->end_block = offset + size - layout->end_carry;
}
