/* rtframe: what a program says for --version - the project's version and
 * the libraries under it, as built and as running (a build against
 * liburing 2.3 can run on 2.9: docs/design.md, "Version differences") */
#ifndef __RTF_BUILD_INFO_H__
#define __RTF_BUILD_INFO_H__

#include <glib.h>

G_BEGIN_DECLS

/* "rtframe 0.1.0 (liburing 2.3, GLib 2.74.6)": free with g_free() */
gchar *rtf_build_info (void);
/* Prints "<program> <rtf_build_info()>" on stdout: every tool's --version */
void rtf_print_version (const gchar * program);

G_END_DECLS
#endif
