/* rtframe-export: what each output takes of a recording's frames - the
 * caps a Bayer mosaic is exported as (gray), the format FFV1 is given
 * (lossless: no fewer bits, no coarser chroma), the format of a still
 * (8 or 16 bits, gray or RGB). */
#ifndef __EXPORT_FORMATS_H__
#define __EXPORT_FORMATS_H__

#include <gst/video/video.h>

G_BEGIN_DECLS
/* A frame's caps as exported: a Bayer mosaic (video/x-bayer) as gray of
 * the same bytes (8-bit: GRAY8 of its width; 10 to 16 bits: GRAY16 of
 * the endianness recorded, GST_ROUND_UP_4 (width) wide, the row as the
 * sink laid it out), anything else as it is.  NULL with *why for caps
 * GStreamer cannot lay out. */
    GstCaps * export_caps_as_video (const GstCaps * caps, gchar ** why);

/* The format of the encoder's sink caps that holds `in` without loss:
 * the same kind (gray, YUV, RGB), alpha if it has alpha, at least its
 * bits, chroma no coarser; the closest of those (the same chroma, then
 * the fewest bits).  UNKNOWN with *why when none does. */
GstVideoFormat export_lossless_format (const GstVideoFormatInfo * in,
    const GstCaps * encoder_caps, gchar ** why);

/* A still of `in`: GRAY8 or RGB for 8-bit formats, GRAY16_BE or
 * RGBA64_BE (written as 16-bit RGB) for deeper ones */
GstVideoFormat export_still_format (const GstVideoFormatInfo * in);

G_END_DECLS
#endif /* __EXPORT_FORMATS_H__ */
