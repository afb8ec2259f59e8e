/* rtframe-record: times as users write them - a number in the unit the
 * setting counts in, or a number with its unit (250us, 50ms, 2s, 1.5min,
 * 1h) - wherever the recorder takes a time: its keys and options (counted
 * in seconds) and the sinks' properties (counted in nanoseconds, which
 * no one writes by heart: "deadline=50ms" was refused as no guint64). */
#ifndef __RTR_DURATIONS_H__
#define __RTR_DURATIONS_H__

#include <glib.h>

G_BEGIN_DECLS
/* The time text says, in seconds: a bare number is seconds.  FALSE when
 * it is none (no number, a unit not known, negative, not finite). */
    gboolean rtr_duration_seconds (const gchar * text, gdouble * seconds);

/* A time with its unit as nanoseconds text, for a property counted in
 * nanoseconds (signed: "-5ms" too, as ts-offset takes); NULL when text
 * has no unit (taken as it is), is none, or would round to 0 ns from
 * more (0.4ns: 0 means "none" or "no limit" to most) */
gchar *rtr_duration_ns_text (const gchar * text, gboolean negative_ok);

/* What an error says a time may look like */
#define RTR_DURATION_FORMS "seconds, or a number with its unit: 500ms, 2s, 1.5min, 1h"

G_END_DECLS
#endif /* __RTR_DURATIONS_H__ */
