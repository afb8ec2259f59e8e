/* rtframe-record: building and checking the pipeline */
#include "rtr-pipeline.h"
#include "rtr-durations.h"

#include <string.h>

/* What the recorder sets itself: a user's value would be overridden or
 * would break the recorder's own reading of the bus */
static const gchar *const reserved[] = { "name", "location", "parent", NULL };

/* Levenshtein distance, for "did you mean" */
static guint
distance (const gchar * a, const gchar * b)
{
  guint la = strlen (a), lb = strlen (b), i, j, *row, best;

  row = g_new (guint, lb + 1);
  for (j = 0; j <= lb; j++)
    row[j] = j;
  for (i = 1; i <= la; i++) {
    guint diag = row[0];

    row[0] = i;
    for (j = 1; j <= lb; j++) {
      guint up = row[j];

      row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1),
          diag + (a[i - 1] != b[j - 1]));
      diag = up;
    }
  }
  best = row[lb];
  g_free (row);
  return best;
}

/* The property of klass nearest to name, when near enough */
static const gchar *
nearest_property (GObjectClass * klass, const gchar * name)
{
  guint n, i, best = 3;
  GParamSpec **specs = g_object_class_list_properties (klass, &n);
  const gchar *found = NULL;

  for (i = 0; i < n; i++) {
    guint d = distance (name, specs[i]->name);

    if (d < best) {
      best = d;
      found = specs[i]->name;
    }
  }
  g_free (specs);
  return found;
}

/* A property that holds a time in nanoseconds (its blurb says so) */
static gboolean
is_time (GParamSpec * pspec)
{
  const gchar *blurb = g_param_spec_get_blurb (pspec);

  return (G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_UINT64
      || G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_INT64) && blurb
      && (strstr (blurb, "nanoseconds") || strstr (blurb, "(ns)"));
}

static gboolean
set_one (GstElement * sink, const gchar * cam, const gchar * word,
    GError ** error)
{
  gchar **kv = g_strsplit (word, "=", 2);
  GObjectClass *klass = G_OBJECT_GET_CLASS (sink);
  GParamSpec *pspec = g_object_class_find_property (klass, kv[0]);
  GValue v = G_VALUE_INIT;
  gboolean ok = FALSE;

  if (pspec == NULL) {
    const gchar *near = nearest_property (klass, kv[0]);

    rtr_config_fail (error,
        "camera %s: rtframesink has no property \"%s\"%s%s%s (gst-"
        "inspect-1.0 rtframesink lists them)", cam, kv[0],
        near ? " - did you mean \"" : "", near ? near : "", near ? "\"?" : "");
  } else if (g_strv_contains (reserved, pspec->name)) {
    rtr_config_fail (error, "camera %s: %s is set by the recorder (a camera's "
        "location is its own key)", cam, pspec->name);
  } else if (!(pspec->flags & G_PARAM_WRITABLE)
      || (pspec->flags & G_PARAM_CONSTRUCT_ONLY)) {
    rtr_config_fail (error, "camera %s: rtframesink's %s cannot be set", cam,
        kv[0]);
  } else {
    gchar *ns = is_time (pspec) ? rtr_duration_ns_text (kv[1],
        G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_INT64) : NULL;

    g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (pspec));
    if (!gst_value_deserialize_with_pspec (&v, ns ? ns : kv[1], pspec))
      rtr_config_fail (error,
          "camera %s: \"%s\" is no value for rtframesink's %s (a %s%s)",
          cam, kv[1], kv[0], g_type_name (G_PARAM_SPEC_VALUE_TYPE (pspec)),
          is_time (pspec) ? " of nanoseconds, or a time with its unit: "
          "50ms, 2s, 250us" : "");
    else if (g_param_value_validate (pspec, &v))
      rtr_config_fail (error,
          "camera %s: %s=%s is out of range (gst-inspect-1.0 "
          "rtframesink gives its range)", cam, kv[0], kv[1]);
    else {
      g_object_set_property (G_OBJECT (sink), pspec->name, &v);
      ok = TRUE;
    }
    g_value_unset (&v);
    g_free (ns);
  }
  g_strfreev (kv);
  return ok;
}

static GstElement *
make_sink (const RtrCamera * cam, GError ** error)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", cam->name);
  guint i;

  if (sink == NULL) {
    rtr_config_fail (error,
        "there is no rtframesink element: the rtframe plugin is not "
        "installed, or not where GStreamer looks (GST_PLUGIN_PATH_1_0; "
        "gst-inspect-1.0 rtframesink says more)");
    return NULL;
  }
  /* a status line a second and a summary from the last (the user's may
   * say otherwise) */
  g_object_set (sink, "location", cam->location, "stats-interval",
      (guint64) GST_SECOND, NULL);
  for (i = 0; cam->sink[i]; i++)
    if (!set_one (sink, cam->name, cam->sink[i], error)) {
      gst_object_unref (sink);
      return NULL;
    }
  return sink;
}

/* A missing element's words: which, and where it usually comes from */
static void
explain_missing (GstParseContext * ctx, const RtrCamera * cam, GError ** error)
{
  gchar **missing = gst_parse_context_get_missing_elements (ctx);
  gchar *names = missing ? g_strjoinv (", ", missing) : NULL;

  if (names) {
    g_clear_error (error);
    rtr_config_fail (error,
        "camera %s: no element %s: its plugin is not installed, or "
        "not where GStreamer looks (v4l2src is in Debian's "
        "gstreamer1.0-plugins-good, aravissrc in libaravis-0.8-0; "
        "gst-inspect-1.0 lists what is there)", cam->name, names);
  }
  g_free (names);
  g_strfreev (missing);
}

static GstElement *
make_source (const RtrCamera * cam, GError ** error)
{
  GstParseContext *ctx = gst_parse_context_new ();
  GstElement *bin;
  GstPad *pad;

  bin = gst_parse_bin_from_description_full (cam->source, TRUE, ctx,
      GST_PARSE_FLAG_FATAL_ERRORS, error);
  if (bin == NULL) {
    if (g_error_matches (*error, GST_PARSE_ERROR,
            GST_PARSE_ERROR_NO_SUCH_ELEMENT))
      explain_missing (ctx, cam, error);
    else
      g_prefix_error (error, "camera %s: source \"%s\": ", cam->name,
          cam->source);
    gst_parse_context_free (ctx);
    return NULL;
  }
  gst_parse_context_free (ctx);
  if ((pad = gst_element_get_static_pad (bin, "sink")) != NULL) {
    gst_object_unref (pad);
    gst_object_unref (bin);
    rtr_config_fail (error,
        "camera %s: source \"%s\" begins with an element that takes "
        "input: a source description starts with a source (v4l2src, "
        "aravissrc, ...)", cam->name, cam->source);
    return NULL;
  }
  if ((pad = gst_element_get_static_pad (bin, "src")) == NULL) {
    gst_object_unref (bin);
    rtr_config_fail (error,
        "camera %s: source \"%s\" has no output left to record "
        "(does it end in a sink?)", cam->name, cam->source);
    return NULL;
  }
  gst_object_unref (pad);
  return bin;
}

static gboolean
add_camera (GstBin * pipeline, const RtrCamera * cam, GError ** error)
{
  GstElement *src, *filter, *sink;
  GstCaps *caps = NULL;
  gchar *name;

  if (cam->caps && (caps = gst_caps_from_string (cam->caps)) == NULL)
    return rtr_config_fail (error, "camera %s: caps \"%s\" cannot be read",
        cam->name, cam->caps);
  if ((src = make_source (cam, error)) == NULL) {
    gst_clear_caps (&caps);
    return FALSE;
  }
  if ((sink = make_sink (cam, error)) == NULL) {
    gst_object_unref (src);
    gst_clear_caps (&caps);
    return FALSE;
  }
  /* named after the camera, with a '.' no camera's name has: GStreamer's
   * own names (bin0, capsfilter0) clashed with a camera named so (the
   * adversarial read of issue 25, L2: a CRITICAL, then "does not link") */
  name = g_strconcat (cam->name, ".source", NULL);
  gst_object_set_name (GST_OBJECT (src), name);
  g_free (name);
  name = g_strconcat (cam->name, ".caps", NULL);
  filter = gst_element_factory_make ("capsfilter", name);
  g_free (name);
  if (caps)
    g_object_set (filter, "caps", caps, NULL);
  gst_clear_caps (&caps);
  gst_bin_add_many (pipeline, src, filter, sink, NULL);
  if (!gst_element_link_many (src, filter, sink, NULL))
    return rtr_config_fail (error,
        "camera %s: its source's output does not link to "
        "rtframesink (raw video of a format it takes: gst-inspect-1.0 "
        "rtframesink)", cam->name);
  return TRUE;
}

GstElement *
rtr_pipeline_build (const RtrConfig * c, GError ** error)
{
  GstElementFactory *factory = gst_element_factory_find ("rtframesink");
  GstElement *pipeline;
  guint i;

  /* first: without it nothing else the user wrote matters */
  if (factory == NULL) {
    rtr_config_fail (error,
        "there is no rtframesink element: the rtframe plugin is not "
        "installed, or not where GStreamer looks (GST_PLUGIN_PATH_1_0; "
        "gst-inspect-1.0 rtframesink says more)");
    return NULL;
  }
  gst_object_unref (factory);
  pipeline = gst_pipeline_new ("rtframe-record");

  for (i = 0; i < c->cameras->len; i++)
    if (!add_camera (GST_BIN (pipeline), g_ptr_array_index (c->cameras, i),
            error)) {
      gst_object_unref (pipeline);
      return NULL;
    }
  return pipeline;
}

GstElement *
rtr_pipeline_sink (GstElement * pipeline, const RtrCamera * cam)
{
  return gst_bin_get_by_name (GST_BIN (pipeline), cam->name);
}
