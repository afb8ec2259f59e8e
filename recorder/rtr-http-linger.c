/* rtframe-record: the close after a refusal (rtr-http-linger.h) */
#include "rtr-http-linger.h"

/* Read at most this much in one turn of the main loop, so that a fast
 * sender cannot hold the loop (the API, the bus, the signals) */
#define DRAIN_PER_TURN (1024 * 1024)

struct _RtrHttpLingers
{
  GHashTable *open;             /* RtrLinger -> itself; freed on remove */
  gchar scratch[64 * 1024];     /* what is read lands here and is dropped */
};

/* One connection being drained */
typedef struct
{
  RtrHttpLingers *lingers;
  GIOStream *stream;            /* held until closed */
  GSource *readable;            /* the socket has bytes or its end */
  GSource *timer;               /* RTR_HTTP_LINGER_MS after the refusal */
  guint64 dropped;              /* bytes read and dropped so far */
} RtrLinger;

static void
linger_free (gpointer data)
{
  RtrLinger *l = data;

  g_source_destroy (l->readable);
  g_source_unref (l->readable);
  g_source_destroy (l->timer);
  g_source_unref (l->timer);
  g_io_stream_close (l->stream, NULL, NULL);
  g_object_unref (l->stream);
  g_free (l);
}

static void
linger_end (RtrLinger * l)
{
  g_hash_table_remove (l->lingers->open, l);
}

static gboolean
time_is_up (gpointer data)
{
  linger_end (data);
  return G_SOURCE_REMOVE;
}

/* Reads what has come and drops it; the end, an error or the byte limit
 * close the connection */
static gboolean
drain (GSocket * socket, GIOCondition condition, gpointer data)
{
  RtrLinger *l = data;
  gsize this_turn = 0;

  while (this_turn < DRAIN_PER_TURN) {
    GError *error = NULL;
    gssize n = g_socket_receive_with_blocking (socket, l->lingers->scratch,
        sizeof l->lingers->scratch, FALSE, NULL, &error);

    if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
      g_error_free (error);
      return G_SOURCE_CONTINUE;
    }
    g_clear_error (&error);
    if (n <= 0)
      break;
    this_turn += n;
    l->dropped += n;
    if (l->dropped >= RTR_HTTP_LINGER_BYTES)
      break;
  }
  if (this_turn >= DRAIN_PER_TURN && l->dropped < RTR_HTTP_LINGER_BYTES)
    return G_SOURCE_CONTINUE;
  linger_end (l);
  return G_SOURCE_REMOVE;
}

RtrHttpLingers *
rtr_http_lingers_new (void)
{
  RtrHttpLingers *lingers = g_new0 (RtrHttpLingers, 1);

  lingers->open = g_hash_table_new_full (NULL, NULL, linger_free, NULL);
  return lingers;
}

/* The socket under a stolen stream: libsoup 3.2's SoupIOStream holds the
 * GSocketConnection as "base-iostream" (soup_server_message_get_socket()
 * is NULL there).  Not looked up by the client's address and port: a
 * client that reset a connection and came back from the same port had
 * its new connection shut and drained for the old one's refusal (the
 * adversarial read of issue 27, 76 of 100 runs). */
static GSocket *
socket_of (GIOStream * stream)
{
  GIOStream *base = NULL;
  GSocket *socket = NULL;

  if (G_IS_SOCKET_CONNECTION (stream))
    return g_object_ref (g_socket_connection_get_socket
        (G_SOCKET_CONNECTION (stream)));
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (stream),
          "base-iostream"))
    g_object_get (stream, "base-iostream", &base, NULL);
  if (base && G_IS_SOCKET_CONNECTION (base))
    socket = g_object_ref (g_socket_connection_get_socket
        (G_SOCKET_CONNECTION (base)));
  g_clear_object (&base);
  return socket;
}

void
rtr_http_linger (RtrHttpLingers * lingers, GIOStream * stream)
{
  RtrLinger *l;
  GSocket *socket = socket_of (stream);

  /* the refusal, then the end: the client reads both before any reset */
  if (socket == NULL || !g_socket_shutdown (socket, FALSE, TRUE, NULL)) {
    g_clear_object (&socket);
    g_io_stream_close (stream, NULL, NULL);
    g_object_unref (stream);
    return;
  }
  l = g_new0 (RtrLinger, 1);
  l->lingers = lingers;
  l->stream = stream;
  l->readable = g_socket_create_source (socket, G_IO_IN | G_IO_HUP | G_IO_ERR,
      NULL);
  g_source_set_callback (l->readable, G_SOURCE_FUNC (drain), l, NULL);
  g_source_attach (l->readable, NULL);
  l->timer = g_timeout_source_new (RTR_HTTP_LINGER_MS);
  g_source_set_callback (l->timer, time_is_up, l, NULL);
  g_source_attach (l->timer, NULL);
  g_hash_table_add (lingers->open, l);
  g_object_unref (socket);      /* (the source holds it) */
}

guint
rtr_http_lingers_count (const RtrHttpLingers * lingers)
{
  return g_hash_table_size (lingers->open);
}

void
rtr_http_lingers_free (RtrHttpLingers * lingers)
{
  if (lingers == NULL)
    return;
  g_hash_table_destroy (lingers->open);
  g_free (lingers);
}
