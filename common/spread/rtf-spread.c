/* rtframe: one stream over several writers (see rtf-spread.h): the life
 * cycle, a location's state, and the writers' callbacks, wrapped per
 * location (failover).  Threads and locks: rtf-spread-private.h. */
#include "rtf-spread-private.h"
#include "rtf-clock.h"
#include "rtf-pattern.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* ---- a location's state ------------------------------------------------ */

/* Another location still takes frames (lock held) */
gboolean
rtf_spread_others_left (RtfSpread * s, guint index)
{
  guint i;

  for (i = 0; i < s->n; i++)
    if (i != index && s->loc[i].state == RTF_LOCATION_ACTIVE)
      return TRUE;
  return FALSE;
}

/* Marks l failed; TRUE when it was in the set before (lock held) */
gboolean
rtf_spread_mark_failed (SpreadLocation * l)
{
  gboolean was = l->state != RTF_LOCATION_FAILED;

  l->state = RTF_LOCATION_FAILED;
  return was;
}

/* ---- the writers' callbacks, per location ------------------------------ */

#define OWNER_CB(l, name, ...) \
  G_STMT_START { \
    if ((l)->spread->cb.writer.name) \
      (l)->spread->cb.writer.name (__VA_ARGS__, (l)->spread->user_data); \
  } G_STMT_END

static void
note_written (SpreadLocation * l, const RtfFrame * f)
{
  RtfSpread *s = l->spread;

  g_mutex_lock (&s->lock);
  if (f->submit_ns > 0 && f->complete_ns >= f->submit_ns)
    l->latency_ns = rtf_place_latency_update (l->latency_ns,
        f->complete_ns - f->submit_ns);
  l->progress_ns = rtf_clock_now_ns ();
  g_mutex_unlock (&s->lock);
}

/* A frame not written at a location that failed or stalled goes to the
 * owner to be placed again, while another location is left; counted
 * failed over only once the owner took it (it needs the frame's bytes) */
static gboolean
fail_over (SpreadLocation * l, RtfFrame * f)
{
  RtfSpread *s = l->spread;
  gboolean over;

  g_mutex_lock (&s->lock);
  if (l->state == RTF_LOCATION_ACTIVE)
    rtf_spread_mark_failed (l);
  over = s->phase == SPREAD_RUNNING && s->cb.frame_failed_over
      && rtf_spread_others_left (s, l->index);
  g_mutex_unlock (&s->lock);
  if (!over || !s->cb.frame_failed_over (f, s->user_data))
    return FALSE;
  g_mutex_lock (&s->lock);
  l->failed_over++;
  s->failed_over++;
  g_mutex_unlock (&s->lock);
  return TRUE;
}

/* A frame that failed and was not placed again once a stop was under way
 * (render has ended): lost, and the owner says so (the adversarial read
 * of 9ec385d, F1: a location full while its queue drained at stop).  Not
 * a frame a stalled writer failed to hand back: that one may still be
 * written. */
static void
count_lost_ending (RtfSpread * s)
{
  g_mutex_lock (&s->lock);
  if (s->phase != SPREAD_RUNNING)
    s->lost_ending++;
  g_mutex_unlock (&s->lock);
}

/* A frame leaves a location's writer: written, or lost there and placed
 * again (unless handed back in flight before); the owner releases it */
static void
loc_frame_done (RtfFrame * f, gpointer data)
{
  SpreadLocation *l = data;

  f->location = l->index;
  if (f->state == RTF_FRAME_WRITTEN)
    note_written (l, f);
  else if (f->state == RTF_FRAME_FAILED && !f->handed_back && !fail_over (l, f))
    count_lost_ending (l->spread);
  if (f->handed_back) {
    g_mutex_lock (&l->spread->lock);
    l->handed_back--;
    g_mutex_unlock (&l->spread->lock);
  }
  OWNER_CB (l, frame_done, f);
}

/* A stalled location's writer hands back a frame whose writes are in
 * flight: placed again now, released when those writes end (frame_done) */
static gboolean
loc_frame_handed_back (RtfFrame * f, gpointer data)
{
  SpreadLocation *l = data;

  if (!fail_over (l, f))
    return FALSE;
  g_mutex_lock (&l->spread->lock);
  l->handed_back++;
  g_mutex_unlock (&l->spread->lock);
  return TRUE;
}

static void
loc_failed (const RtfFailure * failure, gpointer data)
{
  SpreadLocation *l = data;
  RtfSpread *s = l->spread;
  gboolean left;

  g_mutex_lock (&s->lock);
  rtf_spread_mark_failed (l);
  left = rtf_spread_others_left (s, l->index) && s->cb.location_left;
  g_mutex_unlock (&s->lock);
  if (left)
    s->cb.location_left (l->index, l->location, RTF_LOCATION_FAILED, failure,
        s->user_data);
  else
    OWNER_CB (l, failed, failure);
}

static void
loc_frame_dropped (const RtfFrameReport * r, gboolean before, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, frame_dropped, r, before);
}

static void
loc_log (RtfLogPart part, RtfLogLevel level, const gchar * message,
    gpointer data)
{
  SpreadLocation *l = data;

  if (l->spread->cb.writer.log) {
    gchar *m = g_strdup_printf ("[%s] %s", l->location, message);

    l->spread->cb.writer.log (part, level, m, l->spread->user_data);
    g_free (m);
  }
}

static gboolean
loc_log_wanted (RtfLogPart part, RtfLogLevel level, gpointer data)
{
  SpreadLocation *l = data;

  return l->spread->cb.writer.log_wanted == NULL
      || l->spread->cb.writer.log_wanted (part, level, l->spread->user_data);
}

static void
loc_missed (const RtfFrameReport * r, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, deadline_missed, r);
}

static void
loc_late (const RtfFrameReport * r, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, late_completion, r);
}

/* (what a location's writer tells of its files and recordings names
 * the location) */
static void
loc_file_opened (const RtfFileInfo * info, gpointer data)
{
  SpreadLocation *l = data;
  RtfFileInfo at = *info;

  at.location = l->index;
  OWNER_CB (l, file_opened, &at);
}

static void
loc_file_closed (const RtfFileInfo * info, gpointer data)
{
  SpreadLocation *l = data;
  RtfFileInfo at = *info;

  at.location = l->index;
  OWNER_CB (l, file_closed, &at);
}

static void
loc_recording_started (const RtfRecordingInfo * info, gpointer data)
{
  SpreadLocation *l = data;
  RtfRecordingInfo at = *info;

  at.location = l->index;
  OWNER_CB (l, recording_started, &at);
}

static void
loc_recording_stopped (const RtfRecordingInfo * info, gpointer data)
{
  SpreadLocation *l = data;
  RtfRecordingInfo at = *info;

  at.location = l->index;
  OWNER_CB (l, recording_stopped, &at);
}

static void
loc_upstream_gap (const RtfFrameReport * r, const RtfFrameOrigin * o,
    gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, upstream_gap, r, o);
}

static void
loc_file_deleted (const RtfFileDeleted * info, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, file_deleted, info);
}

static void
loc_disk_space (const RtfSpaceReport * r, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, disk_space, r);
}

/* A frame written behind a backlog frame at its location gives its
 * buffer back (unpin_behind_backlog): a camera's pool has few, and a
 * backlog of seconds would hold them all.  Behind any other frame it
 * keeps it: a frame whose writes completed ahead of an earlier frame's is
 * not written yet - if that earlier frame fails, this one is failed over
 * too, and its bytes must still be there to be written elsewhere (without
 * them it went to the other location with no memory: zeros, reported
 * written).  One unpinned behind a backlog that then fails is lost, and
 * the owner says so (its frame_failed_over finds no bytes). */
static void
loc_frame_unpinned (RtfFrame * f, gpointer data)
{
  OWNER_CB ((SpreadLocation *) data, frame_unpinned, f);
}

static const RtfWriterCallbacks loc_callbacks = {
  .frame_done = loc_frame_done,
  .frame_dropped = loc_frame_dropped,
  .failed = loc_failed,
  .log = loc_log,
  .log_wanted = loc_log_wanted,
  .deadline_missed = loc_missed,
  .late_completion = loc_late,
  .file_opened = loc_file_opened,
  .file_closed = loc_file_closed,
  .recording_started = loc_recording_started,
  .recording_stopped = loc_recording_stopped,
  .upstream_gap = loc_upstream_gap,
  .file_deleted = loc_file_deleted,
  .disk_space = loc_disk_space,
  .frame_handed_back = loc_frame_handed_back,
  .frame_unpinned = loc_frame_unpinned,
};

/* ---- life cycle -------------------------------------------------------- */

/* What a first file opened at its name checks before anything is
 * touched, for every location before any opens: its name is no symbolic
 * link (ELOOP: never written through, as for location), its index name
 * holds nothing or an rtframe index; 0, or the errno and *step */
static gint
first_name_refused (const RtfWriterConfig * base, const gchar * location,
    RtfFailStep * step)
{
  gchar *path, *ipath;
  struct stat st;
  gint err = 0;

  path = base->rotate ? rtf_pattern_format (location,
      base->first_file_number) : g_strdup (location);
  ipath = rtf_index_path (path);
  if (lstat (path, &st) == 0 && S_ISLNK (st.st_mode)) {
    *step = RTF_FAIL_OPEN;
    err = ELOOP;
  } else if (base->index && (err = rtf_index_probe (ipath)) == ENOENT) {
    err = 0;
  } else if (err != 0) {
    *step = RTF_FAIL_INDEX;
  }
  g_free (ipath);
  g_free (path);
  return err;
}

RtfSpread *
rtf_spread_new (const RtfWriterConfig * base, const RtfSpreadConfig * config,
    const RtfSpreadCallbacks * callbacks, gpointer user_data, guint * failed,
    gint * err, RtfFailStep * step)
{
  RtfSpread *s = g_new0 (RtfSpread, 1);
  RtfWriterConfig wc = *base;
  RtfFailStep refused_step = RTF_FAIL_OPEN;
  guint i;

  s->refs = 1;
  g_mutex_init (&s->lock);
  s->n = config->n_locations;
  s->loc = g_new0 (SpreadLocation, s->n);
  s->cand = g_new0 (RtfPlaceCandidate, s->n);
  s->cb = *callbacks;
  s->user_data = user_data;
  s->placement = config->placement;
  /* (compared as gint64 with the clock) */
  s->timeout = MIN (config->location_timeout, (guint64) G_MAXINT64);
  s->slack = (gint64) MIN (config->deadline / 8, (guint64) G_MAXINT64);
  s->id = base->recording_id;
  if (rtf_recording_id_is_zero (&s->id))
    rtf_recording_id_new (&s->id);
  wc.recording_id = s->id;
  /* every location opened before any is named: one that cannot open
   * (a disk not mounted, a name held by another recording) leaves what
   * the others' names hold as it was */
  wc.first_file_prepared = TRUE;
  wc.unpin_behind_backlog = TRUE;
  for (i = 0; i < s->n; i++)
    if ((*err = first_name_refused (base, config->locations[i],
                &refused_step)) != 0)
      goto name_refused;
  for (i = 0; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];

    l->spread = s;
    l->index = i;
    l->location = g_strdup (config->locations[i]);
    l->depth = MAX (1, MIN (base->io_depth, base->max_frames));
    wc.location = l->location;
    l->writer = rtf_writer_new (&wc, &loc_callbacks, l, err, step);
    if (l->writer == NULL)
      goto open_failed;
  }
  /* one file each: named now, as location's is (filesink's way); a set's
   * first file takes its name with its first frame, like every later
   * one, so a location that gets no frame leaves what its name held */
  for (i = 0; i < s->n && !base->rotate; i++)
    if ((*err = rtf_writer_name_first_file (s->loc[i].writer)) != 0)
      goto name_failed;
  return s;

  /* ERRORS */
name_refused:
  if (step)
    *step = refused_step;
  *failed = i;
  rtf_spread_free (s);
  return NULL;
name_failed:
  if (step)
    *step = RTF_FAIL_OPEN;
open_failed:
  {
    *failed = i;
    rtf_spread_free (s);
    return NULL;
  }
}

void
rtf_spread_location_free_user (SpreadLocation * l)
{
  if (l->user_free && l->user)
    l->user_free (l->user);
  l->user = NULL;
}

void
rtf_spread_unref (RtfSpread * s)
{
  guint i;

  if (!g_atomic_int_dec_and_test (&s->refs))
    return;
  for (i = 0; i < s->n; i++)
    g_free (s->loc[i].location);
  g_free (s->loc);
  g_free (s->cand);
  g_mutex_clear (&s->lock);
  g_free (s);
}

void
rtf_spread_free (RtfSpread * s)
{
  guint i;

  if (s == NULL)
    return;
  for (i = 0; i < s->n; i++) {
    SpreadLocation *l = &s->loc[i];

    if (l->fate == WRITER_GIVEN_UP)
      continue;                 /* its thread frees it, and unrefs */
    g_clear_pointer (&l->thread, rtf_thread_join);
    if (l->writer)
      rtf_writer_free (l->writer);
    l->writer = NULL;
    rtf_spread_location_free_user (l);
  }
  rtf_spread_unref (s);
}

void
rtf_spread_set_location_user (RtfSpread * s, guint index, gpointer user,
    GDestroyNotify user_free)
{
  g_return_if_fail (index < s->n);
  s->loc[index].user = user;
  s->loc[index].user_free = user_free;
}

guint
rtf_spread_n_locations (RtfSpread * s)
{
  return s->n;
}

RtfWriter *
rtf_spread_writer (RtfSpread * s, guint index)
{
  g_return_val_if_fail (index < s->n, NULL);
  return s->loc[index].writer;
}

const gchar *
rtf_spread_location (RtfSpread * s, guint index)
{
  g_return_val_if_fail (index < s->n, NULL);
  return s->loc[index].location;
}

RtfLocationState
rtf_spread_location_state (RtfSpread * s, guint index)
{
  RtfLocationState state;

  g_mutex_lock (&s->lock);
  state = s->loc[index].state;
  g_mutex_unlock (&s->lock);
  return state;
}

const RtfRecordingId *
rtf_spread_recording_id (RtfSpread * s)
{
  return &s->id;
}

static gpointer
writer_thread (gpointer data)
{
  rtf_writer_run (data);
  return NULL;
}

gboolean
rtf_spread_start (RtfSpread * s, guint first, const RtfThreadStarter * starter)
{
  guint i;

  for (i = first; i < s->n; i++)
    s->loc[i].thread = rtf_thread_start (starter, "writer", writer_thread,
        s->loc[i].writer);
  return TRUE;
}

gint
rtf_spread_wait_started (RtfSpread * s)
{
  guint i;

  for (i = 0; i < s->n; i++) {
    gint err = rtf_writer_wait_started (s->loc[i].writer);

    if (err != 0)
      return err;
  }
  return 0;
}

void
rtf_spread_shutdown (RtfSpread * s)
{
  guint i;

  g_mutex_lock (&s->lock);
  s->phase = SPREAD_ENDING;
  g_mutex_unlock (&s->lock);
  for (i = 0; i < s->n; i++)
    if (s->loc[i].writer)
      rtf_writer_shutdown (s->loc[i].writer);
}
