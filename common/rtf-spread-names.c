/* rtframe: do a spread's locations write names apart?  (see
 * rtf-spread-names.h)  Patterns are compared by the names they make for
 * a few numbers: the first two of the set, and numbers wide enough that
 * "%05d" and "%d" make the same digits. */
#include "rtf-spread-names.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-spread-manifest.h"

#include <stdlib.h>

/* path with its directory resolved (links, "..", "."), as far as the
 * directory exists: two spellings of one file compare equal.  Takes
 * path. */
static gchar *
canonical (gchar * path)
{
  gchar *dir = g_path_get_dirname (path), *base = g_path_get_basename (path);
  gchar *abs = g_canonicalize_filename (dir, NULL), *real, *out;

  real = realpath (abs, NULL);
  out = g_build_filename (real ? real : abs, base, NULL);
  free (real);
  g_free (abs);
  g_free (base);
  g_free (dir);
  g_free (path);
  return out;
}

/* The names location writes for the numbers sampled */
static GPtrArray *
names_of (const gchar * location, gboolean rotate, guint64 first)
{
  const guint64 numbers[] = { first, first + 1, 100000, 1000000 };
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  guint k, n = rotate ? G_N_ELEMENTS (numbers) : 1;

  g_ptr_array_add (out, canonical (rtf_spread_manifest_path (location)));
  for (k = 0; k < n; k++) {
    gchar *data = rotate ? rtf_pattern_format (location, numbers[k]) :
        g_strdup (location);

    g_ptr_array_add (out, canonical (rtf_index_path (data)));
    g_ptr_array_add (out, canonical (data));
  }
  return out;
}

/* A name of a (its data or index files) that b writes too, or NULL */
static const gchar *
shared_name (GPtrArray * a, GPtrArray * b)
{
  guint i, j;

  /* (a's manifest is theirs to share: both write the same manifest when
   * the location is given twice, and then the data names meet too) */
  for (i = 1; i < a->len; i++)
    for (j = 0; j < b->len; j++)
      if (g_strcmp0 (a->pdata[i], b->pdata[j]) == 0)
        return a->pdata[i];
  return NULL;
}

gboolean
rtf_spread_names_apart (const gchar * const *locations, guint n,
    gboolean rotate, guint64 first, gchar ** why)
{
  GPtrArray **names = g_new0 (GPtrArray *, n);
  gboolean apart = TRUE;
  guint i, j;

  for (i = 0; i < n; i++)
    names[i] = names_of (locations[i], rotate, first);
  for (i = 0; i < n && apart; i++)
    for (j = 0; j < n && apart; j++) {
      const gchar *name;

      if (i == j || (name = shared_name (names[i], names[j])) == NULL)
        continue;
      *why = g_strdup_printf ("locations \"%s\" and \"%s\" would both write "
          "\"%s\": each location needs names of its own", locations[MIN (i,
                  j)], locations[MAX (i, j)], name);
      apart = FALSE;
    }
  for (i = 0; i < n; i++)
    g_ptr_array_unref (names[i]);
  g_free (names);
  return apart;
}
