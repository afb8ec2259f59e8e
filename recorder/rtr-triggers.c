/* rtframe-record: where triggers come from (rtr-triggers.h) */
#include "rtr-triggers.h"

#include <glib-unix.h>
#include <signal.h>
#include <unistd.h>

struct _RtrTriggers
{
  const RtrConfig *config;
  RtrCommands *commands;
  GPtrArray *timers;            /* TimedEvent, freed with t */
  GList *sources;               /* GSource ids to remove at the end */
};

/* --event T: at T seconds of the pipeline's running time, not of the
 * program's (a loaded machine took 0.9 s to reach PLAYING, and an event
 * at 1 s of wall-clock time then had 0.1 s to hold, not 0.5) */
typedef struct
{
  RtrTriggers *t;
  GstClockTime at;
  guint source;
} TimedEvent;

RtrTriggers *
rtr_triggers_new (const RtrConfig * c, RtrCommands * commands)
{
  RtrTriggers *t = g_new0 (RtrTriggers, 1);

  t->config = c;
  t->commands = commands;
  t->timers = g_ptr_array_new_with_free_func (g_free);
  return t;
}

void
rtr_triggers_free (RtrTriggers * t)
{
  GList *l;
  guint i;

  if (t == NULL)
    return;
  for (l = t->sources; l; l = l->next)
    g_source_remove (GPOINTER_TO_UINT (l->data));
  g_list_free (t->sources);
  for (i = 0; i < t->timers->len; i++) {
    TimedEvent *e = g_ptr_array_index (t->timers, i);

    if (e->source)
      g_source_remove (e->source);
  }
  g_ptr_array_unref (t->timers);
  g_free (t);
}

/* A command from the terminal, a signal or a timer: its reply is
 * printed by the command itself */
static void
fire (RtrTriggers * t)
{
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  rtr_commands_trigger (t->commands, NULL, b);
  json_builder_end_object (b);
  g_object_unref (b);
}

static void
stop_now (RtrTriggers * t)
{
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  rtr_commands_stop (t->commands, GST_CLOCK_TIME_NONE, b);
  json_builder_end_object (b);
  g_object_unref (b);
}

static gboolean
on_sigusr1 (gpointer data)
{
  fire (data);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigusr2 (gpointer data)
{
  stop_now (data);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_timed_event (gpointer data)
{
  TimedEvent *e = data;
  GstClockTime rt = rtr_commands_running_time (e->t->commands);

  if (!GST_CLOCK_TIME_IS_VALID (rt) || rt < e->at) {
    e->source = g_timeout_add (GST_CLOCK_TIME_IS_VALID (rt) ?
        (guint) ((e->at - rt) / GST_MSECOND) + 1 : 20, on_timed_event, e);
    return G_SOURCE_REMOVE;
  }
  e->source = 0;
  fire (e->t);
  return G_SOURCE_REMOVE;
}

static gboolean
on_stdin (GIOChannel * ch, GIOCondition cond, gpointer data)
{
  RtrTriggers *t = data;
  gchar *line = NULL;

  if (g_io_channel_read_line (ch, &line, NULL, NULL, NULL) !=
      G_IO_STATUS_NORMAL) {
    /* no terminal (EOF): the other triggers; its id goes with it */
    t->sources = g_list_remove (t->sources, GUINT_TO_POINTER
        (g_main_current_source ()?
            g_source_get_id (g_main_current_source ()) : 0));
    return G_SOURCE_REMOVE;
  }
  g_free (line);
  fire (t);
  return G_SOURCE_CONTINUE;
}

static void
add_source (RtrTriggers * t, guint id)
{
  t->sources = g_list_prepend (t->sources, GUINT_TO_POINTER (id));
}

void
rtr_triggers_watch (RtrTriggers * t)
{
  GIOChannel *in = g_io_channel_unix_new (STDIN_FILENO);
  guint i;

  add_source (t, g_io_add_watch (in, G_IO_IN | G_IO_HUP, on_stdin, t));
  g_io_channel_unref (in);
  add_source (t, g_unix_signal_add (SIGUSR1, on_sigusr1, t));
  add_source (t, g_unix_signal_add (SIGUSR2, on_sigusr2, t));
  for (i = 0; t->config->event_at && t->config->event_at[i]; i++) {
    TimedEvent *e = g_new0 (TimedEvent, 1);

    e->t = t;
    e->at = (GstClockTime) (g_ascii_strtod (t->config->event_at[i], NULL) *
        GST_SECOND);
    e->source = g_timeout_add ((guint) (e->at / GST_MSECOND), on_timed_event,
        e);
    g_ptr_array_add (t->timers, e);
  }
  g_print ("events: Enter or kill -USR1 %d to trigger, kill -USR2 %d to "
      "stop\n", (gint) getpid (), (gint) getpid ());
}
