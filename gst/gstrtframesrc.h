/* rtframe: rtframesrc, playback of a recording through its index */
#ifndef __GST_RTFRAME_SRC_H__
#define __GST_RTFRAME_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

#include "rtf-recording.h"

G_BEGIN_DECLS

#define GST_TYPE_RTFRAME_SRC (gst_rtframe_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRtFrameSrc, gst_rtframe_src, GST, RTFRAME_SRC,
    GstBaseSrc);

struct _GstRtFrameSrc
{
  GstBaseSrc parent;

  /* properties, under the object lock */
  gchar *location;
  guint start_index;
  gchar *camera;                /* of a take's manifest: whose part plays */

  /* start .. stop: set and cleared under the object lock (queries read
   * them), used by the streaming thread without it */
  RtfRecording *rec;
  GstClockTime *times;          /* each frame's timestamp, in order */
  GstCaps **caps;               /* each file's caps (NULL: no frames) */
  guint first_file;             /* the first file with frames */
  gint fd;                      /* of file `file` */
  guint file;
  guint caps_file;              /* whose caps were set last, G_MAXUINT none */
  /* streaming thread: the reference caps of file `reference_file`'s
   * camera timestamps (NULL: it names none) */
  GstCaps *reference;
  guint reference_file;         /* G_MAXUINT: none parsed yet */
  GstCaps *unix_caps;           /* timestamp/x-unix: the wall clock of each
                                 * frame's arrival, as a reference
                                 * timestamp meta (its file's clock anchor) */
  guint64 next;                 /* frame create() reads next (object lock) */
};

GST_ELEMENT_REGISTER_DECLARE (rtframesrc);

G_END_DECLS

#endif /* __GST_RTFRAME_SRC_H__ */
