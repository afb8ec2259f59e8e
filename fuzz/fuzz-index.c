/* rtframe fuzz target: an index file from outside (a crashed, damaged or
 * foreign recording) -> what rtframesrc, rtframe-verify and rtframe-recover
 * read; and a location pattern -> the file names of a set.  Whatever the
 * bytes, decoding must not crash or read out of bounds, a header it
 * accepts is self-consistent, and a re-encoded record decodes to itself. */
#include <stdint.h>
#include <string.h>

#include "rtf-index.h"
#include "rtf-pattern.h"

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
  g_assert (h.header_size >= RTF_INDEX_FIXED_HEADER && h.header_size <= size);
  g_assert (h.format != NULL && strlen (h.format) < h.header_size);
  for (at = h.header_size; at + RTF_INDEX_RECORD_SIZE <= size;
      at += RTF_INDEX_RECORD_SIZE) {
    RtfIndexRecord r, again;
    guint8 buf[RTF_INDEX_RECORD_SIZE];

    /* (padding compared too) */
    memset (&r, 0, sizeof (r));
    memset (&again, 0, sizeof (again));
    if (!rtf_index_decode_record (data + at, &r))
      break;
    rtf_index_encode_record (&r, buf);
    g_assert (memcmp (buf, data + at, RTF_INDEX_RECORD_SIZE) == 0);
    g_assert (rtf_index_decode_record (buf, &again));
    g_assert (memcmp (&r, &again, sizeof (r)) == 0);
  }
  rtf_index_header_clear (&h);
}

static void
fuzz_pattern (const uint8_t * data, size_t size)
{
  gchar *text = g_strndup ((const gchar *) data, MIN (size, 512));
  gchar *why = NULL, *name;

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
      break;
  }
  g_free (why);
  g_free (text);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  /* the first byte picks the parser */
  if (size == 0)
    return 0;
  if (data[0] & 1)
    fuzz_pattern (data + 1, size - 1);
  else
    fuzz_index (data + 1, size - 1);
  return 0;
}
