/* Host paths that come from config.json, the bundle or the command line
 * (bind sources, the root filesystem, hooks, devices, the console
 * socket, the workspace): each is opened once, without following a
 * symbolic link (nor a /proc magic link), checked on what was opened, and
 * then used through that descriptor only.  Whoever wrote the bundle may
 * also own a directory on the way, so a path is never walked twice: a
 * link swapped in between would be followed by the second walk.
 */
#ifndef CORRAL_HOSTPATH_H
#define CORRAL_HOSTPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

/* A bind source the caller opened itself (`corral sandbox --workspace`):
 * a bind of exactly that source is made from the descriptor. */
struct preopened_source {
	const char *source; /* as written in config.json */
	int fd;		    /* O_PATH, opened without following links */
	/* the caller's own directory: its files (the caller's uid and gid)
	 * are the workload's inside, through an idmapped mount, and what
	 * the workload writes there is the caller's on the host */
	bool idmap;
	uint32_t uid, gid;
};

/* Open the absolute path from the host's "/" with openat2(2) and
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS; flags as for open(2)
 * (O_CLOEXEC is added).  A link on the way fails with an error that
 * names it: "WHAT PATH: /data/link is a symbolic link (not followed)". */
int hostpath_open(const char *path, int flags, const char *what,
		  struct error **err);

/* Open path, which must be dir itself or below it: dir is walked as
 * above, the rest beneath it with RESOLVE_BENEATH, which fails when the
 * walk would leave dir.  With follow_links the rest may hold symbolic
 * links, as long as they stay below dir. */
int hostpath_open_beneath(const char *dir, const char *path, bool follow_links,
			  int flags, const char *what, struct error **err);

/* Open rel (a relative path, or ".") beneath the directory dirfd, the
 * same way; `shown` names dirfd in errors. */
int hostpath_open_at(int dirfd, const char *shown, const char *rel,
		     bool follow_links, int flags, const char *what,
		     struct error **err);

/* Check that what fd names is dir or below it, by its path in this mount
 * namespace (/proc/self/fd/N): the check is made on what was opened, not
 * on the text that named it. */
int hostpath_check_under(int fd, const char *dir, const char *what,
			 struct error **err);

#endif
