/* rtframe-export: PNG and TIFF files of a still (export-image.h) */
#include "export-image.h"

#include <gio/gio.h>
#include <string.h>

/* The samples of a frame, row after row without padding: channels of
 * bytes bytes each (RGBA64's alpha dropped) */
typedef struct
{
  guint width, height, channels, bytes;
  guint8 *data;
  gsize row;                    /* bytes a row */
} Pixels;

static void
pixels_of (const GstVideoFrame * frame, Pixels * px)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (frame);
  guint in_px = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0), y, x;

  px->width = GST_VIDEO_FRAME_WIDTH (frame);
  px->height = GST_VIDEO_FRAME_HEIGHT (frame);
  px->channels = GST_VIDEO_INFO_IS_GRAY (&frame->info) ? 1 : 3;
  px->bytes = format == GST_VIDEO_FORMAT_GRAY8
      || format == GST_VIDEO_FORMAT_RGB ? 1 : 2;
  px->row = (gsize) px->width * px->channels * px->bytes;
  px->data = g_malloc (px->row * px->height);
  for (y = 0; y < px->height; y++) {
    const guint8 *in = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, 0)
        + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
    guint8 *out = px->data + y * px->row;
    gsize take = px->channels * px->bytes;

    for (x = 0; x < px->width; x++)
      memcpy (out + x * take, in + (gsize) x * in_px, take);
  }
}

/* ---- PNG ------------------------------------------------------------ */

static guint32
crc32_update (guint32 crc, const guint8 * p, gsize len)
{
  static guint32 table[256];
  gsize i;

  if (table[1] == 0) {
    guint32 n, k, c;

    for (n = 0; n < 256; n++) {
      for (c = n, k = 0; k < 8; k++)
        c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[n] = c;
    }
  }
  for (i = 0; i < len; i++)
    crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

static void
put_be32 (GByteArray * out, guint32 v)
{
  guint8 b[4] = { v >> 24, v >> 16, v >> 8, v };

  g_byte_array_append (out, b, 4);
}

static void
png_chunk (GByteArray * out, const gchar * type, const guint8 * data, gsize len)
{
  guint32 crc;

  put_be32 (out, len);
  g_byte_array_append (out, (const guint8 *) type, 4);
  g_byte_array_append (out, data, len);
  crc = crc32_update (0xffffffffu, (const guint8 *) type, 4);
  crc = crc32_update (crc, data, len);
  put_be32 (out, crc ^ 0xffffffffu);
}

/* in, compressed as a zlib stream: NULL with *why */
static GByteArray *
deflate_all (const guint8 * in, gsize len, gchar ** why)
{
  GConverter *z = G_CONVERTER (g_zlib_compressor_new
      (G_ZLIB_COMPRESSOR_FORMAT_ZLIB, 6));
  GByteArray *out = g_byte_array_sized_new (len / 2 + 1024);
  GConverterResult res = G_CONVERTER_CONVERTED;
  gsize done = 0, size = 0;
  GError *error = NULL;

  while (res != G_CONVERTER_FINISHED) {
    gsize read = 0, written = 0;

    g_byte_array_set_size (out, MAX (size + 65536, out->len * 2));
    res = g_converter_convert (z, in + done, len - done, out->data + size,
        out->len - size, G_CONVERTER_INPUT_AT_END, &read, &written, &error);
    if (res == G_CONVERTER_ERROR) {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
        break;
      g_clear_error (&error);
    }
    done += read;
    size += written;
  }
  g_object_unref (z);
  if (res == G_CONVERTER_ERROR) {
    *why = g_strdup_printf ("compressing: %s", error->message);
    g_error_free (error);
    g_byte_array_unref (out);
    return NULL;
  }
  g_byte_array_set_size (out, size);
  return out;
}

static GByteArray *
png_encode (const Pixels * px, gchar ** why)
{
  static const guint8 signature[8] = { 137, 'P', 'N', 'G', '\r', '\n', 26,
    '\n'
  };
  GByteArray *out, *rows = g_byte_array_sized_new ((px->row + 1) *
      px->height), *z;
  guint8 ihdr[13] = { 0 };
  const guint8 none = 0;
  gsize at;
  guint y;

  for (y = 0; y < px->height; y++) {
    g_byte_array_append (rows, &none, 1);       /* filter: none */
    g_byte_array_append (rows, px->data + y * px->row, px->row);
  }
  z = deflate_all (rows->data, rows->len, why);
  g_byte_array_unref (rows);
  if (z == NULL)
    return NULL;
  out = g_byte_array_new ();
  g_byte_array_append (out, signature, 8);
  GST_WRITE_UINT32_BE (ihdr, px->width);
  GST_WRITE_UINT32_BE (ihdr + 4, px->height);
  ihdr[8] = px->bytes * 8;
  ihdr[9] = px->channels == 1 ? 0 : 2;  /* gray, or RGB */
  png_chunk (out, "IHDR", ihdr, sizeof (ihdr));
  for (at = 0; at < z->len; at += 1 << 20)
    png_chunk (out, "IDAT", z->data + at, MIN ((gsize) 1 << 20, z->len - at));
  png_chunk (out, "IEND", NULL, 0);
  g_byte_array_unref (z);
  return out;
}

/* ---- TIFF ----------------------------------------------------------- */

static void
put_be16 (GByteArray * out, guint16 v)
{
  guint8 b[2] = { v >> 8, v };

  g_byte_array_append (out, b, 2);
}

/* An IFD entry of one SHORT (3) or LONG (4) value, or of a value at
 * offset `value` */
static void
tiff_entry (GByteArray * out, guint16 tag, guint16 type, guint32 count,
    guint32 value)
{
  put_be16 (out, tag);
  put_be16 (out, type);
  put_be32 (out, count);
  if (type == 3 && count == 1) {
    put_be16 (out, value);
    put_be16 (out, 0);
  } else
    put_be32 (out, value);
}

/* SHORT (3) where the value fits, as libtiff writes it (file(1) reads
 * sizes only so), else LONG (4) */
static guint16
short_or_long (guint32 v)
{
  return v <= G_MAXUINT16 ? 3 : 4;
}

/* ImageWidth, ImageLength, BitsPerSample, Compression, Photometric,
 * StripOffsets, SamplesPerPixel, RowsPerStrip, StripByteCounts,
 * PlanarConfiguration.  "MM", the pixels at 8 in one strip, then BitsPerSample's values and
 * the IFD */
static GByteArray *
tiff_encode (const Pixels * px, gchar ** why)
{
  GByteArray *out = g_byte_array_new ();
  gsize size = px->row * px->height;
  guint32 bits_at, ifd_at;
  guint i;

  if (size > G_MAXUINT32 - 256) {
    *why = g_strdup ("a frame too large for a TIFF file (4 GiB)");
    g_byte_array_unref (out);
    return NULL;
  }
  g_byte_array_append (out, (const guint8 *) "MM\0*", 4);
  put_be32 (out, 0);            /* the IFD's offset, below */
  g_byte_array_append (out, px->data, size);
  if (out->len & 1)
    g_byte_array_append (out, (const guint8 *) "", 1);
  bits_at = out->len;
  for (i = 0; i < 3; i++)
    put_be16 (out, px->bytes * 8);
  put_be16 (out, 0);
  ifd_at = out->len;
  GST_WRITE_UINT32_BE (out->data + 4, ifd_at);
  put_be16 (out, 10);
  tiff_entry (out, 256, short_or_long (px->width), 1, px->width);
  tiff_entry (out, 257, short_or_long (px->height), 1, px->height);
  tiff_entry (out, 258, 3, px->channels, px->channels == 1 ? px->bytes * 8 : bits_at);  /* BitsPerSample */
  tiff_entry (out, 259, 3, 1, 1);       /* Compression: none */
  tiff_entry (out, 262, 3, 1, px->channels == 1 ? 1 : 2);       /* gray, RGB */
  tiff_entry (out, 273, 4, 1, 8);       /* StripOffsets */
  tiff_entry (out, 277, 3, 1, px->channels);    /* SamplesPerPixel */
  tiff_entry (out, 278, short_or_long (px->height), 1, px->height);
  tiff_entry (out, 279, 4, 1, size);    /* StripByteCounts */
  tiff_entry (out, 284, 3, 1, 1);       /* PlanarConfiguration: chunky */
  put_be32 (out, 0);            /* no next IFD */
  return out;
}

GBytes *
export_image_encode (ExportImageType type, const GstVideoFrame * frame,
    gchar ** why)
{
  GByteArray *out;
  Pixels px;

  pixels_of (frame, &px);
  out = type == EXPORT_IMAGE_PNG ? png_encode (&px, why) :
      tiff_encode (&px, why);
  g_free (px.data);
  return out ? g_byte_array_free_to_bytes (out) : NULL;
}
