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
  /* (opened by name: a tool that calls none of it is not linked to it -
   * on Debian 13 the lookup in the process found nothing, "before 2.4"
   * with 2.9 installed) */
  void *lib = dlopen ("liburing.so.2", RTLD_LAZY | RTLD_LOCAL);
  int (*major) (void), (*minor) (void);
  gchar *version;

  if (lib == NULL)
    return g_strdup ("not found");
  major = (int (*)(void)) dlsym (lib, "io_uring_major_version");
  minor = (int (*)(void)) dlsym (lib, "io_uring_minor_version");
  version = major && minor ? g_strdup_printf ("%d.%d", major (), minor ()) :
      g_strdup ("before 2.4");
  dlclose (lib);
  return version;
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
