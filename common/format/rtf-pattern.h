/* rtframe: file names of a rotated recording, from a printf-style pattern
 * such as "cam0-%05d.raw" (one integer conversion, like multifilesink):
 * making a file's name for the sink, and finding the files back for the
 * readers.  One parser serves both, so every name the sink can write is a
 * name the readers find. */
#ifndef __RTF_PATTERN_H__
#define __RTF_PATTERN_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RTF_PATTERN_NONE,             /* no conversion: a plain file name */
  RTF_PATTERN_OK,               /* exactly one %d / %u / %0Nd in the file
                                 * name (not a directory), %% escapes */
  RTF_PATTERN_INVALID           /* anything else with a % in it, or the
                                 * number in a directory */
} RtfPatternKind;

/* A pattern taken apart: the names it makes are
 * dir / prefix <number, zero-padded to width> suffix */
typedef struct
{
  gchar *dir;                   /* its directory ("." when none) */
  gchar *prefix;                /* the file name before the number */
  gchar *suffix;                /* ... and after it (%% unescaped) */
  gboolean zero;
  guint width;
} RtfPattern;

/* Checks a location: *why says what is wrong when INVALID. */
RtfPatternKind rtf_pattern_check (const gchar * location, gchar ** why);

/* The file name for number n (a pattern that rtf_pattern_check() found OK,
 * or a plain name, returned as is).  Never interprets anything but the
 * one integer conversion and %%. */
gchar *rtf_pattern_format (const gchar * pattern, guint64 n);

/* Takes an OK pattern apart (FALSE for any other). */
gboolean rtf_pattern_parse (const gchar * pattern, RtfPattern * p);
void rtf_pattern_clear (RtfPattern * p);

/* Whether `name` (a file name in p->dir, no directory) is one the pattern
 * makes, and for which number: the digits between prefix and suffix, and
 * the pattern formats that number back to exactly this name.  A number
 * glued to digits of the name ("cam1%d.raw" makes "cam10.raw") is found
 * all the same. */
gboolean rtf_pattern_match (const RtfPattern * p, const gchar * name,
    guint64 * number);

G_END_DECLS

#endif /* __RTF_PATTERN_H__ */
