/* Unit tests of the rules of harden() that concern a hostile bundle: what
 * config.json points at on the host (root.path, hooks, id maps, bind
 * sources and engine files), the ids it runs as, the mount options and
 * kernel filesystems it asks for, and what the result tells the runtime
 * to check (binds[], root_beneath/root_path). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "harden_internal.h"

#define BUNDLE "/run/engine/bundles/b1"

/* config.json with a root user, the given root.path, mounts, hooks and
 * linux object (each JSON text). */
static struct spec *config(const char *root, const char *mounts,
			   const char *hooks, const char *linux_)
{
	char json[8192];

	snprintf(json, sizeof(json),
		 "{\"ociVersion\": \"1.2.0\","
		 " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
		 "  \"args\": [\"sh\"], \"cwd\": \"/\"},"
		 " \"root\": {\"path\": \"%s\"}, \"mounts\": [%s],"
		 " \"hooks\": {%s}, \"linux\": {%s}}",
		 root, mounts, hooks, linux_);
	return spec_of(json);
}

/* "a,b,c" */
static char *joined(char *const *v, size_t n)
{
	char *out = calloc(1, 1);

	for (size_t i = 0; out && i < n; i++) {
		char *next = NULL;

		if (asprintf(&next, "%s%s%s", out, i ? "," : "", v[i]) < 0)
			next = NULL;
		free(out);
		out = next;
	}
	return out;
}

static struct spec *with_mounts(const char *mounts)
{
	return config("rootfs", mounts, "", "");
}

static struct policy *policy_json(const char *json)
{
	struct policy *p = policy_of(json);

	return p;
}

/* harden() with a bundle path; NULL (and the error printed) on failure. */
static struct hardened *harden_in(const struct spec *s, const struct policy *p,
				  char **error)
{
	struct error *err = NULL;
	struct policy *def = NULL;
	struct hardened *h = NULL;

	if (!s)
		return NULL;
	if (!p && policy_default(&def, &err) < 0)
		return NULL;
	if (harden(s, p ? p : def, BUNDLE, &h, &err) < 0) {
		if (error)
			*error = strdup(err->msg);
		error_free(err);
		h = NULL;
	}
	policy_free(def);
	return h;
}

static bool refused_with(const struct spec *s, const struct policy *p,
			 const char *part)
{
	char *msg = NULL;
	struct hardened *h = harden_in(s, p, &msg);
	bool ok = !h && msg && strstr(msg, part);

	if (!ok)
		printf("# expected a refusal with \"%s\", got %s\n", part,
		       msg ? msg : "(hardened)");
	hardened_free(h);
	free(msg);
	return ok;
}

static const struct harden_bind *bind_of(const struct hardened *h,
					 const char *dest)
{
	for (size_t i = 0; h && i < h->n_binds; i++)
		if (strcmp(h->spec->mounts[h->binds[i].mount].destination,
			   dest) == 0)
			return &h->binds[i];
	return NULL;
}

/* ---- root.path ------------------------------------------------------- */

TEST(root_path_in_the_bundle_or_an_engine_dir)
{
	struct spec *rel = config("rootfs", "", "", "");
	struct spec *abs = config(BUNDLE "/rootfs", "", "", "");
	struct spec *store = config(
	    "/var/lib/containers/storage/overlay/abc/merged", "", "", "");
	struct hardened *hr = harden_in(rel, NULL, NULL);
	struct hardened *ha = harden_in(abs, NULL, NULL);
	struct hardened *hs = harden_in(store, NULL, NULL);

	CHECK(hr && !hr->root_beneath && !strcmp(hr->root_path, "rootfs"));
	CHECK(ha && !ha->root_beneath && !strcmp(ha->root_path, "rootfs"));
	CHECK(hs && hs->root_beneath &&
	      !strcmp(hs->root_beneath, "/var/lib/containers/storage") &&
	      !strcmp(hs->root_path, "overlay/abc/merged"));
	hardened_free(hr);
	hardened_free(ha);
	hardened_free(hs);
	spec_free(rel);
	spec_free(abs);
	spec_free(store);
}

TEST(root_path_anywhere_else_is_refused)
{
	static const char *const bad[] = {
	    "/etc",
	    "/",
	    "/usr",
	    "/srv/images/x",
	    "../../etc",
	    "rootfs/../..",
	    "./rootfs",
	    BUNDLE,
	    "/var/lib/containers/storage",
	    "/var/lib/containerd/../../../etc",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct spec *s = config(bad[i], "", "", "");

		if (!refused_with(s, NULL, ".root.path"))
			printf("# root.path %s\n", bad[i]);
		spec_free(s);
	}
}

TEST(root_path_the_callers_own)
{
	struct spec *s = config("/home/me/rootfs", "", "", "");
	struct policy *p = policy_of(NULL);
	struct hardened *h = NULL;

	if (p &&
	    harden_strv_push(&p->root_dirs, &p->n_root_dirs, "/home/me/rootfs"))
		h = harden_in(s, p, NULL);
	CHECK(h && !strcmp(h->root_beneath, "/home/me/rootfs") &&
	      !strcmp(h->root_path, "."));
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* ---- hooks ----------------------------------------------------------- */

TEST(hooks_only_from_the_allowlist_with_their_args)
{
	struct spec *s = config(
	    "rootfs", "",
	    "\"prestart\": [{\"path\": \"/usr/bin/nv\", \"args\": [\"nv\", "
	    "\"prestart\"], \"env\": [\"LD_PRELOAD=/x.so\"]},"
	    " {\"path\": \"/usr/bin/nv\", \"args\": [\"nv\", \"-config=/x\"]},"
	    " {\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"id\"]}],"
	    " \"createRuntime\": [{\"path\": \"/usr/bin/nv\"}],"
	    " \"startContainer\": [{\"path\": \"/usr/bin/nv\", \"args\": "
	    "[\"nv\", \"prestart\"]}]",
	    "");
	struct policy *p =
	    policy_json("{\"hooks\": {\"allow\": [{\"path\": \"/usr/bin/nv\","
			" \"args\": [\"nv\", \"prestart\"]}]}}");
	struct hardened *h = harden_in(s, p, NULL),
			*hd = harden_in(s, NULL, NULL);
	const struct spec_hook_list *pre =
	    h ? &h->spec->hooks[HOOK_PRESTART] : NULL;

	CHECK(pre && pre->n == 1 && !strcmp(pre->hooks[0].args[1], "prestart"));
	CHECK(pre && pre->n == 1 && pre->hooks[0].n_env == 1 &&
	      !strncmp(pre->hooks[0].env[0], "PATH=", 5));
	CHECK(h && h->spec->hooks[HOOK_CREATE_RUNTIME].n == 0);
	CHECK(h && h->spec->hooks[HOOK_START_CONTAINER].n == 0);
	CHECK_CHANGE(h, ".hooks.prestart[2]", "/bin/sh", "dropped",
		     "policy: hooks.allow");
	CHECK_CHANGE(h, ".hooks.startContainer[0]", "/usr/bin/nv", "dropped",
		     "default: a startContainer hook is the container's own "
		     "program, run with the runtime's privileges");
	for (int k = 0; hd && k < HOOK_KIND_COUNT; k++)
		CHECK(hd->spec->hooks[k].n == 0);
	CHECK_CHANGE(hd, ".hooks.prestart[0]", "/usr/bin/nv", "dropped",
		     "default");
	hardened_free(h);
	hardened_free(hd);
	policy_free(p);
	spec_free(s);
}

TEST(a_hook_entry_without_args_allows_only_the_bare_path)
{
	struct spec *s = config(
	    "rootfs", "",
	    "\"poststop\": [{\"path\": \"/usr/bin/clean\"},"
	    " {\"path\": \"/usr/bin/clean\", \"args\": [\"/usr/bin/clean\"]},"
	    " {\"path\": \"/usr/bin/clean\", \"args\": [\"clean\", \"-x\"]}]",
	    "");
	struct policy *p = policy_json(
	    "{\"hooks\": {\"allow\": [{\"path\": \"/usr/bin/clean\"}]}}");
	struct hardened *h = harden_in(s, p, NULL);

	CHECK(h && h->spec->hooks[HOOK_POSTSTOP].n == 2);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* ---- user namespaces and ids ----------------------------------------- */

#define EVIL_MAPS                                                              \
	"\"namespaces\": [{\"type\": \"user\"}],"                              \
	" \"uidMappings\": [{\"containerID\": 0, \"hostID\": 100000, "         \
	"\"size\": 65534}, {\"containerID\": 65534, \"hostID\": 0, "           \
	"\"size\": 1}],"                                                       \
	" \"gidMappings\": [{\"containerID\": 0, \"hostID\": 100000, "         \
	"\"size\": 65536}]"

TEST(without_an_id_map_the_user_namespace_and_its_maps_go)
{
	struct spec *s = config("rootfs", "", "", EVIL_MAPS);
	struct hardened *h = harden_in(s, NULL, NULL);
	const struct spec_linux *lx = h ? h->spec->linux_ : NULL;

	CHECK(lx && lx->n_uid_mappings == 0 && lx->n_gid_mappings == 0);
	for (size_t i = 0; lx && i < lx->n_namespaces; i++)
		CHECK(lx->namespaces[i].type != NS_USER);
	CHECK_CHANGE(h, ".linux.uidMappings", "2 mappings", "dropped",
		     "default: no user namespace (policy: user.idMap)");
	CHECK(h && h->spec->process->user.uid == 65534);
	hardened_free(h);
	spec_free(s);
}

TEST(id_maps_must_stay_in_the_policys_range)
{
	struct spec *evil = config("rootfs", "", "", EVIL_MAPS);
	struct spec *fine = config(
	    "rootfs", "", "",
	    "\"namespaces\": [{\"type\": \"user\"}],"
	    " \"uidMappings\": [{\"containerID\": 0, \"hostID\": 100000, "
	    "\"size\": 65536}],"
	    " \"gidMappings\": [{\"containerID\": 0, \"hostID\": 100000, "
	    "\"size\": 65536}]");
	struct spec *nomap =
	    config("rootfs", "", "", "\"namespaces\": [{\"type\": \"user\"}]");
	struct policy *p = policy_json(
	    "{\"user\": {\"idMap\": {\"hostID\": 100000, \"size\": 65536}}}");
	struct hardened *h = harden_in(fine, p, NULL);

	CHECK(refused_with(evil, p, ".linux.uidMappings[1]: host ids 0-0"));
	CHECK(refused_with(nomap, p, "a user namespace needs mappings"));
	CHECK(h && h->spec->linux_->n_uid_mappings == 1);
	hardened_free(h);
	policy_free(p);
	spec_free(evil);
	spec_free(fine);
	spec_free(nomap);
}

TEST(the_policy_refuses_an_id_map_holding_host_root)
{
	char *msg = NULL;
	struct policy *p = NULL;
	struct error *err = NULL;
	const char *j =
	    "{\"user\": {\"idMap\": {\"hostID\": 0, \"size\": 10}}}";

	CHECK(policy_parse(j, strlen(j), &p, &err) < 0 && err &&
	      (msg = err->msg) && strstr(msg, "hostID must not be 0"));
	error_free(err);
	policy_free(p);
}

TEST(privileged_groups_are_dropped_primary_and_supplementary)
{
	struct policy *p =
	    policy_json("{\"user\": {\"keepGroups\": true,"
			" \"privilegedGroups\": [\"42\", \"6\"]}}");
	struct spec *s = NULL;
	struct hardened *h = NULL;
	const char *j =
	    "{\"ociVersion\": \"1.2.0\", \"process\": {\"user\": {\"uid\": "
	    "1000,"
	    " \"gid\": 42, \"additionalGids\": [0, 6, 1000, 42]}, \"args\": "
	    "[\"sh\"], \"cwd\": \"/\"}, \"root\": {\"path\": \"rootfs\"}}";

	if (p)
		policy_resolve_groups(p, NULL, NULL, NULL);
	s = spec_of(j);
	h = harden_in(s, p, NULL);
	CHECK(h && h->spec->process->user.uid == 1000);
	CHECK(h && h->spec->process->user.gid == 65534);
	CHECK(h && h->spec->process->user.n_additional_gids == 1 &&
	      h->spec->process->user.additional_gids[0] == 1000);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* ---- binds and engine files ------------------------------------------ */

TEST(an_engine_file_must_be_in_the_bundle_or_an_engine_dir)
{
	struct spec *s = with_mounts(
	    "{\"destination\": \"/etc/hosts\", \"type\": \"bind\","
	    " \"source\": \"" BUNDLE "/hosts\", \"options\": [\"rbind\"]},"
	    "{\"destination\": \"/etc/resolv.conf\", \"type\": \"bind\","
	    " \"source\": \"/etc/ansible/resolv.conf\", \"options\": []},"
	    "{\"destination\": \"/etc/hostname\", \"type\": \"bind\","
	    " \"source\": \"/var/lib/containerd/x/hostname\", \"options\": "
	    "[]}");
	struct hardened *h = harden_in(s, NULL, NULL);
	const struct harden_bind *b = bind_of(h, "/etc/hosts");
	const struct harden_bind *c = bind_of(h, "/etc/hostname");

	CHECK(b && b->kind == BIND_ENGINE_FILE && !strcmp(b->entry, BUNDLE));
	CHECK(c && c->kind == BIND_ENGINE_FILE &&
	      !strcmp(c->entry, "/var/lib/containerd"));
	CHECK(h && !find_mount(h->spec, "/etc/resolv.conf"));
	hardened_free(h);
	spec_free(s);
}

TEST(a_policy_bind_carries_its_entry)
{
	struct spec *s = with_mounts(
	    "{\"destination\": \"/d\", \"type\": \"bind\","
	    " \"source\": \"/data/x\", \"options\": [\"rbind\", \"rw\"]}");
	struct policy *p =
	    policy_json("{\"mounts\": [{\"source\": \"/data\", \"rw\": true, "
			"\"followLinks\": true}]}");
	struct hardened *h = harden_in(s, p, NULL);
	const struct harden_bind *b = bind_of(h, "/d");

	CHECK(b && b->kind == BIND_POLICY && !strcmp(b->entry, "/data") &&
	      b->follow_links);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* ---- mounts ---------------------------------------------------------- */

TEST(remount_drops_the_mount)
{
	struct spec *s = with_mounts(
	    "{\"destination\": \"/d\", \"type\": \"bind\","
	    " \"source\": \"/data\", \"options\": [\"rbind\"]},"
	    "{\"destination\": \"/d\", \"type\": \"bind\", \"source\": "
	    "\"/data\", \"options\": [\"remount\", \"bind\", \"rw\"]},"
	    "{\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": "
	    "\"sysfs\", \"options\": [\"remount\", \"rw\"]}");
	struct policy *p =
	    policy_json("{\"mounts\": [{\"source\": \"/data\"}]}");
	struct hardened *h = harden_in(s, p, NULL);

	CHECK(h && h->spec->n_mounts == 1);
	CHECK_CHANGE(h, ".mounts[/sys]", "sysfs sysfs [remount,rw]", "dropped",
		     "default: remount would change a mount made before it");
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(kernel_filesystems_once_and_at_their_places)
{
	struct spec *s = with_mounts(
	    "{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": "
	    "\"proc\"},"
	    "{\"destination\": \"/p2\", \"type\": \"proc\", \"source\": "
	    "\"proc\"},"
	    "{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": "
	    "\"proc\"},"
	    "{\"destination\": \"/s2\", \"type\": \"sysfs\", \"source\": "
	    "\"sysfs\"},"
	    "{\"destination\": \"/proc/sys/kernel\", \"type\": \"tmpfs\","
	    " \"source\": \"tmpfs\"},"
	    "{\"destination\": \"/\", \"type\": \"tmpfs\", \"source\": "
	    "\"tmpfs\"},"
	    "{\"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup\","
	    " \"source\": \"cgroup\"},"
	    "{\"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup2\","
	    " \"source\": \"cgroup\"}");
	struct hardened *h = harden_in(s, NULL, NULL);

	CHECK(h && h->spec->n_mounts == 2);
	CHECK(h && find_mount(h->spec, "/proc") &&
	      !find_mount(h->spec, "/p2") && !find_mount(h->spec, "/s2") &&
	      !find_mount(h->spec, "/"));
	CHECK_CHANGE(h, ".mounts[/p2]", "proc proc []", "dropped",
		     "default: a kernel filesystem only at its own place");
	CHECK_CHANGE(h, ".mounts[/proc/sys/kernel]", "tmpfs tmpfs []",
		     "dropped",
		     "default: /proc and /sys hold only their own "
		     "filesystems");
	hardened_free(h);
	spec_free(s);
}

TEST(options_come_from_a_list_per_type)
{
	struct spec *s = with_mounts(
	    "{\"destination\": \"/d\", \"type\": \"bind\", \"source\": "
	    "\"/data\", \"options\": [\"rbind\", \"rshared\", \"rsuid\", "
	    "\"Z\", \"idmap\", \"rprivate\", \"mand\"]},"
	    "{\"destination\": \"/t\", \"type\": \"tmpfs\", \"source\": "
	    "\"tmpfs\", \"options\": [\"size=1m\", \"mode=1777\", "
	    "\"huge=always\","
	    " \"newinstance\", \"context=x\", \"suid\"]}");
	struct policy *p =
	    policy_json("{\"mounts\": [{\"source\": \"/data\"}]}");
	struct hardened *h = harden_in(s, p, NULL);
	const struct spec_mount *d = h ? find_mount(h->spec, "/d") : NULL;
	const struct spec_mount *t = h ? find_mount(h->spec, "/t") : NULL;
	_cleanup_free_ char *dj = NULL, *tj = NULL;

	if (!d || !t) {
		CHECK(d && t);
		goto out;
	}
	dj = joined(d->options, d->n_options);
	tj = joined(t->options, t->n_options);
	CHECK_STR(dj, "rbind,rprivate,ro,nosuid,nodev");
	CHECK_STR(tj, "size=1m,mode=1777,huge=always,nosuid,nodev");
out:
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(destinations_with_dotdot_are_refused_others_tidied)
{
	static const char *const bad[] = {"/../etc", "/a/../../b", "x/y",
					  "/proc/.."};
	struct spec *s =
	    with_mounts("{\"destination\": \"//tmp/./x/\", \"type\": \"tmpfs\","
			" \"source\": \"tmpfs\"}");
	struct hardened *h = harden_in(s, NULL, NULL);
	char m[256];

	CHECK(h && find_mount(h->spec, "/tmp/x"));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct spec *b = NULL;

		snprintf(m, sizeof(m),
			 "{\"destination\": \"%s\", \"type\": \"tmpfs\","
			 " \"source\": \"tmpfs\"}",
			 bad[i]);
		b = with_mounts(m);
		CHECK(refused_with(b, NULL, ".mounts[0].destination"));
		spec_free(b);
	}
	hardened_free(h);
	spec_free(s);
}

TEST(a_tmpfs_is_no_larger_than_the_scratch)
{
	struct spec *s = with_mounts(
	    "{\"destination\": \"/a\", \"type\": \"tmpfs\", \"source\": "
	    "\"tmpfs\", \"options\": [\"size=1g\"]},"
	    "{\"destination\": \"/b\", \"type\": \"tmpfs\", \"source\": "
	    "\"tmpfs\", \"options\": [\"size=50%\"]},"
	    "{\"destination\": \"/c\", \"type\": \"tmpfs\", \"source\": "
	    "\"tmpfs\", \"options\": [\"size=16m\"]},"
	    "{\"destination\": \"/d\", \"type\": \"tmpfs\", \"source\": "
	    "\"tmpfs\", \"options\": [\"size=1k\", \"size=2g\"]}");
	struct hardened *h = harden_in(s, NULL, NULL);
	const char *want[][2] = {{"/a", "size=67108864"},
				 {"/b", "size=67108864"},
				 {"/c", "size=16m"},
				 {"/d", "size=1k"}};

	for (size_t i = 0; h && i < ARRAY_SIZE(want); i++) {
		const struct spec_mount *m = find_mount(h->spec, want[i][0]);
		size_t sizes = 0;

		for (size_t j = 0; m && j < m->n_options; j++)
			if (!strncmp(m->options[j], "size=", 5)) {
				sizes++;
				CHECK_STR(m->options[j], want[i][1]);
			}
		CHECK(m && sizes == 1);
	}
	hardened_free(h);
	spec_free(s);
}

TEST(shared_root_propagation_becomes_a_slave)
{
	struct spec *s =
	    config("rootfs", "", "", "\"rootfsPropagation\": \"rshared\"");
	struct hardened *h = harden_in(s, NULL, NULL);

	CHECK(h && !strcmp(h->spec->linux_->rootfs_propagation, "rslave"));
	hardened_free(h);
	spec_free(s);
}

TEST(a_seccomp_listener_path_is_dropped)
{
	struct spec *s =
	    config("rootfs", "", "",
		   "\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ALLOW\","
		   " \"listenerPath\": \"/run/agent.sock\"}");
	struct hardened *h = harden_in(s, NULL, NULL);

	CHECK(h && h->spec->linux_->seccomp &&
	      !h->spec->linux_->seccomp->listener_path);
	hardened_free(h);
	spec_free(s);
}

TEST(a_seccomp_notify_action_becomes_enosys)
{
	struct spec *s = config(
	    "rootfs", "", "",
	    "\"seccomp\": {\"defaultAction\": \"SCMP_ACT_NOTIFY\","
	    " \"listenerPath\": \"/run/agent.sock\", \"syscalls\": ["
	    " {\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_NOTIFY\"},"
	    " {\"names\": [\"getpid\"], \"action\": \"SCMP_ACT_ALLOW\"}]}");
	struct hardened *h = harden_in(s, NULL, NULL);
	const struct spec_seccomp *sc = h ? h->spec->linux_->seccomp : NULL;

	CHECK(sc && !strcmp(sc->default_action, "SCMP_ACT_ERRNO") &&
	      sc->default_errno_ret.set && sc->default_errno_ret.v == ENOSYS);
	CHECK(sc && !strcmp(sc->syscalls[0].action, "SCMP_ACT_ERRNO") &&
	      sc->syscalls[0].errno_ret.set &&
	      sc->syscalls[0].errno_ret.v == ENOSYS);
	CHECK(sc && !strcmp(sc->syscalls[1].action, "SCMP_ACT_ALLOW") &&
	      !sc->syscalls[1].errno_ret.set);
	CHECK(h && find_change(h, ".linux.seccomp.syscalls[].action") &&
	      find_change(h, ".linux.seccomp.defaultAction"));
	hardened_free(h);
	spec_free(s);
}

#define POOL_POLICY                                                            \
	"{\"user\": {\"pool\": {\"hostUID\": 1073741824, \"hostGID\": "        \
	"1073741824, \"size\": 6553600}}}"

static bool one_map(const struct spec_id_mapping *m, size_t n, uint32_t host)
{
	return n == 1 && m[0].container_id == 0 && m[0].host_id == host &&
	       m[0].size == 65536;
}

TEST(a_pool_gives_a_user_namespace_of_its_own_root_kept)
{
	struct spec *s = config("rootfs", "", "", "");
	struct policy *p = policy_json(POOL_POLICY);
	struct hardened *h = NULL;
	const struct spec_linux *lx;

	/* the runtime's slice is what the ids map to */
	p->slice = (struct policy_slice){.set = true,
					 .uid = 1073741824 + 65536 * 3,
					 .gid = 1073741824 + 65536 * 3};
	h = harden_in(s, p, NULL);
	lx = h ? h->spec->linux_ : NULL;
	CHECK(h && h->sandbox.userns_auto);
	CHECK(lx && one_map(lx->uid_mappings, lx->n_uid_mappings,
			    1073741824 + 65536 * 3));
	CHECK(lx && one_map(lx->gid_mappings, lx->n_gid_mappings,
			    1073741824 + 65536 * 3));
	CHECK(h && h->spec->process->user.uid == 0 &&
	      h->spec->process->user.gid == 0);
	CHECK(h && h->n_layer_dirs > 0);
	CHECK(h && find_change(h, ".linux.namespaces[user]"));
	hardened_free(h);
	/* a pod member: its pod sandbox's slice, and it says so */
	p->slice.pod = true;
	h = harden_in(s, p, NULL);
	CHECK(h && h->sandbox.userns_auto);
	CHECK(h && find_change(h, ".linux.uidMappings") &&
	      strstr(find_change(h, ".linux.uidMappings")->reason,
		     "pod sandbox"));
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(an_id_beyond_the_slice_is_refused_under_a_pool)
{
	struct spec *s = config("rootfs", "", "", "");
	struct policy *p = policy_json(POOL_POLICY);
	char *why = NULL;

	s->process->user.uid = 70000;
	CHECK(!harden_in(s, p, &why));
	CHECK(why && strstr(why, "beyond the ids 0-65535"));
	free(why);
	policy_free(p);
	spec_free(s);
}

TEST(config_json_s_own_user_namespace_under_id_map_is_not_replaced)
{
	struct spec *s = config(
	    "rootfs", "", "",
	    "\"namespaces\": [{\"type\": \"user\"}, {\"type\": \"mount\"}],"
	    " \"uidMappings\": [{\"containerID\": 0, \"hostID\": 200000,"
	    " \"size\": 65536}], \"gidMappings\": [{\"containerID\": 0,"
	    " \"hostID\": 200000, \"size\": 65536}]");
	struct policy *p = policy_json(
	    "{\"user\": {\"idMap\": {\"hostID\": 200000, \"size\": 65536},"
	    " \"pool\": {\"hostUID\": 1073741824, \"hostGID\": 1073741824,"
	    " \"size\": 65536}}}");
	struct hardened *h = harden_in(s, p, NULL);

	CHECK(h && !h->sandbox.userns_auto);
	CHECK(h && one_map(h->spec->linux_->uid_mappings,
			   h->spec->linux_->n_uid_mappings, 200000));
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(permissive_lists_every_bind_as_written)
{
	struct spec *s =
	    with_mounts("{\"destination\": \"/etc/hosts\", \"type\": \"bind\","
			" \"source\": \"/etc\", \"options\": [\"rbind\"]}");
	struct policy *p = policy_json("{\"mode\": \"permissive\"}");
	struct hardened *h = harden_in(s, p, NULL);
	const struct harden_bind *b = bind_of(h, "/etc/hosts");

	CHECK(b && b->kind == BIND_AS_WRITTEN && !h->root_path);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

int main(void)
{
	return unit_run();
}
