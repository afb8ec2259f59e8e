/* rtframe-record: control and status over one local HTTP port (libsoup
 * 3): GET /status (JSON), GET /metrics (Prometheus), POST /record/start,
 * /record/stop (a running time or now), /trigger, /split.  Bound to
 * localhost unless asked; with a token file every request must carry
 * "Authorization: Bearer <token>".  docs/deploying.md has the API. */
#ifndef __RTR_HTTP_H__
#define __RTR_HTTP_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* What the API asks the recorder; each returns an HTTP status and a
 * message for the reply (taken) */
typedef struct
{
  guint (*record) (gpointer data, gboolean start, GstClockTime at,
      gchar ** message);
  guint (*trigger) (gpointer data, gchar ** message);
  guint (*split) (gpointer data, gchar ** message);
  gchar *(*status) (gpointer data);     /* JSON */
  gchar *(*metrics) (gpointer data);    /* Prometheus text */
} RtrControl;

typedef struct _RtrHttp RtrHttp;

/* Checks listen ("HOST:PORT", "PORT" for 127.0.0.1) and reads the token
 * file: FALSE with *error before anything records.  A non-loopback
 * address needs a token. */
gboolean rtr_http_check (const gchar * listen, const gchar * token_file,
    GError ** error);

/* idle_seconds: a connection doing nothing that long is closed */
RtrHttp *rtr_http_start (const gchar * listen, const gchar * token_file,
    guint idle_seconds, const RtrControl * control, gpointer data,
    GError ** error);
void rtr_http_free (RtrHttp * h);

/* The largest request body taken (bytes) */
#define RTR_HTTP_MAX_BODY 4096

G_END_DECLS

#endif /* __RTR_HTTP_H__ */
