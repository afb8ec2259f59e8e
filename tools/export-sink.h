/* rtframe-export: where the frames go - one kind of output each
 * (export-raw.c, export-mkv.c, export-stills.c), fed the frames in
 * order, their files made through export-files.h */
#ifndef __EXPORT_SINK_H__
#define __EXPORT_SINK_H__

#include "export-files.h"

#include <gst/gst.h>

G_BEGIN_DECLS
/* What a failure was: I/O or the pipeline (exit 1), or something the
 * user asked that cannot be done (exit 2) */
    typedef enum
{
  EXPORT_FAILED = 1,
  EXPORT_REFUSED = 2
} ExportFailure;

typedef struct ExportSink ExportSink;

struct ExportSink
{
  /* frame `number` of the recording (its sample as rtframesrc played
   * it): FALSE with *why and *failure */
  gboolean (*frame) (ExportSink * sink, GstSample * sample, guint64 number,
      ExportFailure * failure, gchar ** why);
  /* every frame given: the files whole and named */
  gboolean (*finish) (ExportSink * sink, ExportFailure * failure, gchar ** why);
  void (*free) (ExportSink * sink);
};

/* The frames' bytes as recorded, one after the other, into out; a line
 * a frame on stdout (frame,pts,duration,byte_offset,size,caps) */
ExportSink *export_raw_new (ExportFiles * files, const gchar * out,
    gchar ** why);
/* Matroska with FFV1 (export_mkv_check() first: the elements are there) */
ExportSink *export_mkv_new (ExportFiles * files, const gchar * out,
    gchar ** why);
/* What an mkv export needs that is not installed: NULL, or the message
 * naming the element and its package */
gchar *export_mkv_missing (void);
/* A PNG (tiff FALSE) or TIFF file a frame, named by pattern (one integer
 * conversion) with the frame's number */
ExportSink *export_stills_new (ExportFiles * files, const gchar * pattern,
    gboolean tiff, gchar ** why);

G_END_DECLS
#endif /* __EXPORT_SINK_H__ */
