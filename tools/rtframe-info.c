/* rtframe-info: what a directory of recordings holds, as a rig's user
 * asks it (like `ros2 bag info`): the events and takes rtframe-record made
 * (their manifests, DIR/<id>.rtftake), each camera's part - frames, files,
 * the running times it spans, frames lost upstream (gaps), deadlines
 * missed, bytes - read from the files' indexes, not taken from the
 * manifest alone; then the recordings no manifest names.  A table, or
 * JSON (--json).
 *
 *   rtframe-info [--json] DIR | TAKE.rtftake | RECORDING
 *
 * Exit status: 0 everything named was read and holds the frames its
 * manifest says; 1 a camera's part holds fewer frames than its manifest
 * says, or a file of it cannot be read; 2 nothing could be read. */
#include "json-out.h"
#include "rtf-build-info.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-recording.h"
#include "rtf-take-manifest.h"

#include <stdio.h>
#include <string.h>

/* A camera's part of a take, or a recording, counted from its indexes */
typedef struct
{
  guint64 frames, bytes, gaps, lost_upstream, missed, prerecorded;
  guint64 first_rt, last_rt;
  guint files;
  gchar *problem;               /* NULL: all read */
} Counts;

static void
counts_init (Counts * c)
{
  memset (c, 0, sizeof *c);
  c->first_rt = c->last_rt = RTF_INDEX_NONE;
}

/* The records of one recording file (first..last: its frames taken) */
static void
count_file (const gchar * path, guint64 first, guint64 last, Counts * c)
{
  GError *error = NULL;
  RtfRecording *rec = rtf_recording_open (path, 0, FALSE, &error);
  guint i;
  guint64 r;

  c->files++;
  if (rec == NULL || rec->n_files == 0 || rec->files[0].state != RTF_FILE_OK) {
    if (c->problem == NULL)
      c->problem = g_strdup_printf ("%s: %s", path, error ? error->message :
          rec && rec->n_files ? rec->files[0].why : "not read");
    g_clear_error (&error);
    rtf_recording_free (rec);
    return;
  }
  for (i = 0; i < rec->n_files; i++) {
    const RtfIndex *idx = rec->files[i].index;

    for (r = 0; idx && r < idx->n_records; r++) {
      const RtfIndexRecord *x = &idx->records[r];

      if (x->seq < first || x->seq > last)
        continue;
      c->frames++;
      c->bytes += x->size;
      c->missed += !!(x->flags & RTF_INDEX_REC_MISSED);
      c->prerecorded += !!(x->flags & RTF_INDEX_REC_PRERECORDED);
      if (x->flags & RTF_INDEX_REC_GAP) {
        c->gaps++;
        c->lost_upstream += x->gap_missing;
      }
      if (x->running_time != RTF_INDEX_NONE) {
        if (c->first_rt == RTF_INDEX_NONE || x->running_time < c->first_rt)
          c->first_rt = x->running_time;
        if (c->last_rt == RTF_INDEX_NONE || x->running_time > c->last_rt)
          c->last_rt = x->running_time;
      }
    }
  }
  rtf_recording_free (rec);
}

/* A text from a manifest (a label, a note: anyone's) for a terminal: its
 * control characters as \xHH, never sent as they are */
static gchar *
printable (const gchar * text)
{
  GString *s = g_string_new (NULL);
  const gchar *p;

  for (p = text ? text : ""; *p; p++) {
    if ((guchar) * p < 0x20 || *p == 0x7f)
      g_string_append_printf (s, "\\x%02x", (guchar) * p);
    else
      g_string_append_c (s, *p);
  }
  return g_string_free (s, FALSE);
}

static gdouble
seconds (guint64 a, guint64 b)
{
  return a == RTF_INDEX_NONE || b == RTF_INDEX_NONE || b < a ? 0 :
      (b - a) / 1e9;
}

static void
json_counts (JsonOut * j, const Counts * c)
{
  json_out_u64 (j, "frames", c->frames);
  json_out_u64 (j, "files", c->files);
  json_out_u64 (j, "bytes", c->bytes);
  json_out_u64 (j, "gaps", c->gaps);
  json_out_u64 (j, "frames-lost-upstream", c->lost_upstream);
  json_out_u64 (j, "deadlines-missed", c->missed);
  json_out_u64 (j, "prerecorded", c->prerecorded);
  if (c->first_rt != RTF_INDEX_NONE) {
    json_out_u64 (j, "first-running-time", c->first_rt);
    json_out_u64 (j, "last-running-time", c->last_rt);
  }
  json_out_string (j, "problem", c->problem);
}

static void
print_counts (const gchar * what, const Counts * c, guint64 want)
{
  g_print ("  %-14s %8" G_GUINT64_FORMAT " %5u %10.1f %9.3f %6"
      G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT "%s%s\n",
      what, c->frames, c->files, c->bytes / 1e6, seconds (c->first_rt,
          c->last_rt), c->gaps, c->missed, c->prerecorded,
      want != RTF_TAKE_NONE && c->frames < want ? "  FEWER than its manifest "
      "says" : "", c->problem ? "  (a file not read)" : "");
}

/* ---- a take ---------------------------------------------------------- */

/* One take's manifest, its cameras counted; FALSE: a part short or
 * unread */
static gboolean
info_take (const gchar * path, const RtfTakeManifest * m, JsonOut * j)
{
  gboolean ok = TRUE;
  guint i, f;

  if (j) {
    json_out_begin_object (j, NULL);
    json_out_string (j, "manifest", path);
    json_out_string (j, "id", m->id);
    json_out_string (j, "kind", m->kind);
    json_out_string (j, "utc", m->utc);
    json_out_string (j, "label", m->label);
    if (m->running_time != RTF_TAKE_NONE)
      json_out_u64 (j, "running-time", m->running_time);
    if (m->stop_running_time != RTF_TAKE_NONE)
      json_out_u64 (j, "stop-running-time", m->stop_running_time);
    json_out_string (j, "state", m->complete ? "complete" : "recording");
    json_out_begin_array (j, "notes");
    for (i = 0; m->notes[i]; i++)
      json_out_string (j, NULL, m->notes[i]);
    json_out_end_array (j);
    json_out_begin_array (j, "cameras");
  } else {
    gchar *label = printable (m->label), *utc = printable (m->utc);

    g_print ("%s %s  %s%s%s%s\n", m->kind, m->id, utc, m->label ? "  \"" :
        "", label, m->label ? "\"" : "");
    g_free (label);
    g_free (utc);
    if (m->stop_running_time != RTF_TAKE_NONE)
      g_print ("  running time %.3f s to %.3f s (%.3f s)", m->running_time /
          1e9, m->stop_running_time / 1e9, seconds (m->running_time,
              m->stop_running_time));
    else if (m->running_time != RTF_TAKE_NONE)
      g_print ("  running time from %.3f s, no stop", m->running_time / 1e9);
    g_print ("%s\n", m->complete ? "" : "  (still recording, or its "
        "recorder died)");
    for (i = 0; m->notes[i]; i++) {
      gchar *note = printable (m->notes[i]);

      g_print ("  note: %s\n", note);
      g_free (note);
    }
    g_print ("  %-14s %8s %5s %10s %9s %6s %7s %7s\n", "camera", "frames",
        "files", "MB", "seconds", "gaps", "missed", "held");
  }
  for (i = 0; i < m->cameras->len; i++) {
    const RtfTakeCamera *c = g_ptr_array_index (m->cameras, i);
    Counts n;

    counts_init (&n);
    for (f = 0; c->files[f]; f++) {
      gchar *file = rtf_take_manifest_file_path (path, c->files[f]);

      count_file (file, c->first_frame == RTF_TAKE_NONE ? 0 : c->first_frame,
          c->last_frame == RTF_TAKE_NONE ? G_MAXUINT64 : c->last_frame, &n);
      g_free (file);
    }
    ok &= n.problem == NULL && (!c->stopped || n.frames >= c->frames);
    if (j) {
      json_out_begin_object (j, NULL);
      json_out_string (j, "name", c->name);
      json_out_u64 (j, "frames-told", c->frames);
      json_counts (j, &n);
      json_out_end_object (j);
    } else {
      print_counts (c->name, &n, c->stopped ? c->frames : RTF_TAKE_NONE);
    }
    g_free (n.problem);
  }
  if (j) {
    json_out_end_array (j);
    json_out_end_object (j);
  }
  return ok;
}

/* ---- a directory --------------------------------------------------------- */

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar **) a, *(const gchar **) b);
}

/* The recordings' data files of dir no manifest names (sets by their
 * first file), each counted */
static void
others (const gchar * dir, GHashTable * named, JsonOut * j)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const gchar *name;
  guint i, shown = 0;

  while (d && (name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);
    gchar *ipath = rtf_index_path (path);

    if (name[0] != '.' && !g_hash_table_contains (named, path)
        && g_file_test (ipath, G_FILE_TEST_IS_REGULAR)
        && !g_str_has_suffix (name, ".idx"))
      g_ptr_array_add (names, g_strdup (path));
    g_free (ipath);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  g_ptr_array_sort (names, by_name);
  if (j)
    json_out_begin_array (j, "other-files");
  for (i = 0; i < names->len; i++) {
    Counts n;

    counts_init (&n);
    count_file (g_ptr_array_index (names, i), 0, G_MAXUINT64, &n);
    if (j) {
      json_out_begin_object (j, NULL);
      json_out_string (j, "file", g_ptr_array_index (names, i));
      json_counts (j, &n);
      json_out_end_object (j);
    } else {
      gchar *base = g_path_get_basename (g_ptr_array_index (names, i));
      gchar *name_shown = printable (base);

      if (shown++ == 0)
        g_print ("files no event or take names:\n  %-40s %8s %10s %9s\n",
            "file", "frames", "MB", "seconds");
      g_print ("  %-40s %8" G_GUINT64_FORMAT " %10.1f %9.3f%s\n",
          name_shown, n.frames, n.bytes / 1e6, seconds (n.first_rt,
              n.last_rt), n.problem ? "  (not read)" : "");
      g_free (name_shown);
      g_free (base);
    }
    g_free (n.problem);
  }
  if (j)
    json_out_end_array (j);
  g_ptr_array_unref (names);
}

static gint
info_dir (const gchar * dir, JsonOut * j)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  GHashTable *named = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL);
  const gchar *name;
  gboolean ok = TRUE;
  guint i, f, c;

  if (d == NULL) {
    g_printerr ("rtframe-info: %s: cannot be read\n", dir);
    return 2;
  }
  while ((name = g_dir_read_name (d)))
    if (name[0] != '.' && rtf_take_manifest_is_path (name))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  g_dir_close (d);
  g_ptr_array_sort (paths, by_name);
  if (j) {
    json_out_string (j, "directory", dir);
    json_out_begin_array (j, "takes");
  }
  for (i = 0; i < paths->len; i++) {
    const gchar *path = g_ptr_array_index (paths, i);
    GError *error = NULL;
    RtfTakeManifest *m = rtf_take_manifest_load (path, &error);

    if (m == NULL) {
      g_printerr ("rtframe-info: %s\n", error->message);
      if (j) {
        json_out_begin_object (j, NULL);
        json_out_string (j, "manifest", path);
        json_out_string (j, "error", error->message);
        json_out_end_object (j);
      }
      g_error_free (error);
      ok = FALSE;
      continue;
    }
    ok &= info_take (path, m, j);
    for (c = 0; c < m->cameras->len; c++) {
      const RtfTakeCamera *cam = g_ptr_array_index (m->cameras, c);

      for (f = 0; cam->files[f]; f++)
        g_hash_table_add (named, rtf_take_manifest_file_path (path,
                cam->files[f]));
    }
    rtf_take_manifest_free (m);
    if (!j)
      g_print ("\n");
  }
  if (j)
    json_out_end_array (j);
  others (dir, named, j);
  g_hash_table_unref (named);
  g_ptr_array_unref (paths);
  return ok ? 0 : 1;
}

/* A recording given by its file or pattern */
static gint
info_recording (const gchar * location, JsonOut * j)
{
  GError *error = NULL;
  RtfRecording *rec = rtf_recording_open (location, 0, FALSE, &error);
  Counts n;
  guint i;

  if (rec == NULL) {
    g_printerr ("rtframe-info: %s\n", error->message);
    g_error_free (error);
    return 2;
  }
  counts_init (&n);
  for (i = 0; i < rec->n_files; i++)
    count_file (rec->files[i].path, 0, G_MAXUINT64, &n);
  if (j) {
    json_out_string (j, "recording", location);
    json_counts (j, &n);
  } else {
    g_print ("%s\n  %-14s %8s %5s %10s %9s %6s %7s %7s\n", location, "",
        "frames", "files", "MB", "seconds", "gaps", "missed", "held");
    print_counts ("", &n, RTF_TAKE_NONE);
  }
  i = n.problem != NULL;
  g_free (n.problem);
  rtf_recording_free (rec);
  return i ? 1 : 0;
}

int
main (int argc, char **argv)
{
  gboolean json = FALSE, version = FALSE;
  GOptionEntry entries[] = {
    {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL},
    {"version", 0, 0, G_OPTION_ARG_NONE, &version,
        "Print the version and exit", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("DIR | TAKE.rtftake | "
      "RECORDING - the events, takes and recordings there");
  GError *error = NULL;
  JsonOut out, *j = NULL;
  gint status;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "Exit status: 0 everything named "
      "was read and holds what its manifest says; 1 a camera's part holds "
      "fewer frames than told, or a file cannot be read; 2 nothing could "
      "be read.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("rtframe-info: %s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (version) {
    rtf_print_version ("rtframe-info");
    return 0;
  }
  if (argc != 2) {
    g_printerr ("rtframe-info: one DIR, TAKE.rtftake or RECORDING\n");
    return 2;
  }
  if (json) {
    json_out_init (&out);
    j = &out;
    json_out_begin_object (j, NULL);
  }
  if (g_file_test (argv[1], G_FILE_TEST_IS_DIR)) {
    status = info_dir (argv[1], j);
  } else if (rtf_take_manifest_is_path (argv[1])) {
    RtfTakeManifest *m = rtf_take_manifest_load (argv[1], &error);

    if (m == NULL) {
      g_printerr ("rtframe-info: %s\n", error->message);
      if (j) {
        gchar *text;

        json_out_string (j, "manifest", argv[1]);
        json_out_string (j, "error", error->message);
        json_out_end_object (j);
        text = json_out_finish (j);
        g_print ("%s\n", text);
        g_free (text);
      }
      g_error_free (error);
      return 2;
    }
    if (j)
      json_out_begin_array (j, "takes");
    status = info_take (argv[1], m, j) ? 0 : 1;
    if (j)
      json_out_end_array (j);
    rtf_take_manifest_free (m);
  } else {
    status = info_recording (argv[1], j);
  }
  if (j) {
    gchar *text;

    json_out_end_object (j);
    text = json_out_finish (j);
    g_print ("%s\n", text);
    g_free (text);
  }
  return status;
}
