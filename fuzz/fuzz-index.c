/* rtframe fuzz target: what the readers and rtframe-recover take from
 * outside - an index file (a crashed, damaged or foreign recording), an
 * index paired with a data file, and a location pattern.  Whatever the
 * bytes, decoding must not crash or read out of bounds, a header it
 * accepts is self-consistent, a re-encoded record decodes to itself, and
 * recovery only ever cuts a tail: after it, the data file is its first
 * keep_bytes bytes unchanged, every whole frame of the walk still there.
 *
 * The first byte picks the mode: bit 0 a pattern, else bit 1 an index
 * and a data file (then two bytes, little-endian, give the index's
 * length; the rest is the data), else an index alone. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "rtf-check.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-recording.h"
#include "rtf-recover.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
fuzz_index (const uint8_t * data, size_t size)
{
  RtfIndexHeader h;
  gchar *why = NULL;
  gsize at;

  if (!rtf_index_decode_header (data, size, &h, &why)) {
    g_assert (why != NULL);
    g_free (why);
    return;
  }
  g_assert (h.header_size >= RTF_INDEX_FIXED_HEADER_V1
      && h.header_size <= size);
  g_assert (h.format != NULL && strlen (h.format) < h.header_size);
  g_assert (h.frame_size > 0);
  g_assert (h.record_size >= rtf_index_record_size (h.version));
  g_assert (h.version >= 3 || h.reference == NULL);
  g_assert (h.reference == NULL || strlen (h.reference) < h.header_size);
  for (at = h.header_size; at + h.record_size <= size; at += h.record_size) {
    RtfIndexRecord r, again;
    guint8 buf[RTF_INDEX_RECORD_SIZE];
    gsize rs = rtf_index_record_size (h.version);

    /* (padding compared too) */
    memset (&r, 0, sizeof (r));
    memset (&again, 0, sizeof (again));
    if (!rtf_index_decode_record (data + at, h.record_size, h.version, &r))
      continue;
    if (h.version < 3)
      g_assert (r.upstream_offset == RTF_INDEX_NONE
          && r.reference_ns == RTF_INDEX_NONE && r.gap_how == 0);
    if (h.record_size != rs)
      continue;                 /* a later version's: its tail not kept */
    g_assert (rtf_index_encode_record_as (&r, h.version, buf) == rs);
    g_assert (memcmp (buf, data + at, rs) == 0);
    g_assert (rtf_index_decode_record (buf, rs, h.version, &again));
    g_assert (memcmp (&r, &again, sizeof (r)) == 0);
  }
  rtf_index_header_clear (&h);
}

static void
fuzz_pattern (const uint8_t * data, size_t size)
{
  gchar *text = g_strndup ((const gchar *) data, MIN (size, 512));
  gchar *why = NULL, *name, *base;
  RtfPattern p;
  guint64 n;

  switch (rtf_pattern_check (text, &why)) {
    case RTF_PATTERN_INVALID:
      g_assert (why != NULL);
      break;
    case RTF_PATTERN_NONE:
      name = rtf_pattern_format (text, 7);
      /* no conversion: the name is the text, %% unescaped */
      g_assert (strlen (name) <= strlen (text));
      g_free (name);
      break;
    case RTF_PATTERN_OK:
      name = rtf_pattern_format (text, G_MAXUINT64);
      g_assert (strstr (name, "18446744073709551615") != NULL);
      g_free (name);
      /* every name the sink makes, the readers find, with its number */
      g_assert (rtf_pattern_parse (text, &p));
      name = rtf_pattern_format (text, 1234567);
      base = g_path_get_basename (name);
      if (strchr (p.prefix, '/') == NULL && strchr (p.suffix, '/') == NULL
          && g_str_has_suffix (name, base)) {
        g_assert (rtf_pattern_match (&p, base, &n));
        g_assert_cmpuint (n, ==, 1234567);
      }
      g_free (base);
      g_free (name);
      rtf_pattern_clear (&p);
      break;
  }
  g_free (why);
  g_free (text);
}

static gchar *dir;

/* the directory the pairs are written to goes with the process */
static void
remove_dir (void)
{
  gchar *cmd = g_strdup_printf ("rm -rf '%s'", dir);

  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", dir);
  g_free (cmd);
}

static void
write_file (const gchar * path, const uint8_t * data, gsize len)
{
  GError *error = NULL;

  if (!g_file_set_contents (path, (const gchar *) data, len, &error))
    g_error ("%s", error->message);
}

/* Reads the file back: its length and whether it starts with want */
static gboolean
starts_with (const gchar * path, const uint8_t * want, gsize len, gsize * size)
{
  gchar *got = NULL;
  gboolean same;

  g_assert (g_file_get_contents (path, &got, size, NULL));
  same = *size <= len && memcmp (got, want, *size) == 0;
  g_free (got);
  return same;
}

static void
fuzz_pair (const uint8_t * data, size_t size)
{
  gchar *path, *ipath;
  gsize ilen, dlen, after;
  RtfRecording *rec;
  GError *error = NULL;

  if (size < 2)
    return;
  ilen = MIN ((gsize) (data[0] | data[1] << 8), size - 2);
  dlen = size - 2 - ilen;
  if (dir == NULL) {
    dir = g_dir_make_tmp ("rtf-fuzz-XXXXXX", NULL);
    g_assert (dir != NULL);
    atexit (remove_dir);
  }
  path = g_build_filename (dir, "cam.raw", NULL);
  ipath = rtf_index_path (path);
  write_file (ipath, data + 2, ilen);
  write_file (path, data + 2 + ilen, dlen);
  rec = rtf_recording_open (path, 0, FALSE, &error);
  g_assert_no_error (error);
  {
    RtfRecordingFile *f = &rec->files[0];
    RtfRecoverPlan plan;
    RtfCheck c;
    gchar *why = NULL;

    rtf_check_file (f, TRUE, 0, &c);
    rtf_recover_plan (rec, f, &plan);
    rtf_recover_plan_sums (rec, f, &c, &plan);
    if (f->state == RTF_FILE_OK) {
      g_assert (f->walk.frames <= f->index->n_records);
      g_assert (f->walk.end <= f->data_size);
      g_assert (c.good_end == f->walk.end);
    }
    if (plan.action == RTF_RECOVER_CUT && !plan.needs_force) {
      /* a whole frame goes only with its checksum mismatching, as does
       * every one after it */
      g_assert (plan.keep_frames + plan.torn_frames == f->walk.frames);
      g_assert (plan.torn_frames == 0 || (c.first_bad == plan.keep_frames
              && c.good_after_bad == 0));
      g_assert (plan.torn_frames || plan.keep_bytes == f->walk.end);
      g_assert (plan.torn_frames || plan.cut_bytes <= plan.limit);
      g_assert (rtf_recover_apply (f, &plan, &why) == 0);
      /* only the tail went */
      g_assert (starts_with (path, data + 2 + ilen, dlen, &after));
      g_assert_cmpuint (after, ==, plan.keep_bytes);
      g_assert (starts_with (ipath, data + 2, ilen, &after));
      g_assert_cmpuint (after, ==, plan.keep_index_bytes);
    } else if (plan.action != RTF_RECOVER_DELETE) {
      /* nothing else is ever changed */
      g_assert (starts_with (path, data + 2 + ilen, dlen, &after));
      g_assert_cmpuint (after, ==, dlen);
    }
    g_free (why);
    rtf_recover_plan_clear (&plan);
    rtf_check_clear (&c);
  }
  rtf_recording_free (rec);
  g_unlink (path);
  g_unlink (ipath);
  g_free (ipath);
  g_free (path);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size == 0)
    return 0;
  if (data[0] & 1)
    fuzz_pattern (data + 1, size - 1);
  else if (data[0] & 2)
    fuzz_pair (data + 1, size - 1);
  else
    fuzz_index (data + 1, size - 1);
  return 0;
}
