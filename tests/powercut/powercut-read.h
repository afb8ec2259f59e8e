/* The power-cut test's readers at a point: one sink's recording, as the
 * replay left it mounted, through rtframe-recover (first: a power cut is
 * a crash), rtframe-verify, rtframe-dump and rtframesrc (in this process:
 * every buffer held against the stamp it carries). */
#ifndef __POWERCUT_READ_H__
#define __POWERCUT_READ_H__

#include "powercut-scenario.h"

G_BEGIN_DECLS

typedef struct
{
  GHashTable *played;           /* stamp -> times rtframesrc played it */
  guint64 n_played;
  guint64 verified;             /* rtframe-verify's count (G_MAXUINT64:
                                 * it could not say) */
  guint64 dumped;               /* rows rtframe-dump wrote */
  gint recover_exit, verify_exit, dump_exit;
  gboolean src_error;           /* rtframesrc ended with an error */
  gboolean nothing;             /* no recording there yet to read */
  GString *problems;            /* a frame read wrong, readers that
                                 * disagree, a tool that crashed */
  GString *notes;               /* what the tools said */
} PcRead;

/* What rtframe-recover, -verify, -dump and rtframesrc make of sink's
 * recording under root; tools: the directory of the rtframe tools */
void pc_read_sink (const PcScenario * sc, guint sink, const gchar * root,
    const gchar * tools, PcRead * out);
void pc_read_clear (PcRead * r);

/* The pieces, for other readers (powercut-keep.c): a tool of tools run
 * on target (and one more argument, or NULL), bounded; whether its
 * output tells a sanitizer's finding; the files rtframe-recover's output
 * says it left a power cut's tail in (a frame's data durable before its
 * record: g_ptr_array_unref); whether every FAULT of rtframe-verify's
 * output is a user's file or such a tail; its lines that are not a
 * file's OK (g_free) */
gint pc_read_tool (const gchar * tools, const gchar * name,
    const gchar * target, const gchar * extra, gchar ** out);
gboolean pc_read_says_sanitizer (const gchar * text);
GPtrArray *pc_read_tails_left (const gchar * out);
gboolean pc_read_faults_explained (const PcScenario * sc, const gchar * root,
    const gchar * out, GPtrArray * tails);
gchar *pc_read_fault_lines (const gchar * out);

/* Whether a tool's line is a FAULT naming one of files */
gboolean pc_read_names_one_of (const gchar * line, GPtrArray * files);

G_END_DECLS
#endif /* __POWERCUT_READ_H__ */
