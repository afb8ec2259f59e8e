/* What must hold at every point of the power-cut test, against what the
 * recorder was told:
 *  - every frame a mark claims durable (the first N frames written at a
 *    location, N the frames-durable told before the mark) is played by
 *    rtframesrc after rtframe-recover, byte-exact, once - unless its file
 *    was gone before the readers ran and the sink said it deleted it
 *    (max-files, min-free-space: the unlink may reach the disk before
 *    the message);
 *  - no frame is played twice, and none with bytes other than its stamp
 *    says (powercut-read.c checks each buffer);
 *  - the user's files are as they were. */
#ifndef __POWERCUT_INVARIANTS_H__
#define __POWERCUT_INVARIANTS_H__

#include "powercut-history.h"
#include "powercut-read.h"

G_BEGIN_DECLS

/* Keys of (location, file number) of sink's files the sink said it
 * deleted */
GHashTable *pc_deleted_files (const PcScenario * sc, const PcHistory * h,
    guint sink);
/* Keys of the files of the frames mark m claims for sink that are not on
 * disk under root now (take it before rtframe-recover runs), each one
 * whose deletion the disk shows possible: a later file of its location
 * is there */
GHashTable *pc_claimed_files_gone (const PcScenario * sc, const PcHistory * h,
    guint sink, const PcMark * m, const gchar * root);
/* Every frame m claims for sink against what was read; problems appended */
void pc_check_claims (const PcScenario * sc, const PcHistory * h, guint sink,
    const PcMark * m, const PcRead * r, GHashTable * deleted,
    GHashTable * gone, GString * problems);
/* The user's files under root, byte for byte */
void pc_check_foreign (const PcScenario * sc, const gchar * root,
    GString * problems);

G_END_DECLS
#endif /* __POWERCUT_INVARIANTS_H__ */
