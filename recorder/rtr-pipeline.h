/* rtframe-record: the recording's pipeline - each camera's source, its
 * caps and its rtframesink, all in one pipeline (one clock and one base
 * time: a trigger's running time is the same instant at every camera).
 * Everything a user wrote is checked here, before anything records: an
 * element or plugin that is not there, a property an element does not
 * have, a value it does not take. */
#ifndef __RTR_PIPELINE_H__
#define __RTR_PIPELINE_H__

#include "rtr-config.h"

#include <gst/gst.h>

G_BEGIN_DECLS

/* NULL with *error (RTR_CONFIG_ERROR) when the config asks for what
 * cannot be built */
GstElement *rtr_pipeline_build (const RtrConfig * c, GError ** error);

/* cam's rtframesink in pipeline (a new reference) */
GstElement *rtr_pipeline_sink (GstElement * pipeline, const RtrCamera * cam);

G_END_DECLS

#endif /* __RTR_PIPELINE_H__ */
