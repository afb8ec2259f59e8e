/* rtframe: fixed-size log-bucketed latency histogram */
#ifndef __RTF_HISTOGRAM_H__
#define __RTF_HISTOGRAM_H__

#include <glib.h>

G_BEGIN_DECLS

/* Values 0 .. 2^RTF_HISTOGRAM_MAX_LOG2 - 1 (about 18 minutes in ns); larger
 * ones count in the last bucket.  Each power of two is cut into
 * RTF_HISTOGRAM_SUB linear buckets, so a bucket's midpoint is within
 * 1 / (2 * RTF_HISTOGRAM_SUB) = 0.4% of any value in it. */
#define RTF_HISTOGRAM_SUB_LOG2 7
#define RTF_HISTOGRAM_SUB (1 << RTF_HISTOGRAM_SUB_LOG2)
#define RTF_HISTOGRAM_MAX_LOG2 40
#define RTF_HISTOGRAM_BUCKETS \
    (RTF_HISTOGRAM_SUB * (RTF_HISTOGRAM_MAX_LOG2 - RTF_HISTOGRAM_SUB_LOG2 + 1))

typedef struct
{
  guint64 count;
  guint64 min, max;             /* exact */
  gdouble sum, sum_sq;          /* for mean and standard deviation */
  guint32 buckets[RTF_HISTOGRAM_BUCKETS];
} RtfHistogram;

typedef struct
{
  guint64 count;
  guint64 min, max;
  gdouble mean, stddev;
  guint64 p50, p99, p999, p9999;
} RtfHistogramSummary;

void rtf_histogram_reset (RtfHistogram * h);
void rtf_histogram_add (RtfHistogram * h, guint64 value);
/* Adds what src counted to dst (several writers' figures as one) */
void rtf_histogram_merge (RtfHistogram * dst, const RtfHistogram * src);
guint64 rtf_histogram_percentile (const RtfHistogram * h, gdouble p);
void rtf_histogram_summarize (const RtfHistogram * h,
    RtfHistogramSummary * s);

G_END_DECLS

#endif /* __RTF_HISTOGRAM_H__ */
