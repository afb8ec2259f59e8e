/* rtframe: one file of a recording and its index while the writer fills
 * them.  The data file is written by the writer's frame writes; this keeps
 * the index records that follow them, in frame order, and finishes both. */
#include "rtf-output.h"
#include "rtf-safe-open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
init_tags (RtfOutput * o)
{
  o->reserve_tag.kind = RTF_IO_RESERVE;
  o->index_tag.kind = RTF_IO_INDEX;
  o->sync_data_tag.kind = RTF_IO_SYNC_DATA;
  o->sync_index_tag.kind = RTF_IO_SYNC_INDEX;
  o->reserve_tag.output = o->index_tag.output = o->sync_data_tag.output =
      o->sync_index_tag.output = o;
}

/* A hidden name beside path, for a file prepared while path holds
 * another: ".cam-00003.raw.3f9a01c2.rtfprep" */
static gchar *
hidden_name (const gchar * path)
{
  gchar *dir = g_path_get_dirname (path), *base = g_path_get_basename (path);
  gchar *name = g_strdup_printf (".%s.%08x.rtfprep", base, g_random_int ());
  gchar *out = g_build_filename (dir, name, NULL);

  g_free (name);
  g_free (base);
  g_free (dir);
  return out;
}

/* The directory path is in, held (O_PATH) so that what the output made
 * there can be deleted by that descriptor at the end: a directory moved
 * away mid-recording takes the output's files with it, and their path no
 * longer reaches them (torture 0x8cc4e23970e28c24: a prepared file left in
 * the moved directory).  -1 where it cannot be opened: by path then. */
static gint
open_dir_of (const gchar * path)
{
  gchar *dir = g_path_get_dirname (path);
  gint fd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

  g_free (dir);
  return fd;
}

/* Deletes path's name if it is still fd's inode (device, inode, ctime),
 * in the directory the output holds wherever it is now, else by path */
static void
unlink_own (RtfOutput * o, gint fd, const gchar * path)
{
  gchar *base = g_path_get_basename (path);
  struct stat st, now;

  if (fd >= 0 && fstat (fd, &st) == 0) {
    if (o->dir_fd < 0) {
      if (rtf_same_file (path, &st))
        (void) unlink (path);
    } else if (fstatat (o->dir_fd, base, &now, AT_SYMLINK_NOFOLLOW) == 0
        && rtf_same_inode (&now, &st)) {
      (void) unlinkat (o->dir_fd, base, 0);
    }
  }
  g_free (base);
}

/* An index already at ipath, for the file location names: used and
 * emptied only if it is an rtframe index (or an empty file) no one holds,
 * checked on the descriptor once locked */
static gint
take_index (RtfOutput * o, const gchar * ipath)
{
  struct stat st;
  gchar *why = NULL;

  o->index_fd = rtf_safe_open (ipath, TRUE, &st, &why);
  g_free (why);
  if (o->index_fd < 0)
    return errno == ELOOP ? ELOOP : EEXIST;
  if (rtf_lock (o->index_fd, TRUE) != 0)
    return EWOULDBLOCK;
  if (st.st_size > 0 && rtf_file_kind (o->index_fd) != RTF_FILE_KIND_INDEX)
    return EEXIST;
  return ftruncate (o->index_fd, 0) < 0 ? errno : 0;
}

/* Opens a new index file at ipath (O_EXCL, no link followed); with
 * replace, an rtframe index (or an empty file) already there is emptied
 * and used: the index of the file location names.  Locked like the data
 * file, for as long as it is open: a second recording into it is
 * refused, and the tools see it in use (issue 23: location=x.raw.idx
 * emptied the index of a live recording of x.raw). */
static gint
open_index (RtfOutput * o, const gchar * ipath, gboolean replace)
{
  const gint flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
  gint err;

  o->index_fd = open (ipath, flags | O_CREAT | O_EXCL, 0666);
  o->index_created = o->index_fd >= 0;
  if (o->index_fd < 0 && errno == EEXIST && replace) {
    if ((err = take_index (o, ipath)) != 0)
      return err;
  } else if (o->index_fd < 0) {
    return errno;
  } else if (rtf_lock (o->index_fd, TRUE) != 0) {
    return EWOULDBLOCK;         /* opened by another between the two */
  }
  /* the header (caps text, at most a few KiB) and the records */
  o->index_cap = RTF_INDEX_MAX_HEADER +
      RTF_OUTPUT_INDEX_RECORDS * RTF_INDEX_RECORD_SIZE;
  o->index_buf = g_malloc (o->index_cap);
  return 0;
}

/* path holds a file: o is prepared under a hidden name, and path's file
 * stays as it is until the recording reaches o.  0 or an errno (*step:
 * OPEN for the data's name, INDEX for the index's). */
static gint
prepare_hidden (RtfOutput * o, const RtfOutputConfig * config,
    RtfFailStep * step)
{
  struct stat st;
  gint probe;

  if (lstat (o->path, &st) < 0) {
    if (errno != ENOENT)
      return errno;
    /* only a stale index is there */
  } else if (S_ISREG (st.st_mode)) {
    /* being recorded by someone else: not ours to replace */
    gchar *why = NULL;

    o->replace_guard = rtf_safe_open (o->path, FALSE, &st, &why);
    g_free (why);
    if (o->replace_guard < 0)
      return errno;
    if (rtf_lock (o->replace_guard, TRUE) != 0)
      return EWOULDBLOCK;
    /* an index or a manifest is never a recording's data */
    if (rtf_file_kind (o->replace_guard) != RTF_FILE_KIND_OTHER)
      return EEXIST;
  } else if (!S_ISLNK (st.st_mode)) {
    return EEXIST;              /* a directory, a FIFO, a device */
  }
  /* replacing the data replaces its index too: only if it is one (looked
   * at again when the recording reaches it: claim_index_name()) */
  if (config->index && (probe = rtf_index_probe (o->index_path)) != 0
      && probe != ENOENT) {
    *step = RTF_FAIL_INDEX;
    return probe;
  }
  o->tmp_path = hidden_name (o->path);
  if (config->index)
    o->tmp_index_path = rtf_index_path (o->tmp_path);
  return 0;
}

/* Whether path (or, with an index, its index's name) holds something */
static gboolean
name_taken (RtfOutput * o, const RtfOutputConfig * config)
{
  struct stat st;

  return lstat (o->path, &st) == 0 || (config->index
      && rtf_index_probe (o->index_path) != ENOENT);
}

/* Ahead of the first frame, on whichever thread opens the file; the
 * writer reserves the rest as it goes (how much each may take: the
 * free-space guard's limit, or with the guard off half of what is free -
 * rtf_space_guard_reserve_share()).  Failure is not fatal, and stops
 * preallocation for this file (as a refill's, rtf-writer-submit.c):
 * the writes allocate as they go.  What a failed fallocate allocated
 * before ENOSPC is given back at once: ext4 and XFS keep it (tmpfs undoes
 * it), past EOF, where ext4 does not punch - a truncate to the size does
 * (issue 23, torture F3: a 128 MiB preallocation on a 111 MB ext4 failed
 * with the filesystem 100% used by blocks counted as not reserved, and
 * the index's first write then failed with ENOSPC).  Nothing of the
 * file is written yet. */
static void
reserve_at_open (RtfOutput * o, guint64 len)
{
  if (fallocate (o->file.fd, FALLOC_FL_KEEP_SIZE, 0, (off_t) len) == 0) {
    o->reserved_end = len;
    return;
  }
  o->reserve_off = TRUE;
  /* (best effort, both: the file works without them, and a truncate
   * that fails leaves the punch to give the blocks back) */
  if (ftruncate (o->file.fd, 0) != 0) {
    /* (the punch below gives the blocks back all the same) */
  }
  (void) fallocate (o->file.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
      0, (off_t) len);
}

RtfOutput *
rtf_output_open (const gchar * path, guint64 number,
    const RtfOutputConfig * config, RtfFileOpenMode how, gint * err,
    RtfFailStep * step)
{
  RtfOutput *o = g_new0 (RtfOutput, 1);
  gboolean regular;

  o->path = g_strdup (path);
  o->index_path = rtf_index_path (path);
  o->number = number;
  o->taken_last = G_MAXUINT64;
  o->index_fd = -1;
  o->replace_guard = -1;
  o->dir_fd = -1;
  o->file.fd = -1;
  init_tags (o);

  /* the index location names goes with its data: refused before the data
   * is emptied when it is something else (a link, a file of the user's) */
  if (how == RTF_FILE_REPLACE && config->index) {
    gint probe = rtf_index_probe (o->index_path);

    *step = RTF_FAIL_INDEX;
    if (probe != 0 && probe != ENOENT) {
      *err = probe;
      goto fail;
    }
  }
  *step = RTF_FAIL_OPEN;
  o->name_later = how == RTF_FILE_CREATE_NEW && config->name_later;
  if (o->name_later) {
    /* the name it was opened with is no name it will have */
    o->tmp_path = hidden_name (o->path);
    if (config->index)
      o->tmp_index_path = rtf_index_path (o->tmp_path);
  } else if (how == RTF_FILE_CREATE_NEW && name_taken (o, config)
      && (*err = prepare_hidden (o, config, step)) != 0) {
    goto fail;
  }
  /* marked in the open: where it can be, before the file has a name */
  if (!rtf_file_open (&o->file, o->tmp_path ? o->tmp_path : path, how,
          config->direct, &config->xflags, &config->recording_id, number, err))
    goto fail;
  o->dir_fd = open_dir_of (o->tmp_path ? o->tmp_path : path);
  o->mark_errno = o->file.mark_errno;
  regular = !o->file.stream && !o->file.device;
  if (!regular && (config->xflags.realtime || config->xflags.extent_size))
    o->file.xflags_errno = ENOTTY;      /* XFS file flags: not a device */
  if (o->file.xflags_errno) {
    *step = o->file.xflags_hint_refused ? RTF_FAIL_HINT : RTF_FAIL_XFLAGS;
    *err = o->file.xflags_errno;
    goto fail;
  }
  if (config->index && regular) {
    *step = RTF_FAIL_INDEX;
    if ((*err = open_index (o, o->tmp_index_path ? o->tmp_index_path :
                o->index_path, how == RTF_FILE_REPLACE)) != 0)
      goto fail;
  } else {
    /* no index beside a device, a FIFO, or with index=false: an rtframe
     * index at the name is the replaced file's, deleted with it */
    o->drop_stale_index = regular && !config->index
        && rtf_index_probe (o->index_path) == 0;
    g_clear_pointer (&o->index_path, g_free);
  }
  if (config->preallocate && regular)
    reserve_at_open (o, config->preallocate);
  o->named = o->tmp_path == NULL && !o->drop_stale_index;
  o->opened_ahead = how == RTF_FILE_CREATE_NEW;
  /* the file location names is reached from the start */
  if (how == RTF_FILE_REPLACE && !o->named && (*err = rtf_output_name (o)))
    goto fail;
  return o;

fail:
  rtf_output_free (o, TRUE);
  return NULL;
}

gboolean
rtf_output_is_named (RtfOutput * o)
{
  return g_atomic_int_get (&o->named);
}

void
rtf_output_set_name (RtfOutput * o, const gchar * path)
{
  g_return_if_fail (!o->begun && o->tmp_path != NULL);
  g_free (o->path);
  o->path = g_strdup (path);
  if (o->index_path) {
    g_free (o->index_path);
    o->index_path = rtf_index_path (path);
  } else if (!o->file.stream && !o->file.device) {
    /* index=false: an rtframe index at the new name is a replaced file's */
    gchar *stale = rtf_index_path (path);

    o->drop_stale_index = rtf_index_probe (stale) == 0;
    g_free (stale);
  }
}

/* What the name holds now may be replaced, and is held (locked) until
 * it is: the file locked when o was prepared, or - the name changed since
 * (an event recorder stays prepared while idle) - a regular file or a
 * link no one holds; never an rtframe index or manifest (EEXIST).  A file
 * another recording writes (locked) is not replaced: EWOULDBLOCK.
 * *free_name: nothing is there. */
static gint
claim_name (RtfOutput * o, gboolean * free_name)
{
  struct stat at, held;
  gchar *why = NULL;
  gint fd;

  *free_name = FALSE;
  if (lstat (o->path, &at) < 0) {
    *free_name = errno == ENOENT;
    return *free_name ? 0 : errno;
  }
  if (o->replace_guard >= 0 && fstat (o->replace_guard, &held) == 0
      && held.st_dev == at.st_dev && held.st_ino == at.st_ino)
    return rtf_file_kind (o->replace_guard) == RTF_FILE_KIND_OTHER ? 0 : EEXIST;
  if (S_ISLNK (at.st_mode))
    return 0;                   /* the link is replaced, never its target */
  if (!S_ISREG (at.st_mode))
    return EEXIST;
  fd = rtf_safe_open (o->path, FALSE, &at, &why);
  g_free (why);
  if (fd < 0)
    return errno;
  if (rtf_lock (fd, TRUE) != 0) {
    close (fd);
    return EWOULDBLOCK;
  }
  if (rtf_file_kind (fd) != RTF_FILE_KIND_OTHER) {
    close (fd);
    return EEXIST;
  }
  if (o->replace_guard >= 0)
    close (o->replace_guard);
  o->replace_guard = fd;
  return 0;
}

/* tmp_path at path: over what claim_name() holds, or where nothing is
 * (never over a file that came in between: RENAME_NOREPLACE) */
static gint
move_to_name (RtfOutput * o)
{
  gboolean free_name;
  gint err, tries;

  /* a name made at the first frame was free when the recording started:
   * what came there since is no earlier take of this set but someone
   * else's - left as it is, the file never named (the adversarial read
   * of issue 26: a user's file at a format-location name was replaced) */
  if (o->name_later) {
    if (renameat2 (AT_FDCWD, o->tmp_path, AT_FDCWD, o->path,
            RENAME_NOREPLACE) == 0)
      return 0;
    if (errno != EINVAL)
      return errno;
    /* (a filesystem without the flag: a link fails where a name is) */
    if (link (o->tmp_path, o->path) < 0)
      return errno;
    return unlink (o->tmp_path) < 0 ? errno : 0;
  }
  for (tries = 0; tries < 3; tries++) {
    if ((err = claim_name (o, &free_name)) != 0)
      return err;
    if (!free_name)
      return rename (o->tmp_path, o->path) < 0 ? errno : 0;
    if (renameat2 (AT_FDCWD, o->tmp_path, AT_FDCWD, o->path,
            RENAME_NOREPLACE) == 0)
      return 0;
    if (errno == EINVAL)        /* a filesystem without the flag */
      return rename (o->tmp_path, o->path) < 0 ? errno : 0;
    if (errno != EEXIST)
      return errno;
  }
  return EEXIST;
}

/* What the index name holds now may be replaced by o's index, and is
 * held (locked) until it is: nothing (*guard -1), or an rtframe index (or
 * an empty file) no one holds.  Looked at when the recording reaches o,
 * not only when o was prepared (issue 23: a user's file that appeared at
 * an idle event recorder's index name was replaced at the next event).
 * EEXIST: anything else is there, left as it is; ELOOP: a link;
 * EWOULDBLOCK: in use (another recording's index, or its data). */
static gint
claim_index_name (RtfOutput * o, gint * guard)
{
  struct stat st;
  gchar *why = NULL;
  gint fd;

  *guard = -1;
  if (lstat (o->index_path, &st) < 0)
    return errno == ENOENT ? 0 : errno;
  if (S_ISLNK (st.st_mode))
    return ELOOP;
  if (!S_ISREG (st.st_mode))
    return EEXIST;
  fd = rtf_safe_open (o->index_path, FALSE, &st, &why);
  g_free (why);
  if (fd < 0)
    return EEXIST;
  if (rtf_lock (fd, TRUE) != 0) {
    close (fd);
    return EWOULDBLOCK;
  }
  if (st.st_size > 0 && rtf_file_kind (fd) != RTF_FILE_KIND_INDEX) {
    close (fd);
    return EEXIST;
  }
  *guard = fd;
  return 0;
}

/* tmp_index_path at index_path: over the index claim_index_name() holds
 * (still that inode at the name), or where nothing is (RENAME_NOREPLACE);
 * *guard is let go */
static gint
move_index_to_name (RtfOutput * o, gint * guard)
{
  struct stat held;
  gint err = EEXIST, tries;

  for (tries = 0; tries < 3; tries++) {
    if (tries > 0 && (err = claim_index_name (o, guard)) != 0)
      return err;
    if (*guard >= 0) {
      err = fstat (*guard, &held) < 0 ? errno :
          !rtf_same_file (o->index_path, &held) ? EEXIST :
          rename (o->tmp_index_path, o->index_path) < 0 ? errno : 0;
      close (*guard);
      *guard = -1;
    } else if (renameat2 (AT_FDCWD, o->tmp_index_path, AT_FDCWD,
            o->index_path, RENAME_NOREPLACE) == 0) {
      err = 0;
    } else if (errno == EINVAL) {
      err = rename (o->tmp_index_path, o->index_path) < 0 ? errno : 0;
    } else {
      err = errno;
    }
    if (err != EEXIST)
      return err;
  }
  return err;
}

/* The data was given its name and its index could not be: back under
 * its hidden name, so that nothing of o is at its names (its frames are
 * not reported written; the hidden files go with o) */
static void
unname (RtfOutput * o)
{
  struct stat st;

  if (fstat (o->file.fd, &st) == 0 && rtf_same_file (o->path, &st))
    (void) renameat2 (AT_FDCWD, o->path, AT_FDCWD, o->tmp_path,
        RENAME_NOREPLACE);
}

/* index=false: an rtframe index at the name describes the file replaced;
 * it goes, unless something holds it */
static void
drop_stale_index (RtfOutput * o)
{
  gchar *stale = rtf_index_path (o->path), *why = NULL;
  struct stat st;
  gint fd = rtf_safe_open (stale, FALSE, &st, &why);

  if (fd >= 0 && rtf_lock (fd, TRUE) == 0
      && rtf_file_kind (fd) == RTF_FILE_KIND_INDEX
      && rtf_same_file (stale, &st))
    (void) unlink (stale);
  if (fd >= 0)
    close (fd);
  g_free (why);
  g_free (stale);
}

gint
rtf_output_name (RtfOutput * o)
{
  gint err = 0, index_guard = -1;

  o->name_step = RTF_FAIL_OPEN;
  if (o->tmp_path) {
    /* both names are looked at before either is taken: a name refused
     * leaves both as they were */
    if (o->tmp_index_path && (err = claim_index_name (o, &index_guard))) {
      o->name_step = RTF_FAIL_INDEX;
      return err;
    }
    /* data first: a crash between the two leaves a new file beside the
     * old index, which a reader refuses to pair (mark and name) */
    if ((err = move_to_name (o)) != 0)
      goto out;
    if (o->tmp_index_path && (err = move_index_to_name (o, &index_guard)) != 0) {
      o->name_step = RTF_FAIL_INDEX;
      unname (o);
      goto out;
    }
    g_clear_pointer (&o->tmp_path, g_free);
    g_clear_pointer (&o->tmp_index_path, g_free);
  }
  if (o->replace_guard >= 0) {
    close (o->replace_guard);
    o->replace_guard = -1;
  }
  if (o->drop_stale_index) {
    drop_stale_index (o);
    o->drop_stale_index = FALSE;
  }
  g_atomic_int_set (&o->named, 1);
out:
  if (index_guard >= 0)
    close (index_guard);
  return err;
}

void
rtf_output_begin (RtfOutput * o, const RtfIndexHeader * header,
    guint64 seq, guint64 time, guint64 running_time)
{
  o->begun = TRUE;
  o->first_seq = o->last_seq = seq;
  o->first_time = time;
  o->first_running_time = o->last_running_time = running_time;
  g_free (o->format);
  o->format = g_strdup (header->format);
  if (o->index_fd < 0)
    return;
  g_assert (o->index_len == 0 && o->index_end == 0);
  if (rtf_index_header_size (header) > RTF_INDEX_MAX_HEADER) {
    /* caps text of more than 64 KiB: kept as far as it fits (a reader
     * then says it cannot play them) rather than overrunning the buffer;
     * the reference caps first cut to 4 KiB */
    RtfIndexHeader cut = *header;
    gsize ref;

    cut.reference = g_strndup (header->reference, 4096);
    ref = cut.reference ? strlen (cut.reference) : 0;
    cut.format = g_strndup (header->format, RTF_INDEX_MAX_HEADER -
        RTF_INDEX_FIXED_HEADER - strlen (header->data_name ?
            header->data_name : "") - ref - 24);
    o->index_len = o->index_header_size =
        rtf_index_encode_header (&cut, o->index_buf);
    g_free (cut.format);
    g_free (cut.reference);
    return;
  }
  o->index_len = o->index_header_size =
      rtf_index_encode_header (header, o->index_buf);
}

gboolean
rtf_output_index_has_room (RtfOutput * o)
{
  return o->index_fd < 0
      || o->index_len + RTF_INDEX_RECORD_SIZE <= o->index_cap;
}

void
rtf_output_add_record (RtfOutput * o, const RtfIndexRecord * r)
{
  o->frames++;
  o->last_seq = r->seq;
  o->last_running_time = r->running_time;
  if (o->index_fd < 0)
    return;
  g_assert (rtf_output_index_has_room (o));
  rtf_index_encode_record (r, o->index_buf + o->index_len);
  o->index_len += RTF_INDEX_RECORD_SIZE;
  o->index_records++;
}

gboolean
rtf_output_index_next (RtfOutput * o, const guint8 ** buf, gsize * len,
    guint64 * offset)
{
  if (o->index_fd < 0 || o->index_submitted > 0 || o->index_len == 0)
    return FALSE;
  *buf = o->index_buf;
  *len = o->index_len;
  *offset = o->index_end;
  o->index_submitted = o->index_len;
  return TRUE;
}

gint
rtf_output_index_done (RtfOutput * o, gint res)
{
  gsize done;

  if (res < 0)
    return -res;
  if (res == 0)
    return ENOSPC;
  done = MIN ((gsize) res, o->index_submitted);
  memmove (o->index_buf, o->index_buf + done, o->index_len - done);
  o->index_len -= done;
  o->index_end += done;
  o->index_submitted = 0;
  /* records whose last byte is on file */
  if (o->index_end >= o->index_header_size)
    o->index_records_done = (o->index_end - o->index_header_size) /
        RTF_INDEX_RECORD_SIZE;
  return 0;
}

gboolean
rtf_output_index_idle (RtfOutput * o)
{
  return o->index_fd < 0 || (o->index_submitted == 0 && o->index_len == 0);
}

gint
rtf_output_index_flush (RtfOutput * o)
{
  gint ret;

  if (o->index_fd < 0)
    return 0;
  while (o->index_len > 0) {
    ssize_t n = pwrite (o->index_fd, o->index_buf, o->index_len,
        (off_t) o->index_end);

    if (n < 0 && errno == EINTR)
      continue;
    o->index_submitted = o->index_len;
    if ((ret = rtf_output_index_done (o, n < 0 ? -errno : (gint) n)) != 0)
      return ret;
  }
  return 0;
}

gint
rtf_output_seal (RtfOutput * o)
{
  gint ret, cut;

  /* what the index still holds (the writer writes it as it goes; this is
   * left after a failure or an abandoned stop) */
  ret = rtf_output_index_flush (o);
  /* the data cut to its frames and the reservation given back even when
   * the index could not be written (ENOSPC): the room it gives back may
   * let the index through after all */
  cut = rtf_file_make_whole (&o->file, o->written_end, MAX (o->reserved_end,
          o->alloc_end));
  if (cut == 0)
    o->reserved_end = o->written_end;
  if (ret != 0 && cut == 0)
    ret = rtf_output_index_flush (o);
  if (ret == 0)
    ret = cut;
  if (ret == 0)
    ret = o->index_cut_err;
  if (ret == 0 && o->index_fd >= 0 && fdatasync (o->index_fd) < 0)
    return errno;
  return ret;
}

void
rtf_output_keep_released (RtfOutput * o)
{
  guint64 keep = o->released_records * RTF_INDEX_RECORD_SIZE +
      o->index_header_size;

  o->written_end = o->released_end;
  o->frames = o->released_records;
  if (o->index_fd < 0 || !o->begun)
    return;
  /* the records after them: still buffered, or already on file */
  if (keep >= o->index_end) {
    o->index_len = MIN (o->index_len, keep - o->index_end);
  } else {
    o->index_len = 0;
    o->index_end = keep;
    /* records of frames not reported written must not stay: a failure
     * here fails the file's sealing (rtf_output_seal()) */
    if (ftruncate (o->index_fd, (off_t) keep) != 0)
      o->index_cut_err = errno;
  }
  o->index_submitted = 0;
}

void
rtf_output_info (RtfOutput * o, RtfFileInfo * info)
{
  memset (info, 0, sizeof (*info));
  info->path = o->path;
  info->index_path = o->index_path;
  info->number = o->number;
  info->frames = o->frames;
  info->bytes = o->written_end;
  info->first_seq = o->first_seq;
  info->last_seq = o->last_seq;
  info->first_running_time = o->begun ? o->first_running_time : G_MAXUINT64;
  info->last_running_time = o->frames ? o->last_running_time : G_MAXUINT64;
}

void
rtf_output_free (RtfOutput * o, gboolean never_reached)
{
  if (o == NULL)
    return;
  /* prepared under a hidden name and never given its own (the name was
   * refused): no frame of it was reported written (a frame is released
   * only from a named file), and the hidden files are the output's own */
  if (o->tmp_path)
    never_reached = TRUE;
  if (never_reached) {
    if (o->file.created)
      unlink_own (o, o->file.fd, o->tmp_path ? o->tmp_path : o->path);
    o->file.created = FALSE;
    if (o->index_created)
      unlink_own (o, o->index_fd, o->tmp_index_path ? o->tmp_index_path :
          o->index_path);
  }
  rtf_file_close (&o->file);
  if (o->index_fd >= 0)
    close (o->index_fd);
  if (o->replace_guard >= 0)
    close (o->replace_guard);
  if (o->dir_fd >= 0)
    close (o->dir_fd);
  g_free (o->path);
  g_free (o->index_path);
  g_free (o->tmp_path);
  g_free (o->tmp_index_path);
  g_free (o->format);
  g_free (o->index_buf);
  g_free (o);
}
