/* Unit tests of harden(): one or more tests per row of README.md's
 * sandbox table, on the engine-shaped fixtures (podman, containerd ctr,
 * CRI sandbox and app container, runc spec) and on small configs made
 * for one rule; annotations; the permissive mode; the sandbox settings as
 * JSON.  The properties over generated inputs are in
 * test_harden_props.c, explain's output in test_explain.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define MiB (INT64_C(1) << 20)

/* A small config: process fields after args/cwd (a root user unless they
 * name one), the mounts array, the annotations object and the linux
 * object, each as JSON text. */
static struct spec *config(const char *process, const char *mounts,
			   const char *annotations, const char *linux_)
{
	char json[8192];

	snprintf(json, sizeof(json),
		 "{\"ociVersion\": \"1.2.0\","
		 " \"process\": {%s\"args\": [\"sh\"], \"cwd\": \"/\"%s%s},"
		 " \"root\": {\"path\": \"rootfs\"},"
		 " \"mounts\": [%s], \"annotations\": {%s}, \"linux\": {%s}}",
		 strstr(process, "\"user\"")
		     ? ""
		     : "\"user\": {\"uid\": 0, \"gid\": 0}, ",
		 process[0] ? ", " : "", process, mounts, annotations, linux_);
	return spec_of(json);
}

/* A bind mount object. */
static char *bind(const char *dest, const char *source, const char *options)
{
	static char buf[8][512];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]),
		 "{\"destination\": \"%s\", \"type\": \"bind\","
		 " \"source\": \"%s\", \"options\": [%s]}",
		 dest, source, options);
	return b;
}

static bool kept(const struct hardened *h, const char *dest)
{
	return h && find_mount(h->spec, dest) != NULL;
}

static const struct spec_namespace *ns(const struct spec *s,
				       enum spec_ns_type t)
{
	for (size_t i = 0; s && s->linux_ && i < s->linux_->n_namespaces; i++)
		if (s->linux_->namespaces[i].type == t)
			return &s->linux_->namespaces[i];
	return NULL;
}

/* ---- namespaces and network ------------------------------------------ */

TEST(podman_netns_path_is_never_joined)
{
	struct spec *s = fixture("podman_busybox.json");
	struct hardened *h = harden_ok(s, NULL);

	if (!h)
		goto out;
	CHECK(ns(h->spec, NS_NETWORK) && !ns(h->spec, NS_NETWORK)->path);
	CHECK(h->sandbox.loopback_only);
	CHECK_CHANGE(h, ".linux.namespaces[network]",
		     "/run/netns/netns-33c8e92f-6ff0-9bef-5e54-f2f67b39bbdb",
		     "new (loopback only)", "default");
	for (int t = 0; t < NS_TYPE_COUNT; t++)
		if (t != NS_USER && t != NS_TIME)
			CHECK(ns(h->spec, t) != NULL);
out:
	hardened_free(h);
	spec_free(s);
}

TEST(cri_app_keeps_pod_ipc_uts_and_gains_cgroup)
{
	struct spec *s = fixture("cri_container.json");
	struct hardened *h = harden_ok(s, NULL);

	if (!h)
		goto out;
	CHECK_STR(ns(h->spec, NS_IPC)->path, "/proc/123/ns/ipc");
	CHECK_STR(ns(h->spec, NS_UTS)->path, "/proc/123/ns/uts");
	CHECK(!ns(h->spec, NS_NETWORK)->path);
	CHECK(ns(h->spec, NS_CGROUP) && !ns(h->spec, NS_CGROUP)->path);
	CHECK_CHANGE(h, ".linux.namespaces[cgroup]", "absent", "new",
		     "default");
	CHECK(!find_change(h, ".linux.namespaces[ipc]"));
out:
	hardened_free(h);
	spec_free(s);
}

TEST(time_dropped_duplicates_dropped_paths_to_join_refused)
{
	struct spec *s =
	    config("", "", "",
		   "\"namespaces\": [{\"type\": \"time\"}, {\"type\": \"pid\"},"
		   " {\"type\": \"pid\", \"path\": \"/proc/9/ns/pid\"},"
		   " {\"type\": \"mount\", \"path\": \"/proc/9/ns/mnt\"},"
		   " {\"type\": \"user\", \"path\": \"/proc/9/ns/user\"},"
		   " {\"type\": \"cgroup\", \"path\": \"/proc/9/ns/cgroup\"}]");
	struct policy *p = policy_of("{\"refuse\": {\"namespaces\": false}}");
	struct hardened *h = harden_ok(s, p);
	_cleanup_free_ char *msg = harden_error(s, NULL);

	/* a namespace to join that corral does not join is refused */
	CHECK_STR(msg, "namespace mount /proc/9/ns/mnt: the container's mount "
		       "namespace is always its own (no policy allows it; the "
		       "policy's refuse.namespaces false runs the container "
		       "without it)");
	if (!h)
		goto out;
	CHECK(!ns(h->spec, NS_TIME));
	CHECK_CHANGE(h, ".linux.namespaces[time]", "new", "dropped", "default");
	CHECK(!ns(h->spec, NS_PID)->path);
	/* with refuse.namespaces off: dropped, recorded, and a new one */
	CHECK(ns(h->spec, NS_MOUNT) && !ns(h->spec, NS_MOUNT)->path);
	CHECK_CHANGE(h, ".linux.namespaces[mount]", "/proc/9/ns/mnt", "dropped",
		     "policy: refuse.namespaces false: the container's mount "
		     "namespace is always its own");
	CHECK(ns(h->spec, NS_CGROUP) && !ns(h->spec, NS_CGROUP)->path);
	CHECK(!ns(h->spec, NS_USER));
	CHECK_CHANGE(h, ".linux.namespaces[user]", "/proc/9/ns/user", "dropped",
		     "policy: refuse.namespaces false: the container's user "
		     "namespace is corral's own or none");
	CHECK(h->spec->linux_->n_namespaces == 6);
out:
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(a_user_namespace_without_a_path_is_dropped_recorded)
{
	struct spec *s =
	    config("", "", "", "\"namespaces\": [{\"type\": \"user\"}]");
	struct hardened *h = harden_ok(s, NULL);

	/* no user.idMap in the policy: no user namespace, by design */
	CHECK(h && !ns(h->spec, NS_USER));
	CHECK_CHANGE(h, ".linux.namespaces[user]", "new", "dropped",
		     "default: no host ids to map it to (policy: user.idMap)");
	CHECK(find_change(h, ".linux.namespaces[user]") &&
	      find_change(h, ".linux.namespaces[user]")->dropped);
	hardened_free(h);
	spec_free(s);
}

TEST(network_config_policy_keeps_the_cni_path)
{
	struct spec *s = fixture("cri_sandbox.json");
	struct policy *p = policy_of("{\"network\": \"config\"}");
	struct hardened *h = harden_ok(s, p);

	if (!h)
		goto out;
	CHECK_STR(ns(h->spec, NS_NETWORK)->path,
		  "/var/run/netns/cni-2f0b6c1e-8a4d-7e3b-95c2-1d6f4a8e0b7c");
	CHECK(!h->sandbox.loopback_only);
	CHECK(!find_change(h, ".linux.namespaces[network]"));
out:
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(host_network_gets_a_namespace_even_under_network_config)
{
	struct spec *s = config("", "", "", "");
	struct policy *p = policy_of("{\"network\": \"config\"}");
	struct hardened *h = harden_ok(s, p);

	CHECK(h && ns(h->spec, NS_NETWORK) && !ns(h->spec, NS_NETWORK)->path);
	CHECK_CHANGE(h, ".linux.namespaces[network]", "absent", "new",
		     "policy: network");
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* ---- filesystem ------------------------------------------------------ */

TEST(rootfs_settings_come_from_the_policy)
{
	struct spec *s = fixture("containerd_ctr.json");
	struct policy *p = policy_of("{\"rootfs\": {\"mode\": \"strict\","
				     " \"scratchSize\": \"128MiB\"}}");
	struct hardened *def = harden_ok(s, NULL), *strict = harden_ok(s, p);

	CHECK(def && def->sandbox.rootfs == POLICY_ROOTFS_OVERLAY);
	CHECK(def && def->sandbox.scratch_size == (uint64_t)(64 * MiB));
	CHECK(def && !def->spec->root->readonly);
	CHECK(!find_change(def, ".root.readonly"));
	CHECK(strict && strict->sandbox.rootfs == POLICY_ROOTFS_STRICT);
	CHECK(strict && strict->sandbox.scratch_size == (uint64_t)(128 * MiB));
	CHECK(strict && strict->spec->root->readonly);
	CHECK_CHANGE(strict, ".root.readonly", "false", "true",
		     "policy: rootfs.mode");
	hardened_free(def);
	hardened_free(strict);
	policy_free(p);
	spec_free(s);
}

/* ---- host mounts ----------------------------------------------------- */

TEST(podman_engine_files_are_kept_read_only)
{
	static const char *const files[] = {"/etc/resolv.conf", "/etc/hosts",
					    "/run/.containerenv",
					    "/etc/hostname"};
	struct spec *s = fixture("podman_busybox.json");
	struct hardened *h = harden_ok(s, NULL);

	for (size_t i = 0; h && i < ARRAY_SIZE(files); i++) {
		const struct spec_mount *m = find_mount(h->spec, files[i]);

		CHECK(m != NULL);
		if (!m)
			continue;
		CHECK(has_str(m->options, m->n_options, "ro"));
		CHECK(has_str(m->options, m->n_options, "nosuid"));
		CHECK(has_str(m->options, m->n_options, "nodev"));
		CHECK(!has_str(m->options, m->n_options, "rw"));
	}
	CHECK_CHANGE(h, ".mounts[/etc/hosts]", NULL,
		     "options bind,rprivate,ro,nosuid,nodev", "default");
	CHECK(kept(h, "/proc") && kept(h, "/dev/pts") &&
	      kept(h, "/dev/mqueue"));
	hardened_free(h);
	spec_free(s);
}

static void check_private_shm(const struct hardened *h)
{
	const struct spec_mount *m = h ? find_mount(h->spec, "/dev/shm") : NULL;

	CHECK(m && m->type && strcmp(m->type, "tmpfs") == 0);
	CHECK(m && !has_str(m->options, m->n_options, "bind") &&
	      !has_str(m->options, m->n_options, "rbind"));
	CHECK(m && has_str(m->options, m->n_options, "size=67108864"));
	CHECK(m && has_str(m->options, m->n_options, "nosuid") &&
	      has_str(m->options, m->n_options, "nodev"));
}

TEST(engine_dev_shm_becomes_a_private_tmpfs)
{
	struct spec *s = fixture("podman_busybox.json");
	struct hardened *h = harden_ok(s, NULL);

	check_private_shm(h);
	hardened_free(h);
	spec_free(s);
	s = fixture("cri_container.json");
	h = harden_ok(s, NULL);
	check_private_shm(h);
	hardened_free(h);
	spec_free(s);
}

TEST(cri_service_account_token_and_engine_state_are_dropped)
{
	struct spec *s = fixture("cri_container.json");
	struct hardened *h = harden_ok(s, NULL);

	CHECK(!kept(h, "/var/run/secrets/kubernetes.io/serviceaccount"));
	CHECK_CHANGE(
	    h, ".mounts[/var/run/secrets/kubernetes.io/serviceaccount]",
	    "bind /var/lib/kubelet/pods/6a1f3c2e-9b8d-4e7f-a6c5-"
	    "1d2e3f4a5b6c/volumes/kubernetes.io~projected/"
	    "kube-api-access-7xk2p [rbind,rprivate,ro]",
	    "dropped", "default: the service-account token is never mounted");
	/* the pod's shm (under /run/containerd) is not shared: private */
	CHECK_CHANGE(h, ".mounts[/dev/shm]", NULL,
		     "tmpfs shm [nosuid,nodev,noexec,mode=1777,size=67108864]",
		     "default: /dev/shm is never shared");
	CHECK(kept(h, "/dev/termination-log") && kept(h, "/etc/hosts"));
	CHECK(kept(h, "/etc/hostname") && kept(h, "/etc/resolv.conf"));
	hardened_free(h);
	spec_free(s);
}

TEST(bind_sources_need_the_policy)
{
	char mounts[2048];
	struct spec *s;
	struct policy *p = policy_of(
	    "{\"mounts\": [{\"source\": \"/data\", \"rw\": true},"
	    " {\"source\": \"/data/keys\"}, {\"source\": \"/srv\"}]}");
	struct policy *drop =
	    policy_of("{\"mounts\": [{\"source\": \"/data\", \"rw\": true},"
		      " {\"source\": \"/data/keys\"}, {\"source\": \"/srv\"}],"
		      " \"refuse\": {\"mounts\": false}}");
	_cleanup_free_ char *def_err = NULL, *p_err = NULL;
	struct hardened *h;

	snprintf(mounts, sizeof(mounts), "%s, %s, %s, %s, %s, %s",
		 bind("/a", "/data/x", "\"rbind\", \"rw\", \"suid\""),
		 bind("/b", "/data/keys/k", "\"rbind\", \"rw\""),
		 bind("/c", "/database", "\"rbind\""),
		 bind("/d", "/srv", "\"rbind\", \"ro\""),
		 bind("/e", "/data/../etc", "\"rbind\""),
		 bind("/f", "/home/u", "\"rbind\""));
	s = config("", mounts, "", "");
	/* a bind the policy does not allow fails create, naming it and the
	 * key that would allow it: the first such, in config.json's order */
	def_err = harden_error(s, NULL);
	CHECK_STR(def_err, "bind /data/x on /a: no entry of the policy's "
			   "mounts allows /data/x (policy: mounts)");
	p_err = harden_error(s, p);
	CHECK_STR(p_err, "bind /database on /c: no entry of the policy's "
			 "mounts allows /database (policy: mounts)");
	/* with refuse.mounts off they are dropped, and recorded as drops */
	h = harden_ok(s, drop);
	CHECK(kept(h, "/a") && kept(h, "/b") && kept(h, "/d"));
	CHECK(!kept(h, "/c") && !kept(h, "/e") && !kept(h, "/f"));
	CHECK_CHANGE(h, ".mounts[/a]", NULL, "options rbind,rw,nosuid,nodev",
		     "policy: mounts");
	/* the longer entry decides: /data/keys is read-only */
	CHECK_CHANGE(h, ".mounts[/b]", NULL, "options rbind,ro,nosuid,nodev",
		     "policy: mounts");
	CHECK_CHANGE(h, ".mounts[/c]", "bind /database [rbind]", "dropped",
		     "policy: refuse.mounts false: no entry of the policy's "
		     "mounts allows /database (policy: mounts)");
	CHECK_CHANGE(h, ".mounts[/e]", NULL, "dropped",
		     "policy: refuse.mounts false: the source is not a clean "
		     "absolute path");
	CHECK(find_change(h, ".mounts[/c]") &&
	      find_change(h, ".mounts[/c]")->dropped);
	CHECK(find_change(h, ".mounts[/a]") &&
	      !find_change(h, ".mounts[/a]")->dropped);
	hardened_free(h);
	policy_free(p);
	policy_free(drop);
	spec_free(s);
}

TEST(sockets_and_tokens_are_never_mounted_even_if_allowed)
{
	char mounts[2048];
	struct spec *s;
	struct policy *p = policy_of("{\"mounts\": [{\"source\": \"/\"}],"
				     " \"refuse\": {\"mounts\": false}}");
	struct policy *refusing =
	    policy_of("{\"mounts\": [{\"source\": \"/\"}]}");
	_cleanup_free_ char *msg = NULL;
	struct hardened *h;

	snprintf(mounts, sizeof(mounts), "%s, %s, %s, %s, %s, %s",
		 bind("/a", "/run/docker.sock", "\"rbind\""),
		 bind("/b", "/home/u/.local/podman.sock", "\"rbind\""),
		 bind("/c", "/run/containerd/s/1234", "\"rbind\""),
		 bind("/d", "/var/run/secrets/kubernetes.io/serviceaccount",
		      "\"rbind\""),
		 bind("/var/run/secrets/kubernetes.io/serviceaccount",
		      "/var/lib/kubelet/pods/x/volumes/token", "\"rbind\""),
		 bind("/e", "/home/u/data", "\"rbind\""));
	s = config("", mounts, "", "");
	h = harden_ok(s, p);
	CHECK(h && h->spec->n_mounts == 1 && kept(h, "/e"));
	CHECK_CHANGE(h, ".mounts[/a]", NULL, "dropped",
		     "policy: refuse.mounts false: engine sockets are never "
		     "mounted");
	CHECK_CHANGE(h, ".mounts[/b]", NULL, "dropped",
		     "policy: refuse.mounts false: engine sockets are never "
		     "mounted");
	CHECK_CHANGE(h, ".mounts[/c]", NULL, "dropped",
		     "policy: refuse.mounts false: engine state is never "
		     "mounted");
	/* the token: what the container runs without by design, dropped
	 * whatever the switch says */
	CHECK_CHANGE(h, ".mounts[/d]", NULL, "dropped",
		     "default: the service-account token is never mounted");
	hardened_free(h);
	/* a socket someone asked for is refused, and no policy key allows
	 * it: the line names the switch instead */
	msg = harden_error(s, refusing);
	CHECK_STR(msg, "bind /run/docker.sock on /a: engine sockets are never "
		       "mounted (no policy allows it; the policy's "
		       "refuse.mounts false runs the container without it)");
	policy_free(refusing);
	policy_free(p);
	spec_free(s);
}

TEST(engine_destinations_need_engine_shaped_sources)
{
	char mounts[2048];
	struct spec *s;
	struct hardened *h;

	snprintf(mounts, sizeof(mounts), "%s, %s, %s, %s, %s",
		 bind("/etc/hosts", "/etc/shadow", "\"rbind\""),
		 bind("/dev/shm", "/dev/shm", "\"rbind\""),
		 bind("/dev/termination-log", "/etc/shadow", "\"rbind\""),
		 bind("/run/secrets", "/run/user/1000/secrets", "\"rbind\""),
		 bind("/etc/resolv.conf",
		      "/run/containers/storage/x/resolv.conf", "\"rbind\""));
	s = config("", mounts, "", "");
	/* the engines' own places keep their rule under the default policy
	 * (refusals on): only resolv.conf is kept as a bind (its name, in an
	 * engine directory); /dev/shm became a tmpfs; the others are
	 * dropped, recorded, not refused */
	h = harden_ok(s, NULL);
	CHECK(h && h->spec->n_mounts == 2 && kept(h, "/etc/resolv.conf"));
	check_private_shm(h);
	CHECK_CHANGE(h, ".mounts[/etc/hosts]", NULL, "dropped",
		     "default: an engine's file only from the bundle or an "
		     "engine directory (policy: engineDirs)");
	CHECK(find_change(h, ".mounts[/run/secrets]") &&
	      find_change(h, ".mounts[/run/secrets]")->dropped);
	hardened_free(h);
	spec_free(s);
}

TEST(run_secrets_only_when_the_policy_allows_its_source)
{
	struct spec *s = config(
	    "", bind("/run/secrets", "/usr/share/rhel/secrets", "\"rbind\""),
	    "", "");
	struct policy *p =
	    policy_of("{\"mounts\": [{\"source\": \"/usr/share/rhel\"}]}");
	struct hardened *def = harden_ok(s, NULL), *h = harden_ok(s, p);

	/* podman's mounts.conf: dropped, recorded, never refused */
	CHECK(!kept(def, "/run/secrets") && kept(h, "/run/secrets"));
	hardened_free(def);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(kernel_filesystems_are_kept_and_forced)
{
	struct spec *s = config(
	    "",
	    "{\"destination\": \"/sys\", \"type\": \"sysfs\","
	    " \"source\": \"sysfs\", \"options\": [\"rw\", \"nosuid\"]},"
	    "{\"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup2\","
	    " \"source\": \"cgroup2\"},"
	    "{\"destination\": \"/tmp\", \"type\": \"tmpfs\","
	    " \"source\": \"tmpfs\", \"options\": [\"suid\", \"mode=1777\"]},"
	    "{\"destination\": \"/dev\", \"type\": \"tmpfs\","
	    " \"source\": \"tmpfs\", \"options\": [\"mode=755\"]},"
	    "{\"destination\": \"/mnt\", \"type\": \"overlay\","
	    " \"source\": \"overlay\"},"
	    "{\"destination\": \"/nfs\", \"type\": \"nfs\", \"source\": "
	    "\"h:/x\"},"
	    "{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": "
	    "\"proc\"},"
	    "{\"destination\": \"/proc2\", \"type\": \"proc\", \"source\": "
	    "\"proc\"}",
	    "", "");
	struct policy *p = policy_of("{\"refuse\": {\"mounts\": false}}");
	struct hardened *h = harden_ok(s, p);
	const struct spec_mount *dev = h ? find_mount(h->spec, "/dev") : NULL;
	_cleanup_free_ char *msg = harden_error(s, NULL);

	/* a filesystem of another kind is refused: someone asked for it */
	CHECK_STR(msg, "mount overlay on /mnt: only binds the policy allows, "
		       "tmpfs and the kernel's own filesystems are mounted "
		       "(no policy allows it; the policy's refuse.mounts "
		       "false runs the container without it)");
	if (!h)
		goto out;
	CHECK(!kept(h, "/mnt") && !kept(h, "/nfs") && kept(h, "/proc"));
	CHECK_CHANGE(h, ".mounts[/mnt]", "overlay overlay []", "dropped",
		     "policy: refuse.mounts false: only binds the policy "
		     "allows, tmpfs and the kernel's own filesystems are "
		     "mounted");
	/* a kernel filesystem out of its place is the sandbox's drop */
	CHECK_CHANGE(h, ".mounts[/proc2]", NULL, "dropped",
		     "default: a kernel filesystem only at its own place");
	CHECK_CHANGE(h, ".mounts[/sys]", "sysfs sysfs [rw,nosuid]",
		     "options nosuid,ro", "default");
	CHECK_CHANGE(h, ".mounts[/sys/fs/cgroup]", NULL, "options ro",
		     "default");
	CHECK_CHANGE(h, ".mounts[/tmp]", NULL,
		     "options mode=1777,nosuid,nodev,size=67108864", "default");
	/* the runtime makes device nodes in /dev: no nodev there */
	CHECK(dev && !has_str(dev->options, dev->n_options, "nodev"));
	CHECK(dev && has_str(dev->options, dev->n_options, "nosuid"));
	CHECK(!find_change(h, ".mounts[/proc]"));
out:
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* ---- secrets --------------------------------------------------------- */

TEST(env_keeps_allowlisted_names_and_never_shows_values)
{
	struct spec *s =
	    config("\"env\": [\"PATH=/bin\", \"API_TOKEN=s3cr3t\","
		   " \"HOME=/root\", \"LANGUAGE=x\", \"NOEQUALS\"]",
		   "", "", "");
	struct hardened *h = harden_ok(s, NULL);
	_cleanup_free_ char *text = NULL;

	if (!h)
		goto out;
	CHECK(h->spec->process->n_env == 2);
	CHECK_STR(h->spec->process->env[0], "PATH=/bin");
	CHECK_STR(h->spec->process->env[1], "HOME=/root");
	CHECK_CHANGE(h, ".process.env", "API_TOKEN, LANGUAGE, NOEQUALS",
		     "dropped", "default");
	for (size_t i = 0; i < h->n_changes; i++) {
		CHECK(!strstr(h->changes[i].asked, "s3cr3t"));
		CHECK(!strstr(h->changes[i].applied, "s3cr3t"));
	}
	text = spec_text(h->spec);
	CHECK(text && !strstr(text, "s3cr3t"));
out:
	hardened_free(h);
	spec_free(s);
}

TEST(env_allowlist_from_the_policy)
{
	struct spec *s = fixture("cri_container.json");
	struct policy *p =
	    policy_of("{\"env\": {\"allow\": [\"NGINX_VERSION\"]}}");
	struct hardened *h = harden_ok(s, p);

	CHECK(h && h->spec->process->n_env == 1);
	CHECK(h &&
	      strcmp(h->spec->process->env[0], "NGINX_VERSION=1.23.3") == 0);
	CHECK_CHANGE(h, ".process.env", NULL, "dropped", "policy: env.allow");
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* ---- privileges ------------------------------------------------------ */

TEST(root_becomes_nobody_and_other_users_stay)
{
	struct spec *podman = fixture("podman_busybox.json");
	struct spec *cri = fixture("cri_container.json");
	struct hardened *hp = harden_ok(podman, NULL),
			*hc = harden_ok(cri, NULL);

	CHECK(hp && hp->spec->process->user.uid == 65534);
	CHECK(hp && hp->spec->process->user.gid == 65534);
	CHECK_CHANGE(hp, ".process.user.uid", "0", "65534", "default");
	CHECK_CHANGE(hp, ".process.user.gid", "0", "65534", "default");
	CHECK(hc && hc->spec->process->user.uid == 101);
	CHECK(!find_change(hc, ".process.user.uid"));
	CHECK(hc && hc->spec->process->user.n_additional_gids == 0);
	CHECK_CHANGE(hc, ".process.user.additionalGids", "[101]", "dropped",
		     "default");
	hardened_free(hp);
	hardened_free(hc);
	spec_free(podman);
	spec_free(cri);
}

TEST(user_policy_keys)
{
	struct spec *s = config(
	    "\"user\": {\"uid\": 0, \"gid\": 0, \"additionalGids\": [0, 10]}",
	    "", "", "");
	struct policy *uid = policy_of("{\"user\": {\"uid\": 1000}}");
	struct policy *groups = policy_of("{\"user\": {\"keepGroups\": true}}");
	struct policy *root = policy_of(
	    "{\"user\": {\"allowRoot\": true, \"keepGroups\": true}}");
	struct hardened *hu = harden_ok(s, uid), *hg = harden_ok(s, groups);
	struct hardened *hr = harden_ok(s, root);

	CHECK(hu && hu->spec->process->user.uid == 1000);
	CHECK_CHANGE(hu, ".process.user.uid", "0", "1000", "policy: user.uid");
	CHECK_CHANGE(hu, ".process.user.gid", "0", "65534", "default");
	CHECK_CHANGE(hg, ".process.user.additionalGids", "[0, 10]", "[10]",
		     "default: privileged host groups (policy: "
		     "user.privilegedGroups)");
	CHECK(hr && hr->spec->process->user.uid == 0);
	CHECK(hr && hr->spec->process->user.n_additional_gids == 2);
	CHECK(!find_change(hr, ".process.user.uid"));
	hardened_free(hu);
	hardened_free(hg);
	hardened_free(hr);
	policy_free(uid);
	policy_free(groups);
	policy_free(root);
	spec_free(s);
}

TEST(all_five_capability_sets_are_emptied)
{
	struct spec *s = fixture("runc_spec.json");
	struct hardened *h = harden_ok(s, NULL);
	const struct spec_caps *c = h ? h->spec->process->caps : NULL;

	CHECK(c && c->n_bounding == 0 && c->n_effective == 0);
	CHECK(c && c->n_permitted == 0 && c->n_inheritable == 0);
	CHECK(c && c->n_ambient == 0);
	CHECK_CHANGE(h, ".process.capabilities.ambient",
		     "[CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE]", "[]",
		     "default");
	CHECK(!find_change(h, ".process.noNewPrivileges")); /* already true */
	hardened_free(h);
	spec_free(s);
}

TEST(kept_capabilities_are_an_intersection)
{
	struct spec *s = fixture("runc_spec.json");
	struct policy *p =
	    policy_of("{\"capabilities\": {\"keep\": [\"CAP_NET_BIND_SERVICE\","
		      " \"CAP_SYS_ADMIN\"]}}");
	struct hardened *h = harden_ok(s, p);
	const struct spec_caps *c = h ? h->spec->process->caps : NULL;

	CHECK(c && c->n_bounding == 1 && c->n_ambient == 1);
	CHECK(c && strcmp(c->bounding[0], "CAP_NET_BIND_SERVICE") == 0);
	CHECK(c && !has_str(c->bounding, c->n_bounding, "CAP_SYS_ADMIN"));
	CHECK(c && c->n_inheritable == 0);
	CHECK_CHANGE(h, ".process.capabilities.bounding", NULL,
		     "[CAP_NET_BIND_SERVICE]", "policy: capabilities.keep");
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(no_new_privileges_is_forced)
{
	struct spec *s = fixture("podman_busybox.json");
	struct hardened *h = harden_ok(s, NULL);

	CHECK(h && h->spec->process->no_new_privileges);
	CHECK_CHANGE(h, ".process.noNewPrivileges", "false", "true", "default");
	hardened_free(h);
	spec_free(s);
}

/* ---- syscalls -------------------------------------------------------- */

TEST(syscalls_extend_the_baseline_and_config_filter_stays)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p =
	    policy_of("{\"syscalls\": {\"allow\": [\"io_uring_setup\"]}}");
	struct hardened *h = harden_ok(s, p), *def = harden_ok(s, NULL);

	CHECK(h && h->sandbox.n_syscalls_allow == 1);
	CHECK(h && strcmp(h->sandbox.syscalls_allow[0], "io_uring_setup") == 0);
	CHECK(def && def->sandbox.n_syscalls_allow == 0);
	CHECK(h && h->spec->linux_->seccomp &&
	      h->spec->linux_->seccomp->n_syscalls ==
		  s->linux_->seccomp->n_syscalls);
	CHECK(h && strcmp(h->spec->linux_->seccomp->default_action,
			  "SCMP_ACT_ERRNO") == 0);
	for (size_t i = 0; h && i < h->n_changes; i++)
		CHECK(strncmp(h->changes[i].field, ".linux.seccomp", 14) != 0);
	hardened_free(h);
	hardened_free(def);
	policy_free(p);
	spec_free(s);
}

int main(void)
{
	return unit_run();
}
