/* rtframe: file names of a rotated recording, from a printf-style pattern
 * such as "cam0-%05d.raw" (one integer conversion, like multifilesink) */
#ifndef __RTF_PATTERN_H__
#define __RTF_PATTERN_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RTF_PATTERN_NONE,             /* no conversion: a plain file name */
  RTF_PATTERN_OK,               /* exactly one %d / %u / %0Nd, %% escapes */
  RTF_PATTERN_INVALID           /* anything else with a % in it */
} RtfPatternKind;

/* Checks a location: *why says what is wrong when INVALID. */
RtfPatternKind rtf_pattern_check (const gchar * location, gchar ** why);

/* The file name for number n (a pattern that rtf_pattern_check() found OK,
 * or a plain name, returned as is).  Never interprets anything but the
 * one integer conversion and %%. */
gchar *rtf_pattern_format (const gchar * pattern, guint64 n);

G_END_DECLS

#endif /* __RTF_PATTERN_H__ */
