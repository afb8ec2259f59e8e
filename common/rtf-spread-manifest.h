/* rtframe: the manifest of a spread recording - a small key file the sink
 * writes beside each location's files, naming the recording id and every
 * location, so that a reader given any one of them finds the whole
 * recording:
 *
 *   [rtframe-spread]
 *   recording-id=0123...
 *   start-index=0
 *   locations=/mnt/a/cam0-%05d.raw;/mnt/b/cam0-%05d.raw;
 */
#ifndef __RTF_SPREAD_MANIFEST_H__
#define __RTF_SPREAD_MANIFEST_H__

#include "rtf-file-mark.h"

G_BEGIN_DECLS

#define RTF_SPREAD_MANIFEST_SUFFIX ".rtfspread"

typedef struct
{
  RtfRecordingId id;
  guint64 start_index;
  gchar **locations;            /* NULL-terminated */
} RtfSpreadManifest;

/* The manifest's name beside a location: "<dir>/<prefix><suffix>.rtfspread"
 * for a pattern "<dir>/<prefix>%05d<suffix>", "<file>.rtfspread" for a
 * file */
gchar *rtf_spread_manifest_path (const gchar * location);
gboolean rtf_spread_manifest_is_path (const gchar * path);

/* Writes m beside location (a hidden file renamed into place).  A file at
 * the manifest's name that is not a manifest is left as it is: FALSE with
 * *why. */
gboolean rtf_spread_manifest_write (const gchar * location,
    const RtfSpreadManifest * m, gchar ** why);
/* Reads a manifest: FALSE with *why when it is none */
gboolean rtf_spread_manifest_read (const gchar * path, RtfSpreadManifest * m,
    gchar ** why);
void rtf_spread_manifest_clear (RtfSpreadManifest * m);

G_END_DECLS
#endif /* __RTF_SPREAD_MANIFEST_H__ */
