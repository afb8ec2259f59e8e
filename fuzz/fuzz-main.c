/* rtframe: a driver for the fuzz targets when they are not built with
 * libFuzzer (gcc, or a build without -Dfuzzing=true): runs every input of
 * the corpus, then `-runs=N` inputs made from them by random mutations
 * (bit flips, byte changes, insertions, deletions, repeats, splices),
 * from a fixed seed so a failure repeats.  It has no coverage feedback:
 * the real fuzzing is tools/fuzz.sh (clang, libFuzzer); this keeps every
 * target exercised in the suite and under the sanitizers.
 *
 *   fuzz-caps CORPUS_DIR [-runs=N] [-seed=S]
 */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__((weak));

#define FUZZ_MAX_INPUT 4096

static gsize
mutate (GRand * r, guint8 * buf, gsize len, const GPtrArray * corpus)
{
  guint n = g_rand_int_range (r, 1, 5), k;

  for (k = 0; k < n; k++) {
    gsize pos = len ? g_rand_int_range (r, 0, len) : 0;

    switch (g_rand_int_range (r, 0, 6)) {
      case 0:                  /* flip a bit */
        if (len)
          buf[pos] ^= 1 << g_rand_int_range (r, 0, 8);
        break;
      case 1:                  /* any byte, or an interesting one */
        if (len) {
          static const guint8 special[] = { 0, 0xff, 0x7f, 0x80, '0', '9',
            '-', ',', '=', '/', ' ', '\\', '"'
          };
          buf[pos] = g_rand_boolean (r) ? g_rand_int_range (r, 0, 256) :
              special[g_rand_int_range (r, 0, sizeof (special))];
        }
        break;
      case 2:                  /* insert a byte */
        if (len < FUZZ_MAX_INPUT) {
          memmove (buf + pos + 1, buf + pos, len - pos);
          buf[pos] = g_rand_int_range (r, 0, 256);
          len++;
        }
        break;
      case 3:                  /* delete a range */
        if (len) {
          gsize n_del =
              g_rand_int_range (r, 1, (gint32) MIN (len - pos, 16) + 1);

          memmove (buf + pos, buf + pos + n_del, len - pos - n_del);
          len -= n_del;
        }
        break;
      case 4:                  /* repeat a range */
        if (len) {
          /* drawn before MIN(), which evaluates an argument twice */
          gsize n_rep = g_rand_int_range (r, 1,
              (gint32) MIN (len - pos, 32) + 1);

          n_rep = MIN (n_rep, FUZZ_MAX_INPUT - len);

          memmove (buf + pos + n_rep, buf + pos, len - pos);
          len += n_rep;
        }
        break;
      default:{                /* splice in part of another input */
        const GBytes *o = g_ptr_array_index (corpus,
            g_rand_int_range (r, 0, corpus->len));
        gsize olen;
        const guint8 *od = g_bytes_get_data ((GBytes *) o, &olen);
        gsize from, n_cp;

        if (olen == 0)
          break;
        from = g_rand_int_range (r, 0, olen);
        n_cp = MIN (olen - from, FUZZ_MAX_INPUT - pos);
        memcpy (buf + pos, od + from, n_cp);
        len = MAX (len, pos + n_cp);
        break;
      }
    }
  }
  return len;
}

int
main (int argc, char **argv)
{
  GPtrArray *corpus = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  guint64 runs = 1000, seed = 20261202, i;
  guint8 *buf = g_malloc (FUZZ_MAX_INPUT);
  GRand *r;
  int a;

  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize (&argc, &argv);
  for (a = 1; a < argc; a++) {
    if (g_str_has_prefix (argv[a], "-runs="))
      runs = g_ascii_strtoull (argv[a] + 6, NULL, 10);
    else if (g_str_has_prefix (argv[a], "-seed="))
      seed = g_ascii_strtoull (argv[a] + 6, NULL, 10);
    else if (g_file_test (argv[a], G_FILE_TEST_IS_DIR)) {
      GDir *d = g_dir_open (argv[a], 0, NULL);
      const gchar *name;

      while (d && (name = g_dir_read_name (d))) {
        gchar *p = g_build_filename (argv[a], name, NULL), *data;
        gsize len;

        if (g_file_get_contents (p, &data, &len, NULL))
          g_ptr_array_add (corpus, g_bytes_new_take (data, MIN (len,
                      FUZZ_MAX_INPUT)));
        g_free (p);
      }
      if (d)
        g_dir_close (d);
    }
  }
  if (corpus->len == 0) {
    g_printerr ("no corpus given\n");
    return 1;
  }
  for (i = 0; i < corpus->len; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (corpus, i), &len);

    LLVMFuzzerTestOneInput (d, len);
  }
  r = g_rand_new_with_seed ((guint32) seed);
  for (i = 0; i < runs; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (corpus,
            g_rand_int_range (r, 0, corpus->len)), &len);

    memcpy (buf, d, len);
    len = mutate (r, buf, len, corpus);
    LLVMFuzzerTestOneInput (buf, len);
  }
  g_print ("%u corpus inputs and %" G_GUINT64_FORMAT " mutated inputs ran "
      "(seed %" G_GUINT64_FORMAT ")\n", corpus->len, runs, seed);
  g_rand_free (r);
  g_free (buf);
  g_ptr_array_unref (corpus);
  return 0;
}
