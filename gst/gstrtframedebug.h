/* rtframe: the debug categories of the plugin's parts, and the engine's
 * log lines routed into them (issue 26: one category for everything, and
 * the engine's lines, none per frame, in the element's).
 *
 *   rtframesink, rtframesrc   the elements (their own files)
 *   rtframe-writer            the writer thread: frames (LOG: one line a
 *                             frame taken and written), I/O, stops
 *   rtframe-files             a set's files: opened, split, finished
 *   rtframe-space             the free-space guard
 *   rtframe-spread            several locations: placement, a location
 *                             leaving
 *   rtframe-recorder          event recording: starts, stops, pre-record
 *
 * GST_DEBUG=rtframe-*:5 shows every part's lines but the per-frame ones. */
#ifndef __GST_RTFRAME_DEBUG_H__
#define __GST_RTFRAME_DEBUG_H__

#include <gst/gst.h>

#include "rtf-writer.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_rtframe_writer_debug);
GST_DEBUG_CATEGORY_EXTERN (gst_rtframe_files_debug);
GST_DEBUG_CATEGORY_EXTERN (gst_rtframe_space_debug);
GST_DEBUG_CATEGORY_EXTERN (gst_rtframe_spread_debug);
GST_DEBUG_CATEGORY_EXTERN (gst_rtframe_recorder_debug);

/* Registers the parts' categories (once; from the sink's class_init) */
void gst_rtframe_debug_init (void);
/* The writer's log callbacks: a line of an engine part into its category,
 * for the object user_data; and whether that category takes the level */
void gst_rtframe_debug_log (RtfLogPart part, RtfLogLevel level,
    const gchar * message, gpointer object);
gboolean gst_rtframe_debug_wanted (RtfLogPart part, RtfLogLevel level,
    gpointer object);

G_END_DECLS
#endif
