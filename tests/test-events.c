/* Unit tests of common/writer/rtf-events.c and common/util/rtf-thread.c */
#include "rtf-events.h"
#include "rtf-thread.h"

#include <string.h>

static void
test_events_order_and_overflow (void)
{
  RtfEvents *ev = rtf_events_new (4);
  RtfEvent out[8];
  RtfFrameReport m = { 0 };
  guint64 over = 99;
  guint i;

  for (i = 0; i < 6; i++) {
    m.seq = i;
    g_assert_cmpint (rtf_events_push (ev, RTF_EVENT_MISSED, &m), ==, i < 4);
  }
  g_assert_cmpuint (rtf_events_pop (ev, out, 8, &over), ==, 4);
  g_assert_cmpuint (over, ==, 2);       /* counted, not kept */
  for (i = 0; i < 4; i++)
    g_assert_cmpuint (out[i].report.seq, ==, i);
  g_assert_cmpuint (rtf_events_pop (ev, out, 8, &over), ==, 0);
  g_assert_cmpuint (over, ==, 0);
  rtf_events_free (ev);
}

static void
test_events_wait_and_wake (void)
{
  RtfEvents *ev = rtf_events_new (4);
  gint64 t0 = g_get_monotonic_time ();

  /* times out */
  rtf_events_wait (ev, t0 + 20000);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 20000);
  /* a wake before the wait is not lost */
  rtf_events_wake (ev);
  t0 = g_get_monotonic_time ();
  rtf_events_wait (ev, t0 + 10 * G_USEC_PER_SEC);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  rtf_events_free (ev);
}

static void
test_parse_cpus (void)
{
  guint64 mask;

  g_assert (rtf_thread_parse_cpus ("0", &mask, 64));
  g_assert_cmpuint (mask, ==, 1);
  g_assert (rtf_thread_parse_cpus ("0,2-3", &mask, 64));
  g_assert_cmpuint (mask, ==, 0xd);
  g_assert (rtf_thread_parse_cpus ("5-5,1", &mask, 64));
  g_assert_cmpuint (mask, ==, 0x22);
  g_assert (!rtf_thread_parse_cpus ("", &mask, 64));
  g_assert (!rtf_thread_parse_cpus ("3-1", &mask, 64));
  g_assert (!rtf_thread_parse_cpus ("a", &mask, 64));
  g_assert (!rtf_thread_parse_cpus ("1,", &mask, 64));
  g_assert (!rtf_thread_parse_cpus ("64", &mask, 64));
  g_assert (!rtf_thread_parse_cpus ("2", &mask, 2));
}

static void
test_apply_invalid_cpus_says_why (void)
{
  gchar *why = NULL;

  g_assert (!rtf_thread_apply (RTF_SCHED_DEFAULT, 0, "x", &why));
  g_assert_nonnull (strstr (why, "not valid"));
  g_free (why);
  g_assert (rtf_thread_apply (RTF_SCHED_DEFAULT, 0, NULL, &why));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/events/order-and-overflow",
      test_events_order_and_overflow);
  g_test_add_func ("/events/wait-and-wake", test_events_wait_and_wake);
  g_test_add_func ("/thread/parse-cpus", test_parse_cpus);
  g_test_add_func ("/thread/invalid-cpus-says-why",
      test_apply_invalid_cpus_says_why);
  return g_test_run ();
}
