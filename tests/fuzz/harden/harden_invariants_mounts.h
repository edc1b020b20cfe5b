/* harden_invariants.h's invariants of mounts and the root's place: kept
 * binds, kernel filesystems at their places, the root, id maps and hooks
 * (its helpers and struct hinv_case come from harden_invariants.h, which
 * includes this file after them). */
#ifndef CORRAL_HARDEN_INVARIANTS_MOUNTS_H
#define CORRAL_HARDEN_INVARIANTS_MOUNTS_H

/* ---- mounts ---------------------------------------------------------- */

static inline bool hinv_is_bind(const struct spec_mount *m)
{
	return (m->type && strcmp(m->type, "bind") == 0) ||
	       hinv_has(m->options, m->n_options, "bind") ||
	       hinv_has(m->options, m->n_options, "rbind");
}

/* Whether a bind from source may be written (the longest policy entry
 * that holds it says rw); *entry false when no entry holds it. */
static inline bool hinv_bind_rw(const struct policy *p, const char *source,
				bool *entry)
{
	const struct policy_mount *best = NULL;

	for (size_t i = 0; i < p->n_mounts; i++)
		if (hinv_under(source, p->mounts[i].source) &&
		    (!best ||
		     strlen(p->mounts[i].source) > strlen(best->source)))
			best = &p->mounts[i];
	*entry = best != NULL;
	return best && best->rw;
}

/* The kubelet volume kind the rule keeps a bind of, 'w' (emptyDir,
 * written), 'r' (read-only), or 0: the source is ENGINEDIR/UID/volumes/
 * kubernetes.io~KIND/NAME for an engineDirs entry whose last component is
 * "pods", UID the config's pod-uid annotation, KIND one volumes.kinds
 * names (or a secret or projected volume volumes.secrets names). */
static inline char hinv_volume(const struct policy *p, const struct spec *c,
			       const char *source)
{
	static const char *const kinds[][2] = {{"empty-dir", "emptyDir"},
					       {"configmap", "configMap"},
					       {"downward-api", "downwardAPI"}};
	const char *uid = NULL;
	char want[4096];

	for (size_t i = 0; c && i < c->n_annotations; i++)
		if (!strcmp(c->annotations[i].key,
			    "io.kubernetes.cri.sandbox-uid") ||
		    (!uid &&
		     !strcmp(c->annotations[i].key, "io.kubernetes.pod.uid")))
			uid = c->annotations[i].value;
	for (size_t i = 0; uid && i < p->n_engine_dirs; i++) {
		const char *d = p->engine_dirs[i], *name;
		size_t n = strlen(d);

		if (n < 5 || strcmp(d + n - 5, "/pods") != 0)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(kinds) + 2; k++) {
			const char *dir = k < ARRAY_SIZE(kinds) ? kinds[k][0]
					  : k == ARRAY_SIZE(kinds)
					      ? "secret"
					      : "projected";
			int len = snprintf(want, sizeof(want),
					   "%s/%s/volumes/kubernetes.io~%s/", d,
					   uid, dir);

			if (len <= 0 || (size_t)len >= sizeof(want) ||
			    strncmp(source, want, (size_t)len) != 0)
				continue;
			name = source + len;
			if (!*name || strchr(name, '/'))
				continue;
			if (k >= ARRAY_SIZE(kinds))
				return hinv_has(p->volume_secrets,
						p->n_volume_secrets, name)
					   ? 'r'
					   : 0;
			if (!hinv_has(p->volume_kinds, p->n_volume_kinds,
				      kinds[k][1]))
				return 0;
			return k == 0 ? 'w' : 'r';
		}
	}
	return 0;
}

static inline const char *hinv_bind(const struct policy *p,
				    const struct spec *c,
				    const struct spec_mount *m)
{
	static const char *const never[] = {"/var/run/secrets/kubernetes.io",
					    "/run/secrets/kubernetes.io",
					    "/run/containerd",
					    "/var/run/containerd",
					    "/run/docker",
					    "/var/run/docker",
					    "/run/podman",
					    "/var/run/podman",
					    "/run/crio",
					    "/var/run/crio"};
	static const char *const engine[] = {
	    "/etc/hosts", "/etc/hostname", "/etc/resolv.conf",
	    "/run/.containerenv", "/dev/termination-log"};
	static const char *const widening[] = {"suid", "rsuid", "dev", "rdev"};
	const char *base;
	bool entry, rw;

	if (!m->source || !hinv_clean(m->source))
		return "a bind whose source is not clean";
	base = strrchr(m->source, '/') + 1;
	/* the token by source or destination (the first two); engine
	 * state by source: a destination is a path in the container */
	for (size_t i = 0; i < ARRAY_SIZE(never); i++)
		if (hinv_under(m->source, never[i]) ||
		    (i < 2 && hinv_under(m->destination, never[i])))
			return "a bind of engine state or the token";
	if (strstr(base, ".sock") && (strcmp(base, "docker.sock") == 0 ||
				      strcmp(base, "containerd.sock") == 0 ||
				      strcmp(base, "podman.sock") == 0 ||
				      strcmp(base, "crio.sock") == 0))
		return "a bind of an engine socket";
	rw = hinv_bind_rw(p, m->source, &entry);
	if (!entry && hinv_volume(p, c, m->source)) {
		entry = true;
		rw = hinv_volume(p, c, m->source) == 'w';
	}
	if (!entry && !hinv_has((char *const *)engine, ARRAY_SIZE(engine),
				m->destination))
		return "a bind neither in the policy nor an engine file";
	if (!hinv_has(m->options, m->n_options, "nosuid") ||
	    !hinv_has(m->options, m->n_options, "nodev"))
		return "a bind without nosuid,nodev";
	for (size_t i = 0; i < ARRAY_SIZE(widening); i++)
		if (hinv_has(m->options, m->n_options, widening[i]))
			return "a bind with suid or dev";
	if (!rw && (!hinv_has(m->options, m->n_options, "ro") ||
		    hinv_has(m->options, m->n_options, "rw") ||
		    hinv_has(m->options, m->n_options, "rrw")))
		return "a bind writable without a policy rw entry";
	return NULL;
}

static inline const char *hinv_fs(const struct spec_mount *m)
{
	static const char *const kept[] = {
	    "proc", "sysfs", "tmpfs", "devpts", "mqueue", "cgroup", "cgroup2"};
	bool size = false;

	if (!m->type ||
	    !hinv_has((char *const *)kept, ARRAY_SIZE(kept), m->type))
		return "a mount of a filesystem that reaches beyond";
	if (strcmp(m->type, "sysfs") == 0 || strcmp(m->type, "cgroup") == 0 ||
	    strcmp(m->type, "cgroup2") == 0)
		if (!hinv_has(m->options, m->n_options, "ro") ||
		    hinv_has(m->options, m->n_options, "rw"))
			return "sysfs or cgroup writable";
	if (strcmp(m->type, "tmpfs") != 0)
		return NULL;
	for (size_t i = 0; i < m->n_options; i++)
		size |= strncmp(m->options[i], "size=", 5) == 0;
	/* Only where the container can make files: proc, sysfs, cgroup,
	 * devpts and mqueue hold nothing it could set suid on, and the rule
	 * leaves their options to config.json. */
	if (!size || !hinv_has(m->options, m->n_options, "nosuid") ||
	    hinv_has(m->options, m->n_options, "suid") ||
	    hinv_has(m->options, m->n_options, "rsuid") ||
	    (strcmp(m->destination, "/dev") != 0 &&
	     !hinv_has(m->options, m->n_options, "nodev")))
		return "a tmpfs without size, nosuid or nodev";
	return NULL;
}

static inline bool hinv_same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* A destination as the rule tidies it ("//a/./b/" is "/a/b"), written
 * into out (at least as long as d plus 2). */
static inline void hinv_tidy(const char *d, char *out)
{
	size_t n = 0;

	for (const char *p = d; *p;) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len > 0 && !(len == 1 && p[0] == '.')) {
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
}

static inline bool hinv_same_dest(const char *e, const char *c)
{
	char *t = c ? (char *)malloc(strlen(c) + 2) : NULL;
	bool same;

	if (!t)
		return hinv_same(e, c);
	hinv_tidy(c, t);
	same = hinv_same(e, c) || hinv_same(e, t);
	free(t);
	return same;
}

/* The kernel's filesystems once each, only at their own places; nothing
 * else under /proc or /sys, nothing over "/", no remount. */
static inline const char *hinv_places(const struct spec *e)
{
	static const char *const types[] = {"proc",   "sysfs",	"devpts",
					    "mqueue", "cgroup", "cgroup2"};
	static const char *const places[] = {
	    "/proc",	   "/sys",	     "/dev/pts",
	    "/dev/mqueue", "/sys/fs/cgroup", "/sys/fs/cgroup"};
	int count[6] = {0};

	for (size_t i = 0; i < e->n_mounts; i++) {
		const struct spec_mount *m = &e->mounts[i];
		int t = -1;

		if (hinv_has(m->options, m->n_options, "remount"))
			return "a remount kept";
		if (strcmp(m->destination, "/") == 0)
			return "a mount over the root";
		for (int j = 0; !hinv_is_bind(m) && m->type && j < 6; j++)
			if (strcmp(m->type, types[j]) == 0)
				t = j;
		if (t >= 0 && strcmp(m->destination, places[t]) != 0)
			return "a kernel filesystem away from its place";
		if (t >= 0 && ++count[t >= 4 ? 4 : t] > 1)
			return "a kernel filesystem twice";
		if (t < 0 &&
		    ((strncmp(m->destination, "/proc", 5) == 0 &&
		      (!m->destination[5] || m->destination[5] == '/')) ||
		     (strncmp(m->destination, "/sys", 4) == 0 &&
		      (!m->destination[4] || m->destination[4] == '/'))))
			return "a mount under /proc or /sys";
	}
	return NULL;
}

/* corral's own user namespace: only from a pool, and then one mapping of
 * the container's ids 0-65535 onto a slice inside it (the pool's first
 * when no slice was reserved, as here), never host root. */
static inline bool hinv_has_ns(const struct spec_linux *lx, enum spec_ns_type t)
{
	for (size_t i = 0; i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == t)
			return true;
	return false;
}

static inline const char *hinv_own_userns(const struct hinv_case *k)
{
	const struct spec_linux *lx = k->h->spec->linux_;
	const struct policy *p = k->policy;

	if (!p->pool.set || !lx || !hinv_has_ns(lx, NS_USER))
		return "corral's own user namespace without a pool";
	for (int u = 0; u < 2; u++) {
		const struct spec_id_mapping *m =
		    u ? lx->gid_mappings : lx->uid_mappings;
		size_t n = u ? lx->n_gid_mappings : lx->n_uid_mappings;
		uint64_t lo = u ? p->pool.gid : p->pool.uid;

		if (n != 1 || m[0].container_id != 0 ||
		    m[0].size != POLICY_SLICE || m[0].host_id < lo ||
		    (uint64_t)m[0].host_id + POLICY_SLICE > lo + p->pool.size ||
		    m[0].host_id == 0)
			return "corral's own user namespace maps outside "
			       "its pool";
	}
	return hinv_places(k->h->spec);
}

/* Hooks only as the policy names them, never startContainer; user
 * namespaces only into the policy's host range. */
static inline const char *hinv_host(const struct hinv_case *k)
{
	const struct spec *e = k->h->spec;
	const struct policy *p = k->policy;
	const struct spec_linux *lx = e->linux_;

	if (e->hooks[HOOK_START_CONTAINER].n)
		return "a startContainer hook kept";
	for (int kind = 0; kind < HOOK_KIND_COUNT; kind++)
		for (size_t i = 0; i < e->hooks[kind].n; i++) {
			const struct spec_hook *h = &e->hooks[kind].hooks[i];
			bool ok = false;

			for (size_t j = 0; j < p->n_hooks && !ok; j++)
				ok = strcmp(p->hooks[j].path, h->path) == 0;
			if (!ok)
				return "a hook the policy does not name";
			if (h->n_env != 1 ||
			    strncmp(h->env[0], "PATH=", 5) != 0)
				return "a hook with config.json's environment";
		}
	if (k->h->sandbox.userns_auto)
		return hinv_own_userns(k);
	for (size_t i = 0; lx && i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == NS_USER && !p->id_map.set)
			return "a user namespace without user.idMap";
	for (int u = 0; lx && u < 2; u++) {
		const struct spec_id_mapping *m =
		    u ? lx->gid_mappings : lx->uid_mappings;
		size_t n = u ? lx->n_gid_mappings : lx->n_uid_mappings;

		for (size_t i = 0; i < n; i++)
			if (!p->id_map.set ||
			    m[i].host_id < p->id_map.host_id ||
			    (uint64_t)m[i].host_id + m[i].size >
				(uint64_t)p->id_map.host_id + p->id_map.size)
				return "an id mapping outside user.idMap";
	}
	return hinv_places(e);
}

static inline const char *hinv_mounts(const struct hinv_case *k)
{
	const struct spec *c = k->config, *e = k->h->spec;

	for (size_t i = 0; i < e->n_mounts; i++) {
		const struct spec_mount *m = &e->mounts[i];
		bool found = false;
		const char *why;

		for (size_t j = 0; j < c->n_mounts && !found; j++)
			found = hinv_same_dest(m->destination,
					       c->mounts[j].destination) &&
				((hinv_same(m->type, c->mounts[j].type) &&
				  hinv_same(m->source, c->mounts[j].source)) ||
				 (strcmp(m->destination, "/dev/shm") == 0 &&
				  hinv_same(m->type, "tmpfs") &&
				  hinv_same(m->source, "shm")));
		if (!found)
			return "a mount not in config.json";
		why = hinv_is_bind(m) ? hinv_bind(k->policy, c, m) : hinv_fs(m);
		if (why)
			return why;
	}
	return NULL;
}

#endif
