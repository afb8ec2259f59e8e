/* Unit tests of common/util/rtf-histogram.c */
#include "rtf-histogram.h"

#include <math.h>
#include <stdlib.h>

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static void
assert_close (guint64 got, guint64 want)
{
  gdouble err = want ? fabs ((gdouble) got - (gdouble) want) / want : got;

  if (err > 0.01)
    g_error ("%" G_GUINT64_FORMAT " is not within 1%% of %" G_GUINT64_FORMAT,
        got, want);
}

/* Percentiles against the exact ones of the same data, over 10 decades. */
static void
test_percentiles_within_one_percent (void)
{
  static const gdouble ps[] = { 0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0 };
  const guint n = 200000;
  guint64 *v = g_new (guint64, n);
  RtfHistogram *h = g_new0 (RtfHistogram, 1);
  guint i, j;

  for (j = 0; j < 5; j++) {
    rtf_histogram_reset (h);
    for (i = 0; i < n; i++) {
      /* log-uniform from 1 ns to 100 s */
      v[i] = (guint64) exp (g_random_double_range (0, log (1e11)));
      rtf_histogram_add (h, v[i]);
    }
    qsort (v, n, sizeof (guint64), cmp_u64);
    for (i = 0; i < G_N_ELEMENTS (ps); i++) {
      guint64 rank = MAX (1, (guint64) ceil (ps[i] * n));

      assert_close (rtf_histogram_percentile (h, ps[i]), v[rank - 1]);
    }
    g_assert_cmpuint (h->min, ==, v[0]);
    g_assert_cmpuint (h->max, ==, v[n - 1]);
  }
  g_free (v);
  g_free (h);
}

static void
test_summary (void)
{
  RtfHistogram *h = g_new0 (RtfHistogram, 1);
  RtfHistogramSummary s;
  guint i;

  rtf_histogram_summarize (h, &s);
  g_assert_cmpuint (s.count, ==, 0);
  g_assert_cmpuint (s.p99, ==, 0);

  /* 1..1000 ms in ns */
  for (i = 1; i <= 1000; i++)
    rtf_histogram_add (h, (guint64) i * 1000000);
  rtf_histogram_summarize (h, &s);
  g_assert_cmpuint (s.count, ==, 1000);
  g_assert_cmpuint (s.min, ==, 1000000);
  g_assert_cmpuint (s.max, ==, 1000000000);
  g_assert_cmpfloat_with_epsilon (s.mean, 500.5e6, 1.0);
  g_assert_cmpfloat_with_epsilon (s.stddev, 288.675e6, 0.01e6);
  assert_close (s.p50, 500000000);
  assert_close (s.p99, 990000000);
  assert_close (s.p999, 999000000);
  assert_close (s.p9999, 1000000000);
  g_free (h);
}

static void
test_small_values_exact_and_huge_clamped (void)
{
  RtfHistogram *h = g_new0 (RtfHistogram, 1);

  rtf_histogram_add (h, 0);
  rtf_histogram_add (h, 5);
  rtf_histogram_add (h, 127);
  g_assert_cmpuint (rtf_histogram_percentile (h, 0.34), ==, 5);
  g_assert_cmpuint (rtf_histogram_percentile (h, 1.0), ==, 127);
  rtf_histogram_add (h, G_MAXUINT64);
  g_assert_cmpuint (rtf_histogram_percentile (h, 1.0), ==, G_MAXUINT64);
  g_free (h);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/histogram/percentiles-within-1%",
      test_percentiles_within_one_percent);
  g_test_add_func ("/histogram/summary", test_summary);
  g_test_add_func ("/histogram/small-exact-huge-clamped",
      test_small_values_exact_and_huge_clamped);
  return g_test_run ();
}
