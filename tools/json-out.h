/* rtframe tools: writing one JSON document (rtframe-verify --json) -
 * objects and arrays nested in order, each value escaped; a string that
 * is not UTF-8 (a path on Linux may be any bytes) has each byte that is
 * not part of a UTF-8 character written as U+FFFD, as the sink's
 * messages show such paths */
#ifndef __JSON_OUT_H__
#define __JSON_OUT_H__

#include <glib.h>

G_BEGIN_DECLS

#define JSON_OUT_MAX_DEPTH 16

typedef struct
{
  GString *text;
  guint depth;
  gboolean has_items[JSON_OUT_MAX_DEPTH];
} JsonOut;

void json_out_init (JsonOut * j);
/* The document, to be freed with g_free() (j is cleared) */
gchar *json_out_finish (JsonOut * j);

/* key: the member's name inside an object; NULL inside an array or for
 * the document itself */
void json_out_begin_object (JsonOut * j, const gchar * key);
void json_out_end_object (JsonOut * j);
void json_out_begin_array (JsonOut * j, const gchar * key);
void json_out_end_array (JsonOut * j);
/* value NULL: null */
void json_out_string (JsonOut * j, const gchar * key, const gchar * value);
void json_out_take_string (JsonOut * j, const gchar * key, gchar * value);
void json_out_u64 (JsonOut * j, const gchar * key, guint64 value);
void json_out_double (JsonOut * j, const gchar * key, gdouble value);
void json_out_bool (JsonOut * j, const gchar * key, gboolean value);

G_END_DECLS
#endif
