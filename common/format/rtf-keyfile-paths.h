/* rtframe: paths in the key files the recordings write (a spread's
 * manifest, a take's): a path's bytes as UTF-8 text, a byte of no valid
 * UTF-8 sequence and an ASCII control character as "\xHH", a backslash
 * as "\\" - then escaped again by GKeyFile; and a raw list value taken
 * apart on bytes, as g_key_file_get_string_list() would were it not
 * UTF-8 only. */
#ifndef __RTF_KEYFILE_PATHS_H__
#define __RTF_KEYFILE_PATHS_H__

#include <glib.h>

G_BEGIN_DECLS

gchar *rtf_keyfile_path_encode (const gchar * path);
/* NULL with *why for any other escape, or a NUL byte */
gchar *rtf_keyfile_path_decode (const gchar * text, gchar ** why);
/* An unescaped ';' ends an item (\s \n \t \r \\ \;); NULL with *why
 * for any other escape */
gchar **rtf_keyfile_split_list (const gchar * raw, gchar ** why);

G_END_DECLS
#endif /* __RTF_KEYFILE_PATHS_H__ */
