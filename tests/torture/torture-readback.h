/* The torture test's reading back of one recording (a session of a round)
 * through every reader of the project: rtframe-recover first when the
 * recording did not end cleanly, rtframe-verify, rtframe-dump and
 * rtframesrc (in a child: torture-read.c), which must agree; with
 * index=false the data files byte by byte. */
#ifndef __TORTURE_READBACK_H__
#define __TORTURE_READBACK_H__

#include "torture-draw.h"
#include "torture-world.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 k;                    /* its stamp */
  guint64 frame;                /* rtframesrc's offset: its place in the
                                 * recording (G_MAXUINT64: a byte scan) */
  guint64 pts;
  guint target;                 /* which of the recordings read */
} TortureFrame;

typedef struct
{
  GArray *frames;               /* TortureFrame: each target's in its order,
                                 * targets one after another */
  guint targets;
  GArray *dumped;               /* frame numbers rtframe-dump lists */
  GString *problems, *notes;
  gboolean reader_error;        /* a reader could not read it all */
  gboolean torn;                /* a byte scan met a crash's torn frame */
} TortureReadback;

typedef enum
{
  TORTURE_READ_RECOVER = 1 << 0,        /* rtframe-recover first */
  TORTURE_READ_TAILS = 1 << 1,  /* a crash's tails are no fault (byte scan) */
} TortureReadFlags;

/* removed: the locations whose directory is gone (a bit each);
 * left_empty: those that left the recording before a file there had a
 * frame (no file-opened there), so after a kill nothing shows the readers
 * they hold none */
void torture_readback (const TorturePlan * p, TortureWorld * w,
    guint session, guint removed, guint left_empty, TortureReadFlags flags,
    const gchar * self, TortureReadback * rb);
void torture_readback_clear (TortureReadback * rb);
/* One data file byte by byte (the frames back to back, as with
 * index=false): each whole frame stamped and byte-exact appended to
 * rb->frames (rb->frames, problems and notes made by the caller); a torn
 * frame (frame bytes and zeros) a note with TORTURE_READ_TAILS, else a
 * problem, as anything else is.  *prev: the stamp before (G_MAXUINT64:
 * none) */
void torture_readback_scan_file (const TorturePlan * p, TortureReadback * rb,
    const gchar * path, TortureReadFlags flags, guint64 * prev);

G_END_DECLS
#endif /* __TORTURE_READBACK_H__ */
