/* rtframe-record: the door of the HTTP API (rtr-http-gate.h) */
#include "rtr-http-gate.h"

struct _RtrHttpGate
{
  GSocketService *service;
  SoupServer *server;
  guint idle_seconds;
  guint max_connections;
  GHashTable *open;             /* "address:port" -> RtrHttpDoor */
  guint64 turned_away;          /* connections closed for the limit */
  gint64 told_at;               /* monotonic us of the last such message */
};

/* One connection the server holds */
typedef struct
{
  RtrHttpGate *gate;
  GSocketConnection *connection;        /* weakly held: the server owns it */
  gchar *key;                   /* its remote "address:port" */
  guint deadline;               /* a source, while a request is awaited */
} RtrHttpDoor;

static gchar *
address_key (GSocketAddress * address)
{
  GInetSocketAddress *inet = G_INET_SOCKET_ADDRESS (address);
  gchar *host = g_inet_address_to_string
      (g_inet_socket_address_get_address (inet));
  gchar *key = g_strdup_printf ("%s:%u", host,
      g_inet_socket_address_get_port (inet));

  g_free (host);
  return key;
}

/* ---- the time a request may take to come -------------------------------- */

static gboolean
deadline_passed (gpointer data)
{
  RtrHttpDoor *door = data;

  door->deadline = 0;
  /* shut down, not closed: libsoup's pending read sees the end and lets
   * the connection go itself */
  g_socket_shutdown (g_socket_connection_get_socket (door->connection),
      TRUE, TRUE, NULL);
  return G_SOURCE_REMOVE;
}

static void
await_request (RtrHttpDoor * door, gboolean awaiting)
{
  if (door->deadline)
    g_source_remove (door->deadline);
  door->deadline = awaiting ? g_timeout_add_seconds
      (door->gate->idle_seconds, deadline_passed, door) : 0;
}

static void
on_request (SoupServer * server, SoupServerMessage * msg, gpointer data,
    gboolean awaiting)
{
  RtrHttpGate *gate = data;
  GSocketAddress *remote = soup_server_message_get_remote_address (msg);
  gchar *key;
  RtrHttpDoor *door;

  if (remote == NULL || !G_IS_INET_SOCKET_ADDRESS (remote))
    return;
  key = address_key (remote);
  door = g_hash_table_lookup (gate->open, key);
  if (door)
    await_request (door, awaiting);
  g_free (key);
}

static void
request_read (SoupServer * server, SoupServerMessage * msg, gpointer data)
{
  on_request (server, msg, data, FALSE);
}

static void
request_ended (SoupServer * server, SoupServerMessage * msg, gpointer data)
{
  on_request (server, msg, data, TRUE);
}

/* ---- connections come and go -------------------------------------------- */

static void
door_free (gpointer data)
{
  RtrHttpDoor *door = data;

  if (door->deadline)
    g_source_remove (door->deadline);
  g_free (door->key);
  g_free (door);
}

static void
connection_gone (gpointer data, GObject * where_it_was)
{
  RtrHttpDoor *door = data;

  g_hash_table_remove (door->gate->open, door->key);
}

static void
turn_away (RtrHttpGate * gate, GSocketConnection * connection)
{
  gint64 now = g_get_monotonic_time ();

  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  gate->turned_away++;
  /* once in ten seconds at most: a flood must not flood the journal too */
  if (gate->told_at == 0 || now - gate->told_at > 10 * G_USEC_PER_SEC) {
    g_printerr ("rtframe-record: http: %u connections open, the most held "
        "at once; new ones are closed (%" G_GUINT64_FORMAT " so far)\n",
        gate->max_connections, gate->turned_away);
    gate->told_at = now;
  }
}

static void
let_in (RtrHttpGate * gate, GSocketConnection * connection,
    GSocketAddress * local, GSocketAddress * remote)
{
  RtrHttpDoor *door = g_new0 (RtrHttpDoor, 1), *old;
  GError *error = NULL;

  door->gate = gate;
  door->connection = connection;
  door->key = address_key (remote);
  /* a reply not read, a body not sent: any wait longer fails */
  g_socket_set_timeout (g_socket_connection_get_socket (connection),
      gate->idle_seconds);
  old = g_hash_table_lookup (gate->open, door->key);
  if (old)                      /* its port taken again before it was let go */
    g_object_weak_unref (G_OBJECT (old->connection), connection_gone, old);
  /* in the table, with its deadline, before the server has it: a request
   * already waiting on the socket is read and handled inside
   * soup_server_accept_iostream() (found in one request of twenty), and
   * its handlers' request-read/finished signals find its door */
  g_hash_table_replace (gate->open, door->key, door);
  g_object_weak_ref (G_OBJECT (connection), connection_gone, door);
  await_request (door, TRUE);
  if (!soup_server_accept_iostream (gate->server, G_IO_STREAM (connection),
          local, remote, &error)) {
    g_printerr ("rtframe-record: http: a connection not taken: %s\n",
        error->message);
    g_clear_error (&error);
    g_object_weak_unref (G_OBJECT (connection), connection_gone, door);
    g_hash_table_remove (gate->open, door->key);
    g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  }
}

static gboolean
incoming (GSocketService * service, GSocketConnection * connection,
    GObject * source, gpointer data)
{
  RtrHttpGate *gate = data;
  GSocketAddress *local, *remote;

  if (g_hash_table_size (gate->open) >= gate->max_connections) {
    turn_away (gate, connection);
    return TRUE;
  }
  local = g_socket_connection_get_local_address (connection, NULL);
  remote = g_socket_connection_get_remote_address (connection, NULL);
  if (local && remote && G_IS_INET_SOCKET_ADDRESS (remote))
    let_in (gate, connection, local, remote);
  else
    g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  g_clear_object (&local);
  g_clear_object (&remote);
  return TRUE;
}

/* ---- the gate ------------------------------------------------------------ */

RtrHttpGate *
rtr_http_gate_open (SoupServer * server, GInetSocketAddress * address,
    guint idle_seconds, guint max_connections, GError ** error)
{
  RtrHttpGate *gate = g_new0 (RtrHttpGate, 1);

  gate->server = g_object_ref (server);
  gate->idle_seconds = idle_seconds;
  gate->max_connections = max_connections;
  gate->open = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, door_free);
  gate->service = g_socket_service_new ();
  /* (GLib's default backlog, 10, made 64 connections in a row take 5 s:
   * the SYNs beyond it were dropped and sent again) */
  g_socket_listener_set_backlog (G_SOCKET_LISTENER (gate->service), 128);
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (gate->service),
          G_SOCKET_ADDRESS (address), G_SOCKET_TYPE_STREAM,
          G_SOCKET_PROTOCOL_TCP, NULL, NULL, error)) {
    rtr_http_gate_close (gate);
    return NULL;
  }
  g_signal_connect (server, "request-read", G_CALLBACK (request_read), gate);
  g_signal_connect (server, "request-finished", G_CALLBACK (request_ended),
      gate);
  g_signal_connect (server, "request-aborted", G_CALLBACK (request_ended),
      gate);
  g_signal_connect (gate->service, "incoming", G_CALLBACK (incoming), gate);
  g_socket_service_start (gate->service);
  return gate;
}

guint
rtr_http_gate_connections (const RtrHttpGate * gate)
{
  return g_hash_table_size (gate->open);
}

void
rtr_http_gate_close (RtrHttpGate * gate)
{
  GHashTableIter it;
  gpointer door;

  if (gate == NULL)
    return;
  g_socket_service_stop (gate->service);
  g_socket_listener_close (G_SOCKET_LISTENER (gate->service));
  g_signal_handlers_disconnect_by_data (gate->service, gate);
  g_signal_handlers_disconnect_by_data (gate->server, gate);
  g_object_unref (gate->service);
  /* the server may outlive the gate: forget the connections it holds */
  g_hash_table_iter_init (&it, gate->open);
  while (g_hash_table_iter_next (&it, NULL, &door))
    g_object_weak_unref (G_OBJECT (((RtrHttpDoor *) door)->connection),
        connection_gone, door);
  g_hash_table_unref (gate->open);
  g_object_unref (gate->server);
  g_free (gate);
}
