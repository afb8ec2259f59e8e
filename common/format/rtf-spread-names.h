/* rtframe: the names a spread's locations write (data files, their
 * indexes, the manifest), and whether two locations would write the same
 * one - the same location twice, or one location's files another's
 * indexes ("d/c-%05d.raw" beside "d/c-%05d.raw.idx").  Checked before
 * anything is opened; the locks on every data file and index are the
 * second line (a name reached by another way: a link, a bind mount). */
#ifndef __RTF_SPREAD_NAMES_H__
#define __RTF_SPREAD_NAMES_H__

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when no two of the n locations (files, or with rotate patterns
 * numbered from first) write the same name; else FALSE with *why naming
 * both and the name */
gboolean rtf_spread_names_apart (const gchar * const *locations, guint n,
    gboolean rotate, guint64 first, gchar ** why);

G_END_DECLS
#endif /* __RTF_SPREAD_NAMES_H__ */
