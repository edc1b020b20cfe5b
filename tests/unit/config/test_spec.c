/* Unit tests of the config.json model on good documents: spec_parse() of
 * every engine's shape, spec_parse_process(), spec_emit() and its round
 * trips, the name tables.  The documents that must fail are
 * test_spec_errors.c's.  Fixtures are read from tests/unit/fixtures/,
 * relative to the repository root where the tests run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fixture.h"

/* ---- helpers --------------------------------------------------------- */

static char *read_fixture(const char *name, size_t *len)
{
	char path[256];

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	return read_file(path, len);
}

/* Parse a fixture; NULL (and a failed check) when it does not parse. */
static struct spec *parse_fixture(const char *name)
{
	_cleanup_free_ char *json = NULL;
	_cleanup_error_ struct error *err = NULL;
	struct spec *s = NULL;
	size_t len = 0;

	json = read_fixture(name, &len);
	if (!json) {
		unit_failed_checks++;
		return NULL;
	}
	if (spec_parse(json, len, &s, &err) < 0) {
		printf("# %s: %s\n", name, err ? err->msg : "(no error)");
		unit_failed_checks++;
		return NULL;
	}
	return s;
}

static char *emit_text(const struct spec *s)
{
	_cleanup_error_ struct error *err = NULL;
	char *text = NULL;
	size_t len = 0;

	if (spec_emit(s, &text, &len, &err) < 0) {
		printf("# emit: %s\n", err ? err->msg : "(no error)");
		unit_failed_checks++;
		return NULL;
	}
	CHECK(len == strlen(text));
	CHECK(len > 0 && text[len - 1] == '\n');
	return text;
}

/* parse -> emit -> parse -> emit must give the same text twice. */
static void check_round_trip(const char *name)
{
	struct spec *s1 = parse_fixture(name), *s2 = NULL;
	_cleanup_free_ char *t1 = NULL, *t2 = NULL;
	_cleanup_error_ struct error *err = NULL;

	if (!s1)
		return;
	t1 = emit_text(s1);
	spec_free(s1);
	if (!t1)
		return;
	if (spec_parse(t1, strlen(t1), &s2, &err) < 0) {
		printf("# %s: emitted text does not parse: %s\n", name,
		       err->msg);
		unit_failed_checks++;
		return;
	}
	t2 = emit_text(s2);
	spec_free(s2);
	if (!t2)
		return;
	if (strcmp(t1, t2) != 0) {
		printf("# %s: round trip differs\n", name);
		unit_failed_checks++;
	}
}

static const char *find_annotation(const struct spec *s, const char *key)
{
	for (size_t i = 0; i < s->n_annotations; i++) {
		if (strcmp(s->annotations[i].key, key) == 0)
			return s->annotations[i].value;
	}
	return NULL;
}

/* ---- good documents -------------------------------------------------- */

TEST(runc_spec_fixture)
{
	struct spec *s = parse_fixture("runc_spec.json");
	struct spec_process *p;
	struct spec_linux *lx;

	if (!s)
		return;
	p = s->process;
	lx = s->linux_;
	CHECK_STR(s->oci_version, "1.0.2-dev");
	CHECK(p && p->terminal);
	CHECK(p->user.uid == 0 && p->user.gid == 0 && !p->user.umask.set);
	CHECK(p->n_args == 1 && p->args[1] == NULL);
	CHECK_STR(p->args[0], "sh");
	CHECK(p->n_env == 2);
	CHECK_STR(p->env[1], "TERM=xterm");
	CHECK_STR(p->cwd, "/");
	CHECK(p->caps && p->caps->n_bounding == 3 && p->caps->n_ambient == 3);
	CHECK(p->caps->inheritable == NULL && p->caps->n_inheritable == 0);
	CHECK_STR(p->caps->permitted[2], "CAP_NET_BIND_SERVICE");
	CHECK(p->n_rlimits == 1);
	CHECK(p->rlimits[0].resource == RLIMIT_NOFILE);
	CHECK(p->rlimits[0].hard == 1024 && p->rlimits[0].soft == 1024);
	CHECK(p->no_new_privileges);
	CHECK(!p->oom_score_adj.set);
	CHECK(s->root && s->root->readonly);
	CHECK_STR(s->root->path, "rootfs");
	CHECK_STR(s->hostname, "runc");
	CHECK(s->n_mounts == 7);
	CHECK_STR(s->mounts[6].destination, "/sys/fs/cgroup");
	CHECK(s->mounts[0].options == NULL && s->mounts[0].n_options == 0);
	CHECK(s->mounts[1].n_options == 4);
	CHECK_STR(s->mounts[1].options[3], "size=65536k");
	for (int k = 0; k < HOOK_KIND_COUNT; k++)
		CHECK(s->hooks[k].n == 0 && s->hooks[k].hooks == NULL);
	CHECK(s->n_annotations == 0);
	CHECK(lx && lx->resources && lx->resources->n_devices == 1);
	CHECK(!lx->resources->devices[0].allow);
	CHECK(lx->resources->devices[0].type == 'a');
	CHECK(!lx->resources->devices[0].major.set);
	CHECK_STR(lx->resources->devices[0].access, "rwm");
	CHECK(lx->n_namespaces == 5);
	CHECK(lx->namespaces[1].type == NS_NETWORK && !lx->namespaces[1].path);
	CHECK(lx->namespaces[4].type == NS_MOUNT);
	CHECK(lx->n_masked_paths == 10 && lx->n_readonly_paths == 5);
	CHECK(lx->seccomp == NULL && lx->cgroups_path == NULL);
	spec_free(s);
}

/* What `runc spec` writes is exactly what corral writes back. */
TEST(runc_spec_emits_identically)
{
	struct spec *s = parse_fixture("runc_spec.json");
	_cleanup_free_ char *orig = NULL, *text = NULL;
	size_t len = 0;

	if (!s)
		return;
	orig = read_fixture("runc_spec.json", &len);
	text = emit_text(s);
	spec_free(s);
	if (!orig || !text)
		return;
	while (len > 0 && orig[len - 1] == '\n')
		orig[--len] = '\0';
	CHECK(strlen(text) == len + 1);
	CHECK(strncmp(text, orig, len) == 0);
}

TEST(podman_fixture)
{
	struct spec *s = parse_fixture("podman_busybox.json");
	struct spec_process *p;
	struct spec_linux *lx;
	struct spec_seccomp *sc;

	if (!s)
		return;
	p = s->process;
	lx = s->linux_;
	CHECK(!p->terminal);
	CHECK(p->user.umask.set && p->user.umask.v == 18);
	CHECK(p->caps && p->caps->n_bounding == 11 && !p->caps->ambient);
	CHECK(p->n_rlimits == 2);
	CHECK(p->rlimits[0].resource == RLIMIT_NOFILE);
	CHECK(p->rlimits[0].hard == 1048576);
	CHECK(p->rlimits[1].resource == RLIMIT_NPROC);
	CHECK_STR(p->rlimits[1].type, "RLIMIT_NPROC");
	CHECK_STR(p->apparmor_profile, "containers-default-0.50.1");
	CHECK(p->oom_score_adj.set && p->oom_score_adj.v == 0);
	CHECK(s->n_mounts == 11);
	CHECK_STR(s->mounts[5].destination, "/etc/resolv.conf");
	CHECK_STR(s->mounts[5].type, "bind");
	CHECK_STR(find_annotation(s, "io.container.manager"), "libpod");
	CHECK_STR(find_annotation(s, "org.opencontainers.image.stopSignal"),
		  "15");
	CHECK(s->n_annotations == 8);
	CHECK(lx->n_sysctl == 1);
	CHECK_STR(lx->sysctl[0].key, "net.ipv4.ping_group_range");
	CHECK_STR(lx->sysctl[0].value, "0 0");
	CHECK(lx->resources->pids_limit.set);
	CHECK(lx->resources->pids_limit.v == 2048);
	CHECK(lx->cgroups_path &&
	      strncmp(lx->cgroups_path, "machine.slice:libpod:", 21) == 0);
	CHECK(lx->n_namespaces == 6);
	CHECK(lx->namespaces[1].type == NS_NETWORK);
	CHECK(lx->namespaces[1].path &&
	      strncmp(lx->namespaces[1].path, "/run/netns/netns-", 17) == 0);
	CHECK(lx->namespaces[5].type == NS_CGROUP);
	sc = lx->seccomp;
	CHECK(sc != NULL);
	if (!sc) {
		spec_free(s);
		return;
	}
	CHECK_STR(sc->default_action, "SCMP_ACT_ERRNO");
	CHECK(sc->default_errno_ret.set && sc->default_errno_ret.v == 38);
	CHECK(sc->n_architectures == 3);
	CHECK(sc->n_syscalls == 22);
	CHECK(sc->syscalls[0].errno_ret.set &&
	      sc->syscalls[0].errno_ret.v == 1);
	CHECK(sc->syscalls[1].n_names == 374 && !sc->syscalls[1].errno_ret.set);
	CHECK_STR(sc->syscalls[6].names[0], "personality");
	CHECK(sc->syscalls[6].n_args == 1);
	CHECK(sc->syscalls[6].args[0].value == 4294967295u);
	CHECK_STR(sc->syscalls[6].args[0].op, "SCMP_CMP_EQ");
	CHECK(sc->syscalls[18].errno_ret.v == 22 &&
	      sc->syscalls[18].n_args == 2);
	CHECK(sc->syscalls[18].args[1].index == 2);
	CHECK(sc->syscalls[18].args[1].value == 9);
	CHECK(lx->n_masked_paths == 11 && lx->n_readonly_paths == 6);
	spec_free(s);
}

TEST(containerd_ctr_fixture)
{
	struct spec *s = parse_fixture("containerd_ctr.json");
	struct spec_linux *lx;

	if (!s)
		return;
	lx = s->linux_;
	CHECK(s->process->n_args == 3);
	CHECK_STR(s->process->args[2], "echo hello");
	CHECK(s->process->caps->n_effective == 14);
	CHECK(s->process->no_new_privileges);
	CHECK(!s->root->readonly);
	CHECK(s->hostname == NULL);
	CHECK_STR(lx->cgroups_path, "/default/hello");
	CHECK(lx->n_namespaces == 5);
	CHECK(lx->namespaces[4].type == NS_NETWORK);
	CHECK_STR(lx->namespaces[4].path, "/var/run/netns/hello-net");
	CHECK(s->n_mounts == 7);
	CHECK_STR(s->mounts[6].destination, "/run");
	spec_free(s);
}

TEST(cri_sandbox_fixture)
{
	struct spec *s = parse_fixture("cri_sandbox.json");
	struct spec_process *p;

	if (!s)
		return;
	p = s->process;
	CHECK_STR(find_annotation(s, "io.kubernetes.cri.container-type"),
		  "sandbox");
	CHECK_STR(p->args[0], "/pause");
	CHECK(p->user.uid == 65535 && p->user.gid == 65535);
	CHECK(p->user.n_additional_gids == 1);
	CHECK(p->user.additional_gids[0] == 65535);
	CHECK(p->oom_score_adj.set && p->oom_score_adj.v == -998);
	CHECK(s->root->readonly);
	CHECK(s->linux_->resources->cpu);
	CHECK(s->linux_->resources->cpu->shares.set);
	CHECK(s->linux_->resources->cpu->shares.v == 2);
	CHECK(!s->linux_->resources->cpu->quota.set);
	CHECK(s->linux_->n_sysctl == 2);
	CHECK(s->linux_->seccomp && s->linux_->seccomp->n_syscalls == 2);
	CHECK(s->linux_->seccomp->syscalls[1].args[0].value == 2114060288);
	CHECK(s->linux_->namespaces[4].path != NULL);
	spec_free(s);
}

TEST(cri_container_fixture)
{
	struct spec *s = parse_fixture("cri_container.json");
	struct spec_linux *lx;
	static const struct {
		enum spec_ns_type type;
		const char *path;
	} want[] = {
	    {NS_PID, NULL},
	    {NS_IPC, "/proc/123/ns/ipc"},
	    {NS_UTS, "/proc/123/ns/uts"},
	    {NS_MOUNT, NULL},
	    {NS_NETWORK, "/proc/123/ns/net"},
	};

	if (!s)
		return;
	lx = s->linux_;
	CHECK_STR(find_annotation(s, "io.kubernetes.cri.container-type"),
		  "container");
	CHECK(lx->n_namespaces == ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want) && i < lx->n_namespaces; i++) {
		CHECK(lx->namespaces[i].type == want[i].type);
		if (want[i].path)
			CHECK_STR(lx->namespaces[i].path, want[i].path);
		else
			CHECK(lx->namespaces[i].path == NULL);
	}
	CHECK(s->process->user.uid == 101);
	CHECK_STR(s->process->apparmor_profile, "cri-containerd.apparmor.d");
	CHECK(lx->resources->memory->limit.v == 268435456);
	CHECK(!lx->resources->memory->reservation.set);
	CHECK(lx->resources->cpu->quota.v == 50000);
	CHECK(lx->resources->cpu->period.v == 100000);
	CHECK(lx->resources->n_hugepage_limits == 2);
	CHECK_STR(lx->resources->hugepage_limits[1].page_size, "1GB");
	CHECK(lx->resources->n_unified == 1);
	CHECK_STR(lx->resources->unified[0].value, "1");
	CHECK(lx->seccomp->syscalls[4].errno_ret.v == 38);
	CHECK(s->n_mounts == 12);
	spec_free(s);
}

TEST(all_fields_fixture)
{
	struct spec *s = parse_fixture("all_fields.json");
	struct spec_process *p;
	struct spec_linux *lx;
	struct spec_resources *r;

	if (!s)
		return;
	p = s->process;
	lx = s->linux_;
	r = lx->resources;
	CHECK(p->has_console_size && p->console_height == 40);
	CHECK(p->console_width == 120);
	CHECK(p->user.uid == 1000 && p->user.umask.v == 63);
	CHECK(p->user.additional_gids[1] == 4294967294u);
	CHECK(p->caps->inheritable == NULL && p->caps->n_ambient == 1);
	CHECK(p->rlimits[0].resource == RLIMIT_MEMLOCK);
	CHECK(p->rlimits[0].hard == UINT64_MAX &&
	      p->rlimits[0].soft == UINT64_MAX);
	CHECK(p->rlimits[1].hard == 0);
	CHECK(p->oom_score_adj.v == -500);
	CHECK_STR(p->selinux_label, "system_u:system_r:container_t:s0:c1,c2");
	CHECK(!s->root->readonly);
	CHECK_STR(s->domainname, "example.org");
	CHECK(s->mounts[2].type == NULL && s->mounts[2].source == NULL);
	CHECK(s->hooks[HOOK_PRESTART].n == 1);
	CHECK(s->hooks[HOOK_PRESTART].hooks[0].timeout.v == 5);
	CHECK(s->hooks[HOOK_PRESTART].hooks[0].n_args == 2);
	CHECK(s->hooks[HOOK_CREATE_RUNTIME].n == 2);
	CHECK(!s->hooks[HOOK_CREATE_RUNTIME].hooks[0].timeout.set);
	CHECK_STR(s->hooks[HOOK_POSTSTOP].hooks[0].path, "/usr/bin/cleanup");
	for (int k = 0; k < HOOK_KIND_COUNT; k++)
		CHECK(s->hooks[k].n >= 1);
	CHECK_STR(find_annotation(s, "org.opencontainers.image.title"),
		  "app \"quoted\"");
	CHECK(lx->uid_mappings[0].host_id == 100000);
	CHECK(lx->gid_mappings[0].size == 65536);
	CHECK(r->n_devices == 3 && r->devices[1].allow);
	CHECK(r->devices[1].type == 'c' && r->devices[1].minor.v == 3);
	CHECK(r->devices[2].type == 'b' && !r->devices[2].minor.set);
	CHECK(r->devices[2].access == NULL);
	CHECK(r->memory->swap.v == -1 && r->memory->kernel_tcp.v == 16777216);
	CHECK(r->memory->swappiness.set && r->memory->swappiness.v == 0);
	CHECK(r->memory->has_disable_oom_killer);
	CHECK(!r->memory->disable_oom_killer);
	CHECK(r->memory->has_use_hierarchy && r->memory->use_hierarchy);
	CHECK(r->memory->check_before_update);
	CHECK(r->cpu->burst.v == 10000 && r->cpu->realtime_runtime.v == 950000);
	CHECK(r->cpu->idle.set && r->cpu->idle.v == 0);
	CHECK_STR(r->cpu->cpus, "0-3");
	CHECK(r->pids_limit.v == 512);
	CHECK(r->block_io->weight.v == 500 &&
	      r->block_io->leaf_weight.v == 300);
	CHECK(r->block_io->n_weight_devices == 2);
	CHECK(!r->block_io->weight_devices[1].weight.set);
	CHECK(r->block_io->n_throttle[THROTTLE_READ_IOPS] == 1);
	CHECK(r->block_io->throttle[THROTTLE_READ_BPS][0].rate == 104857600);
	CHECK(r->block_io->throttle[THROTTLE_WRITE_IOPS][0].rate == UINT64_MAX);
	CHECK(r->hugepage_limits[0].limit == 209715200);
	CHECK(r->n_unified == 2);
	CHECK(lx->n_namespaces == 8 && lx->namespaces[7].type == NS_TIME);
	CHECK(lx->namespaces[7].path == NULL);
	CHECK(lx->namespaces[5].type == NS_USER);
	CHECK(lx->n_devices == 4);
	CHECK(lx->devices[0].type == 'c' && lx->devices[0].minor == 229);
	CHECK(lx->devices[0].file_mode.v == 438 && lx->devices[0].uid.set);
	CHECK(lx->devices[2].type == 'u');
	CHECK(lx->devices[3].type == 'p' && lx->devices[3].major == 0);
	CHECK(!lx->devices[3].file_mode.set);
	CHECK(lx->seccomp->n_flags == 2);
	CHECK_STR(lx->seccomp->listener_path, "/run/seccomp-agent.socket");
	CHECK(lx->seccomp->syscalls[1].args[0].value_two == 4);
	CHECK(lx->seccomp->syscalls[1].args[1].value == UINT64_MAX);
	CHECK(lx->seccomp->syscalls[1].args[1].value_two == 0);
	CHECK_STR(lx->rootfs_propagation, "rslave");
	CHECK_STR(lx->mount_label,
		  "system_u:object_r:container_file_t:s0:c1,c2");
	CHECK(lx->personality && lx->personality->n_flags == 0);
	CHECK_STR(lx->personality->domain, "LINUX32");
	spec_free(s);
}

TEST(round_trip_every_fixture)
{
	static const char *const fixtures[] = {
	    "runc_spec.json",	"podman_busybox.json", "containerd_ctr.json",
	    "cri_sandbox.json", "cri_container.json",  "all_fields.json",
	};

	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++)
		check_round_trip(fixtures[i]);
}

/* Values that only survive if emit writes uint64 and int64 exactly. */
TEST(emit_keeps_extreme_integers)
{
	struct spec *s = parse_fixture("all_fields.json");
	_cleanup_free_ char *text = NULL;

	if (!s)
		return;
	text = emit_text(s);
	spec_free(s);
	if (!text)
		return;
	CHECK(strstr(text, "\"hard\": 18446744073709551615") != NULL);
	CHECK(strstr(text, "\"swap\": -1") != NULL);
	CHECK(strstr(text, "\"additionalGids\"") != NULL);
	CHECK(strstr(text, "\"path\": null") == NULL);
	CHECK(strstr(text, "x-unknown") == NULL);
	CHECK(strstr(text, "\"inheritable\"") == NULL);
}

TEST(minimal_document)
{
	static const char json[] = "{\"ociVersion\": \"1.2.0\"}";
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *text = NULL;
	struct spec *s = NULL;

	CHECK(spec_parse(json, strlen(json), &s, &err) == 0);
	if (!s)
		return;
	CHECK(s->process == NULL && s->root == NULL && s->linux_ == NULL);
	CHECK(s->mounts == NULL && s->annotations == NULL);
	text = emit_text(s);
	CHECK_STR(text, "{\n\t\"ociVersion\": \"1.2.0\"\n}\n");
	spec_free(s);
}

TEST(null_means_absent)
{
	static const char json[] =
	    "{\"ociVersion\":\"1.0.0\",\"process\":null,\"root\":null,"
	    "\"hostname\":null,\"mounts\":null,\"hooks\":{\"prestart\":null},"
	    "\"annotations\":null,\"linux\":{\"seccomp\":null,"
	    "\"namespaces\":null,\"resources\":{\"memory\":{\"limit\":null,"
	    "\"useHierarchy\":null},\"cpu\":null}}}";
	_cleanup_error_ struct error *err = NULL;
	struct spec *s = NULL;

	CHECK(spec_parse(json, strlen(json), &s, &err) == 0);
	if (!s)
		return;
	CHECK(!s->process && !s->root && !s->hostname && !s->mounts);
	CHECK(s->hooks[HOOK_PRESTART].n == 0);
	CHECK(s->linux_ && !s->linux_->seccomp && !s->linux_->namespaces);
	CHECK(s->linux_->resources->memory != NULL);
	CHECK(!s->linux_->resources->memory->limit.set);
	CHECK(!s->linux_->resources->memory->has_use_hierarchy);
	CHECK(s->linux_->resources->cpu == NULL);
	spec_free(s);
}

TEST(absent_user_is_root_and_boundaries_parse)
{
	static const char json[] =
	    "{\"ociVersion\":\"1.0.0\",\"process\":{\"args\":[\"x\"],"
	    "\"cwd\":\"/\",\"oomScoreAdj\":-1000,\"rlimits\":[{\"type\":"
	    "\"RLIMIT_STACK\",\"hard\":0,\"soft\":18446744073709551615}]},"
	    "\"linux\":{\"uidMappings\":[{\"containerID\":4294967295,"
	    "\"hostID\":0,\"size\":1}],\"resources\":{\"memory\":"
	    "{\"limit\":-9223372036854775808,\"swappiness\":"
	    "9223372036854775807}}}}";
	_cleanup_error_ struct error *err = NULL;
	struct spec *s = NULL;

	CHECK(spec_parse(json, strlen(json), &s, &err) == 0);
	if (!s) {
		printf("# %s\n", err->msg);
		return;
	}
	CHECK(s->process->user.uid == 0 && s->process->user.gid == 0);
	CHECK(s->process->oom_score_adj.v == -1000);
	CHECK(s->process->rlimits[0].soft == UINT64_MAX);
	CHECK(s->linux_->uid_mappings[0].container_id == UINT32_MAX);
	CHECK(s->linux_->resources->memory->limit.v == INT64_MIN);
	CHECK(s->linux_->resources->memory->swappiness.v == INT64_MAX);
	spec_free(s);
}

/* ---- bad documents --------------------------------------------------- */

TEST(process_json_fixture)
{
	_cleanup_free_ char *json = NULL;
	_cleanup_error_ struct error *err = NULL;
	struct spec_process *p = NULL;
	size_t len = 0;

	json = read_fixture("process.json", &len);
	if (!json) {
		unit_failed_checks++;
		return;
	}
	CHECK(spec_parse_process(json, len, &p, &err) == 0);
	if (!p) {
		printf("# %s\n", err ? err->msg : "(no error)");
		return;
	}
	CHECK(p->terminal && p->has_console_size);
	CHECK(p->console_height == 24 && p->console_width == 80);
	CHECK(p->user.n_additional_gids == 11);
	CHECK(p->user.additional_gids[10] == 27);
	CHECK(p->n_args == 3);
	CHECK_STR(p->args[2], "ps aux");
	CHECK(p->n_env == 5);
	CHECK_STR(p->cwd, "/");
	CHECK(p->caps && p->caps->n_permitted == 2 && !p->caps->ambient);
	CHECK(p->rlimits[0].resource == RLIMIT_NOFILE);
	CHECK(p->no_new_privileges);
	CHECK(p->oom_score_adj.set);
	spec_process_free(p);
}

TEST(rlimit_names)
{
	static const struct {
		const char *name;
		int resource;
	} all[] = {
	    {"RLIMIT_AS", RLIMIT_AS},
	    {"RLIMIT_CORE", RLIMIT_CORE},
	    {"RLIMIT_CPU", RLIMIT_CPU},
	    {"RLIMIT_DATA", RLIMIT_DATA},
	    {"RLIMIT_FSIZE", RLIMIT_FSIZE},
	    {"RLIMIT_LOCKS", RLIMIT_LOCKS},
	    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
	    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
	    {"RLIMIT_NICE", RLIMIT_NICE},
	    {"RLIMIT_NOFILE", RLIMIT_NOFILE},
	    {"RLIMIT_NPROC", RLIMIT_NPROC},
	    {"RLIMIT_RSS", RLIMIT_RSS},
	    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
	    {"RLIMIT_RTTIME", RLIMIT_RTTIME},
	    {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
	    {"RLIMIT_STACK", RLIMIT_STACK},
	};

	CHECK(ARRAY_SIZE(all) == RLIMIT_NLIMITS);
	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		CHECK(spec_rlimit_from_name(all[i].name) == all[i].resource);
	CHECK(spec_rlimit_from_name("RLIMIT_FOO") == -1);
	CHECK(spec_rlimit_from_name("rlimit_nofile") == -1);
	CHECK(spec_rlimit_from_name("") == -1);
	CHECK(spec_rlimit_from_name(NULL) == -1);
}

TEST(namespace_and_hook_names)
{
	for (int i = 0; i < NS_TYPE_COUNT; i++)
		CHECK(spec_ns_type_from_name(spec_ns_type_names[i]) == i);
	CHECK(spec_ns_type_from_name("network") == NS_NETWORK);
	CHECK(spec_ns_type_from_name("time") == NS_TIME);
	CHECK(spec_ns_type_from_name("net") == -1);
	CHECK(spec_ns_type_from_name(NULL) == -1);
	CHECK_STR(spec_hook_kind_names[HOOK_CREATE_RUNTIME], "createRuntime");
	CHECK_STR(spec_hook_kind_names[HOOK_POSTSTOP], "poststop");
}

TEST(free_accepts_null)
{
	spec_free(NULL);
	spec_process_free(NULL);
	CHECK(1);
}

int main(void)
{
	return unit_run();
}
