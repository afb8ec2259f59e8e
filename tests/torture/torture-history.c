/* The torture test's history (torture-history.h): written by the child one
 * write(2) a line, read back by the checker. */
#include "torture-history.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

gint
torture_history_open (const gchar * path)
{
  return open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

gboolean
torture_history_printf (gint fd, const gchar * fmt, ...)
{
  gchar small[256], *line = small;
  va_list args;
  gint n;
  gboolean ok;

  /* no allocation for the short lines (every frame's) */
  va_start (args, fmt);
  n = g_vsnprintf (small, sizeof (small) - 1, fmt, args);
  va_end (args);
  if (n < 0)
    return FALSE;
  if ((gsize) n >= sizeof (small) - 1) {
    va_start (args, fmt);
    line = g_strdup_vprintf (fmt, args);
    va_end (args);
    n = strlen (line);
    line = g_realloc (line, n + 2);
  }
  line[n] = '\n';
  do {
    ok = write (fd, line, n + 1) == n + 1;
  } while (!ok && errno == EINTR);
  if (line != small)
    g_free (line);
  return ok;
}

static TortureError *
parse_error (const gchar * rest)
{
  gchar **f = g_strsplit (rest, "\t", 4);
  TortureError *e = g_new0 (TortureError, 1);
  GEnumClass *klass = NULL;
  GEnumValue *v;

  e->domain = g_strdup (f[0] ? f[0] : "?");
  e->code = f[0] && f[1] ? atoi (f[1]) : -1;
  e->text = f[0] && f[1] && f[2] ? g_strcompress (f[2]) : g_strdup ("");
  e->debug = f[0] && f[1] && f[2] && f[3] ? g_strcompress (f[3]) :
      g_strdup ("");
  if (g_str_equal (e->domain, "RESOURCE"))
    klass = g_type_class_ref (GST_TYPE_RESOURCE_ERROR);
  else if (g_str_equal (e->domain, "STREAM"))
    klass = g_type_class_ref (GST_TYPE_STREAM_ERROR);
  else if (g_str_equal (e->domain, "CORE"))
    klass = g_type_class_ref (GST_TYPE_CORE_ERROR);
  v = klass ? g_enum_get_value (klass, e->code) : NULL;
  e->code_name = v ? g_ascii_strup (v->value_nick, -1) :
      g_strdup_printf ("%d", e->code);
  if (e->code_name)
    g_strdelimit (e->code_name, "-", '_');
  if (klass)
    g_type_class_unref (klass);
  g_strfreev (f);
  return e;
}

static void
error_free (gpointer data)
{
  TortureError *e = data;

  g_free (e->domain);
  g_free (e->code_name);
  g_free (e->text);
  g_free (e->debug);
  g_free (e);
}

gchar *
torture_error_string (const TortureError * e)
{
  return g_strdup_printf ("%s/%s: %s", e->domain, e->code_name, e->text);
}

static void
act_clear (gpointer data)
{
  g_free (((TortureAct *) data)->what);
}

static void
session_init (TortureSession * s)
{
  s->first_k = G_MAXUINT64;
  s->first_error_line = G_MAXUINT;
  s->in = g_array_new (FALSE, FALSE, sizeof (TortureIn));
  s->dropped = g_array_new (FALSE, FALSE, sizeof (guint64));
  s->acts = g_array_new (FALSE, FALSE, sizeof (TortureAct));
  g_array_set_clear_func (s->acts, act_clear);
  s->mids = g_array_new (FALSE, FALSE, sizeof (guint));
  s->written = g_array_new (FALSE, FALSE, sizeof (TortureWritten));
  s->errors = g_ptr_array_new_with_free_func (error_free);
  s->warnings = g_ptr_array_new_with_free_func (error_free);
  s->messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
}

static guint64
stamp_of (guint64 pts, guint64 duration_ns)
{
  return pts % duration_ns == 0 ? pts / duration_ns : G_MAXUINT64;
}

/* "act-begin MS WHAT RT": a new action */
static gboolean
parse_act_begin (TortureSession * s, const gchar * line, guint at)
{
  gchar what[32];
  guint64 rt;
  gint playing = 0;
  TortureAct a = { 0 };

  if (sscanf (line, "act-begin %*u %31s %" G_GUINT64_FORMAT " %d", what, &rt,
          &playing) < 2)
    return FALSE;
  a.what = g_strdup (what);
  a.rt_before = rt;
  a.playing = playing == 1;
  a.rt_after = a.at = G_MAXUINT64;
  a.line_begin = at;
  a.line_end = G_MAXUINT;       /* until its end line (a kill may cut it) */
  g_array_append_val (s->acts, a);
  return TRUE;
}

/* "act MS WHAT RESULT RT AT": the action begun last returned (an older
 * history's "act MS WHAT RESULT" has no begin: taken as it is) */
static gboolean
parse_act_end (TortureSession * s, const gchar * line, guint at)
{
  gchar what[32], result[8];
  guint64 rt = G_MAXUINT64, asked = G_MAXUINT64;
  gint playing = 0;
  TortureAct *a;

  if (sscanf (line, "act %*u %31s %7s %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT " %d", what, result, &rt, &asked, &playing) < 2)
    return FALSE;
  if (g_str_equal (what, "split-at-running-time"))
    return TRUE;                /* a split, not a recording's */
  if (s->acts->len == 0 || (a = &g_array_index (s->acts, TortureAct,
              s->acts->len - 1))->line_end != G_MAXUINT
      || !g_str_equal (a->what, what)) {
    TortureAct fresh = { g_strdup (what), FALSE, G_MAXUINT64, G_MAXUINT64,
      G_MAXUINT64, at, G_MAXUINT
    };
    g_array_append_val (s->acts, fresh);
    a = &g_array_index (s->acts, TortureAct, s->acts->len - 1);
  }
  a->ok = g_str_equal (result, "ok");
  a->rt_after = rt;
  a->at = asked;
  a->playing = a->playing && playing == 1;
  a->line_end = at;
  return TRUE;
}

static gboolean
parse_line (TortureHistory * h, guint * cur, const gchar * line,
    guint64 duration_ns, guint at)
{
  TortureSession *s = &h->s[*cur];
  guint64 a, b, c, d;
  guint sess, e;
  gint n;

  if (sscanf (line, "session %u", &sess) == 1 && sess < 2) {
    *cur = sess;
    h->s[sess].seen = TRUE;
  } else if (sscanf (line, "push %" G_GUINT64_FORMAT, &a) == 1) {
    s->first_k = MIN (s->first_k, a);
    s->last_k = s->pushed ? MAX (s->last_k, a) : a;
    s->pushed++;
  } else if (sscanf (line, "in %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
          &a, &b) == 2) {
    TortureIn in = { stamp_of (a, duration_ns), b, at };

    g_array_append_val (s->in, in);
  } else if (sscanf (line, "q %" G_GUINT64_FORMAT, &a) == 1) {
    a = stamp_of (a, duration_ns);
    g_array_append_val (s->dropped, a);
  } else if (sscanf (line, "free %" G_GUINT64_FORMAT, &a) == 1) {
    if (s->messages->len == 0)
      return FALSE;
    gst_structure_set (g_ptr_array_index (s->messages, s->messages->len - 1),
        "torture-free-after", G_TYPE_UINT64, a, NULL);
  } else if (g_str_has_prefix (line, "act-begin ")) {
    return parse_act_begin (s, line, at);
  } else if (g_str_has_prefix (line, "act ")) {
    return parse_act_end (s, line, at);
  } else if (g_str_has_prefix (line, "mid ")) {
    g_array_append_val (s->mids, at);
  } else if ((n = sscanf (line, "w %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
              " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %u", &a, &b, &c,
              &d, &e)) >= 3) {
    TortureWritten w = { a, b / duration_ns, c, n == 5 ? d : 0,
      n == 5 ? e : 0, n == 5
    };

    if (b % duration_ns != 0)
      w.k = G_MAXUINT64;        /* a pts no frame had */
    g_array_append_val (s->written, w);
  } else if (g_str_has_prefix (line, "msg ")) {
    GstStructure *st = gst_structure_from_string (line + 4, NULL);

    if (st == NULL)
      return FALSE;
    /* (where it came: what the frames had reached by then) */
    gst_structure_set (st, "torture-line", G_TYPE_UINT, at, NULL);
    g_ptr_array_add (s->messages, st);
  } else if (g_str_has_prefix (line, "error\t")) {
    g_ptr_array_add (s->errors, parse_error (line + 6));
    s->first_error_line = MIN (s->first_error_line, at);
  } else if (g_str_has_prefix (line, "warning\t")) {
    g_ptr_array_add (s->warnings, parse_error (line + 8));
  } else if (g_str_equal (line, "eos")) {
    s->eos = TRUE;
  } else if (sscanf (line, "final %u", &sess) == 1 && sess < 2) {
    const gchar *st = strchr (line + 6, ' ');

    if (st && h->s[sess].final == NULL)
      h->s[sess].final = gst_structure_from_string (st + 1, NULL);
  } else if (g_str_has_prefix (line, "end ")) {
    g_free (h->end);
    h->end = g_strdup (line + 4);
  } else if (g_str_has_prefix (line, "fault ")) {
    if (strstr (line, " kill"))
      h->killed_self = TRUE;
    if (strstr (line, " mvdir ") && strstr (line, " ok"))
      h->moved_dir = TRUE;
    /* files are gone even when the directory could not be removed */
    if (strstr (line, " rmdir "))
      h->removed_dir = TRUE;
  } else if (!g_str_has_prefix (line, "# ")) {
    return FALSE;
  }
  return TRUE;
}

TortureHistory *
torture_history_read (const gchar * path, guint64 duration_ns)
{
  TortureHistory *h = g_new0 (TortureHistory, 1);
  gchar *text = NULL, **lines;
  guint i, cur = 0;
  gsize len = 0;

  session_init (&h->s[0]);
  session_init (&h->s[1]);
  h->lines = g_ptr_array_new_with_free_func (g_free);
  if (!g_file_get_contents (path, &text, &len, NULL))
    return h;
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    /* a SIGKILL cannot cut a line: each is one write(2) */
    if (!*lines[i]) {
      g_free (lines[i]);
      continue;
    }
    if (!parse_line (h, &cur, lines[i], duration_ns, h->lines->len))
      h->bad_lines++;
    g_ptr_array_add (h->lines, lines[i]);
  }
  g_free (lines);               /* the strings are in h->lines */
  g_free (text);
  return h;
}

void
torture_history_free (TortureHistory * h)
{
  guint i;

  if (h == NULL)
    return;
  for (i = 0; i < 2; i++) {
    g_array_unref (h->s[i].in);
    g_array_unref (h->s[i].dropped);
    g_array_unref (h->s[i].acts);
    g_array_unref (h->s[i].mids);
    g_array_unref (h->s[i].written);
    g_ptr_array_unref (h->s[i].errors);
    g_ptr_array_unref (h->s[i].warnings);
    g_ptr_array_unref (h->s[i].messages);
    if (h->s[i].final)
      gst_structure_free (h->s[i].final);
  }
  g_ptr_array_unref (h->lines);
  g_free (h->end);
  g_free (h);
}

static gboolean
per_frame (const gchar * l)
{
  return g_str_has_prefix (l, "push ") || g_str_has_prefix (l, "w ")
      || g_str_has_prefix (l, "in ") || g_str_has_prefix (l, "q ")
      || g_str_has_prefix (l, "msg rtframesink-stats,")
      || g_str_has_prefix (l, "msg rtframesink-disk-space,");
}

gchar *
torture_history_tail (const TortureHistory * h, guint n)
{
  GString *s = g_string_new (NULL);
  guint i, entries = 0, from;

  /* back from the end, a run of per-frame lines counting as one entry */
  for (from = h->lines->len; from > 0 && entries < n; entries++) {
    from--;
    while (from > 0 && per_frame (g_ptr_array_index (h->lines, from))
        && per_frame (g_ptr_array_index (h->lines, from - 1)))
      from--;
  }
  for (i = from; i < h->lines->len; i++) {
    const gchar *l = g_ptr_array_index (h->lines, i);
    guint run = i;

    while (per_frame (l) && run + 1 < h->lines->len
        && per_frame (g_ptr_array_index (h->lines, run + 1)))
      run++;
    if (run > i + 2) {
      g_string_append_printf (s, "    %s\n    ... %u lines of pushes and "
          "frames written ...\n    %s\n", l, run - i - 1,
          (const gchar *) g_ptr_array_index (h->lines, run));
      i = run;
      continue;
    }
    g_string_append_printf (s, "    %.300s\n", l);
  }
  return g_string_free (s, FALSE);
}
