/* rtframe: the writer's figures as data (rtf-stats.h) */
#include "rtf-stats.h"

#include <stddef.h>

static const RtfStatField fields[] = {
#define RTF_STAT_ROW(member, kind, name, doc) \
  { name, RTF_STAT_##kind, offsetof (RtfWriterStats, member), doc },
  RTF_WRITER_STATS (RTF_STAT_ROW)
#undef RTF_STAT_ROW
};

const RtfStatField *
rtf_writer_stats_fields (guint * n_fields)
{
  *n_fields = G_N_ELEMENTS (fields);
  return fields;
}
