/* An engine's overlay root, taken apart into its layers
 * (overlay_layers.h). */
#include "overlay_layers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fsutil.h"
#include "hostpath.h"
#include "overlay_opts.h"
#include "util.h"

#ifndef OVERLAYFS_SUPER_MAGIC
#define OVERLAYFS_SUPER_MAGIC 0x794c7630
#endif

bool overlay_is_root(int fd)
{
	struct statfs sf;
	struct statx sx;

	return fstatfs(fd, &sf) == 0 &&
	       (unsigned long)sf.f_type == OVERLAYFS_SUPER_MAGIC &&
	       statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) == 0 &&
	       (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* The super options of mount `id` in /proc/self/mountinfo: the last
 * field of its line, after the " - TYPE SOURCE" separator. */
static int super_options(uint64_t id, char **out, struct error **err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return error_errno(err, "overlay: /proc/self/mountinfo");
	while ((n = getline(&line, &cap, f)) > 0) {
		char *sep, *type, *source, *opts;
		unsigned long long mid;

		if (sscanf(line, "%llu ", &mid) != 1 || mid != id)
			continue;
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		sep = strstr(line, " - ");
		type = sep ? sep + 3 : NULL;
		source = type ? strchr(type, ' ') : NULL;
		opts = source ? strchr(source + 1, ' ') : NULL;
		if (!opts || strncmp(type, "overlay ", 8) != 0)
			break;
		*out = strdup(opts + 1);
		return *out ? 0 : error_set(err, ENOMEM, "out of memory");
	}
	return error_set(err, ENOENT,
			 "overlay: its mount is not in /proc/self/mountinfo");
}

/* A layer below one of dirs: the entry walked without a link, the rest
 * beneath it, where the engine's own links are followed as long as they
 * stay below it (podman's overlay driver names its layers by short links,
 * l/ID -> ../DIGEST/diff). */
static int open_layer(const char *path, char *const *dirs, size_t n_dirs,
		      struct error **err)
{
	for (size_t i = 0; i < n_dirs; i++) {
		size_t k = strlen(dirs[i]);
		int fd;

		if (strncmp(path, dirs[i], k) != 0 ||
		    (path[k] != '/' && path[k] != '\0'))
			continue;
		fd = hostpath_open_beneath(dirs[i], path, true,
					   O_PATH | O_DIRECTORY,
					   "overlay layer", err);
		if (fd < 0 ||
		    hostpath_check_under(fd, dirs[i], path, err) < 0) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		return fd;
	}
	return error_set(err, EPERM,
			 "overlay layer %s: not below an engine directory "
			 "(policy: engineDirs)",
			 path);
}

int overlay_layers_open(int fd, char *const *dirs, size_t n_dirs,
			struct overlay_layers *out, struct error **err)
{
	_cleanup_free_ char *opts = NULL;
	struct overlay_opts o = {0};
	struct statx sx;
	int r = 0;

	out->n = 0;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return error_errno(err, "overlay: its mount id");
	if (super_options(sx.stx_mnt_id, &opts, err) < 0 ||
	    overlay_opts_parse(opts, OVERLAY_LAYERS_MAX, &o, err) < 0)
		return -1;
	out->userxattr = o.userxattr;
	for (size_t i = 0; i < o.n && r == 0; i++) {
		int layer = open_layer(o.layers[i], dirs, n_dirs, err);

		if (layer < 0)
			r = -1;
		else
			out->fd[out->n++] = layer;
	}
	overlay_opts_release(&o);
	if (r < 0)
		overlay_layers_close(out);
	return r;
}

void overlay_layers_close(struct overlay_layers *l)
{
	for (size_t i = 0; i < l->n; i++)
		close(l->fd[i]);
	l->n = 0;
}
