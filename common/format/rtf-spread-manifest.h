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
 * At EOS, once every location in the set has written and synced all it
 * was given, the sink writes the manifest again beside each of them with
 * the recording's final state (still version 2: the keys are added, a
 * reader of version 2 that does not know them reads the manifest as
 * before and takes a location without files for missing, which is never
 * wrong, only less precise):
 *
 *   final=true
 *   location-states=active;failed;
 *   location-frames=140;0;
 *   location-files-deleted=0;0;
 *   location-frames-durable=140;0;
 *
 * one item for each location, in the order of locations: its state at
 * the end (active, stalled, failed - it left the set -, given-up), the
 * frames reported written there, the files of it deleted since
 * (max-files, min-free-space: then its frames are no longer all there),
 * and how many of its frames were durable (fdatasync'ed) there: a
 * location that failed may lose those that were not, as a disk does at a
 * crash (an XFS shut down replays its log without them).  Written from
 * the first release of version 2 on; absent, it is taken as
 * location-frames.
 * A location that left before its first frame holds no file at all (the
 * sink deletes the empty file it made), which only this tells from a
 * disk that died: the readers take "0 frames" as a note, a location
 * without files and with frames (or without a final state: the process
 * died, no EOS) as a fault.  Should the stream go on after that EOS (a
 * flush), the sink writes the manifests back without the final state
 * before its next frame.
 *
 * The sink holds flock(LOCK_EX) on each manifest it wrote while the
 * recording runs (taken on the hidden file before it is renamed to the
 * name), and writes at a name only what it may replace: nothing, its own
 * manifest, or an earlier take's naming the same locations (the name
 * leaves out the number's width, so c%03d.raw and c%05d.raw share it).
 * A running recording's manifest (locked), another recording's (other
 * locations) and one this build cannot read are left as they are: the
 * sink refuses to start (the adversarial review, M1: it replaced them,
 * and the recording named lost the file tying its locations together).
 *
 * A reader takes a manifest only as a regular file (no link, no FIFO:
 * rtf_safe_open()) of at most RTF_SPREAD_MANIFEST_MAX_BYTES, beginning
 * with "[rtframe-spread]"; it refuses one that names a manifest
 * (".rtfspread": a manifest names recordings, never manifests), a location
 * twice, or an empty one. */
#ifndef __RTF_SPREAD_MANIFEST_H__
#define __RTF_SPREAD_MANIFEST_H__

#include "rtf-spread-manifest-text.h"

G_BEGIN_DECLS
/* The manifest's name beside a location: "<dir>/<prefix><suffix>.rtfspread"
 * for a pattern "<dir>/<prefix>%05d<suffix>", "<file>.rtfspread" for a
 * file */
gchar *rtf_spread_manifest_path (const gchar * location);
/* Whether the regular file open at fd begins as a manifest does (its
 * first line "[rtframe-spread]"): what a location or an index name must
 * never be taken for.  Reads a few bytes with pread, never blocks on a
 * regular file. */
gboolean rtf_spread_manifest_probe (gint fd);

/* Whether a recording may write its manifest at the name beside a
 * location, and what it found there otherwise */
typedef enum
{
  RTF_SPREAD_MANIFEST_OURS,     /* nothing there, this recording's own
                                 * manifest, or an earlier take's naming
                                 * the same locations (not running): may be
                                 * written; (_write_held) written */
  RTF_SPREAD_MANIFEST_NOT_ONE,  /* not a manifest (a link, a FIFO - never
                                 * opened -, someone's file), or one that
                                 * cannot be locked: left as it is */
  RTF_SPREAD_MANIFEST_LIVE,     /* the manifest of a recording that is
                                 * running (it holds the lock): left */
  RTF_SPREAD_MANIFEST_FOREIGN,  /* another recording's (other locations, or
                                 * a manifest this build does not read):
                                 * left */
  RTF_SPREAD_MANIFEST_FAILED    /* (_write_held) an I/O error, or something
                                 * else came to the name meanwhile */
} RtfSpreadManifestClaim;

/* Looks at the manifest's name beside location for a recording naming
 * m->locations: OURS, else what is there (*why names the path).  held is
 * the descriptor of the lock the recording holds at that name (-1: none
 * yet); an earlier take's manifest found there is locked and *held
 * becomes its descriptor (the last one's closed), so that no one else
 * takes it before the recording writes its own.  Writes nothing. */
RtfSpreadManifestClaim rtf_spread_manifest_claim (const gchar * location,
    const RtfSpreadManifest * m, gint * held, gchar ** why);
/* Writes a manifest beside location naming m->id, m->start_index and
 * m->locations (each made absolute, with its path relative to this
 * manifest's directory), and when m->state is FINAL m->ends: a hidden
 * file, locked (flock LOCK_EX) before it is written, renamed into place
 * where _claim() says OURS; then *held becomes its descriptor (the last
 * one's closed): a running recording keeps the lock on its manifests
 * until it closes *held at its end, and no other replaces them
 * meanwhile.  OURS when written, else what was found (*why). */
RtfSpreadManifestClaim rtf_spread_manifest_write_held (const gchar *
    location, const RtfSpreadManifest * m, gint * held, gchar ** why);
/* The same without keeping the lock (the tools, the tests): TRUE when
 * written */
gboolean rtf_spread_manifest_write (const gchar * location,
    const RtfSpreadManifest * m, gchar ** why);
/* Reads a manifest (see above): FALSE with *why (naming path) when it is
 * none, or one refused */
gboolean rtf_spread_manifest_read (const gchar * path, RtfSpreadManifest * m,
    gchar ** why);
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

/* The recording's final state for m, read from manifest: m's own when it
 * holds one, else that of the first manifest beside one of its locations
 * (at rtf_spread_manifest_candidates()) holding one for the same
 * recording id and the same locations - the sink writes it at EOS beside
 * the locations still in the set, so the manifest of a location that left
 * keeps what it said at start.  The path it was read from, and *ends (one
 * for each location, g_free); NULL when no manifest holds it. */
gchar *rtf_spread_manifest_find_final (const gchar * manifest,
    const RtfSpreadManifest * m, RtfSpreadLocationEnd ** ends);

G_END_DECLS
#endif /* __RTF_SPREAD_MANIFEST_H__ */
