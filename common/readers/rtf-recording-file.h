/* rtframe: one file of a recording, identified before anything is read
 * from it: what was found at its name (a state), how strongly its data
 * and index are known to belong together (a proof), and what its index
 * walk found (rtf-recording-file.c).  The set of files is
 * rtf-recording.h's. */
#ifndef __RTF_RECORDING_FILE_H__
#define __RTF_RECORDING_FILE_H__

#include <sys/stat.h>

#include "rtf-index.h"

G_BEGIN_DECLS

/* What a file found at a name of the recording turned out to be */
typedef enum
{
  RTF_FILE_OK,                  /* data and its index, paired */
  RTF_FILE_NEVER_WRITTEN,       /* empty, its index empty or missing: opened
                                 * ahead for a split that never came */
  RTF_FILE_NO_INDEX,            /* no index, or none that can be read */
  RTF_FILE_FOREIGN_INDEX,       /* the index is another file's */
  RTF_FILE_NOT_REGULAR,         /* a link, a FIFO, a device, ... */
  RTF_FILE_UNREADABLE,          /* it cannot be opened */
  RTF_FILE_UNPROVEN             /* its index names it, but only by its name:
                                 * no mark, where the set's other files on
                                 * that filesystem carry the recording's */
} RtfFileState;

/* How strongly data and index are known to belong together */
typedef enum
{
  RTF_PROOF_NONE,
  RTF_PROOF_LEGACY,             /* a version 1 index: no name, no id */
  RTF_PROOF_NAME,               /* the index names the file and its number,
                                 * the file carries no mark (a copy, or a
                                 * filesystem without xattrs) */
  RTF_PROOF_MARK                /* ... and the file's mark names the same
                                 * recording and number */
} RtfProof;

typedef struct
{
  gchar *path;
  gchar *index_path;
  guint64 number;               /* in the set (start-index for a file) */
  RtfFileState state;
  RtfProof proof;
  gchar *why;                   /* what was found, when not OK */
  gboolean in_use;              /* a recording (or a tool repairing it)
                                 * holds its lock: it is being written */
  gboolean index_empty;         /* its index is there, 0 bytes: the writer
                                 * never wrote its header, so no frame of
                                 * it was reported written */
  gboolean index_absent;        /* nothing at its index's name */
  RtfIndex *index;              /* when OK (else NULL) */
  guint64 data_size;            /* bytes of the data file */
  struct stat data_st;          /* the data file as identified: what is cut
                                 * is checked to be that inode, unchanged */
  struct stat index_st;         /* the same for the index (st_ino 0: none) */
  gboolean has_mark;            /* the data file's extended attribute */
  gboolean no_marks;            /* its filesystem keeps no extended
                                 * attributes (ramfs): nothing can carry one */
  RtfRecordingId mark_id;
  guint64 mark_number;
  RtfIndexWalk walk;            /* its records against the data (OK) */
  guint64 first_frame;          /* position of its first record in the set */
  gboolean has_successor;       /* a later file of its set (its location's,
                                 * in a spread) and recording holds records:
                                 * it was closed before that one began, so
                                 * a damaged record at its end is no tail a
                                 * crash tore */
  guint location;               /* a spread's: the place of its location in
                                 * the manifest's list (else 0) */
  gboolean alone;               /* given by its own name, not a pattern's:
                                 * its number (0) and later files of its
                                 * set are not known */
} RtfRecordingFile;

/* Identifies one file of a recording (what rtf_recording_open() does for
 * each): number is what the pattern says it is (or G_MAXUINT64 for a
 * single file, whose number is not known). */
void rtf_recording_file_identify (RtfRecordingFile * f, const gchar * path,
    guint64 number);
void rtf_recording_file_clear (RtfRecordingFile * f);

/* Opens f's data file (or its index) again, for reading or for writing to
 * cut it: a descriptor on the same inode as when it was identified, or -1
 * with *why. */
gint rtf_recording_file_reopen (const RtfRecordingFile * f, gboolean index,
    gboolean writable, gchar ** why);

const gchar *rtf_file_state_name (RtfFileState state);

/* The name a hidden prepared file hides (".<name>.<8 hex>.rtfprep", made
 * by rtf-output.c), or NULL when name is none (g_free) */
gchar *rtf_recording_hidden_of (const gchar * name);
/* f's state, with what was found (why, taken; NULL for OK) */
void rtf_recording_file_set_state (RtfRecordingFile * f, RtfFileState state,
    gchar * why);
/* Whether a leftover's index holds no record (nor bytes of one): the
 * sink writes a file's records only once it has its name, so then none of
 * its frames was reported written.  One that holds records lost its
 * rename (a power cut): refused, never deleted. */
gboolean rtf_recording_leftover_holds_none (const RtfRecordingFile * f);

G_END_DECLS
#endif /* __RTF_RECORDING_FILE_H__ */
