/* rtframe: reading a recording back through its indexes. */
#include "rtf-recording.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static gint
rtf_compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* The numbers of the files that exist for pattern, sorted. */
static GArray *
list_numbers (const gchar * pattern, GError ** error)
{
  gchar *dir = g_path_get_dirname (pattern);
  GArray *numbers = g_array_new (FALSE, FALSE, sizeof (guint64));
  GDir *d = g_dir_open (dir, 0, error);
  const gchar *name;

  if (d == NULL) {
    g_free (dir);
    g_array_unref (numbers);
    return NULL;
  }
  while ((name = g_dir_read_name (d)) != NULL) {
    const gchar *p = name;
    guint64 n = 0;
    gchar *want, *base;

    /* the file name holds the number somewhere: try every digit run */
    while (*p) {
      if (!g_ascii_isdigit (*p)) {
        p++;
        continue;
      }
      n = g_ascii_strtoull (p, (gchar **) & p, 10);
      want = rtf_pattern_format (pattern, n);
      base = g_path_get_basename (want);
      g_free (want);
      if (g_str_equal (base, name)) {
        g_array_append_val (numbers, n);
        g_free (base);
        break;
      }
      g_free (base);
    }
  }
  g_dir_close (d);
  g_free (dir);
  g_array_sort (numbers, (GCompareFunc) rtf_compare_u64);
  return numbers;
}

/* An empty file whose index is empty too: the writer opens the next file
 * of a set ahead of time, and a crash leaves it so. */
static gboolean
never_written (const gchar * path)
{
  gchar *index = rtf_index_path (path);
  struct stat st, ist;
  gboolean empty = stat (path, &st) == 0 && st.st_size == 0
      && (stat (index, &ist) < 0 || ist.st_size == 0);

  g_free (index);
  return empty;
}

static gboolean
add_file (RtfRecording * rec, GArray * files, const gchar * path,
    guint64 number, gboolean require_index, GError ** error)
{
  RtfRecordingFile f = { 0 };
  GError *err = NULL;
  struct stat st;

  if (stat (path, &st) < 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "%s: %s", path, g_strerror (errno));
    return FALSE;
  }
  f.path = g_strdup (path);
  f.index_path = rtf_index_path (path);
  f.number = number;
  f.data_size = st.st_size;
  f.index = rtf_index_load (f.index_path, &err);
  if (f.index == NULL) {
    f.index_error = g_strdup (err->message);
    if (require_index) {
      g_propagate_error (error, err);
      g_free (f.path);
      g_free (f.index_path);
      g_free (f.index_error);
      return FALSE;
    }
    g_clear_error (&err);
  }
  f.first_frame = rec->n_frames;
  if (f.index)
    rec->n_frames += f.index->n_records;
  g_array_append_val (files, f);
  return TRUE;
}

RtfRecording *
rtf_recording_open (const gchar * location, guint64 start_index,
    gboolean require_index, GError ** error)
{
  RtfRecording *rec = g_new0 (RtfRecording, 1);
  GArray *files = g_array_new (FALSE, TRUE, sizeof (RtfRecordingFile));
  gchar *why = NULL;
  gboolean ok = TRUE;

  switch (rtf_pattern_check (location, &why)) {
    case RTF_PATTERN_NONE:
      ok = add_file (rec, files, location, 0, require_index, error);
      break;
    case RTF_PATTERN_INVALID:
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, why);
      g_free (why);
      ok = FALSE;
      break;
    case RTF_PATTERN_OK:{
      GArray *numbers = list_numbers (location, error);
      guint i;
      gboolean started = FALSE;
      guint64 last = 0;

      if (numbers == NULL) {
        ok = FALSE;
        break;
      }
      for (i = 0; i < numbers->len && ok; i++) {
        guint64 n = g_array_index (numbers, guint64, i);
        gchar *path;

        if (n < start_index || (started && n == last))
          continue;
        if (started && n != last + 1)
          break;                /* a gap: the set ends */
        path = rtf_pattern_format (location, n);
        if (never_written (path)) {
          g_free (path);        /* opened ahead for a split that never came */
          if (started)
            break;
          continue;
        }
        ok = add_file (rec, files, path, n, require_index, error);
        g_free (path);
        started = TRUE;
        last = n;
      }
      if (ok && !started) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
            "no file named by \"%s\" (from number %" G_GUINT64_FORMAT ")",
            location, start_index);
        ok = FALSE;
      }
      g_array_unref (numbers);
      break;
    }
  }
  rec->n_files = files->len;
  rec->files = (RtfRecordingFile *) g_array_free (files, FALSE);
  if (!ok) {
    rtf_recording_free (rec);
    return NULL;
  }
  return rec;
}

void
rtf_recording_free (RtfRecording * rec)
{
  guint i;

  if (rec == NULL)
    return;
  for (i = 0; i < rec->n_files; i++) {
    g_free (rec->files[i].path);
    g_free (rec->files[i].index_path);
    g_free (rec->files[i].index_error);
    rtf_index_free (rec->files[i].index);
  }
  g_free (rec->files);
  g_free (rec);
}

const RtfIndexRecord *
rtf_recording_frame (RtfRecording * rec, guint64 n, guint * file)
{
  guint lo = 0, hi = rec->n_files;

  if (n >= rec->n_frames)
    return NULL;
  /* the last file whose first frame is <= n */
  while (hi - lo > 1) {
    guint mid = (lo + hi) / 2;

    if (rec->files[mid].first_frame <= n)
      lo = mid;
    else
      hi = mid;
  }
  while (rec->files[lo].index == NULL
      || n - rec->files[lo].first_frame >= rec->files[lo].index->n_records)
    lo++;
  if (file)
    *file = lo;
  return &rec->files[lo].index->records[n - rec->files[lo].first_frame];
}
