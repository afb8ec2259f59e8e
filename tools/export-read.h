/* rtframe-export: the frames of a recording as rtframesrc plays them
 * (rtframesrc ! appsink), from a frame number on: each sample's buffer
 * has the recording's frame number as its offset. */
#ifndef __EXPORT_READ_H__
#define __EXPORT_READ_H__

#include <gst/gst.h>

G_BEGIN_DECLS typedef struct ExportRead ExportRead;

/* Plays location (a take's manifest: camera's part) from the frame shown at frame number `from` on (a seek
 * in GST_FORMAT_DEFAULT; none when from is the recording's first): NULL
 * with *why when it cannot start */
ExportRead *export_read_start (const gchar * location, const gchar * camera,
    guint64 from, gboolean seek, gchar ** why);
/* The next frame; NULL at the end (*why NULL) or at an error (*why).
 * rtframesrc's warnings (a part of the recording missing, ...) are said
 * on stderr as they come. */
GstSample *export_read_next (ExportRead * read, gchar ** why);
void export_read_free (ExportRead * read);

G_END_DECLS
#endif /* __EXPORT_READ_H__ */
