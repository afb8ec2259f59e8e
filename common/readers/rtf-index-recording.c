/* rtframe: the recording an index belongs to (rtf-index-recording.h) */
#include "rtf-index-recording.h"

#include <string.h>

#include "rtf-pattern.h"
#include "rtf-recording.h"

/* The longest run of digits a guint64 is written in */
#define MAX_DIGITS 20

/* The data file of the index at index_path: its name less ".idx", the
 * name its header gives (version 2 on) */
static gchar *
data_of_index (const gchar * index_path, const RtfIndexHeader * h,
    GError ** error)
{
  gchar *data, *base;
  gboolean named;

  if (!g_str_has_suffix (index_path, RTF_INDEX_SUFFIX)
      || strlen (index_path) == strlen (RTF_INDEX_SUFFIX)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "\"%s\" is not "
        "named as an index is (<data file>" RTF_INDEX_SUFFIX "), so its "
        "data file is not known", index_path);
    return NULL;
  }
  data = g_strndup (index_path, strlen (index_path) -
      strlen (RTF_INDEX_SUFFIX));
  if (!g_file_test (data, G_FILE_TEST_EXISTS)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "its data file "
        "\"%s\" is not there", data);
    g_free (data);
    return NULL;
  }
  base = g_path_get_basename (data);
  named = h->data_name == NULL || h->data_name[0] == '\0'
      || strcmp (h->data_name, base) == 0;
  g_free (base);
  if (!named) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "\"%s\" is the "
        "index of \"%s\", not of \"%s\" (renamed?)", index_path,
        h->data_name, data);
    g_free (data);
    return NULL;
  }
  return data;
}

/* Text with '%' written "%%", as a pattern holds it */
static void
append_escaped (GString * s, const gchar * text, gsize len)
{
  gsize i;

  for (i = 0; i < len; i++) {
    if (text[i] == '%')
      g_string_append_c (s, '%');
    g_string_append_c (s, text[i]);
  }
}

/* Time fields that match any len digits (%Y 4, %j 3, %m 2): a run of
 * digits of a name with time fields, read as one; FALSE for a single
 * digit, which no field is */
static gboolean
append_any_digits (GString * s, gsize len)
{
  if (len < 2)
    return FALSE;
  while (len > 0) {
    if (len == 3 || len == 5) {
      g_string_append (s, "%j");
      len -= 3;
    } else if (len >= 4) {
      g_string_append (s, "%Y");
      len -= 4;
    } else {
      g_string_append (s, "%m");
      len -= 2;
    }
  }
  return TRUE;
}

/* text[0..len) with '%' escaped and each whole run of two digits or more
 * as time fields; *any whether one was */
static void
append_wild (GString * s, const gchar * text, gsize len, gboolean * any)
{
  gsize i = 0;

  while (i < len) {
    gsize run = 0;

    while (i + run < len && g_ascii_isdigit (text[i + run]))
      run++;
    if (run > 0 && append_any_digits (s, run)) {
      *any = TRUE;
      i += run;
    } else if (run > 0) {
      g_string_append_len (s, text + i, run);
      i += run;
    } else {
      append_escaped (s, text + i, 1);
      i++;
    }
  }
}

/* As add_pattern(), with the other runs of digits as time fields: a set
 * whose names hold times (the adversarial read of issue 26: the demuxer
 * played only the files begun in the same second).  The run holding the
 * number is cut around it, so only whole runs elsewhere are wild. */
static void
add_timed_pattern (GPtrArray * out, const gchar * dir, const gchar * base,
    gsize at, gsize len, guint width)
{
  GString *s = g_string_new (NULL);
  gsize head = at, tail = at + len;
  gboolean any = FALSE;
  gchar *name;

  while (head > 0 && g_ascii_isdigit (base[head - 1]))
    head--;
  while (base[tail] && g_ascii_isdigit (base[tail]))
    tail++;
  append_wild (s, base, head, &any);
  append_escaped (s, base + head, at - head);
  if (width > 1)
    g_string_append_printf (s, "%%0%ud", width);
  else
    g_string_append (s, "%d");
  append_escaped (s, base + at + len, tail - (at + len));
  append_wild (s, base + tail, strlen (base + tail), &any);
  name = g_string_free (s, FALSE);
  if (any)
    g_ptr_array_add (out, g_build_filename (dir, name, NULL));
  g_free (name);
}

static void
add_pattern (GPtrArray * out, const gchar * dir, const gchar * base,
    gsize at, gsize len, guint width)
{
  GString *s = g_string_new (NULL);
  gchar *name;

  /* (first: where the name holds times, only this finds every file) */
  add_timed_pattern (out, dir, base, at, len, width);
  append_escaped (s, base, at);
  if (width > 1)
    g_string_append_printf (s, "%%0%ud", width);
  else
    g_string_append (s, "%d");
  append_escaped (s, base + at + len, strlen (base + at + len));
  name = g_string_free (s, FALSE);
  g_ptr_array_add (out, g_build_filename (dir, name, NULL));
  g_free (name);
}

/* The digits base[at..at+len) written as number by a conversion: "00004"
 * by %05d only, "4" by %d, "12" by %d or %02d */
static void
add_patterns_at (GPtrArray * out, const gchar * dir, const gchar * base,
    gsize at, gsize len, guint64 number)
{
  gchar digits[MAX_DIGITS + 1];

  if (len > MAX_DIGITS)
    return;
  memcpy (digits, base + at, len);
  digits[len] = '\0';
  if (g_ascii_strtoull (digits, NULL, 10) != number)
    return;
  if (len == 1 || digits[0] != '0')
    add_pattern (out, dir, base, at, len, 1);
  if (len > 1)
    add_pattern (out, dir, base, at, len, len);
}

/* The patterns that make data's name for number: each run of digits in
 * its name (or its tail: "cam1%d.raw" makes "cam10.raw") that reads as
 * the number, the last run first (the sink's names end so) */
static GPtrArray *
patterns_of (const gchar * data, guint64 number)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  gchar *dir = g_path_get_dirname (data), *base = g_path_get_basename (data);
  gsize end = strlen (base);

  while (end > 0) {
    gsize start = end, at;

    while (end > 0 && !g_ascii_isdigit (base[end - 1]))
      end--;
    start = end;
    while (start > 0 && g_ascii_isdigit (base[start - 1]))
      start--;
    for (at = start; at < end; at++)
      add_patterns_at (out, dir, base, at, end - at, number);
    end = start;
  }
  g_free (dir);
  g_free (base);
  return out;
}

/* The manifest beside location, when it names recording id */
static gchar *
spread_of (const gchar * location, const RtfRecordingId * id)
{
  gchar *path = rtf_spread_manifest_path (location), *why = NULL;
  RtfSpreadManifest m;
  gboolean ours = FALSE;

  memset (&m, 0, sizeof (m));
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR)
      && rtf_spread_manifest_read (path, &m, &why))
    ours = rtf_recording_id_equal (&m.id, id);
  rtf_spread_manifest_clear (&m);
  g_free (why);
  if (!ours)
    g_clear_pointer (&path, g_free);
  return path;
}

/* Whether pattern names a set of recording id holding data and another
 * file of it; *first its first file's number */
static gboolean
set_of (const gchar * pattern, const gchar * data, const RtfRecordingId * id,
    guint64 * first)
{
  RtfRecording *rec;
  gboolean has_data = FALSE;
  guint i, ours = 0;

  if (rtf_pattern_check (pattern, NULL) != RTF_PATTERN_OK)
    return FALSE;
  rec = rtf_recording_open_files_of (pattern, 0, id, FALSE, NULL);
  for (i = 0; rec && i < rec->n_files; i++) {
    const RtfRecordingFile *f = &rec->files[i];

    if (f->state != RTF_FILE_OK || f->index->header.version == 1
        || !rtf_recording_id_equal (&f->index->header.recording_id, id))
      continue;
    if (ours++ == 0)
      *first = f->number;
    if (strcmp (f->path, data) == 0)
      has_data = TRUE;
  }
  if (rec)
    rtf_recording_free (rec);
  return has_data && ours > 1;
}

/* The whole recording data is a file of, when one is proven: out's kind
 * and location set */
static void
find_whole (const gchar * data, const RtfIndexHeader * h,
    RtfIndexRecording * out)
{
  GPtrArray *patterns = patterns_of (data, h->file_number);
  guint i;

  g_ptr_array_add (patterns, g_strdup (data));
  for (i = 0; i < patterns->len && out->location == NULL; i++) {
    const gchar *p = g_ptr_array_index (patterns, i);

    out->location = spread_of (p, &h->recording_id);
    if (out->location)
      out->kind = RTF_INDEX_RECORDING_SPREAD;
  }
  for (i = 0; i + 1 < patterns->len && out->location == NULL; i++) {
    const gchar *p = g_ptr_array_index (patterns, i);

    if (set_of (p, data, &h->recording_id, &out->start_index)) {
      out->location = g_strdup (p);
      out->kind = RTF_INDEX_RECORDING_SET;
    }
  }
  g_ptr_array_unref (patterns);
}

gboolean
rtf_index_recording_find (const gchar * index_path, const RtfIndexHeader * h,
    gboolean whole, RtfIndexRecording * out, GError ** error)
{
  memset (out, 0, sizeof (*out));
  out->data_path = data_of_index (index_path, h, error);
  if (out->data_path == NULL)
    return FALSE;
  /* (a version 1 index names no recording: nothing proves a set) */
  if (whole && h->version != RTF_INDEX_VERSION_1
      && !rtf_recording_id_is_zero (&h->recording_id))
    find_whole (out->data_path, h, out);
  if (out->location == NULL) {
    out->kind = RTF_INDEX_RECORDING_FILE;
    out->location = g_strdup (out->data_path);
    out->start_index = 0;
  }
  return TRUE;
}

void
rtf_index_recording_clear (RtfIndexRecording * r)
{
  g_clear_pointer (&r->data_path, g_free);
  g_clear_pointer (&r->location, g_free);
}

const gchar *
rtf_index_recording_kind_name (RtfIndexRecordingKind kind)
{
  switch (kind) {
    case RTF_INDEX_RECORDING_SET:
      return "set";
    case RTF_INDEX_RECORDING_SPREAD:
      return "spread";
    default:
      return "file";
  }
}
