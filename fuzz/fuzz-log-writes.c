/* rtframe fuzz target: a dm-log-writes log (tests/powercut/replay-log's
 * input, copied out of a guest that may have died mid-write).  Whatever
 * the bytes, indexing must not crash or read out of bounds; a log it
 * accepts is self-consistent (its entries one after the other inside the
 * log, marks where the flag says, the points in order); and its replay
 * onto a sparse file does what each entry says: a write's bytes land
 * where its sector says, a discard leaves zeros, and a target one byte
 * too small is refused before anything is written.  Replays whose target
 * would pass 64 MiB are only refused, never made. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rtf-log-writes.h"

#define MAX_TARGET (64 * 1024 * 1024)

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static gint
new_file (const gchar * name, const uint8_t * data, gsize size)
{
  gint fd = memfd_create (name, MFD_CLOEXEC);
  gsize done = 0;

  g_assert (fd >= 0);
  while (done < size) {
    gssize n = write (fd, data + done, size - done);

    g_assert (n > 0);
    done += n;
  }
  return fd;
}

static void
check_index (const RtfLogWrites * log, gsize size)
{
  guint64 i, at = log->sectorsize, n_points = 0;
  GArray *points = rtf_log_writes_points (log);

  for (i = 0; i < log->n_entries; i++) {
    const RtfLogEntry *e = &log->entries[i];
    guint64 bytes = rtf_log_entry_data_bytes (log, e);

    g_assert (e->index == i);
    g_assert (e->data_offset == at + log->sectorsize);
    g_assert (e->data_offset <= size && bytes <= size - e->data_offset);
    g_assert ((e->mark != NULL) == rtf_log_entry_is_mark (e));
    g_assert (e->mark == NULL || strlen (e->mark) + RTF_LOG_WRITES_ENTRY_BYTES
        <= log->sectorsize);
    g_assert ((e->flags & ~(guint64) RTF_LOG_KNOWN_FLAGS) == 0);
    n_points += rtf_log_entry_is_point (e);
    at = e->data_offset + bytes;
  }
  g_assert (log->end == at);
  g_assert (points->len == n_points);
  for (i = 0; i < points->len; i++) {
    guint64 p = g_array_index (points, guint64, i);

    g_assert (p < log->n_entries && rtf_log_entry_is_point (&log->entries[p]));
    g_assert (i == 0 || p > g_array_index (points, guint64, i - 1));
  }
  g_array_unref (points);
}

/* The target's bytes at e's range: the log's data, or zeros; read a
 * piece at a time (a discard may cover the whole 64 MiB) */
static void
check_applied (const RtfLogWrites * log, const RtfLogEntry * e, gint fd,
    const uint8_t * data)
{
  static const guint8 zeros[65536];
  guint8 got[sizeof (zeros)];
  guint64 len = e->nr_sectors * log->sectorsize, done;

  if (rtf_log_entry_is_mark (e))
    return;
  for (done = 0; done < len; done += sizeof (got)) {
    gsize n = MIN (len - done, sizeof (got));
    const guint8 *want = rtf_log_entry_is_discard (e) ? zeros :
        data + e->data_offset + done;

    g_assert (pread (fd, got, n, e->sector * log->sectorsize + done) ==
        (gssize) n);
    g_assert (memcmp (got, want, n) == 0);
  }
}

static void
replay (const RtfLogWrites * log, const uint8_t * data)
{
  guint64 need = rtf_log_writes_extent (log, 0, log->n_entries - 1), i;
  gint fd = memfd_create ("target", MFD_CLOEXEC);
  GError *error = NULL;

  g_assert (fd >= 0);
  if (need > 0) {
    g_assert (ftruncate (fd, MIN (need - 1, MAX_TARGET)) == 0);
    g_assert (!rtf_log_writes_apply_range (log, 0, log->n_entries - 1, fd,
            &error));
    g_assert (g_error_matches (error, RTF_LOG_WRITES_ERROR,
            RTF_LOG_WRITES_ERROR_TARGET));
    g_clear_error (&error);
  }
  if (need <= MAX_TARGET) {
    g_assert (ftruncate (fd, need) == 0);
    for (i = 0; i < log->n_entries; i++) {
      if (!rtf_log_writes_apply (log, i, fd, &error))
        g_error ("%s", error->message);
      check_applied (log, &log->entries[i], fd, data);
    }
  }
  close (fd);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gint fd = new_file ("log", data, size);
  GError *error = NULL;
  RtfLogWrites *log = rtf_log_writes_open_fd (fd, "log", &error);

  if (log == NULL) {
    g_assert (g_error_matches (error, RTF_LOG_WRITES_ERROR,
            RTF_LOG_WRITES_ERROR_FORMAT));
    g_assert (g_str_has_prefix (error->message, "log: "));
    g_error_free (error);
  } else {
    check_index (log, size);
    if (log->n_entries > 0)
      replay (log, data);
    rtf_log_writes_free (log);
  }
  close (fd);
  return 0;
}
