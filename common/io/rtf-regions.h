/* rtframe: memory regions a producer keeps valid for the writer to
 * register with the kernel (io_uring fixed buffers) */
#ifndef __RTF_REGIONS_H__
#define __RTF_REGIONS_H__

#include <glib.h>

G_BEGIN_DECLS

/* Most regions a table holds; their ids are 0 .. RTF_REGIONS_MAX - 1. */
#define RTF_REGIONS_MAX 64

typedef struct _RtfRegions RtfRegions;

RtfRegions *rtf_regions_new (void);
RtfRegions *rtf_regions_ref (RtfRegions * r);
void rtf_regions_unref (RtfRegions * r);
/* Appends [base, base + size): its id, or -1 when the table is full.  The
 * caller keeps the memory valid, unmoved, as long as any writer given this
 * table runs (a region is never removed). */
gint rtf_regions_add (RtfRegions * r, gpointer base, gsize size);
guint rtf_regions_count (RtfRegions * r);
void rtf_regions_get (RtfRegions * r, guint id, gpointer * base, gsize * size);

G_END_DECLS

#endif /* __RTF_REGIONS_H__ */
