/* rtframe-record: each event's and take's manifest (rtr-manifests.h) */
#include "rtr-manifests.h"
#include "rtf-take-manifest.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One event or take as its manifest says it */
typedef struct
{
  RtfTakeManifest *man;         /* cameras in the config's order */
  gboolean *on;                 /* each camera: its part is being recorded */
  gboolean *started;            /* ... it began */
  gboolean written;             /* its name is ours (written once) */
  gboolean refused;             /* the name held another's: not written */
} Entry;

/* A file a camera opened, by the number of its first frame */
typedef struct
{
  guint64 first_frame;
  guint location;               /* which of the sink's locations (0: its
                                 * location) */
  gchar *name;                  /* relative to DIR when in it */
  guint64 last_frame;           /* its last frame once it is closed, else
                                 * RTF_TAKE_NONE */
  gchar *ring;                  /* pre-record on disk: the ring's name of
                                 * the file an event keeps at `name` (its
                                 * file-closed names that), else NULL */
} CameraFile;

struct _RtrManifests
{
  const RtrConfig *config;
  RtrCommands *commands;
  gchar *dir;                   /* absolute */
  GHashTable *entries;          /* id -> Entry */
  GArray **files;               /* each camera: CameraFile, by location and
                                 * first frame */
};

static void
entry_free (gpointer data)
{
  Entry *e = data;

  rtf_take_manifest_free (e->man);
  g_free (e->on);
  g_free (e->started);
  g_free (e);
}

static gint
by_first_frame (gconstpointer a, gconstpointer b)
{
  const CameraFile *x = a, *y = b;

  if (x->location != y->location)
    return x->location < y->location ? -1 : 1;
  return x->first_frame < y->first_frame ? -1 : x->first_frame > y->first_frame;
}

static void
camera_file_clear (gpointer data)
{
  g_free (((CameraFile *) data)->name);
  g_free (((CameraFile *) data)->ring);
}

RtrManifests *
rtr_manifests_new (const RtrConfig * c, RtrCommands * k)
{
  RtrManifests *m = g_new0 (RtrManifests, 1);
  gchar *cwd = g_get_current_dir ();

  m->config = c;
  m->commands = k;
  m->dir = g_canonicalize_filename (c->dir ? c->dir : ".", cwd);
  m->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      entry_free);
  m->files = g_new0 (GArray *, c->cameras->len);
  for (guint i = 0; i < c->cameras->len; i++) {
    m->files[i] = g_array_new (FALSE, FALSE, sizeof (CameraFile));
    g_array_set_clear_func (m->files[i], camera_file_clear);
  }
  g_free (cwd);
  return m;
}

void
rtr_manifests_free (RtrManifests * m)
{
  if (m == NULL)
    return;
  g_hash_table_unref (m->entries);
  for (guint i = 0; i < m->config->cameras->len; i++)
    g_array_unref (m->files[i]);
  g_free (m->files);
  g_free (m->dir);
  g_free (m);
}

/* ---- writing ------------------------------------------------------------- */

static gboolean
write_all (gint fd, const gchar * text)
{
  gsize len = strlen (text), done = 0;

  while (done < len) {
    gssize n = write (fd, text + done, len - done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    done += n;
  }
  return fdatasync (fd) == 0;
}

/* The manifest at DIR/<id>.rtftake: a hidden file renamed into place */
static void
write_entry (RtrManifests * m, Entry * e)
{
  gchar *name = g_strconcat (e->man->id, RTF_TAKE_MANIFEST_SUFFIX, NULL);
  gchar *tmp = g_strdup_printf ("%s/.%s.XXXXXX", m->dir, name);
  gchar *path = g_build_filename (m->dir, name, NULL);
  gchar *text = rtf_take_manifest_to_text (e->man);
  gint fd = -1, err = 0, dfd;

  if (e->refused)
    goto out;
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0 || !write_all (fd, text)) {
    err = errno;
    goto failed;
  }
  close (fd);
  fd = -1;
  if (!e->written && renameat2 (AT_FDCWD, tmp, AT_FDCWD, path,
          RENAME_NOREPLACE) != 0) {
    err = errno;
    if (err == EEXIST) {
      g_printerr ("\n%s is there already, not this run's: left as it is; "
          "%s has no manifest\n", path, e->man->id);
      e->refused = TRUE;
      g_unlink (tmp);
      goto out;
    }
    goto failed;
  } else if (e->written && rename (tmp, path) != 0) {
    err = errno;
    goto failed;
  }
  e->written = TRUE;
  dfd = open (m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync (dfd);
    close (dfd);
  }
  goto out;

failed:
  if (fd >= 0)
    close (fd);
  g_unlink (tmp);
  g_printerr ("\n%s: %s (the recordings are not touched)\n", path,
      g_strerror (err));
out:
  g_free (text);
  g_free (path);
  g_free (tmp);
  g_free (name);
}

/* ---- what the sinks tell ------------------------------------------------- */

static gint
camera_index (RtrManifests * m, GstObject * src)
{
  guint i;

  for (i = 0; src && i < m->config->cameras->len; i++)
    if (g_str_equal (GST_OBJECT_NAME (src),
            ((const RtrCamera *) g_ptr_array_index (m->config->cameras,
                    i))->name))
      return (gint) i;
  return -1;
}

/* A file's name as the manifest gives it: relative to DIR when in it */
static gchar *
file_name (RtrManifests * m, const gchar * location)
{
  gchar *cwd = g_get_current_dir ();
  gchar *abs = g_canonicalize_filename (location, cwd);
  gchar *prefix = g_strconcat (m->dir, "/", NULL);
  gchar *name = g_strdup (g_str_has_prefix (abs, prefix) ?
      abs + strlen (prefix) : abs);

  g_free (prefix);
  g_free (abs);
  g_free (cwd);
  return name;
}

/* A camera's file holds frames from first_frame on (a file-opened, or,
 * until that message comes - the file helper may post it later - a
 * recording's start or stop in it: a frame it holds).  Kept in order of
 * first frames at each of the sink's locations (with several, each its
 * own run of files); the lower number wins. */
static void
know_file (RtrManifests * m, guint cam, const GstStructure * s,
    guint64 first_frame)
{
  GArray *files = m->files[cam];
  gchar *name = file_name (m, gst_structure_get_string (s, "location"));
  const gchar *ring = gst_structure_get_string (s, "ring-location");
  guint where = 0;
  CameraFile f = { first_frame, 0, name, RTF_TAKE_NONE, NULL };
  guint i;

  gst_structure_get_uint (s, "location-index", &where);
  f.location = where;
  for (i = 0; i < files->len; i++) {
    CameraFile *x = &g_array_index (files, CameraFile, i);

    if (g_str_equal (x->name, name)) {
      if (first_frame < x->first_frame) {
        x->first_frame = first_frame;
        g_array_sort (files, by_first_frame);
      }
      g_free (name);
      return;
    }
  }
  f.ring = ring ? file_name (m, ring) : NULL;
  g_array_append_val (files, f);
  g_array_sort (files, by_first_frame);
}

/* The camera's files that hold frames first..last of a take: each file's
 * frames run to its last once it is closed, until then to the next file's
 * first at the same location */
static void
part_files (RtrManifests * m, guint cam, RtfTakeCamera * c)
{
  GArray *files = m->files[cam];
  GPtrArray *names = g_ptr_array_new ();
  guint64 last = c->stopped && c->last_frame != RTF_TAKE_NONE ?
      c->last_frame : G_MAXUINT64;
  guint i;

  for (i = 0; c->first_frame != RTF_TAKE_NONE && i < files->len; i++) {
    const CameraFile *f = &g_array_index (files, CameraFile, i);
    const CameraFile *next = i + 1 < files->len ?
        &g_array_index (files, CameraFile, i + 1) : NULL;
    guint64 end = f->last_frame != RTF_TAKE_NONE ? f->last_frame + 1 :
        next && next->location == f->location ? next->first_frame : G_MAXUINT64;

    if (f->first_frame <= last && end > c->first_frame)
      g_ptr_array_add (names, g_strdup (f->name));
  }
  g_ptr_array_add (names, NULL);
  g_strfreev (c->files);
  c->files = (gchar **) g_ptr_array_free (names, FALSE);
}

/* The commands' view of it: times, label, notes, and whether complete */
static void
refresh (RtrManifests * m, Entry * e)
{
  RtrRecording *rec = rtr_commands_find (m->commands, e->man->id);
  gboolean complete = TRUE;
  guint i;

  if (rec) {
    gchar *utc = rtr_commands_utc (rec);

    g_free (e->man->kind);
    e->man->kind = g_strdup (rec->kind == RTR_RECORDING_EVENT ? "event" :
        "take");
    e->man->running_time = rec->start;
    e->man->stop_running_time = GST_CLOCK_TIME_IS_VALID (rec->stop) ?
        rec->stop : RTF_TAKE_NONE;
    g_free (e->man->label);
    e->man->label = g_strdup (rec->label);
    g_free (e->man->utc);
    e->man->utc = utc;
    g_strfreev (e->man->notes);
    g_ptr_array_add (rec->notes, NULL);
    e->man->notes = g_strdupv ((gchar **) rec->notes->pdata);
    g_ptr_array_remove_index (rec->notes, rec->notes->len - 1);
  }
  for (i = 0; i < m->config->cameras->len; i++) {
    complete &= !e->on[i];
    part_files (m, i, g_ptr_array_index (e->man->cameras, i));
  }
  /* every camera that started told its end (a stop, or EOS) */
  e->man->complete = complete;
}

static Entry *
entry_of (RtrManifests * m, const gchar * id)
{
  Entry *e = g_hash_table_lookup (m->entries, id);
  guint i;

  if (e)
    return e;
  e = g_new0 (Entry, 1);
  e->man = rtf_take_manifest_new (id, "take");
  for (i = 0; i < m->config->cameras->len; i++)
    rtf_take_manifest_add_camera (e->man,
        ((const RtrCamera *) g_ptr_array_index (m->config->cameras, i))->name);
  e->on = g_new0 (gboolean, m->config->cameras->len);
  e->started = g_new0 (gboolean, m->config->cameras->len);
  g_hash_table_insert (m->entries, g_strdup (id), e);
  return e;
}

static guint64
field (const GstStructure * s, const gchar * name)
{
  guint64 v = RTF_TAKE_NONE;

  gst_structure_get_uint64 (s, name, &v);
  return v;
}

static void
started (RtrManifests * m, guint cam, const GstStructure * s, const gchar * id)
{
  Entry *e = entry_of (m, id);
  RtfTakeCamera *c = g_ptr_array_index (e->man->cameras, cam);
  const gchar *location = gst_structure_get_string (s, "location");

  e->on[cam] = TRUE;
  if (!e->started[cam]) {
    c->first_frame = field (s, "first-frame");
    c->first_running_time = field (s, "first-running-time");
  }
  e->started[cam] = TRUE;
  /* (on disk: the location is the event's directory; its files come as
   * they are kept) */
  if (location && c->first_frame != RTF_TAKE_NONE
      && !m->config->pre_record_on_disk)
    know_file (m, cam, s, c->first_frame);
  refresh (m, e);
  write_entry (m, e);
}

static void
stopped (RtrManifests * m, guint cam, const GstStructure * s, const gchar * id)
{
  Entry *e = entry_of (m, id);
  RtfTakeCamera *c = g_ptr_array_index (e->man->cameras, cam);
  const gchar *location = gst_structure_get_string (s, "location");
  guint64 frames = field (s, "frames");

  e->on[cam] = FALSE;
  c->stopped = TRUE;
  c->last_frame = field (s, "last-frame");
  c->last_running_time = field (s, "last-running-time");
  /* (a camera's part may be recorded in turns: an event extended after
   * it ended on that camera) */
  c->frames += frames != RTF_TAKE_NONE ? frames : 0;
  if (location && frames > 0 && c->last_frame != RTF_TAKE_NONE
      && !m->config->pre_record_on_disk)
    know_file (m, cam, s, c->last_frame);
  refresh (m, e);
  write_entry (m, e);
}

/* A file of camera cam holding frames first..last became known or
 * changed: every manifest written whose part of that camera those frames
 * may belong to says its files again (a frame written at another
 * location after its own failed may land in a file opened after its
 * recording ended there) */
static void
tell_file_changed (RtrManifests * m, guint cam, guint64 first, guint64 last)
{
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, m->entries);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    Entry *e = value;
    RtfTakeCamera *c = g_ptr_array_index (e->man->cameras, cam);
    guint64 end = c->stopped && c->last_frame != RTF_TAKE_NONE ?
        c->last_frame : G_MAXUINT64;

    if (e->written && c->first_frame != RTF_TAKE_NONE
        && c->first_frame <= last && first <= end) {
      refresh (m, e);
      write_entry (m, e);
    }
  }
}

/* A camera's file was closed: its frames end with last_frame; one that
 * holds none (its frames failed, and the sink deleted it) is no take's,
 * and the manifests that named it say so again */
static void
file_closed (RtrManifests * m, guint cam, const GstStructure * s)
{
  GArray *files = m->files[cam];
  gchar *name = file_name (m, gst_structure_get_string (s, "location"));
  guint64 frames = field (s, "frames");
  GHashTableIter it;
  gpointer value;
  guint i;

  for (i = 0; i < files->len; i++) {
    CameraFile *x = &g_array_index (files, CameraFile, i);

    /* (a ring's file closes under its ring name: every event's name of
     * it learns its end) */
    if (x->ring && g_str_equal (x->ring, name) && frames != 0) {
      x->last_frame = field (s, "last-frame");
      tell_file_changed (m, cam, x->first_frame, x->last_frame);
      continue;
    }
    if (!g_str_equal (x->name, name))
      continue;
    if (frames != 0) {
      x->last_frame = field (s, "last-frame");
      tell_file_changed (m, cam, x->first_frame, x->last_frame);
      break;
    }
    g_array_remove_index (files, i);
    g_hash_table_iter_init (&it, m->entries);
    while (g_hash_table_iter_next (&it, NULL, &value)) {
      Entry *e = value;
      RtfTakeCamera *c = g_ptr_array_index (e->man->cameras, cam);

      if (e->written && c->files && g_strv_contains ((const gchar * const *)
              c->files, name)) {
        refresh (m, e);
        write_entry (m, e);
      }
    }
    break;
  }
  g_free (name);
}

void
rtr_manifests_take (RtrManifests * m, GstMessage * msg)
{
  const GstStructure *s;
  const gchar *id, *location;
  gint cam;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT
      || (cam = camera_index (m, GST_MESSAGE_SRC (msg))) < 0)
    return;
  s = gst_message_get_structure (msg);
  id = gst_structure_get_string (s, "id");
  if (gst_structure_has_name (s, "rtframesink-file-kept")) {
    location = gst_structure_get_string (s, "location");
    if (location && field (s, "first-frame") != RTF_TAKE_NONE) {
      know_file (m, cam, s, field (s, "first-frame"));
      if (field (s, "last-frame") != RTF_TAKE_NONE) {
        CameraFile *x = NULL;
        guint i;
        gchar *name = file_name (m, location);

        for (i = 0; i < m->files[cam]->len && x == NULL; i++)
          if (g_str_equal (g_array_index (m->files[cam], CameraFile,
                      i).name, name))
            x = &g_array_index (m->files[cam], CameraFile, i);
        if (x)
          x->last_frame = field (s, "last-frame");
        g_free (name);
      }
      tell_file_changed (m, cam, field (s, "first-frame"),
          field (s, "last-frame") != RTF_TAKE_NONE ?
          field (s, "last-frame") : field (s, "first-frame"));
    }
    return;
  }
  /* (on disk the ring's own names are no event's) */
  if (gst_structure_has_name (s, "rtframesink-file-opened")
      && m->config->pre_record_on_disk)
    return;
  if (gst_structure_has_name (s, "rtframesink-file-opened")) {
    location = gst_structure_get_string (s, "location");
    if (location && field (s, "first-frame") != RTF_TAKE_NONE) {
      know_file (m, cam, s, field (s, "first-frame"));
      tell_file_changed (m, cam, field (s, "first-frame"),
          field (s, "first-frame"));
    }
    return;
  }
  if (gst_structure_has_name (s, "rtframesink-file-closed")) {
    if (gst_structure_get_string (s, "location"))
      file_closed (m, cam, s);
    return;
  }
  if (id == NULL || !rtf_take_id_is_valid (id))
    return;
  if (gst_structure_has_name (s, "rtframesink-recording-started"))
    started (m, cam, s, id);
  else if (gst_structure_has_name (s, "rtframesink-recording-stopped"))
    stopped (m, cam, s, id);
}

/* A camera's files of a manifest, those still there (FALSE: all are) */
static gboolean
drop_gone (RtrManifests * m, Entry * e, RtfTakeCamera * c)
{
  GPtrArray *kept = g_ptr_array_new ();
  gchar *name = g_strconcat (e->man->id, RTF_TAKE_MANIFEST_SUFFIX, NULL);
  gchar *manifest = g_build_filename (m->dir, name, NULL);
  gboolean dropped = FALSE;
  guint f;

  for (f = 0; c->files && c->files[f]; f++) {
    gchar *path = rtf_take_manifest_file_path (manifest, c->files[f]);

    if (g_file_test (path, G_FILE_TEST_EXISTS))
      g_ptr_array_add (kept, g_strdup (c->files[f]));
    else {
      g_print ("%s: camera %s's file %s is gone: no longer named\n",
          e->man->id, c->name, c->files[f]);
      dropped = TRUE;
    }
    g_free (path);
  }
  g_free (manifest);
  g_free (name);
  g_ptr_array_add (kept, NULL);
  if (dropped) {
    g_strfreev (c->files);
    c->files = (gchar **) g_ptr_array_free (kept, FALSE);
  } else {
    g_ptr_array_set_free_func (kept, g_free);
    g_ptr_array_free (kept, TRUE);
  }
  return dropped;
}

void
rtr_manifests_settle (RtrManifests * m)
{
  GHashTableIter it;
  gpointer value;
  guint i;

  if (m == NULL)
    return;
  g_hash_table_iter_init (&it, m->entries);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    Entry *e = value;
    gboolean dropped = FALSE;

    if (!e->written)
      continue;
    for (i = 0; i < e->man->cameras->len; i++)
      dropped |= drop_gone (m, e, g_ptr_array_index (e->man->cameras, i));
    if (dropped)
      write_entry (m, e);
  }
}

void
rtr_manifests_update (RtrManifests * m, const gchar * id)
{
  Entry *e = g_hash_table_lookup (m->entries, id);

  if (e == NULL)
    return;
  refresh (m, e);
  write_entry (m, e);
}
