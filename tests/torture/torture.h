/* The torture test of issue 23: the modes of the one program (the parent
 * runs rounds; it execs itself as the recording child of a round and as
 * the rtframesrc reader of the checker). */
#ifndef __TORTURE_H__
#define __TORTURE_H__

#include <glib.h>

G_BEGIN_DECLS

/* --record SEED ROUND_DIR ABILITIES: records the round's plan in the world
 * the parent made, its history in ROUND_DIR/history.  Exit 0 when it
 * went through (errors of the sink included: they are in the history). */
gint torture_record_main (guint64 seed, const gchar * round_dir,
    guint abilities);

/* --read LOCATION START_INDEX STREAM FRAME_SIZE DURATION_NS OUT: plays the
 * recording through rtframesrc and writes one line per buffer to OUT:
 * "f K OFFSET PTS" (a frame byte-exact as stamped K) or "bad N WHY", then
 * "eos" or "error TEXT". */
gint torture_read_main (const gchar * location, guint64 start_index,
    guint stream, gsize frame_size, guint64 duration_ns, const gchar * out);

G_END_DECLS
#endif /* __TORTURE_H__ */
