/* Unit tests of the recording format: CRC32C, file name patterns, the
 * index encoding and reading it back, and checking a file against it. */
#include "rtf-check.h"
#include "rtf-crc32c.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-recording.h"
#include "rtf-test-index.h"
#include "rtf-test-util.h"
#include "rtf-upstream-gap.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

static void
test_crc32c_vectors (void)
{
  guint8 zeros[32] = { 0 }, ones[32], inc[32], big[100003];
  guint i;
  guint32 a, b;

  memset (ones, 0xff, sizeof (ones));
  for (i = 0; i < 32; i++)
    inc[i] = i;
  /* RFC 3720 B.4 and the usual check value */
  g_assert_cmphex (rtf_crc32c (0, "123456789", 9), ==, 0xE3069283);
  g_assert_cmphex (rtf_crc32c (0, zeros, 32), ==, 0x8A9136AA);
  g_assert_cmphex (rtf_crc32c (0, ones, 32), ==, 0x62A8AB43);
  g_assert_cmphex (rtf_crc32c (0, inc, 32), ==, 0x46DD794E);
  g_assert_cmphex (rtf_crc32c_sw (0, "123456789", 9), ==, 0xE3069283);

  /* the CPU's instruction and the table agree, at every alignment and
   * split */
  for (i = 0; i < sizeof (big); i++)
    big[i] = (guint8) (i * 2654435761u >> 13);
  for (i = 0; i < 9; i++) {
    a = rtf_crc32c (0, big + i, sizeof (big) - i);
    b = rtf_crc32c_sw (0, big + i, sizeof (big) - i);
    g_assert_cmphex (a, ==, b);
    b = rtf_crc32c (rtf_crc32c (0, big + i, 777), big + i + 777,
        sizeof (big) - i - 777);
    g_assert_cmphex (a, ==, b);
  }
}

static void
test_pattern (void)
{
  gchar *why = NULL, *s;
  RtfPattern p;
  guint64 n;

  g_assert_cmpint (rtf_pattern_check ("/x/cam.raw", NULL), ==,
      RTF_PATTERN_NONE);
  g_assert_cmpint (rtf_pattern_check ("/x/100%%.raw", NULL), ==,
      RTF_PATTERN_NONE);
  g_assert_cmpint (rtf_pattern_check ("/x/cam-%05d.raw", NULL), ==,
      RTF_PATTERN_OK);
  g_assert_cmpint (rtf_pattern_check ("cam-%llu", NULL), ==, RTF_PATTERN_OK);
  g_assert_cmpint (rtf_pattern_check ("cam-%s.raw", &why), ==,
      RTF_PATTERN_INVALID);
  g_assert_nonnull (strstr (why, "integer"));
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (rtf_pattern_check ("%d-%d", &why), ==, RTF_PATTERN_INVALID);
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (rtf_pattern_check ("cam-%n", &why), ==, RTF_PATTERN_INVALID);
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (rtf_pattern_check ("cam-%", &why), ==, RTF_PATTERN_INVALID);
  g_clear_pointer (&why, g_free);
  /* the readers look in one directory: the number goes in the name */
  g_assert_cmpint (rtf_pattern_check ("d%d/cam.raw", &why), ==,
      RTF_PATTERN_INVALID);
  g_assert_nonnull (strstr (why, "not in a directory"));
  g_clear_pointer (&why, g_free);

  s = rtf_pattern_format ("/x/cam-%05d.raw", 42);
  g_assert_cmpstr (s, ==, "/x/cam-00042.raw");
  g_free (s);
  s = rtf_pattern_format ("c%d_100%%.raw", 7);
  g_assert_cmpstr (s, ==, "c7_100%.raw");
  g_free (s);
  s = rtf_pattern_format ("%3u|", 5);
  g_assert_cmpstr (s, ==, "  5|");
  g_free (s);
  s = rtf_pattern_format ("plain.raw", 5);
  g_assert_cmpstr (s, ==, "plain.raw");
  g_free (s);

  /* the readers find each name the sink makes, with its number */
  g_assert_true (rtf_pattern_parse ("/x/50%%/cam-%05d.raw", &p));
  g_assert_cmpstr (p.dir, ==, "/x/50%");
  g_assert_cmpstr (p.prefix, ==, "cam-");
  g_assert_cmpstr (p.suffix, ==, ".raw");
  g_assert_true (rtf_pattern_match (&p, "cam-00042.raw", &n));
  g_assert_cmpuint (n, ==, 42);
  g_assert_true (rtf_pattern_match (&p, "cam-123456.raw", &n));
  g_assert_cmpuint (n, ==, 123456);
  g_assert_false (rtf_pattern_match (&p, "cam-42.raw", &n));
  g_assert_false (rtf_pattern_match (&p, "cam-00042.raw.idx", &n));
  g_assert_false (rtf_pattern_match (&p, "cam-.raw", &n));
  g_assert_false (rtf_pattern_match (&p, "cam-0004x.raw", &n));
  rtf_pattern_clear (&p);
  /* a number glued to digits of the name: cam1%d.raw makes cam10.raw,
   * cam11.raw, cam110.raw; each is found with its own number */
  g_assert_true (rtf_pattern_parse ("cam1%d.raw", &p));
  g_assert_cmpstr (p.dir, ==, ".");
  g_assert_true (rtf_pattern_match (&p, "cam10.raw", &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_true (rtf_pattern_match (&p, "cam110.raw", &n));
  g_assert_cmpuint (n, ==, 10);
  rtf_pattern_clear (&p);
  g_assert_true (rtf_pattern_parse ("%d0.raw", &p));
  g_assert_true (rtf_pattern_match (&p, "100.raw", &n));
  g_assert_cmpuint (n, ==, 10);
  g_assert_false (rtf_pattern_match (&p, "010.raw", &n));
  rtf_pattern_clear (&p);
  g_assert_false (rtf_pattern_parse ("plain.raw", &p));

  /* time fields: written at a time, zeros before it; found by number
   * whatever the time */
  {
    const gchar *timed = "/x/cam-%F-%H%M%S-%05d.raw";
    gchar *why_not = NULL;
    gint64 t = 1764931200LL * G_USEC_PER_SEC;   /* 2025-12-05 10:40 UTC */

    g_assert_cmpint (rtf_pattern_check (timed, NULL), ==, RTF_PATTERN_OK);
    g_assert_true (rtf_pattern_is_timed (timed));
    g_assert_false (rtf_pattern_is_timed ("/x/cam-%05d.raw"));
    s = rtf_pattern_format (timed, 3);
    g_assert_cmpstr (s, ==, "/x/cam-0000-00-00-000000-00003.raw");
    g_assert_true (rtf_pattern_names (timed, s, 3));
    g_free (s);
    s = rtf_pattern_format_at (timed, 42, t);
    g_assert_cmpuint (strlen (s), ==,
        strlen ("/x/cam-0000-00-00-000000-00042.raw"));
    g_assert_true (g_str_has_prefix (s, "/x/cam-2025-12-0"));
    g_assert_true (rtf_pattern_names (timed, s, 42));
    g_assert_false (rtf_pattern_names (timed, s, 41));
    g_assert_false (rtf_pattern_names ("/y/cam-%F-%H%M%S-%05d.raw", s, 42));
    g_free (s);
    g_assert_true (rtf_pattern_parse (timed, &p));
    g_assert_true (p.timed);
    g_assert_true (rtf_pattern_match (&p, "cam-2026-01-31-235959-00007.raw",
            &n));
    g_assert_cmpuint (n, ==, 7);
    g_assert_false (rtf_pattern_match (&p, "cam-2026-1x-31-235959-00007.raw",
            &n));
    g_assert_false (rtf_pattern_match (&p, "cam-2026-01-31-23595-00007.raw",
            &n));
    g_assert_false (rtf_pattern_match (&p, "cam-2026-01-31-235959-7.raw", &n));
    rtf_pattern_clear (&p);
    /* %% beside a field; the number before the fields */
    g_assert_true (rtf_pattern_parse ("c%d_%Y%%.raw", &p));
    g_assert_true (rtf_pattern_match (&p, "c12_2026%.raw", &n));
    g_assert_cmpuint (n, ==, 12);
    rtf_pattern_clear (&p);
    /* refused: fields without a number, in a directory, unknown ones */
    g_assert_cmpint (rtf_pattern_check ("/x/cam-%F.raw", &why_not), ==,
        RTF_PATTERN_INVALID);
    g_assert_nonnull (strstr (why_not, "need the file number"));
    g_clear_pointer (&why_not, g_free);
    g_assert_cmpint (rtf_pattern_check ("/x/%F/cam-%05d.raw", &why_not), ==,
        RTF_PATTERN_INVALID);
    g_assert_nonnull (strstr (why_not, "not in a directory"));
    g_clear_pointer (&why_not, g_free);
    g_assert_cmpint (rtf_pattern_check ("/x/cam-%T-%05d.raw", NULL), ==,
        RTF_PATTERN_INVALID);
  }
}

#define CAPS_TEXT RTF_TEST_CAPS_TEXT

static void
fill_record (RtfIndexRecord * r, guint64 i, guint32 size)
{
  rtf_test_index_record (r, i, size);
}

/* "rec.raw", file number 3 of a recording whose id is all 0xab, its
 * index in `version` (0: the current) */
static gchar *
write_recording_v (const gchar * dir, guint n, guint32 size, gboolean sums,
    guint32 version)
{
  RtfTestRecording t = { "rec.raw", 3, n, size, sums, version, 0xab, FALSE };

  return rtf_test_index_write (dir, &t);
}

static gchar *
write_recording (const gchar * dir, guint n, guint32 size, gboolean sums)
{
  return write_recording_v (dir, n, size, sums, 0);
}

static void
poke (const gchar * path, guint64 at, gchar c)
{
  rtf_test_poke (path, at, c);
}

/* The clock anchor (issue 26): 16 bytes at the header's end, flagged; a
 * record's monotonic time on the wall clock through it; a header without
 * it says none; a flag whose bytes are not there is a damaged header */
static void
test_index_clock_anchor (void)
{
  RtfIndexHeader h = { 0 }, back;
  guint8 buf[1024];
  gsize size, plain;
  gchar *why = NULL;
  gint64 wall = 0;

  h.frame_size = 64;
  h.format = (gchar *) CAPS_TEXT;
  h.data_name = (gchar *) "rec.raw";
  plain = rtf_index_header_size (&h);
  size = rtf_index_encode_header (&h, buf);
  g_assert_true (rtf_index_decode_header (buf, size, &back, &why));
  g_assert_false (rtf_index_wall_clock (&back, 5000, &wall));
  rtf_index_header_clear (&back);

  h.flags = RTF_INDEX_HAS_CLOCK_ANCHOR;
  h.anchor_realtime_ns = G_GINT64_CONSTANT (1764900000000000000);
  h.anchor_monotonic_ns = 1000000;
  size = rtf_index_encode_header (&h, buf);
  g_assert_cmpuint (size, ==, plain + RTF_INDEX_CLOCK_ANCHOR_SIZE);
  g_assert_true (rtf_index_decode_header (buf, size, &back, &why));
  g_assert_cmpint (back.anchor_realtime_ns, ==, h.anchor_realtime_ns);
  g_assert_cmpint (back.anchor_monotonic_ns, ==, h.anchor_monotonic_ns);
  g_assert_true (rtf_index_wall_clock (&back, 3500000, &wall));
  g_assert_cmpint (wall, ==, h.anchor_realtime_ns + 2500000);
  rtf_index_header_clear (&back);

  /* flagged, but the header is no longer than one without the anchor
   * (its size field and CRC made to say so) */
  {
    guint8 cut[1024];
    RtfIndexHeader no = h;

    no.flags = 0;
    rtf_index_encode_header (&no, cut);
    cut[20] |= RTF_INDEX_HAS_CLOCK_ANCHOR;
    cut[60] = cut[61] = cut[62] = cut[63] = 0;
    {
      guint32 crc = rtf_crc32c (0, cut, plain);

      cut[60] = crc & 0xff;
      cut[61] = (crc >> 8) & 0xff;
      cut[62] = (crc >> 16) & 0xff;
      cut[63] = crc >> 24;
    }
    g_assert_false (rtf_index_decode_header (cut, plain, &back, &why));
    g_assert_nonnull (strstr (why, "damaged"));
    g_free (why);
  }
}

static void
test_index_round_trip (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtf-index");
  gchar *path = write_recording (dir, 5, 64, TRUE);
  gchar *ipath = rtf_index_path (path);
  GError *error = NULL;
  RtfIndex *idx = rtf_index_load (ipath, &error);
  RtfIndexHeader probe = { 0 };
  guint i;

  g_assert_no_error (error);
  g_assert_cmpuint (idx->header.version, ==, RTF_INDEX_VERSION);
  g_assert_cmpuint (idx->header.frame_size, ==, 64);
  g_assert_cmpuint (idx->header.file_number, ==, 3);
  g_assert_cmpuint (idx->header.deadline_ns, ==, 50000000);
  g_assert_cmpint (idx->header.created_ns, ==, 1234);
  g_assert_cmpuint (idx->header.header_size % 8, ==, 0);
  g_assert_cmpstr (idx->header.format, ==, CAPS_TEXT);
  g_assert_cmpstr (idx->header.data_name, ==, "rec.raw");
  g_assert_cmpuint (idx->header.max_in_flight, ==, 4);
  g_assert_cmpuint (idx->header.block, ==, 4096);
  g_assert_cmpuint (idx->header.recording_id.bytes[15], ==, 0xab);
  g_assert_cmpuint (idx->n_records, ==, 5);
  g_assert_null (idx->damage);
  for (i = 0; i < 5; i++) {
    RtfIndexRecord want;
    const RtfIndexRecord *r = &idx->records[i];

    fill_record (&want, i, 64);
    g_assert_cmpuint (r->seq, ==, want.seq);
    g_assert_cmpuint (r->pts, ==, want.pts);
    g_assert_cmpuint (r->duration, ==, want.duration);
    g_assert_cmpuint (r->running_time, ==, want.running_time);
    g_assert_cmpint (r->arrival_ns, ==, want.arrival_ns);
    g_assert_cmpint (r->complete_ns, ==, want.complete_ns);
    g_assert_cmpuint (r->offset, ==, want.offset);
    g_assert_cmpuint (r->size, ==, want.size);
    g_assert_cmpuint (r->flags, ==, want.flags);
    g_assert_cmpuint (r->upstream_offset, ==, want.upstream_offset);
    g_assert_cmpuint (r->reference_ns, ==, want.reference_ns);
    g_assert_cmpuint (r->gap_missing, ==, want.gap_missing);
    g_assert_cmpuint (r->gap_how, ==, want.gap_how);
    g_assert_cmpuint (r->slot, ==, i);
  }
  /* version 3: the reference caps, the gap before frame 4 */
  g_assert_cmpuint (idx->header.record_size, ==, RTF_INDEX_RECORD_SIZE);
  g_assert_cmpstr (idx->header.reference, ==, RTF_TEST_REFERENCE_TEXT);
  g_assert_true (idx->records[RTF_TEST_GAP_FRAME].flags & RTF_INDEX_REC_GAP);
  g_assert_false (idx->records[3].flags & RTF_INDEX_REC_GAP);
  g_assert_cmpuint (idx->records[RTF_TEST_GAP_FRAME].gap_missing, ==,
      RTF_TEST_GAP_MISSING);
  g_assert_cmpuint (idx->records[RTF_TEST_GAP_FRAME].gap_how, ==,
      RTF_GAP_OFFSET);
  rtf_index_free (idx);

  /* a record cut short: a torn tail */
  probe.format = (gchar *) CAPS_TEXT;
  probe.data_name = (gchar *) "rec.raw";
  probe.reference = (gchar *) RTF_TEST_REFERENCE_TEXT;
  g_assert_true (truncate (ipath, (off_t) (rtf_index_header_size (&probe) +
              4 * RTF_INDEX_RECORD_SIZE + 10)) == 0);
  idx = rtf_index_load (ipath, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (idx->n_records, ==, 4);
  g_assert_nonnull (strstr (idx->damage, "cut short"));
  /* one damaged in the middle: the records after it are still read, and
   * the damage is said to be in the middle */
  poke (ipath, idx->header.header_size + 2 * RTF_INDEX_RECORD_SIZE + 9, '!');
  rtf_index_free (idx);
  idx = rtf_index_load (ipath, &error);
  g_assert_cmpuint (idx->n_records, ==, 3);
  g_assert_cmpuint (idx->n_damaged, ==, 1);
  g_assert_cmpuint (idx->first_damaged, ==, 2);
  g_assert_cmpuint (idx->records[2].slot, ==, 3);
  g_assert_cmpuint (idx->keep_slots, ==, 4);
  g_assert_nonnull (strstr (idx->damage, "between intact ones"));
  rtf_index_free (idx);

  /* no header: an error that says why */
  g_assert_true (g_file_set_contents (ipath, "", 0, NULL));
  g_assert_null (rtf_index_load (ipath, &error));
  g_assert_nonnull (strstr (error->message, "empty"));
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (ipath, "RTFINDEX\x02", 9, NULL));
  g_assert_null (rtf_index_load (ipath, &error));
  g_clear_error (&error);

  rtf_test_tmpdir_free (dir);
  g_free (ipath);
  g_free (path);
}

/* An index with a hole of 30000 records between intact ones reads the
 * same whether the hole is sparse (skipped with SEEK_DATA, unread) or
 * written zeros (read): the hole's records counted damaged, the records
 * after it read, at their places */
static void
test_index_sparse_hole (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtf-index");
  gchar *path = write_recording (dir, 5, 64, FALSE);
  gchar *ipath = rtf_index_path (path), *bytes = NULL;
  gchar *holed = g_build_filename (dir, "holed.idx", NULL);
  const gsize rs = RTF_INDEX_RECORD_SIZE;
  const guint64 hole = 30000;
  gsize len, head;
  guint pass;

  g_assert_true (g_file_get_contents (ipath, &bytes, &len, NULL));
  head = len - 5 * rs;
  for (pass = 0; pass < 2; pass++) {
    GError *error = NULL;
    RtfIndex *idx;
    struct stat st;
    gint fd = open (holed, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    g_assert_cmpint (fd, >=, 0);
    g_assert_cmpint (write (fd, bytes, head + 2 * rs), ==, head + 2 * rs);
    if (pass == 1) {
      gchar *zeros = g_malloc0 (hole * rs);

      g_assert_cmpint (write (fd, zeros, hole * rs), ==, hole * rs);
      g_free (zeros);
    }
    g_assert_cmpint (pwrite (fd, bytes + head + 2 * rs, 3 * rs,
            head + (2 + hole) * rs), ==, 3 * rs);
    g_assert_cmpint (fstat (fd, &st), ==, 0);
    close (fd);
    if (pass == 0 && (guint64) st.st_blocks * 512 >= hole * rs)
      g_test_message ("%s keeps no holes: the hole was read", dir);
    idx = rtf_index_load (holed, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (idx->n_records, ==, 5);
    g_assert_cmpuint (idx->n_damaged, ==, hole);
    g_assert_cmpuint (idx->first_damaged, ==, 2);
    g_assert_cmpuint (idx->records[1].slot, ==, 1);
    g_assert_cmpuint (idx->records[2].slot, ==, 2 + hole);
    g_assert_cmpuint (idx->records[4].seq, ==, 4);
    g_assert_cmpuint (idx->keep_slots, ==, 5 + hole);
    g_assert_nonnull (strstr (idx->damage, "30000 damaged records between "
            "intact ones, the first at place 2"));
    rtf_index_free (idx);
  }
  rtf_test_tmpdir_free (dir);
  g_free (holed);
  g_free (bytes);
  g_free (ipath);
  g_free (path);
}

/* A version 1 index (what recordings made before version 2 have) reads
 * as before: no name, no id */
static void
test_index_version_1 (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtf-index-v1");
  gchar *path = write_recording_v (dir, 4, 100, TRUE, RTF_INDEX_VERSION_1);
  gchar *ipath = rtf_index_path (path);
  GError *error = NULL;
  RtfIndex *idx = rtf_index_load (ipath, &error);
  RtfRecording *rec;
  RtfCheck c;

  g_assert_no_error (error);
  g_assert_cmpuint (idx->header.version, ==, 1);
  g_assert_cmpuint (idx->header.header_size, ==,
      (RTF_INDEX_FIXED_HEADER_V1 + strlen (CAPS_TEXT) + 1 + 7) & ~7);
  g_assert_cmpstr (idx->header.format, ==, CAPS_TEXT);
  g_assert_null (idx->header.data_name);
  g_assert_cmpuint (idx->header.max_in_flight, ==, 0);
  g_assert_cmpuint (idx->n_records, ==, 4);
  rtf_index_free (idx);

  rec = rtf_recording_open (path, 0, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rec->files[0].state, ==, RTF_FILE_OK);
  g_assert_cmpint (rec->files[0].proof, ==, RTF_PROOF_LEGACY);
  g_assert_cmpuint (rec->n_frames, ==, 4);
  rtf_check_file (&rec->files[0], TRUE, 0, &c);
  g_assert_cmpuint (c.faults->len, ==, 0);
  g_assert_cmpuint (c.checked_sums, ==, 4);
  rtf_check_clear (&c);
  rtf_recording_free (rec);
  rtf_test_tmpdir_free (dir);
  g_free (ipath);
  g_free (path);
}

/* A version 2 index (recordings made before version 3) reads as it was
 * written: 72-byte records, no reference caps, no upstream fields - every
 * reader takes it as before */
static void
test_index_version_2 (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtf-index-v2");
  gchar *path = write_recording_v (dir, 6, 100, TRUE, RTF_INDEX_VERSION_2);
  gchar *ipath = rtf_index_path (path);
  GError *error = NULL;
  RtfIndex *idx = rtf_index_load (ipath, &error);
  RtfRecording *rec;
  RtfCheck c;
  gchar *text = NULL;
  gsize len;
  guint i;

  g_assert_no_error (error);
  g_assert_cmpuint (idx->header.version, ==, 2);
  g_assert_cmpuint (idx->header.record_size, ==, RTF_INDEX_RECORD_SIZE_V2);
  g_assert_cmpuint (idx->header.header_size, ==, (RTF_INDEX_FIXED_HEADER +
          strlen ("rec.raw") + 1 + strlen (CAPS_TEXT) + 1 + 7) & ~7);
  g_assert_cmpstr (idx->header.format, ==, CAPS_TEXT);
  g_assert_cmpstr (idx->header.data_name, ==, "rec.raw");
  g_assert_null (idx->header.reference);
  g_assert_cmpuint (idx->n_records, ==, 6);
  g_assert_null (idx->damage);
  g_assert_true (g_file_get_contents (ipath, &text, &len, NULL));
  g_assert_cmpuint (len, ==, idx->header.header_size + 6 * 72);
  g_free (text);
  for (i = 0; i < 6; i++) {
    RtfIndexRecord want;
    const RtfIndexRecord *r = &idx->records[i];

    fill_record (&want, i, 100);
    g_assert_cmpuint (r->seq, ==, want.seq);
    g_assert_cmpuint (r->pts, ==, want.pts);
    g_assert_cmpuint (r->offset, ==, want.offset);
    g_assert_cmpuint (r->flags, ==, want.flags & ~RTF_INDEX_REC_GAP);
    g_assert_cmpuint (r->upstream_offset, ==, RTF_INDEX_NONE);
    g_assert_cmpuint (r->reference_ns, ==, RTF_INDEX_NONE);
    g_assert_cmpuint (r->gap_missing, ==, 0);
    g_assert_cmpuint (r->gap_how, ==, 0);
  }
  rtf_index_free (idx);

  rec = rtf_recording_open (path, 0, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rec->files[0].state, ==, RTF_FILE_OK);
  g_assert_cmpint (rec->files[0].proof, ==, RTF_PROOF_NAME);
  g_assert_cmpuint (rec->n_frames, ==, 6);
  g_assert_cmpint (rec->files[0].walk.stop, ==, RTF_INDEX_WHOLE);
  rtf_check_file (&rec->files[0], TRUE, 0, &c);
  g_assert_cmpuint (c.faults->len, ==, 0);
  g_assert_cmpuint (c.checked_sums, ==, 6);
  g_assert_cmpuint (c.missed, ==, 1);
  rtf_check_clear (&c);
  rtf_recording_free (rec);
  rtf_test_tmpdir_free (dir);
  g_free (ipath);
  g_free (path);
}

/* One record in each version: what each keeps, each with its own CRC;
 * a header of version 3 whose reference caps run past it is refused */
static void
test_record_versions (void)
{
  guint8 buf[RTF_INDEX_RECORD_SIZE + 8], head[512];
  RtfIndexRecord r, got;
  RtfIndexHeader h = { 0 }, back;
  gchar *why = NULL;
  gsize size;

  fill_record (&r, RTF_TEST_GAP_FRAME, 64);
  g_assert_cmpuint (rtf_index_record_size (0), ==, 96);
  g_assert_cmpuint (rtf_index_record_size (3), ==, 96);
  g_assert_cmpuint (rtf_index_record_size (2), ==, 72);
  g_assert_cmpuint (rtf_index_record_size (1), ==, 72);

  g_assert_cmpuint (rtf_index_encode_record_as (&r, 2, buf), ==, 72);
  g_assert_true (rtf_index_decode_record (buf, 72, 2, &got));
  g_assert_cmpuint (got.seq, ==, r.seq);
  g_assert_cmpuint (got.upstream_offset, ==, RTF_INDEX_NONE);
  g_assert_cmpuint (got.reference_ns, ==, RTF_INDEX_NONE);
  buf[70] ^= 1;                 /* its CRC covers bytes 0..67 */
  g_assert_false (rtf_index_decode_record (buf, 72, 2, &got));

  g_assert_cmpuint (rtf_index_encode_record_as (&r, 3, buf), ==, 96);
  g_assert_true (rtf_index_decode_record (buf, 96, 3, &got));
  g_assert_cmpuint (got.upstream_offset, ==, r.upstream_offset);
  g_assert_cmpuint (got.reference_ns, ==, r.reference_ns);
  g_assert_cmpuint (got.gap_missing, ==, RTF_TEST_GAP_MISSING);
  g_assert_cmpuint (got.gap_how, ==, RTF_GAP_OFFSET);
  g_assert_true (got.flags & RTF_INDEX_REC_GAP);
  /* the CRC covers the new fields too */
  buf[80] ^= 1;
  g_assert_false (rtf_index_decode_record (buf, 96, 3, &got));

  /* the reference caps in the header, its length at byte 92 */
  h.format = (gchar *) CAPS_TEXT;
  h.data_name = (gchar *) "rec.raw";
  h.reference = (gchar *) RTF_TEST_REFERENCE_TEXT;
  h.frame_size = 64;
  size = rtf_index_encode_header (&h, head);
  g_assert_cmpuint (size, ==, (96 + strlen ("rec.raw") + 1 +
          strlen (CAPS_TEXT) + 1 + strlen (RTF_TEST_REFERENCE_TEXT) + 1 + 7)
      & ~7);
  g_assert_true (rtf_index_decode_header (head, size, &back, &why));
  g_assert_cmpuint (back.version, ==, 3);
  g_assert_cmpuint (back.record_size, ==, 96);
  g_assert_cmpstr (back.reference, ==, RTF_TEST_REFERENCE_TEXT);
  rtf_index_header_clear (&back);
  /* no reference caps: NULL again */
  h.reference = NULL;
  size = rtf_index_encode_header (&h, head);
  g_assert_true (rtf_index_decode_header (head, size, &back, &why));
  g_assert_null (back.reference);
  rtf_index_header_clear (&back);
  /* a length past the header (CRC made right): refused */
  head[92] = 200;
  head[60] = head[61] = head[62] = head[63] = 0;
  {
    guint32 crc = GUINT32_TO_LE (rtf_crc32c (0, head, size));

    memcpy (head + 60, &crc, 4);
  }
  g_assert_false (rtf_index_decode_header (head, size, &back, &why));
  g_assert_nonnull (strstr (why, "sizes out of range"));
  g_free (why);
}

static void
test_check_file (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtf-check");
  gchar *path = write_recording (dir, 6, 100, TRUE);
  gchar *ipath = rtf_index_path (path);
  RtfRecording *rec;
  RtfCheck c;
  GError *error = NULL;

  rec = rtf_recording_open (path, 0, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rec->n_files, ==, 1);
  g_assert_cmpuint (rec->n_frames, ==, 6);
  g_assert_cmpint (rec->files[0].proof, ==, RTF_PROOF_NAME);
  g_assert_cmpuint (rtf_recording_frame (rec, 4, NULL)->offset, ==, 400);
  g_assert_null (rtf_recording_frame (rec, 6, NULL));
  rtf_check_file (&rec->files[0], TRUE, 0, &c);
  g_assert_cmpuint (c.faults->len, ==, 0);
  g_assert_cmpuint (c.good_frames, ==, 6);
  g_assert_cmpuint (c.good_end, ==, 600);
  g_assert_cmpuint (c.checked_sums, ==, 6);
  g_assert_cmpuint (c.missed, ==, 1);
  rtf_check_clear (&c);
  rtf_recording_free (rec);

  /* a byte of frame 3 changes: reported, and every frame stays (the ones
   * after it are as good as before) */
  poke (path, 345, '#');
  rec = rtf_recording_open (path, 0, TRUE, &error);
  rtf_check_file (&rec->files[0], TRUE, 0, &c);
  g_assert_cmpuint (c.good_frames, ==, 6);
  g_assert_cmpuint (c.good_end, ==, 600);
  g_assert_cmpuint (c.bad_sums, ==, 1);
  g_assert_false (c.read_error);
  g_assert_cmpuint (c.faults->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (c.faults, 0), "frame 3"));
  g_assert_nonnull (strstr (g_ptr_array_index (c.faults, 0), "bytes 300..400"));
  rtf_check_clear (&c);
  /* without reading the data it goes unseen */
  rtf_check_file (&rec->files[0], FALSE, 0, &c);
  g_assert_cmpuint (c.faults->len, ==, 0);
  rtf_check_clear (&c);
  rtf_recording_free (rec);

  /* the data cut short in frame 5; trailing bytes after the index */
  g_assert_true (truncate (path, 550) == 0);
  rec = rtf_recording_open (path, 0, TRUE, &error);
  rtf_check_file (&rec->files[0], FALSE, 0, &c);
  g_assert_cmpuint (c.good_frames, ==, 5);
  g_assert_cmpint (rec->files[0].walk.stop, ==, RTF_INDEX_BEYOND_DATA);
  g_assert_nonnull (strstr (g_ptr_array_index (c.faults, 0), "cut short"));
  rtf_check_clear (&c);
  rtf_recording_free (rec);
  g_assert_true (truncate (path, 650) == 0);
  rec = rtf_recording_open (path, 0, TRUE, &error);
  rtf_check_file (&rec->files[0], FALSE, 0, &c);
  g_assert_cmpuint (c.good_frames, ==, 6);
  g_assert_nonnull (strstr (g_ptr_array_index (c.faults, 0), "50 bytes "
          "after the last indexed frame"));
  rtf_check_clear (&c);
  rtf_recording_free (rec);

  rtf_test_tmpdir_free (dir);
  g_free (ipath);
  g_free (path);
}

/* A record that contradicts the header (a size of 16, or 4 GiB, where
 * frames are 100 bytes) is played and cut by nobody: the walk stops */
static void
test_index_walk (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtf-walk");
  gchar *path = write_recording (dir, 4, 100, FALSE);
  gchar *ipath = rtf_index_path (path);
  guint32 sizes[] = { 16, 0xffffffffu }, k;

  for (k = 0; k < G_N_ELEMENTS (sizes); k++) {
    gchar *idx = NULL;
    gsize len;
    RtfIndexRecord r;
    RtfIndex *index;
    GError *error = NULL;
    RtfRecording *rec;
    guint64 at;

    g_assert_true (g_file_get_contents (ipath, &idx, &len, NULL));
    index = rtf_index_load (ipath, &error);
    at = index->header.header_size + 2 * RTF_INDEX_RECORD_SIZE;
    rtf_index_free (index);
    fill_record (&r, 2, 100);
    r.size = sizes[k];
    rtf_index_encode_record (&r, (guint8 *) idx + at);
    g_assert_true (g_file_set_contents (ipath, idx, len, NULL));
    g_free (idx);

    rec = rtf_recording_open (path, 0, TRUE, &error);
    g_assert_no_error (error);
    g_assert_cmpint (rec->files[0].walk.stop, ==, RTF_INDEX_INCONSISTENT);
    g_assert_cmpuint (rec->files[0].walk.frames, ==, 2);
    g_assert_nonnull (strstr (rec->files[0].walk.why, "the header says 100"));
    /* a player gets the frames before it, none of the odd size */
    g_assert_cmpuint (rec->n_frames, ==, 2);
    rtf_recording_free (rec);
    g_free (path);
    path = write_recording (dir, 4, 100, FALSE);
  }
  rtf_test_tmpdir_free (dir);
  g_free (ipath);
  g_free (path);
}

/* Files of a set named by the pattern, as the sink names them */
static void
make_set_file (const gchar * dir, const gchar * pattern, guint64 number,
    guint frames)
{
  gchar *one = write_recording (dir, frames, 16, FALSE);
  gchar *oneidx = rtf_index_path (one);
  gchar *name = rtf_pattern_format (pattern, number);
  gchar *nameidx = rtf_index_path (name);
  gchar *base = g_path_get_basename (name);
  RtfIndexHeader h;
  gchar *text = NULL, *why = NULL;
  gsize len;
  guint8 buf[RTF_INDEX_MAX_HEADER];
  GByteArray *out = g_byte_array_new ();

  /* the header names the file and its number */
  g_assert_true (g_file_get_contents (oneidx, &text, &len, NULL));
  g_assert_true (rtf_index_decode_header ((guint8 *) text, len, &h, &why));
  g_free (h.data_name);
  h.data_name = base;
  h.file_number = number;
  h.version = 0;
  g_byte_array_append (out, buf, rtf_index_encode_header (&h, buf));
  g_byte_array_append (out, (guint8 *) text + h.header_size,
      len - h.header_size);
  g_assert_true (g_file_set_contents (nameidx, (gchar *) out->data, out->len,
          NULL));
  g_assert_cmpint (g_rename (one, name), ==, 0);
  g_unlink (oneidx);
  h.data_name = NULL;
  rtf_index_header_clear (&h);
  g_byte_array_unref (out);
  g_free (text);
  g_free (base);
  g_free (one);
  g_free (oneidx);
  g_free (name);
  g_free (nameidx);
}

/* A pattern names the set: files found by number, from the lowest at or
 * after start-index, while the numbers follow each other. */
static void
test_recording_set (void)
{
  gchar *dir = rtf_test_tmpdir_new ("rtf-set");
  gchar *pattern = g_build_filename (dir, "c-%03d.raw", NULL);
  guint numbers[] = { 4, 5, 6, 8 }, i;
  GError *error = NULL;
  RtfRecording *rec;
  guint file;

  for (i = 0; i < G_N_ELEMENTS (numbers); i++)
    make_set_file (dir, pattern, numbers[i], 2 + i);
  /* 7: opened ahead for a split that never came (a crash leaves it) */
  {
    gchar *name = rtf_pattern_format (pattern, 7), *idx = rtf_index_path (name);

    g_assert_true (g_file_set_contents (name, "", 0, NULL));
    g_assert_true (g_file_set_contents (idx, "", 0, NULL));
    g_free (name);
    g_free (idx);
  }
  rec = rtf_recording_open (pattern, 0, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rec->n_files, ==, 4);       /* 4, 5, 6 and empty 7 */
  g_assert_cmpint (rec->files[3].state, ==, RTF_FILE_NEVER_WRITTEN);
  g_assert_cmpuint (rec->files[2].number, ==, 6);
  g_assert_cmpuint (rec->n_frames, ==, 2 + 3 + 4);
  g_assert_cmpuint (rtf_recording_frame (rec, 5, &file)->seq, ==, 0);
  g_assert_cmpuint (file, ==, 2);
  rtf_recording_free (rec);
  rec = rtf_recording_open (pattern, 7, TRUE, &error);
  g_assert_cmpuint (rec->n_files, ==, 2);
  g_assert_cmpuint (rec->files[1].number, ==, 8);
  g_assert_cmpuint (rec->n_frames, ==, 5);
  rtf_recording_free (rec);
  g_assert_null (rtf_recording_open (pattern, 9, TRUE, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);

  rtf_test_tmpdir_free (dir);
  g_free (pattern);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/crc32c/vectors", test_crc32c_vectors);
  g_test_add_func ("/pattern/check-and-format", test_pattern);
  g_test_add_func ("/index/round-trip", test_index_round_trip);
  g_test_add_func ("/index/clock-anchor", test_index_clock_anchor);
  g_test_add_func ("/index/sparse-hole", test_index_sparse_hole);
  g_test_add_func ("/index/version-1", test_index_version_1);
  g_test_add_func ("/index/version-2", test_index_version_2);
  g_test_add_func ("/index/record-versions", test_record_versions);
  g_test_add_func ("/index/check-file", test_check_file);
  g_test_add_func ("/index/walk", test_index_walk);
  g_test_add_func ("/index/recording-set", test_recording_set);
  return g_test_run ();
}
