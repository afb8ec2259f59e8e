/* rtframe: fixed-size log-bucketed latency histogram.
 *
 * Bucket of v: below RTF_HISTOGRAM_SUB, v itself (exact).  Above, with
 * k = floor (log2 (v)), the top RTF_HISTOGRAM_SUB_LOG2 + 1 bits of v: bucket
 * (k - SUB_LOG2 + 1) * SUB + (v >> (k - SUB_LOG2)) - SUB, which spans
 * 2^(k - SUB_LOG2) values.  Adding is a few integer operations, no
 * allocation; 5 120 buckets of 32 bits (20 KiB). */
#include "rtf-histogram.h"

#include <math.h>
#include <string.h>

static guint
bucket_of (guint64 v)
{
  guint k, shift;

  if (v < RTF_HISTOGRAM_SUB)
    return (guint) v;
  k = 63 - __builtin_clzll (v);
  if (k >= RTF_HISTOGRAM_MAX_LOG2)
    return RTF_HISTOGRAM_BUCKETS - 1;
  shift = k - RTF_HISTOGRAM_SUB_LOG2;
  return (shift + 1) * RTF_HISTOGRAM_SUB + (guint) (v >> shift) -
      RTF_HISTOGRAM_SUB;
}

/* The middle of the values bucket b holds. */
static guint64
bucket_mid (guint b)
{
  guint shift;
  guint64 low;

  if (b < RTF_HISTOGRAM_SUB)
    return b;
  shift = b / RTF_HISTOGRAM_SUB - 1;
  low = (guint64) (b % RTF_HISTOGRAM_SUB + RTF_HISTOGRAM_SUB) << shift;
  return low + ((G_GUINT64_CONSTANT (1) << shift) >> 1);
}

void
rtf_histogram_reset (RtfHistogram * h)
{
  memset (h, 0, sizeof (*h));
}

void
rtf_histogram_add (RtfHistogram * h, guint64 value)
{
  if (h->count == 0 || value < h->min)
    h->min = value;
  if (value > h->max)
    h->max = value;
  h->count++;
  h->sum += (gdouble) value;
  h->sum_sq += (gdouble) value *(gdouble) value;
  h->buckets[bucket_of (value)]++;
}

/* The value at rank ceil (p * count) (p in 0..1), within 0.4%; clamped to
 * the exact min and max.  0 when empty. */
guint64
rtf_histogram_percentile (const RtfHistogram * h, gdouble p)
{
  guint64 rank, seen = 0;
  guint b;

  if (h->count == 0)
    return 0;
  rank = (guint64) ceil (p * (gdouble) h->count);
  rank = CLAMP (rank, 1, h->count);
  for (b = 0; b < RTF_HISTOGRAM_BUCKETS; b++) {
    seen += h->buckets[b];
    if (seen >= rank)           /* the last bucket holds all larger values */
      return b == RTF_HISTOGRAM_BUCKETS - 1 ? h->max :
          CLAMP (bucket_mid (b), h->min, h->max);
  }
  return h->max;
}

void
rtf_histogram_summarize (const RtfHistogram * h, RtfHistogramSummary * s)
{
  memset (s, 0, sizeof (*s));
  s->count = h->count;
  if (h->count == 0)
    return;
  s->min = h->min;
  s->max = h->max;
  s->mean = h->sum / (gdouble) h->count;
  s->stddev = sqrt (MAX (0.0, h->sum_sq / (gdouble) h->count -
          s->mean * s->mean));
  s->p50 = rtf_histogram_percentile (h, 0.50);
  s->p99 = rtf_histogram_percentile (h, 0.99);
  s->p999 = rtf_histogram_percentile (h, 0.999);
  s->p9999 = rtf_histogram_percentile (h, 0.9999);
}

void
rtf_histogram_merge (RtfHistogram * dst, const RtfHistogram * src)
{
  guint i;

  if (src->count == 0)
    return;
  if (dst->count == 0 || src->min < dst->min)
    dst->min = src->min;
  dst->max = MAX (dst->max, src->max);
  dst->count += src->count;
  dst->sum += src->sum;
  dst->sum_sq += src->sum_sq;
  for (i = 0; i < RTF_HISTOGRAM_BUCKETS; i++)
    dst->buckets[i] += src->buckets[i];
}
