/* rtframe: a spread recording's manifest as text (rtf-spread-manifest.h):
 * parsing what a reader found, and composing what the sink writes.
 *
 * GKeyFile finds the group and the keys; the lists of locations are
 * taken apart here, from the raw value, in GKeyFile's own list syntax:
 * g_key_file_get_string_list() refuses a value that is not UTF-8, and a
 * manifest of version 1 holds a location's bytes as they were (a path
 * that is not UTF-8 made the whole manifest unreadable).  Version 2 writes
 * such a byte "\xHH" and a backslash "\\" (rtf_spread_manifest_to_text()),
 * so its text is UTF-8. */
#include "rtf-spread-manifest-text.h"
#include "rtf-keyfile-paths.h"

#include <string.h>

#define GROUP "rtframe-spread"
#define HEAD "[" GROUP "]"

static gboolean
refuse (gchar ** why, gchar * text)
{
  *why = text;
  return FALSE;
}

/* Every item a location: decoded (version 2), not empty, no manifest,
 * none twice */
static gchar **
take_locations (gchar ** items, guint version, const gchar * key, gchar ** why)
{
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint i;

  for (i = 0; items[i] && *why == NULL; i++) {
    if (version >= 2) {
      gchar *bytes = rtf_keyfile_path_decode (items[i], why);

      if (bytes == NULL)
        break;
      g_free (items[i]);
      items[i] = bytes;
    }
    if (items[i][0] == '\0')
      *why = g_strdup_printf ("its %s name an empty location", key);
    else if (rtf_spread_manifest_is_path (items[i]))
      *why = g_strdup_printf ("it names \"%s\", a manifest: a manifest "
          "names recordings, never manifests", items[i]);
    else if (g_hash_table_contains (seen, items[i]))
      *why = g_strdup_printf ("it names the location \"%s\" twice", items[i]);
    else
      g_hash_table_add (seen, items[i]);
  }
  g_hash_table_unref (seen);
  if (*why == NULL && items[0] == NULL)
    *why = g_strdup_printf ("its %s name no location", key);
  if (*why == NULL)
    return items;
  g_strfreev (items);
  return NULL;
}

static gchar **
get_locations (GKeyFile * kf, const gchar * key, guint version, gchar ** why)
{
  gchar *raw = g_key_file_get_value (kf, GROUP, key, NULL);
  gchar **items;

  if (raw == NULL)
    return NULL;
  items = rtf_keyfile_split_list (raw, why);
  g_free (raw);
  return items ? take_locations (items, version, key, why) : NULL;
}

static gboolean
parse_id (const gchar * hex, RtfRecordingId * id)
{
  guint i;

  if (hex == NULL || strlen (hex) != RTF_RECORDING_ID_SIZE * 2)
    return FALSE;
  for (i = 0; i < RTF_RECORDING_ID_SIZE; i++) {
    gint hi = g_ascii_xdigit_value (hex[2 * i]);
    gint lo = g_ascii_xdigit_value (hex[2 * i + 1]);

    if (hi < 0 || lo < 0)
      return FALSE;
    id->bytes[i] = (guint8) (hi << 4 | lo);
  }
  return TRUE;
}

/* An unsigned number (decimal, nothing else) of key, or dflt without it */
static gboolean
get_number (GKeyFile * kf, const gchar * key, guint64 dflt, guint64 max,
    guint64 * out, gchar ** why)
{
  gchar *text = g_key_file_get_value (kf, GROUP, key, NULL);
  gboolean ok;

  *out = dflt;
  if (text == NULL)
    return TRUE;
  ok = g_ascii_string_to_unsigned (text, 10, 0, max, out, NULL);
  if (!ok)
    *why = g_strdup_printf ("its %s \"%.40s\" is not a number of 0 to %"
        G_GUINT64_FORMAT, key, text, max);
  g_free (text);
  return ok;
}

/* ---- the final state (written at EOS) ------------------------------ */

static const gchar *const end_names[] = {
  [RTF_SPREAD_END_ACTIVE] = "active",
  [RTF_SPREAD_END_STALLED] = "stalled",
  [RTF_SPREAD_END_FAILED] = "failed",
  [RTF_SPREAD_END_GIVEN_UP] = "given-up",
};

const gchar *
rtf_spread_end_state_name (RtfSpreadEndState state)
{
  return (guint) state < G_N_ELEMENTS (end_names) ? end_names[state] : "?";
}

/* One list of the final state, as many items as locations: NULL with
 * *why when it is missing or does not fit */
static gchar **
get_end_list (GKeyFile * kf, const gchar * key, guint n, gchar ** why)
{
  gchar *raw = g_key_file_get_value (kf, GROUP, key, NULL);
  gchar **items;

  if (raw == NULL) {
    *why = g_strdup_printf ("it says final=true but has no %s", key);
    return NULL;
  }
  items = rtf_keyfile_split_list (raw, why);
  g_free (raw);
  if (items && g_strv_length (items) != n) {
    *why = g_strdup_printf ("its %s name %u locations, its locations %u",
        key, g_strv_length (items), n);
    g_clear_pointer (&items, g_strfreev);
  }
  return items;
}

static gboolean
end_state (const gchar * text, RtfSpreadEndState * state)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (end_names); i++)
    if (strcmp (text, end_names[i]) == 0) {
      *state = (RtfSpreadEndState) i;
      return TRUE;
    }
  return FALSE;
}

/* location-frames-durable, when there (absent: every frame written was
 * durable, what a manifest before it meant); never more than written */
static gboolean
parse_durable (GKeyFile * kf, RtfSpreadManifest * m, guint n, gchar ** why)
{
  gchar **durable;
  guint i;

  for (i = 0; i < n; i++)
    m->ends[i].frames_durable = m->ends[i].frames;
  if (!g_key_file_has_key (kf, GROUP, "location-frames-durable", NULL))
    return TRUE;
  durable = get_end_list (kf, "location-frames-durable", n, why);
  for (i = 0; durable && i < n && *why == NULL; i++) {
    RtfSpreadLocationEnd *e = &m->ends[i];

    if (!g_ascii_string_to_unsigned (durable[i], 10, 0, e->frames,
            &e->frames_durable, NULL))
      *why = g_strdup_printf ("its location-frames-durable holds \"%.40s\", "
          "not a number of 0 to its location-frames (%" G_GUINT64_FORMAT ")",
          durable[i], e->frames);
  }
  g_strfreev (durable);
  return *why == NULL;
}

/* The three lists of the final state into m->ends */
static gboolean
parse_ends (GKeyFile * kf, RtfSpreadManifest * m, guint n, gchar ** why)
{
  gchar **states = NULL, **frames = NULL, **deleted = NULL;
  guint i;

  states = get_end_list (kf, "location-states", n, why);
  if (states)
    frames = get_end_list (kf, "location-frames", n, why);
  if (frames)
    deleted = get_end_list (kf, "location-files-deleted", n, why);
  m->ends = g_new0 (RtfSpreadLocationEnd, n);
  for (i = 0; deleted && i < n && *why == NULL; i++) {
    RtfSpreadLocationEnd *e = &m->ends[i];

    if (!end_state (states[i], &e->state))
      *why = g_strdup_printf ("its location-states holds \"%.40s\", not "
          "active, stalled, failed or given-up", states[i]);
    else if (!g_ascii_string_to_unsigned (frames[i], 10, 0, G_MAXUINT64,
            &e->frames, NULL)
        || !g_ascii_string_to_unsigned (deleted[i], 10, 0, G_MAXUINT64,
            &e->files_deleted, NULL))
      *why = g_strdup_printf ("its location-frames or location-files-deleted "
          "holds \"%.40s\" or \"%.40s\", not a number", frames[i], deleted[i]);
  }
  g_strfreev (states);
  g_strfreev (frames);
  g_strfreev (deleted);
  return *why == NULL && parse_durable (kf, m, n, why);
}

/* final (absent: false): the recording's final state, when true */
static gboolean
parse_final (GKeyFile * kf, RtfSpreadManifest * m, gchar ** why)
{
  gchar *final = g_key_file_get_value (kf, GROUP, "final", NULL);
  gboolean ok = TRUE;

  m->state = RTF_SPREAD_MANIFEST_STARTED;
  if (final && strcmp (final, "true") == 0) {
    m->state = RTF_SPREAD_MANIFEST_FINAL;
    ok = parse_ends (kf, m, g_strv_length (m->locations), why);
  } else if (final && strcmp (final, "false") != 0) {
    *why = g_strdup_printf ("its final \"%.40s\" is neither true nor false",
        final);
    ok = FALSE;
  }
  g_free (final);
  return ok;
}

/* The keys of a loaded manifest into m */
static gboolean
parse_keys (GKeyFile * kf, RtfSpreadManifest * m, gchar ** why)
{
  guint64 version;
  gchar *hex;
  gboolean ok;

  if (!get_number (kf, "version", 1, G_MAXUINT32, &version, why))
    return FALSE;
  if (version < 1 || version > RTF_SPREAD_MANIFEST_VERSION)
    return refuse (why, g_strdup_printf ("its version %" G_GUINT64_FORMAT
            " is not one this build reads (1 to %u)", version,
            RTF_SPREAD_MANIFEST_VERSION));
  m->version = (guint) version;
  hex = g_key_file_get_value (kf, GROUP, "recording-id", NULL);
  ok = parse_id (hex, &m->id);
  if (!ok)
    *why = hex ? g_strdup_printf ("its recording-id \"%.40s\" is not an id",
        hex) : g_strdup ("it has no recording-id");
  g_free (hex);
  if (!ok || !get_number (kf, "start-index", 0, G_MAXUINT64, &m->start_index,
          why))
    return FALSE;
  m->locations = get_locations (kf, "locations", m->version, why);
  if (m->locations == NULL)
    return *why ? FALSE : refuse (why, g_strdup ("it has no locations"));
  if (m->version < 2)
    return TRUE;
  m->relative = get_locations (kf, "relative-locations", m->version, why);
  if (*why)
    return FALSE;
  if (m->relative && g_strv_length (m->relative) !=
      g_strv_length (m->locations))
    return refuse (why, g_strdup_printf ("its relative-locations name %u "
            "locations, its locations %u", g_strv_length (m->relative),
            g_strv_length (m->locations)));
  return parse_final (kf, m, why);
}

gboolean
rtf_spread_manifest_parse (const gchar * text, gsize len,
    RtfSpreadManifest * m, gchar ** why)
{
  GKeyFile *kf;
  GError *error = NULL;
  gboolean ok;

  memset (m, 0, sizeof (*m));
  *why = NULL;
  if (len > RTF_SPREAD_MANIFEST_MAX_BYTES)
    return refuse (why, g_strdup_printf ("%" G_GSIZE_FORMAT " bytes: a "
            "manifest is at most %u bytes (64 KiB)", len,
            RTF_SPREAD_MANIFEST_MAX_BYTES));
  if (len < strlen (HEAD) || memcmp (text, HEAD, strlen (HEAD)) != 0)
    return refuse (why, g_strdup ("it does not begin with \"" HEAD "\""));
  if (memchr (text, '\0', len) != NULL)
    return refuse (why, g_strdup ("it holds a NUL byte: not text"));
  kf = g_key_file_new ();
  ok = g_key_file_load_from_data (kf, text, len, G_KEY_FILE_NONE, &error);
  if (!ok) {
    *why = g_strdup (error->message);
    g_clear_error (&error);
  } else {
    ok = parse_keys (kf, m, why);
  }
  g_key_file_free (kf);
  if (!ok)
    rtf_spread_manifest_clear (m);
  return ok;
}

static void
set_list (GKeyFile * kf, const gchar * key, gchar ** paths)
{
  guint i, n = g_strv_length (paths);
  gchar **text = g_new0 (gchar *, n + 1);

  for (i = 0; i < n; i++)
    text[i] = rtf_keyfile_path_encode (paths[i]);
  g_key_file_set_string_list (kf, GROUP, key, (const gchar * const *) text, n);
  g_strfreev (text);
}

/* The final state: three lists of plain words and numbers */
static void
set_ends (GKeyFile * kf, const RtfSpreadManifest * m)
{
  GString *states = g_string_new (NULL), *frames = g_string_new (NULL);
  GString *deleted = g_string_new (NULL), *durable = g_string_new (NULL);
  guint i, n = g_strv_length (m->locations);

  for (i = 0; i < n; i++) {
    g_string_append_printf (states, "%s;",
        rtf_spread_end_state_name (m->ends[i].state));
    g_string_append_printf (frames, "%" G_GUINT64_FORMAT ";",
        m->ends[i].frames);
    g_string_append_printf (deleted, "%" G_GUINT64_FORMAT ";",
        m->ends[i].files_deleted);
    g_string_append_printf (durable, "%" G_GUINT64_FORMAT ";",
        m->ends[i].frames_durable);
  }
  g_key_file_set_value (kf, GROUP, "final", "true");
  g_key_file_set_value (kf, GROUP, "location-states", states->str);
  g_key_file_set_value (kf, GROUP, "location-frames", frames->str);
  g_key_file_set_value (kf, GROUP, "location-files-deleted", deleted->str);
  g_key_file_set_value (kf, GROUP, "location-frames-durable", durable->str);
  g_string_free (durable, TRUE);
  g_string_free (states, TRUE);
  g_string_free (frames, TRUE);
  g_string_free (deleted, TRUE);
}

gchar *
rtf_spread_manifest_to_text (const RtfSpreadManifest * m, gsize * len)
{
  GKeyFile *kf = g_key_file_new ();
  gchar *hex = rtf_recording_id_to_string (&m->id), *text;

  g_key_file_set_uint64 (kf, GROUP, "version", RTF_SPREAD_MANIFEST_VERSION);
  g_key_file_set_string (kf, GROUP, "recording-id", hex);
  g_key_file_set_uint64 (kf, GROUP, "start-index", m->start_index);
  set_list (kf, "locations", m->locations);
  if (m->relative)
    set_list (kf, "relative-locations", m->relative);
  if (m->state == RTF_SPREAD_MANIFEST_FINAL)
    set_ends (kf, m);
  text = g_key_file_to_data (kf, len, NULL);
  g_key_file_free (kf);
  g_free (hex);
  return text;
}

void
rtf_spread_manifest_clear (RtfSpreadManifest * m)
{
  g_clear_pointer (&m->locations, g_strfreev);
  g_clear_pointer (&m->relative, g_strfreev);
  g_clear_pointer (&m->ends, g_free);
}

gboolean
rtf_spread_manifest_is_path (const gchar * path)
{
  return g_str_has_suffix (path, RTF_SPREAD_MANIFEST_SUFFIX);
}
