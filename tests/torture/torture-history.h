/* The torture test's history: what the recording child was told and did,
 * one line per event, each appended with one write(2) the moment it
 * happens, so a SIGKILL keeps everything seen before it.
 *
 *   session S                 a recording (S = 0, or 1 after a restart)
 *   push K                    frame K (its stamp) was accepted by appsrc
 *   in PTS RT                 a frame reached the sink's pad (its running
 *                             time): what the sink was asked to record
 *   w FRAME PTS OFFSET FILE LOCATION   rtframesink-frame-written
 *   q PTS                     a QoS message: the sink dropped that frame
 *   msg STRUCTURE             another element message of the sink
 *   free BYTES                the free space right after the message
 *                             before it (a deletion for min-free-space)
 *   error DOMAIN CODE TEXT -- DEBUG      (escaped; warning: the same)
 *   eos                       EOS reached the bus
 *   act-begin MS WHAT RT P    an event-recording action begins (RT: the
 *                             clock's running time, G_MAXUINT64 none; P:
 *                             1 when the sink is PLAYING)
 *   act MS WHAT RESULT RT AT P  it returned (AT: the running time asked,
 *                             G_MAXUINT64 for now)
 *   fault MS WHAT RESULT      a fault, from the fault thread
 *   mid FRAME WHAT RESULT     a change in the stream, by the pushing thread
 *   final S STRUCTURE         the stats at the end of session S
 *   end HOW                   the child is done (exit follows)
 */
#ifndef __TORTURE_HISTORY_H__
#define __TORTURE_HISTORY_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* ---- writing (the child) ----------------------------------------------- */
/* Opens (appends to) the history; -1 on failure */
gint torture_history_open (const gchar * path);
/* Appends one line (a '\n' is added) with one write(2); FALSE if it could
 * not (the child then exits: a history with holes proves nothing) */
gboolean torture_history_printf (gint fd, const gchar * fmt, ...)
    G_GNUC_PRINTF (2, 3);

/* ---- reading (the checker) --------------------------------------------- */

typedef struct
{
  guint64 frame;           /* the sink's number */
  guint64 k;               /* the stamp: pts / duration */
  guint64 offset;
  guint64 file;            /* its file's number in the set */
  guint location;          /* the location that holds it */
  gboolean placed;         /* file and location known (older histories
                            * have neither) */
} TortureWritten;

/* A frame that reached the sink's pad */
typedef struct
{
  guint64 k;               /* its stamp (G_MAXUINT64: a pts no frame had) */
  guint64 rt;              /* its running time (G_MAXUINT64: none) */
  guint line;              /* where in the history */
} TortureIn;

/* An event-recording action, between its two lines */
typedef struct
{
  gchar *what;             /* torture_act_name () */
  gboolean ok;             /* what the sink answered */
  guint64 rt_before, rt_after;     /* the clock's running time around it */
  guint64 at;              /* the running time asked (G_MAXUINT64: now) */
  gboolean playing;        /* the sink was PLAYING at both ends (else
                            * "now" may have been the next frame) */
  guint line_begin, line_end;
} TortureAct;

typedef struct
{
  gchar *domain;           /* "RESOURCE", "STREAM", "CORE", ... */
  gint code;
  gchar *code_name;        /* "NO_SPACE_LEFT", ... */
  gchar *text, *debug;
} TortureError;

typedef struct
{
  gboolean seen;
  guint64 first_k, last_k; /* frames pushed in this session */
  guint64 pushed;
  GArray *in;              /* TortureIn, in the order they came */
  GArray *written;         /* TortureWritten, in the order told */
  GArray *dropped;         /* guint64 stamps of the QoS messages (a drop
                            * each; G_MAXUINT64: a pts no frame had) */
  GArray *acts;            /* TortureAct: the actions, in order */
  GArray *mids;            /* guint: the lines of "mid" changes */
  guint first_error_line;  /* G_MAXUINT: none */
  GPtrArray *errors, *warnings;    /* TortureError */
  gboolean eos;
  GPtrArray *messages;     /* GstStructure: file-opened/closed/deleted,
                            * location-left, recording-*, stats; a
                            * deletion followed by a "free" line carries
                            * it as its field "torture-free-after";
                            * each its line as "torture-line" (guint) */
  GstStructure *final;     /* stats at its end (NULL: none) */
} TortureSession;

typedef struct
{
  TortureSession s[2];
  gchar *end;              /* the child's last word, NULL if none */
  gboolean killed_self;    /* a "fault ... kill" line */
  gboolean moved_dir, removed_dir;
  GPtrArray *lines;        /* every line (for the tail) */
  guint bad_lines;
} TortureHistory;

TortureHistory *torture_history_read (const gchar * path,
    guint64 duration_ns);
void torture_history_free (TortureHistory * h);
/* The last n lines, indented (g_free) */
gchar *torture_history_tail (const TortureHistory * h, guint n);
/* "RESOURCE/NO_SPACE_LEFT: text" */
gchar *torture_error_string (const TortureError * e);

G_END_DECLS
#endif /* __TORTURE_HISTORY_H__ */
