/* rtframe: the memory of the pools rtframesink proposes.
 *
 * Frames are carved from chunks of frame-sized, aligned slots.  A chunk is
 * never freed before the allocator, which the element keeps for
 * its whole life: so each chunk can be added to the element's region table
 * and registered by the writer thread with its io_uring ring (fixed
 * buffers: the pages are pinned once, not on every O_DIRECT write).  A
 * GstBufferPool frees and allocates memory as it likes; here that only moves
 * a slot on and off the free list, so a registered address always holds
 * the memory the kernel pinned.  Requests of another size or alignment than
 * the first one get ordinary memory. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframeallocator.h"

#include <stdlib.h>
#include <string.h>

/* One slot per chunk: registering a chunk pins (and so faults in) all of
 * it, so larger chunks cost memory upstream never asked for (measured:
 * 4-slot chunks raised peak RSS from 304 to 353 MB flat out). */
#define SLOTS_PER_CHUNK 1

struct _GstRtFrameAllocator
{
  GstAllocator parent;

  RtfRegions *regions;
  GMutex lock;
  gsize slot_size;              /* 0 until the first allocation */
  gsize align;
  GSList *free_slots;
  GPtrArray *chunks;
};

G_DEFINE_TYPE (GstRtFrameAllocator, gst_rtframe_allocator, GST_TYPE_ALLOCATOR);

typedef struct
{
  GstRtFrameAllocator *self;
  guint8 *slot;
} SlotRef;

static void
slot_release (gpointer data)
{
  SlotRef *ref = data;
  GstRtFrameAllocator *self = ref->self;

  g_mutex_lock (&self->lock);
  self->free_slots = g_slist_prepend (self->free_slots, ref->slot);
  g_mutex_unlock (&self->lock);
  gst_object_unref (self);
  g_free (ref);
}

/* A free slot, taking a new chunk when there is none; under the lock. */
static guint8 *
take_slot (GstRtFrameAllocator * self)
{
  guint8 *chunk, *slot;
  void *mem = NULL;
  guint i;

  if (self->free_slots) {
    slot = self->free_slots->data;
    self->free_slots = g_slist_delete_link (self->free_slots, self->free_slots);
    return slot;
  }
  if (posix_memalign (&mem, self->align, SLOTS_PER_CHUNK * self->slot_size))
    return NULL;
  chunk = mem;
  g_ptr_array_add (self->chunks, chunk);
  if (rtf_regions_add (self->regions, chunk,
          SLOTS_PER_CHUNK * self->slot_size) < 0)
    GST_DEBUG_OBJECT (self, "region table full: chunk %p not registered",
        chunk);
  for (i = 1; i < SLOTS_PER_CHUNK; i++)
    self->free_slots = g_slist_prepend (self->free_slots,
        chunk + i * self->slot_size);
  return chunk;
}

static GstMemory *
gst_rtframe_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstRtFrameAllocator *self = GST_RTFRAME_ALLOCATOR (allocator);
  gsize align = MAX (params->align + 1, (gsize) 4096);
  gsize need = params->prefix + size + params->padding;
  guint8 *slot = NULL;
  SlotRef *ref;
  GstMemory *mem;

  need = (need + align - 1) / align * align;
  g_mutex_lock (&self->lock);
  if (self->slot_size == 0) {
    self->slot_size = need;
    self->align = align;
  }
  if (need <= self->slot_size && align <= self->align)
    slot = take_slot (self);
  g_mutex_unlock (&self->lock);
  if (slot == NULL)
    return gst_allocator_alloc (NULL, size, params);

  if (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED)
    memset (slot, 0, params->prefix);
  if (params->flags & GST_MEMORY_FLAG_ZERO_PADDED)
    memset (slot + params->prefix + size, 0, params->padding);
  ref = g_new (SlotRef, 1);
  ref->self = gst_object_ref (self);
  ref->slot = slot;
  mem = gst_memory_new_wrapped (params->flags & ~(GST_MEMORY_FLAG_ZERO_PREFIXED
          | GST_MEMORY_FLAG_ZERO_PADDED), slot, self->slot_size,
      params->prefix, size, ref, slot_release);
  return mem;
}

/* Its memories are wrapped system memory with their own release. */
static void
gst_rtframe_allocator_free (GstAllocator * allocator, GstMemory * memory)
{
  g_warn_if_reached ();
}

static void
gst_rtframe_allocator_finalize (GObject * object)
{
  GstRtFrameAllocator *self = GST_RTFRAME_ALLOCATOR (object);

  g_slist_free (self->free_slots);
  g_ptr_array_unref (self->chunks);
  rtf_regions_unref (self->regions);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_rtframe_allocator_parent_class)->finalize (object);
}

static void
gst_rtframe_allocator_class_init (GstRtFrameAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = gst_rtframe_allocator_finalize;
  allocator_class->alloc = gst_rtframe_allocator_alloc;
  allocator_class->free = gst_rtframe_allocator_free;
}

static void
gst_rtframe_allocator_init (GstRtFrameAllocator * self)
{
  self->regions = rtf_regions_new ();
  self->chunks = g_ptr_array_new_with_free_func (free);
  g_mutex_init (&self->lock);
}

GstAllocator *
gst_rtframe_allocator_new (void)
{
  GstAllocator *a = g_object_new (GST_TYPE_RTFRAME_ALLOCATOR, NULL);

  gst_object_ref_sink (a);
  return a;
}

RtfRegions *
gst_rtframe_allocator_get_regions (GstAllocator * allocator)
{
  return GST_RTFRAME_ALLOCATOR (allocator)->regions;
}
