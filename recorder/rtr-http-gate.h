/* rtframe-record: the door of the HTTP API.  Accepts connections on the
 * API's address itself and hands each to the SoupServer, so that it can
 * (1) close a connection that has not sent a whole request within a
 * time of its opening or of its last reply (idle, or sending a byte now
 * and then), or that waits that long on a reply it does not read, and
 * (2) hold at most a number of connections at once, closing the ones
 * beyond it as they come.
 * libsoup 3.2 (Debian 12) has neither.  Before this gate, a thousand idle
 * connections used up a 1024-descriptor limit and the API stopped
 * answering (the adversarial read of issue 25). */
#ifndef __RTR_HTTP_GATE_H__
#define __RTR_HTTP_GATE_H__

#include <libsoup/soup.h>

G_BEGIN_DECLS

/* Connections held at once; more are closed as they come */
#define RTR_HTTP_MAX_CONNECTIONS 64

typedef struct _RtrHttpGate RtrHttpGate;

/* Listens on address for server; NULL with *error if it cannot.
 * idle_seconds: the time a connection has to send a whole request, from
 * its opening or its last reply, and the longest a write of a reply may
 * wait (GSocket's timeout); the recorder's default, 30, is longer than
 * Prometheus' default scrape interval (15 s), so a scraper's kept-alive
 * connection is still there at its next scrape. */
RtrHttpGate *rtr_http_gate_open (SoupServer * server,
    GInetSocketAddress * address, guint idle_seconds, guint max_connections,
    GError ** error);

/* Connections open now (for tests and /status) */
guint rtr_http_gate_connections (const RtrHttpGate * gate);

/* Stops listening; connections the server holds close with it */
void rtr_http_gate_close (RtrHttpGate * gate);

G_END_DECLS

#endif /* __RTR_HTTP_GATE_H__ */
