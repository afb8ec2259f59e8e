/* powercut-record: records a scenario of the power-cut test on a
 * dm-log-writes device, inside a guest of tools/test-kernel.sh (root).
 *
 *   powercut-record --scenario NAME --data DEV --log DEV --root DIR --out DIR
 *
 * DEV data is the disk the filesystems live on, DEV log the one the
 * kernel's dm-log-writes target logs every write to (both are written
 * over).  The slices of the scenario are dm-linear maps of the logged
 * device, made XFS (mkfs -K: no discard, so the log holds every byte
 * mkfs wrote) and mounted under DIR; the user's files and the filler are
 * put there and synced (mark "ready").  Then each sink records its
 * stamped frames (appsrc ! rtframesink, paced), and the recorder claims
 * frames in the log: every time a sink tells a higher frames-durable - in
 * rtframesink-stats, the stream's or a location's - and at every
 * WRITTEN_EVERY-th frame a sink reports written, once syncfs() has put
 * everything the kernel holds on disk (a frame reported written has its
 * data written and its index record in the file: a crash of the process
 * keeps it, and so does a power cut after a sync of the filesystem), the
 * history gets a line with every count claimed so far and the log a mark
 * after it: replayed to that mark, the disks must hold those frames.
 * After EOS (every frame written is on disk then) a last such mark counts
 * them all.  Finally the filesystems are unmounted and
 * the target removed (its own last mark, "dm-log-writes-end").
 *
 * OUT gets the history (powercut-history.h).  Exit 0: recorded (the
 * sinks' errors are in the history); 1: it could not be set up or run. */
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "powercut-history.h"
#include "powercut-run.h"
#include "powercut-scenario.h"
#include "rtf-test-util.h"

#define LOGGED "pc-lw"          /* the dm-log-writes device */
#define STATS_INTERVAL (50 * GST_MSECOND)
/* a syncfs and a mark every this many frames a sink reports written */
#define WRITTEN_EVERY 7

static gchar *opt_scenario, *opt_data, *opt_log, *opt_root, *opt_out;

static const GOptionEntry options[] = {
  {"scenario", 0, 0, G_OPTION_ARG_STRING, &opt_scenario, "What to record",
      "NAME"},
  {"data", 0, 0, G_OPTION_ARG_FILENAME, &opt_data, "The disk", "DEV"},
  {"log", 0, 0, G_OPTION_ARG_FILENAME, &opt_log, "The log's disk", "DEV"},
  {"root", 0, 0, G_OPTION_ARG_FILENAME, &opt_root, "Where to mount", "DIR"},
  {"out", 0, 0, G_OPTION_ARG_FILENAME, &opt_out, "Where the history goes",
      "DIR"},
  {NULL}
};

typedef struct
{
  const PcScenario *sc;
  gint hist;
  GstElement *pipeline;
  GstElement *src[PC_MAX_SINKS], *sink[PC_MAX_SINKS];
  GMutex lock;
  GCond cond;
  gboolean eos, error;          /* under lock */
  /* the marks, under lock: what they claim (the frames-durable counts
   * told, or the frames reported written before a syncfs), and the
   * frames reported written so far */
  guint64 claimed[PC_MAX_SINKS][PC_MAX_LOCATIONS];
  guint64 written[PC_MAX_SINKS][PC_MAX_LOCATIONS];
  gint fs_fd[PC_MAX_SLICES];    /* each mounted filesystem, for syncfs */
  gint logged_fd;               /* the logged device, for its cache flush */
  guint next_mark;
  gint64 t0;                    /* the first push (monotonic us) */
} Rec;

#define HIST(r, ...) \
  G_STMT_START { if (!pc_history_printf ((r)->hist, __VA_ARGS__)) \
      g_error ("cannot write the history: %s", g_strerror (errno)); \
  } G_STMT_END

/* ---- the devices --------------------------------------------------------- */

static guint64
sectors_of (const gchar * dev)
{
  guint64 bytes = 0;
  gint fd = open (dev, O_RDONLY | O_CLOEXEC);

  if (fd >= 0 && ioctl (fd, BLKGETSIZE64, &bytes) != 0)
    bytes = 0;
  if (fd >= 0)
    close (fd);
  return bytes / 512;
}

static gboolean
dm_create (const gchar * name, const gchar * table, GError ** error)
{
  return pc_run (error, "dmsetup", "create", name, "--noudevsync", "--table",
      table, NULL) && pc_run (error, "dmsetup", "mknodes", name, NULL);
}

/* The slice that is the realtime section of s's XFS (NULL: none) */
static const PcSlice *
rt_section_of (const PcScenario * sc, const PcSlice * s)
{
  guint i;

  for (i = 0; i < sc->n_slices; i++)
    if (g_strcmp0 (sc->slices[i].rt_of, s->name) == 0)
      return &sc->slices[i];
  return NULL;
}

static gboolean
make_filesystems (Rec * r, guint64 sectors, GError ** error)
{
  gchar *table = g_strdup_printf ("0 %" G_GUINT64_FORMAT " log-writes %s %s",
      sectors, opt_data, opt_log);
  gboolean ok = dm_create (LOGGED, table, error);
  guint i;

  g_free (table);
  if (ok && (r->logged_fd = open ("/dev/mapper/" LOGGED,
              O_RDONLY | O_CLOEXEC)) < 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "/dev/mapper/" LOGGED ": %s", g_strerror (errno));
    ok = FALSE;
  }
  for (i = 0; ok && i < r->sc->n_slices; i++) {
    const PcSlice *s = &r->sc->slices[i];
    gchar *name = g_strdup_printf ("pc-%s", s->name);
    guint64 start, len;

    pc_slice_extent (s, sectors, &start, &len);
    table = g_strdup_printf ("0 %" G_GUINT64_FORMAT " linear /dev/mapper/"
        LOGGED " %" G_GUINT64_FORMAT, len, start);
    ok = dm_create (name, table, error);
    g_free (table);
    g_free (name);
  }
  for (i = 0; ok && i < r->sc->n_slices; i++) {
    const PcSlice *s = &r->sc->slices[i], *rt = rt_section_of (r->sc, s);
    gchar *dev = g_strdup_printf ("/dev/mapper/pc-%s", s->name);
    gchar *rtdev = rt ? g_strdup_printf ("rtdev=/dev/mapper/pc-%s",
        rt->name) : NULL;

    if (s->rt_of == NULL)
      ok = rt ? pc_run (error, "mkfs.xfs", "-q", "-f", "-K", "-r", rtdev, dev,
          NULL) : pc_run (error, "mkfs.xfs", "-q", "-f", "-K", dev, NULL);
    g_free (rtdev);
    g_free (dev);
  }
  return ok && pc_dm_mark (LOGGED, "mkfs", error);
}

static gboolean
mount_filesystems (Rec * r, GError ** error)
{
  gboolean ok = TRUE;
  guint i;

  for (i = 0; ok && i < r->sc->n_slices; i++) {
    const PcSlice *s = &r->sc->slices[i], *rt = rt_section_of (r->sc, s);
    gchar *dir = g_build_filename (opt_root, s->name, NULL);
    gchar *dev = g_strdup_printf ("/dev/mapper/pc-%s", s->name);
    gchar *o = rt ? g_strdup_printf ("rtdev=/dev/mapper/pc-%s", rt->name) :
        NULL;

    if (s->rt_of == NULL) {
      g_mkdir_with_parents (dir, 0755);
      ok = o ? pc_run (error, "mount", "-o", o, dev, dir, NULL) :
          pc_run (error, "mount", dev, dir, NULL);
      if (ok)
        r->fs_fd[i] = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    g_free (o);
    g_free (dev);
    g_free (dir);
  }
  return ok;
}

/* The user's files and the filler, synced: the world before recording */
static gboolean
furnish (Rec * r, GError ** error)
{
  guint i;

  for (i = 0; i < r->sc->n_foreign; i++) {
    const PcForeign *f = &r->sc->foreign[i];
    gchar *path = g_build_filename (opt_root, f->path, NULL);
    guint8 *buf = g_malloc (f->size);
    gboolean ok;

    pc_foreign_fill (f, buf);
    ok = g_file_set_contents (path, (const gchar *) buf, f->size, error);
    g_free (buf);
    g_free (path);
    if (!ok)
      return FALSE;
  }
  if (r->sc->fill_slice) {
    gchar *dir = g_build_filename (opt_root, r->sc->fill_slice, NULL);
    gchar *path = g_build_filename (dir, "filler", NULL);
    struct statvfs sv;
    gint fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    guint64 free_bytes;
    gboolean ok = fd >= 0 && statvfs (dir, &sv) == 0;

    free_bytes = ok ? (guint64) sv.f_bavail * sv.f_frsize : 0;
    if (ok && free_bytes > r->sc->fill_leave)
      ok = posix_fallocate (fd, 0, free_bytes - r->sc->fill_leave) == 0;
    if (fd >= 0)
      close (fd);
    if (!ok)
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "filler %s", path);
    g_free (path);
    g_free (dir);
    if (!ok)
      return FALSE;
  }
  sync ();
  return pc_dm_mark (LOGGED, "ready", error);
}

/* Whether the target still logs: it stops at the first write to the
 * log's disk that fails (then the log proves nothing) */
static gboolean
still_logging (GError ** error)
{
  const gchar *argv[] = { "dmsetup", "status", LOGGED, NULL };
  gchar *out = NULL;
  gboolean ok = pc_run_argv (argv, 60, &out) == 0
      && strstr (out, "logging_disabled") == NULL;

  if (!ok)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "the dm-log-writes "
        "target stopped logging (a write to the log's disk failed; see the "
        "kernel's log): %s", out);
  g_free (out);
  return ok;
}

static void
unmake (Rec * r)
{
  guint i;

  for (i = 0; i < r->sc->n_slices; i++)
    if (r->fs_fd[i] >= 0)
      close (r->fs_fd[i]);
  if (r->logged_fd >= 0)
    close (r->logged_fd);

  for (i = 0; i < r->sc->n_slices; i++) {
    gchar *dir = g_build_filename (opt_root, r->sc->slices[i].name, NULL);

    if (r->sc->slices[i].rt_of == NULL && umount (dir) != 0)
      g_printerr ("umount %s: %s\n", dir, g_strerror (errno));
    g_free (dir);
  }
  for (i = r->sc->n_slices; i-- > 0;) {
    gchar *name = g_strdup_printf ("pc-%s", r->sc->slices[i].name);

    pc_run (NULL, "dmsetup", "remove", "--noudevsync", name, NULL);
    g_free (name);
  }
  /* (the target's destructor logs the last mark and the super) */
  pc_run (NULL, "dmsetup", "remove", "--noudevsync", LOGGED, NULL);
}

/* ---- the marks ----------------------------------------------------------- */

/* Called with r->lock held: a line with every count told, then the mark */
static void
put_mark (Rec * r, guint64 counts[PC_MAX_SINKS][PC_MAX_LOCATIONS])
{
  GString *line = g_string_new (NULL);
  GError *error = NULL;
  gchar text[16];
  guint s, l;

  g_string_append_printf (line, "mark %u", r->next_mark);
  for (s = 0; s < r->sc->n_sinks; s++)
    for (l = 0; l < pc_sink_n_locations (&r->sc->sinks[s]); l++)
      g_string_append_printf (line, " %u:%u:%" G_GUINT64_FORMAT, s, l,
          counts[s][l]);
  HIST (r, "%s", line->str);
  g_string_free (line, TRUE);
  g_snprintf (text, sizeof text, "m%u", r->next_mark++);
  if (!pc_dm_mark (LOGGED, text, &error)) {
    HIST (r, "# %s", error->message);
    g_clear_error (&error);
  }
}

/* A rtframesink-stats: its frames-durable counts, a mark when one rose */
static void
durable_told (Rec * r, guint sink, const GstStructure * st)
{
  const GValue *locs = gst_structure_get_value (st, "locations");
  guint64 n[PC_MAX_LOCATIONS] = { 0 };
  gboolean rose = FALSE;
  guint l, nl = pc_sink_n_locations (&r->sc->sinks[sink]);

  if (locs && GST_VALUE_HOLDS_ARRAY (locs)) {
    for (l = 0; l < nl && l < gst_value_array_get_size (locs); l++) {
      const GValue *v = gst_value_array_get_value (locs, l);

      if (GST_VALUE_HOLDS_STRUCTURE (v))
        gst_structure_get_uint64 (gst_value_get_structure (v),
            "frames-durable", &n[l]);
    }
  } else {
    gst_structure_get_uint64 (st, "frames-durable", &n[0]);
  }
  g_mutex_lock (&r->lock);
  for (l = 0; l < nl; l++)
    if (n[l] > r->claimed[sink][l]) {
      r->claimed[sink][l] = n[l];
      rose = TRUE;
    }
  if (rose)
    put_mark (r, r->claimed);
  g_mutex_unlock (&r->lock);
}

/* Every frame reported written so far is on disk once syncfs() returns
 * on every filesystem: claimed, and marked */
static void
written_synced (Rec * r)
{
  guint64 at[PC_MAX_SINKS][PC_MAX_LOCATIONS];
  gboolean rose = FALSE;
  guint s, l;

  g_mutex_lock (&r->lock);
  memcpy (at, r->written, sizeof at);
  g_mutex_unlock (&r->lock);
  for (s = 0; s < r->sc->n_slices; s++)
    if (r->fs_fd[s] >= 0 && syncfs (r->fs_fd[s]) != 0)
      HIST (r, "# syncfs of %s: %s", r->sc->slices[s].name, g_strerror (errno));
  /* syncfs() waits for the writeback but does not always flush the
   * disk's cache: XFS flushes it with its log, and when the log has
   * nothing to write (a page written again whose size the log already
   * holds) no flush is sent.  Debian 12's kernel left an index record
   * written back by the syncfs() after the mark that claimed it, behind
   * no flush: on a disk with a write cache a power cut loses it.  A
   * block device's fsync() always sends one (blkdev_fsync()), through
   * the slices' maps to the logged device: every write completed so far
   * is durable before the mark. */
  if (fsync (r->logged_fd) != 0) {
    HIST (r, "# fsync of %s: %s (nothing claimed)", LOGGED,
        g_strerror (errno));
    return;
  }
  g_mutex_lock (&r->lock);
  for (s = 0; s < r->sc->n_sinks; s++)
    for (l = 0; l < PC_MAX_LOCATIONS; l++)
      if (at[s][l] > r->claimed[s][l]) {
        r->claimed[s][l] = at[s][l];
        rose = TRUE;
      }
  if (rose)
    put_mark (r, r->claimed);
  g_mutex_unlock (&r->lock);
}

/* ---- the bus ------------------------------------------------------------- */

static gint
sink_index (Rec * r, GstObject * src)
{
  guint i;

  for (i = 0; i < r->sc->n_sinks; i++)
    if (src == GST_OBJECT_CAST (r->sink[i]))
      return (gint) i;
  return -1;
}

static void
on_element (Rec * r, guint sink, const GstStructure * s)
{
  guint64 frame = 0, pts = 0, file = 0;
  guint loc = 0;
  gchar *str;

  if (gst_structure_has_name (s, "rtframesink-frame-written")) {
    gst_structure_get_uint64 (s, "frame", &frame);
    gst_structure_get_uint64 (s, "pts", &pts);
    gst_structure_get_uint64 (s, "file-index", &file);
    gst_structure_get_uint (s, "location-index", &loc);
    HIST (r, "w %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
        G_GUINT64_FORMAT " %u", sink, frame, pts, file, loc);
    g_mutex_lock (&r->lock);
    if (loc < PC_MAX_LOCATIONS)
      r->written[sink][loc]++;
    g_mutex_unlock (&r->lock);
    if (frame % WRITTEN_EVERY == WRITTEN_EVERY - 1)
      written_synced (r);
  } else if (gst_structure_has_name (s, "rtframesink-stats")) {
    durable_told (r, sink, s);
  } else if (g_str_has_prefix (gst_structure_get_name (s), "rtframesink-")
      && !gst_structure_has_name (s, "rtframesink-deadline-missed")
      && !gst_structure_has_name (s, "rtframesink-late-completion")) {
    str = gst_structure_to_string (s);
    HIST (r, "msg %u %s", sink, str);
    g_free (str);
    /* a ring's keeps: a mark after each, so the checker knows which the
     * disk at a point must show (powercut-keep.h) */
    if (r->sc->sinks[sink].keep
        && (gst_structure_has_name (s, "rtframesink-file-kept")
            || gst_structure_has_name (s, "rtframesink-recording-started")
            || gst_structure_has_name (s, "rtframesink-recording-stopped"))) {
      g_mutex_lock (&r->lock);
      put_mark (r, r->claimed);
      g_mutex_unlock (&r->lock);
    }
  }
}

static GstBusSyncReply
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Rec *r = data;
  gint sink = sink_index (r, GST_MESSAGE_SRC (msg));

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:
      if (sink >= 0)
        on_element (r, sink, gst_message_get_structure (msg));
      break;
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *debug = NULL, *text;

      gst_message_parse_error (msg, &err, &debug);
      text = g_strescape (err->message, NULL);
      HIST (r, "error %d %s", sink, text);
      g_free (text);
      g_free (debug);
      g_error_free (err);
      g_mutex_lock (&r->lock);
      r->error = TRUE;
      g_cond_broadcast (&r->cond);
      g_mutex_unlock (&r->lock);
      break;
    }
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;
      gchar *text;

      gst_message_parse_warning (msg, &err, NULL);
      text = g_strescape (err->message, NULL);
      HIST (r, "warning %d %s", sink, text);
      g_free (text);
      g_error_free (err);
      break;
    }
    case GST_MESSAGE_EOS:
      HIST (r, "eos");
      g_mutex_lock (&r->lock);
      r->eos = TRUE;
      g_cond_broadcast (&r->cond);
      g_mutex_unlock (&r->lock);
      break;
    default:
      break;
  }
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* ---- the pipeline -------------------------------------------------------- */

static gboolean
add_sink (Rec * r, guint i, GError ** error)
{
  const PcSink *k = &r->sc->sinks[i];
  GstElement *src = gst_element_factory_make ("appsrc", NULL);
  GstElement *filter = gst_element_factory_make ("capsfilter", NULL);
  GstElement *sink = gst_element_factory_make ("rtframesink", k->name);
  GstCaps *caps = gst_caps_from_string (k->caps);
  gchar **props = g_strsplit (k->props, " ", -1), *loc;
  guint p;

  if (!src || !filter || !sink || !caps) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "no %s",
        sink ? "appsrc" : "rtframesink");
    return FALSE;
  }
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, "block", TRUE,
      "max-bytes", (guint64) 2 * k->frame_size, NULL);
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  if (pc_sink_n_locations (k) > 1) {
    gchar *a = pc_sink_location (k, 0, opt_root);
    gchar *b = pc_sink_location (k, 1, opt_root);
    gchar *v = g_strdup_printf ("<\"%s\",\"%s\">", a, b);

    gst_util_set_object_arg (G_OBJECT (sink), "locations", v);
    g_free (v);
    g_free (a);
    g_free (b);
  } else {
    loc = pc_sink_location (k, 0, opt_root);
    g_object_set (sink, "location", loc, NULL);
    g_free (loc);
  }
  if ((loc = pc_sink_keep (k, opt_root)) != NULL) {
    g_object_set (sink, "keep-location", loc, NULL);
    g_free (loc);
  }
  g_object_set (sink, "frame-messages", TRUE, "stats-interval",
      (guint64) STATS_INTERVAL, NULL);
  for (p = 0; props[p]; p++) {
    gchar **kv = g_strsplit (props[p], "=", 2);

    if (kv[0] && kv[1])
      gst_util_set_object_arg (G_OBJECT (sink), kv[0], kv[1]);
    g_strfreev (kv);
  }
  g_strfreev (props);
  gst_bin_add_many (GST_BIN (r->pipeline), src, filter, sink, NULL);
  gst_element_link_many (src, filter, sink, NULL);
  r->src[i] = src;
  r->sink[i] = sink;
  return TRUE;
}

typedef struct
{
  Rec *r;
  guint i;
} Pusher;

static GstBuffer *
make_frame (const PcSink * k, guint64 n)
{
  GstAllocationParams params;
  GstBuffer *buf;
  GstMapInfo map;

  /* page-aligned: the sink writes the frame's own memory (zero-copy), a
   * HEAD and a TAIL block around it where it is no multiple of a block */
  gst_allocation_params_init (&params);
  params.align = 4095;
  buf = gst_buffer_new_allocate (NULL, k->frame_size, &params);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  rtf_test_fill_frame (map.data, map.size, k->stream, n);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = n * k->duration_ns;
  GST_BUFFER_DURATION (buf) = k->duration_ns;
  GST_BUFFER_OFFSET (buf) = n;
  GST_BUFFER_OFFSET_END (buf) = n + 1;
  return buf;
}

/* Pushes a sink's frames at their rate, asking its events on the way */
static gpointer
push (gpointer data)
{
  Pusher *pu = data;
  Rec *r = pu->r;
  const PcSink *k = &r->sc->sinks[pu->i];
  guint64 n;
  guint e = 0;

  for (n = 0; n < k->n_frames; n++) {
    guint64 pts = n * k->duration_ns;
    gint64 due = r->t0 + (gint64) (pts / 1000), now;

    for (; e < k->n_events && k->events[e].asked_at_ns <= pts; e++) {
      gboolean ok = FALSE;

      g_signal_emit_by_name (r->sink[pu->i], k->events[e].start ?
          "start-recording" : "stop-recording", k->events[e].at_ns, &ok);
      HIST (r, "# %s %s at %" G_GUINT64_FORMAT ": %s", k->name,
          k->events[e].start ? "start" : "stop", k->events[e].at_ns,
          ok ? "ok" : "refused");
    }
    if ((now = g_get_monotonic_time ()) < due)
      g_usleep (due - now);
    if (gst_app_src_push_buffer (GST_APP_SRC (r->src[pu->i]),
            make_frame (k, n)) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (r->src[pu->i]));
  return NULL;
}

/* After EOS every frame written is on disk: a mark counting them all */
static void
mark_all_written (Rec * r)
{
  g_mutex_lock (&r->lock);
  put_mark (r, r->written);
  g_mutex_unlock (&r->lock);
}

static gboolean
record (Rec * r, GError ** error)
{
  Pusher pushers[PC_MAX_SINKS];
  GThread *threads[PC_MAX_SINKS];
  GstBus *bus;
  guint i;
  gboolean eos;

  r->pipeline = gst_pipeline_new ("powercut");
  for (i = 0; i < r->sc->n_sinks; i++)
    if (!add_sink (r, i, error))
      return FALSE;
  bus = gst_pipeline_get_bus (GST_PIPELINE (r->pipeline));
  gst_bus_set_sync_handler (bus, on_message, r, NULL);
  gst_object_unref (bus);
  if (gst_element_set_state (r->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "PLAYING failed");
    return FALSE;
  }
  r->t0 = g_get_monotonic_time ();
  for (i = 0; i < r->sc->n_sinks; i++) {
    pushers[i].r = r;
    pushers[i].i = i;
    threads[i] = g_thread_new ("push", push, &pushers[i]);
  }
  g_mutex_lock (&r->lock);
  while (!r->eos && !r->error)
    g_cond_wait (&r->cond, &r->lock);
  eos = r->eos;
  g_mutex_unlock (&r->lock);
  if (eos)
    mark_all_written (r);
  gst_element_set_state (r->pipeline, GST_STATE_NULL);
  for (i = 0; i < r->sc->n_sinks; i++)
    g_thread_join (threads[i]);
  gst_object_unref (r->pipeline);
  return TRUE;
}

gint
main (gint argc, gchar ** argv)
{
  GOptionContext *ctx = g_option_context_new ("- record a power-cut scenario");
  GError *error = NULL;
  Rec r = { 0 };
  gchar *path;
  guint64 sectors;
  gboolean ok;
  guint i;

  g_option_context_add_main_entries (ctx, options, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || !opt_scenario
      || !opt_data || !opt_log || !opt_root || !opt_out) {
    g_printerr ("powercut-record: %s\n", error ? error->message :
        "--scenario, --data, --log, --root and --out are needed");
    return 2;
  }
  g_option_context_free (ctx);
  r.sc = pc_scenario_find (opt_scenario);
  sectors = sectors_of (opt_data);
  if (r.sc == NULL || sectors == 0) {
    g_printerr ("powercut-record: no scenario %s, or %s has no size\n",
        opt_scenario, opt_data);
    return 2;
  }
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  for (i = 0; i < PC_MAX_SLICES; i++)
    r.fs_fd[i] = -1;
  r.logged_fd = -1;
  g_mkdir_with_parents (opt_out, 0755);
  path = g_build_filename (opt_out, "history", NULL);
  r.hist = pc_history_open (path);
  g_free (path);
  if (r.hist < 0) {
    g_printerr ("powercut-record: the history: %s\n", g_strerror (errno));
    return 1;
  }
  HIST (&r, "scenario %s", r.sc->name);
  HIST (&r, "device %" G_GUINT64_FORMAT, sectors);
  HIST (&r, "root %s", opt_root);
  ok = make_filesystems (&r, sectors, &error)
      && mount_filesystems (&r, &error) && furnish (&r, &error)
      && record (&r, &error) && still_logging (&error);
  unmake (&r);
  if (!ok) {
    g_printerr ("powercut-record: %s\n", error->message);
    g_error_free (error);
    return 1;
  }
  HIST (&r, "end");
  close (r.hist);
  return 0;
}
