#include "policy_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fsutil.h"
#include "kernel_probe.h"
#include "rootless.h"
#include "util.h"

/* A group's id from the host's /etc/group, open as `group_file` (not NSS:
 * a directory service is not where the host's own privileged groups
 * live). */
static bool group_from_file(void *group_file, const char *name, uint32_t *gid)
{
	char text[16], *end;
	unsigned long id;

	if (!colon_stream_lookup(group_file, 0, name, 2, text, sizeof(text)))
		return false;
	errno = 0;
	id = strtoul(text, &end, 10);
	if (errno || end == text || *end || id >= UINT32_MAX)
		return false;
	*gid = (uint32_t)id;
	return true;
}

/* The policy's privileged groups as ids, /etc/group opened once for all
 * the names (unreadable: only the numeric ones and 0). */
static int resolve_groups(struct policy *p, struct error **err)
{
	_cleanup_fclose_ FILE *f = fopen("/etc/group", "re");

	return policy_resolve_groups(p, group_from_file, f, err);
}

/* The first "NAME:START:COUNT" line of a subordinate-id file (subuid(5)),
 * read as a file, not through NSS or a library. */
static bool subid_range(const char *file, const char *name, uint32_t *start,
			uint32_t *count)
{
	_cleanup_fclose_ FILE *f = fopen(file, "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0, n = strlen(name);

	while (f && getline(&line, &cap, f) > 0) {
		unsigned long a, b;
		char *p, *end;

		if (strncmp(line, name, n) != 0 || line[n] != ':')
			continue;
		p = line + n + 1;
		errno = 0;
		a = strtoul(p, &end, 10);
		if (errno || end == p || *end != ':')
			continue;
		p = end + 1;
		b = strtoul(p, &end, 10);
		if (errno || end == p || (*end != '\n' && *end != '\0') ||
		    a > UINT32_MAX || b > UINT32_MAX)
			continue;
		*start = (uint32_t)a;
		*count = (uint32_t)b;
		return true;
	}
	return false;
}

/* Without user.pool in the policy file, the host's reservation for
 * corral, as podman's --userns=auto takes the user "containers"'s: the
 * /etc/subuid and /etc/subgid lines of "corral"; not on a kernel whose
 * overlayfs takes no idmapped layer (before 5.19), which `corral explain`
 * and `corral features` say (host_kernel.h). */
static void pool_from_subid(struct policy *p)
{
	uint32_t uid, uids, gid, gids, size;

	if (p->pool.set || p->mode == POLICY_PERMISSIVE || p->rootless ||
	    !subid_range("/etc/subuid", SUBID_USER, &uid, &uids) ||
	    !subid_range("/etc/subgid", SUBID_USER, &gid, &gids))
		return;
	size = uids < gids ? uids : gids;
	if (policy_pool_check(uid, gid, size) < 0 ||
	    !host_kernel_idmaps_layers(&p->kernel))
		return;
	p->pool = (struct policy_pool){.set = true,
				       .from_subid = true,
				       .uid = uid,
				       .gid = gid,
				       .size = size};
}

int policy_load_text(const char *json, size_t len, struct policy **out,
		     struct error **err)
{
	struct policy *p = NULL;

	if (policy_parse(json, len, &p, err) < 0)
		return -1;
	if (resolve_groups(p, err) < 0) {
		policy_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

/* What the runtime knows of the caller, for harden() (policy.h);
 * OUTSIDE: not root of the host's user namespace. */
static void host_facts(struct policy *p, bool outside)
{
	/* the runtime's own hard rlimits: the ceiling of config.json's */
	p->rlimits_known = true;
	for (int i = 0; i < POLICY_RLIMITS; i++) {
		struct rlimit l;

		if (getrlimit(i, &l) < 0) {
			p->rlimits_known = false;
			break;
		}
		p->rlimit_max[i] = l.rlim_max;
	}
	p->rootless = outside;
	p->rootless_nested = p->rootless && !rootless();
	p->rootless_single =
	    p->rootless && strcmp(rootless_mapping(), "single") == 0;
	p->rootless_groups = p->rootless_single && rootless_has_groups();
	p->kernel = *kernel_probe();
}

/* One file: `path` (missing: the built-in defaults, unless `named`). */
static int load_file(const char *path, bool named, struct policy **out,
		     struct error **err)
{
	_cleanup_error_ struct error *read_err = NULL;
	_cleanup_free_ char *json = NULL;
	size_t len;

	if (read_file_at(AT_FDCWD, path, &json, &len, &read_err) < 0) {
		if (named || read_err->code != ENOENT)
			return error_set(err, read_err->code, "policy: %s",
					 read_err->msg);
		if (policy_default(out, err) < 0)
			return -1;
		if (resolve_groups(*out, err) < 0) {
			policy_free(*out);
			*out = NULL;
			return -1;
		}
		return 0;
	}
	if (policy_load_text(json, len, out, err) < 0)
		return error_wrap(err, "policy %s", path);
	return 0;
}

/* An ordinary user's: its own file (given is --policy's, else the one
 * under XDG_CONFIG_HOME) under the system's, which is the ceiling
 * (policy_narrow); either alone when the other is missing.  A --policy
 * file is no way around the administrator's. */
static int load_rootless(const char *given, struct policy **out,
			 struct error **err)
{
	_cleanup_free_ char *found = given ? NULL : rootless_policy_path();
	const char *user_path = given ? given : found;
	struct policy *sys = NULL, *user = NULL;
	int r;

	if (!user_path)
		return load_file(POLICY_PATH, false, out, err);
	/* only a missing system file is none: one the user cannot read
	 * (a 0750 /etc/corral) fails below rather than lifting the ceiling */
	if (access(POLICY_PATH, F_OK) < 0 && errno == ENOENT)
		return load_file(user_path, true, out, err);
	if (load_file(POLICY_PATH, true, &sys, err) < 0)
		return -1;
	r = load_file(user_path, true, &user, err);
	if (r == 0 && (r = policy_narrow(sys, user, err)) == 0)
		r = resolve_groups(sys, err);
	policy_free(user);
	if (r < 0) {
		policy_free(sys);
		return -1;
	}
	*out = sys;
	return 0;
}

int policy_load(const char *path, struct policy **out, struct error **err)
{
	bool outside = rootless() || rootless_outside_host();
	int r;

	if (outside)
		r = load_rootless(path, out, err);
	else if (path)
		r = load_file(path, true, out, err);
	else
		r = load_file(POLICY_PATH, false, out, err);
	if (r < 0)
		return -1;
	host_facts(*out, outside);
	pool_from_subid(*out);
	return 0;
}

int policy_allow_mount(struct policy *p, const char *source, bool rw,
		       struct error **err)
{
	struct policy_mount *grown =
	    realloc(p->mounts, (p->n_mounts + 1) * sizeof(*p->mounts));

	if (!grown)
		return error_set(err, ENOMEM, "out of memory");
	p->mounts = grown;
	grown[p->n_mounts] =
	    (struct policy_mount){.source = strdup(source), .rw = rw};
	if (!grown[p->n_mounts].source)
		return error_set(err, ENOMEM, "out of memory");
	p->n_mounts++;
	return 0;
}

int policy_drop_source(struct policy *p, const char *source, struct error **err)
{
	char **grown =
	    realloc(p->drop_sources, (p->n_drop_sources + 2) * sizeof(*grown));

	if (!grown)
		return error_set(err, ENOMEM, "out of memory");
	p->drop_sources = grown;
	grown[p->n_drop_sources] = strdup(source);
	grown[p->n_drop_sources + 1] = NULL;
	if (!grown[p->n_drop_sources])
		return error_set(err, ENOMEM, "out of memory");
	p->n_drop_sources++;
	return 0;
}

int policy_allow_root(struct policy *p, const char *dir, struct error **err)
{
	char **grown;

	if (policy_system_dir(dir))
		return error_set(err, EPERM,
				 "rootfs %s: a system directory is not a root "
				 "filesystem",
				 dir);
	grown = realloc(p->root_dirs, (p->n_root_dirs + 2) * sizeof(*grown));
	if (!grown)
		return error_set(err, ENOMEM, "out of memory");
	p->root_dirs = grown;
	grown[p->n_root_dirs] = strdup(dir);
	grown[p->n_root_dirs + 1] = NULL;
	if (!grown[p->n_root_dirs])
		return error_set(err, ENOMEM, "out of memory");
	p->n_root_dirs++;
	return 0;
}
