/* A bind's restrictions after it is attached, without mount_setattr
 * (bind_late.h). */
#include "bind_late.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

#define ATIME_FLAGS (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)
#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

/* Most mounts one recursive bind may carry below it. */
#define SUBMOUNTS_MAX 256

static unsigned long attr_to_ms(uint64_t attr)
{
	static const struct {
		uint64_t attr;
		unsigned long ms;
	} map[] = {
	    {MOUNT_ATTR_RDONLY, MS_RDONLY},
	    {MOUNT_ATTR_NOSUID, MS_NOSUID},
	    {MOUNT_ATTR_NODEV, MS_NODEV},
	    {MOUNT_ATTR_NOEXEC, MS_NOEXEC},
	    {MOUNT_ATTR_NODIRATIME, MS_NODIRATIME},
	};
	unsigned long ms = 0;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (attr & map[i].attr)
			ms |= map[i].ms;
	switch (attr & MOUNT_ATTR__ATIME) {
	case MOUNT_ATTR_NOATIME:
		ms |= MS_NOATIME;
		break;
	case MOUNT_ATTR_STRICTATIME:
		ms |= MS_STRICTATIME;
		break;
	default:
		break; /* relatime is the field's 0 */
	}
	return ms;
}

void bind_late_from_attr(const struct mount_attr *attr, bool recursive,
			 unsigned long propagation, struct bind_late *out)
{
	*out = (struct bind_late){
	    .needed = attr->attr_set || attr->attr_clr || propagation,
	    .recursive = recursive,
	    .set = attr_to_ms(attr->attr_set),
	    .clr = attr_to_ms(attr->attr_clr & ~MOUNT_ATTR__ATIME),
	    .propagation = propagation,
	};
	/* an atime mode asked for replaces the one the mount has */
	if (attr->attr_clr & MOUNT_ATTR__ATIME) {
		out->clr |= ATIME_FLAGS & ~out->set;
		if (!(out->set & ATIME_FLAGS))
			out->set |= MS_RELATIME;
	}
}

/* The per-mount flags a bind remount sets, as statvfs reports them. */
static unsigned long mount_flags(const struct statvfs *st)
{
	static const struct {
		unsigned long st, ms;
	} map[] = {
	    {ST_RDONLY, MS_RDONLY},	{ST_NOSUID, MS_NOSUID},
	    {ST_NODEV, MS_NODEV},	{ST_NOEXEC, MS_NOEXEC},
	    {ST_NOATIME, MS_NOATIME},	{ST_NODIRATIME, MS_NODIRATIME},
	    {ST_RELATIME, MS_RELATIME}, {ST_NOSYMFOLLOW, MS_NOSYMFOLLOW},
	};
	unsigned long ms = 0;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (st->f_flag & map[i].st)
			ms |= map[i].ms;
	if (!(ms & ATIME_FLAGS))
		ms |= MS_STRICTATIME;
	return ms;
}

/* One mount: its flags as they are, with l's set and cleared.  A flag
 * the mount has and l does not clear is kept, so under the sandbox
 * (which clears nothing) a remount only adds restrictions. */
static int remount(int fd, const struct bind_late *l, const char *dst,
		   struct error **err)
{
	struct statvfs st;
	unsigned long flags;
	char p[FD_PATH_MAX];

	if (fstatvfs(fd, &st) < 0)
		return error_errno(err, "bind mount %s: statvfs", dst);
	flags = mount_flags(&st);
	if (l->set & ATIME_FLAGS)
		flags &= ~ATIME_FLAGS;
	flags = (flags | l->set) & ~l->clr;
	fd_path(fd, p);
	if (mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | flags, NULL) == 0)
		return 0;
	/* a flag locked by a less privileged namespace stays */
	if (errno == EPERM && mount(NULL, p, NULL,
				    MS_REMOUNT | MS_BIND | flags |
					(mount_flags(&st) & ~ATIME_FLAGS),
				    NULL) == 0)
		return 0;
	return error_errno(err, "bind mount %s: remount", dst);
}

static int mount_id(int fd, uint64_t *id)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		  &stx) < 0)
		return -1;
	if (!(stx.stx_mask & STATX_MNT_ID))
		return errno = ENOSYS, -1;
	*id = stx.stx_mnt_id;
	return 0;
}

/* mountinfo's octal escapes (\040 and the like), in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

struct tree {
	uint64_t id[SUBMOUNTS_MAX + 1]; /* [0]: the bind */
	size_t n;
	char top[4096]; /* the bind's mount point */
};

static bool in_tree(const struct tree *t, uint64_t id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->id[i] == id)
			return true;
	return false;
}

/* One line of mountinfo: a mount whose parent is in the tree and which is
 * not yet is opened beneath the bind, checked and remounted.  Returns 1
 * when it added one, 0 when not, -1 on error. */
static int visit(int mnt, char *line, struct tree *t, const struct bind_late *l,
		 const char *dst, struct error **err)
{
	unsigned long long id, parent;
	char mp[4096];
	size_t top_len = strlen(t->top);
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC,
	    .resolve =
		RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = -1;
	uint64_t got;

	if (sscanf(line, "%llu %llu %*s %*s %4095s", &id, &parent, mp) != 3 ||
	    !in_tree(t, parent) || in_tree(t, id))
		return 0;
	unescape(mp);
	if (strncmp(mp, t->top, top_len) != 0 || mp[top_len] != '/')
		return error_set(err, EINVAL,
				 "bind mount %s: a mount below it at %s is "
				 "outside it",
				 dst, mp);
	if (t->n > SUBMOUNTS_MAX)
		return error_set(err, E2BIG,
				 "bind mount %s: more than %d mounts below it",
				 dst, SUBMOUNTS_MAX);
	fd =
	    (int)syscall(SYS_openat2, mnt, mp + top_len + 1, &how, sizeof(how));
	if (fd < 0 || mount_id(fd, &got) < 0 || got != id)
		return error_set(err, fd < 0 ? errno : EXDEV,
				 "bind mount %s: the mount below it at %s "
				 "cannot be reached to restrict it",
				 dst, mp);
	if (remount(fd, l, dst, err) < 0)
		return -1;
	t->id[t->n++] = id;
	return 1;
}

/* The bind's own mount point, from its line of /proc/self/mountinfo. */
static int find_top(struct tree *t, const char *dst, struct error **err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192];
	unsigned long long id;

	if (!f)
		return error_errno(err, "bind mount %s: mountinfo", dst);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llu %*s %*s %*s %4095s", &id, t->top) == 2 &&
		    id == t->id[0]) {
			unescape(t->top);
			return 0;
		}
	return error_set(err, ENOENT, "bind mount %s: not in mountinfo", dst);
}

/* One pass over /proc/self/mountinfo: every mount whose parent is in the
 * tree joins it.  Returns how many joined, or -1. */
static int pass(int mnt, struct tree *t, const struct bind_late *l,
		const char *dst, struct error **err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192];
	int added = 0, r;

	if (!f)
		return error_errno(err, "bind mount %s: mountinfo", dst);
	while (fgets(line, sizeof(line), f)) {
		r = visit(mnt, line, t, l, dst, err);
		if (r < 0)
			return -1;
		added += r;
	}
	return added;
}

int bind_late_apply(int mnt, const struct bind_late *l, const char *dst,
		    struct error **err)
{
	struct tree t = {.n = 1};
	char p[FD_PATH_MAX];
	int r;

	if (!l->needed)
		return 0;
	fd_path(mnt, p);
	if (l->propagation && mount(NULL, p, NULL, l->propagation, NULL) < 0)
		return error_errno(err, "set propagation of %s", dst);
	if (!(l->set | l->clr))
		return 0;
	if (remount(mnt, l, dst, err) < 0)
		return -1;
	if (!l->recursive)
		return 0;
	if (mount_id(mnt, &t.id[0]) < 0)
		return error_errno(err, "bind mount %s: its mount id", dst);
	if (find_top(&t, dst, err) < 0)
		return -1;
	/* a mount is listed after its parent, but one cloned later may
	 * come before: again until none joins */
	do
		r = pass(mnt, &t, l, dst, err);
	while (r > 0);
	return r;
}
