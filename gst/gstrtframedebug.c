/* rtframe: debug categories of the plugin's parts (gstrtframedebug.h) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframedebug.h"

GST_DEBUG_CATEGORY (gst_rtframe_writer_debug);
GST_DEBUG_CATEGORY (gst_rtframe_files_debug);
GST_DEBUG_CATEGORY (gst_rtframe_space_debug);
GST_DEBUG_CATEGORY (gst_rtframe_spread_debug);
GST_DEBUG_CATEGORY (gst_rtframe_recorder_debug);

void
gst_rtframe_debug_init (void)
{
  static gsize done = 0;

  if (!g_once_init_enter (&done))
    return;
  GST_DEBUG_CATEGORY_INIT (gst_rtframe_writer_debug, "rtframe-writer", 0,
      "rtframesink's writer thread: frames (LOG), I/O, stops");
  GST_DEBUG_CATEGORY_INIT (gst_rtframe_files_debug, "rtframe-files", 0,
      "rtframesink's files: opened, split, finished");
  GST_DEBUG_CATEGORY_INIT (gst_rtframe_space_debug, "rtframe-space", 0,
      "rtframesink's free-space guard");
  GST_DEBUG_CATEGORY_INIT (gst_rtframe_spread_debug, "rtframe-spread", 0,
      "rtframesink over several locations: placement, failover");
  GST_DEBUG_CATEGORY_INIT (gst_rtframe_recorder_debug, "rtframe-recorder", 0,
      "rtframesink's event recording: starts, stops, pre-record");
  g_once_init_leave (&done, 1);
}

static GstDebugCategory *
category_of (RtfLogPart part)
{
  switch (part) {
    case RTF_LOG_FILES:
      return gst_rtframe_files_debug;
    case RTF_LOG_SPACE:
      return gst_rtframe_space_debug;
    default:
      return gst_rtframe_writer_debug;
  }
}

static GstDebugLevel
level_of (RtfLogLevel level)
{
  static const GstDebugLevel levels[] = {
    GST_LEVEL_ERROR, GST_LEVEL_WARNING, GST_LEVEL_INFO, GST_LEVEL_DEBUG,
    GST_LEVEL_LOG
  };

  return level <= RTF_LOG_FRAME ? levels[level] : GST_LEVEL_LOG;
}

void
gst_rtframe_debug_log (RtfLogPart part, RtfLogLevel level,
    const gchar * message, gpointer object)
{
  GST_CAT_LEVEL_LOG (category_of (part), level_of (level), object, "%s",
      message);
}

gboolean
gst_rtframe_debug_wanted (RtfLogPart part, RtfLogLevel level, gpointer object)
{
#ifndef GST_DISABLE_GST_DEBUG
  return gst_debug_category_get_threshold (category_of (part)) >=
      level_of (level);
#else
  return FALSE;
#endif
}
