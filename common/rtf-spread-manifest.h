/* rtframe: the manifest of a spread recording - a small key file the sink
 * writes beside each location's files, naming the recording id and every
 * location, so that a reader given any one of them finds the whole
 * recording (version 2, what is written):
 *
 *   [rtframe-spread]
 *   version=2
 *   recording-id=0123...
 *   start-index=0
 *   locations=/mnt/a/cam0-%05d.raw;/mnt/b/cam0-%05d.raw;
 *   relative-locations=cam0-%05d.raw;../b/cam0-%05d.raw;
 *
 * locations: each location made absolute when the recording started (the
 * recorder's working directory); relative-locations: the same, relative
 * to this manifest's directory (so a recording moved or mounted elsewhere
 * as a whole still reads).  Lists in GKeyFile's syntax ("\;", "\\", "\s"
 * ...); a byte of a path that is not part of valid UTF-8 is written
 * "\xHH" and a backslash "\\" (then escaped again by GKeyFile), so the
 * file is UTF-8 whatever the paths.  Version 1 (no version key, before
 * issue 23) held the locations as given, raw bytes, no relative list: a
 * relative one is taken relative to the manifest's directory.
 *
 * A reader takes a manifest only as a regular file (no link, no FIFO:
 * rtf_safe_open()) of at most RTF_SPREAD_MANIFEST_MAX_BYTES, beginning
 * with "[rtframe-spread]"; it refuses one that names a manifest
 * (".rtfspread": a manifest names recordings, never manifests), a location
 * twice, or an empty one. */
#ifndef __RTF_SPREAD_MANIFEST_H__
#define __RTF_SPREAD_MANIFEST_H__

#include "rtf-file-mark.h"

G_BEGIN_DECLS
#define RTF_SPREAD_MANIFEST_SUFFIX ".rtfspread"
#define RTF_SPREAD_MANIFEST_VERSION 2
/* The largest manifest read (or written): 64 KiB holds 8 locations of
 * PATH_MAX (4096 bytes), each twice; the sink writes a few hundred */
#define RTF_SPREAD_MANIFEST_MAX_BYTES (64 * 1024)
    typedef struct
{
  RtfRecordingId id;
  guint64 start_index;
  gchar **locations;            /* NULL-terminated: the paths, as bytes */
  /* what rtf_spread_manifest_read() found beside them (the writer reads
   * only the three fields above, and computes these): */
  guint version;                /* 1 or 2 */
  gchar **relative;             /* NULL, or one for each location: the
                                 * path relative to the manifest's
                                 * directory (version 2) */
} RtfSpreadManifest;

/* The manifest's name beside a location: "<dir>/<prefix><suffix>.rtfspread"
 * for a pattern "<dir>/<prefix>%05d<suffix>", "<file>.rtfspread" for a
 * file */
gchar *rtf_spread_manifest_path (const gchar * location);
gboolean rtf_spread_manifest_is_path (const gchar * path);
/* Whether the regular file open at fd begins as a manifest does (its
 * first line "[rtframe-spread]"): what a location or an index name must
 * never be taken for.  Reads a few bytes with pread, never blocks on a
 * regular file. */
gboolean rtf_spread_manifest_probe (gint fd);

/* Writes a manifest beside location naming m->id, m->start_index and
 * m->locations (each made absolute, with its path relative to this
 * manifest's directory): a hidden file renamed into place.  What is at
 * the manifest's name is replaced only when it is a manifest (a regular
 * file of at most RTF_SPREAD_MANIFEST_MAX_BYTES beginning with
 * "[rtframe-spread]", read or not by this build); anything else (a link,
 * a FIFO - never opened -, someone's file) is left as it is: FALSE with
 * *why. */
gboolean rtf_spread_manifest_write (const gchar * location,
    const RtfSpreadManifest * m, gchar ** why);
/* Reads a manifest (see above): FALSE with *why (naming path) when it is
 * none, or one refused */
gboolean rtf_spread_manifest_read (const gchar * path, RtfSpreadManifest * m,
    gchar ** why);
/* The same from its text (len bytes): what _read() does once it has it */
gboolean rtf_spread_manifest_parse (const gchar * text, gsize len,
    RtfSpreadManifest * m, gchar ** why);
/* The text of a manifest of version 2 naming m's id, start index,
 * locations and (when not NULL) relative paths; UTF-8 whatever the paths
 * (rtf-spread-manifest-text.c) */
gchar *rtf_spread_manifest_to_text (const RtfSpreadManifest * m, gsize * len);
void rtf_spread_manifest_clear (RtfSpreadManifest * m);

/* Where a reader looks for location i of m, read from manifest (a path as
 * the reader was given it), in order: its relative path against the
 * manifest's directory (version 2: the recording found where it is now,
 * moved or mounted elsewhere as a whole); then the path as stored (the
 * absolute path at record time).  A relative location of version 1 (as
 * it was given, relative to the recorder's working directory) is taken
 * against that directory - the manifest's path less the name of its own
 * location's manifest, rtf_spread_manifest_path() of that location -,
 * then against the manifest's directory; never against the reader's
 * working directory.  NULL-terminated, no path twice (g_strfreev). */
gchar **rtf_spread_manifest_candidates (const gchar * manifest,
    const RtfSpreadManifest * m, guint i);

G_END_DECLS
#endif /* __RTF_SPREAD_MANIFEST_H__ */
