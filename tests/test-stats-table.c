/* The one place a statistic is added: rtframesink-stats holds exactly the
 * fields of the writer's table (common/writer/rtf-stats.h) and of the element's
 * list (gst/gstrtframestats.c), each of the type its table row says in
 * docs/reference.md, and that table lists every one of them. */
#include <gst/check/gstcheck.h>

#include <string.h>

#include "gstrtframemessages.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

#define CAPS "video/x-raw,format=GRAY10_LE32,width=64,height=16,framerate=20/1"

static guint n_loc;

/* Every field the statistics must have */
static GHashTable *
expected_fields (void)
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);
  const RtfStatField *w;
  const GstRtFrameStatsField *e;
  guint n, i;

  w = rtf_writer_stats_fields (&n);
  for (i = 0; i < n; i++)
    if (w[i].name)
      g_hash_table_add (names, (gpointer) w[i].name);
  e = gst_rtframe_stats_element_fields (&n);
  for (i = 0; i < n; i++)
    g_hash_table_add (names, (gpointer) e[i].name);
  e = gst_rtframe_stats_spread_fields (&n);
  for (i = 0; i < n; i++)
    g_hash_table_add (names, (gpointer) e[i].name);
  return names;
}

/* Every field of a "location" structure in "locations" */
static GHashTable *
expected_location_fields (void)
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);
  const GstRtFrameStatsField *e = gst_rtframe_stats_location_fields (&n_loc);
  guint i;

  for (i = 0; i < n_loc; i++)
    g_hash_table_add (names, (gpointer) e[i].name);
  return names;
}

/* The rows of the table under `heading` in docs/reference.md: name ->
 * the type column */
static GHashTable *
documented_fields (const gchar * heading)
{
  gchar *path = g_build_filename (g_getenv ("RTFRAME_SOURCE_DIR"), "docs",
      "reference.md", NULL);
  gchar *text = NULL, *start, *end, **lines;
  GHashTable *rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  guint i;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "no %s", path);
  start = strstr (text, heading);
  fail_unless (start != NULL);
  end = strstr (start + 4, "\n### ");
  if (end)
    *end = '\0';
  lines = g_strsplit (start, "\n", -1);
  for (i = 0; lines[i]; i++) {
    gchar **cells;

    if (!g_str_has_prefix (lines[i], "| `"))
      continue;
    cells = g_strsplit (lines[i], "|", -1);
    g_hash_table_insert (rows, g_strndup (cells[1] + 2,
            strlen (cells[1]) - 4), g_strstrip (g_strdup (cells[2])));
    g_strfreev (cells);
  }
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  return rows;
}

/* A recording over two locations: the stats have every field, those of
 * locations= too */
static GstStructure *
stats_after_recording (void)
{
  gchar *path = rtf_test_tmp_path ("stats.raw");
  gchar *other = rtf_test_tmp_path ("other.raw");
  gchar *props = g_strdup_printf ("locations=<\"%s\",\"%s\">", path, other);
  Rec *r = rtf_test_rec_start (path, props, CAPS);
  GstStructure *s = NULL;
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  g_object_get (r->h->element, "stats", &s, NULL);
  rtf_test_rec_stop (r);
  g_free (props);
  g_free (other);
  g_free (path);
  return s;
}

/* The GType a row of the docs' table names first */
static GType
documented_type (const gchar * type)
{
  if (g_str_has_prefix (type, "guint64"))
    return G_TYPE_UINT64;
  if (g_str_has_prefix (type, "guint"))
    return G_TYPE_UINT;
  if (g_str_has_prefix (type, "gboolean"))
    return G_TYPE_BOOLEAN;
  if (g_str_has_prefix (type, "gdouble"))
    return G_TYPE_DOUBLE;
  if (g_str_has_prefix (type, "string"))
    return G_TYPE_STRING;
  return G_TYPE_INVALID;
}

GST_START_TEST (test_message_is_the_tables)
{
  GHashTable *want = expected_fields ();
  GstStructure *s = stats_after_recording ();
  guint i, n = gst_structure_n_fields (s);

  for (i = 0; i < n; i++) {
    const gchar *name = gst_structure_nth_field_name (s, i);

    fail_unless (g_hash_table_contains (want, name), "%s is in the message "
        "but in neither table", name);
  }
  fail_unless_equals_int (n, g_hash_table_size (want));
  gst_structure_free (s);
  g_hash_table_unref (want);
}

GST_END_TEST;

/* docs lists exactly want, each of the type s has */
static void
assert_docs_list (GHashTable * want, GHashTable * docs, const GstStructure * s)
{
  GHashTableIter it;
  gpointer key, value;

  g_hash_table_iter_init (&it, want);
  while (g_hash_table_iter_next (&it, &key, NULL))
    fail_unless (g_hash_table_contains (docs, key), "docs/reference.md does "
        "not list %s", (const gchar *) key);
  g_hash_table_iter_init (&it, docs);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    fail_unless (g_hash_table_contains (want, key), "docs/reference.md "
        "lists %s, which is no statistic", (const gchar *) key);
    if (documented_type (value) != G_TYPE_INVALID)
      fail_unless_equals_int (gst_structure_get_field_type (s, key),
          documented_type (value));
  }
}

/* Each "location" structure has exactly the fields of the list, and the
 * docs' table of them lists each */
GST_START_TEST (test_location_fields)
{
  GHashTable *want = expected_location_fields ();
  GHashTable *docs = documented_fields ("### `locations` in ");
  GstStructure *s = stats_after_recording ();
  const GValue *list = gst_structure_get_value (s, "locations");
  guint i;

  fail_unless (list && GST_VALUE_HOLDS_ARRAY (list));
  fail_unless_equals_int (gst_value_array_get_size (list), 2);
  for (i = 0; i < 2; i++) {
    const GstStructure *l =
        gst_value_get_structure (gst_value_array_get_value (list, i));
    guint k;

    for (k = 0; k < (guint) gst_structure_n_fields (l); k++)
      fail_unless (g_hash_table_contains (want,
              gst_structure_nth_field_name (l, k)), "%s is in a location but "
          "not in the list", gst_structure_nth_field_name (l, k));
    fail_unless_equals_int (gst_structure_n_fields (l), n_loc);
    assert_docs_list (want, docs, l);
  }
  gst_structure_free (s);
  g_hash_table_unref (docs);
  g_hash_table_unref (want);
}

GST_END_TEST;

GST_START_TEST (test_docs_list_every_field)
{
  GHashTable *want = expected_fields ();
  GHashTable *docs = documented_fields ("### `rtframesink-stats`");
  GstStructure *s = stats_after_recording ();

  assert_docs_list (want, docs, s);
  gst_structure_free (s);
  g_hash_table_unref (docs);
  g_hash_table_unref (want);
}

GST_END_TEST;

static Suite *
stats_table_suite (void)
{
  Suite *s = suite_create ("stats-table");
  TCase *tc = tcase_create ("stats-table");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, rtf_test_tmp_setup, rtf_test_tmp_teardown);
  tcase_add_test (tc, test_message_is_the_tables);
  tcase_add_test (tc, test_docs_list_every_field);
  tcase_add_test (tc, test_location_fields);
  return s;
}

GST_CHECK_MAIN (stats_table);
