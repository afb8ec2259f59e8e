/* rtframe: memory regions a producer keeps valid for the writer to
 * register with the kernel.
 *
 * Registering memory with io_uring pins its pages once, instead of on every
 * O_DIRECT write.  It is only safe for memory that stays allocated while it
 * is registered: an address freed and reused would still point the kernel
 * at the old pages.  So the table is append-only, and whoever adds a region
 * (the element's frame allocator) frees it only after every writer that may
 * have registered it has stopped.  The producer appends from its thread;
 * the writer thread reads new entries and registers them with its ring. */
#include "rtf-regions.h"

struct _RtfRegions
{
  gint ref;
  GMutex lock;
  guint count;
  gpointer base[RTF_REGIONS_MAX];
  gsize size[RTF_REGIONS_MAX];
};

RtfRegions *
rtf_regions_new (void)
{
  RtfRegions *r = g_new0 (RtfRegions, 1);

  r->ref = 1;
  g_mutex_init (&r->lock);
  return r;
}

RtfRegions *
rtf_regions_ref (RtfRegions * r)
{
  g_atomic_int_inc (&r->ref);
  return r;
}

void
rtf_regions_unref (RtfRegions * r)
{
  if (r == NULL || !g_atomic_int_dec_and_test (&r->ref))
    return;
  g_mutex_clear (&r->lock);
  g_free (r);
}

gint
rtf_regions_add (RtfRegions * r, gpointer base, gsize size)
{
  gint id = -1;

  g_mutex_lock (&r->lock);
  if (r->count < RTF_REGIONS_MAX) {
    id = (gint) r->count;
    r->base[id] = base;
    r->size[id] = size;
    r->count++;
  }
  g_mutex_unlock (&r->lock);
  return id;
}

guint
rtf_regions_count (RtfRegions * r)
{
  guint n;

  g_mutex_lock (&r->lock);
  n = r->count;
  g_mutex_unlock (&r->lock);
  return n;
}

void
rtf_regions_get (RtfRegions * r, guint id, gpointer * base, gsize * size)
{
  g_mutex_lock (&r->lock);
  g_assert (id < r->count);
  *base = r->base[id];
  *size = r->size[id];
  g_mutex_unlock (&r->lock);
}
