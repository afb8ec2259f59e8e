/* rtframe: typefinders for an index and a spread's manifest
 * (gstrtframetypefind.h).
 *
 * An index begins with the magic "RTFINDEX", its version and its header's
 * size, and its header carries a CRC32C of itself (docs/recording.md):
 * MAXIMUM only when the whole header decodes as this build reads it
 * (version 1 to 3, checksum right); LIKELY for the magic with a version
 * this build does not read, or a header cut short of what was peeked;
 * POSSIBLE for the magic with a damaged header - rtframeindexdemux then
 * says what is wrong, rather than "Could not determine type of stream".
 * A manifest begins with the line "[rtframe-spread]": MAXIMUM when the
 * whole of it parses as one, LIKELY when only its first line was seen.
 * Nothing else is claimed: a recording's raw data file has no header. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframetypefind.h"

#include <string.h>

#include "rtf-index.h"
#include "rtf-spread-manifest-text.h"

#define SPREAD_HEAD "[rtframe-spread]"

static GstStaticCaps index_caps = GST_STATIC_CAPS (GST_RTFRAME_INDEX_CAPS);
static GstStaticCaps spread_caps = GST_STATIC_CAPS (GST_RTFRAME_SPREAD_CAPS);

/* How surely the bytes at the start are an index's header */
static GstTypeFindProbability
index_probability (GstTypeFind * tf)
{
  const guint8 *data = gst_type_find_peek (tf, 0, RTF_INDEX_FIXED_HEADER_V1);
  RtfIndexHeader h;
  guint32 version, size;
  gchar *why = NULL;
  gboolean ok;

  if (data == NULL || memcmp (data, RTF_INDEX_MAGIC, 8) != 0)
    return 0;
  version = GST_READ_UINT32_LE (data + 8);
  size = GST_READ_UINT32_LE (data + 12);
  if (version < RTF_INDEX_VERSION_1 || version > RTF_INDEX_VERSION)
    return GST_TYPE_FIND_LIKELY;
  if (size < RTF_INDEX_FIXED_HEADER_V1 || size > RTF_INDEX_MAX_HEADER)
    return GST_TYPE_FIND_POSSIBLE;
  data = gst_type_find_peek (tf, 0, size);
  if (data == NULL)
    return GST_TYPE_FIND_LIKELY;
  ok = rtf_index_decode_header (data, size, &h, &why);
  rtf_index_header_clear (&h);
  g_free (why);
  return ok ? GST_TYPE_FIND_MAXIMUM : GST_TYPE_FIND_POSSIBLE;
}

static void
index_type_find (GstTypeFind * tf, gpointer user_data)
{
  GstTypeFindProbability p = index_probability (tf);

  if (p > 0)
    gst_type_find_suggest (tf, p, gst_static_caps_get (&index_caps));
}

/* The whole manifest, when its length is known and peeked: whether it
 * parses as one */
static gboolean
spread_parses (GstTypeFind * tf)
{
  guint64 len = gst_type_find_get_length (tf);
  const guint8 *data;
  RtfSpreadManifest m;
  gchar *why = NULL;
  gboolean ok;

  if (len == 0 || len > RTF_SPREAD_MANIFEST_MAX_BYTES)
    return FALSE;
  data = gst_type_find_peek (tf, 0, (guint) len);
  if (data == NULL)
    return FALSE;
  memset (&m, 0, sizeof (m));
  ok = rtf_spread_manifest_parse ((const gchar *) data, len, &m, &why);
  rtf_spread_manifest_clear (&m);
  g_free (why);
  return ok;
}

static void
spread_type_find (GstTypeFind * tf, gpointer user_data)
{
  const guint8 *data = gst_type_find_peek (tf, 0, strlen (SPREAD_HEAD) + 1);

  if (data == NULL || memcmp (data, SPREAD_HEAD, strlen (SPREAD_HEAD)) != 0
      || (data[strlen (SPREAD_HEAD)] != '\n'
          && data[strlen (SPREAD_HEAD)] != '\r'))
    return;
  gst_type_find_suggest (tf, spread_parses (tf) ? GST_TYPE_FIND_MAXIMUM :
      GST_TYPE_FIND_LIKELY, gst_static_caps_get (&spread_caps));
}

gboolean
gst_rtframe_typefind_register (GstPlugin * plugin)
{
  gboolean ok;

  ok = gst_type_find_register (plugin, "rtframe-index", GST_RANK_PRIMARY,
      index_type_find, "idx", gst_static_caps_get (&index_caps), NULL, NULL);
  ok &= gst_type_find_register (plugin, "rtframe-spread", GST_RANK_PRIMARY,
      spread_type_find, "rtfspread", gst_static_caps_get (&spread_caps),
      NULL, NULL);
  return ok;
}
