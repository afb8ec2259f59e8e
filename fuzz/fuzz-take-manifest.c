/* rtframe fuzz target: a take's manifest (DIR/<id>.rtftake), what
 * rtframe-info, -verify, -export and rtframesrc take from outside first.
 * Whatever the bytes, parsing must not crash or read out of bounds; a
 * manifest it accepts has a valid id, a kind, at least one camera (named
 * once each), no empty file name and no manifest among the files, and
 * frame ranges in order; written again (rtf_take_manifest_to_text()) it
 * reads back the same, every field; and any bytes as a label, a note and
 * a file name survive writing and reading byte for byte.
 *
 * The first byte picks the mode: bit 0 the rest is a label, a note and a
 * file name separated by NUL bytes, written and read back; else the rest
 * is a manifest's text. */
#include <stdint.h>
#include <string.h>

#include "rtf-pattern.h"
#include "rtf-take-manifest.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
assert_same_list (gchar ** a, gchar ** b)
{
  guint i;

  g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));
  for (i = 0; a[i]; i++)
    g_assert_cmpstr (a[i], ==, b[i]);
}

static void
assert_same (const RtfTakeManifest * a, const RtfTakeManifest * b)
{
  guint i;

  g_assert_cmpstr (a->id, ==, b->id);
  g_assert_cmpstr (a->kind, ==, b->kind);
  g_assert_cmpstr (a->utc, ==, b->utc);
  g_assert_cmpstr (a->label, ==, b->label);
  g_assert_cmpuint (a->running_time, ==, b->running_time);
  g_assert_cmpuint (a->stop_running_time, ==, b->stop_running_time);
  g_assert (a->complete == b->complete);
  assert_same_list (a->notes, b->notes);
  g_assert_cmpuint (a->cameras->len, ==, b->cameras->len);
  for (i = 0; i < a->cameras->len; i++) {
    const RtfTakeCamera *x = g_ptr_array_index (a->cameras, i);
    const RtfTakeCamera *y = g_ptr_array_index (b->cameras, i);

    g_assert_cmpstr (x->name, ==, y->name);
    assert_same_list (x->files, y->files);
    g_assert_cmpuint (x->first_frame, ==, y->first_frame);
    g_assert_cmpuint (x->last_frame, ==, y->last_frame);
    g_assert_cmpuint (x->frames, ==, y->frames);
    g_assert_cmpuint (x->first_running_time, ==, y->first_running_time);
    g_assert_cmpuint (x->last_running_time, ==, y->last_running_time);
    g_assert (x->stopped == y->stopped);
  }
}

static void
assert_sane (const RtfTakeManifest * m)
{
  guint i, j;

  g_assert (rtf_take_id_is_valid (m->id));
  g_assert (g_str_equal (m->kind, "event") || g_str_equal (m->kind, "take"));
  g_assert_cmpuint (m->cameras->len, >=, 1);
  for (i = 0; i < m->cameras->len; i++) {
    const RtfTakeCamera *c = g_ptr_array_index (m->cameras, i);

    for (j = 0; j < i; j++)
      g_assert_cmpstr (((RtfTakeCamera *) g_ptr_array_index (m->cameras,
                  j))->name, !=, c->name);
    for (j = 0; c->files[j]; j++) {
      guint k;

      g_assert (c->files[j][0] != '\0');
      g_assert (!rtf_take_manifest_is_path (c->files[j]));
      g_assert (rtf_pattern_check (c->files[j], NULL) != RTF_PATTERN_OK);
      for (k = 0; k < j; k++)
        g_assert_cmpstr (c->files[k], !=, c->files[j]);
    }
    g_assert (c->first_frame == RTF_TAKE_NONE
        || c->last_frame == RTF_TAKE_NONE || c->first_frame <= c->last_frame);
  }
}

static void
round_trip (const RtfTakeManifest * m)
{
  gchar *text = rtf_take_manifest_to_text (m);
  GError *error = NULL;
  RtfTakeManifest *again = rtf_take_manifest_parse (text, strlen (text),
      &error);

  if (again == NULL)
    g_error ("written, not read back: %s\n%s", error->message, text);
  g_assert (g_utf8_validate (text, -1, NULL));
  assert_same (m, again);
  rtf_take_manifest_free (again);
  g_free (text);
}

/* Any bytes as a label, a note and a file name */
static void
texts (const uint8_t * data, size_t size)
{
  gchar *copy = g_strndup ((const gchar *) data, size);
  const gchar *label = copy, *note, *file;
  RtfTakeManifest *m = rtf_take_manifest_new ("event-1", "event");
  RtfTakeCamera *c;
  gsize n = strlen (label);

  note = n < size ? label + n + 1 : "";
  n = note - copy + strlen (note);
  file = n < size ? copy + n + 1 : "f.raw";
  if (*file == '\0' || rtf_take_manifest_is_path (file)
      || g_str_has_suffix (file, ".rtfspread")
      || rtf_pattern_check (file, NULL) == RTF_PATTERN_OK)
    file = "f.raw";
  m->label = *label ? g_strdup (label) : NULL;
  g_strfreev (m->notes);
  m->notes = g_new0 (gchar *, 2);
  m->notes[0] = g_strdup (note);
  m->utc = g_strdup ("2026-12-07T06:33:27.527Z");
  m->running_time = 5;
  c = rtf_take_manifest_add_camera (m, "cam0");
  g_strfreev (c->files);
  c->files = g_new0 (gchar *, 2);
  c->files[0] = g_strdup (file);
  c->first_frame = 1;
  c->last_frame = 2;
  c->frames = 2;
  round_trip (m);
  rtf_take_manifest_free (m);
  g_free (copy);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtfTakeManifest *m;
  GError *error = NULL;

  if (size < 1)
    return 0;
  if (data[0] & 1) {
    texts (data + 1, size - 1);
    return 0;
  }
  m = rtf_take_manifest_parse ((const gchar *) data + 1, size - 1, &error);
  if (m == NULL) {
    g_assert (error != NULL);
    g_error_free (error);
    return 0;
  }
  assert_sane (m);
  round_trip (m);
  rtf_take_manifest_free (m);
  return 0;
}
