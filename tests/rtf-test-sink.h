/* rtframe tests: an rtframesink fed by a GstHarness, with a bus of its own */
#ifndef __RTF_TEST_SINK_H__
#define __RTF_TEST_SINK_H__

#include <gst/check/gstharness.h>

G_BEGIN_DECLS

GstHarness *rtf_test_sink_new (const gchar * location, const gchar * props,
    const gchar * caps, GstBus ** bus);
/* The same, with `handler` as the bus's sync handler from before the
 * element starts (it sees the STREAM_STATUS of every thread) */
GstHarness *rtf_test_sink_new_full (const gchar * location,
    const gchar * props, const gchar * caps, GstBusSyncHandler handler,
    gpointer data, GstBus ** bus);
void rtf_test_sink_free (GstHarness * h, GstBus * bus);

/* A recording fed frame by frame: stamped frames (rtf_test_fill_frame())
 * with pts seq/20 s. */
typedef struct
{
  GstHarness *h;
  GstBus *bus;
  gsize frame_size;
  gchar *location;
} Rec;

Rec *rtf_test_rec_start (const gchar * location, const gchar * props,
    const gchar * caps);
GstFlowReturn rtf_test_rec_push (Rec * r, guint stream, guint64 seq);
guint64 rtf_test_rec_u64 (Rec * r, const gchar * prop);
void rtf_test_rec_stop (Rec * r);

/* The next ERROR or WARNING message: its domain, code, and its text
 * contains `substr` (NULL: any).  Prints the text. */
void rtf_test_assert_message (GstBus * bus, GstMessageType type,
    GQuark domain, gint code, const gchar * substr);
void rtf_test_assert_no_message (GstBus * bus, GstMessageType type);
/* An element of `factory` with `location` and `props` ("name=value ...")
 * fails to start, with a RESOURCE error `code` saying `substr` */
void rtf_test_assert_start_fails (const gchar * factory,
    const gchar * location, const gchar * props, gint code,
    const gchar * substr);

/* `path` holds exactly frames 0..n-1 of `stream` */
void rtf_test_assert_file (const gchar * path, gsize frame_size,
    guint stream, guint64 n);
/* `path` holds exactly frames first .. first + n - 1 of stream 0 */
void rtf_test_assert_frames (const gchar * path, gsize frame_size,
    guint64 first, guint64 n);

/* Records frames 0 .. frames-1 (stream 0) to location with props, then
 * EOS; no error may come */
void rtf_test_record (const gchar * location, const gchar * props,
    const gchar * caps, guint64 frames);

/* A launch line played until EOS (an error fails the test); the pipeline
 * is still PLAYING: rtf_test_stop_pipeline() sets it to NULL, unrefs it */
GstElement *rtf_test_play_to_eos (const gchar * desc);
void rtf_test_stop_pipeline (GstElement * pipe);
/* `path` holds the same bytes as `ref`, which is not empty; else says how
 * many differ and the first */
void rtf_test_assert_same_bytes (const gchar * path, const gchar * ref);

G_END_DECLS

#endif
