/* rtframe-record: what to record - the cameras, each a GStreamer source
 * description with its caps and its rtframesink's properties, and how -
 * from the command line or a config file (a GLib key file; examples/ has
 * one per common rig).  The pipeline is built and checked in
 * rtr-pipeline.c; here only the words are read. */
#ifndef __RTR_CONFIG_H__
#define __RTR_CONFIG_H__

#include <glib.h>

G_BEGIN_DECLS
#define RTR_MAX_CAMERAS 16
/* The longest time a setting may give, in seconds (30 days) */
#define RTR_MAX_SECONDS 2592000.0
/* Exit statuses (docs/deploying.md) */
    typedef enum
{
  RTR_EXIT_OK = 0,              /* every frame offered was written */
  RTR_EXIT_ERROR = 1,           /* a recording ended with an error */
  RTR_EXIT_USAGE = 2,           /* bad input: nothing was recorded */
  RTR_EXIT_FRAMES = 3           /* recorded, but frames were dropped or lost */
} RtrExit;

typedef struct
{
  gchar *name;                  /* the sink's name: cam0, left, ... */
  gchar *source;                /* a source description, as gst-launch's */
  gchar *caps;                  /* caps between source and sink, or NULL */
  gchar *location;              /* rtframesink's location */
  gchar **sink;                 /* rtframesink properties, "name=value" */
} RtrCamera;

typedef struct
{
  GPtrArray *cameras;           /* RtrCamera */
  gchar *dir;                   /* where default locations go */
  gdouble seconds;              /* then EOS; 0: until stopped */
  guint rotate;                 /* a new file every S seconds, 0: one */
  gboolean events;              /* record only what a trigger asks */
  gboolean idle;                /* takes: none until one is started */
  gdouble pre_record;           /* events: seconds kept from before */
  gboolean pre_record_on_disk;  /* ... in a ring of files on the disk,
                                 * each event keeping its files in a
                                 * directory of its own (keep-location) */
  gdouble post_record;          /* events: seconds after a trigger */
  gchar **event_at;             /* events: triggers at these seconds */
  gdouble stop_timeout;         /* a stop's EOS waited for, seconds */
  gdouble http_idle_timeout;    /* an HTTP connection doing nothing is
                                 * closed after this many seconds */
  gdouble status_every;         /* not on a terminal: a status line every
                                 * this many seconds (0: none) */
  gchar *http;                  /* the API's HOST:PORT, or NULL: none */
  gchar *http_token_file;       /* its token, or NULL: none asked */
  gboolean http_control_open;   /* no token: commands from anyone who
                                 * reaches the port (http-control=open) */
  gchar *origin;                /* "the command line" or the file's path */
  gboolean demo;                /* the demo's cameras, which end by
                                 * themselves after seconds (num-buffers) */
  gboolean overwrite;           /* a camera's file there already may be
                                 * recorded over (rtr-takes.h) */
  gboolean require_mount;       /* every camera's directories on a
                                 * filesystem other than the root's, */
  gchar **require_mounts;       /* or on one mounted at these (NULL: any
                                 * but the root's) */
} RtrConfig;

RtrConfig *rtr_config_new (void);
void rtr_config_free (RtrConfig * c);

/* Reads a config file: a [recorder] group and one [camera NAME] group a
 * camera.  Unknown groups and keys are errors (a typo records nothing
 * rather than the wrong thing).  FALSE with *error set. */
gboolean rtr_config_load (RtrConfig * c, const gchar * path, GError ** error);

/* Adds a camera; sink_props is a shell-quoted list of name=value */
gboolean rtr_config_add_camera (RtrConfig * c, const gchar * name,
    const gchar * source, const gchar * caps, const gchar * location,
    const gchar * sink_props, GError ** error);

/* The demo: n videotestsrc cameras at caps (frames for c->seconds) */
gboolean rtr_config_add_demo (RtrConfig * c, guint n, const gchar * caps,
    const gchar * sink_props, GError ** error);

/* Checks what goes together (names unique, times sane); fills default
 * locations in c->dir */
gboolean rtr_config_check (RtrConfig * c, GError ** error);

/* Sets *error (RTR_CONFIG_ERROR) to the message; returns FALSE */
gboolean
rtr_config_fail (GError ** error, const gchar * format, ...)
G_GNUC_PRINTF (2, 3);

#define RTR_CONFIG_ERROR (rtr_config_error_quark ())
     GQuark rtr_config_error_quark (void);

G_END_DECLS
#endif /* __RTR_CONFIG_H__ */
