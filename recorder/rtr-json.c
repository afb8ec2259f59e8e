/* rtframe-record: a JSON document as text (rtr-json.h) */
#include "rtr-json.h"

gchar *
rtr_json_text (JsonBuilder * b)
{
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root = json_builder_get_root (b);
  gchar *text;

  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  text = json_generator_to_data (gen, NULL);
  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (b);
  return text;
}
