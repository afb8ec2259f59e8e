/* What must hold at every point of the power-cut test for a ring (a sink
 * with keep-location: pre-record on disk, each recording kept by linking
 * the ring's files into a directory of its own), against what the sink
 * had told before the point (a ring's recording-started, -stopped and
 * file-kept are each followed by a mark: powercut-record.c):
 *  (a) every frame the sink told durable (the marks' claims) of a
 *      recording told started, from its first frame to its last (told
 *      stopped, else short of the stop asked), whose ring file it told
 *      kept, is in the recording's directory or still at its ring name,
 *      byte-exact.  A power cut may lose a link made after the last
 *      journal commit, but then also the ring's later deletion of that
 *      name (XFS logs metadata in order): a frame in neither place says
 *      that order broke, or a keep that did not keep;
 *  (b) no frame is twice in one directory, and each directory holds the
 *      ring's files only: names of the ring's pattern (data and index),
 *      each the ring's inode where the ring's name is still there, its
 *      index and its mark (the extended attribute) naming the ring's
 *      recording id and that number, every frame in it byte-exact and one
 *      the ring wrote into that file;
 *  (c) rtframe-recover --dry-run and rtframe-verify on each directory,
 *      and rtframe-recover --dry-run on the ring after its recovery, say
 *      nothing but a power cut's torn tail (what recover cuts, or leaves
 *      with its reason) - in a directory also a file kept while its first
 *      frame was in flight, with no record (recover would delete it), and
 *      a data file whose index the cut did not let be linked (the data is
 *      linked first; the ring's index is still there, or it holds no
 *      durable frame);
 *  (d) no frame a recording told started needs (as in (a)) whose file it
 *      has not told kept yet is in neither place: the ring never deletes
 *      a file a recording still has to link.  Excused in (a) and (d): a
 *      file the sink said min-free-space deleted (its frames-lost). */
#ifndef __POWERCUT_KEEP_H__
#define __POWERCUT_KEEP_H__

#include "powercut-history.h"

G_BEGIN_DECLS

/* The ring of sink (keep set) under root, after pc_read_sink() ran
 * rtframe-recover on it, held against the claims of mark m (NULL: none
 * yet) and the messages told before it; problems and notes appended */
void pc_check_keeps (const PcScenario * sc, const PcHistory * h, guint sink,
    const PcMark * m, const gchar * root, const gchar * tools,
    GString * problems, GString * notes);

G_END_DECLS
#endif /* __POWERCUT_KEEP_H__ */
