/* rtframe: the plugin */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframeindexdemux.h"
#include "gstrtframesink.h"
#include "gstrtframesrc.h"
#include "gstrtframetypefind.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (rtframesink, plugin);
  ret |= GST_ELEMENT_REGISTER (rtframesrc, plugin);
  ret |= GST_ELEMENT_REGISTER (rtframeindexdemux, plugin);
  ret |= gst_rtframe_typefind_register (plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, rtframe,
    "Records raw video to disk with deadline-aware direct I/O, and plays "
    "the recordings back",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
