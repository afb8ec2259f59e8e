/* rtframe-record: a run never records over an earlier one.  rtframesink
 * takes a location as the place to record (a file there is truncated, a
 * set's files are replaced from its start-index on, as filesink does), so
 * each run of a recorder restarted by systemd would destroy the one before
 * (the adversarial read of issue 25, H3: a camera failing at its first
 * frame left the earlier take's 20 verified frames 0 bytes).  Before the
 * pipelines are made, each camera's location is looked at:
 *   - a set's pattern: the files of the pattern already there (data or
 *     index) are an earlier take's; the run starts after the highest of
 *     them (start-index), unless the camera's sink properties give one;
 *   - one file: when it (a regular file) or its index is there, the run
 *     is refused (exit 2) unless overwrite is set (--overwrite, [recorder]
 *     overwrite=true); a FIFO or a device there is a place to write to.
 * A camera recording to several locations (locations= in its sink
 * properties) is looked at the same way, location by location (a set
 * starts after the highest file of any), and a spread's manifest there
 * refuses the run unless overwrite: the new recording would replace it.
 * A link at a file's location, and a single file with max-file-size,
 * -duration or max-files, are refused too (exit 2, not the sink's exit 1
 * at start that systemd would restart forever). */
#ifndef __RTR_TAKES_H__
#define __RTR_TAKES_H__

#include "rtr-config.h"

G_BEGIN_DECLS

/* Looks at every camera of c (locations filled by rtr_config_check());
 * may add start-index to a camera's sink properties and say so on
 * stdout.  FALSE with *error when a camera's file is there and
 * c->overwrite is not set. */
gboolean rtr_takes_keep_earlier (RtrConfig * c, GError ** error);

G_END_DECLS
#endif
