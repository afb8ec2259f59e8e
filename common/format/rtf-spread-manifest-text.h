/* rtframe: a spread recording's manifest as data and as text - its
 * fields, and the key file the sink writes and the readers parse
 * (rtf-spread-manifest-text.c; what the manifest says and where it is
 * written: rtf-spread-manifest.h) */
#ifndef __RTF_SPREAD_MANIFEST_TEXT_H__
#define __RTF_SPREAD_MANIFEST_TEXT_H__

#include "rtf-file-mark.h"

G_BEGIN_DECLS

/* a manifest's name ends so: <location less its number>.rtfspread */
#define RTF_SPREAD_MANIFEST_SUFFIX ".rtfspread"
/* the version this build writes */
#define RTF_SPREAD_MANIFEST_VERSION 2
/* this build writes and reads the final state (final=true, at EOS) */
#define RTF_SPREAD_MANIFEST_HAS_FINAL 1
/* The largest manifest read (or written): 64 KiB holds 8 locations of
 * PATH_MAX (4096 bytes), each twice; the sink writes a few hundred */
#define RTF_SPREAD_MANIFEST_MAX_BYTES (64 * 1024)
/* A location's state at the end of a recording (location-states) */
typedef enum
{
  RTF_SPREAD_END_ACTIVE,        /* "active": in the set to the end */
  RTF_SPREAD_END_STALLED,       /* "stalled": left for location-timeout */
  RTF_SPREAD_END_FAILED,        /* "failed": left after a write failed */
  RTF_SPREAD_END_GIVEN_UP       /* "given-up": given up at stop */
} RtfSpreadEndState;

/* What the recording did at a location, as the sink knew it at EOS */
typedef struct
{
  RtfSpreadEndState state;
  guint64 frames;               /* frames reported written there */
  guint64 files_deleted;        /* files of it deleted (max-files,
                                 * min-free-space) */
  guint64 frames_durable;       /* of those, made durable there
                                 * (fdatasync'ed) before it left; equal to
                                 * frames for a location in the set at EOS */
} RtfSpreadLocationEnd;

/* Whether a manifest holds the recording's final state */
typedef enum
{
  RTF_SPREAD_MANIFEST_STARTED,  /* written at start: the recording may
                                 * still be going, or its process died */
  RTF_SPREAD_MANIFEST_FINAL     /* written at EOS: ends[] says what each
                                 * location holds */
} RtfSpreadManifestState;

typedef struct
{
  RtfRecordingId id;
  guint64 start_index;
  gchar **locations;            /* NULL-terminated: the paths, as bytes */
  RtfSpreadManifestState state;
  RtfSpreadLocationEnd *ends;   /* FINAL: one for each location; else NULL */
  /* what rtf_spread_manifest_read() found beside them (the writer reads
   * only the three fields above, and computes these): */
  guint version;                /* 1 or 2 */
  gchar **relative;             /* NULL, or one for each location: the
                                 * path relative to the manifest's
                                 * directory (version 2) */
} RtfSpreadManifest;

/* The same from its text (len bytes): what _read() does once it has it */
gboolean rtf_spread_manifest_parse (const gchar * text, gsize len,
    RtfSpreadManifest * m, gchar ** why);
/* The text of a manifest of version 2 naming m's id, start index,
 * locations, (when not NULL) relative paths, and when FINAL the ends;
 * UTF-8 whatever the paths (rtf-spread-manifest-text.c) */
gchar *rtf_spread_manifest_to_text (const RtfSpreadManifest * m, gsize * len);
void rtf_spread_manifest_clear (RtfSpreadManifest * m);
/* "active", "stalled", "failed", "given-up" */
const gchar *rtf_spread_end_state_name (RtfSpreadEndState state);

/* Whether path names a manifest (by its suffix) */
gboolean rtf_spread_manifest_is_path (const gchar * path);

G_END_DECLS
#endif /* __RTF_SPREAD_MANIFEST_TEXT_H__ */
