/* The lock the root tests share (see torture-lock.c) */
#ifndef __TORTURE_LOCK_H__
#define __TORTURE_LOCK_H__

#include <glib.h>

G_BEGIN_DECLS

#define TORTURE_ROOT_LOCK "/var/tmp/rtf-root-tests.lock"

/* Waits for the lock: its fd (held until the process ends), -2 when an
 * ancestor holds it for us, -1 when it cannot be taken */
gint torture_lock_root_tests (void);

G_END_DECLS
#endif /* __TORTURE_LOCK_H__ */
