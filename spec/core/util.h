/* Small helpers shared by every module: scope-bound cleanup and ownership
 * hand-over.  A variable declared with a _cleanup_*_ attribute is released
 * when it leaves scope; steal_pointer() and take_fd() move ownership out so
 * the cleanup becomes a no-op.
 */
#ifndef CORRAL_UTIL_H
#define CORRAL_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		*fd = -1;
		errno = saved;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void error_freep(struct error **e)
{
	error_free(*e);
}

static inline void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static inline void strv_freep(char ***v)
{
	strv_free(*v);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_error_ _cleanup_(error_freep)
#define _cleanup_strv_ _cleanup_(strv_freep)

static inline void *steal_ptr_(void **p)
{
	void *v = *p;

	*p = NULL;
	return v;
}
#define steal_pointer(pp) steal_ptr_((void **)(pp))

static inline int take_fd(int *fd)
{
	int v = *fd;

	*fd = -1;
	return v;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
