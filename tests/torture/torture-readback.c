/* The torture test's reading back (torture-readback.h) */
#include "torture-readback.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtf-pattern.h"
#include "rtf-spread-manifest.h"
#include "rtf-test-util.h"
#include "torture-spawn.h"

#define problem(rb, ...) g_string_append_printf ((rb)->problems, __VA_ARGS__)
#define note(rb, ...) g_string_append_printf ((rb)->notes, __VA_ARGS__)

static void
add_frame (TortureReadback * rb, guint64 k, guint64 frame, guint64 pts)
{
  TortureFrame f = { k, frame, pts, rb->targets };

  g_array_append_val (rb->frames, f);
}

static gboolean
says_sanitizer (const gchar * text)
{
  return text && (strstr (text, "runtime error:")
      || strstr (text, "AddressSanitizer") || strstr (text, "LeakSanitizer"));
}

/* ---- which recordings to read ------------------------------------------ */

static gboolean
is_manifest (const gchar * path)
{
  struct stat sb;
  gchar head[17] = { 0 };
  gint fd;
  gboolean ok = FALSE;

  if (lstat (path, &sb) != 0 || !S_ISREG (sb.st_mode))
    return FALSE;
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    ok = read (fd, head, 16) == 16 && strcmp (head, "[rtframe-spread]") == 0;
    close (fd);
  }
  return ok;
}

/* The locations to read: a spread's manifest (beside a location still
 * there), else each location left */
static GPtrArray *
targets_of (const TorturePlan * p, TortureWorld * w, guint session,
    guint removed)
{
  GPtrArray *t = g_ptr_array_new_with_free_func (g_free);
  guint i;

  if (p->index && p->use_locations) {
    for (i = 0; i < p->n_loc; i++) {
      gchar *loc = torture_world_location (p, w, i, session);
      gchar *man = rtf_spread_manifest_path (loc);

      g_free (loc);
      if (!(removed & (1u << i)) && is_manifest (man)) {
        g_ptr_array_add (t, man);
        return t;
      }
      g_free (man);
    }
  }
  for (i = 0; i < p->n_loc; i++)
    if (!(removed & (1u << i)))
      g_ptr_array_add (t, torture_world_location (p, w, i, session));
  return t;
}

/* ---- through the index: tools and rtframesrc --------------------------- */

/* The paths a line of a tool names, canonical ("a/d/../../b" -> "b") */
static gboolean
names_one_of (const gchar * line, GPtrArray * paths)
{
  const gchar *at = line;

  while ((at = strchr (at, '/'))) {
    gsize n = strcspn (at, " :)\"'?,");
    gchar *tok = g_strndup (at, n), *canon = g_canonicalize_filename (tok, "/");
    guint i;
    gboolean found = FALSE;

    /* (a path ending in '/' is a directory: anything in it) */
    for (i = 0; i < paths->len && !found; i++) {
      const gchar *p = g_ptr_array_index (paths, i);

      found = g_str_equal (canon, p) || (g_str_has_suffix (p, "/")
          && g_str_has_prefix (canon, p));
    }
    g_free (canon);
    g_free (tok);
    if (found)
      return TRUE;
    at += n ? n : 1;
  }
  return FALSE;
}

/* What a tool complains of that the round does not explain: a foreign
 * file (not the recording's, and said so), frame numbers missing (drops,
 * a crash), a location whose directory the round removed.  NULL: all
 * explained. */
static gchar *
unexplained (const TorturePlan * p, TortureWorld * w, guint session,
    guint removed, guint left_empty, gboolean crashed, const gchar * out)
{
  GPtrArray *foreign = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *gone = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *empty = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *ramfs = g_ptr_array_new_with_free_func (g_free);
  GString *left = g_string_new (NULL);
  gchar **lines = g_strsplit (out, "\n", -1);
  guint i;

  for (i = 0; i < w->foreign->len; i++)
    g_ptr_array_add (foreign, g_canonicalize_filename (((TortureForeign *)
                g_ptr_array_index (w->foreign, i))->path, "/"));
  for (i = 0; i < p->n_loc; i++)
    if (p->loc[i].fs == TORTURE_FS_RAMFS)
      g_ptr_array_add (ramfs, g_strconcat (w->loc[i].dir, "/", NULL));
  for (i = 0; i < p->n_loc; i++)
    if (removed & (1u << i)) {
      gchar *l = torture_world_location (p, w, i, session);

      g_ptr_array_add (gone, g_canonicalize_filename (l, "/"));
      g_free (l);
    }
  for (i = 0; i < p->n_loc; i++)
    if (left_empty & (1u << i)) {
      gchar *l = torture_world_location (p, w, i, session);

      g_ptr_array_add (empty, g_canonicalize_filename (l, "/"));
      g_free (l);
    }
  for (i = 0; lines[i]; i++) {
    const gchar *l = lines[i];

    if (g_str_equal (l, "FAULTS FOUND"))
      continue;
    if (!strstr (l, "FAULT") && !strstr (l, "left as it is")
        && !strstr (l, "not identified") && !strstr (l, "refused")
        && !strstr (l, "not whole:") && !strstr (l, "not read:")
        && !strstr (l, "could not be read"))
      continue;
    if (strstr (l, "frame numbers missing from the sequence")
        || names_one_of (l, foreign) || names_one_of (l, gone))
      continue;
    /* ramfs keeps no mark: a file opened ahead that a kill caught before
     * its index was made cannot be proven the sink's (reliability.md) */
    if (strstr (l, "nothing shows rtframesink made it")
        && names_one_of (l, ramfs))
      continue;
    /* a file a crash left prepared, that recover cannot tie to a
     * recording with an id (its set holds no index of one): left, said */
    /* a location that left before its first frame holds no file; with
     * no EOS no manifest says so: the readers cannot tell it from a disk
     * that died, and say that */
    if (crashed && strstr (l, "no manifest holds the recording's final "
            "state") && names_one_of (l, empty))
      continue;
    /* the same for a file prepared ahead: a kill before its first frame
     * leaves it empty, its index without header, and unmarkable there */
    if (crashed && strstr (l, ".rtfprep: named like a file rtframesink "
            "prepares for a split, empty") && strstr (l, "its filesystem "
            "keeps no marks") && names_one_of (l, ramfs))
      continue;
    if (crashed && strstr (l, ".rtfprep: prepared for a split")
        && strstr (l, "left as it is"))
      continue;
    g_string_append_printf (left, "%s\n", l);
  }
  g_strfreev (lines);
  g_ptr_array_unref (foreign);
  g_ptr_array_unref (gone);
  g_ptr_array_unref (empty);
  g_ptr_array_unref (ramfs);
  if (left->len == 0) {
    g_string_free (left, TRUE);
    return NULL;
  }
  return g_string_free (left, FALSE);
}

static gboolean
no_recording_there (const gchar * out)
{
  return out && (strstr (out, "no file named") || strstr (out, "No such file")
      || strstr (out, "not found"));
}

typedef struct
{
  const TorturePlan *p;
  TortureWorld *w;
  guint session, removed, left_empty;
  TortureReadback *rb;
  gboolean crashed;             /* a kill or an error: tails are expected */
} Ctx;

/* exit 1 with only explained complaints is no fault */
static gboolean
explained (Ctx * x, gint code, const gchar * out)
{
  gchar *left;

  if (code != 1)
    return FALSE;
  left = unexplained (x->p, x->w, x->session, x->removed, x->left_empty,
      x->crashed, out);
  g_free (left);
  return left == NULL;
}

static void
run_recover (Ctx * x, const gchar * target, const gchar * start)
{
  TortureReadback *rb = x->rb;
  gchar *out = NULL;
  gint code = torture_tool ("rtframe-recover", &out, "--start-index", start,
      target, NULL);

  if (says_sanitizer (out) || code < 0 || (code != 0 && !explained (x, code,
              out) && !(code == 2 && no_recording_there (out))))
    problem (rb, "rtframe-recover %s: exit %d:\n%s\n", target, code, out);
  else
    note (rb, "rtframe-recover %s: exit %d\n", target, code);
  g_free (out);
}

/* rtframe-verify: its frame count (G_MAXUINT64: it could not say) */
static guint64
run_verify (Ctx * x, const gchar * target, const gchar * start)
{
  TortureReadback *rb = x->rb;
  gchar *out = NULL;
  gint code = torture_tool ("rtframe-verify", &out, "--allow-gaps",
      "--start-index", start, target, NULL);
  guint64 frames = G_MAXUINT64;
  const gchar *at;
  guint files;

  if (says_sanitizer (out) || code < 0 || (code == 1 && !explained (x, code,
              out)))
    problem (rb, "rtframe-verify %s: exit %d:\n%s\n", target, code, out);
  else if (code != 0)
    note (rb, "rtframe-verify %s: exit %d: %.300s\n", target, code, out);
  if (code == 1)                /* explained: counted all the same */
    code = 0;
  if (code == 0 && (at = strstr (out, "spread over ")))
    sscanf (at, "spread over %u locations: %" G_GUINT64_FORMAT, &files,
        &frames);
  else if (code == 0) {
    gchar **lines = g_strsplit (out, "\n", -1);
    guint i;

    for (i = 0; lines[i]; i++)
      if (sscanf (lines[i], "%u file%*[s], %" G_GUINT64_FORMAT " frames",
              &files, &frames) == 2
          || sscanf (lines[i], "%u file, %" G_GUINT64_FORMAT " frames",
              &files, &frames) == 2)
        break;
    g_strfreev (lines);
  }
  g_free (out);
  return frames;
}

/* rtframe-dump: the frame numbers it lists (NULL: it could not) */
static GHashTable *
run_dump (Ctx * x, const gchar * target, const gchar * start)
{
  TortureReadback *rb = x->rb;
  gchar *out = NULL, **lines;
  gint code = torture_tool ("rtframe-dump", &out, "--start-index", start,
      target, NULL);
  GHashTable *set;
  guint i;

  if (says_sanitizer (out) || code < 0 || (code == 1 && !explained (x, code,
              out))) {
    problem (rb, "rtframe-dump %s: exit %d:\n%.2000s\n", target, code, out);
    g_free (out);
    return NULL;
  }
  if (code != 0 && code != 1) {
    g_free (out);
    return NULL;
  }
  set = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  lines = g_strsplit (out, "\n", -1);
  for (i = 1; lines[i]; i++) {
    gint64 *n;

    if (!g_ascii_isdigit (lines[i][0]))
      continue;
    n = g_new (gint64, 1);
    *n = g_ascii_strtoll (lines[i], NULL, 10);
    g_hash_table_add (set, n);
  }
  g_strfreev (lines);
  g_free (out);
  return set;
}

/* rtframesrc in a child; appends its frames, returns how many */
static guint64
run_reader (const TorturePlan * p, TortureWorld * w, TortureReadback * rb,
    const gchar * target, const gchar * start, const gchar * self,
    GHashTable * dump)
{
  gchar *out_path = g_strdup_printf ("%s/read-%u.txt", w->round_dir,
      rb->targets);
  gchar *stream = g_strdup_printf ("%u", p->stream);
  gchar *size = g_strdup_printf ("%" G_GSIZE_FORMAT, p->frame_size);
  gchar *dur = g_strdup_printf ("%" G_GUINT64_FORMAT, p->duration_ns);
  gchar *argv[] = { (gchar *) self, (gchar *) "--read", (gchar *) target,
    (gchar *) start, stream, size, dur, out_path, NULL
  };
  gchar *text = NULL, **lines, *how;
  TortureRun run;
  guint64 n = 0, buffers = 0, k, frame, pts, last = 0;
  guint i, offsets_wrong = 0;

  torture_spawn (argv, 90000, NULL, NULL, &run);
  how = torture_run_describe (&run);
  if (!torture_run_exited (&run, 0) || torture_run_sanitizer (&run))
    problem (rb, "rtframesrc reader of %s: %s\n%.3000s%s%s\n", target, how,
        run.err, run.stacks ? "\nstacks:\n" : "", run.stacks ? run.stacks : "");
  g_file_get_contents (out_path, &text, NULL, NULL);
  lines = g_strsplit (text ? text : "", "\n", -1);
  for (i = 0; lines[i]; i++) {
    if (sscanf (lines[i], "f %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
            G_GUINT64_FORMAT, &k, &frame, &pts) == 3) {
      gint64 number = (gint64) frame;

      add_frame (rb, k, frame, pts);
      /* a buffer's offset is its frame's number in the recording, the one
       * rtframe-dump lists (one frame number everywhere, issue 26),
       * rising from buffer to buffer */
      if (((n > 0 && frame <= last) || (dump && !g_hash_table_contains (dump,
                      &number))) && offsets_wrong++ == 0)
        problem (rb, "rtframesrc %s: buffer %" G_GUINT64_FORMAT " has offset %"
            G_GUINT64_FORMAT " (the one before: %" G_GUINT64_FORMAT "), not "
            "a frame number rtframe-dump lists after it\n", target, buffers,
            frame, last);
      last = frame;
      n++;
      buffers++;
    } else if (g_str_has_prefix (lines[i], "bad ")) {
      problem (rb, "rtframesrc %s: buffer %s\n", target, lines[i] + 4);
      buffers++;
    } else if (g_str_has_prefix (lines[i], "error ")) {
      rb->reader_error = TRUE;
      note (rb, "rtframesrc %s: %s\n", target, lines[i]);
    }
  }
  if (dump && !rb->reader_error && g_hash_table_size (dump) != n)
    problem (rb, "readers disagree on %s: rtframesrc played %"
        G_GUINT64_FORMAT " frames, rtframe-dump lists %u frame numbers\n",
        target, n, g_hash_table_size (dump));
  g_strfreev (lines);
  g_free (text);
  g_free (how);
  torture_run_clear (&run);
  g_free (stream);
  g_free (size);
  g_free (dur);
  g_free (out_path);
  return n;
}

static void
read_indexed (Ctx * x, const gchar * target, TortureReadFlags flags,
    const gchar * self)
{
  const TorturePlan *p = x->p;
  TortureReadback *rb = x->rb;
  gchar *start = g_strdup_printf ("%u", p->pattern ? p->start_index : 0);
  guint64 verified, played;
  GHashTable *dump;

  if (flags & TORTURE_READ_RECOVER)
    run_recover (x, target, start);
  verified = run_verify (x, target, start);
  dump = run_dump (x, target, start);
  played = run_reader (p, x->w, rb, target, start, self, dump);
  if (dump) {
    GHashTableIter it;
    gpointer key;

    g_hash_table_iter_init (&it, dump);
    while (g_hash_table_iter_next (&it, &key, NULL))
      g_array_append_val (rb->dumped, *(guint64 *) key);
  }
  if (verified != G_MAXUINT64 && !rb->reader_error && verified != played)
    problem (rb, "readers disagree on %s: rtframe-verify counts %"
        G_GUINT64_FORMAT " frames, rtframesrc played %" G_GUINT64_FORMAT "\n",
        target, verified, played);
  if (dump)
    g_hash_table_unref (dump);
  g_free (start);
}

/* ---- byte by byte (index=false) ---------------------------------------- */

/* A frame that is neither whole nor garbage: each byte the stamped
 * frame's (guess) or zero, as a crash leaves one */
static gboolean
torn_frame (const guint8 * data, gsize len, guint8 * want, gsize frame_size,
    guint stream, guint64 guess)
{
  gsize i;

  rtf_test_fill_frame (want, frame_size, stream, guess);
  for (i = 0; i < len; i++)
    if (data[i] != want[i] && data[i] != 0)
      return FALSE;
  return TRUE;
}

static void
scan_file (const TorturePlan * p, TortureReadback * rb, const gchar * path,
    TortureReadFlags flags, guint64 * prev)
{
  gchar *data = NULL;
  gsize len = 0, off;
  guint8 *want = g_malloc (p->frame_size);

  if (!g_file_get_contents (path, &data, &len, NULL)) {
    note (rb, "%s: cannot be read\n", path);
    rb->reader_error = TRUE;
    g_free (want);
    return;
  }
  for (off = 0; off < len; off += p->frame_size) {
    const guint8 *f = (const guint8 *) data + off;
    gsize n = MIN (p->frame_size, len - off);
    guint s = 0;
    guint64 k = 0;
    gboolean stamped = n >= 24 && sscanf ((const gchar *) f, "S%02uF%019"
        G_GUINT64_FORMAT, &s, &k) == 2 && s == p->stream;

    if (stamped && n == p->frame_size) {
      rtf_test_fill_frame (want, p->frame_size, p->stream, k);
      if (memcmp (want, f, n) == 0) {
        add_frame (rb, k, G_MAXUINT64, k * p->duration_ns);
        *prev = k;
        continue;
      }
    }
    if (torn_frame (f, n, want, p->frame_size, p->stream,
            stamped ? k : *prev + 1)) {
      /* the next slot holds the next frame, whether this one's stamp
       * reached the disk or not (seed 0x3dfbd1fd6e1df372: two frames in
       * flight at a kill, the second without its first block, was
       * compared with the first's bytes and called garbage) */
      *prev = stamped ? k : *prev + 1;
      rb->torn = TRUE;
      if (flags & TORTURE_READ_TAILS)
        note (rb, "%s: a torn frame at byte %" G_GSIZE_FORMAT " (%"
            G_GSIZE_FORMAT " bytes: frame bytes and zeros)\n", path, off, n);
      else
        problem (rb, "%s: a torn frame at byte %" G_GSIZE_FORMAT " (%"
            G_GSIZE_FORMAT " bytes) though the recording ended cleanly\n",
            path, off, n);
    } else {
      problem (rb, "%s: garbage at byte %" G_GSIZE_FORMAT " (%" G_GSIZE_FORMAT
          " bytes: not frame bytes nor zeros)\n", path, off, n);
    }
  }
  g_free (data);
  g_free (want);
}

void
torture_readback_scan_file (const TorturePlan * p, TortureReadback * rb,
    const gchar * path, TortureReadFlags flags, guint64 * prev)
{
  scan_file (p, rb, path, flags, prev);
}

static gint
cmp_number (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static gboolean
is_untouched_foreign (TortureWorld * w, const gchar * path)
{
  guint i;

  for (i = 0; i < w->foreign->len; i++) {
    TortureForeign *f = g_ptr_array_index (w->foreign, i);

    if (g_str_equal (f->path, path)) {
      TortureFingerprint now;
      GString *why = g_string_new (NULL);
      gboolean same;

      torture_fingerprint_take (&now, path);
      same = torture_fingerprint_equal (&f->fp, &now, why);
      torture_fingerprint_clear (&now);
      g_string_free (why, TRUE);
      return same;
    }
  }
  return FALSE;
}

static void
scan_target (const TorturePlan * p, TortureWorld * w, TortureReadback * rb,
    const gchar * target, TortureReadFlags flags)
{
  RtfPattern pat;
  GArray *numbers = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 prev = G_MAXUINT64;
  guint i;

  if (!p->pattern || !rtf_pattern_parse (target, &pat)) {
    struct stat sb;

    if (lstat (target, &sb) == 0 && S_ISREG (sb.st_mode)
        && !is_untouched_foreign (w, target))
      scan_file (p, rb, target, flags, &prev);
    g_array_unref (numbers);
    return;
  } else {
    GDir *d = g_dir_open (pat.dir, 0, NULL);
    const gchar *name;
    guint64 n;

    while (d && (name = g_dir_read_name (d)))
      if (rtf_pattern_match (&pat, name, &n) && n >= p->start_index)
        g_array_append_val (numbers, n);
    if (d)
      g_dir_close (d);
  }
  g_array_sort (numbers, cmp_number);
  for (i = 0; i < numbers->len; i++) {
    gchar *path = torture_file_path (target, g_array_index (numbers, guint64,
            i));
    struct stat sb;

    if (lstat (path, &sb) == 0 && S_ISREG (sb.st_mode)
        && !is_untouched_foreign (w, path))
      scan_file (p, rb, path, flags, &prev);
    g_free (path);
  }
  rtf_pattern_clear (&pat);
  g_array_unref (numbers);
}

/* ---- all of it --------------------------------------------------------- */

void
torture_readback (const TorturePlan * p, TortureWorld * w, guint session,
    guint removed, guint left_empty, TortureReadFlags flags,
    const gchar * self, TortureReadback * rb)
{
  GPtrArray *targets = targets_of (p, w, session, removed);
  Ctx x = { p, w, session, removed, left_empty, rb,
    (flags & TORTURE_READ_TAILS) != 0
  };
  guint i;

  memset (rb, 0, sizeof (*rb));
  rb->frames = g_array_new (FALSE, FALSE, sizeof (TortureFrame));
  rb->dumped = g_array_new (FALSE, FALSE, sizeof (guint64));
  rb->problems = g_string_new (NULL);
  rb->notes = g_string_new (NULL);
  for (i = 0; i < targets->len; i++) {
    const gchar *t = g_ptr_array_index (targets, i);

    if (p->index)
      read_indexed (&x, t, flags, self);
    else
      scan_target (p, w, rb, t, flags);
    rb->targets++;
  }
  g_ptr_array_unref (targets);
}

void
torture_readback_clear (TortureReadback * rb)
{
  if (rb->frames)
    g_array_unref (rb->frames);
  if (rb->dumped)
    g_array_unref (rb->dumped);
  if (rb->problems)
    g_string_free (rb->problems, TRUE);
  if (rb->notes)
    g_string_free (rb->notes, TRUE);
  memset (rb, 0, sizeof (*rb));
}
