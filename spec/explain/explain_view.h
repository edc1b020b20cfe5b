/* The view `corral explain` renders (spec/explain/explain.c): what a hardened
 * container can reach, concern by concern, as display strings and
 * numbers, built once from the hardened result (explain_view.c) so that
 * the page and the JSON cannot tell different stories. */
#ifndef CORRAL_EXPLAIN_VIEW_H
#define CORRAL_EXPLAIN_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harden.h"

/* What the container can reach, as lists of display strings and numbers
 * (0 meaning "no limit"). */
struct view {
	const struct hardened *h;
	bool oom;
	char *root;	    /* "read-only image + 64 MiB scratch overlay" */
	bool root_readonly; /* "/" itself cannot be written */
	char **writable;    /* "/ (scratch, 64 MiB, discarded at delete)" */
	size_t n_writable;
	char **host_paths; /* "/etc/hosts <- /run/.../hosts (ro)" */
	size_t n_host_paths;
	char *network;	   /* one sentence */
	const char *netns; /* "new", a path, or "host" */
	char **env_kept, **env_dropped;
	size_t n_env_kept, n_env_dropped;
	const char *wall_source;
	int64_t memory, swap, pids, cpu_quota, cpu_period;
	char **caps, **devices;
	size_t n_caps, n_devices;
	char **hooks; /* "prestart /usr/bin/x" (kept: they run as root) */
	size_t n_hooks;
	char **id_maps; /* "uid 0-65535 -> host 100000-165535" */
	size_t n_id_maps;
};

/* Build v from h; ENOMEM (and nothing to release) when out of memory. */
int explain_view_build(const struct hardened *h, struct view *v,
		       struct error **err);
void explain_view_release(struct view *v);

/* The host id that container id `id` maps to, or -1 (no user namespace,
 * or not mapped). */
long long explain_host_id(const struct spec_id_mapping *m, size_t n,
			  uint32_t id);

#endif
