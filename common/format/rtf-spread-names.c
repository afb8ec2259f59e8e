/* rtframe: do a spread's locations write names apart?  (see
 * rtf-spread-names.h)  Each location writes a manifest (a fixed name),
 * and data files and their indexes: one fixed name each for a file, or
 * for a pattern every "<dir>/<prefix><digits><suffix>" (and ".idx"
 * after it).  Two such name sets meet when one string is in both, which
 * is decided exactly on the names as sequences of characters and "one or
 * more digits" - more than a pattern makes (leading zeros, numbers below
 * the first), so names that could meet are refused, never missed.
 * (Comparing the names made for a few numbers missed "a%d.raw" beside
 * "a1%d.raw", which meet at file 10 of the first.) */
#include "rtf-spread-names.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-spread-manifest.h"

#include <stdlib.h>
#include <string.h>

/* The names one template makes: head, then (digits) one or more digits
 * and tail */
typedef struct
{
  gchar *head;
  gboolean digits;
  gchar *tail;
  gboolean manifest;
} Template;

/* dir resolved (links, "..", "."), as far as it exists: two spellings of
 * one directory compare equal.  Takes dir. */
static gchar *
canonical_dir (gchar * dir)
{
  gchar *abs = g_canonicalize_filename (dir, NULL), *real, *out;

  real = realpath (abs, NULL);
  out = g_strdup (real ? real : abs);
  free (real);
  g_free (abs);
  g_free (dir);
  return out;
}

static void
add_literal (GArray * t, const gchar * path, const gchar * more,
    gboolean manifest)
{
  Template one = { 0 };
  gchar *dir = canonical_dir (g_path_get_dirname (path));
  gchar *base = g_path_get_basename (path);

  one.head = g_strconcat (dir, "/", base, more, NULL);
  one.tail = g_strdup ("");
  one.manifest = manifest;
  g_array_append_val (t, one);
  g_free (base);
  g_free (dir);
}

/* What location writes */
static GArray *
templates_of (const gchar * location, gboolean rotate)
{
  GArray *t = g_array_new (FALSE, TRUE, sizeof (Template));
  gchar *manifest = rtf_spread_manifest_path (location);
  RtfPattern p;
  guint k;

  add_literal (t, manifest, "", TRUE);
  g_free (manifest);
  if (!rotate || !rtf_pattern_parse (location, &p)) {
    add_literal (t, location, "", FALSE);
    add_literal (t, location, RTF_INDEX_SUFFIX, FALSE);
    return t;
  }
  for (k = 0; k < 2; k++) {
    Template one = { 0 };
    gchar *dir = canonical_dir (g_strdup (p.dir));

    one.head = g_strconcat (dir, "/", p.prefix, NULL);
    one.digits = TRUE;
    one.tail = g_strconcat (p.suffix, k ? RTF_INDEX_SUFFIX : "", NULL);
    g_array_append_val (t, one);
    g_free (dir);
  }
  rtf_pattern_clear (&p);
  return t;
}

static void
templates_free (GArray * t)
{
  guint i;

  for (i = 0; i < t->len; i++) {
    g_free (g_array_index (t, Template, i).head);
    g_free (g_array_index (t, Template, i).tail);
  }
  g_array_unref (t);
}

/* A template as a walk: position i of head, then the digits (i ==
 * len(head)), then tail */
typedef struct
{
  const Template *t;
  gsize head, tail;
} Walk;

#define AT_DIGITS(w, i) ((w)->t->digits && (i) == (w)->head)
#define LEN(w) ((w)->head + ((w)->t->digits ? 1 : 0) + (w)->tail)

static gchar
char_at (const Walk * w, gsize i)
{
  return i < w->head ? w->t->head[i] : w->t->tail[i - w->head - 1];
}

/* Whether some name is made by both a and b: a search over (position in
 * a, in b, a digit taken at a's digits, at b's) */
static gboolean
templates_meet (const Template * ta, const Template * tb)
{
  Walk a = { ta, strlen (ta->head), strlen (ta->tail) };
  Walk b = { tb, strlen (tb->head), strlen (tb->tail) };
  gsize la = LEN (&a) + 1, lb = LEN (&b) + 1;
  guint8 *seen = g_malloc0 (la * lb * 4);
  GArray *todo = g_array_new (FALSE, FALSE, sizeof (guint64));
  gboolean meet = FALSE;
  guint64 s = 0;

  g_array_append_val (todo, s);
  while (todo->len > 0 && !meet) {
    guint64 st = g_array_index (todo, guint64, todo->len - 1);
    gsize i = st >> 34, j = (st >> 2) & 0xffffffff;
    guint di = (st >> 1) & 1, dj = st & 1;
    gboolean ad, bd;
    guint64 next[4];
    guint n = 0, k;

    g_array_set_size (todo, todo->len - 1);
    if (seen[(i * lb + j) * 4 + di * 2 + dj]++)
      continue;
    if (i == LEN (&a) && j == LEN (&b)) {
      meet = TRUE;
      break;
    }
    ad = AT_DIGITS (&a, i);
    bd = AT_DIGITS (&b, j);
    /* the digits may end after one or more */
    if (ad && di)
      next[n++] = ((guint64) (i + 1) << 34) | ((guint64) j << 2) | dj;
    if (bd && dj)
      next[n++] = ((guint64) i << 34) | ((guint64) (j + 1) << 2) | (di << 1);
    /* one character, the same in both */
    if (i < LEN (&a) && j < LEN (&b)) {
      gchar ca = ad ? 0 : char_at (&a, i), cb = bd ? 0 : char_at (&b, j);
      gboolean ok = (ad && bd) || (ad && g_ascii_isdigit (cb))
          || (bd && g_ascii_isdigit (ca)) || (!ad && !bd && ca == cb);

      if (ok)
        next[n++] = ((guint64) (ad ? i : i + 1) << 34)
            | ((guint64) (bd ? j : j + 1) << 2) | ((ad ? 1u : 0u) << 1)
            | (bd ? 1u : 0u);
    }
    for (k = 0; k < n; k++)
      g_array_append_val (todo, next[k]);
  }
  g_array_unref (todo);
  g_free (seen);
  return meet;
}

/* A name a template of a makes (its data or index files, or its manifest
 * against b's files) that one of b's makes too: TRUE, *name one of them.
 * (Manifests may meet: both locations then write the same one.) */
static gboolean
shared_name (GArray * a, GArray * b, gchar ** name)
{
  guint i, j;

  for (i = 0; i < a->len; i++)
    for (j = 0; j < b->len; j++) {
      const Template *ta = &g_array_index (a, Template, i);
      const Template *tb = &g_array_index (b, Template, j);

      if ((ta->manifest && tb->manifest) || !templates_meet (ta, tb))
        continue;
      *name = g_strconcat (ta->head, ta->digits ? "<number>" : "",
          ta->tail, NULL);
      return TRUE;
    }
  return FALSE;
}

gboolean
rtf_spread_names_apart (const gchar * const *locations, guint n,
    gboolean rotate, guint64 first, gchar ** why)
{
  GArray **t = g_new0 (GArray *, n);
  gboolean apart = TRUE;
  guint i, j;

  for (i = 0; i < n; i++)
    t[i] = templates_of (locations[i], rotate);
  for (i = 0; i < n && apart; i++)
    for (j = i + 1; j < n && apart; j++) {
      gchar *name = NULL;

      if (!shared_name (t[i], t[j], &name))
        continue;
      *why = g_strdup_printf ("locations \"%s\" and \"%s\" could both write "
          "\"%s\": each location needs names of its own", locations[i],
          locations[j], name);
      g_free (name);
      apart = FALSE;
    }
  for (i = 0; i < n; i++)
    templates_free (t[i]);
  g_free (t);
  return apart;
}
