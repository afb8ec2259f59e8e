/* rtframe tests, ThreadSanitizer builds only (tools/test.sh --tsan): GLib's
 * GMutex and GCond are built on futexes in an uninstrumented libglib, so
 * ThreadSanitizer does not see them order anything and reports every
 * access under a GMutex as a race.  These wrappers, linked into the test
 * programs, call GLib's own functions and tell ThreadSanitizer what they do
 * (__tsan_acquire/__tsan_release on the mutex), so what is left are the
 * races of rtframe's code.  GLib's calls inside libglib are not wrapped. */
#include <glib.h>
#include <dlfcn.h>

void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

static
__typeof__ (g_mutex_lock) *
    real_mutex_lock;
     static __typeof__ (g_mutex_unlock) * real_mutex_unlock;
     static __typeof__ (g_mutex_trylock) * real_mutex_trylock;
     static __typeof__ (g_cond_wait) * real_cond_wait;
     static __typeof__ (g_cond_wait_until) * real_cond_wait_until;

/* before main(), so before any thread */
__attribute__((constructor))
     static void resolve (void)
{
  real_mutex_lock = dlsym (RTLD_NEXT, "g_mutex_lock");
  real_mutex_unlock = dlsym (RTLD_NEXT, "g_mutex_unlock");
  real_mutex_trylock = dlsym (RTLD_NEXT, "g_mutex_trylock");
  real_cond_wait = dlsym (RTLD_NEXT, "g_cond_wait");
  real_cond_wait_until = dlsym (RTLD_NEXT, "g_cond_wait_until");
}

void
g_mutex_lock (GMutex * mutex)
{
  real_mutex_lock (mutex);
  __tsan_acquire (mutex);
}

void
g_mutex_unlock (GMutex * mutex)
{
  __tsan_release (mutex);
  real_mutex_unlock (mutex);
}

gboolean
g_mutex_trylock (GMutex * mutex)
{
  gboolean locked;

  locked = real_mutex_trylock (mutex);
  if (locked)
    __tsan_acquire (mutex);
  return locked;
}

void
g_cond_wait (GCond * cond, GMutex * mutex)
{
  __tsan_release (mutex);
  real_cond_wait (cond, mutex);
  __tsan_acquire (mutex);
}

gboolean
g_cond_wait_until (GCond * cond, GMutex * mutex, gint64 end_time)
{
  gboolean signalled;

  __tsan_release (mutex);
  signalled = real_cond_wait_until (cond, mutex, end_time);
  __tsan_acquire (mutex);
  return signalled;
}
