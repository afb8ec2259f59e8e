/* rtframe fuzz target: caps from outside (gst-launch lines, applications,
 * upstream elements) -> the frame format rtframesink records.  Whatever the
 * text, parsing must not crash, caps it accepts give a frame size that is
 * positive, within the limit, and at least the pixels' worth, and caps it
 * refuses come with a reason. */
#include <gst/gst.h>
#include <stdint.h>
#include <string.h>

#include "gstrtframecaps.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static GstCaps *template_caps;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  gst_init (NULL, NULL);
  template_caps = gst_rtframe_caps_template ();
  return 0;
}

/* GStreamer 1.22's gst_caps_from_string() emits a critical (not an error)
 * for a structure name that does not start with a letter: that is its own
 * behaviour, not rtframe's, and such text never reaches a sink's caps.
 * Skip it so the target stays on what rtframe parses. */
static gboolean
names_start_with_letters (const gchar * text)
{
  const gchar *p = text;

  for (;;) {
    while (g_ascii_isspace (*p))
      p++;
    if (*p != '\0' && !g_ascii_isalpha (*p))
      return FALSE;
    p = strchr (p, ';');
    if (p == NULL)
      return TRUE;
    p++;
  }
}

static void
swallow (const gchar * domain, GLogLevelFlags level, const gchar * message,
    gpointer data)
{
}

/* gst_caps_from_string() also emits criticals for some invalid ranges
 * ("[5,2]"): those are GStreamer's, so they are not fatal inside it; every
 * critical in rtframe's code still is (G_DEBUG=fatal-criticals). */
static GstCaps *
parse_caps (const gchar * text)
{
  GLogLevelFlags fatal;
  guint handler;
  GstCaps *caps;

  if (!names_start_with_letters (text))
    return NULL;
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
  handler = g_log_set_handler ("GStreamer", G_LOG_LEVEL_CRITICAL |
      G_LOG_LEVEL_WARNING, swallow, NULL);
  caps = gst_caps_from_string (text);
  g_log_remove_handler ("GStreamer", handler);
  g_log_set_always_fatal (fatal);
  return caps;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar *text = g_strndup ((const gchar *) data, size);
  GstCaps *caps = parse_caps (text);
  GstRtFrameFormat format;
  gchar *why = NULL;

  if (caps) {
    memset (&format, 0, sizeof (format));
    if (gst_rtframe_format_from_caps_full (&format, caps, &why)) {
      g_assert (why == NULL);
      g_assert (format.frame_size > 0);
      g_assert (format.frame_size <= GST_RTFRAME_MAX_FRAME_SIZE);
      g_assert (format.name != NULL);
      g_assert (format.width > 0 && format.height > 0);
      /* no format of 1.22 or 1.26 has less than a byte a pixel (GRAY8,
       * 8-bit Bayer: one; YUV9: 9 bits) */
      g_assert ((guint64) format.frame_size >=
          (guint64) format.width * format.height);
    } else {
      g_assert (why != NULL && why[0] != '\0');
    }
    g_free (why);
    /* what negotiation does with them */
    if (gst_caps_is_fixed (caps))
      (void) gst_caps_can_intersect (caps, template_caps);
    gst_caps_unref (caps);
  }
  g_free (text);
  return 0;
}
