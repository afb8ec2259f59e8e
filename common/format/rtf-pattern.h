/* rtframe: file names of a rotated recording, from a printf-style pattern
 * such as "cam0-%05d.raw" (one integer conversion, like multifilesink),
 * which may also hold strftime-style time fields of fixed width in the
 * file name ("cam0-%F-%H%M%S-%05d.raw": the local time of the file's
 * first frame): making a file's name for the sink, and finding the files
 * back for the readers, by number, whatever their times.  One parser
 * serves both, so every name the sink can write is a name the readers
 * find. */
#ifndef __RTF_PATTERN_H__
#define __RTF_PATTERN_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RTF_PATTERN_NONE,             /* no conversion: a plain file name */
  RTF_PATTERN_OK,               /* exactly one %d / %u / %0Nd in the file
                                 * name (not a directory), %% escapes, and
                                 * time fields (RTF_PATTERN_TIME_FIELDS)
                                 * in the file name */
  RTF_PATTERN_INVALID           /* anything else with a % in it, or the
                                 * number in a directory */
} RtfPatternKind;

/* A pattern taken apart: the names it makes are
 * dir / prefix <number, zero-padded to width> suffix */
typedef struct
{
  gchar *dir;                   /* its directory ("." when none) */
  gchar *prefix;                /* the file name before the number */
  gchar *suffix;                /* ... and after it (%% unescaped; time
                                 * fields as their text, "%F") */
  gboolean zero;
  guint width;
  gboolean timed;               /* prefix or suffix holds time fields */
  gchar *prefix_tpl;            /* prefix and suffix as the pattern writes */
  gchar *suffix_tpl;            /* them (%% and time fields) */
} RtfPattern;

/* The time fields a pattern may hold, each of fixed width so that the
 * readers find the number between them: %Y (2026), %y (26), %m, %H, %M,
 * %S (2 digits), %j (day of the year, 3) and %F (2026-12-05).  %d stays
 * the file number, as in multifilesink (%F gives the day). */
#define RTF_PATTERN_TIME_FIELDS "YymjHMSF"

/* Checks a location: *why says what is wrong when INVALID. */
RtfPatternKind rtf_pattern_check (const gchar * location, gchar ** why);

/* The file name for number n (a pattern that rtf_pattern_check() found OK,
 * or a plain name, returned as is).  Never interprets anything but the
 * one integer conversion, %% and the time fields, which it writes as
 * zeros ("0000-00-00"): the name a file is prepared under before its
 * first frame (the readers match it all the same). */
gchar *rtf_pattern_format (const gchar * pattern, guint64 n);

/* ... with the time fields of unix_us (microseconds since the epoch) in
 * local time */
gchar *rtf_pattern_format_at (const gchar * pattern, guint64 n,
    gint64 unix_us);

/* Whether an OK pattern holds time fields */
gboolean rtf_pattern_is_timed (const gchar * pattern);

/* Whether path is a name pattern makes for number n: in its directory
 * (as written), matched, that number */
gboolean rtf_pattern_names (const gchar * pattern, const gchar * path,
    guint64 n);

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

/* The files in an OK pattern's directory it names with a number from
 * `from` on: how many, and the highest number (*highest, when any) */
guint rtf_pattern_count_from (const gchar * pattern, guint64 from,
    guint64 * highest);

/* Whether the pattern's directory holds a file it names with number n
 * other than path (a file of a timed set's number, made at another time) */
gboolean rtf_pattern_has_other (const gchar * pattern, guint64 n,
    const gchar * path);

G_END_DECLS

#endif /* __RTF_PATTERN_H__ */
