/* rtframe-record: control and status over one local HTTP port (libsoup
 * 3): GET /status (JSON), GET /metrics (Prometheus), POST /record/start,
 * /record/stop (a running time or now; a start a label), /trigger (a
 * label), /split, GET /events, POST /events/<id>/note.  Bound to
 * localhost unless asked; with a token file every request must carry
 * "Authorization: Bearer <token>"; without one the commands (POST) are
 * refused (403) unless control_open.  docs/deploying.md has the API. */
#ifndef __RTR_HTTP_H__
#define __RTR_HTTP_H__

#include <gst/gst.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS
/* What the API asks the recorder; each returns an HTTP status and adds
 * its reply's members to `reply` (a JSON object; "ok" is added after) */
    typedef struct
{
  guint (*record) (gpointer data, gboolean start, GstClockTime at,
      const gchar * label, JsonBuilder * reply);
  guint (*trigger) (gpointer data, const gchar * label, JsonBuilder * reply);
  guint (*split) (gpointer data, JsonBuilder * reply);
  guint (*note) (gpointer data, const gchar * id, const gchar * note,
      JsonBuilder * reply);
  gchar *(*events) (gpointer data);     /* JSON */
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
/* The address listen names as a URL (http://127.0.0.1:8096 for 8096) */
gchar *rtr_http_url (const gchar * listen);
RtrHttp *rtr_http_start (const gchar * listen, const gchar * token_file,
    gboolean control_open, guint idle_seconds, const RtrControl * control,
    gpointer data, GError ** error);
void rtr_http_free (RtrHttp * h);

/* The largest request body taken (bytes) */
#define RTR_HTTP_MAX_BODY 4096

G_END_DECLS
#endif /* __RTR_HTTP_H__ */
