/* Unit tests of the dm-log-writes reader (rtf-log-writes.h): logs laid out
 * here as the kernel writes them, with sectorsize 512 and 4096, indexed
 * and replayed onto sparse files; each replay is compared with the image
 * the test computes itself from what it logged.  Every malformed log is
 * refused with the entry and byte at fault. */
#include "rtf-log-writes.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the logged device, in units of its sectorsize */
#define DEV_SECTORS 64

static gchar *tmpdir;

/* ---- logs made by hand ------------------------------------------------- */

typedef struct
{
  guint32 ss;
  GByteArray *log;
  GArray *headers;              /* guint64: each entry's header offset */
  guint8 *image;                /* the device after the entries so far */
  GPtrArray *images;            /* a copy of it after each entry */
} Fake;

static void
put_le64 (guint8 * p, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, sizeof (v));
}

static guint64
fake_size (const Fake * f)
{
  return (guint64) f->ss * DEV_SECTORS;
}

/* A byte of entry i's data: never zero, so a discard shows */
static guint8
fill_byte (guint64 i, guint64 pos)
{
  return (guint8) ((i * 131 + pos + pos / 509) % 251 + 1);
}

static Fake *
fake_new (guint32 ss)
{
  Fake *f = g_new0 (Fake, 1);
  guint8 *super = g_malloc0 (ss);

  f->ss = ss;
  put_le64 (super, RTF_LOG_WRITES_MAGIC);
  put_le64 (super + 8, RTF_LOG_WRITES_VERSION);
  super[24] = ss & 0xff;
  super[25] = (ss >> 8) & 0xff;
  f->log = g_byte_array_new ();
  g_byte_array_append (f->log, super, ss);
  g_free (super);
  f->headers = g_array_new (FALSE, FALSE, sizeof (guint64));
  f->image = g_malloc0 (fake_size (f));
  f->images = g_ptr_array_new_with_free_func (g_free);
  return f;
}

static void
fake_free (Fake * f)
{
  g_byte_array_unref (f->log);
  g_array_unref (f->headers);
  g_free (f->image);
  g_ptr_array_unref (f->images);
  g_free (f);
}

static guint64
fake_count (const Fake * f)
{
  return f->headers->len;
}

static void
fake_set_nr_entries (Fake * f, guint64 n)
{
  put_le64 (f->log->data + 16, n);
}

/* A write's data after its header, and the same bytes on the image */
static void
fake_data (Fake * f, guint64 i, guint64 sector, guint64 nr)
{
  gsize len = nr * f->ss, pos;
  guint8 *data = g_malloc (len);

  for (pos = 0; pos < len; pos++)
    data[pos] = fill_byte (i, pos);
  g_byte_array_append (f->log, data, len);
  memcpy (f->image + sector * f->ss, data, len);
  g_free (data);
}

/* Appends an entry as the kernel lays it out, and what it does to the
 * device; nr_entries follows it */
static void
fake_entry (Fake * f, guint64 flags, guint64 sector, guint64 nr,
    const gchar * mark)
{
  guint64 i = fake_count (f), at = f->log->len;
  guint8 *unit = g_malloc0 (f->ss);

  put_le64 (unit, sector);
  put_le64 (unit + 8, nr);
  put_le64 (unit + 16, flags);
  if (mark != NULL) {
    put_le64 (unit + 24, strlen (mark));
    memcpy (unit + 32, mark, strlen (mark));
  }
  g_byte_array_append (f->log, unit, f->ss);
  g_free (unit);
  g_array_append_val (f->headers, at);
  if (flags & RTF_LOG_DISCARD)
    memset (f->image + sector * f->ss, 0, nr * f->ss);
  else if (mark == NULL && nr > 0)
    fake_data (f, i, sector, nr);
  g_ptr_array_add (f->images, g_memdup2 (f->image, fake_size (f)));
  fake_set_nr_entries (f, fake_count (f));
}

static const guint64 scenario_points[] = { 2, 3, 4, 7, 8, 9 };

/* Plain writes, then a flush that covers them, a mark, a write with
 * FLUSH|FUA over part of the first, a discard over written data, a plain
 * write, a flush, a FUA write of the device's last sector and the mark of
 * the target's removal */
static Fake *
scenario (guint32 ss)
{
  Fake *f = fake_new (ss);

  fake_entry (f, 0, 0, 4, NULL);
  fake_entry (f, RTF_LOG_METADATA, 10, 2, NULL);
  fake_entry (f, RTF_LOG_FLUSH, 0, 0, NULL);
  fake_entry (f, RTF_LOG_MARK, 0, 0, "after-flush");
  fake_entry (f, RTF_LOG_FLUSH | RTF_LOG_FUA, 2, 4, NULL);
  fake_entry (f, RTF_LOG_DISCARD, 1, 3, NULL);
  fake_entry (f, 0, 20, 1, NULL);
  fake_entry (f, RTF_LOG_FLUSH, 0, 0, NULL);
  fake_entry (f, RTF_LOG_FUA, DEV_SECTORS - 1, 1, NULL);
  fake_entry (f, RTF_LOG_MARK, 0, 0, "dm-log-writes-end");
  return f;
}

static gchar *
write_log (const gchar * name, const guint8 * data, gsize len)
{
  gchar *path = g_build_filename (tmpdir, name, NULL);
  GError *error = NULL;

  g_file_set_contents (path, (const gchar *) data, len, &error);
  g_assert_no_error (error);
  return path;
}

static RtfLogWrites *
open_fake (const Fake * f)
{
  gchar *path = write_log ("log", f->log->data, f->log->len);
  GError *error = NULL;
  RtfLogWrites *log = rtf_log_writes_open (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (log);
  g_free (path);
  return log;
}

/* A fresh sparse file of size bytes, open for writing */
static gint
fresh_target (guint64 size)
{
  gchar *path = g_build_filename (tmpdir, "target", NULL);
  gint fd = open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, size), ==, 0);
  g_free (path);
  return fd;
}

static void
assert_target (gint fd, const guint8 * want, gsize len)
{
  guint8 *got = g_malloc (len + 1);
  struct stat st;

  g_assert_cmpint (fstat (fd, &st), ==, 0);
  g_assert_cmpuint (st.st_size, ==, len);
  g_assert_cmpint (pread (fd, got, len + 1, 0), ==, (gssize) len);
  g_assert_true (memcmp (got, want, len) == 0);
  g_free (got);
}

/* ---- the index --------------------------------------------------------- */

static void
test_index (gconstpointer data)
{
  guint32 ss = GPOINTER_TO_UINT (data);
  Fake *f = scenario (ss);
  RtfLogWrites *log = open_fake (f);
  GArray *points;
  RtfLogStats s;
  gchar text[RTF_LOG_FLAGS_TEXT];
  guint64 i;

  g_assert_cmpuint (log->sectorsize, ==, ss);
  g_assert_cmpuint (log->n_entries, ==, 10);
  g_assert_cmpuint (log->end, ==, f->log->len);
  for (i = 0; i < log->n_entries; i++) {
    g_assert_cmpuint (log->entries[i].index, ==, i);
    g_assert_cmpuint (log->entries[i].data_offset, ==,
        g_array_index (f->headers, guint64, i) + ss);
  }
  g_assert_cmpuint (log->entries[4].sector, ==, 2);
  g_assert_cmpuint (log->entries[4].nr_sectors, ==, 4);
  g_assert_true (rtf_log_entry_is_flush (&log->entries[4]));
  g_assert_true (rtf_log_entry_is_fua (&log->entries[4]));
  g_assert_true (rtf_log_entry_is_discard (&log->entries[5]));
  g_assert_cmpuint (log->entries[5].nr_sectors, ==, 3);
  g_assert_cmpuint (rtf_log_entry_data_bytes (log, &log->entries[5]), ==, 0);
  g_assert_cmpuint (rtf_log_entry_data_bytes (log, &log->entries[4]), ==,
      4 * ss);
  g_assert_cmpstr (log->entries[3].mark, ==, "after-flush");
  g_assert_cmpstr (log->entries[9].mark, ==, "dm-log-writes-end");
  g_assert_null (log->entries[2].mark);
  g_assert_true (rtf_log_writes_find_mark (log, "after-flush", 0) ==
      &log->entries[3]);
  g_assert_null (rtf_log_writes_find_mark (log, "after-flush", 4));
  g_assert_null (rtf_log_writes_find_mark (log, "after", 0));

  points = rtf_log_writes_points (log);
  g_assert_cmpuint (points->len, ==, G_N_ELEMENTS (scenario_points));
  for (i = 0; i < points->len; i++)
    g_assert_cmpuint (g_array_index (points, guint64, i), ==,
        scenario_points[i]);
  g_array_unref (points);

  rtf_log_writes_stats (log, 0, G_MAXUINT64, &s);
  g_assert_cmpuint (s.entries, ==, 10);
  g_assert_cmpuint (s.writes, ==, 5);
  g_assert_cmpuint (s.flushes, ==, 3);
  g_assert_cmpuint (s.fua, ==, 2);
  g_assert_cmpuint (s.discards, ==, 1);
  g_assert_cmpuint (s.marks, ==, 2);
  g_assert_cmpuint (s.data_bytes, ==, 12 * ss);
  g_assert_cmpuint (rtf_log_writes_extent (log, 0, 7), ==, 21 * ss);
  g_assert_cmpuint (rtf_log_writes_extent (log, 0, 9), ==, DEV_SECTORS * ss);
  g_assert_cmpuint (rtf_log_writes_extent (log, 2, 3), ==, 0);

  rtf_log_flags_text (log->entries[4].flags, text);
  g_assert_cmpstr (text, ==, "FU");
  rtf_log_flags_text (log->entries[0].flags, text);
  g_assert_cmpstr (text, ==, "-");
  rtf_log_flags_text (RTF_LOG_KNOWN_FLAGS, text);
  g_assert_cmpstr (text, ==, "FUDMm");
  rtf_log_writes_free (log);
  fake_free (f);
}

/* The kernel rewrites nr_entries only at FUA writes and marks: entries
 * after the count are on the log but not read */
static void
test_uncounted_tail (gconstpointer data)
{
  Fake *f = scenario (GPOINTER_TO_UINT (data));
  RtfLogWrites *log;

  fake_set_nr_entries (f, 5);
  log = open_fake (f);
  g_assert_cmpuint (log->n_entries, ==, 5);
  g_assert_cmpuint (log->end, ==, g_array_index (f->headers, guint64, 5));
  rtf_log_writes_free (log);
  fake_free (f);
}

static void
test_empty (gconstpointer data)
{
  Fake *f = fake_new (GPOINTER_TO_UINT (data));
  RtfLogWrites *log = open_fake (f);
  GError *error = NULL;
  GArray *points = rtf_log_writes_points (log);
  gint fd = fresh_target (4096);

  g_assert_cmpuint (log->n_entries, ==, 0);
  g_assert_cmpuint (points->len, ==, 0);
  g_assert_false (rtf_log_writes_apply_range (log, 0, 0, fd, &error));
  g_assert_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_RANGE);
  g_clear_error (&error);
  close (fd);
  g_array_unref (points);
  rtf_log_writes_free (log);
  fake_free (f);
}

/* ---- replaying --------------------------------------------------------- */

/* Every entry (the points among them) onto a fresh file: the image the
 * test computed; the same in two parts, and one entry at a time */
static void
test_replay (gconstpointer data)
{
  Fake *f = scenario (GPOINTER_TO_UINT (data));
  RtfLogWrites *log = open_fake (f);
  const guint8 *last = g_ptr_array_index (f->images, 9);
  GError *error = NULL;
  guint64 k, i;
  gint fd;

  for (k = 0; k < log->n_entries; k++) {
    fd = fresh_target (fake_size (f));
    g_assert_true (rtf_log_writes_apply_range (log, 0, k, fd, &error));
    g_assert_no_error (error);
    assert_target (fd, g_ptr_array_index (f->images, k), fake_size (f));
    if (k + 1 < log->n_entries) {
      g_assert_true (rtf_log_writes_apply_range (log, k + 1, 9, fd, &error));
      assert_target (fd, last, fake_size (f));
    }
    close (fd);
  }
  fd = fresh_target (fake_size (f));
  for (i = 0; i < log->n_entries; i++)
    g_assert_true (rtf_log_writes_apply (log, i, fd, &error));
  assert_target (fd, last, fake_size (f));
  close (fd);
  rtf_log_writes_free (log);
  fake_free (f);
}

/* A write larger than a replay's chunk (1 MiB) arrives whole */
static void
test_replay_large (gconstpointer data)
{
  guint32 ss = GPOINTER_TO_UINT (data);
  Fake *f = fake_new (ss);
  guint64 nr = (3 * 1024 * 1024 + 3 * ss) / ss;
  RtfLogWrites *log;
  GError *error = NULL;
  guint8 *want = g_malloc0 ((nr + 5) * ss);
  gint fd;

  /* the image is only DEV_SECTORS long: the data is checked here */
  fake_entry (f, RTF_LOG_MARK, 0, 0, "start");
  fake_set_nr_entries (f, 2);
  {
    guint8 unit[65536] = { 0 };
    gsize pos;

    put_le64 (unit, 5);
    put_le64 (unit + 8, nr);
    put_le64 (unit + 16, RTF_LOG_FUA);
    g_byte_array_append (f->log, unit, ss);
    for (pos = 0; pos < nr * ss; pos++)
      want[5 * ss + pos] = fill_byte (1, pos);
    g_byte_array_append (f->log, want + 5 * ss, nr * ss);
  }
  log = open_fake (f);
  fd = fresh_target ((nr + 5) * ss);
  g_assert_true (rtf_log_writes_apply_range (log, 0, 1, fd, &error));
  g_assert_no_error (error);
  assert_target (fd, want, (nr + 5) * ss);
  close (fd);
  g_free (want);
  rtf_log_writes_free (log);
  fake_free (f);
}

static void
test_target_refused (gconstpointer data)
{
  Fake *f = scenario (GPOINTER_TO_UINT (data));
  RtfLogWrites *log = open_fake (f);
  guint8 *zeros = g_malloc0 (fake_size (f));
  GError *error = NULL;
  gint fd = fresh_target (fake_size (f) - 1), null_fd;

  /* too small: refused before anything is written */
  g_assert_false (rtf_log_writes_apply_range (log, 0, 9, fd, &error));
  g_assert_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_TARGET);
  g_assert_nonnull (strstr (error->message, "at least"));
  g_clear_error (&error);
  assert_target (fd, zeros, fake_size (f) - 1);
  /* what it needs is enough */
  g_assert_true (rtf_log_writes_apply_range (log, 0, 7, fd, &error));
  close (fd);

  null_fd = open ("/dev/null", O_WRONLY | O_CLOEXEC);
  g_assert_false (rtf_log_writes_apply_range (log, 0, 9, null_fd, &error));
  g_assert_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_TARGET);
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);
  close (null_fd);

  fd = fresh_target (fake_size (f));
  g_assert_false (rtf_log_writes_apply_range (log, 3, 2, fd, &error));
  g_assert_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_RANGE);
  g_clear_error (&error);
  g_assert_false (rtf_log_writes_apply_range (log, 0, 10, fd, &error));
  g_assert_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_RANGE);
  g_clear_error (&error);
  g_assert_false (rtf_log_writes_apply (log, G_MAXUINT64, fd, &error));
  g_assert_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_RANGE);
  g_clear_error (&error);
  close (fd);
  g_free (zeros);
  rtf_log_writes_free (log);
  fake_free (f);
}

/* A log cut short after it was indexed: the replay says where */
static void
test_log_shrunk (gconstpointer data)
{
  Fake *f = scenario (GPOINTER_TO_UINT (data));
  RtfLogWrites *log = open_fake (f);
  gchar *path = g_build_filename (tmpdir, "log", NULL);
  GError *error = NULL;
  gint fd = fresh_target (fake_size (f));

  g_assert_cmpint (truncate (path, log->entries[4].data_offset + 1), ==, 0);
  g_assert_true (rtf_log_writes_apply_range (log, 0, 3, fd, &error));
  g_assert_false (rtf_log_writes_apply_range (log, 4, 4, fd, &error));
  g_assert_error (error, RTF_LOG_WRITES_ERROR, RTF_LOG_WRITES_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "entry 4"));
  g_assert_nonnull (strstr (error->message, "the log ended"));
  g_clear_error (&error);
  close (fd);
  g_free (path);
  rtf_log_writes_free (log);
  fake_free (f);
}

/* ---- malformed logs ---------------------------------------------------- */

/* The log of len bytes is refused with code, its message holding every
 * text given (NULL-terminated) */
static void
expect_refused (const guint8 * data, gsize len, gint code, ...)
{
  gchar *path = write_log ("bad", data, len);
  GError *error = NULL;
  RtfLogWrites *log = rtf_log_writes_open (path, &error);
  const gchar *needle;
  va_list ap;

  g_assert_null (log);
  g_assert_error (error, RTF_LOG_WRITES_ERROR, code);
  g_assert_nonnull (strstr (error->message, path));
  va_start (ap, code);
  while ((needle = va_arg (ap, const gchar *)) != NULL)
    if (strstr (error->message, needle) == NULL)
      g_error ("\"%s\" not in \"%s\"", needle, error->message);
  va_end (ap);
  g_test_message ("%s", error->message);
  g_error_free (error);
  g_free (path);
}

/* Where entry i's header is, as the messages say it */
static gchar *
at_entry (const Fake * f, guint64 i)
{
  return g_strdup_printf ("entry %" G_GUINT64_FORMAT " at byte %"
      G_GUINT64_FORMAT ":", i, g_array_index (f->headers, guint64, i));
}

/* The scenario's log with field (8 bytes at byte off of entry i's
 * header) set to v, refused with the texts given */
static void
expect_field_refused (guint32 ss, guint64 i, guint off, guint64 v,
    const gchar * why)
{
  Fake *f = scenario (ss);
  gchar *where = at_entry (f, i);

  put_le64 (f->log->data + g_array_index (f->headers, guint64, i) + off, v);
  expect_refused (f->log->data, f->log->len, RTF_LOG_WRITES_ERROR_FORMAT,
      where, why, NULL);
  g_free (where);
  fake_free (f);
}

static void
test_bad_super (gconstpointer data)
{
  guint32 ss = GPOINTER_TO_UINT (data);
  Fake *f = scenario (ss);
  guint8 *b = g_memdup2 (f->log->data, f->log->len);
  static const guint32 bad_ss[] = { 0, 1, 256, 511, 1000, 1536, 131072,
    0x80000000u
  };
  guint i;

  b[0] ^= 1;
  expect_refused (b, f->log->len, RTF_LOG_WRITES_ERROR_FORMAT, "byte 0:",
      "magic", NULL);
  b[0] ^= 1;
  put_le64 (b + 8, 2);
  expect_refused (b, f->log->len, RTF_LOG_WRITES_ERROR_FORMAT, "byte 8:",
      "version 2", NULL);
  put_le64 (b + 8, 1);
  for (i = 0; i < G_N_ELEMENTS (bad_ss); i++) {
    guint32 v = GUINT32_TO_LE (bad_ss[i]);
    gchar *text = g_strdup_printf ("sectorsize %u,", bad_ss[i]);

    memcpy (b + 24, &v, 4);
    expect_refused (b, f->log->len, RTF_LOG_WRITES_ERROR_FORMAT, "byte 24:",
        text, NULL);
    g_free (text);
  }
  memcpy (b, f->log->data, f->log->len);
  put_le64 (b + 16, G_MAXUINT64);
  expect_refused (b, f->log->len, RTF_LOG_WRITES_ERROR_FORMAT, "byte 16:",
      "nr_entries 18446744073709551615", NULL);
  expect_refused (b, 27, RTF_LOG_WRITES_ERROR_FORMAT, "27 bytes",
      "too short", NULL);
  expect_refused (b, 0, RTF_LOG_WRITES_ERROR_FORMAT, "too short", NULL);
  g_free (b);
  fake_free (f);
}

/* nr_entries one more than the log holds: the entry after the last runs
 * past the end */
static void
test_bad_count (gconstpointer data)
{
  Fake *f = scenario (GPOINTER_TO_UINT (data));
  gchar *where = g_strdup_printf ("entry 10 at byte %u:", f->log->len);

  fake_set_nr_entries (f, 11);
  expect_refused (f->log->data, f->log->len, RTF_LOG_WRITES_ERROR_FORMAT,
      where, "counts more entries than the log holds", NULL);
  g_free (where);
  fake_free (f);
}

/* Cut anywhere, the log is refused (its nr_entries counts them all): at
 * and around every unit's edge and the fields of a header */
static void
test_truncated (gconstpointer data)
{
  guint32 ss = GPOINTER_TO_UINT (data);
  Fake *f = scenario (ss);
  static const guint near[] = { 0, 1, 8, 27, 28, 31, 32, 33, 40 };
  gsize unit, j;

  for (unit = 0; unit * ss < f->log->len; unit++)
    for (j = 0; j < G_N_ELEMENTS (near) + 1; j++) {
      gsize len = unit * ss + (j < G_N_ELEMENTS (near) ? near[j] : ss - 1);

      if (len < f->log->len)
        expect_refused (f->log->data, len, RTF_LOG_WRITES_ERROR_FORMAT, NULL);
    }
  fake_free (f);
}

static void
test_bad_entries (gconstpointer data)
{
  guint32 ss = GPOINTER_TO_UINT (data);

  /* its data past the end: the last write (entry 8) asks for more */
  expect_field_refused (ss, 8, 8, 3, "runs past the end of the log");
  expect_field_refused (ss, 0, 8, G_MAXUINT64, "runs past the end");
  expect_field_refused (ss, 3, 16, RTF_LOG_MARK | (1u << 5),
      "unknown flag bits 0x20");
  expect_field_refused (ss, 0, 16, G_GUINT64_CONSTANT (1) << 63,
      "unknown flag bits 0x8000000000000000");
  /* a discard of an absurd size, a write at an absurd sector */
  expect_field_refused (ss, 5, 8, G_MAXUINT64, "reach past the largest");
  expect_field_refused (ss, 5, 8, G_MAXINT64 / ss, "reach past the largest");
  expect_field_refused (ss, 6, 0, G_MAXINT64 / ss, "reach past the largest");
  expect_field_refused (ss, 3, 24, ss - 31, "does not fit its unit");
  expect_field_refused (ss, 3, 24, G_MAXUINT64, "does not fit its unit");
  expect_field_refused (ss, 3, 8, 1, "a mark with nr_sectors 1");
  expect_field_refused (ss, 9, 16, RTF_LOG_MARK | RTF_LOG_FUA,
      "a mark with other flags");
  expect_field_refused (ss, 6, 24, 100, "inline data");
}

/* The longest text a mark holds, and a mark's text read to its length */
static void
test_long_mark (gconstpointer data)
{
  guint32 ss = GPOINTER_TO_UINT (data);
  Fake *f = fake_new (ss);
  gchar *text = g_strnfill (ss - RTF_LOG_WRITES_ENTRY_BYTES, 'x');
  RtfLogWrites *log;

  fake_entry (f, RTF_LOG_MARK, 0, 0, text);
  fake_entry (f, RTF_LOG_MARK, 0, 0, "");
  log = open_fake (f);
  g_assert_cmpstr (log->entries[0].mark, ==, text);
  g_assert_cmpstr (log->entries[1].mark, ==, "");
  g_assert_true (rtf_log_writes_find_mark (log, "", 0) == &log->entries[1]);
  rtf_log_writes_free (log);
  g_free (text);
  fake_free (f);
}

static void
add (const gchar * name, GTestDataFunc func)
{
  static const guint32 sizes[] = { 512, 4096 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    gchar *path = g_strdup_printf ("/log-writes/%s/%u", name, sizes[i]);

    g_test_add_data_func (path, GUINT_TO_POINTER (sizes[i]), func);
    g_free (path);
  }
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  gint status;
  gchar *cmd;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("rtf-log-writes-XXXXXX", &error);
  g_assert_no_error (error);
  add ("index", test_index);
  add ("uncounted-tail", test_uncounted_tail);
  add ("empty", test_empty);
  add ("replay", test_replay);
  add ("replay-large", test_replay_large);
  add ("target-refused", test_target_refused);
  add ("log-shrunk", test_log_shrunk);
  add ("bad-super", test_bad_super);
  add ("bad-count", test_bad_count);
  add ("truncated", test_truncated);
  add ("bad-entries", test_bad_entries);
  add ("long-mark", test_long_mark);
  status = g_test_run ();
  cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", tmpdir);
  g_free (cmd);
  g_free (tmpdir);
  return status;
}
