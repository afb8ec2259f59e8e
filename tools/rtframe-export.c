/* rtframe-export: exports a frame range or a time range of a recording
 * (one file, the pattern of a set, or a spread's manifest: what
 * rtframesrc's location takes) to files any player opens - Matroska with
 * FFV1 (lossless, the pixel depth kept), the frames' bytes as recorded,
 * or a PNG or TIFF still a frame.  The frames are the ones rtframesrc
 * plays (rtframesrc ! appsink, a GST_FORMAT_DEFAULT seek to the first),
 * each checked by its buffer's offset - the recording's frame number -
 * against the numbers the indexes hold in the range (export-range.c), so
 * exactly the frames asked for are written, whatever the timestamps.
 * Outputs are made under hidden names and named when whole, never over
 * an existing file unless --overwrite, never through a link; a failure
 * removes what this run made.  Exit status 0: exported; 1: the recording
 * could not be read, or writing or encoding failed; 2: bad usage (an
 * option, a range outside the recording, an output that exists, a
 * missing element: its package named). */
#include "export-files.h"
#include "export-range.h"
#include "export-read.h"
#include "export-sink.h"

#include "rtf-build-info.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-recording.h"
#include "rtf-take-manifest.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static gint64 opt_from = -1, opt_to = -1, opt_frames = -1;
static gdouble opt_from_time = NAN, opt_to_time = NAN;
static gchar *opt_format, *opt_output, *opt_camera;
static gboolean opt_overwrite, opt_version;

static const GOptionEntry entries[] = {
  {"from", 0, 0, G_OPTION_ARG_INT64, &opt_from,
      "First frame number to export (default: the recording's first)", "N"},
  {"to", 0, 0, G_OPTION_ARG_INT64, &opt_to,
      "Last frame number to export, included (default: the last)", "N"},
  {"frames", 0, 0, G_OPTION_ARG_INT64, &opt_frames,
      "Export K frames from --from on (instead of --to)", "K"},
  {"from-time", 0, 0, G_OPTION_ARG_DOUBLE, &opt_from_time,
      "Export the frames whose running time is T seconds or later", "T"},
  {"to-time", 0, 0, G_OPTION_ARG_DOUBLE, &opt_to_time,
      "... and before T seconds", "T"},
  {"format", 'f', 0, G_OPTION_ARG_STRING, &opt_format,
      "mkv (FFV1, lossless), raw (the bytes as recorded; on standard "
        "output a CSV line a frame: frame,pts,duration,byte_offset,size,caps), "
        "png or tiff (a " "file a frame)", "FORMAT"},
  {"output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
      "The file to write; for png and tiff a pattern with one %d field "
        "(still-%05d.png) that takes each frame's number", "OUT"},
  {"camera", 0, 0, G_OPTION_ARG_STRING, &opt_camera,
      "Of an event's or take's manifest: this camera's part (default: "
        "every camera's, each to its own output)", "NAME"},
  {"overwrite", 0, 0, G_OPTION_ARG_NONE, &opt_overwrite,
      "Replace outputs that exist (regular files only)", NULL},
  {"version", 0, 0, G_OPTION_ARG_NONE, &opt_version,
      "Print the version and exit", NULL},
  {NULL}
};

static const gchar *const formats[] = { "mkv", "raw", "png", "tiff", NULL };

static volatile sig_atomic_t interrupted;

static void
on_signal (int sig)
{
  interrupted = 1;
}

static gint
usage_error (const gchar * why)
{
  fprintf (stderr, "rtframe-export: %s\n", why);
  return 2;
}

/* The options' sense, before anything is read: NULL, or what is wrong */
static const gchar *
check_options (ExportAsk * ask)
{
  ask->has_from = opt_from >= 0;
  ask->has_to = opt_to >= 0;
  ask->has_frames = opt_frames >= 0;
  ask->has_from_time = !isnan (opt_from_time);
  ask->has_to_time = !isnan (opt_to_time);
  ask->from = opt_from;
  ask->to = opt_to;
  ask->frames = opt_frames;
  ask->from_time = opt_from_time;
  ask->to_time = opt_to_time;
  if (opt_format == NULL)
    return "--format is needed: mkv, raw, png or tiff";
  if (!g_strv_contains (formats, opt_format))
    return "unknown --format: mkv, raw, png or tiff";
  if (opt_from < -1 || opt_to < -1 || opt_frames == 0 || opt_frames < -1)
    return "frame numbers are 0 or more, and --frames 1 or more";
  if ((ask->has_from_time && opt_from_time < 0) || (ask->has_to_time
          && opt_to_time < 0))
    return "times are 0 or more seconds";
  if (ask->has_to && ask->has_frames)
    return "--to or --frames, not both";
  if ((ask->has_from_time || ask->has_to_time) && (ask->has_from
          || ask->has_to || ask->has_frames))
    return "a range of frame numbers or of times, not both";
  if (ask->has_from_time && ask->has_to_time && opt_to_time <= opt_from_time)
    return "--to-time must be after --from-time";
  return NULL;
}

/* A name from the recording's: its file name less the pattern's field,
 * the extension and ".rtfspread" ("cam0-%05d.raw" -> "cam0") */
static gchar *
stem_of (const gchar * location)
{
  gchar *base = g_path_get_basename (location), *p;
  RtfPattern pat;

  if (g_str_has_suffix (base, ".rtfspread"))
    base[strlen (base) - strlen (".rtfspread")] = '\0';
  if (g_str_has_suffix (base, RTF_TAKE_MANIFEST_SUFFIX))
    base[strlen (base) - strlen (RTF_TAKE_MANIFEST_SUFFIX)] = '\0';
  if (rtf_pattern_parse (base, &pat)) {
    g_free (base);
    base = g_strconcat (pat.prefix, pat.suffix, NULL);
    rtf_pattern_clear (&pat);
  }
  if ((p = strrchr (base, '.')) != NULL && p != base)
    *p = '\0';
  g_strchomp (base);
  while (*base && strchr ("-_.", base[strlen (base) - 1]))
    base[strlen (base) - 1] = '\0';
  if (*base == '\0' || strchr (base, '%')) {
    g_free (base);
    base = g_strdup ("export");
  }
  return base;
}

/* -o's default, in the working directory: <stem>-<first>-<last>.mkv,
 * .raw; <stem>-%06d.png, .tiff */
static gchar *
default_output (const gchar * location, const ExportRange * range)
{
  gchar *stem = stem_of (location), *out;

  if (!strcmp (opt_format, "png") || !strcmp (opt_format, "tiff"))
    out = g_strdup_printf ("%s-%%06d.%s", stem, opt_format);
  else
    out = g_strdup_printf ("%s-%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
        ".%s", stem, range->numbers[0], range->numbers[range->n - 1],
        opt_format);
  g_free (stem);
  return out;
}

/* Every file the export would write may be written: 0, or 2 (said) */
static gint
check_outputs (ExportFiles * files, const gchar * out, gboolean stills,
    const ExportRange * range)
{
  gchar *why = NULL;
  guint64 i;

  if (stills && rtf_pattern_is_timed (out)) {
    fprintf (stderr, "rtframe-export: -o %s: stills are named by frame "
        "number only (no time fields)\n", out);
    return 2;
  }
  if (stills && rtf_pattern_check (out, &why) != RTF_PATTERN_OK) {
    fprintf (stderr, "rtframe-export: -o %s: for png and tiff, a pattern "
        "with one %%d field (still-%%05d.png)%s%s\n", out, why ? ": " : "",
        why ? why : "");
    g_free (why);
    return 2;
  }
  for (i = 0; i < (stills ? range->n : 1); i++) {
    gchar *path = stills ? rtf_pattern_format (out, range->numbers[i]) :
        g_strdup (out);
    gboolean ok = export_files_may_write (files, path, &why);

    g_free (path);
    if (!ok) {
      fprintf (stderr, "rtframe-export: %s\n", why);
      g_free (why);
      return 2;
    }
  }
  return 0;
}

/* The elements every export needs: NULL, or what to install */
static gchar *
missing_elements (void)
{
  GstElementFactory *f = gst_element_factory_find ("rtframesrc");

  if (f == NULL)
    return g_strdup ("no rtframesrc element: install gstreamer1.0-rtframe "
        "(or set GST_PLUGIN_PATH to the plugin's directory)");
  gst_object_unref (f);
  f = gst_element_factory_find ("appsink");
  if (f == NULL)
    return g_strdup ("no appsink element: install "
        "gstreamer1.0-plugins-base");
  gst_object_unref (f);
  if (!strcmp (opt_format, "mkv"))
    return export_mkv_missing ();
  return NULL;
}

static ExportSink *
sink_new (ExportFiles * files, const gchar * out, gchar ** why)
{
  if (!strcmp (opt_format, "mkv"))
    return export_mkv_new (files, out, why);
  if (!strcmp (opt_format, "raw"))
    return export_raw_new (files, out, why);
  return export_stills_new (files, out, !strcmp (opt_format, "tiff"), why);
}

/* The next frame of the range from read, checked to be numbers[i] (a
 * seek may land on frames before the first): NULL with *why */
static GstSample *
next_frame (ExportRead * read, const ExportRange * range, guint64 i,
    gchar ** why)
{
  for (;;) {
    GstSample *sample = interrupted ? NULL : export_read_next (read, why);
    guint64 off;

    if (sample == NULL) {
      if (*why == NULL)
        *why = g_strdup_printf (interrupted ? "interrupted before frame %"
            G_GUINT64_FORMAT : "the recording ended before frame %"
            G_GUINT64_FORMAT, range->numbers[i]);
      return NULL;
    }
    off = GST_BUFFER_OFFSET (gst_sample_get_buffer (sample));
    if (off == range->numbers[i])
      return sample;
    gst_sample_unref (sample);
    if (i > 0 || off > range->numbers[i]) {
      *why = g_strdup_printf ("rtframesrc played frame %" G_GUINT64_FORMAT
          " where frame %" G_GUINT64_FORMAT " was expected", off,
          range->numbers[i]);
      return NULL;
    }
  }
}

/* Every frame of the range into sink: 0, or 1 or 2 with *why */
static gint
run (const gchar * location, const gchar * camera, const ExportRange * range,
    ExportSink * sink, gchar ** why)
{
  ExportRead *read = export_read_start (location, camera, range->numbers[0],
      range->numbers[0] != range->first, why);
  ExportFailure failure = EXPORT_FAILED;
  gboolean ok = read != NULL;
  guint64 i;

  for (i = 0; ok && i < range->n; i++) {
    GstSample *sample = next_frame (read, range, i, why);

    ok = sample && sink->frame (sink, sample, range->numbers[i], &failure, why);
    if (sample)
      gst_sample_unref (sample);
  }
  if (read)
    export_read_free (read);
  if (ok)
    ok = sink->finish (sink, &failure, why);
  return ok ? 0 : failure;
}

/* Every file of the recording read is never an output: its data files,
 * indexes, the manifest, leftovers - of a take, every camera's */
static void
protect_recording (ExportFiles * files, const gchar * location,
    const gchar * camera)
{
  RtfTakeManifest *m = rtf_take_manifest_is_path (location) ?
      rtf_take_manifest_load (location, NULL) : NULL;
  RtfRecording *rec;
  guint i, c, f;

  export_files_protect (files, location);
  for (c = 0; m && c < m->cameras->len; c++) {
    const RtfTakeCamera *cam = g_ptr_array_index (m->cameras, c);

    for (f = 0; cam->files[f]; f++) {
      gchar *path = rtf_take_manifest_file_path (location, cam->files[f]);
      gchar *index = rtf_index_path (path);

      export_files_protect (files, path);
      export_files_protect (files, index);
      g_free (index);
      g_free (path);
    }
  }
  rtf_take_manifest_free (m);
  rec = export_open (location, camera, FALSE, NULL);
  for (i = 0; rec && i < rec->n_files; i++) {
    gchar *index = rtf_index_path (rec->files[i].path);

    export_files_protect (files, rec->files[i].path);
    export_files_protect (files, index);
    g_free (index);
  }
  for (i = 0; rec && i < rec->n_leftovers; i++)
    export_files_protect (files, rec->leftovers[i].path);
  if (rec)
    rtf_recording_free (rec);
}

/* One output of an export: a recording's range, or a camera's of a take */
typedef struct
{
  const gchar *camera;          /* NULL: not a take's */
  ExportRange range;
  gchar *out;
  ExportSink *sink;
} Part;

/* Every part at once, once their ranges and outputs are known: every
 * input protected and every output checked before anything is written,
 * and the outputs named only when all are whole - a part that fails (or
 * an interruption) leaves none of them, and puts back what --overwrite
 * would have replaced.  The exit status. */
static gint
export_parts (const gchar * location, Part * parts, guint n)
{
  ExportFiles *files = export_files_new (opt_overwrite);
  gboolean stills = strcmp (opt_format, "png") == 0
      || strcmp (opt_format, "tiff") == 0;
  gchar *why = NULL;
  gint status = 0;
  guint i;

  for (i = 0; i < n; i++)
    protect_recording (files, location, parts[i].camera);
  for (i = 0; i < n && status == 0; i++)
    status = check_outputs (files, parts[i].out, stills, &parts[i].range);
  for (i = 0; i < n && status == 0; i++) {
    parts[i].sink = sink_new (files, parts[i].out, &why);
    status = parts[i].sink ? run (location, parts[i].camera, &parts[i].range,
        parts[i].sink, &why) : 1;
    if (status == 0 && interrupted)
      status = 1;
  }
  if (status != 0 && why)
    fprintf (stderr, "rtframe-export: %s%s%s\n", i > 0 && parts[i - 1].camera
        ? parts[i - 1].camera : "", i > 0 && parts[i - 1].camera ? ": " : "",
        why);
  if (status != 0)
    export_files_abandon (files);
  else
    export_files_finish (files);
  for (i = 0; i < n; i++) {
    if (status == 0)
      fprintf (stderr, "rtframe-export: %" G_GUINT64_FORMAT " frames (%"
          G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ") written to %s\n",
          parts[i].range.n, parts[i].range.numbers[0],
          parts[i].range.numbers[parts[i].range.n - 1], parts[i].out);
    if (parts[i].sink)
      parts[i].sink->free (parts[i].sink);
  }
  export_files_free (files);
  g_free (why);
  return status;
}

static gboolean
parse (int *argc, char ***argv)
{
  GOptionContext *ctx = g_option_context_new ("RECORDING - export frames "
      "of a recording to files players open");
  GError *error = NULL;
  gboolean ok;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "RECORDING is a recorded file, "
      "the pattern of a set (cam0-%05d.raw) or a spread's manifest "
      "(cam0-.raw.rtfspread). Frame numbers are the recording's, as "
      "rtframe-dump prints them. A Bayer mosaic is exported as gray.\n"
      "Without -o: <name>-<first>-<last>.mkv or .raw, <name>-%06d.png or "
      ".tiff, in the working directory.\nExit status: 0 exported, 1 the "
      "recording could not be read or an output not written (nothing this "
      "run made is left), 2 bad usage: an option, a range outside the "
      "recording, an output that exists, an element not installed.");
  ok = g_option_context_parse (ctx, argc, argv, &error);
  if (!ok) {
    fprintf (stderr, "rtframe-export: %s\n", error->message);
    g_error_free (error);
  }
  g_option_context_free (ctx);
  return ok;
}

/* out for one camera of several: "-<camera>" before its extension */
static gchar *
output_of_camera (const gchar * out, const gchar * camera)
{
  const gchar *base = strrchr (out, '/'), *dot;

  base = base ? base + 1 : out;
  dot = strrchr (base, '.');
  if (dot == NULL || dot == base)
    return g_strconcat (out, "-", camera, NULL);
  return g_strdup_printf ("%.*s-%s%s", (gint) (dot - out), out, camera, dot);
}

/* A part's range and output: 0, or the status with what is wrong said */
static gint
prepare (const gchar * location, const gchar * camera,
    const ExportAsk * ask, gboolean several, Part * part)
{
  gchar *why = NULL, *given;
  gint status = export_range_choose (location, camera, ask, &part->range,
      &why);

  part->camera = camera;
  if (status != 0) {
    fprintf (stderr, "rtframe-export: %s%s%s\n", camera ? camera : "",
        camera ? ": " : "", why);
    g_free (why);
    return status;
  }
  if (part->range.not_recorded)
    fprintf (stderr, "rtframe-export: note: %s%s%" G_GUINT64_FORMAT " frame "
        "numbers of the range were not recorded (dropped): not exported\n",
        camera ? camera : "", camera ? ": " : "", part->range.not_recorded);
  given = opt_output ? g_strdup (opt_output) : default_output (location,
      &part->range);
  part->out = several ? output_of_camera (given, camera) : g_strdup (given);
  g_free (given);
  return 0;
}

static void
parts_clear (Part * parts, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    export_range_clear (&parts[i].range);
    g_free (parts[i].out);
  }
}

/* An event's or take's manifest: --camera's part, or every camera's, as
 * one export */
static gint
export_take (const gchar * location, const ExportAsk * ask)
{
  GError *error = NULL;
  RtfTakeManifest *m = rtf_take_manifest_load (location, &error);
  Part *parts;
  guint i, n;
  gint status = 0;

  if (m == NULL) {
    fprintf (stderr, "rtframe-export: %s\n", error->message);
    g_error_free (error);
    return 1;
  }
  n = opt_camera ? 1 : m->cameras->len;
  parts = g_new0 (Part, n);
  for (i = 0; i < n && status == 0; i++)
    status = prepare (location, opt_camera ? opt_camera :
        ((const RtfTakeCamera *) g_ptr_array_index (m->cameras, i))->name,
        ask, n > 1, &parts[i]);
  if (status == 0)
    status = export_parts (location, parts, n);
  parts_clear (parts, n);
  g_free (parts);
  rtf_take_manifest_free (m);
  return status;
}

int
main (int argc, char **argv)
{
  ExportAsk ask;
  const gchar *bad;
  gchar *why = NULL;

  if (!parse (&argc, &argv))
    return 2;
  if (opt_version) {
    rtf_print_version ("rtframe-export");
    return 0;
  }
  if (argc != 2)
    return usage_error ("usage: rtframe-export [OPTION...] --format FORMAT "
        "RECORDING");
  if ((bad = check_options (&ask)) != NULL)
    return usage_error (bad);
  if (opt_camera && !rtf_take_manifest_is_path (argv[1]))
    return usage_error ("--camera is for an event's or take's manifest "
        "(.rtftake)");
  gst_init (NULL, NULL);
  if ((why = missing_elements ()) != NULL) {
    usage_error (why);
    g_free (why);
    return 2;
  }
  signal (SIGINT, on_signal);
  signal (SIGTERM, on_signal);
  if (rtf_take_manifest_is_path (argv[1]))
    return export_take (argv[1], &ask);
  {
    Part part = { 0 };
    gint status = prepare (argv[1], NULL, &ask, FALSE, &part);

    if (status == 0)
      status = export_parts (argv[1], &part, 1);
    parts_clear (&part, 1);
    return status;
  }
}
