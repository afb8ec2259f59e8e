/* rtframe: one file of a recording identified before anything is read
 * from it - a regular file (never a link, a FIFO or a device), not being
 * written, whose index names it, and whose mark (where it has one) names
 * the same recording (rtf-recording-file.h) */
#include "rtf-recording-file.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

const gchar *
rtf_file_state_name (RtfFileState state)
{
  static const gchar *names[] = {
    "ok", "never written", "no index", "index of another file",
    "not a regular file", "unreadable", "not proven the recording's"
  };

  return names[state];
}

/* The name a hidden prepared file hides (rtf-output.c hidden_name():
 * ".<name>.<8 hex digits>.rtfprep"), or NULL */
gchar *
rtf_recording_hidden_of (const gchar * name)
{
  gsize len = strlen (name), i;
  const gsize tail = 1 + 8 + strlen (".rtfprep");

  if (name[0] != '.' || len < 1 + tail + 1
      || !g_str_has_suffix (name, ".rtfprep") || name[len - tail] != '.')
    return NULL;
  for (i = len - tail + 1; i < len - strlen (".rtfprep"); i++)
    if (!g_ascii_isxdigit (name[i]))
      return NULL;
  return g_strndup (name + 1, len - tail - 1);
}

void
rtf_recording_file_set_state (RtfRecordingFile * f, RtfFileState state,
    gchar * why)
{
  f->state = state;
  g_free (f->why);
  f->why = why;
}

/* The index is f's: it names f's file and number, and f's mark (if it has
 * one) names the index's recording.  Sets f->proof, or the state. */
static void
pair (RtfRecordingFile * f, guint64 number)
{
  const RtfIndexHeader *h = &f->index->header;
  gchar *base = g_path_get_basename (f->path);
  /* a prepared file's index names the name it was prepared for */
  gchar *hides = rtf_recording_hidden_of (base);

  if (number != G_MAXUINT64 && h->file_number != number) {
    rtf_recording_file_set_state (f, RTF_FILE_FOREIGN_INDEX,
        g_strdup_printf ("its index is " "of file number %" G_GUINT64_FORMAT
            ", not %" G_GUINT64_FORMAT, h->file_number, number));
  } else if (h->version == RTF_INDEX_VERSION_1) {
    f->proof = RTF_PROOF_LEGACY;
  } else if (g_strcmp0 (h->data_name, base) != 0
      && (hides == NULL || g_strcmp0 (h->data_name, hides) != 0)) {
    rtf_recording_file_set_state (f, RTF_FILE_FOREIGN_INDEX,
        g_strdup_printf ("its index is " "of file \"%s\"", h->data_name));
  } else if (!f->has_mark) {
    f->proof = RTF_PROOF_NAME;
  } else if (rtf_recording_id_equal (&f->mark_id, &h->recording_id)
      && f->mark_number == h->file_number) {
    f->proof = RTF_PROOF_MARK;
  } else {
    gchar *a = rtf_recording_id_to_string (&f->mark_id);
    gchar *b = rtf_recording_id_to_string (&h->recording_id);

    rtf_recording_file_set_state (f, RTF_FILE_FOREIGN_INDEX,
        g_strdup_printf ("the file was " "written as file %" G_GUINT64_FORMAT
            " of recording %s, its " "index is of file %" G_GUINT64_FORMAT
            " of recording %s", f->mark_number, a, h->file_number, b));
    g_free (a);
    g_free (b);
  }
  g_free (hides);
  g_free (base);
}

/* A file with the sink's mark, more than one name and no index: what a
 * power cut in the middle of a ring's keep leaves in a recording's
 * directory (the data is linked before its index, and the cut kept the
 * first link only).  Its frames are whole at the ring's name, with the
 * index there, until the ring deletes that name - never before the
 * ring has linked the file again, so they are not lost. */
static gchar *
kept_alone (const RtfRecordingFile * f)
{
  return g_strdup_printf ("its index %s does not exist, and the file has %"
      G_GUINT64_FORMAT " names: a file a ring kept whose index link was "
      "lost (a power cut while it was kept: the data is linked first); its "
      "frames and its index should be at the ring's name of the same file "
      "(the ring deletes that name only after both links) - link that "
      "index here as %s to read it with this recording", f->index_path,
      (guint64) f->data_st.st_nlink, f->index_path);
}

/* Reads and pairs f's index (data_fd: its data file, open) */
static void
identify_index (RtfRecordingFile * f, guint64 number)
{
  struct stat ist;
  gchar *why = NULL;
  GError *err = NULL;
  gint fd = rtf_safe_open (f->index_path, FALSE, &ist, &why);

  if (fd < 0) {
    f->index_absent = errno == ENOENT;
    /* (no index at all: recorded with index=false - nothing says which
     * of its bytes were reported written) */
    if (errno == ENOENT && f->data_size == 0)
      rtf_recording_file_set_state (f, RTF_FILE_NEVER_WRITTEN, NULL);
    else if (errno == ENOENT && f->has_mark && f->data_st.st_nlink > 1)
      rtf_recording_file_set_state (f, RTF_FILE_NO_INDEX, kept_alone (f));
    else
      rtf_recording_file_set_state (f, RTF_FILE_NO_INDEX,
          g_strdup_printf ("its index %s %s", f->index_path,
              errno == ENOENT ? "does not exist" : why));
    g_free (why);
    return;
  }
  f->index_st = ist;
  f->index_empty = ist.st_size == 0;
  /* a writer holds its index locked too; after a kill the kernel may let
   * the data file go before the index (io_uring's last index write still
   * ending): a file whose index is held is in use as well (torture seed
   * 0xa8d2ff4ed6c23566: rtframe-recover found the data free, then could
   * not cut the index).  The probe's shared lock goes at once: held while
   * the index is read, it made a writer's exclusive lock of that index
   * (a new take naming its file over an old take's) fail. */
  if (!f->in_use && rtf_lock (fd, FALSE) == EWOULDBLOCK)
    f->in_use = TRUE;
  else
    (void) flock (fd, LOCK_UN);
  if (ist.st_size == 0 && f->data_size == 0) {
    close (fd);
    rtf_recording_file_set_state (f, RTF_FILE_NEVER_WRITTEN, NULL);
    return;
  }
  f->index = rtf_index_read (fd, f->data_size, &err);
  close (fd);
  if (f->index == NULL) {
    rtf_recording_file_set_state (f, RTF_FILE_NO_INDEX,
        g_strdup_printf ("its index %s: %s", f->index_path, err->message));
    g_clear_error (&err);
    return;
  }
  pair (f, number);
  if (f->state != RTF_FILE_OK) {
    g_clear_pointer (&f->index, rtf_index_free);
    return;
  }
  rtf_index_walk (f->index, f->data_size, &f->walk);
}

void
rtf_recording_file_identify (RtfRecordingFile * f, const gchar * path,
    guint64 number)
{
  struct stat st;
  gchar *why = NULL;
  gint fd;

  memset (f, 0, sizeof (*f));
  f->path = g_strdup (path);
  f->index_path = rtf_index_path (path);
  f->number = number == G_MAXUINT64 ? 0 : number;
  fd = rtf_safe_open (path, FALSE, &st, &why);
  if (fd < 0) {
    rtf_recording_file_set_state (f, errno == ELOOP
        || errno == EINVAL ? RTF_FILE_NOT_REGULAR : RTF_FILE_UNREADABLE, why);
    return;
  }
  f->data_st = st;
  f->data_size = st.st_size;
  /* a writer holds an exclusive lock from open to close */
  f->in_use = rtf_lock (fd, FALSE) == EWOULDBLOCK;
  errno = 0;
  f->has_mark = rtf_file_mark_get (fd, &f->mark_id, &f->mark_number);
  f->no_marks = !f->has_mark && (errno == ENOTSUP || errno == EOPNOTSUPP);
  close (fd);
  if (f->has_mark && number != G_MAXUINT64 && f->mark_number != number) {
    rtf_recording_file_set_state (f, RTF_FILE_FOREIGN_INDEX,
        g_strdup_printf ("the file was " "written as file %" G_GUINT64_FORMAT
            " of a recording, not %" G_GUINT64_FORMAT, f->mark_number, number));
    return;
  }
  identify_index (f, number);
}

void
rtf_recording_file_clear (RtfRecordingFile * f)
{
  g_clear_pointer (&f->path, g_free);
  g_clear_pointer (&f->index_path, g_free);
  g_clear_pointer (&f->why, g_free);
  g_clear_pointer (&f->index, rtf_index_free);
  rtf_index_walk_clear (&f->walk);
}

gint
rtf_recording_file_reopen (const RtfRecordingFile * f, gboolean index,
    gboolean writable, gchar ** why)
{
  struct stat st;
  gint fd = rtf_safe_open (index ? f->index_path : f->path, writable, &st,
      why);

  if (fd >= 0 && !rtf_same_inode (&st, index ? &f->index_st : &f->data_st)) {
    close (fd);
    *why = g_strdup ("was replaced or changed since it was checked");
    errno = ESTALE;
    return -1;
  }
  return fd;
}

gboolean
rtf_recording_leftover_holds_none (const RtfRecordingFile * f)
{
  if (f->state == RTF_FILE_NEVER_WRITTEN)
    return TRUE;
  if (f->state == RTF_FILE_NO_INDEX)
    return f->index_absent || f->index_empty;
  return f->state == RTF_FILE_OK && f->index->n_records == 0
      && f->index->file_bytes == f->index->header.header_size;
}
