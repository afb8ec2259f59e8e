/* rtframe-export: the frames a range asks for (export-range.h).  The
 * recording is opened as rtframesrc opens it (an index required), so the
 * numbers chosen are those it plays, in its order. */
#include "export-range.h"
#include "rtf-take-manifest.h"

#include "rtf-recording.h"

#include <string.h>

#define SECOND_NS G_GUINT64_CONSTANT (1000000000)

/* A frame's running time: its record's, else its PTS (what rtframesrc
 * stamps it with); FALSE when the index holds neither */
static gboolean
time_of (const RtfIndexRecord * r, guint64 * t)
{
  *t = r->running_time != RTF_INDEX_NONE ? r->running_time : r->pts;
  return *t != RTF_INDEX_NONE;
}

static guint64
seconds_to_ns (gdouble s)
{
  if (s <= 0)
    return 0;
  if (s >= (gdouble) G_MAXUINT64 / SECOND_NS)
    return G_MAXUINT64;
  return (guint64) (s * SECOND_NS + 0.5);
}

/* Whether frame r is in the range asked by time; FALSE with *why when a
 * frame has no time at all */
static gboolean
in_time_range (const ExportAsk * ask, const RtfIndexRecord * r,
    gboolean * in, gchar ** why)
{
  guint64 t;

  if (!time_of (r, &t)) {
    *why = g_strdup_printf ("frame %" G_GUINT64_FORMAT " has no running "
        "time nor PTS in its index: ask for frame numbers (--from, --to)",
        r->seq);
    return FALSE;
  }
  *in = (!ask->has_from_time || t >= seconds_to_ns (ask->from_time))
      && (!ask->has_to_time || t < seconds_to_ns (ask->to_time));
  return TRUE;
}

/* --from/--to/--frames against the recording's numbers: 0, or 2 with
 * *why */
static gint
check_numbers (const ExportAsk * ask, const ExportRange * range, gchar ** why)
{
  if (ask->has_from && (ask->from < range->first || ask->from > range->last))
    *why = g_strdup_printf ("--from %" G_GUINT64_FORMAT " is outside the "
        "recording (frames %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ")",
        ask->from, range->first, range->last);
  else if (ask->has_to && (ask->to < range->first || ask->to > range->last))
    *why = g_strdup_printf ("--to %" G_GUINT64_FORMAT " is outside the "
        "recording (frames %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ")",
        ask->to, range->first, range->last);
  else if (ask->has_from && ask->has_to && ask->to < ask->from)
    *why = g_strdup_printf ("--to %" G_GUINT64_FORMAT " is before --from %"
        G_GUINT64_FORMAT, ask->to, ask->from);
  return *why ? 2 : 0;
}

/* Whether frame number seq is in the range asked by number (--frames is
 * counted as frames are taken) */
static gboolean
in_number_range (const ExportAsk * ask, guint64 seq)
{
  return (!ask->has_from || seq >= ask->from)
      && (!ask->has_to || seq <= ask->to);
}

/* Every frame of rec the range takes, into range->numbers */
static gint
take_frames (RtfRecording * rec, const ExportAsk * ask, ExportRange * range,
    gchar ** why)
{
  gboolean by_time = ask->has_from_time || ask->has_to_time;
  guint64 n;

  range->numbers = g_new (guint64, rec->n_frames);
  for (n = 0; n < rec->n_frames; n++) {
    const RtfIndexRecord *r = rtf_recording_frame (rec, n, NULL);
    gboolean in;

    if (ask->has_frames && range->n == ask->frames)
      break;
    if (by_time) {
      if (!in_time_range (ask, r, &in, why))
        return 2;
    } else
      in = in_number_range (ask, r->seq);
    if (in)
      range->numbers[range->n++] = r->seq;
  }
  return 0;
}

/* What the range holds against what was asked: 0, or 2 with *why */
static gint
check_taken (const ExportAsk * ask, ExportRange * range, gchar ** why)
{
  if (range->n == 0)
    *why = g_strdup_printf ("no frame of the recording (frames %"
        G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ") is in the range asked",
        range->first, range->last);
  else if (ask->has_frames && range->n < ask->frames)
    *why = g_strdup_printf ("--frames %" G_GUINT64_FORMAT ": the recording "
        "holds only %" G_GUINT64_FORMAT " frames from frame %" G_GUINT64_FORMAT
        " on (its last is %" G_GUINT64_FORMAT ")", ask->frames, range->n,
        range->numbers[0], range->last);
  if (*why)
    return 2;
  range->not_recorded = range->numbers[range->n - 1] - range->numbers[0] + 1
      - range->n;
  return 0;
}

RtfRecording *
export_open (const gchar * location, const gchar * camera,
    gboolean require_index, GError ** error)
{
  if (rtf_take_manifest_is_path (location))
    return rtf_take_recording_open (location, camera, require_index, error);
  return rtf_recording_open (location, 0, require_index, error);
}

gint
export_range_choose (const gchar * location, const gchar * camera,
    const ExportAsk * ask, ExportRange * range, gchar ** why)
{
  GError *error = NULL;
  RtfRecording *rec;
  gint status;

  memset (range, 0, sizeof (*range));
  rec = export_open (location, camera, TRUE, &error);
  if (rec == NULL) {
    *why = g_strdup (error->message);
    g_error_free (error);
    return 1;
  }
  if (rec->n_frames == 0) {
    *why = g_strdup ("the recording holds no frame");
    rtf_recording_free (rec);
    return 1;
  }
  range->first = rtf_recording_frame (rec, 0, NULL)->seq;
  range->last = rtf_recording_frame (rec, rec->n_frames - 1, NULL)->seq;
  status = check_numbers (ask, range, why);
  if (status == 0)
    status = take_frames (rec, ask, range, why);
  if (status == 0)
    status = check_taken (ask, range, why);
  rtf_recording_free (rec);
  if (status != 0)
    export_range_clear (range);
  return status;
}

void
export_range_clear (ExportRange * range)
{
  g_clear_pointer (&range->numbers, g_free);
  range->n = 0;
}
