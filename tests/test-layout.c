/* Unit tests of common/io/rtf-layout.c: how frames become aligned writes */
#include "rtf-layout.h"

#include <string.h>

/* Checks the invariants of one plan and returns the new file offset. */
static guint64
check_plan (guint64 offset, gsize size, gsize block, gsize mem_align,
    const guint8 * mem, gboolean expect_zero_copy_possible)
{
  RtfLayout l;
  gsize covered = 0;
  guint64 expect_pos;
  guint i;

  rtf_layout_plan (offset, size, block, mem_align, mem, &l);

  g_assert_cmpuint (l.head_carry, ==, offset % block);
  expect_pos = offset - l.head_carry;
  for (i = 0; i < l.n_seg; i++) {
    const RtfSegment *s = &l.seg[i];

    /* every write is aligned and whole blocks */
    g_assert_cmpuint (s->file_offset % block, ==, 0);
    g_assert_cmpuint (s->length % block, ==, 0);
    g_assert_cmpuint (s->length, >, 0);
    /* writes are contiguous, in order, and carry the frame in order */
    g_assert_cmpuint (s->file_offset, ==, expect_pos);
    g_assert_cmpuint (s->frame_offset, ==, covered);
    g_assert_cmpuint (s->frame_length, <=, s->length);
    expect_pos += s->length;
    covered += s->frame_length;
    if (s->source == RTF_SEGMENT_HEAD) {
      g_assert_cmpuint (i, ==, 0);
      g_assert_cmpuint (l.head_carry, >, 0);
      g_assert_cmpuint (s->length, ==, block);
    }
    if (s->source == RTF_SEGMENT_FRAME) {
      g_assert (mem != NULL);
      g_assert_cmpuint (((guintptr) (mem + s->frame_offset)) % mem_align, ==,
          0);
      g_assert_cmpuint (s->frame_length, ==, s->length);
    }
    if (s->source == RTF_SEGMENT_TAIL) {
      g_assert_cmpuint (s->length, ==, block);
      g_assert_cmpuint (s->frame_length, <, block);
    }
  }
  g_assert_cmpuint (covered, ==, size);
  /* the writes end at the block holding the frame's last byte */
  g_assert_cmpuint (expect_pos, ==, (offset + size + block - 1) / block *
      block);
  g_assert_cmpuint (l.end_block + l.end_carry, ==, offset + size);
  g_assert_cmpuint (l.end_block % block, ==, 0);
  if (expect_zero_copy_possible)
    g_assert (l.zero_copy);
  return offset + size;
}

static void
test_aligned_frames_are_zero_copy (void)
{
  guint8 *mem = g_aligned_alloc (1, 3 * 4096, 4096);
  guint64 off = 0;
  guint i;

  for (i = 0; i < 10; i++)
    off = check_plan (off, 3 * 4096, 4096, 512, mem, TRUE);
  g_aligned_free (mem);
}

static void
test_buffered_is_one_write (void)
{
  guint8 mem[1001] = { 0 };
  RtfLayout l;

  rtf_layout_plan (12345, 1000, 1, 1, mem + 1, &l);
  g_assert_cmpuint (l.n_seg, ==, 1);
  g_assert_cmpint (l.seg[0].source, ==, RTF_SEGMENT_FRAME);
  g_assert_cmpuint (l.seg[0].file_offset, ==, 12345);
  g_assert_cmpuint (l.seg[0].length, ==, 1000);

  rtf_layout_plan (7, 1000, 1, 1, NULL, &l);
  g_assert_cmpuint (l.n_seg, ==, 1);
  g_assert_cmpint (l.seg[0].source, ==, RTF_SEGMENT_STAGING);
}

static void
test_unaligned_memory_is_copied (void)
{
  guint8 *mem = g_aligned_alloc (1, 8192 + 1, 4096);
  RtfLayout l;

  rtf_layout_plan (0, 8192, 4096, 512, mem + 1, &l);
  g_assert (!l.zero_copy);
  g_assert_cmpuint (l.n_seg, ==, 1);
  g_assert_cmpint (l.seg[0].source, ==, RTF_SEGMENT_STAGING);
  g_aligned_free (mem);
}

static void
test_small_frame_within_one_block (void)
{
  RtfLayout l;

  /* 100 bytes at 10: one HEAD block holding 10 old bytes + the frame */
  rtf_layout_plan (10, 100, 4096, 512, NULL, &l);
  g_assert_cmpuint (l.n_seg, ==, 1);
  g_assert_cmpint (l.seg[0].source, ==, RTF_SEGMENT_HEAD);
  g_assert_cmpuint (l.seg[0].frame_length, ==, 100);
  g_assert_cmpuint (l.end_block, ==, 0);
  g_assert_cmpuint (l.end_carry, ==, 110);

  /* a frame that exactly fills the rest of the block */
  rtf_layout_plan (4000, 96, 4096, 512, NULL, &l);
  g_assert_cmpuint (l.n_seg, ==, 1);
  g_assert_cmpuint (l.end_block, ==, 4096);
  g_assert_cmpuint (l.end_carry, ==, 0);
}

/* Every combination of offset and size, for small blocks, and random ones
 * for a 4096 block, with memory aligned, unaligned and in pieces. */
static void
test_invariants_exhaustive (void)
{
  guint8 *mem = g_aligned_alloc0 (1, 40000 + 64, 4096);
  gsize block, off, size;
  guint i;

  for (block = 1; block <= 16; block *= 2)
    for (off = 0; off < 3 * block; off++)
      for (size = 1; size < 5 * block; size++) {
        check_plan (off, size, block, 1, mem, FALSE);
        check_plan (off, size, block, block, mem + 1, FALSE);
        check_plan (off, size, block, block, NULL, FALSE);
      }

  for (i = 0; i < 20000; i++) {
    gsize o = g_random_int_range (0, 1 << 20);
    gsize s = g_random_int_range (1, 40000);
    gsize shift = g_random_int_range (0, 64);

    check_plan (o, s, 4096, 512, mem + shift, FALSE);
    check_plan (o, s, 512, 4, mem + shift, FALSE);
  }
  g_aligned_free (mem);
}

/* Frames whose size is a multiple of the memory alignment stay zero-copy
 * after the first, even when they are not a multiple of the block. */
static void
test_zero_copy_with_unaligned_offsets (void)
{
  guint8 *mem = g_aligned_alloc (1, 6220800, 4096);
  guint64 off = 0;
  guint i;

  for (i = 0; i < 16; i++)
    off = check_plan (off, 6220800, 4096, 512, mem, TRUE);
  g_aligned_free (mem);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/layout/aligned-frames-zero-copy",
      test_aligned_frames_are_zero_copy);
  g_test_add_func ("/layout/buffered-one-write", test_buffered_is_one_write);
  g_test_add_func ("/layout/unaligned-memory-copied",
      test_unaligned_memory_is_copied);
  g_test_add_func ("/layout/small-frame-one-block",
      test_small_frame_within_one_block);
  g_test_add_func ("/layout/invariants", test_invariants_exhaustive);
  g_test_add_func ("/layout/zero-copy-unaligned-offsets",
      test_zero_copy_with_unaligned_offsets);
  return g_test_run ();
}
