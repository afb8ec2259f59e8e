/* rtframe: a take's manifest as data and text (rtf-take-manifest.h) */
#include "rtf-take-manifest.h"
#include "rtf-keyfile-paths.h"
#include "rtf-pattern.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define GROUP "rtframe-take"
#define CAMERA_GROUP "camera "
#define MAX_CAMERAS 64

gboolean
rtf_take_id_is_valid (const gchar * id)
{
  const gchar *c;

  if (id == NULL || *id == '\0' || strlen (id) > 63 || id[0] == '.')
    return FALSE;
  for (c = id; *c; c++)
    if (!g_ascii_isalnum (*c) && !strchr ("._-", *c))
      return FALSE;
  return TRUE;
}

static gboolean
camera_name_is_valid (const gchar * name)
{
  const gchar *c;

  if (name == NULL || *name == '\0' || strlen (name) > 63)
    return FALSE;
  for (c = name; *c; c++)
    if (!g_ascii_isalnum (*c) && !strchr ("-_", *c))
      return FALSE;
  return TRUE;
}

RtfTakeManifest *
rtf_take_manifest_new (const gchar * id, const gchar * kind)
{
  RtfTakeManifest *m = g_new0 (RtfTakeManifest, 1);

  m->id = g_strdup (id);
  m->kind = g_strdup (kind);
  m->running_time = m->stop_running_time = RTF_TAKE_NONE;
  m->notes = g_new0 (gchar *, 1);
  m->cameras = g_ptr_array_new ();
  return m;
}

static void
camera_free (RtfTakeCamera * c)
{
  g_free (c->name);
  g_strfreev (c->files);
  g_free (c);
}

void
rtf_take_manifest_free (RtfTakeManifest * m)
{
  guint i;

  if (m == NULL)
    return;
  for (i = 0; i < m->cameras->len; i++)
    camera_free (g_ptr_array_index (m->cameras, i));
  g_ptr_array_unref (m->cameras);
  g_free (m->id);
  g_free (m->kind);
  g_free (m->utc);
  g_free (m->label);
  g_strfreev (m->notes);
  g_free (m);
}

RtfTakeCamera *
rtf_take_manifest_add_camera (RtfTakeManifest * m, const gchar * name)
{
  RtfTakeCamera *c = g_new0 (RtfTakeCamera, 1);

  c->name = g_strdup (name);
  c->files = g_new0 (gchar *, 1);
  c->first_frame = c->last_frame = RTF_TAKE_NONE;
  c->first_running_time = c->last_running_time = RTF_TAKE_NONE;
  g_ptr_array_add (m->cameras, c);
  return c;
}

const RtfTakeCamera *
rtf_take_manifest_camera (const RtfTakeManifest * m, const gchar * name)
{
  guint i;

  for (i = 0; i < m->cameras->len; i++) {
    const RtfTakeCamera *c = g_ptr_array_index (m->cameras, i);

    if (g_str_equal (c->name, name))
      return c;
  }
  return NULL;
}

gboolean
rtf_take_manifest_probe (gint fd)
{
  static const gchar head[] = "[" GROUP "]";
  gchar buf[sizeof head];
  gssize n = pread (fd, buf, sizeof head - 1, 0);

  return n == (gssize) sizeof head - 1 && memcmp (buf, head,
      sizeof head - 1) == 0;
}

gboolean
rtf_take_manifest_is_path (const gchar * path)
{
  return g_str_has_suffix (path, RTF_TAKE_MANIFEST_SUFFIX);
}

gchar *
rtf_take_manifest_file_path (const gchar * manifest_path, const gchar * file)
{
  gchar *dir, *path;

  if (g_path_is_absolute (file))
    return g_strdup (file);
  dir = g_path_get_dirname (manifest_path);
  path = g_build_filename (dir, file, NULL);
  g_free (dir);
  return path;
}

/* ---- text ------------------------------------------------------------- */

static void
set_u64 (GKeyFile * kf, const gchar * group, const gchar * key, guint64 v)
{
  if (v != RTF_TAKE_NONE)
    g_key_file_set_uint64 (kf, group, key, v);
}

/* A list of texts as one raw value: each encoded, ';'-ended */
static void
set_list (GKeyFile * kf, const gchar * group, const gchar * key,
    gchar ** items, gboolean paths)
{
  GString *v = g_string_new (NULL);
  guint i;

  for (i = 0; items && items[i]; i++) {
    gchar *e = paths ? rtf_keyfile_path_encode (items[i]) : g_strdup (items[i]);
    const gchar *p;

    for (p = e; *p; p++) {
      if (*p == ';')
        g_string_append (v, "\\;");
      else if (*p == '\\')
        g_string_append (v, "\\\\");
      else if (*p == '\n')
        g_string_append (v, "\\n");
      else if (*p == '\t')
        g_string_append (v, "\\t");
      else if (*p == '\r')
        g_string_append (v, "\\r");
      else if (*p == ' ' && (p == e))
        g_string_append (v, "\\s");
      else
        g_string_append_c (v, *p);
    }
    g_string_append_c (v, ';');
    g_free (e);
  }
  g_key_file_set_value (kf, group, key, v->str);
  g_string_free (v, TRUE);
}

gchar *
rtf_take_manifest_to_text (const RtfTakeManifest * m)
{
  GKeyFile *kf = g_key_file_new ();
  GPtrArray *names = g_ptr_array_new ();
  gchar *text;
  guint i;

  g_key_file_set_integer (kf, GROUP, "version", RTF_TAKE_MANIFEST_VERSION);
  g_key_file_set_string (kf, GROUP, "id", m->id);
  g_key_file_set_string (kf, GROUP, "kind", m->kind);
  if (m->utc)
    g_key_file_set_string (kf, GROUP, "utc", m->utc);
  set_u64 (kf, GROUP, "running-time", m->running_time);
  set_u64 (kf, GROUP, "stop-running-time", m->stop_running_time);
  if (m->label) {
    gchar *e = rtf_keyfile_path_encode (m->label);

    g_key_file_set_string (kf, GROUP, "label", e);
    g_free (e);
  }
  /* (texts from anyone: encoded as paths are, control bytes and all) */
  set_list (kf, GROUP, "notes", m->notes, TRUE);
  g_key_file_set_string (kf, GROUP, "state", m->complete ? "complete" :
      "recording");
  for (i = 0; i < m->cameras->len; i++)
    g_ptr_array_add (names, ((RtfTakeCamera *) g_ptr_array_index (m->cameras,
                i))->name);
  g_ptr_array_add (names, NULL);
  set_list (kf, GROUP, "cameras", (gchar **) names->pdata, FALSE);
  for (i = 0; i < m->cameras->len; i++) {
    const RtfTakeCamera *c = g_ptr_array_index (m->cameras, i);
    gchar *group = g_strconcat (CAMERA_GROUP, c->name, NULL);

    set_list (kf, group, "files", c->files, TRUE);
    set_u64 (kf, group, "first-frame", c->first_frame);
    set_u64 (kf, group, "last-frame", c->last_frame);
    set_u64 (kf, group, "frames", c->frames);
    set_u64 (kf, group, "first-running-time", c->first_running_time);
    set_u64 (kf, group, "last-running-time", c->last_running_time);
    g_key_file_set_string (kf, group, "state", c->stopped ? "stopped" :
        "recording");
    g_free (group);
  }
  text = g_key_file_to_data (kf, NULL, NULL);
  g_ptr_array_unref (names);
  g_key_file_free (kf);
  return text;
}

/* ---- parsing ------------------------------------------------------------ */

static gboolean
fail (GError ** error, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

     static gboolean fail (GError ** error, const gchar * fmt, ...)
{
  va_list ap;
  gchar *why;

  va_start (ap, fmt);
  why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
      "not a take's manifest: %s", why);
  g_free (why);
  return FALSE;
}

static gboolean
get_u64 (GKeyFile * kf, const gchar * group, const gchar * key, guint64 * v,
    GError ** error)
{
  gchar *raw = g_key_file_get_value (kf, group, key, NULL), *end = NULL;
  gboolean ok = TRUE;

  *v = RTF_TAKE_NONE;
  if (raw == NULL)
    return TRUE;
  errno = 0;
  *v = g_ascii_strtoull (raw, &end, 10);
  if (raw[0] < '0' || raw[0] > '9' || *end != '\0' || errno
      || *v == RTF_TAKE_NONE)
    ok = fail (error, "[%s] %s is not a number: \"%.40s\"", group, key, raw);
  g_free (raw);
  return ok;
}

/* A raw list: items decoded (paths) or as they are; NULL with *error */
static gchar **
get_list (GKeyFile * kf, const gchar * group, const gchar * key,
    gboolean paths, GError ** error)
{
  gchar *raw = g_key_file_get_value (kf, group, key, NULL), *why = NULL;
  gchar **items;
  guint i;

  if (raw == NULL)
    return g_new0 (gchar *, 1);
  items = rtf_keyfile_split_list (raw, &why);
  g_free (raw);
  for (i = 0; items && paths && items[i] && why == NULL; i++) {
    gchar *bytes = rtf_keyfile_path_decode (items[i], &why);

    if (bytes) {
      g_free (items[i]);
      items[i] = bytes;
    }
  }
  if (why) {
    fail (error, "[%s] %s: %s", group, key, why);
    g_free (why);
    g_strfreev (items);
    return NULL;
  }
  return items;
}

static gboolean
parse_camera (GKeyFile * kf, RtfTakeManifest * m, const gchar * name,
    GError ** error)
{
  gchar *group = g_strconcat (CAMERA_GROUP, name, NULL), *state;
  RtfTakeCamera *c;
  gboolean ok = FALSE;
  guint i;

  if (!camera_name_is_valid (name) || rtf_take_manifest_camera (m, name)) {
    fail (error, "a camera is named \"%.64s\" (letters, digits, '-', '_'; "
        "each once)", name);
    goto out;
  }
  if (!g_key_file_has_group (kf, group)) {
    fail (error, "no [%s]", group);
    goto out;
  }
  c = rtf_take_manifest_add_camera (m, name);
  g_strfreev (c->files);
  if ((c->files = get_list (kf, group, "files", TRUE, error)) == NULL) {
    c->files = g_new0 (gchar *, 1);
    goto out;
  }
  /* files, each once: no pattern, no manifest (a reader would take a
   * whole set, or recurse) */
  for (i = 0; c->files[i]; i++) {
    guint j;

    for (j = 0; j < i && !g_str_equal (c->files[j], c->files[i]); j++);
    if (c->files[i][0] == '\0' || j < i
        || rtf_take_manifest_is_path (c->files[i])
        || g_str_has_suffix (c->files[i], ".rtfspread")
        || rtf_pattern_check (c->files[i], NULL) == RTF_PATTERN_OK) {
      fail (error, "[%s] names the file \"%.64s\" (twice, or a pattern "
          "or a manifest, not a file)", group, c->files[i]);
      goto out;
    }
  }
  if (!get_u64 (kf, group, "first-frame", &c->first_frame, error)
      || !get_u64 (kf, group, "last-frame", &c->last_frame, error)
      || !get_u64 (kf, group, "frames", &c->frames, error)
      || !get_u64 (kf, group, "first-running-time", &c->first_running_time,
          error)
      || !get_u64 (kf, group, "last-running-time", &c->last_running_time,
          error))
    goto out;
  if (c->frames == RTF_TAKE_NONE)
    c->frames = 0;
  if (c->first_frame != RTF_TAKE_NONE && c->last_frame != RTF_TAKE_NONE
      && c->last_frame < c->first_frame) {
    fail (error, "[%s] last-frame is before first-frame", group);
    goto out;
  }
  state = g_key_file_get_string (kf, group, "state", NULL);
  c->stopped = g_strcmp0 (state, "stopped") == 0;
  g_free (state);
  ok = TRUE;
out:
  g_free (group);
  return ok;
}

RtfTakeManifest *
rtf_take_manifest_parse (const gchar * text, gsize len, GError ** error)
{
  GKeyFile *kf = g_key_file_new ();
  RtfTakeManifest *m = NULL;
  gchar *id = NULL, *kind = NULL, *state = NULL, **names = NULL;
  GError *err = NULL;
  gint version;
  guint i;

  if (len > RTF_TAKE_MANIFEST_MAX_BYTES || memchr (text, '\0', len)) {
    fail (error, "larger than %d bytes, or holds a NUL byte",
        RTF_TAKE_MANIFEST_MAX_BYTES);
    goto out;
  }
  if (!g_key_file_load_from_data (kf, text, len, G_KEY_FILE_NONE, &err)) {
    fail (error, "%s", err->message);
    g_error_free (err);
    goto out;
  }
  if (!g_key_file_has_group (kf, GROUP)) {
    fail (error, "no [" GROUP "]");
    goto out;
  }
  version = g_key_file_get_integer (kf, GROUP, "version", NULL);
  if (version != RTF_TAKE_MANIFEST_VERSION) {
    fail (error, "version %d (this build reads %d)", version,
        RTF_TAKE_MANIFEST_VERSION);
    goto out;
  }
  id = g_key_file_get_string (kf, GROUP, "id", NULL);
  kind = g_key_file_get_string (kf, GROUP, "kind", NULL);
  if (!rtf_take_id_is_valid (id) || (g_strcmp0 (kind, "event") != 0
          && g_strcmp0 (kind, "take") != 0)) {
    fail (error, "its id or kind is missing or not one (id: letters, "
        "digits, '.', '_', '-'; kind: event or take)");
    goto out;
  }
  m = rtf_take_manifest_new (id, kind);
  m->utc = g_key_file_get_string (kf, GROUP, "utc", NULL);
  if (g_key_file_has_key (kf, GROUP, "label", NULL)) {
    gchar *e = g_key_file_get_string (kf, GROUP, "label", NULL), *why = NULL;

    m->label = e ? rtf_keyfile_path_decode (e, &why) : NULL;
    g_free (e);
    if (m->label == NULL) {
      fail (error, "its label: %s", why ? why : "not UTF-8");
      g_free (why);
      goto bad;
    }
  }
  state = g_key_file_get_string (kf, GROUP, "state", NULL);
  m->complete = g_strcmp0 (state, "complete") == 0;
  g_clear_pointer (&m->notes, g_strfreev);
  if (!get_u64 (kf, GROUP, "running-time", &m->running_time, error)
      || !get_u64 (kf, GROUP, "stop-running-time", &m->stop_running_time, error)
      || (m->notes = get_list (kf, GROUP, "notes", TRUE, error)) == NULL
      || (names = get_list (kf, GROUP, "cameras", FALSE, error)) == NULL)
    goto bad;
  if (names[0] == NULL || g_strv_length (names) > MAX_CAMERAS) {
    fail (error, "it names no camera, or more than %d", MAX_CAMERAS);
    goto bad;
  }
  for (i = 0; names[i]; i++)
    if (!parse_camera (kf, m, names[i], error))
      goto bad;
  goto out;

bad:
  if (m->notes == NULL)
    m->notes = g_new0 (gchar *, 1);
  rtf_take_manifest_free (m);
  m = NULL;
out:
  g_strfreev (names);
  g_free (id);
  g_free (kind);
  g_free (state);
  g_key_file_free (kf);
  return m;
}

RtfTakeManifest *
rtf_take_manifest_load (const gchar * path, GError ** error)
{
  struct stat st;
  gchar *why = NULL, *text;
  gboolean short_read = FALSE;
  RtfTakeManifest *m;
  gint fd = rtf_safe_open (path, FALSE, &st, &why), err;

  if (fd < 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "%s: %s",
        path, why);
    g_free (why);
    return NULL;
  }
  if (st.st_size > RTF_TAKE_MANIFEST_MAX_BYTES) {
    close (fd);
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: larger "
        "than a take's manifest is (%d bytes)", path,
        RTF_TAKE_MANIFEST_MAX_BYTES);
    return NULL;
  }
  text = g_malloc (st.st_size + 1);
  err = rtf_read_full (fd, 0, text, st.st_size, &short_read);
  close (fd);
  if (err) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s",
        path, g_strerror (err));
    g_free (text);
    return NULL;
  }
  m = rtf_take_manifest_parse (text, st.st_size, error);
  if (m == NULL)
    g_prefix_error (error, "%s: ", path);
  g_free (text);
  return m;
}
