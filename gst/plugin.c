/* rtframe: the plugin */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframesink.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (rtframesink, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, rtframe,
    "Records raw video to disk with deadline-aware direct I/O",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
