/* rtframe-bench: what is in a frame, and checking a recorded file.
 *
 * Every 4096-byte block of a frame starts with a 16-byte stamp: "RTFB", the
 * stream number (u32 LE) and the frame number (u64 LE); the other bytes hold
 * a non-zero pattern of their position and stream.  The pattern is written
 * once per buffer (buffers come back from the pool with it), the stamps for
 * every frame, so each frame differs from the last at small cost and a
 * block written at the wrong place, twice or not at all is found. */
#include "bench.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 4096
#define STAMP 16

static inline guint8
pattern_byte (gsize i, guint stream)
{
  return (guint8) (((i * 7) + (i >> 12) * 131 + stream * 29) | 1);
}

void
bench_frame_fill (guint8 * data, gsize size, guint stream)
{
  gsize i;

  for (i = 0; i < size; i++)
    data[i] = pattern_byte (i, stream);
}

void
bench_frame_stamp (guint8 * data, gsize size, guint stream, guint64 frame)
{
  guint32 s = GUINT32_TO_LE (stream);
  guint64 f = GUINT64_TO_LE (frame);
  gsize b;

  for (b = 0; b + STAMP <= size; b += BLOCK) {
    memcpy (data + b, "RTFB", 4);
    memcpy (data + b + 4, &s, 4);
    memcpy (data + b + 8, &f, 8);
  }
}

/* One frame against the template (pattern with stamps of frame 0). */
static gboolean
check_frame (const guint8 * data, const guint8 * tmpl, gsize size,
    guint64 * frame, gchar ** why)
{
  guint64 f0 = 0, f;
  gsize b;

  for (b = 0; b < size; b += BLOCK) {
    gsize end = MIN (b + BLOCK, size);

    if (b + STAMP <= size) {
      if (memcmp (data + b, tmpl + b, 8) != 0) {
        *why = g_strdup_printf ("block at +%" G_GSIZE_FORMAT " has no stamp "
            "of this stream", b);
        return FALSE;
      }
      memcpy (&f, data + b + 8, 8);
      f = GUINT64_FROM_LE (f);
      if (b == 0)
        f0 = f;
      else if (f != f0) {
        *why = g_strdup_printf ("block at +%" G_GSIZE_FORMAT " belongs to "
            "frame %" G_GUINT64_FORMAT ", the frame starts as %"
            G_GUINT64_FORMAT, b, f, f0);
        return FALSE;
      }
      if (memcmp (data + b + STAMP, tmpl + b + STAMP, end - b - STAMP) != 0) {
        *why = g_strdup_printf ("content differs in the block at +%"
            G_GSIZE_FORMAT, b);
        return FALSE;
      }
    } else if (memcmp (data + b, tmpl + b, end - b) != 0) {
      *why = g_strdup_printf ("content differs in the last bytes");
      return FALSE;
    }
  }
  *frame = f0;
  return TRUE;
}

guint64
bench_frame_verify_file (const gchar * path, gsize size, guint stream,
    guint64 * bad, gchar ** first_error)
{
  return bench_frame_verify_numbers (path, size, stream, NULL, bad,
      first_error);
}

guint64
bench_frame_verify_numbers (const gchar * path, gsize size, guint stream,
    GArray * numbers, guint64 * bad, gchar ** first_error)
{
  guint8 *tmpl = g_malloc (size), *buf = g_malloc (size);
  guint64 checked = 0, last = 0, frame;
  gboolean have_last = FALSE;
  goffset pos = 0;
  struct stat st;
  gchar *why = NULL, *what = NULL;
  /* a regular file only: never a FIFO to hang on, or a link */
  gint fd = rtf_safe_open (path, FALSE, &st, &what);

  *bad = 0;
  bench_frame_fill (tmpl, size, stream);
  bench_frame_stamp (tmpl, size, stream, 0);
  if (fd < 0) {
    why = g_strdup_printf ("cannot read it (%s)", what);
    g_free (what);
    (*bad)++;
    goto done;
  }
  posix_fadvise (fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  for (;;) {
    gsize got = 0;
    ssize_t n = 0;

    while (got < size && (n = read (fd, buf + got, size - got)) > 0)
      got += n;
    if (n < 0) {
      if (why == NULL)          /* the first fault is the one reported */
        why = g_strdup_printf ("read error at %" G_GINT64_FORMAT ": %s",
            (gint64) pos, g_strerror (errno));
      (*bad)++;
      break;
    }
    if (got == 0)
      break;
    if (got < size) {
      if (why == NULL)
        why = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes of a partial frame "
            "at the end", got);
      (*bad)++;
      break;
    }
    checked++;
    {
      gchar *w = NULL;

      if (!check_frame (buf, tmpl, size, &frame, &w)) {
        (*bad)++;
        if (why == NULL)
          why = g_strdup_printf ("frame at offset %" G_GINT64_FORMAT ": %s",
              (gint64) pos, w);
        g_free (w);
      } else if (have_last && frame <= last) {
        (*bad)++;
        if (why == NULL)
          why = g_strdup_printf ("frame %" G_GUINT64_FORMAT " at offset %"
              G_GINT64_FORMAT " comes after frame %" G_GUINT64_FORMAT, frame,
              (gint64) pos, last);
      } else {
        last = frame;
        have_last = TRUE;
        if (numbers)
          g_array_append_val (numbers, frame);
      }
    }
    pos += size;
    /* keep the page cache small on long recordings */
    if (pos % (256 * 1024 * 1024) < (goffset) size)
      posix_fadvise (fd, 0, pos, POSIX_FADV_DONTNEED);
  }
  posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  close (fd);
done:
  if (first_error)
    *first_error = why;
  else
    g_free (why);
  g_free (tmpl);
  g_free (buf);
  return checked;
}
