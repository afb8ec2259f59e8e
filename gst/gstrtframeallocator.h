/* rtframe: the memory of the pools rtframesink proposes */
#ifndef __GST_RTFRAME_ALLOCATOR_H__
#define __GST_RTFRAME_ALLOCATOR_H__

#include <gst/gst.h>

#include "rtf-regions.h"

G_BEGIN_DECLS

#define GST_TYPE_RTFRAME_ALLOCATOR (gst_rtframe_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstRtFrameAllocator, gst_rtframe_allocator, GST,
    RTFRAME_ALLOCATOR, GstAllocator);

GstAllocator *gst_rtframe_allocator_new (void);
/* The table of its memory, for the writer to register (owned by it) */
RtfRegions *gst_rtframe_allocator_get_regions (GstAllocator * allocator);

G_END_DECLS

#endif /* __GST_RTFRAME_ALLOCATOR_H__ */
