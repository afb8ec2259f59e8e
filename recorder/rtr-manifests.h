/* rtframe-record: each event's and take's manifest beside the recordings
 * (common/format/rtf-take-manifest.h): DIR/<id>.rtftake, naming every
 * camera's files and frames of it, so that rtframe-info, -verify,
 * -export and rtframesrc find one event of every camera by its id.
 *
 * The sinks' messages feed it: a camera's recording-started (the id its
 * start carried, its first frame and file), the files it opens while the
 * recording is on, its recording-stopped (its last frame, its count).  The
 * manifest is written when the first camera starts and each time one
 * stops, "complete" once every camera that started has stopped (a stop,
 * or EOS); written crash-safely - a hidden file in DIR,
 * synced, renamed into place (the first time only where the name holds
 * nothing: another run's manifest there is left as it is, said on
 * stderr), the directory synced. */
#ifndef __RTR_MANIFESTS_H__
#define __RTR_MANIFESTS_H__

#include "rtr-commands.h"
#include "rtr-config.h"

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _RtrManifests RtrManifests;

RtrManifests *rtr_manifests_new (const RtrConfig * c, RtrCommands * k);
void rtr_manifests_free (RtrManifests * m);
/* A message from the bus (anything; the sinks' recording and file
 * messages are taken) */
void rtr_manifests_take (RtrManifests * m, GstMessage * msg);
/* The pipeline has stopped: a file a manifest names that is gone - one a
 * location that failed held no frame in (the sink deleted it as its
 * writer ended, after the bus was let go), or one max-files deleted - is
 * named no more, and said; the frames its camera was told to have
 * (frames=) stay, so a reader still counts what a deleted file held as
 * missing.  Each manifest changed is written again. */
void rtr_manifests_settle (RtrManifests * m);
/* The recording of that id changed (a note): written again if started */
void rtr_manifests_update (RtrManifests * m, const gchar * id);

G_END_DECLS
#endif /* __RTR_MANIFESTS_H__ */
