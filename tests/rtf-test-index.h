/* rtframe tests: recordings made by hand - an index written record by
 * record and the data file it describes - for the readers and the
 * recovery tool to be tried on */
#ifndef __RTF_TEST_INDEX_H__
#define __RTF_TEST_INDEX_H__

#include "rtf-index.h"

G_BEGIN_DECLS

#define RTF_TEST_CAPS_TEXT "video/x-raw, format=(string)GRAY10_LE32, " \
    "width=(int)8, height=(int)4"
/* the reference caps a version 3 header names */
#define RTF_TEST_REFERENCE_TEXT "timestamp/x-test-camera"
/* the frame whose record says upstream lost frames before it (version 3),
 * and how many (its upstream offset skips that many) */
#define RTF_TEST_GAP_FRAME 4
#define RTF_TEST_GAP_MISSING 2

typedef struct
{
  const gchar *name;            /* the data file's name in dir */
  guint64 number;               /* its file number */
  guint frames;                 /* frames written (and indexed) */
  guint32 size;                 /* bytes a frame */
  gboolean checksums;
  guint32 version;              /* 1, 2 or 3 (0: the current) */
  guint8 id;                    /* every byte of the recording id */
  gboolean mark;                /* the data file carries the sink's mark */
} RtfTestRecording;

/* Writes the data file (frame i holds bytes (k * 7 + k / size)) and its
 * index; returns the data file's path. */
gchar *rtf_test_index_write (const gchar * dir, const RtfTestRecording * r);

/* The record of frame i as rtf_test_index_write() writes it (without its
 * checksum): with the fields of version 3 (an upstream offset, a
 * reference timestamp, the gap before RTF_TEST_GAP_FRAME), which a
 * recording of an earlier version does not keep */
void rtf_test_index_record (RtfIndexRecord * r, guint64 i, guint32 size);

/* Writes byte c at `at` of path */
void rtf_test_poke (const gchar * path, guint64 at, gchar c);

G_END_DECLS

#endif
