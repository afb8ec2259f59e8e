/* rtframe fuzz target: the manifest of a spread recording, what every
 * reader takes from outside first (rtframe-verify, -recover, -dump and
 * rtframesrc given a ".rtfspread").  Whatever the bytes, parsing must not
 * crash, read out of bounds or take more than the text's size; a manifest
 * it accepts names at least one location, none empty, none twice, no
 * manifest, and as many relative paths as locations; written again
 * (rtf_spread_manifest_to_text()) it is UTF-8 and reads back the same;
 * and any bytes as locations survive writing and reading byte for byte
 * (paths that are not UTF-8 included), with and without a final state
 * (final=true: one state, frame count, deleted count and durable count
 * per location, never more durable than written).
 *
 * The first byte picks the mode: bit 0 the rest is locations separated by
 * NUL bytes, to be written and read back; else bit 1 the rest is a file
 * read by rtf_spread_manifest_read(); else the rest is a manifest's text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#include "rtf-spread-manifest.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
assert_same_list (gchar ** a, gchar ** b)
{
  guint i;

  g_assert ((a == NULL) == (b == NULL));
  if (a == NULL)
    return;
  g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));
  for (i = 0; a[i]; i++)
    g_assert_cmpstr (a[i], ==, b[i]);
}

/* What a manifest the parser accepts holds */
static void
assert_sane (const RtfSpreadManifest * m)
{
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint i, n;

  g_assert (m->version >= 1 && m->version <= RTF_SPREAD_MANIFEST_VERSION);
  g_assert (m->locations != NULL);
  n = g_strv_length (m->locations);
  g_assert_cmpuint (n, >=, 1);
  for (i = 0; i < n; i++) {
    g_assert (m->locations[i][0] != '\0');
    g_assert (!rtf_spread_manifest_is_path (m->locations[i]));
    g_assert (!g_hash_table_contains (seen, m->locations[i]));
    g_hash_table_add (seen, m->locations[i]);
  }
  g_assert (m->relative == NULL || g_strv_length (m->relative) == n);
  g_assert (m->version >= 2 || m->relative == NULL);
  /* a final state: one end for each location, of a state it names */
  g_assert ((m->state == RTF_SPREAD_MANIFEST_FINAL) == (m->ends != NULL));
  g_assert (m->version >= 2 || m->ends == NULL);
  for (i = 0; m->ends && i < n; i++) {
    g_assert (strcmp (rtf_spread_end_state_name (m->ends[i].state), "?"));
    g_assert_cmpuint (m->ends[i].frames_durable, <=, m->ends[i].frames);
  }
  g_hash_table_unref (seen);
}

/* Written again, it is UTF-8 and reads back the same */
static void
assert_round_trip (const RtfSpreadManifest * m)
{
  RtfSpreadManifest again;
  gchar *why = NULL, *text;
  gsize len;
  guint i;

  text = rtf_spread_manifest_to_text (m, &len);
  g_assert (g_utf8_validate (text, len, NULL));
  if (len > RTF_SPREAD_MANIFEST_MAX_BYTES) {
    g_free (text);
    return;                     /* (what the writer refuses to write) */
  }
  if (!rtf_spread_manifest_parse (text, len, &again, &why))
    g_error ("written and not read back (%s):\n%s", why, text);
  g_assert_cmpuint (again.version, ==, RTF_SPREAD_MANIFEST_VERSION);
  g_assert (memcmp (&again.id, &m->id, sizeof (m->id)) == 0);
  g_assert_cmpuint (again.start_index, ==, m->start_index);
  assert_same_list (again.locations, m->locations);
  assert_same_list (again.relative, m->relative);
  g_assert_cmpint (again.state, ==, m->state);
  g_assert ((again.ends == NULL) == (m->ends == NULL));
  for (i = 0; m->ends && m->locations[i]; i++) {
    g_assert_cmpint (again.ends[i].state, ==, m->ends[i].state);
    g_assert_cmpuint (again.ends[i].frames, ==, m->ends[i].frames);
    g_assert_cmpuint (again.ends[i].files_deleted, ==,
        m->ends[i].files_deleted);
    g_assert_cmpuint (again.ends[i].frames_durable, ==,
        m->ends[i].frames_durable);
  }
  /* where a reader looks for each: a path or two, never none */
  for (i = 0; again.locations[i]; i++) {
    gchar **c = rtf_spread_manifest_candidates ("dir/m.rtfspread", &again,
        i);

    g_assert (c[0] != NULL && g_strv_length (c) <= 3);
    g_strfreev (c);
  }
  rtf_spread_manifest_clear (&again);
  g_free (text);
}

static void
fuzz_text (const uint8_t * data, size_t size)
{
  RtfSpreadManifest m;
  gchar *why = NULL;

  if (!rtf_spread_manifest_parse ((const gchar *) data, size, &m, &why)) {
    g_assert (why != NULL && m.locations == NULL && m.relative == NULL);
    g_free (why);
    return;
  }
  g_assert (why == NULL);
  assert_sane (&m);
  assert_round_trip (&m);
  rtf_spread_manifest_clear (&m);
}

/* Any bytes as locations (NUL-separated), the valid ones kept: written
 * and read back byte for byte, as locations and as relative paths */
static void
fuzz_locations (const uint8_t * data, size_t size)
{
  GPtrArray *locs = g_ptr_array_new_with_free_func (g_free);
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  RtfSpreadManifest m = { {{0}}, 0 };
  gsize at = 0;
  guint i, n;

  while (at < size) {
    const guint8 *end = memchr (data + at, 0, size - at);
    gsize len = end ? (gsize) (end - (data + at)) : size - at;
    gchar *loc = g_strndup ((const gchar *) data + at, len);

    /* (g_hash_table_add() of a key there replaces it: look first) */
    if (len && !rtf_spread_manifest_is_path (loc)
        && !g_hash_table_contains (seen, loc)) {
      g_hash_table_add (seen, loc);
      g_ptr_array_add (locs, loc);
    } else
      g_free (loc);
    at += len + 1;
  }
  g_hash_table_unref (seen);
  if (locs->len == 0) {
    g_ptr_array_unref (locs);
    return;
  }
  n = locs->len;
  g_ptr_array_add (locs, NULL);
  memset (m.id.bytes, 0x5a, sizeof (m.id.bytes));
  m.start_index = size;
  m.version = RTF_SPREAD_MANIFEST_VERSION;
  m.locations = (gchar **) locs->pdata;
  m.relative = (gchar **) locs->pdata;
  assert_round_trip (&m);
  /* with a final state made of the bytes too */
  m.state = RTF_SPREAD_MANIFEST_FINAL;
  m.ends = g_new0 (RtfSpreadLocationEnd, n);
  for (i = 0; i < n; i++) {
    m.ends[i].state = (RtfSpreadEndState) (data[i % size] % 4);
    m.ends[i].frames = (guint64) data[(i + 1) % size] << (data[i % size] % 57);
    m.ends[i].files_deleted = G_MAXUINT64 - data[(i + 2) % size];
    m.ends[i].frames_durable = m.ends[i].frames >> (data[(i + 3) % size] % 64);
  }
  assert_round_trip (&m);
  g_free (m.ends);
  g_ptr_array_unref (locs);
}

static gchar *dir;

/* the directory the files are written to goes with the process */
static void
remove_dir (void)
{
  gchar *cmd = g_strdup_printf ("rm -rf '%s'", dir);

  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", dir);
  g_free (cmd);
}

static void
fuzz_file (const uint8_t * data, size_t size)
{
  RtfSpreadManifest m;
  gchar *path, *why = NULL;

  if (dir == NULL) {
    dir = g_dir_make_tmp ("rtf-fuzz-manifest-XXXXXX", NULL);
    g_assert (dir != NULL);
    atexit (remove_dir);
  }
  path = g_build_filename (dir, "m.raw.rtfspread", NULL);
  g_assert (g_file_set_contents (path, (const gchar *) data, size, NULL));
  if (rtf_spread_manifest_read (path, &m, &why)) {
    assert_sane (&m);
    rtf_spread_manifest_clear (&m);
  } else {
    g_assert (why != NULL && strstr (why, path) != NULL);
    g_free (why);
  }
  g_unlink (path);
  g_free (path);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size == 0)
    return 0;
  if (data[0] & 1)
    fuzz_locations (data + 1, size - 1);
  else if (data[0] & 2)
    fuzz_file (data + 1, size - 1);
  else
    fuzz_text (data + 1, size - 1);
  return 0;
}
