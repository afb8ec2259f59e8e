/* rtframe fuzz target: rtframe-record's config file and its times, what a
 * rig's operator (or a config management tool) hands the recorder.
 * Whatever the bytes, loading and checking must not crash or read out of
 * bounds; a config it accepts has cameras of unique names, each with a
 * location, and times in their ranges.  A time it reads (a bare number, or
 * one with its unit) is finite and not negative, and the nanoseconds text
 * it gives a sink property is digits only.
 *
 * The first byte picks the mode: bit 0 the rest is a time, else the rest
 * is a config file's text. */
#include <glib/gstdio.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "rtr-config.h"
#include "rtr-durations.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
fuzz_time (const gchar * text)
{
  gdouble s = -1;
  gchar *ns;

  if (rtr_duration_seconds (text, &s))
    g_assert (isfinite (s) && s >= 0);
  ns = rtr_duration_ns_text (text, FALSE);
  if (ns) {
    g_assert (*ns && strspn (ns, "0123456789") == strlen (ns));
    g_assert (strcmp (ns, "0") != 0 || s == 0);
    g_free (ns);
  }
  ns = rtr_duration_ns_text (text, TRUE);
  if (ns) {
    g_assert (*ns && strspn (ns + (*ns == '-'), "0123456789") ==
        strlen (ns + (*ns == '-')));
    g_free (ns);
  }
}

static void
fuzz_config (const guint8 * data, gsize size)
{
  static gchar *path;
  RtrConfig *c = rtr_config_new ();
  GError *error = NULL;

  if (path == NULL)
    path = g_build_filename (g_get_tmp_dir (), "rtframe-fuzz-config.XXXXXX",
        NULL);
  {
    gchar *p = g_strdup (path);
    gint fd = g_mkstemp (p);

    g_assert (fd >= 0);
    g_assert (write (fd, data, size) == (gssize) size);
    close (fd);
    if (rtr_config_load (c, p, &error) && rtr_config_check (c, &error)) {
      guint i, j;

      g_assert (c->seconds >= 0 && c->pre_record >= 0
          && c->post_record > 0 && c->stop_timeout > 0);
      for (i = 0; i < c->cameras->len; i++) {
        const RtrCamera *a = g_ptr_array_index (c->cameras, i);

        g_assert (a->location && *a->location);
        for (j = 0; j < i; j++)
          g_assert_cmpstr (a->name, !=,
              ((const RtrCamera *) g_ptr_array_index (c->cameras, j))->name);
      }
    } else {
      g_assert (error && error->message);
    }
    g_clear_error (&error);
    g_unlink (p);
    g_free (p);
  }
  rtr_config_free (c);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar *text;

  if (size < 1)
    return 0;
  if (data[0] & 1) {
    text = g_strndup ((const gchar *) data + 1, size - 1);
    fuzz_time (text);
    g_free (text);
  } else {
    fuzz_config (data + 1, size - 1);
  }
  return 0;
}
