/* rtframe: --version's text (rtf-build-info.h) */
#include "rtf-build-info.h"

#include <dlfcn.h>
#include <stdio.h>

#if !defined(RTF_VERSION) || !defined(RTF_URING_BUILT)
#error "RTF_VERSION, RTF_URING_BUILT: common/meson.build sets them"
#endif

/* The running liburing's version: io_uring_major_version() and
 * io_uring_minor_version() exist from liburing 2.4 on (Debian 13's 2.9,
 * not Debian 12's 2.3), so they are looked up at run time, as every
 * version difference is (docs/design.md) */
static gchar *
uring_running (void)
{
  int (*major) (void) = (int (*)(void)) dlsym (RTLD_DEFAULT,
      "io_uring_major_version");
  int (*minor) (void) = (int (*)(void)) dlsym (RTLD_DEFAULT,
      "io_uring_minor_version");

  if (major == NULL || minor == NULL)
    return g_strdup ("before 2.4");
  return g_strdup_printf ("%d.%d", major (), minor ());
}

gchar *
rtf_build_info (void)
{
  gchar *uring = uring_running (), *info;

  info = g_strdup_printf ("rtframe %s (liburing %s, built with %s; GLib "
      "%u.%u.%u)", RTF_VERSION, uring, RTF_URING_BUILT, glib_major_version,
      glib_minor_version, glib_micro_version);
  g_free (uring);
  return info;
}

void
rtf_print_version (const gchar * program)
{
  gchar *info = rtf_build_info ();

  printf ("%s: %s\n", program, info);
  g_free (info);
}
