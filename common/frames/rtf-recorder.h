/* rtframe: an event recorder's decisions - for each frame, whether it is
 * written (a recording asked for holds it), held in memory for a
 * recording that may start (pre-record), or let go; the recordings asked
 * for (rtf-schedule.h: the requests alone decide them); and the frames
 * held, which a start hands to the writer as its backlog.  No I/O, no
 * GStreamer: the element passes each frame's running time in and does what
 * it is told (gst/gstrtframerecord.c); the writer writes (rtf-writer.h).
 *
 * Frames are placed by position: a frame's running time, or just after
 * the frame before when it has none or goes back.  A frame is written when
 * a recording asked for holds its position; frames the producer has
 * handled are decided, so a request at a running time the frames passed
 * takes effect from the next frame (with the frames still held). */
#ifndef __RTF_RECORDER_H__
#define __RTF_RECORDER_H__

#include "rtf-frame.h"
#include "rtf-schedule.h"

G_BEGIN_DECLS
/* A running time that means "the next frame" (start/stop asked for now,
 * with no clock to tell the running time of now) */
#define RTF_RECORDER_NEXT G_MAXUINT64
/* No frame yet (rtf_recorder_position()) */
#define RTF_RECORDER_NONE G_MAXUINT64
typedef struct _RtfRecorder RtfRecorder;

/* What becomes of a frame */
typedef enum
{
  RTF_RECORD_WRITE,             /* a recording is on: hand it to the writer */
  RTF_RECORD_HOLD,              /* keep it in memory: rtf_recorder_hold() */
  RTF_RECORD_LET_GO             /* not recording and nothing is kept */
} RtfRecordAction;

/* What a frame's arrival changed, before what becomes of it */
typedef struct
{
  gboolean stopped;             /* the recording ended before this frame */
  guint64 stop_asked;           /* ... at this running time (NEXT: now) */
  gboolean started;             /* a recording starts: its backlog first
                                 * (rtf_recorder_pop_backlog()), then this
                                 * frame if it is written */
  guint64 start_asked;          /* ... asked for at this running time */
  guint64 start_from;           /* frames from this running time on are
                                 * its (the start less pre-record-time) */
  guint backlog;                /* held frames it begins with */
  gboolean ended;               /* ... and it ended before this frame too
                                 * (a start and a stop both passed): its
                                 * backlog is all of it */
  guint64 end_asked;            /* ... at this running time */
  guint64 serial;               /* the recording started: its span's */
  gchar id[RTF_RECORDING_ID_MAX];       /* ... and its id ("": none) */
  gboolean more;                /* another turn at this frame follows:
                                 * rtf_recorder_next_turn() once this one
                                 * is carried out */
} RtfRecordTurn;

/* A frame held in memory */
typedef struct
{
  guint64 seq;                  /* its number (rtf_writer_hold()) */
  gsize size;
  RtfFrameTimes times;
  RtfFrameOrigin origin;        /* what upstream said of it */
  gpointer data;                /* the producer's: what holds its bytes */
  guint64 position;             /* the recorder's (rtf_recorder_hold()) */
} RtfHeldFrame;

/* A request's answer, and where the frames were when it came */
typedef struct
{
  RtfAnswer answer;
  guint64 running_time;         /* the T it was taken at ("now" resolved) */
  guint64 recording_at;         /* extend: the A it was taken at */
  guint64 position;             /* the newest frame's (NONE: none yet) */
  gboolean passed;              /* T is at or before it: the change is made
                                 * from the next frame */
} RtfRecordReply;

/* recording: on from the first frame (record=true); pre_record_ns: how far
 * back frames are kept while not recording (0: none); at most max_frames
 * of at most max_bytes in all. */
RtfRecorder *rtf_recorder_new (gboolean recording, guint64 pre_record_ns,
    guint max_frames, guint64 max_bytes);
void rtf_recorder_free (RtfRecorder * r);
/* recording: the id of the recording from the first frame */
void rtf_recorder_name_first (RtfRecorder * r, const gchar * id);
/* At most n frames held from now on (n <= the max_frames it was made
 * with): the frame size is known later than the bound of its memory */
void rtf_recorder_set_max_frames (RtfRecorder * r, guint n);

/* ---- any thread ------------------------------------------------------ */

/* A request, answered (rtf-schedule.h) and with commit made; a running
 * time of RTF_RECORDER_NEXT is the next frame.  FALSE: refused, nothing
 * changed. */
gboolean rtf_recorder_request (RtfRecorder * r, const RtfRequest * q,
    gboolean commit, RtfRecordReply * reply);
/* Shorthands: a start or a stop at running_time, made; FALSE with *why */
gboolean rtf_recorder_start (RtfRecorder * r, guint64 running_time,
    gchar ** why);
gboolean rtf_recorder_stop (RtfRecorder * r, guint64 running_time,
    gchar ** why);
/* The newest frame's position (RTF_RECORDER_NONE: none yet) */
guint64 rtf_recorder_position (RtfRecorder * r);
/* Recording, or asked to start (what the `record` property reads) */
gboolean rtf_recorder_wanted (RtfRecorder * r);
/* How many frames and bytes are held now */
guint rtf_recorder_held (RtfRecorder * r, guint64 * bytes);

/* The positions (running times) the frames held span, not expired: how
 * far back a recording starting now reaches (0: none or one held) */
guint64 rtf_recorder_held_span (RtfRecorder * r);
/* The number of the oldest frame held, expired or not (G_MAXUINT64:
 * none) */
guint64 rtf_recorder_oldest_held (RtfRecorder * r);

/* ---- the producer's thread ------------------------------------------- */

/* The next frame, of running time rt (G_MAXUINT64: none), comes.  Before
 * it is handled, the producer carries out the turn: the recording on
 * stopped, rtf_recorder_pop_expired() let go (held frames too old for the
 * recording that started), rtf_recorder_pop_backlog() handed over, that
 * recording ended; while turn->more, rtf_recorder_next_turn() gives the
 * next turn at the same frame.  The last turn's action is the frame's. */
RtfRecordAction rtf_recorder_next_frame (RtfRecorder * r, guint64 rt,
    RtfRecordTurn * turn);
RtfRecordAction rtf_recorder_next_turn (RtfRecorder * r,
    RtfRecordTurn * turn);
/* HOLD: room for the newest frame, of `size` bytes, is made first (the
 * oldest frames expire: rtf_recorder_pop_expired()); then it is kept.
 * FALSE: it cannot be held at all (larger than the byte limit, or no
 * frame may be held). */
gboolean rtf_recorder_make_room (RtfRecorder * r, gsize size);
void rtf_recorder_hold (RtfRecorder * r, const RtfHeldFrame * f);
/* The producer has no memory free for the frame to hold (what it holds
 * frames in is shared with a backlog still being written): the oldest
 * held frame expires too.  FALSE when none is held. */
gboolean rtf_recorder_expire_oldest (RtfRecorder * r);
/* Held frames to let go, oldest first: FALSE when none is left */
gboolean rtf_recorder_pop_expired (RtfRecorder * r, RtfHeldFrame * out);
/* The backlog of the recording that started, oldest first.  Its times
 * are the writer's: a backlog frame is due when it would have been had it
 * been written live, with the backlog replayed from `now` at the pace the
 * frames came (arrival - the first's arrival + now), plus `deadline` (0:
 * none).  FALSE when none is left. */
gboolean rtf_recorder_pop_backlog (RtfRecorder * r, gint64 now,
    guint64 deadline, RtfHeldFrame * out);
/* Every held frame goes (EOS, a flush, the end): FALSE when none is left */
gboolean rtf_recorder_pop_all (RtfRecorder * r, RtfHeldFrame * out);

G_END_DECLS
#endif /* __RTF_RECORDER_H__ */
