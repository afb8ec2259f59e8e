/* rtframe: a take's manifest - one event or take of a rig, every camera's
 * part of it: a key file rtframe-record writes beside the recordings
 * (DIR/<id>.rtftake) when the event or take starts and again when every
 * camera has told its end, so that the readers find it as one thing by
 * its id:
 *
 *   [rtframe-take]
 *   version=1
 *   id=event-12
 *   kind=event
 *   utc=2026-12-07T06:33:27.527Z
 *   running-time=1990215506
 *   stop-running-time=3299418476
 *   label=lap 3
 *   notes=sensor 2 fogged;
 *   state=complete
 *   cameras=left;center;
 *
 *   [camera left]
 *   files=left-event-00003.raw;left-event-00004.raw;
 *   first-frame=123
 *   last-frame=160
 *   frames=38
 *   first-running-time=1489000000
 *   last-running-time=3289000000
 *   state=stopped
 *
 * files: the camera's files of it in order, relative to the manifest's
 * directory (or absolute when elsewhere), written as rtf-keyfile-paths.h
 * says; frames first-frame .. last-frame of them are the take's (a file
 * may hold frames of a take before or after, when no new file began with
 * it).  state: "recording" while it may still be going (or its recorder
 * died: the files say what there is), "complete" when every camera told
 * its end; a camera's "stopped" once it did. */
#ifndef __RTF_TAKE_MANIFEST_H__
#define __RTF_TAKE_MANIFEST_H__

#include <glib.h>

G_BEGIN_DECLS

#define RTF_TAKE_MANIFEST_SUFFIX ".rtftake"
#define RTF_TAKE_MANIFEST_VERSION 1
/* The largest manifest read or written: a take over a thousand files of
 * a few cameras */
#define RTF_TAKE_MANIFEST_MAX_BYTES (1024 * 1024)
/* A frame number or running time not known */
#define RTF_TAKE_NONE G_MAXUINT64

typedef struct
{
  gchar *name;                  /* the camera's: letters, digits, '-', '_' */
  gchar **files;                /* NULL-terminated, as written */
  guint64 first_frame, last_frame, frames;
  guint64 first_running_time, last_running_time;
  gboolean stopped;             /* it told the take's end */
} RtfTakeCamera;

typedef struct
{
  gchar *id;                    /* [A-Za-z0-9._-], as the sinks carry it */
  gchar *kind;                  /* "event" or "take" */
  gchar *utc;                   /* when it was commanded */
  guint64 running_time, stop_running_time;      /* stop NONE: none asked */
  gchar *label;                 /* or NULL */
  gchar **notes;                /* NULL-terminated (may be empty) */
  gboolean complete;
  GPtrArray *cameras;           /* RtfTakeCamera */
} RtfTakeManifest;

RtfTakeManifest *rtf_take_manifest_new (const gchar * id, const gchar * kind);
void rtf_take_manifest_free (RtfTakeManifest * m);
RtfTakeCamera *rtf_take_manifest_add_camera (RtfTakeManifest * m,
    const gchar * name);

gchar *rtf_take_manifest_to_text (const RtfTakeManifest * m);
/* NULL with *error (G_FILE_ERROR_INVAL) saying what is wrong */
RtfTakeManifest *rtf_take_manifest_parse (const gchar * text, gsize len,
    GError ** error);
/* Read through rtf_safe_open(): never a link, a FIFO or a device */
RtfTakeManifest *rtf_take_manifest_load (const gchar * path, GError ** error);
gboolean rtf_take_manifest_is_path (const gchar * path);
/* Whether the file open at fd begins as a take's manifest does (a pread;
 * never blocks): never replaced by a recording or an export */
gboolean rtf_take_manifest_probe (gint fd);
/* A camera's file as a path a reader opens: relative ones from dir */
gchar *rtf_take_manifest_file_path (const gchar * manifest_path,
    const gchar * file);
/* The camera of that name, or NULL */
const RtfTakeCamera *rtf_take_manifest_camera (const RtfTakeManifest * m,
    const gchar * name);

/* Whether id is one a sink and a manifest's name take */
gboolean rtf_take_id_is_valid (const gchar * id);

G_END_DECLS
#endif /* __RTF_TAKE_MANIFEST_H__ */
