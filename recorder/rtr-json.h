/* rtframe-record: a JSON document built with json-glib, as the text the
 * API replies with */
#ifndef __RTR_JSON_H__
#define __RTR_JSON_H__

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The document b holds (its root ended), pretty-printed; b is freed */
gchar *rtr_json_text (JsonBuilder * b);

G_END_DECLS
#endif /* __RTR_JSON_H__ */
