/* rtframe fuzz target: the recording checker of rtframe-bench (--check
 * FILE), which reads files from outside.  The input describes a recording
 * (frame size, stream, frame count) that is made valid and then damaged at
 * the positions the input gives; the checker must not crash, must accept
 * the undamaged recording with every frame, and must count a damaged frame
 * as bad. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gsize fsize, len, i;
  guint stream, n_frames;
  guint8 *rec;
  gchar *path;
  gint fd;
  guint64 bad = 0, checked;
  gchar *why = NULL;
  gboolean damaged = FALSE;

  if (size < 4)
    return 0;
  fsize = 16 + (((gsize) data[0] << 8 | data[1]) % 16384);
  stream = data[2] % 8;
  n_frames = data[3] % 6;
  len = fsize * n_frames;
  rec = g_malloc0 (len + 1);
  for (i = 0; i < n_frames; i++) {
    bench_frame_fill (rec + i * fsize, fsize, stream);
    bench_frame_stamp (rec + i * fsize, fsize, stream, i);
  }
  /* damage: (position hi, position lo, xor) triples; a last byte cuts */
  for (i = 4; i + 3 <= size && len > 0; i += 3) {
    gsize pos = ((gsize) data[i] << 8 | data[i + 1]) * 97 % len;

    if (data[i + 2] != 0) {
      rec[pos] ^= data[i + 2];
      damaged = TRUE;
    }
  }
  if (i < size && len > 0 && data[i] % 4 == 0) {
    len -= 1 + data[i] % MIN (len, (gsize) 64);
    damaged = TRUE;
  }

  fd = g_file_open_tmp ("rtframe-fuzz-XXXXXX", &path, NULL);
  g_assert (fd >= 0);
  g_assert (write (fd, rec, len) == (gssize) len);
  close (fd);
  checked = bench_frame_verify_file (path, fsize, stream, &bad, &why);
  if (!damaged) {
    g_assert_cmpuint (bad, ==, 0);
    g_assert_cmpuint (checked, ==, n_frames);
  }
  g_free (why);
  g_unlink (path);
  g_free (path);
  g_free (rec);
  return 0;
}
