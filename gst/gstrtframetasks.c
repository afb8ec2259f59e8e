/* rtframe: rtframesink's threads - the writer task that runs the engine
 * (rtf_writer_run()), the reporter task that turns what the writer tells
 * into bus messages, the writer's helper threads as tasks, and a writer
 * given up on at stop (stop-timeout) that ends on its own.  Every thread
 * posts STREAM_STATUS and gets the scheduling asked for.  (What the
 * writer tells, its callbacks: gstrtframesinkcallbacks.c.) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframetasks.h"
#include "gstrtframesink-private.h"
#include "gstrtframefigures.h"
#include "gstrtframemessages.h"
#include "rtf-thread.h"

#define GST_CAT_DEFAULT gst_rtframe_sink_debug


/* ---- STREAM_STATUS and scheduling ---------------------------------- */

static void
gst_rtframe_sink_post_stream_status (GstRtFrameSink * self, GstTask * task,
    GstStreamStatusType type)
{
  GstMessage *msg;
  GValue val = G_VALUE_INIT;

  msg = gst_message_new_stream_status (GST_OBJECT_CAST (self), type,
      GST_ELEMENT_CAST (self));
  g_value_init (&val, GST_TYPE_TASK);
  g_value_set_object (&val, task);
  gst_message_set_stream_status_object (msg, &val);
  g_value_unset (&val);
  gst_element_post_message (GST_ELEMENT_CAST (self), msg);
}

/* Gives the calling thread the scheduling asked for (thread-policy,
 * thread-priority, thread-cpus); FALSE with *why when it was refused. */
static gboolean
apply_thread_scheduling (GstRtFrameSink * self, gchar ** why)
{
  RtfSchedPolicy policy;
  gint priority;
  gchar *cpus;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  policy = (RtfSchedPolicy) self->thread_policy;
  priority = self->thread_priority;
  cpus = g_strdup (self->thread_cpus);
  GST_OBJECT_UNLOCK (self);
  if (policy != RTF_SCHED_DEFAULT || cpus)
    ok = rtf_thread_apply (policy, priority, cpus, why);
  g_free (cpus);
  return ok;
}

/* In the writer thread, before it runs: the scheduling asked for, then
 * ENTER so an application's sync handler has the last word. */
static void
writer_thread_enter (GstTask * task, GThread * thread, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);
  gchar *why = NULL;

  if (!apply_thread_scheduling (self, &why)) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("Could not set the writer thread's scheduling (%s); recording goes "
            "on with the default.", why), (NULL));
    g_free (why);
  }
  gst_rtframe_sink_post_stream_status (self, task,
      GST_STREAM_STATUS_TYPE_ENTER);
}

static void
task_enter (GstTask * task, GThread * thread, gpointer user_data)
{
  gst_rtframe_sink_post_stream_status (GST_RTFRAME_SINK (user_data), task,
      GST_STREAM_STATUS_TYPE_ENTER);
}

static void
task_leave (GstTask * task, GThread * thread, gpointer user_data)
{
  gst_rtframe_sink_post_stream_status (GST_RTFRAME_SINK (user_data), task,
      GST_STREAM_STATUS_TYPE_LEAVE);
}

/* Makes a task of the element's into *task (set before it starts: its
 * function may stop it at once), announces it (STREAM_STATUS CREATE,
 * posted synchronously: a sync bus handler can set a task pool or prepare
 * scheduling before the thread exists) and starts it.  FALSE when it did
 * not start: then DESTROY was posted too, the task is gone (notify freed
 * data) and *task is NULL.  It leaves with LEAVE; join_task() joins it and
 * posts DESTROY. */
static gboolean
start_task (GstRtFrameSink * self, GstTask ** task, const gchar * name,
    GstTaskFunction func, gpointer data, GDestroyNotify notify,
    GRecMutex * lock, GstTaskThreadFunc enter, gpointer enter_data)
{
  GstTask *t = gst_task_new (func, data, notify);

  gst_object_set_name (GST_OBJECT_CAST (t), name);
  gst_task_set_lock (t, lock);
  gst_task_set_enter_callback (t, enter, enter_data, NULL);
  gst_task_set_leave_callback (t, task_leave, self, NULL);
  *task = t;
  gst_rtframe_sink_post_stream_status (self, t, GST_STREAM_STATUS_TYPE_CREATE);
  if (gst_task_start (t))
    return TRUE;
  gst_rtframe_sink_post_stream_status (self, t, GST_STREAM_STATUS_TYPE_DESTROY);
  *task = NULL;
  gst_object_unref (t);
  return FALSE;
}

static void
join_task (GstRtFrameSink * self, GstTask * task)
{
  gst_task_join (task);
  gst_rtframe_sink_post_stream_status (self, task,
      GST_STREAM_STATUS_TYPE_DESTROY);
}

/* ---- the writer's helper threads -------------------------------------- */

/* The writer's helper threads (common/util/rtf-thread.h): the pwrite engine's
 * and the file helper of a rotated recording.  They run as tasks like the
 * writer's, named rtframesink-pwrite and rtframesink-files, so they too are
 * announced with STREAM_STATUS (CREATE and DESTROY from the writer thread,
 * which starts and joins them) and get the writer's scheduling. */
typedef struct
{
  GstRtFrameSink *sink;
  GThreadFunc func;
  gpointer arg;
  GstTask *task;
  GRecMutex lock;
} GstRtFrameHelper;

static void
helper_func (gpointer data)
{
  GstRtFrameHelper *helper = data;

  helper->func (helper->arg);
  gst_task_stop (helper->task);
}

/* The writer thread already warned if the scheduling was refused. */
static void
helper_enter (GstTask * task, GThread * thread, gpointer user_data)
{
  GstRtFrameHelper *helper = user_data;
  gchar *why = NULL;

  if (!apply_thread_scheduling (helper->sink, &why)) {
    GST_INFO_OBJECT (helper->sink, "%s keeps the default scheduling: %s",
        GST_OBJECT_NAME (task), why);
    g_free (why);
  }
  gst_rtframe_sink_post_stream_status (helper->sink, task,
      GST_STREAM_STATUS_TYPE_ENTER);
}

static void
helper_free (GstRtFrameHelper * helper)
{
  gst_object_unref (helper->task);
  g_rec_mutex_clear (&helper->lock);
  g_free (helper);
}

static gpointer
helper_start (const gchar * role, GThreadFunc func, gpointer arg, gpointer data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (data);
  GstRtFrameHelper *helper = g_new0 (GstRtFrameHelper, 1);
  gchar *name = g_strdup_printf ("rtframesink-%s", role);

  helper->sink = self;
  helper->func = func;
  helper->arg = arg;
  g_rec_mutex_init (&helper->lock);
  if (!start_task (self, &helper->task, name, helper_func, helper, NULL,
          &helper->lock, helper_enter, helper)) {
    GST_WARNING_OBJECT (self, "could not start task %s: a plain thread "
        "runs it", name);
    g_rec_mutex_clear (&helper->lock);
    g_free (helper);
    helper = NULL;
  }
  g_free (name);
  return helper;
}

static void
helper_join (gpointer handle, gpointer data)
{
  GstRtFrameHelper *helper = handle;

  join_task (helper->sink, helper->task);
  helper_free (helper);
}

/* From another thread (gst_element_call_async(), which holds a reference
 * on the element meanwhile): a helper that ended on its own is joined */
static void
join_released_helper (GstElement * element, gpointer data)
{
  helper_join (data, element);
}

/* A helper ends on its own (a location's writer given up at stop): its
 * task cannot join itself */
static void
helper_release (gpointer handle, gpointer data)
{
  gst_element_call_async (GST_ELEMENT_CAST (data), join_released_helper,
      handle, NULL);
}

void
gst_rtframe_sink_init_threads (GstRtFrameSink * self)
{
  self->helper_threads.start = helper_start;
  self->helper_threads.join = helper_join;
  self->helper_threads.release = helper_release;
  self->helper_threads.data = self;
}

/* ---- the writer task ------------------------------------------------- */

/* What the writer thread holds of its own: it outlives a stop that gave
 * up on a stalled disk (stop-timeout), so it keeps the element alive and
 * has its own task lock. */
struct _GstRtFrameWriterRun
{
  /* a ref only once abandoned: until then stop() joins the thread (it
   * posts STREAM_STATUS on the element), after it the thread may outlive
   * the application's last ref */
  GstRtFrameSink *sink;
  gboolean sink_ref;
  RtfWriter *writer;
  GstTask *task;                /* its task (no ref: the task owns this) */
  GRecMutex task_lock;
  GstRtFrameMapping *mappings;  /* given to an abandoned writer */
  gchar *location;
  /* with locations: the spread, which the abandoned writer calls back
   * into until it ends (a reference, rtf_spread_let_go()) */
  RtfSpread *spread;
};

static GstRtFrameWriterRun *
writer_run_new (GstRtFrameSink * self, RtfWriter * writer)
{
  GstRtFrameWriterRun *run = g_new0 (GstRtFrameWriterRun, 1);

  run->sink = self;
  run->writer = writer;
  g_rec_mutex_init (&run->task_lock);
  return run;
}

/* When the task is finalized: its thread has ended */
static void
writer_run_free (gpointer data)
{
  GstRtFrameWriterRun *run = data;

  g_rec_mutex_clear (&run->task_lock);
  if (run->sink_ref)
    gst_object_unref (run->sink);
  g_free (run);
}

/* From another thread (gst_element_call_async()): waits for the task of an
 * abandoned writer to end, which gives its thread back to the pool */
static void
join_abandoned_task (GstElement * element, gpointer data)
{
  GstTask *task = data;

  gst_task_join (task);
  gst_rtframe_sink_post_stream_status (GST_RTFRAME_SINK (element), task,
      GST_STREAM_STATUS_TYPE_DESTROY);
}

/* An abandoned writer is done: its frames are released, its file closed */
static void
writer_run_abandoned_done (gpointer data)
{
  GstRtFrameWriterRun *run = data;
  GstRtFrameSink *self = run->sink;

  /* its task cannot join itself: another thread does, once it ends */
  gst_element_call_async (GST_ELEMENT_CAST (self), join_abandoned_task,
      gst_object_ref (run->task), gst_object_unref);

  g_free (run->mappings);
  run->mappings = NULL;
  g_clear_pointer (&run->spread, rtf_spread_unref);
  GST_INFO_OBJECT (self, "the stalled writes to %s have ended; the file "
      "holds the frames reported written", run->location);
  g_free (run->location);
  run->location = NULL;
}

static void
writer_thread_func (gpointer user_data)
{
  GstRtFrameWriterRun *run = user_data;

  /* Runs until rtf_writer_shutdown(); then the task ends.  An abandoned
   * writer is freed by the time it returns. */
  rtf_writer_run (run->writer);
  gst_task_stop (run->task);
}

gboolean
gst_rtframe_sink_start_writer_task (GstRtFrameSink * self)
{
  GstRtFrameWriterRun *run = writer_run_new (self, self->writer);

  self->run = run;
  if (!start_task (self, &run->task, "rtframesink-writer",
          writer_thread_func, run, writer_run_free, &run->task_lock,
          writer_thread_enter, self)) {
    self->run = NULL;           /* freed with its task */
    return FALSE;
  }
  self->task = run->task;
  return TRUE;
}

void
gst_rtframe_sink_join_writer_task (GstRtFrameSink * self)
{
  join_task (self, self->task);
}

gboolean
gst_rtframe_sink_abandon_writer (GstRtFrameSink * self, guint64 timeout)
{
  GstRtFrameWriterRun *run = self->run;
  RtfWriter *writer;
  RtfWriterLatency *latency;
  RtfWriterStats final;
  gchar *location;
  guint64 lost;

  /* Once abandoned the writer may be gone at any moment: nobody may reach
   * it through self->writer (get_property) from before the call on, and
   * only copies of what the thread frees are used after it. */
  run->sink_ref = TRUE;
  gst_object_ref (self);
  GST_OBJECT_LOCK (self);
  writer = self->writer;
  gst_rtframe_sink_writer_stats (self, &self->last_stats, NULL);
  self->writer = NULL;
  /* (with locations, the first: this writer's) */
  location = g_strdup (self->locations && self->locations[0] ?
      self->locations[0] : self->location);
  run->mappings = self->mappings;
  run->location = g_strdup (location);
  GST_OBJECT_UNLOCK (self);
  /* (before: the thread may end, and unref, as soon as it is given up) */
  if (self->spread) {
    rtf_spread_let_go (self->spread, 0);
    run->spread = self->spread;
  }

  latency = g_new (RtfWriterLatency, 1);
  if (!rtf_writer_abandon (writer, writer_run_abandoned_done, run, &final,
          latency)) {
    /* it finished just now */
    if (run->spread) {
      rtf_spread_given_up (self->spread, 0, writer, NULL);
      run->spread = NULL;
    }
    GST_OBJECT_LOCK (self);
    self->writer = writer;
    GST_OBJECT_UNLOCK (self);
    run->mappings = NULL;
    g_clear_pointer (&run->location, g_free);
    run->sink_ref = FALSE;
    gst_object_unref (self);
    g_free (latency);
    g_free (location);
    return FALSE;
  }
  /* the writer, its frames and their mappings are the thread's now; with
   * locations the figures are the stream's, and the frames of a location
   * that stalled before were written elsewhere */
  lost = final.frames_lost;
  if (self->spread) {
    lost = rtf_spread_given_up (self->spread, 0, writer, &final);
    rtf_spread_get_stats (self->spread, &final, latency);
  }
  GST_OBJECT_LOCK (self);
  self->mappings = NULL;
  self->last_stats = final;
  GST_OBJECT_UNLOCK (self);
  gst_task_stop (self->task);

  if (lost > 0 || self->spread == NULL)
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Stopped before the disk finished writing file \"%s\": %"
            G_GUINT64_FORMAT " frames accepted were not written.", location,
            lost), ("the writes did not end within stop-timeout (%"
            GST_TIME_FORMAT "); %" G_GUINT64_FORMAT " frames written, %"
            G_GUINT64_FORMAT " bytes; the file is cut back to them when the "
            "stalled writes end", GST_TIME_ARGS (timeout),
            final.frames_written, final.bytes_written));
  else
    GST_INFO_OBJECT (self, "stopped before the stalled writes to %s ended; "
        "its frames not written were written at other locations", location);

  gst_rtframe_sink_stop_reporter (self);
  GST_OBJECT_LOCK (self);
  self->last_stats_structure = gst_rtframe_sink_stats_of (self,
      GST_RTFRAME_MSG_STATS, FALSE, &final, latency);
  GST_OBJECT_UNLOCK (self);
  g_free (latency);
  g_free (location);
  return TRUE;
}

/* The tasks' objects go (the writer's joined, or left to end on its own;
 * the reporter's joined) */
void
gst_rtframe_sink_release_tasks (GstRtFrameSink * self)
{
  if (self->task) {
    gst_object_unref (self->task);
    self->task = NULL;
    self->run = NULL;
  }
  if (self->reporter) {
    gst_object_unref (self->reporter);
    self->reporter = NULL;
  }
}

/* ---- the reporter task ----------------------------------------------- */

static void
post_event (GstRtFrameSink * self, const RtfEvent * e)
{
  GstObject *src = GST_OBJECT_CAST (self);
  GstElement *el = GST_ELEMENT_CAST (self);

  switch (e->kind) {
    case RTF_EVENT_MISSED:
      gst_element_post_message (el, gst_rtframe_message_missed (src,
              &e->report));
      break;
    case RTF_EVENT_LATE_DONE:
      gst_element_post_message (el, gst_rtframe_message_late (src, &e->report));
      break;
    case RTF_EVENT_DROPPED:
    case RTF_EVENT_DROPPED_AFTER_MISS:{
      RtfWriterStats st = { 0 };

      if (e->kind == RTF_EVENT_DROPPED)
        gst_element_post_message (el, gst_rtframe_message_missed (src,
                &e->report));
      GST_OBJECT_LOCK (self);
      if (self->writer)
        gst_rtframe_sink_writer_stats (self, &st, NULL);
      GST_OBJECT_UNLOCK (self);
      gst_element_post_message (el, gst_rtframe_message_qos_drop (src,
              &e->report, st.frames_written, st.frames_dropped));
      break;
    }
    case RTF_EVENT_WRITTEN:
      gst_element_post_message (el, gst_rtframe_message_written (src, e));
      break;
    case RTF_EVENT_UPSTREAM_GAP:
      gst_element_post_message (el, gst_rtframe_message_upstream_gap (src, e));
      break;
    case RTF_EVENT_DISK_SPACE:
      gst_element_post_message (el, gst_rtframe_message_disk_space (src,
              &e->u.space));
      break;
  }
}

/* Posts what the event ring holds, in order. */
void
gst_rtframe_sink_post_events (GstRtFrameSink * self)
{
  guint64 overflowed = 0;
  guint n, i;

  g_mutex_lock (&self->report_lock);
  do {
    n = rtf_events_pop (self->events, self->event_batch, EVENT_BATCH,
        &overflowed);
    for (i = 0; i < n; i++)
      post_event (self, &self->event_batch[i]);
    if (overflowed) {
      g_mutex_lock (&self->stats_lock);
      self->events_overflowed += overflowed;
      g_mutex_unlock (&self->stats_lock);
      GST_WARNING_OBJECT (self, "%" G_GUINT64_FORMAT " deadline messages "
          "not posted: more than %d at once", overflowed, EVENT_RING_SIZE);
    }
  } while (n == EVENT_BATCH);
  for (;;) {
    GstMessage *msg;

    g_mutex_lock (&self->file_messages_lock);
    msg = g_queue_pop_head (&self->file_messages);
    g_mutex_unlock (&self->file_messages_lock);
    if (msg == NULL)
      break;
    gst_element_post_message (GST_ELEMENT_CAST (self), msg);
  }
  g_mutex_unlock (&self->report_lock);
}

/* The reporter task: turns deadline events into bus messages and posts the
 * periodic statistics, so the writer thread never calls into the bus (or
 * an application's sync handler). */
static void
reporter_func (gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);
  gint64 interval_us = self->stats_interval / 1000;
  gint64 next_stats = g_get_monotonic_time () + interval_us;

  while (!g_atomic_int_get (&self->reporter_stop)) {
    gint64 until = interval_us > 0 ? next_stats :
        g_get_monotonic_time () + G_USEC_PER_SEC;

    rtf_events_wait (self->events, until);
    gst_rtframe_sink_post_events (self);
    if (interval_us > 0 && g_get_monotonic_time () >= next_stats) {
      gst_rtframe_sink_post_stats (self);
      next_stats += interval_us;
      if (next_stats < g_get_monotonic_time ())
        next_stats = g_get_monotonic_time () + interval_us;
    }
  }
  gst_rtframe_sink_post_events (self);
  gst_task_stop (self->reporter);
}

gboolean
gst_rtframe_sink_start_reporter (GstRtFrameSink * self)
{
  g_atomic_int_set (&self->reporter_stop, 0);
  return start_task (self, &self->reporter, "rtframesink-reporter",
      reporter_func, self, NULL, &self->reporter_task_lock, task_enter, self);
}

void
gst_rtframe_sink_stop_reporter (GstRtFrameSink * self)
{
  if (self->reporter == NULL)
    return;
  g_atomic_int_set (&self->reporter_stop, 1);
  rtf_events_wake (self->events);
  join_task (self, self->reporter);
}
