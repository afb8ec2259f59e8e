/* rtframe-export: a still as a PNG or TIFF file's bytes - 8 or 16 bits a
 * sample, gray or RGB, lossless (GStreamer's pngenc takes no 16-bit RGB,
 * avenc_tiff no 16 bits of RGB either: these writers take both, the same
 * on every GStreamer) */
#ifndef __EXPORT_IMAGE_H__
#define __EXPORT_IMAGE_H__

#include <gst/video/video.h>

G_BEGIN_DECLS typedef enum
{
  EXPORT_IMAGE_PNG,             /* zlib-compressed, no filter */
  EXPORT_IMAGE_TIFF             /* baseline, big-endian, uncompressed */
} ExportImageType;

/* frame: GRAY8, GRAY16_BE, RGB or RGBA64_BE (its alpha left out) */
GBytes *export_image_encode (ExportImageType type,
    const GstVideoFrame * frame, gchar ** why);

G_END_DECLS
#endif /* __EXPORT_IMAGE_H__ */
