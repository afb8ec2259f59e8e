/* rtframe: what the writer tells its owner from its thread - a log line,
 * and its first failure (which ends the run: the phase goes to FAILED).
 * Below every other part of the writer, which all report through it. */
#include "rtf-writer-private.h"

#include <stdarg.h>

static void
log_va (RtfWriter * w, RtfLogPart part, RtfLogLevel level,
    const gchar * format, va_list args)
G_GNUC_PRINTF (4, 0);

static void
log_va (RtfWriter * w, RtfLogPart part, RtfLogLevel level,
    const gchar * format, va_list args)
{
  gchar *msg;

  if (w->cb.log == NULL || (w->cb.log_wanted
          && !w->cb.log_wanted (part, level, w->user_data)))
    return;
  msg = g_strdup_vprintf (format, args);
  RTF_WRITER_CALLBACK (w, log, part, level, msg);
  g_free (msg);
}

void
rtf_writer_log (RtfWriter * w, RtfLogLevel level, const gchar * format, ...)
{
  va_list args;

  va_start (args, format);
  log_va (w, RTF_LOG_WRITER, level, format, args);
  va_end (args);
}

void
rtf_writer_log_in (RtfWriter * w, RtfLogPart part, RtfLogLevel level,
    const gchar * format, ...)
{
  va_list args;

  va_start (args, format);
  log_va (w, part, level, format, args);
  va_end (args);
}

void
rtf_writer_fail_at (RtfWriter * w, RtfFailStep step, gint err,
    const gchar * path, RtfFrame * frame)
{
  if (frame) {
    frame->state = RTF_FRAME_FAILED;
    frame->error = err;
  }
  if (w->error != 0)
    return;                     /* the first error is the one told */
  w->error = err;
  w->fail_step = step;
  if (path) {
    g_free (w->fail_path);
    w->fail_path = g_strdup (path);
  }
  rtf_writer_log (w, RTF_LOG_DEBUG, "%s failed (frame %" G_GUINT64_FORMAT
      "): %s; stopping", path ? path : w->cur->path, frame ? frame->seq : 0,
      g_strerror (err));
  g_mutex_lock (&w->lock);
  if (w->phase == RTF_PHASE_RUNNING || w->phase == RTF_PHASE_ABANDONED)
    w->phase = RTF_PHASE_FAILED;
  g_mutex_unlock (&w->lock);
}
