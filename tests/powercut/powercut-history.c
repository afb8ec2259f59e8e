/* The power-cut test's history (powercut-history.h) */
#include "powercut-history.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

gint
pc_history_open (const gchar * path)
{
  return open (path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
}

gboolean
pc_history_printf (gint fd, const gchar * fmt, ...)
{
  va_list args;
  gchar *line;
  gssize n;
  gboolean ok;

  va_start (args, fmt);
  line = g_strdup_vprintf (fmt, args);
  va_end (args);
  n = strlen (line);
  line = g_realloc (line, n + 2);
  line[n] = '\n';
  do {
    ok = write (fd, line, n + 1) == n + 1;
  } while (!ok && errno == EINTR);
  g_free (line);
  return ok;
}

/* "mark ID S:L:N S:L:N ..." */
static gboolean
parse_mark (PcHistory * h, const gchar * line)
{
  gchar **f = g_strsplit (line, " ", -1);
  PcMark m = { 0 };
  gboolean ok = f[1] != NULL;
  guint i;

  if (ok)
    m.id = (guint) g_ascii_strtoull (f[1], NULL, 10);
  for (i = 2; ok && f[i]; i++) {
    guint s, l;
    guint64 n;

    ok = sscanf (f[i], "%u:%u:%" G_GUINT64_FORMAT, &s, &l, &n) == 3
        && s < PC_MAX_SINKS && l < PC_MAX_LOCATIONS;
    if (ok)
      m.durable[s][l] = n;
  }
  g_strfreev (f);
  if (ok)
    g_array_append_val (h->marks, m);
  return ok;
}

static gboolean
parse_line (PcHistory * h, const gchar * line)
{
  const PcScenario *sc = h->sc;
  guint64 frame, pts, file;
  guint sink, loc;
  gint n;

  if (g_str_has_prefix (line, "scenario ")) {
    g_free (h->scenario);
    h->scenario = g_strdup (line + 9);
    h->sc = pc_scenario_find (h->scenario);
  } else if (sc == NULL) {
    return FALSE;               /* (the scenario comes first) */
  } else if (sscanf (line, "device %" G_GUINT64_FORMAT, &h->sectors) == 1) {
  } else if (g_str_has_prefix (line, "root ")) {
    g_free (h->root);
    h->root = g_strdup (line + 5);
  } else if (sscanf (line, "w %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
          " %" G_GUINT64_FORMAT " %u", &sink, &frame, &pts, &file, &loc) == 5) {
    PcWritten w = { frame, G_MAXUINT64, file, loc };

    if (sink >= sc->n_sinks || loc >= PC_MAX_LOCATIONS)
      return FALSE;
    if (pts % sc->sinks[sink].duration_ns == 0)
      w.k = pts / sc->sinks[sink].duration_ns;
    g_array_append_val (h->written[sink], w);
  } else if (g_str_has_prefix (line, "mark ")) {
    return parse_mark (h, line);
  } else if (sscanf (line, "msg %u %n", &sink, &n) == 1) {
    GstStructure *s = gst_structure_from_string (line + n, NULL);

    if (sink >= sc->n_sinks || s == NULL) {
      if (s)
        gst_structure_free (s);
      return FALSE;
    }
    g_ptr_array_add (h->messages[sink], s);
    g_array_append_val (h->message_marks[sink], h->marks->len);
  } else if (g_str_has_prefix (line, "error ")) {
    g_ptr_array_add (h->errors, g_strcompress (line + 6));
  } else if (g_str_has_prefix (line, "warning ")) {
    g_ptr_array_add (h->warnings, g_strcompress (line + 8));
  } else if (g_str_equal (line, "eos")) {
    h->eos = TRUE;
  } else if (g_str_equal (line, "end")) {
    h->end = TRUE;
  } else if (!g_str_has_prefix (line, "# ")) {
    return FALSE;
  }
  return TRUE;
}

PcHistory *
pc_history_read (const gchar * path, GError ** error)
{
  PcHistory *h;
  gchar *text = NULL, **lines;
  guint i;

  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  h = g_new0 (PcHistory, 1);
  for (i = 0; i < PC_MAX_SINKS; i++) {
    h->written[i] = g_array_new (FALSE, FALSE, sizeof (PcWritten));
    h->messages[i] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_structure_free);
    h->message_marks[i] = g_array_new (FALSE, FALSE, sizeof (guint));
  }
  h->marks = g_array_new (FALSE, FALSE, sizeof (PcMark));
  h->errors = g_ptr_array_new_with_free_func (g_free);
  h->warnings = g_ptr_array_new_with_free_func (g_free);
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++)
    if (*lines[i] && !parse_line (h, lines[i]))
      h->bad_lines++;
  g_strfreev (lines);
  g_free (text);
  if (h->sc == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no scenario "
        "this program knows (%s)", path, h->scenario ? h->scenario : "none");
    pc_history_free (h);
    return NULL;
  }
  return h;
}

void
pc_history_free (PcHistory * h)
{
  guint i;

  if (h == NULL)
    return;
  for (i = 0; i < PC_MAX_SINKS; i++) {
    g_array_unref (h->written[i]);
    g_ptr_array_unref (h->messages[i]);
    g_array_unref (h->message_marks[i]);
  }
  g_array_unref (h->marks);
  g_ptr_array_unref (h->errors);
  g_ptr_array_unref (h->warnings);
  g_free (h->scenario);
  g_free (h->root);
  g_free (h);
}

const PcMark *
pc_history_mark (const PcHistory * h, guint id)
{
  guint i;

  for (i = 0; i < h->marks->len; i++)
    if (g_array_index (h->marks, PcMark, i).id == id)
      return &g_array_index (h->marks, PcMark, i);
  return NULL;
}

GArray *
pc_history_written_at (const PcHistory * h, guint sink, guint loc)
{
  GArray *at = g_array_new (FALSE, FALSE, sizeof (PcWritten));
  guint i;

  for (i = 0; i < h->written[sink]->len; i++) {
    const PcWritten *w = &g_array_index (h->written[sink], PcWritten, i);

    if (w->loc == loc)
      g_array_append_val (at, *w);
  }
  return at;
}

gboolean
pc_history_told_before (const PcHistory * h, guint sink, guint i,
    const PcMark * m)
{
  guint at;

  if (m == NULL || i >= h->message_marks[sink]->len)
    return FALSE;
  /* (m is one of h->marks: its place there) */
  at = (guint) (m - &g_array_index (h->marks, PcMark, 0));
  return g_array_index (h->message_marks[sink], guint, i) <= at;
}
