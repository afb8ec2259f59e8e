/* rtframe: what rtframe-recover may do to one file of a recording that
 * did not end cleanly, and doing it.  The rule (docs/reliability.md): a
 * file is cut or deleted only when it is proven a file of the recording
 * (rtf-recording.c), only its tail goes - bytes past the last whole frame
 * and records past the last one whose frame is whole - and never more
 * than a crash can leave there without --force. */
#ifndef __RTF_RECOVER_H__
#define __RTF_RECOVER_H__

#include "rtf-check.h"
#include "rtf-recording.h"

G_BEGIN_DECLS typedef enum
{
  RTF_RECOVER_WHOLE,            /* nothing to do */
  RTF_RECOVER_CUT,              /* cut the data and the index to keep_* */
  RTF_RECOVER_DELETE,           /* no frame: delete both (proven ours) */
  RTF_RECOVER_REFUSE            /* leave it as it is (why) */
} RtfRecoverAction;

/* Frames in flight a version 1 index does not state: the sink's default
 * io-depth, what it used before the header said */
#define RTF_RECOVER_LEGACY_IN_FLIGHT 4
/* The largest write alignment the sink uses (rtf-file.c MAX_BLOCK) */
#define RTF_RECOVER_MAX_BLOCK (1024 * 1024)

typedef struct
{
  RtfRecoverAction action;
  guint64 keep_bytes;           /* the data file's size after */
  guint64 keep_index_bytes;     /* the index's size after */
  guint64 keep_frames;          /* the whole frames it keeps */
  guint64 torn_frames;          /* indexed frames cut with the tail: their
                                 * bytes never reached the disk */
  guint64 cut_bytes;            /* data bytes past the last whole frame */
  guint64 cut_records;          /* index records past it, whole or torn */
  guint64 limit;                /* most data bytes a crash leaves past the
                                 * last record (max-in-flight frames and a
                                 * block) */
  gboolean needs_force;         /* more than that, or an old index that
                                 * does not cover the data */
  gchar *why;                   /* what it found (refusals, --force) */
} RtfRecoverPlan;

/* What may be done to f (identified as a file of rec), from its index
 * and sizes.  The caller has checked its frames' checksums
 * (rtf_check_file()): a read error there refuses; a mismatch is
 * rtf_recover_plan_sums()'s. */
void rtf_recover_plan (const RtfRecording * rec, const RtfRecordingFile * f,
    RtfRecoverPlan * plan);
/* Fits the plan to the checksums compared (check: f's).  Frames that do
 * not match at the end of a crash's tail, none matching after them, are
 * a torn pair of a power cut - their records reached the disk, their
 * bytes did not (they read as what was there before, zeros on a new
 * extent), so they were never durable - and are cut with the tail: no
 * whole frame goes.  Any other mismatch keeps the whole file as it is
 * (the bytes may not be the recording's: a file written over it, or
 * damage). */
void rtf_recover_plan_sums (const RtfRecording * rec,
    const RtfRecordingFile * f, const RtfCheck * check, RtfRecoverPlan * plan);
void rtf_recover_plan_clear (RtfRecoverPlan * plan);

/* Fits f's plan to the run it is part of, which plans a location's files
 * from its last back to its first (so that a run killed midway leaves no
 * hole): later_stays, a later file of f's location stays.  A delete is
 * refused while a later file stays (a hole in the set), and a file with
 * no frame that would be the last of its spread location is kept, cut
 * to nothing (deleted, the location would read as a disk lost).  The
 * one place that rule lives: every run over a recording calls it. */
void rtf_recover_plan_in_run (const RtfRecording * rec,
    const RtfRecordingFile * f, gboolean later_stays, RtfRecoverPlan * plan);

/* The same for a hidden prepared file a crash left (rec->leftovers): when
 * its index holds no record, no frame of it was ever reported written (the
 * writer reports a file's frames once it has its name), so it is deleted
 * when its mark proves the sink made it for that number of this
 * recording; one whose index holds records is left (its name was lost). */
void rtf_recover_plan_leftover (const RtfRecording * rec,
    const RtfRecordingFile * f, RtfRecoverPlan * plan);


/* Does it: the data file opened again (same inode, no link followed),
 * locked, its size still what the plan was made for; then cut or
 * deleted, and fdatasync'ed.  0, or an errno with *why. */
gint rtf_recover_apply (const RtfRecordingFile * f,
    const RtfRecoverPlan * plan, gchar ** why);

G_END_DECLS
#endif /* __RTF_RECOVER_H__ */
