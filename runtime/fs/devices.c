#include "devices.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsutil.h"
#include "hostpath.h"
#include "util.h"

static const struct spec_device standard[] = {
    {(char *)"/dev/null", 'c', 1, 3, {true, 0666}, {0}, {0}},
    {(char *)"/dev/zero", 'c', 1, 5, {true, 0666}, {0}, {0}},
    {(char *)"/dev/full", 'c', 1, 7, {true, 0666}, {0}, {0}},
    {(char *)"/dev/random", 'c', 1, 8, {true, 0666}, {0}, {0}},
    {(char *)"/dev/urandom", 'c', 1, 9, {true, 0666}, {0}, {0}},
    {(char *)"/dev/tty", 'c', 5, 0, {true, 0666}, {0}, {0}},
};

static const struct {
	const char *target;
	const char *name;
} links[] = {
    {"/proc/self/fd", "fd"},
    {"/proc/self/fd/0", "stdin"},
    {"/proc/self/fd/1", "stdout"},
    {"/proc/self/fd/2", "stderr"},
};

static mode_t node_type(char type)
{
	switch (type) {
	case 'b':
		return S_IFBLK;
	case 'p':
		return S_IFIFO;
	default:
		return S_IFCHR;
	}
}

/* Inside a user namespace mknod is refused: bind the host's node instead,
 * opened without following links and only if it is the device asked
 * for (its type and numbers). */
static int bind_host_node(int parent, const char *name,
			  const struct spec_device *d, struct error **err)
{
	_cleanup_close_ int target = -1, src = -1;
	char sp[FD_PATH_MAX], tp[FD_PATH_MAX];
	const char *path = d->path;
	struct stat st;
	int f = openat(parent, name,
		       O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (f < 0)
		return error_errno(err, "device %s", path);
	close(f);
	target = openat(parent, name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (target < 0)
		return error_errno(err, "device %s", path);
	src = hostpath_open(path, O_PATH, "device", err);
	if (src < 0)
		return -1;
	if (fstat(src, &st) < 0 ||
	    (st.st_mode & S_IFMT) != node_type(d->type) ||
	    st.st_rdev != makedev((unsigned)d->major, (unsigned)d->minor))
		return error_set(
		    err, EPERM,
		    "device %s: the host's node is not %c %lld:%lld", path,
		    d->type, (long long)d->major, (long long)d->minor);
	fd_path(src, sp);
	fd_path(target, tp);
	if (mount(sp, tp, NULL, MS_BIND, NULL) < 0)
		return error_errno(err, "bind device %s", path);
	return 0;
}

/* D's node, in `dev` (/dev, opened once) when that is its directory. */
static int make_node(int rootfd, int dev, const struct spec_device *d,
		     struct error **err)
{
	_cleanup_free_ char *dir = strdup(d->path);
	_cleanup_close_ int own = -1;
	mode_t mode = d->file_mode.set ? (mode_t)d->file_mode.v : 0666;
	char *slash = dir ? strrchr(dir, '/') : NULL;
	const char *name;
	int parent = dev;

	if (!dir)
		return error_set(err, ENOMEM, "out of memory");
	if (!slash || !slash[1])
		return error_set(err, EINVAL, "device %s: not an absolute path",
				 d->path);
	*slash = '\0';
	name = slash + 1;
	if (strcmp(dir, "/dev") != 0) {
		own = open_made_in_root(rootfd, dir, false,
					O_PATH | O_DIRECTORY, false, err);
		if (own < 0)
			return -1;
		parent = own;
	}
	if (unlinkat(parent, name, 0) < 0 && errno != ENOENT)
		return error_errno(err, "device %s", d->path);
	if (mknodat(parent, name, node_type(d->type) | (mode & 07777),
		    makedev((unsigned)d->major, (unsigned)d->minor)) < 0) {
		if (errno != EPERM)
			return error_errno(err, "mknod %s", d->path);
		return bind_host_node(parent, name, d, err);
	}
	if (fchownat(parent, name, d->uid.set ? (uid_t)d->uid.v : 0,
		     d->gid.set ? (gid_t)d->gid.v : 0, AT_SYMLINK_NOFOLLOW) < 0)
		return error_errno(err, "chown %s", d->path);
	return 0;
}

static bool has_devpts(const struct spec *spec)
{
	for (size_t i = 0; i < spec->n_mounts; i++)
		if (spec->mounts[i].type &&
		    strcmp(spec->mounts[i].type, "devpts") == 0 &&
		    strcmp(spec->mounts[i].destination, "/dev/pts") == 0)
			return true;
	return false;
}

int devices_setup(int rootfd, const struct spec *spec, struct error **err)
{
	const struct spec_linux *l = spec->linux_;
	_cleanup_close_ int dev = -1;

	dev = open_made_in_root(rootfd, "/dev", false, O_PATH | O_DIRECTORY,
				false, err);
	if (dev < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(standard); i++)
		if (make_node(rootfd, dev, &standard[i], err) < 0)
			return -1;
	for (size_t i = 0; l && i < l->n_devices; i++)
		if (make_node(rootfd, dev, &l->devices[i], err) < 0)
			return -1;
	for (size_t i = 0; i < ARRAY_SIZE(links); i++)
		if (symlinkat(links[i].target, dev, links[i].name) < 0 &&
		    errno != EEXIST)
			return error_errno(err, "link /dev/%s", links[i].name);
	if (has_devpts(spec)) {
		if (unlinkat(dev, "ptmx", 0) < 0 && errno != ENOENT)
			return error_errno(err, "replace /dev/ptmx");
		if (symlinkat("pts/ptmx", dev, "ptmx") < 0)
			return error_errno(err, "link /dev/ptmx");
	}
	return 0;
}
