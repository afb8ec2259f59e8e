/* rtframe: what failed, as the engine tells its owner - a step and an
 * errno, never a string to compare */
#ifndef __RTF_FAILURE_H__
#define __RTF_FAILURE_H__

#include <glib.h>

#include "rtf-file.h"

G_BEGIN_DECLS

typedef enum
{
  RTF_FAIL_WRITE,               /* a frame's write, or an index write */
  RTF_FAIL_SYNC,                /* an fdatasync (sync-interval), or finishing
                                 * a file of a set */
  RTF_FAIL_OPEN,                /* opening a file, or giving the next file of
                                 * a set its name */
  RTF_FAIL_XFLAGS,              /* the file's XFS flags were refused */
  RTF_FAIL_INDEX,               /* the file's index could not be created */
  RTF_FAIL_SPACE,               /* the free-space guard ended the recording
                                 * before the filesystem was full (err:
                                 * ENOSPC) */
  RTF_FAIL_HINT                 /* the realtime flag (if asked) was taken,
                                 * the extent size hint was not */
} RtfFailStep;

typedef struct
{
  RtfFailStep step;
  gint err;                     /* errno */
  const gchar *path;            /* the file */
  /* what became of the recording: frames written, what the file was cut
   * back to, frames accepted and not written (NULL when opening failed) */
  const gchar *detail;
  /* SPACE: bytes written, free on the filesystem once the files were
   * finished, and the min-free-space in force */
  guint64 bytes_written, free_space, min_free_space;
  guint64 frames_written;
  /* OPEN, XFLAGS: what the file was opened with (the owner words the
   * error by it without reading its own settings: the failed callback
   * runs under the writer's callback lock) */
  RtfXflags xflags;
  RtfDirectMode direct;
} RtfFailure;

G_END_DECLS

#endif /* __RTF_FAILURE_H__ */
