/* rtframe tests: an rtframesink fed by a GstHarness, with a bus of its own */
#ifndef __RTF_TEST_SINK_H__
#define __RTF_TEST_SINK_H__

#include <gst/check/gstcheck.h>
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

/* The element tests' caps: [0] P010 2048x928 (5.7 MB), [1] P010 1920x1080
 * (6.2 MB), [2] v210 1280x720, [3] I420_10LE 33x7 (odd), then 4 more */
extern const gchar *const rtf_test_formats[8];
/* The size of a frame of `caps` */
gsize rtf_test_frame_size (const gchar * caps);

/* How a frame reaches the sink (rtf_test_make_frame()) */
typedef enum
{
  INPUT_POOL,                   /* from the pool the sink proposed */
  INPUT_UNALIGNED,              /* one memory at an odd address */
  INPUT_PIECES,                 /* three memories */
  INPUT_STRIDED,                /* padded rows, described by GstVideoMeta */
  INPUT_MOVED                   /* the default strides, planes elsewhere
                                 * (GstVideoMeta): a decoder's or camera's
                                 * planes aligned to 16 rows */
} InputKind;

/* Frame `seq` of stream 0 laid out as `kind`, pts seq/20 s */
GstBuffer *rtf_test_make_frame (GstHarness * h, const gchar * caps,
    guint64 seq, InputKind kind);

/* A guint64 property of the harness's element */
guint64 rtf_test_get_u64 (GstHarness * h, const gchar * prop);
/* Empties the bus: returns the element messages `name`, QoS ones in *qos */
GList *rtf_test_pop_messages (GstBus * bus, const gchar * name, GList ** qos);
/* Empties the bus: returns the element messages `name` */
GList *rtf_test_pop_element_messages (GstBus * bus, const gchar * name);
/* The element's `stats` (free it) */
GstStructure *rtf_test_get_stats (GstHarness * h);
/* A guint64 field of `stats`, which must be there */
guint64 rtf_test_stat_u64 (const GstStructure * s, const gchar * field);
/* A guint64 field of a message, which must be there */
guint64 rtf_test_msg_u64 (GstMessage * msg, const gchar * field);
/* A gint64 field of a message, which must be there */
gint64 rtf_test_msg_time (GstMessage * msg, const gchar * field);
gint64 rtf_test_msg_i64 (GstMessage * msg, const gchar * field);
/* received = written + dropped + lost + discarded + held for pre-record +
 * queued + in flight */
void rtf_test_assert_accounting (const GstStructure * s);

/* A test case of `s` whose tests each get a directory (rtf_test_tmp_path) */
TCase *rtf_test_tcase (Suite * s, const gchar * name);

G_END_DECLS

#endif
