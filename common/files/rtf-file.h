/* rtframe: opening the output file for direct I/O and closing it whole */
#ifndef __RTF_FILE_H__
#define __RTF_FILE_H__

#include <glib.h>

#include "rtf-file-mark.h"
#include "rtf-xflags.h"

G_BEGIN_DECLS

/* The offset to pass for files that are a stream (RtfFile.stream) */
#define RTF_OFFSET_CURRENT G_MAXUINT64

typedef enum
{
  RTF_DIRECT_AUTO = 0,          /* O_DIRECT, buffered where it is refused */
  RTF_DIRECT_ON,
  RTF_DIRECT_OFF
} RtfDirectMode;

/* How a file is opened */
typedef enum
{
  /* The file location names: created, or (a regular file) emptied once
   * its lock is had - what filesink does; a device or a FIFO is written
   * as it is.  Never through a symbolic link. */
  RTF_FILE_REPLACE,
  /* A file that must not exist yet (O_EXCL): EEXIST when it does */
  RTF_FILE_CREATE_NEW
} RtfFileOpenMode;

typedef struct
{
  gint fd;
  gboolean direct;              /* opened with O_DIRECT */
  gboolean stream;              /* a pipe, socket or character device:
                                 * written in order at the current position */
  gboolean device;              /* a block device: written at offsets,
                                 * never cut, no index beside it */
  gboolean created;             /* this open created it (a name is only
                                 * removed while it is still this inode) */
  gint direct_errno;            /* why O_DIRECT was refused, 0 if not */
  gsize block;                  /* every write's offset and length: multiple */
  gsize mem_align;              /* every write's memory address: multiple */
  const gchar *align_source;    /* where block came from (for the log) */
  gint xflags_errno;            /* the XFS flags asked for were refused */
  gboolean xflags_hint_refused; /* ... the extent size hint, not realtime */
  gint mark_errno;              /* the mark was refused (no xattrs), 0 */
  gboolean unnamed;             /* created unnamed (O_TMPFILE) and linked
                                 * at its name once whole */
} RtfFile;

/* What a regular file holds that no recording writes over: rtframe's own
 * files that are not frames.  Told by their first bytes. */
typedef enum
{
  RTF_FILE_KIND_OTHER = 0,      /* anything else: empty, a recording's
                                 * data, a user's file */
  RTF_FILE_KIND_INDEX,          /* an rtframe index (RTF_INDEX_MAGIC) */
  RTF_FILE_KIND_MANIFEST,       /* the manifest of a spread recording
                                 * ("[rtframe-spread]") */
  RTF_FILE_KIND_TAKE_MANIFEST   /* an event's or take's manifest
                                 * ("[rtframe-take]", rtframe-record's) */
} RtfFileKind;

/* What the regular file open for reading at fd is (a pread of its first
 * bytes; never blocks) */
RtfFileKind rtf_file_kind (gint fd);
/* Why the file at path is never taken for a recording's data, in words
 * for a message ("is an rtframe index (of "cam.raw")", "is the
 * manifest of a recording over several locations"), or NULL when it may
 * be (g_free it).  Reads the file (no link followed, never blocks). */
gchar *rtf_file_refusal (const gchar * path);

/* Opens path for writing as `how` says; a regular file is locked
 * (flock, exclusive) for as long as it is open: EWOULDBLOCK when another
 * recording (or a tool repairing it) holds it.  ELOOP for a symbolic
 * link.  EEXIST (nothing changed) when REPLACE finds an rtframe index or
 * manifest there (rtf_file_kind(): checked once the lock is had, before
 * it is emptied).  xflags (may be NULL) are set on the regular file, empty by then,
 * before anything is written; when that fails the file stays open and
 * xflags_errno says why.  mark_id (may be NULL) and mark_number: the
 * regular file's mark (rtf_file_mark_set; mark_errno when refused).  A
 * file this creates is created unnamed where the filesystem allows it
 * (O_TMPFILE), locked, flagged and marked, and only then given path's
 * name: a crash never leaves an unmarked file there. */
gboolean rtf_file_open (RtfFile * file, const gchar * path,
    RtfFileOpenMode how, RtfDirectMode mode, const RtfXflags * xflags,
    const RtfRecordingId * mark_id, guint64 mark_number, gint * err);
/* Deletes path if this open created it and it is still that inode
 * (an error path, a file the recording never reached). */
void rtf_file_unlink_created (RtfFile * file, const gchar * path);
void rtf_file_close (RtfFile * file);
gint rtf_file_make_whole (RtfFile * file, guint64 size, guint64 reserved_end);
gint rtf_file_cut (RtfFile * file, guint64 size);

void rtf_file_probe_alignment (gint fd, gsize * block, gsize * mem_align,
    const gchar ** source);

G_END_DECLS

#endif /* __RTF_FILE_H__ */
