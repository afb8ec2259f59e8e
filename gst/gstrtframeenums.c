/* rtframe: the enum types of rtframesink's properties */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframeenums.h"
#include "rtf-engine.h"
#include "rtf-file.h"
#include "rtf-thread.h"

G_STATIC_ASSERT ((gint) GST_RTFRAME_IO_ENGINE_IO_URING ==
    (gint) RTF_ENGINE_IO_URING);
G_STATIC_ASSERT ((gint) GST_RTFRAME_IO_ENGINE_PSYNC == (gint) RTF_ENGINE_PSYNC);
G_STATIC_ASSERT ((gint) GST_RTFRAME_DIRECT_ON == (gint) RTF_DIRECT_ON);
G_STATIC_ASSERT ((gint) GST_RTFRAME_DIRECT_OFF == (gint) RTF_DIRECT_OFF);
G_STATIC_ASSERT ((gint) GST_RTFRAME_THREAD_POLICY_FIFO ==
    (gint) RTF_SCHED_FIFO);
G_STATIC_ASSERT ((gint) GST_RTFRAME_THREAD_POLICY_RR == (gint) RTF_SCHED_RR);

GType
gst_rtframe_io_engine_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_RTFRAME_IO_ENGINE_AUTO,
        "io_uring, or pwrite where io_uring is refused", "auto"},
    {GST_RTFRAME_IO_ENGINE_IO_URING, "io_uring only (error if refused)",
        "io-uring"},
    {GST_RTFRAME_IO_ENGINE_PSYNC,
        "pwrite, one write at a time, on a helper thread", "psync"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtFrameIoEngine", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_rtframe_direct_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_RTFRAME_DIRECT_AUTO,
        "O_DIRECT, or the page cache where the filesystem refuses it", "auto"},
    {GST_RTFRAME_DIRECT_ON, "O_DIRECT only (error if refused)", "on"},
    {GST_RTFRAME_DIRECT_OFF, "Through the page cache", "off"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtFrameDirect", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_rtframe_leaky_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_RTFRAME_LEAKY_NO, "Not Leaky: the streaming thread waits", "no"},
    {GST_RTFRAME_LEAKY_UPSTREAM, "Leaky on upstream: drop the new frame",
        "upstream"},
    {GST_RTFRAME_LEAKY_DOWNSTREAM,
          "Leaky on downstream: drop the oldest frame not yet being written",
        "downstream"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtFrameLeaky", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_rtframe_placement_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_RTFRAME_PLACEMENT_SOONEST,
        "Each frame to the location expected to finish it first", "soonest"},
    {GST_RTFRAME_PLACEMENT_ROUND_ROBIN,
        "Each location in turn (to compare)", "round-robin"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtFramePlacement", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_rtframe_thread_policy_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_RTFRAME_THREAD_POLICY_DEFAULT,
          "Leave the thread's scheduling as it is",
        "default"},
    {GST_RTFRAME_THREAD_POLICY_FIFO, "SCHED_FIFO (real time)", "fifo"},
    {GST_RTFRAME_THREAD_POLICY_RR, "SCHED_RR (real time, round robin)", "rr"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtFrameThreadPolicy", values);
    g_once_init_leave (&type, t);
  }
  return type;
}
