/* rtframe: CRC32C (Castagnoli), the checksum of frames in the index */
#ifndef __RTF_CRC32C_H__
#define __RTF_CRC32C_H__

#include <glib.h>

G_BEGIN_DECLS

/* Extends crc (0 to start) over [data, data + len).  Uses the CPU's CRC32C
 * instruction where there is one (x86-64 SSE4.2, ARMv8 CRC), a table
 * otherwise: the same result either way. */
guint32 rtf_crc32c (guint32 crc, const void *data, gsize len);

/* The table version alone, for tests that compare the two. */
guint32 rtf_crc32c_sw (guint32 crc, const void *data, gsize len);

G_END_DECLS

#endif /* __RTF_CRC32C_H__ */
