/* rtframe-record: the HTTP API */
#include "rtr-http.h"
#include "rtr-config.h"
#include "rtr-http-gate.h"
#include "rtr-http-linger.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <string.h>
#include <unistd.h>

struct _RtrHttp
{
  SoupServer *server;
  RtrHttpGate *gate;            /* listens; idle and surplus connections */
  RtrHttpLingers *lingers;      /* refused connections, drained, then closed */
  gchar *token;                 /* NULL: none asked */
  gboolean control_open;        /* without a token, commands from anyone
                                 * who reaches the port */
  const RtrControl *control;
  gpointer data;
};

/* ---- the address and the token ---------------------------------------- */

static GInetSocketAddress *
parse_listen (const gchar * listen, GError ** error)
{
  const gchar *colon = strrchr (listen, ':');
  gchar *host = colon ? g_strndup (listen, colon - listen) :
      g_strdup ("127.0.0.1");
  const gchar *port_text = colon ? colon + 1 : listen;
  gchar *end = NULL;
  guint64 port = g_ascii_strtoull (port_text, &end, 10);
  GSocketAddress *a = NULL;

  /* [::1]:8090 */
  if (host[0] == '[' && host[strlen (host) - 1] == ']') {
    gchar *inner = g_strndup (host + 1, strlen (host) - 2);

    g_free (host);
    host = inner;
  }
  if (end == port_text || *end != '\0' || port == 0 || port > 65535)
    g_set_error (error, RTR_CONFIG_ERROR, 0, "http \"%s\": HOST:PORT or PORT "
        "(a port 1-65535)", listen);
  else if ((a = g_inet_socket_address_new_from_string (host, (guint) port))
      == NULL)
    g_set_error (error, RTR_CONFIG_ERROR, 0, "http \"%s\": \"%s\" is no IP "
        "address (give an address, not a name)", listen, host);
  g_free (host);
  return a ? G_INET_SOCKET_ADDRESS (a) : NULL;
}

/* The token file is the recorder's secret alone, as ssh wants of a key:
 * owned by the user it runs as, readable by no group and no one else */
static gboolean
token_file_private (const gchar * path, GError ** error)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    return TRUE;                /* (reading it says why) */
  if (st.st_uid != geteuid ()) {
    g_set_error (error, RTR_CONFIG_ERROR, 0, "http token file %s: owned by "
        "uid %u, not by the user the recorder runs as (uid %u): anyone who "
        "can change it controls the recorder", path, (guint) st.st_uid,
        (guint) geteuid ());
    return FALSE;
  }
  if (st.st_mode & 077) {
    g_set_error (error, RTR_CONFIG_ERROR, 0, "http token file %s: mode %04o "
        "lets others read or change it (chmod 600 %s)", path,
        (guint) (st.st_mode & 07777), path);
    return FALSE;
  }
  return TRUE;
}

static gchar *
read_token (const gchar * path, GError ** error)
{
  gchar *text = NULL;

  if (!token_file_private (path, error))
    return NULL;
  if (!g_file_get_contents (path, &text, NULL, error)) {
    g_prefix_error (error, "http token file: ");
    return NULL;
  }
  g_strstrip (text);
  if (strlen (text) < 16) {
    g_set_error (error, RTR_CONFIG_ERROR, 0, "http token file %s: a token "
        "of at least 16 characters (e.g. head -c 24 /dev/urandom | base64)",
        path);
    g_free (text);
    return NULL;
  }
  return text;
}

gboolean
rtr_http_check (const gchar * listen, const gchar * token_file, GError ** error)
{
  GInetSocketAddress *a = parse_listen (listen, error);
  gboolean loopback, ok = TRUE;
  gchar *token = NULL;

  if (a == NULL)
    return FALSE;
  loopback = g_inet_address_get_is_loopback (g_inet_socket_address_get_address
      (a));
  g_object_unref (a);
  if (token_file && (token = read_token (token_file, error)) == NULL)
    return FALSE;
  if (!loopback && token == NULL) {
    g_set_error (error, RTR_CONFIG_ERROR, 0, "http \"%s\" is reachable from "
        "other machines: give a token file too (http-token-file), or "
        "listen on 127.0.0.1", listen);
    ok = FALSE;
  }
  g_free (token);
  return ok;
}

gchar *
rtr_http_url (const gchar * listen)
{
  GInetSocketAddress *a = parse_listen (listen, NULL);
  gchar *host, *url;

  if (a == NULL)
    return g_strdup_printf ("http://%s", listen);
  host = g_inet_address_to_string (g_inet_socket_address_get_address (a));
  url = g_strdup_printf (strchr (host, ':') ? "http://[%s]:%u" :
      "http://%s:%u", host, (guint) g_inet_socket_address_get_port (a));
  g_free (host);
  g_object_unref (a);
  return url;
}

/* ---- replies ------------------------------------------------------------- */

static void
reply (SoupServerMessage * msg, guint status, const gchar * type, gchar * body)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, type, SOUP_MEMORY_TAKE, body,
      strlen (body));
}

/* The reply to a command: "ok" (from the status) added to the object b
 * holds, then sent */
static void
reply_command (SoupServerMessage * msg, guint status, JsonBuilder * b)
{
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root;

  json_builder_set_member_name (b, "ok");
  json_builder_add_boolean_value (b, status < 300);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  reply (msg, status, "application/json", json_generator_to_data (gen, NULL));
  json_node_unref (root);
  g_object_unref (gen);
}

static void
reply_json (SoupServerMessage * msg, guint status, const gchar * key,
    const gchar * text)
{
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, key);
  json_builder_add_string_value (b, text);
  reply_command (msg, status, b);
  g_object_unref (b);
}

static void
reply_error (SoupServerMessage * msg, guint status, const gchar * why)
{
  reply_json (msg, status, "error", why);
}

/* ---- requests ------------------------------------------------------------ */

/* The constant-time comparison of what was sent with the token */
static gboolean
authorized (RtrHttp * h, SoupServerMessage * msg)
{
  const gchar *auth, *given;
  gsize i, n;
  guint diff;

  if (h->token == NULL)
    return TRUE;
  auth = soup_message_headers_get_one (soup_server_message_get_request_headers
      (msg), "Authorization");
  if (auth == NULL || g_ascii_strncasecmp (auth, "Bearer ", 7) != 0)
    return FALSE;
  given = auth + 7;
  n = strlen (h->token);
  diff = strlen (given) != n;
  for (i = 0; i < n; i++)
    diff |= (guint) (given[i % MAX (strlen (given), 1)] ^ h->token[i]);
  return diff == 0;
}

/* What a command's body may give */
typedef enum
{
  BODY_AT = 1 << 0,             /* "at": "now" or a running time in ns */
  BODY_LABEL = 1 << 1,          /* "label": a string */
  BODY_NOTE = 1 << 2            /* "note": a string */
} BodyFields;

typedef struct
{
  GstClockTime at;              /* NONE: now */
  gchar *label;                 /* "label" or "note" */
} Body;

/* The longest label taken (bytes) */
#define MAX_LABEL 200

static gboolean
parse_member (JsonObject * o, const gchar * name, Body * body, gchar ** why)
{
  JsonNode *node = json_object_get_member (o, name);

  if (g_str_equal (name, "label") || g_str_equal (name, "note")) {
    if (!JSON_NODE_HOLDS_VALUE (node)
        || json_node_get_value_type (node) != G_TYPE_STRING
        || strlen (json_node_get_string (node)) > MAX_LABEL
        || !g_utf8_validate (json_node_get_string (node), -1, NULL)) {
      *why = g_strdup_printf ("\"%s\" is a string of at most %d bytes",
          name, MAX_LABEL);
      return FALSE;
    }
    body->label = g_strdup (json_node_get_string (node));
    return TRUE;
  }
  if (JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_STRING
      && g_str_equal (json_node_get_string (node), "now"))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_INT64
      && json_node_get_int (node) >= 0) {
    body->at = (GstClockTime) json_node_get_int (node);
    return TRUE;
  }
  *why = g_strdup ("\"at\" is \"now\" or a running time in ns (an "
      "integer >= 0)");
  return FALSE;
}

/* A JSON object of the fields allowed, or no body */
static gboolean
parse_body (SoupServerMessage * msg, BodyFields allowed, Body * out,
    gchar ** why)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  const gchar *known = allowed == (BODY_AT | BODY_LABEL) ? "at, label" :
      allowed == BODY_AT ? "at" : allowed == BODY_LABEL ? "label" :
      allowed == BODY_NOTE ? "note" : "none";
  JsonParser *parser;
  JsonNode *root;
  JsonObject *o;
  GError *err = NULL;
  gboolean ok = TRUE;
  GList *members, *l;

  out->at = GST_CLOCK_TIME_NONE;
  out->label = NULL;
  if (body->length == 0)
    return TRUE;
  if (allowed == 0) {
    *why = g_strdup ("this request takes no body");
    return FALSE;
  }
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, body->data, body->length, &err)) {
    *why = g_strdup_printf ("the body is no JSON: %s", err->message);
    g_error_free (err);
    g_object_unref (parser);
    return FALSE;
  }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)) {
    *why = g_strdup_printf ("the body is a JSON object (fields: %s)", known);
    g_object_unref (parser);
    return FALSE;
  }
  o = json_node_get_object (root);
  members = json_object_get_members (o);
  for (l = members; l && ok; l = l->next) {
    const gchar *name = l->data;

    if (!((g_str_equal (name, "at") && (allowed & BODY_AT))
            || (g_str_equal (name, "label") && (allowed & BODY_LABEL))
            || (g_str_equal (name, "note") && (allowed & BODY_NOTE)))) {
      *why = g_strdup_printf ("unknown field \"%s\" (known: %s)", name, known);
      ok = FALSE;
    } else {
      ok = parse_member (o, name, out, why);
    }
  }
  g_list_free (members);
  g_object_unref (parser);
  if (!ok)
    g_clear_pointer (&out->label, g_free);
  return ok;
}

/* POST /events/<id>/note {"note": "..."} */
static void
do_note (RtrHttp * h, SoupServerMessage * msg, const gchar * id)
{
  gchar *why = NULL;
  JsonBuilder *b;
  Body body;
  guint status;

  if (!parse_body (msg, BODY_NOTE, &body, &why) || body.label == NULL) {
    reply_error (msg, SOUP_STATUS_BAD_REQUEST, why ? why :
        "the body is {\"note\": \"...\"}");
    g_free (why);
    g_free (body.label);
    return;
  }
  b = json_builder_new ();
  json_builder_begin_object (b);
  status = h->control->note (h->data, id, body.label, b);
  reply_command (msg, status, b);
  g_object_unref (b);
  g_free (body.label);
}

/* The id of /events/<id>/note, or NULL (taken) */
static gchar *
note_id (const gchar * path)
{
  gsize n = strlen (path);

  if (!g_str_has_prefix (path, "/events/") || !g_str_has_suffix (path,
          "/note") || n <= strlen ("/events/") + strlen ("/note"))
    return NULL;
  return g_strndup (path + strlen ("/events/"),
      n - strlen ("/events/") - strlen ("/note"));
}

static void
do_post (RtrHttp * h, SoupServerMessage * msg, const gchar * path)
{
  gboolean start = g_str_equal (path, "/record/start");
  gboolean stop = g_str_equal (path, "/record/stop");
  gboolean trigger = g_str_equal (path, "/trigger");
  BodyFields allowed = start ? BODY_AT | BODY_LABEL : stop ? BODY_AT :
      trigger ? BODY_LABEL : 0;
  JsonBuilder *b;
  gchar *why = NULL;
  Body body;
  guint status;

  if (!parse_body (msg, allowed, &body, &why)) {
    reply_error (msg, SOUP_STATUS_BAD_REQUEST, why);
    g_free (why);
    return;
  }
  b = json_builder_new ();
  json_builder_begin_object (b);
  if (start || stop)
    status = h->control->record (h->data, start, body.at, body.label, b);
  else if (trigger)
    status = h->control->trigger (h->data, body.label, b);
  else
    status = h->control->split (h->data, b);
  reply_command (msg, status, b);
  g_object_unref (b);
  g_free (body.label);
}

/* A command (POST) with no token asked: only with http-control=open.
 * Anyone on the machine reaches 127.0.0.1: a local user stopped the
 * recording (200, and the service still looked healthy) and made the
 * newest files go with seven splits under max-files */
static gboolean
control_closed (RtrHttp * h, SoupServerMessage * msg)
{
  return h->token == NULL && !h->control_open
      && g_str_equal (soup_server_message_get_method (msg), "POST");
}

#define CONTROL_CLOSED "commands need a token: http-token-file (every " \
  "request then carries it), or http-control=open (anyone who reaches " \
  "the port may stop, split or trigger); GET /status, /metrics and " \
  "/events answer without"

static void
refuse_unauthorized (SoupServerMessage * msg)
{
  soup_message_headers_replace (soup_server_message_get_response_headers
      (msg), "WWW-Authenticate", "Bearer");
  reply_error (msg, SOUP_STATUS_UNAUTHORIZED, "a token is needed: "
      "Authorization: Bearer <the token file's token>");
}

static const struct
{
  const gchar *path;
  const gchar *method;
} routes[] = {
  {"/status", "GET"}, {"/metrics", "GET"}, {"/record/start", "POST"},
  {"/record/stop", "POST"}, {"/trigger", "POST"}, {"/split", "POST"},
  {"/events", "GET"},
};

static void
handle (SoupServer * server, SoupServerMessage * msg, const char *path,
    GHashTable * query, gpointer data)
{
  RtrHttp *h = data;
  const gchar *method = soup_server_message_get_method (msg);
  gchar *id;
  guint i;

  if (!authorized (h, msg)) {
    refuse_unauthorized (msg);
    return;
  }
  if (control_closed (h, msg)) {
    reply_error (msg, SOUP_STATUS_FORBIDDEN, CONTROL_CLOSED);
    return;
  }
  /* (early() refused a larger one unread; this holds if it ever could
   * not) */
  if (soup_server_message_get_request_body (msg)->length > RTR_HTTP_MAX_BODY) {
    reply_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "the body is "
        "larger than any request needs (4096 bytes)");
    return;
  }
  if ((id = note_id (path)) != NULL) {
    if (!g_str_equal (method, "POST")) {
      soup_message_headers_replace (soup_server_message_get_response_headers
          (msg), "Allow", "POST");
      reply_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED,
          "this endpoint takes POST");
    } else {
      do_note (h, msg, id);
    }
    g_free (id);
    return;
  }
  for (i = 0; i < G_N_ELEMENTS (routes); i++)
    if (g_str_equal (path, routes[i].path))
      break;
  if (i == G_N_ELEMENTS (routes)) {
    reply_error (msg, SOUP_STATUS_NOT_FOUND, "no such endpoint (GET /status, "
        "GET /metrics, GET /events, POST /record/start, /record/stop, "
        "/trigger, /split, /events/<id>/note)");
    return;
  }
  if (!g_str_equal (method, routes[i].method)) {
    soup_message_headers_replace (soup_server_message_get_response_headers
        (msg), "Allow", routes[i].method);
    reply_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, routes[i].method[0] ==
        'G' ? "this endpoint takes GET" : "this endpoint takes POST");
    return;
  }
  if (g_str_equal (path, "/status"))
    reply (msg, SOUP_STATUS_OK, "application/json", h->control->status
        (h->data));
  else if (g_str_equal (path, "/metrics"))
    reply (msg, SOUP_STATUS_OK, "text/plain; version=0.0.4; charset=utf-8",
        h->control->metrics (h->data));
  else if (g_str_equal (path, "/events"))
    reply (msg, SOUP_STATUS_OK, "application/json", h->control->events
        (h->data));
  else
    do_post (h, msg, path);
}

/* A refusal sent before the body is read, on a connection taken from the
 * server and closed: libsoup 3.2 reads a refused request's whole body
 * anyway (into memory) unless the client sent "Expect: 100-continue" -
 * the second adversarial read of issue 25: a 1 GB body without the token
 * took the recorder to 1.7 GB and frames missed their deadlines.  The
 * connection is then drained and closed as rtr-http-linger.h says, so
 * the refusal reaches a client still sending. */
static void
refuse_unread (RtrHttp * h, SoupServerMessage * msg, guint status,
    const gchar * why)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root;
  gchar *body, *text;
  GIOStream *stream;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ok");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, why);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  body = json_generator_to_data (gen, NULL);
  text = g_strdup_printf ("HTTP/1.1 %u %s\r\nServer: rtframe-record\r\n"
      "Content-Type: application/json\r\nContent-Length: %zu\r\n%s"
      "Connection: close\r\n\r\n%s", status, soup_status_get_phrase (status),
      strlen (body), status == SOUP_STATUS_UNAUTHORIZED ?
      "WWW-Authenticate: Bearer\r\n" : "", body);
  stream = soup_server_message_steal_connection (msg);
  if (stream) {
    /* (a few hundred bytes into an empty socket buffer: no wait, and the
     * socket's timeout bounds it - rtr-http-gate.c) */
    g_output_stream_write_all (g_io_stream_get_output_stream (stream), text,
        strlen (text), NULL, NULL, NULL);
    rtr_http_linger (h->lingers, stream);
  }
  g_free (text);
  g_free (body);
  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (b);
}

/* Before the body is read: a request without the token, and a body larger
 * than any request needs - or of a length not said (chunked: it could be
 * any) - are refused unread (refuse_unread()).  The adversarial read of
 * issue 25: a chunked body went around the Content-Length check, 400 MB
 * were read before the missing token was refused, and "[" x 3,000,000
 * overflowed json-glib's stack (the recorder killed, its file
 * unfinished). */
static void
early (SoupServer * server, SoupServerMessage * msg, const char *path,
    GHashTable * query, gpointer data)
{
  RtrHttp *h = data;
  SoupMessageHeaders *in = soup_server_message_get_request_headers (msg);
  SoupEncoding encoding = soup_message_headers_get_encoding (in);

  if (!authorized (h, msg)) {
    refuse_unread (h, msg, SOUP_STATUS_UNAUTHORIZED, "a token is needed: "
        "Authorization: Bearer <the token file's token>");
  } else if (control_closed (h, msg)) {
    refuse_unread (h, msg, SOUP_STATUS_FORBIDDEN, CONTROL_CLOSED);
  } else if (encoding != SOUP_ENCODING_NONE
      && (encoding != SOUP_ENCODING_CONTENT_LENGTH
          || soup_message_headers_get_content_length (in) < 0
          || soup_message_headers_get_content_length (in) >
          RTR_HTTP_MAX_BODY)) {
    /* (a length libsoup cannot read, "-1" or past 2^63, is -1 to it, and
     * it then read without end: 1.6 GB in 7 s with the token) */
    refuse_unread (h, msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "the body is "
        "larger than any request needs (4096 bytes), or of a length not "
        "said (send Content-Length)");
  }
}

/* ---- the server ---------------------------------------------------------- */

RtrHttp *
rtr_http_start (const gchar * listen, const gchar * token_file,
    gboolean control_open, guint idle_seconds, const RtrControl * control,
    gpointer data, GError ** error)
{
  GInetSocketAddress *a = parse_listen (listen, error);
  RtrHttp *h;

  if (a == NULL)
    return NULL;
  h = g_new0 (RtrHttp, 1);
  h->control = control;
  h->control_open = control_open;
  h->data = data;
  if (token_file && (h->token = read_token (token_file, error)) == NULL) {
    g_object_unref (a);
    g_free (h);
    return NULL;
  }
  h->lingers = rtr_http_lingers_new ();
  h->server = soup_server_new ("server-header", "rtframe-record", NULL);
  soup_server_add_early_handler (h->server, NULL, early, h, NULL);
  soup_server_add_handler (h->server, NULL, handle, h, NULL);
  h->gate = rtr_http_gate_open (h->server, a, idle_seconds,
      RTR_HTTP_MAX_CONNECTIONS, error);
  if (h->gate == NULL) {
    g_prefix_error (error, "http %s: ", listen);
    g_object_unref (a);
    rtr_http_free (h);
    return NULL;
  }
  g_object_unref (a);
  return h;
}

void
rtr_http_free (RtrHttp * h)
{
  if (h == NULL)
    return;
  rtr_http_gate_close (h->gate);
  if (h->server) {
    soup_server_disconnect (h->server);
    g_object_unref (h->server);
  }
  rtr_http_lingers_free (h->lingers);
  if (h->token)
    memset (h->token, 0, strlen (h->token));
  g_free (h->token);
  g_free (h);
}
