/* rtframe-record: the close after a refusal (a "lingering close").
 * A request refused before its body is read (rtr-http.c: no token, a body
 * too large or of no said length) may still be sending that body when the
 * refusal goes out.  Closing the connection with the client's bytes
 * unread makes the kernel answer them with a reset, which can overtake
 * the refusal on its way: curl then saw no reply at all ("HTTP 000", the
 * CI run of the Debian 12 host, a 1 MB body).  So, as nginx and Apache
 * do, the sending side is shut (the refusal and an end go out), what
 * still comes is read into one small buffer and dropped, and the
 * connection is closed when the client closes, after RTR_HTTP_LINGER_MS
 * or after RTR_HTTP_LINGER_BYTES, whichever comes first.  Memory stays
 * flat: nothing of the body is kept. */
#ifndef __RTR_HTTP_LINGER_H__
#define __RTR_HTTP_LINGER_H__

#include <gio/gio.h>

G_BEGIN_DECLS

#define RTR_HTTP_LINGER_MS 2000
#define RTR_HTTP_LINGER_BYTES (64 * 1024 * 1024)

typedef struct _RtrHttpLingers RtrHttpLingers;

RtrHttpLingers *rtr_http_lingers_new (void);

/* Shuts the sending side of stream's socket and drains it until stream
 * may close; takes stream's reference.  (libsoup 3's stolen stream is its
 * own wrapper; the GSocketConnection is its "base-iostream".)  A stream
 * whose socket cannot be found is closed now. */
void rtr_http_linger (RtrHttpLingers * lingers, GIOStream * stream);

/* Connections lingering now (for tests) */
guint rtr_http_lingers_count (const RtrHttpLingers * lingers);

/* Closes every lingering connection */
void rtr_http_lingers_free (RtrHttpLingers * lingers);

G_END_DECLS
#endif /* __RTR_HTTP_LINGER_H__ */
