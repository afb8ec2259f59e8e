/* rtframe-record: reading what to record */
#include "rtf-pattern.h"
#include "rtr-config.h"
#include "rtr-durations.h"
#include "rtr-places.h"

#include <gst/gst.h>
#include <string.h>

G_DEFINE_QUARK (rtr - config - error - quark, rtr_config_error);

/* The user's workload: 2048x928 P010 at 20 Hz (5.7 MB a frame) */
#define DEMO_CAPS "video/x-raw,format=P010_10LE,width=2048,height=928," \
  "framerate=20/1"
#define DEFAULT_STOP_TIMEOUT 10.0
#define DEFAULT_HTTP_IDLE_TIMEOUT 30.0
/* a status line into a log (not a terminal) every this many seconds */
#define DEFAULT_STATUS_EVERY 10.0

static void
camera_free (gpointer data)
{
  RtrCamera *cam = data;

  g_free (cam->name);
  g_free (cam->source);
  g_free (cam->caps);
  g_free (cam->location);
  g_strfreev (cam->sink);
  g_free (cam);
}

RtrConfig *
rtr_config_new (void)
{
  RtrConfig *c = g_new0 (RtrConfig, 1);

  c->cameras = g_ptr_array_new_with_free_func (camera_free);
  c->dir = g_strdup (".");
  c->pre_record = 2;
  c->post_record = 5;
  c->stop_timeout = DEFAULT_STOP_TIMEOUT;
  c->http_idle_timeout = DEFAULT_HTTP_IDLE_TIMEOUT;
  c->status_every = DEFAULT_STATUS_EVERY;
  c->origin = g_strdup ("the command line");
  return c;
}

void
rtr_config_free (RtrConfig * c)
{
  if (c == NULL)
    return;
  g_ptr_array_unref (c->cameras);
  g_free (c->dir);
  g_strfreev (c->event_at);
  g_strfreev (c->require_mounts);
  g_free (c->http);
  g_free (c->http_token_file);
  g_free (c->origin);
  g_free (c);
}

gboolean
rtr_config_fail (GError ** error, const gchar * format, ...)
{
  va_list ap;

  va_start (ap, format);
  g_propagate_error (error, g_error_new_valist (RTR_CONFIG_ERROR, 0, format,
          ap));
  va_end (ap);
  return FALSE;
}

/* name=value words, each checked for its '=' (the values are checked
 * against the element's properties when the pipeline is built) */
static gboolean
split_props (const gchar * text, gchar *** props, GError ** error)
{
  GError *err = NULL;
  guint i;

  gchar *trimmed = g_strstrip (g_strdup (text ? text : ""));
  gboolean empty = *trimmed == '\0';

  g_free (trimmed);
  *props = NULL;
  if (empty) {
    *props = g_new0 (gchar *, 1);
    return TRUE;
  }
  if (!g_shell_parse_argv (text, NULL, props, &err)) {
    rtr_config_fail (error, "sink properties \"%s\": %s", text, err->message);
    g_error_free (err);
    return FALSE;
  }
  for (i = 0; (*props)[i]; i++) {
    const gchar *eq = strchr ((*props)[i], '=');

    if (eq == NULL || eq == (*props)[i]) {
      rtr_config_fail (error, "sink property \"%s\": not name=value",
          (*props)[i]);
      g_clear_pointer (props, g_strfreev);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
valid_name (const gchar * name)
{
  const gchar *p;

  if (name == NULL || *name == '\0' || strlen (name) > 64)
    return FALSE;
  for (p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

gboolean
rtr_config_add_camera (RtrConfig * c, const gchar * name,
    const gchar * source, const gchar * caps, const gchar * location,
    const gchar * sink_props, GError ** error)
{
  RtrCamera *cam;
  gchar **props;

  if (!valid_name (name))
    return rtr_config_fail (error,
        "camera \"%s\": a name is 1-64 letters, digits, '-' "
        "or '_' (it names the sink and its files)", name ? name : "");
  if (source == NULL || *source == '\0')
    return rtr_config_fail (error, "camera %s: no source (a GStreamer source "
        "description, e.g. \"v4l2src device=/dev/video0\")", name);
  if (c->cameras->len >= RTR_MAX_CAMERAS)
    return rtr_config_fail (error, "camera %s: at most %d cameras", name,
        RTR_MAX_CAMERAS);
  if (!split_props (sink_props, &props, error))
    return FALSE;
  cam = g_new0 (RtrCamera, 1);
  cam->name = g_strdup (name);
  cam->source = g_strdup (source);
  cam->caps = caps && *caps ? g_strdup (caps) : NULL;
  cam->location = location && *location ? g_strdup (location) : NULL;
  cam->sink = props;
  g_ptr_array_add (c->cameras, cam);
  return TRUE;
}

gboolean
rtr_config_add_demo (RtrConfig * c, guint n, const gchar * caps,
    const gchar * sink_props, GError ** error)
{
  GstCaps *parsed = gst_caps_from_string (caps ? caps : DEMO_CAPS);
  gint fps_n = 0, fps_d = 1;
  guint i;

  if (parsed == NULL || gst_caps_get_size (parsed) == 0
      || !gst_structure_get_fraction (gst_caps_get_structure (parsed, 0),
          "framerate", &fps_n, &fps_d) || fps_n <= 0 || fps_d <= 0) {
    if (parsed)
      gst_caps_unref (parsed);
    return rtr_config_fail (error,
        "--caps \"%s\": caps with a framerate, e.g. %s", caps ? caps : "",
        DEMO_CAPS);
  }
  gst_caps_unref (parsed);
  if (n < 1 || n > RTR_MAX_CAMERAS)
    return rtr_config_fail (error, "--streams %u: 1 to %d", n, RTR_MAX_CAMERAS);
  c->demo = TRUE;
  for (i = 0; i < n; i++) {
    gchar *name = g_strdup_printf ("cam%u", i);
    /* a frame count, not a timer: the demo's files are exact (seconds 0:
     * until stopped; a negative one is left for rtr_config_check to
     * refuse) */
    gchar *count = c->seconds > 0 ? g_strdup_printf (" num-buffers=%"
        G_GINT64_FORMAT, (gint64) (c->seconds * fps_n / fps_d + 0.5)) :
        g_strdup ("");
    gchar *src = g_strdup_printf ("videotestsrc is-live=true pattern=ball%s "
        "foreground-color=%u", count, 0xff000000u | (0xffu << (8 * (i % 3))));

    g_free (count);
    gboolean ok = rtr_config_add_camera (c, name, src, caps ? caps :
        DEMO_CAPS, NULL, sink_props, error);

    g_free (src);
    g_free (name);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* ---- the config file ------------------------------------------------- */

static const gchar *const recorder_keys[] = {
  "dir", "seconds", "rotate", "events", "pre-record", "post-record",
  "event", "stop-timeout", "http", "http-token-file", "http-idle-timeout",
  "overwrite", "idle", "status-every", "require-mount", "http-control",
  "pre-record-on", NULL
};

static const gchar *const camera_keys[] = {
  "source", "caps", "location", "sink", NULL
};

static gboolean
known_keys (GKeyFile * kf, const gchar * group, const gchar * const *known,
    const gchar * path, GError ** error)
{
  gchar **keys = g_key_file_get_keys (kf, group, NULL, NULL);
  guint i;

  for (i = 0; keys && keys[i]; i++)
    if (!g_strv_contains (known, keys[i])) {
      gchar *all = g_strjoinv (", ", (gchar **) known);

      rtr_config_fail (error, "%s: [%s]: unknown key \"%s\" (known: %s)", path,
          group, keys[i], all);
      g_free (all);
      g_strfreev (keys);
      return FALSE;
    }
  g_strfreev (keys);
  return TRUE;
}

/* A number of a key, when there; FALSE with *error when not a number */
/* A key's text into *out (left NULL when the key is not there); a value
 * GKeyFile cannot give (not UTF-8) is bad input, not a key left out (the
 * adversarial read of issue 25, M3: a location with a Latin-1 byte was
 * dropped and the default used, a token file's path dropped and the API
 * open to anyone on the machine) */
static gboolean
get_text (GKeyFile * kf, const gchar * group, const gchar * key,
    gchar ** out, const gchar * path, GError ** error)
{
  GError *err = NULL;

  if (!g_key_file_has_key (kf, group, key, NULL))
    return TRUE;
  *out = g_key_file_get_string (kf, group, key, &err);
  if (err == NULL)
    return TRUE;
  rtr_config_fail (error, "%s: [%s] %s: %s", path, group, key, err->message);
  g_error_free (err);
  return FALSE;
}

/* A time: seconds, or with its unit (rtr-durations.h) */
static gboolean
get_seconds (GKeyFile * kf, const gchar * group, const gchar * key,
    gdouble * v, const gchar * path, GError ** error)
{
  gchar *text;
  gboolean ok;

  if (!g_key_file_has_key (kf, group, key, NULL))
    return TRUE;
  text = g_key_file_get_value (kf, group, key, NULL);
  g_strstrip (text);
  ok = rtr_duration_seconds (text, v);
  if (!ok)
    rtr_config_fail (error, "%s: [%s] %s: \"%s\" is no time (%s)", path,
        group, key, text, RTR_DURATION_FORMS);
  g_free (text);
  return ok;
}

/* A [recorder] key of two words: *second when it is the second (the
 * key not there: left as it is).  http-control: token (commands need
 * one) or open; pre-record-on: memory or disk. */
static gboolean
get_choice (GKeyFile * kf, const gchar * key, const gchar * first,
    const gchar * second, gboolean * is_second, const gchar * path,
    GError ** error)
{
  gchar *text = g_key_file_get_value (kf, "recorder", key, NULL);
  gboolean ok = TRUE;

  if (text == NULL)
    return TRUE;
  g_strstrip (text);
  if (g_str_equal (text, first) || g_str_equal (text, second))
    *is_second = g_str_equal (text, second);
  else
    ok = rtr_config_fail (error, "%s: [recorder] %s: \"%s\" is neither %s "
        "nor %s", path, key, text, first, second);
  g_free (text);
  return ok;
}

/* require-mount: true or false, or the mount points (a list) */
static gboolean
get_require_mount (RtrConfig * c, GKeyFile * kf, const gchar * path,
    GError ** error)
{
  gchar *text = g_key_file_get_value (kf, "recorder", "require-mount", NULL);
  GError *err = NULL;
  gboolean ok = TRUE;

  g_strstrip (text);
  g_clear_pointer (&c->require_mounts, g_strfreev);
  if (g_str_equal (text, "true") || g_str_equal (text, "false")) {
    c->require_mount = g_str_equal (text, "true");
  } else if (text[0] == '/') {
    c->require_mounts = g_key_file_get_string_list (kf, "recorder",
        "require-mount", NULL, &err);
    c->require_mount = TRUE;
  } else {
    ok = rtr_config_fail (error, "%s: [recorder] require-mount: \"%s\" is "
        "neither true, false nor mount points (/mnt/ssd0;/mnt/ssd1)", path,
        text);
  }
  if (err) {
    ok = rtr_config_fail (error, "%s: [recorder] require-mount: %s", path,
        err->message);
    g_error_free (err);
  }
  g_free (text);
  return ok;
}

static gboolean
load_recorder (RtrConfig * c, GKeyFile * kf, const gchar * path,
    GError ** error)
{
  const gchar *g = "recorder";
  gdouble rotate = c->rotate;
  GError *err = NULL;

  if (!g_key_file_has_group (kf, g))
    return TRUE;
  if (!known_keys (kf, g, recorder_keys, path, error))
    return FALSE;
  if (g_key_file_has_key (kf, g, "dir", NULL)) {
    g_clear_pointer (&c->dir, g_free);
    if (!get_text (kf, g, "dir", &c->dir, path, error))
      return FALSE;
  }
  if (!get_seconds (kf, g, "seconds", &c->seconds, path, error)
      || !get_seconds (kf, g, "rotate", &rotate, path, error)
      || !get_seconds (kf, g, "pre-record", &c->pre_record, path, error)
      || !get_seconds (kf, g, "post-record", &c->post_record, path, error)
      || !get_seconds (kf, g, "stop-timeout", &c->stop_timeout, path, error)
      || !get_seconds (kf, g, "http-idle-timeout", &c->http_idle_timeout,
          path, error)
      || !get_seconds (kf, g, "status-every", &c->status_every, path, error))
    return FALSE;
  if (rotate < 0 || rotate > G_MAXUINT || rotate != (guint) rotate)
    return rtr_config_fail (error, "%s: [recorder] rotate: whole seconds",
        path);
  c->rotate = (guint) rotate;
  if (g_key_file_has_key (kf, g, "events", NULL)) {
    c->events = g_key_file_get_boolean (kf, g, "events", &err);
    if (err) {
      rtr_config_fail (error, "%s: [recorder] events: %s", path, err->message);
      g_error_free (err);
      return FALSE;
    }
  }
  if (g_key_file_has_key (kf, g, "overwrite", NULL)) {
    c->overwrite = g_key_file_get_boolean (kf, g, "overwrite", &err);
    if (err) {
      rtr_config_fail (error, "%s: [recorder] overwrite: %s", path,
          err->message);
      g_error_free (err);
      return FALSE;
    }
  }
  if (!get_choice (kf, "http-control", "token", "open",
          &c->http_control_open, path, error)
      || !get_choice (kf, "pre-record-on", "memory", "disk",
          &c->pre_record_on_disk, path, error))
    return FALSE;
  if (g_key_file_has_key (kf, g, "require-mount", NULL)
      && !get_require_mount (c, kf, path, error))
    return FALSE;
  if (g_key_file_has_key (kf, g, "idle", NULL)) {
    c->idle = g_key_file_get_boolean (kf, g, "idle", &err);
    if (err) {
      rtr_config_fail (error, "%s: [recorder] idle: %s", path, err->message);
      g_error_free (err);
      return FALSE;
    }
  }
  if (g_key_file_has_key (kf, g, "http", NULL)) {
    g_clear_pointer (&c->http, g_free);
    if (!get_text (kf, g, "http", &c->http, path, error))
      return FALSE;
  }
  if (g_key_file_has_key (kf, g, "http-token-file", NULL)) {
    g_clear_pointer (&c->http_token_file, g_free);
    if (!get_text (kf, g, "http-token-file", &c->http_token_file, path, error))
      return FALSE;
  }
  if (g_key_file_has_key (kf, g, "event", NULL)) {
    g_strfreev (c->event_at);
    /* (a value that is not UTF-8 is an error here too: it dropped every
     * event, exit 0 with nothing recorded - the second adversarial read
     * of issue 25, H4) */
    c->event_at = g_key_file_get_string_list (kf, g, "event", NULL, &err);
    if (err) {
      rtr_config_fail (error, "%s: [recorder] event: %s", path, err->message);
      g_error_free (err);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
load_camera (RtrConfig * c, GKeyFile * kf, const gchar * group,
    const gchar * path, GError ** error)
{
  gchar *source = NULL, *caps = NULL, *location = NULL, *sink = NULL;
  gboolean ok;

  if (!known_keys (kf, group, camera_keys, path, error))
    return FALSE;
  ok = get_text (kf, group, "source", &source, path, error)
      && get_text (kf, group, "caps", &caps, path, error)
      && get_text (kf, group, "location", &location, path, error)
      && get_text (kf, group, "sink", &sink, path, error);
  if (ok)
    ok = rtr_config_add_camera (c, group + strlen ("camera "), source, caps,
        location, sink, error);
  else {
    g_free (source);
    g_free (caps);
    g_free (location);
    g_free (sink);
    return FALSE;
  }
  if (!ok)
    g_prefix_error (error, "%s: [%s]: ", path, group);
  g_free (source);
  g_free (caps);
  g_free (location);
  g_free (sink);
  return ok;
}

/* A group or a key given twice: GKeyFile merges groups and keeps a key's
 * last value, so a second [camera left] took the first one's place and
 * one camera was never recorded, exit 0 (the adversarial read of issue
 * 25, H4).  The text is read line by line as GKeyFile reads it (comments
 * and blank lines skipped, a group's name between [ and ], a key before
 * the first =). */
static gboolean
no_repeats (const gchar * text, const gchar * path, GError ** error)
{
  GHashTable *groups = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL), *keys = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL);
  gchar **lines = g_strsplit (text, "\n", -1);
  gboolean ok = TRUE;
  guint i;

  for (i = 0; ok && lines[i]; i++) {
    gchar *line = g_strstrip (lines[i]), *eq;

    if (line[0] == '\0' || line[0] == '#')
      continue;
    if (line[0] == '[') {
      if (!g_hash_table_add (groups, g_strdup (line)))
        ok = rtr_config_fail (error, "%s:%u: the group %s is given twice (a "
            "camera a group: give each its own name)", path, i + 1, line);
      g_hash_table_remove_all (keys);
    } else if ((eq = strchr (line, '=')) != NULL) {
      gchar *key = g_strstrip (g_strndup (line, eq - line));

      if (g_hash_table_contains (keys, key))
        ok = rtr_config_fail (error, "%s:%u: the key \"%s\" is given twice "
            "in its group (only one value counts)", path, i + 1, key);
      g_hash_table_add (keys, key);
    }
  }
  g_strfreev (lines);
  g_hash_table_unref (keys);
  g_hash_table_unref (groups);
  return ok;
}

gboolean
rtr_config_load (RtrConfig * c, const gchar * path, GError ** error)
{
  GKeyFile *kf = g_key_file_new ();
  gchar **groups = NULL, *text = NULL;
  gboolean ok = TRUE;
  guint i;

  /* (a file that cannot be read is said as GKeyFile says it, below) */
  if (g_file_get_contents (path, &text, NULL, NULL)) {
    ok = no_repeats (text, path, error);
    g_free (text);
    if (!ok) {
      g_key_file_free (kf);
      return FALSE;
    }
  }
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, error)) {
    g_prefix_error (error, "%s: ", path);
    g_key_file_free (kf);
    return FALSE;
  }
  g_free (c->origin);
  c->origin = g_strdup (path);
  groups = g_key_file_get_groups (kf, NULL);
  ok = load_recorder (c, kf, path, error);
  for (i = 0; ok && groups[i]; i++) {
    if (g_str_equal (groups[i], "recorder"))
      continue;
    if (g_str_has_prefix (groups[i], "camera "))
      ok = load_camera (c, kf, groups[i], path, error);
    else
      ok = rtr_config_fail (error, "%s: unknown group [%s] (known: [recorder], "
          "[camera NAME])", path, groups[i]);
  }
  if (ok && c->cameras->len == 0)
    ok = rtr_config_fail (error,
        "%s: no camera (a [camera NAME] group with a source)", path);
  g_strfreev (groups);
  g_key_file_free (kf);
  return ok;
}

/* ---- together ---------------------------------------------------------- */

static gchar *
default_location (const RtrConfig * c, const RtrCamera * cam)
{
  const gchar *tail = c->events && c->pre_record_on_disk ? "-ring-%05d.raw" :
      c->events ? "-event-%05d.raw" : c->rotate ? "-%05d.raw" : ".raw";
  gchar *base = g_strconcat (cam->name, tail, NULL);
  gchar *path = g_build_filename (c->dir, base, NULL);

  g_free (base);
  return path;
}

gboolean
rtr_config_check (RtrConfig * c, GError ** error)
{
  guint i, j;

  if (c->cameras->len == 0)
    return rtr_config_fail (error, "no camera");
  for (i = 0; c->require_mounts && c->require_mounts[i]; i++)
    if (!rtr_places_is_mount_point (c->require_mounts[i]))
      return rtr_config_fail (error, "require-mount: %s is no mount point "
          "now: is its disk mounted? (findmnt %s)", c->require_mounts[i],
          c->require_mounts[i]);
  /* (finite, and at most RTR_MAX_SECONDS: the timers count milliseconds
   * in a guint, which 49.7 days overflow - the adversarial read of issue
   * 25, M1: --seconds 4294967.5 stopped after 0.2 s, inf recorded nothing,
   * nan never stopped) */
  if (!(c->seconds >= 0 && c->seconds <= RTR_MAX_SECONDS)
      || !(c->pre_record >= 0 && c->pre_record <= RTR_MAX_SECONDS)
      || !(c->post_record > 0 && c->post_record <= RTR_MAX_SECONDS)
      || !(c->stop_timeout > 0 && c->stop_timeout <= RTR_MAX_SECONDS))
    return rtr_config_fail (error,
        "seconds >= 0, pre-record >= 0, post-record > 0 and "
        "stop-timeout > 0, each at most %u (30 days)", (guint) RTR_MAX_SECONDS);
  if (!(c->http_idle_timeout >= 1 && c->http_idle_timeout <= 3600)
      || c->http_idle_timeout != (guint) c->http_idle_timeout)
    return rtr_config_fail (error, "http-idle-timeout: whole seconds, 1 to "
        "3600");
  if (!(c->status_every >= 0 && c->status_every <= 3600)
      || c->status_every != (guint) c->status_every)
    return rtr_config_fail (error, "status-every: whole seconds, 0 (no "
        "status lines but on a terminal) to 3600");
  if (c->rotate > RTR_MAX_SECONDS)
    return rtr_config_fail (error, "rotate: whole seconds, 0 (one file) to "
        "%u (30 days)", (guint) RTR_MAX_SECONDS);
  if (c->event_at && !c->events)
    return rtr_config_fail (error,
        "timed events need events recording (--trigger, or " "events=true)");
  if (c->pre_record_on_disk && !c->events)
    return rtr_config_fail (error, "pre-record-on=disk is for events "
        "(--trigger, or events=true)");
  if (c->pre_record_on_disk && !(c->pre_record > 0))
    return rtr_config_fail (error, "pre-record-on=disk keeps pre-record "
        "seconds on the disk: pre-record must be more than 0");
  if (c->idle && c->events)
    return rtr_config_fail (error, "idle is for takes (continuous "
        "recording): events record only what a trigger asks already");
  for (i = 0; c->event_at && c->event_at[i]; i++) {
    gdouble t;

    /* (inf fired at 0 s, nan never - the second adversarial read, M1) */
    if (!rtr_duration_seconds (c->event_at[i], &t) || t > RTR_MAX_SECONDS)
      return rtr_config_fail (error, "event \"%s\": a time from the start "
          "(%s), at most %u days", c->event_at[i], RTR_DURATION_FORMS,
          (guint) (RTR_MAX_SECONDS / 86400));
    /* (as seconds from here on: the triggers read them so) */
    g_free (c->event_at[i]);
    c->event_at[i] = g_strdup_printf ("%.9f", t);
  }
  for (i = 0; i < c->cameras->len; i++) {
    RtrCamera *a = g_ptr_array_index (c->cameras, i);
    gchar *why = NULL;

    if (a->location == NULL)
      a->location = default_location (c, a);
    if (rtf_pattern_check (a->location, &why) == RTF_PATTERN_INVALID) {
      rtr_config_fail (error, "camera %s: location %s: %s", a->name,
          a->location, why);
      g_free (why);
      return FALSE;
    }
    if (!rtr_places_writable (a, &why)
        || (c->require_mount
            && !rtr_places_mounted (a, c->require_mounts, &why))) {
      rtr_config_fail (error, "%s", why);
      g_free (why);
      return FALSE;
    }
    /* (the same file by two spellings, or names that can meet: the
     * adversarial reads of issue 25, L1, H2, M2) */
    for (j = 0; j < i; j++) {
      if (!rtr_places_apart (a, g_ptr_array_index (c->cameras, j), &why)) {
        rtr_config_fail (error, "%s", why);
        g_free (why);
        return FALSE;
      }
    }
    for (j = 0; j < i; j++) {
      RtrCamera *b = g_ptr_array_index (c->cameras, j);

      if (g_str_equal (a->name, b->name))
        return rtr_config_fail (error, "two cameras are named %s", a->name);
    }
  }
  return TRUE;
}
