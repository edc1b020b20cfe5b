/* Unit tests of harden() for time, memory, pids and cpu (with the
 * run.corral.* annotations that narrow them and the errors when they
 * would widen), the kernel surface, pod roles, the permissive mode and
 * the sandbox settings as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fixture.h"

#define MiB (INT64_C(1) << 20)

/* A config with the given annotations object and linux object. */
static struct spec *config(const char *annotations, const char *linux_)
{
	char json[4096];

	snprintf(json, sizeof(json),
		 "{\"ociVersion\": \"1.2.0\","
		 " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
		 "  \"args\": [\"sh\"], \"cwd\": \"/\"},"
		 " \"root\": {\"path\": \"rootfs\"},"
		 " \"annotations\": {%s}, \"linux\": {%s}}",
		 annotations, linux_);
	return spec_of(json);
}

static const struct spec_resources *res(const struct hardened *h)
{
	return h && h->spec->linux_ ? h->spec->linux_->resources : NULL;
}

/* ---- time ------------------------------------------------------------ */

TEST(wall_clock_is_the_policys)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p = policy_of("{\"limits\": {\"wallClock\": 30}}");
	struct hardened *def = harden_ok(s, NULL), *h = harden_ok(s, p);

	CHECK(def && def->sandbox.wall_clock == 600);
	CHECK(h && h->sandbox.wall_clock == 30);
	CHECK(def && def->sandbox.role == ROLE_WORKLOAD);
	CHECK(!find_change(def, "sandbox.wallClock"));
	hardened_free(def);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(annotations_narrow)
{
	struct spec *s = config("\"run.corral.timeout\": \"300\","
				" \"run.corral.memory\": \"128MiB\","
				" \"run.corral.pids\": \"64\"",
				"");
	struct hardened *h = harden_ok(s, NULL);

	CHECK(h && h->sandbox.wall_clock == 300);
	CHECK(res(h) && res(h)->memory->limit.v == 128 * MiB);
	CHECK(res(h) && res(h)->memory->swap.v == 128 * MiB);
	CHECK(res(h) && res(h)->pids_limit.v == 64);
	CHECK_CHANGE(h, ".linux.resources.memory.limit", "absent", "128MiB",
		     "annotation: run.corral.memory");
	CHECK_CHANGE(h, ".linux.resources.pids.limit", "absent", "64",
		     "annotation: run.corral.pids");
	hardened_free(h);
	spec_free(s);
}

TEST(annotations_that_widen_fail)
{
	static const struct {
		const char *annotation, *msg;
	} cases[] = {
	    {"\"run.corral.timeout\": \"900\"",
	     "annotation run.corral.timeout=900: wider than the policy's 600s"},
	    {"\"run.corral.timeout\": \"none\"",
	     "annotation run.corral.timeout=none: wider than the policy's "
	     "600s"},
	    {"\"run.corral.memory\": \"1GiB\"",
	     "annotation run.corral.memory=1GiB: wider than the policy's "
	     "512 MiB"},
	    {"\"run.corral.memory\": \"536870913\"",
	     "annotation run.corral.memory=536870913: wider than the policy's "
	     "512 MiB"},
	    {"\"run.corral.pids\": \"257\"",
	     "annotation run.corral.pids=257: wider than the policy's 256"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct spec *s = config(cases[i].annotation, "");
		struct policy *p = policy_of(NULL);

		CHECK_ERROR(harden_error(s, p), cases[i].msg);
		policy_free(p);
		spec_free(s);
	}
}

TEST(annotations_that_do_not_parse_fail)
{
	static const struct {
		const char *annotation, *msg;
	} cases[] = {
	    {"\"run.corral.timeout\": \"10m\"",
	     "annotation run.corral.timeout=10m: expected a positive number of "
	     "seconds or \"none\""},
	    {"\"run.corral.timeout\": \"0\"",
	     "annotation run.corral.timeout=0: expected a positive number of "
	     "seconds or \"none\""},
	    {"\"run.corral.timeout\": \"-5\"",
	     "annotation run.corral.timeout=-5: expected a positive number of "
	     "seconds or \"none\""},
	    {"\"run.corral.memory\": \"256MB\"",
	     "annotation run.corral.memory=256MB: expected a size in bytes or "
	     "like \"256MiB\", or \"none\""},
	    {"\"run.corral.pids\": \"a\\nb\"",
	     "annotation run.corral.pids=a?b: expected a positive integer or "
	     "\"none\""},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct spec *s = config(cases[i].annotation, "");
		struct policy *p = policy_of(NULL);

		CHECK_ERROR(harden_error(s, p), cases[i].msg);
		policy_free(p);
		spec_free(s);
	}
}

TEST(annotations_under_a_policy_without_limits)
{
	struct spec *s = config("\"run.corral.timeout\": \"900\","
				" \"run.corral.memory\": \"none\"",
				"");
	struct policy *p =
	    policy_of("{\"limits\": {\"wallClock\": 0, \"memory\": 0}}");
	struct hardened *h = harden_ok(s, p);

	CHECK(h && h->sandbox.wall_clock == 900);
	CHECK(res(h) && !res(h)->memory);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* Being marked a pod sandbox buys no wall clock, and only limits that
 * leave a pause process nothing else to do. */
TEST(pod_sandboxes_have_no_wall_clock)
{
	struct spec *cri = fixture("cri_sandbox.json");
	struct spec *crio =
	    config("\"io.kubernetes.cri-o.ContainerType\": \"sandbox\"", "");
	struct spec *infra =
	    config("\"io.podman.annotations.infra\": \"TRUE\"", "");
	struct spec *app = fixture("cri_container.json");
	struct hardened *h = harden_ok(cri, NULL), *ho = harden_ok(crio, NULL);
	struct hardened *hi = harden_ok(infra, NULL),
			*ha = harden_ok(app, NULL);

	CHECK(h && h->sandbox.role == ROLE_POD_SANDBOX &&
	      !h->sandbox.wall_clock);
	CHECK_CHANGE(h, "sandbox.wallClock", "absent", "none",
		     "role: pod sandbox");
	/* every other restriction stays, and the limits are a pause's */
	CHECK(h && h->spec->process->caps->n_bounding == 0);
	CHECK(res(h) && res(h)->memory->limit.v == 16 * MiB);
	CHECK(res(h) && res(h)->pids_limit.v == 2);
	CHECK(res(h) && res(h)->cpu && res(h)->cpu->quota.v == 5000 &&
	      res(h)->cpu->period.v == 100000);
	CHECK_CHANGE(h, ".linux.resources.pids.limit", "absent", "2",
		     "role: pod sandbox");
	CHECK(ho && ho->sandbox.role == ROLE_POD_SANDBOX);
	CHECK(hi && hi->sandbox.role == ROLE_POD_SANDBOX &&
	      !hi->sandbox.wall_clock);
	CHECK(ha && ha->sandbox.role == ROLE_WORKLOAD &&
	      ha->sandbox.wall_clock);
	hardened_free(h);
	hardened_free(ho);
	hardened_free(hi);
	hardened_free(ha);
	spec_free(cri);
	spec_free(crio);
	spec_free(infra);
	spec_free(app);
}

/* A pod sandbox that carries the pod's egress proxy keeps the policy's
 * limits: the proxy serves every container of the pod, in its cgroup. */
TEST(a_pod_sandbox_with_the_egress_proxy_keeps_the_policy_limits)
{
	struct spec *cri = fixture("cri_sandbox.json");
	struct policy *p =
	    policy_of("{\"network\": {\"allow\": [\"pypi.org\"]},"
		      " \"limits\": {\"memory\": \"512MiB\","
		      " \"pids\": 100, \"cpus\": 2}}");
	struct hardened *h = harden_ok(cri, p);

	CHECK(h && h->sandbox.role == ROLE_POD_SANDBOX && h->sandbox.egress_on);
	CHECK(h && !h->sandbox.wall_clock);
	CHECK(res(h) && res(h)->memory->limit.v == 512 * MiB);
	CHECK(res(h) && res(h)->pids_limit.v == 100);
	CHECK(res(h) && res(h)->cpu && res(h)->cpu->quota.v == 200000);
	hardened_free(h);
	policy_free(p);
	spec_free(cri);
}

static const struct spec_rlimit *rlimit_of(const struct hardened *h, int r)
{
	for (size_t i = 0; h && i < h->spec->process->n_rlimits; i++)
		if (h->spec->process->rlimits[i].resource == r)
			return &h->spec->process->rlimits[i];
	return NULL;
}

/* Whatever its cgroup, a pod sandbox's own process gets a pause's CPU
 * time and address space (and the runtime, by the role, no fork): under
 * an egress policy too, where its cgroup keeps the policy's limits.  A
 * smaller value of config.json's stays; a workload gets neither. */
TEST(a_pod_sandboxs_process_is_held_to_a_pause_under_every_policy)
{
	struct spec *cri = fixture("cri_sandbox.json");
	struct spec *small =
	    config("\"io.kubernetes.cri.container-type\": \"sandbox\"", "");
	struct spec *app = fixture("cri_container.json");
	struct policy *p =
	    policy_of("{\"network\": {\"allow\": [\"pypi.org\"]}}");
	struct hardened *h = harden_ok(cri, p), *ha = harden_ok(app, p);
	struct hardened *hs;
	const struct spec_rlimit *cpu, *as;

	cpu = rlimit_of(h, RLIMIT_CPU);
	as = rlimit_of(h, RLIMIT_AS);
	CHECK(cpu && cpu->hard == 10 && cpu->soft == 10);
	CHECK(as && as->hard == 64 * MiB && as->soft == 64 * MiB);
	CHECK_CHANGE(h, ".process.rlimits[RLIMIT_CPU]", "absent", "10/10",
		     "role: pod sandbox");
	CHECK(!rlimit_of(ha, RLIMIT_CPU) && !rlimit_of(ha, RLIMIT_AS));
	small->process->rlimits = calloc(1, sizeof(*small->process->rlimits));
	small->process->rlimits[0] =
	    (struct spec_rlimit){strdup("RLIMIT_CPU"), RLIMIT_CPU, 5, 3};
	small->process->n_rlimits = 1;
	hs = harden_ok(small, p);
	cpu = rlimit_of(hs, RLIMIT_CPU);
	CHECK(cpu && cpu->hard == 5 && cpu->soft == 3);
	CHECK(!find_change(hs, ".process.rlimits[RLIMIT_CPU]"));
	hardened_free(h);
	hardened_free(ha);
	hardened_free(hs);
	policy_free(p);
	spec_free(cri);
	spec_free(small);
	spec_free(app);
}

/* A pod annotation reaches the pod's sandbox too, whose wall clock stays
 * off (it would take the pod down); smaller limits still apply. */
TEST(pod_sandbox_ignores_a_timeout_annotation)
{
	struct spec *s = config("\"io.kubernetes.cri.container-type\": "
				"\"sandbox\", \"run.corral.timeout\": \"3\"",
				"");
	struct spec *small = config(
	    "\"io.kubernetes.cri.container-type\": \"sandbox\", "
	    "\"run.corral.pids\": \"1\", \"run.corral.memory\": \"4MiB\"",
	    "\"resources\": {\"cpu\": {\"quota\": 1000, \"period\": 100000}}");
	struct hardened *h = harden_ok(s, NULL), *hs = harden_ok(small, NULL);

	CHECK(h && h->sandbox.role == ROLE_POD_SANDBOX &&
	      h->sandbox.wall_clock == 0);
	CHECK_CHANGE(h, "sandbox.wallClock", "3", "none", "role: pod sandbox");
	/* smaller limits of the config or an annotation stay */
	CHECK(res(hs) && res(hs)->pids_limit.v == 1);
	CHECK(res(hs) && res(hs)->memory->limit.v == 4 * MiB);
	CHECK(res(hs) && res(hs)->cpu->quota.v == 1000);
	hardened_free(h);
	hardened_free(hs);
	spec_free(s);
	spec_free(small);
}

/* ---- memory, pids, cpu ----------------------------------------------- */

TEST(memory_is_the_smallest_and_swap_is_none)
{
	struct spec *podman = fixture("podman_busybox.json");
	struct spec *cri = fixture("cri_container.json");
	struct spec *unlimited =
	    config("", "\"resources\": {\"memory\": {\"limit\": -1,"
		       " \"swap\": -1}}");
	struct hardened *hp = harden_ok(podman, NULL),
			*hc = harden_ok(cri, NULL);
	struct hardened *hu = harden_ok(unlimited, NULL);

	CHECK(res(hp) && res(hp)->memory->limit.v == 512 * MiB);
	CHECK_CHANGE(hp, ".linux.resources.memory.limit", "absent", "512MiB",
		     "default");
	CHECK_CHANGE(hp, ".linux.resources.memory.swap", "absent", "512MiB",
		     "default");
	/* config.json's 256 MiB is already smaller */
	CHECK(res(hc) && res(hc)->memory->limit.v == 256 * MiB);
	CHECK(!find_change(hc, ".linux.resources.memory.limit"));
	CHECK(!find_change(hc, ".linux.resources.memory.swap"));
	CHECK_CHANGE(hu, ".linux.resources.memory.limit", "-1", "512MiB",
		     "default");
	CHECK_CHANGE(hu, ".linux.resources.memory.swap", "-1", "512MiB",
		     "default");
	hardened_free(hp);
	hardened_free(hc);
	hardened_free(hu);
	spec_free(podman);
	spec_free(cri);
	spec_free(unlimited);
}

TEST(memory_policy_key_and_no_limit)
{
	struct spec *s = config("", "");
	struct policy *big = policy_of("{\"limits\": {\"memory\": \"2GiB\"}}");
	struct policy *none = policy_of("{\"limits\": {\"memory\": 0}}");
	struct hardened *hb = harden_ok(s, big), *hn = harden_ok(s, none);

	CHECK_CHANGE(hb, ".linux.resources.memory.limit", "absent", "2GiB",
		     "policy: limits.memory");
	CHECK(res(hn) && !res(hn)->memory);
	CHECK(!find_change(hn, ".linux.resources.memory.limit"));
	hardened_free(hb);
	hardened_free(hn);
	policy_free(big);
	policy_free(none);
	spec_free(s);
}

TEST(pids_are_the_smallest)
{
	struct spec *podman = fixture("podman_busybox.json");
	struct spec *few =
	    config("", "\"resources\": {\"pids\": {\"limit\": 10}}");
	struct hardened *hp = harden_ok(podman, NULL),
			*hf = harden_ok(few, NULL);

	CHECK(res(hp) && res(hp)->pids_limit.v == 256);
	CHECK_CHANGE(hp, ".linux.resources.pids.limit", "2048", "256",
		     "default");
	CHECK(res(hf) && res(hf)->pids_limit.v == 10);
	CHECK(!find_change(hf, ".linux.resources.pids.limit"));
	hardened_free(hp);
	hardened_free(hf);
	spec_free(podman);
	spec_free(few);
}

TEST(cpu_quota_narrows_to_the_policys_share)
{
	struct spec *cri = fixture("cri_container.json"); /* 50000/100000 */
	struct spec *odd = config(
	    "",
	    "\"resources\": {\"cpu\": {\"quota\": 30000, \"period\": 50000}}");
	struct policy *quarter = policy_of("{\"limits\": {\"cpus\": 0.25}}");
	struct policy *two = policy_of("{\"limits\": {\"cpus\": 2}}");
	struct policy *half = policy_of("{\"limits\": {\"cpus\": 0.5}}");
	struct hardened *hq = harden_ok(cri, quarter),
			*ht = harden_ok(cri, two);
	struct hardened *ho = harden_ok(odd, half), *hd = harden_ok(cri, NULL);

	CHECK(res(hq) && res(hq)->cpu->quota.v == 25000 &&
	      res(hq)->cpu->period.v == 100000);
	CHECK_CHANGE(hq, ".linux.resources.cpu.quota", "50000", "25000",
		     "policy: limits.cpus");
	CHECK(!find_change(hq, ".linux.resources.cpu.period"));
	CHECK(res(ht) && res(ht)->cpu->quota.v == 50000);
	CHECK(!find_change(ht, ".linux.resources.cpu.quota"));
	/* 30000/50000 is 0.6 CPU: more than half */
	CHECK(res(ho) && res(ho)->cpu->quota.v == 50000 &&
	      res(ho)->cpu->period.v == 100000);
	CHECK_CHANGE(ho, ".linux.resources.cpu.period", "50000", "100000",
		     "policy: limits.cpus");
	CHECK(res(hd) && res(hd)->cpu->quota.v == 50000);
	hardened_free(hq);
	hardened_free(ht);
	hardened_free(ho);
	hardened_free(hd);
	policy_free(quarter);
	policy_free(two);
	policy_free(half);
	spec_free(cri);
	spec_free(odd);
}

/* ---- kernel surface -------------------------------------------------- */

TEST(masked_and_readonly_paths_are_a_union)
{
	struct spec *s = config(
	    "", "\"maskedPaths\": [\"/proc/custom\", \"/proc/kcore\","
		" \"/proc/custom\"],"
		" \"readonlyPaths\": [\"/proc/sys\", \"/proc/bus\","
		" \"/proc/fs\", \"/proc/irq\", \"/proc/sysrq-trigger\"]");
	struct hardened *h = harden_ok(s, NULL);
	const struct spec_linux *lx = h ? h->spec->linux_ : NULL;

	CHECK(lx && lx->n_masked_paths == 14);
	CHECK(lx && strcmp(lx->masked_paths[0], "/proc/custom") == 0);
	CHECK(lx && strcmp(lx->masked_paths[1], "/proc/kcore") == 0);
	CHECK(lx && strcmp(lx->masked_paths[2], "/proc/acpi") == 0);
	CHECK(lx &&
	      has_str(lx->masked_paths, lx->n_masked_paths, "/sys/dev/block"));
	CHECK_CHANGE(h, ".linux.maskedPaths", "3 paths", NULL, "default");
	CHECK(lx && lx->n_readonly_paths == 5);
	CHECK(!find_change(h, ".linux.readonlyPaths"));
	hardened_free(h);
	spec_free(s);
}

TEST(devices_need_the_policy)
{
	struct spec *s = config(
	    "", "\"devices\": ["
		"{\"path\": \"/dev/fuse\", \"type\": \"c\", \"major\": 10,"
		" \"minor\": 229},"
		"{\"path\": \"/dev/nvidia0\", \"type\": \"c\", \"major\": 195,"
		" \"minor\": 0},"
		"{\"path\": \"/dev/nvidia1\", \"type\": \"c\", \"major\": 8,"
		" \"minor\": 0},"
		"{\"path\": \"/dev/null\", \"type\": \"c\", \"major\": 1,"
		" \"minor\": 3}],"
		"\"resources\": {\"devices\": [{\"allow\": true,"
		" \"access\": \"rwm\"}]}");
	struct policy *gpu = policy_of(
	    "{\"devices\": [{\"path\": \"/dev/nvidia0\", \"type\": \"c\","
	    " \"major\": 195, \"minor\": 0},"
	    " {\"path\": \"/dev/nvidia1\", \"type\": \"c\", \"major\": 195,"
	    " \"minor\": 1}]}");
	struct policy *drop = policy_of("{\"refuse\": {\"devices\": false}}");
	struct policy *gpu_drop = policy_of(
	    "{\"devices\": [{\"path\": \"/dev/nvidia0\", \"type\": \"c\","
	    " \"major\": 195, \"minor\": 0},"
	    " {\"path\": \"/dev/nvidia1\", \"type\": \"c\", \"major\": 195,"
	    " \"minor\": 1}], \"refuse\": {\"devices\": false}}");
	struct hardened *def = harden_ok(s, drop), *h = harden_ok(s, gpu_drop);
	_cleanup_free_ char *def_err = harden_error(s, NULL);
	struct spec *wrong = config(
	    "", "\"devices\": [{\"path\": \"/dev/nvidia1\", \"type\": \"c\","
		" \"major\": 8, \"minor\": 0}]");
	_cleanup_free_ char *gpu_err = harden_error(wrong, gpu);

	/* a device the policy does not list fails create, naming it */
	CHECK_STR(def_err, "device /dev/fuse (c 10:229): not a standard "
			   "device nor one the policy's devices lists "
			   "(policy: devices)");
	/* nvidia1 names 8:0, not the policy's 195:1 */
	CHECK_STR(gpu_err, "device /dev/nvidia1 (c 8:0): not a standard "
			   "device nor one the policy's devices lists "
			   "(policy: devices)");
	/* refuse.devices off: dropped, recorded */
	CHECK(def && def->spec->linux_->n_devices == 1); /* /dev/null */
	CHECK_CHANGE(def, ".linux.devices[/dev/fuse]", "c 10:229", "dropped",
		     "policy: refuse.devices false: not a standard device nor "
		     "one the policy's devices lists (policy: devices)");
	CHECK(find_change(def, ".linux.devices[/dev/fuse]") &&
	      find_change(def, ".linux.devices[/dev/fuse]")->dropped);
	CHECK_CHANGE(def, ".linux.resources.devices", "allow a *:* rwm",
		     "deny a *:* rwm, allow c 1:3 rwm, allow c 1:5 rwm, "
		     "allow c 1:7 rwm, allow c 1:8 rwm, allow c 1:9 rwm, "
		     "allow c 5:0 rwm, allow c 5:1 rwm, allow c 5:2 rwm, "
		     "allow c 136:* rwm",
		     "default");
	/* nvidia0 with the policy's numbers stays */
	CHECK(h && h->spec->linux_->n_devices == 2);
	CHECK(h &&
	      strcmp(h->spec->linux_->devices[0].path, "/dev/nvidia0") == 0);
	CHECK_CHANGE(h, ".linux.devices[/dev/nvidia1]", "c 8:0", "dropped",
		     NULL);
	CHECK(res(h) && res(h)->n_devices == 12);
	CHECK(res(h) && res(h)->devices[10].major.v == 195 &&
	      strcmp(res(h)->devices[10].access, "rw") == 0);
	hardened_free(def);
	hardened_free(h);
	policy_free(gpu);
	policy_free(drop);
	policy_free(gpu_drop);
	spec_free(wrong);
	spec_free(s);
}

TEST(core_dumps_off_unless_config_sets_them)
{
	struct spec *runc = fixture("runc_spec.json");
	struct spec *core = spec_of(
	    "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"],"
	    " \"cwd\": \"/\", \"rlimits\": [{\"type\": \"RLIMIT_CORE\","
	    " \"hard\": 1024, \"soft\": 1024}]}}");
	struct hardened *h = harden_ok(runc, NULL), *hc = harden_ok(core, NULL);
	const struct spec_process *pr = h ? h->spec->process : NULL;

	CHECK(pr && pr->n_rlimits == 2);
	CHECK(pr && pr->rlimits[1].resource == RLIMIT_CORE &&
	      pr->rlimits[1].hard == 0 && pr->rlimits[1].soft == 0);
	CHECK_CHANGE(h, ".process.rlimits[RLIMIT_CORE]", "absent", "0/0",
		     "default");
	CHECK(hc && hc->spec->process->rlimits[0].hard == 1024);
	CHECK(!find_change(hc, ".process.rlimits[RLIMIT_CORE]"));
	hardened_free(h);
	hardened_free(hc);
	spec_free(runc);
	spec_free(core);
}

TEST(personality_other_than_linux_is_dropped)
{
	struct spec *s32 =
	    config("", "\"personality\": {\"domain\": \"LINUX32\"}");
	struct spec *s64 =
	    config("", "\"personality\": {\"domain\": \"LINUX\"}");
	struct hardened *h32 = harden_ok(s32, NULL),
			*h64 = harden_ok(s64, NULL);

	CHECK(h32 && !h32->spec->linux_->personality);
	CHECK_CHANGE(h32, ".linux.personality", "LINUX32", "dropped",
		     "default");
	CHECK(h64 && h64->spec->linux_->personality);
	hardened_free(h32);
	hardened_free(h64);
	spec_free(s32);
	spec_free(s64);
}

/* ---- permissive, the sandbox as JSON --------------------------------- */

TEST(permissive_runs_config_json_as_written)
{
	struct spec *s = fixture("cri_container.json");
	struct policy *p = policy_of("{\"mode\": \"permissive\"}");
	struct hardened *h = harden_ok(s, p);
	struct spec_resources *r = h ? h->spec->linux_->resources : NULL;
	size_t asked = s->linux_->resources->n_devices, kept = 0;
	_cleanup_free_ char *before = spec_text(s), *after = NULL;

	/* config.json's device rules come first, as written; the standard
	 * devices' come after them (devices_as_runc_makes_them): the text
	 * without them is config.json's. */
	CHECK(r && r->n_devices > asked);
	if (r) {
		kept = r->n_devices;
		r->n_devices = asked;
	}
	after = h ? spec_text(h->spec) : NULL;
	if (r)
		r->n_devices = kept;
	CHECK(before && after && strcmp(before, after) == 0);
	CHECK(h && !h->sandbox.enforced && h->n_changes == 2);
	CHECK_CHANGE(h, "sandbox", "-", "off", "policy: mode permissive");
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* A permissive config that denies every device still has the standard
 * ones, and its own nodes can be made (runtime-spec: the default devices;
 * runc makes the nodes before it writes the rules). */
TEST(permissive_devices_as_runc_makes_them)
{
	struct spec *s =
	    config("", "\"devices\": [{\"path\": \"/dev/t1\", \"type\": \"c\","
		       " \"major\": 10, \"minor\": 666},"
		       " {\"path\": \"/dev/t2\", \"type\": \"p\", \"major\": 0,"
		       " \"minor\": 0}],"
		       " \"resources\": {\"devices\": [{\"allow\": false,"
		       " \"access\": \"rwm\"}]}");
	struct spec *none = config("", "\"resources\": {}");
	struct policy *p = policy_of("{\"mode\": \"permissive\"}");
	struct hardened *h = harden_ok(s, p), *hn = harden_ok(none, p);
	const struct spec_resources *r = res(h);
	size_t n = r ? r->n_devices : 0;
	bool null_allowed = false;

	CHECK(r && r->devices[0].allow == false);
	for (size_t i = 1; i < n; i++)
		null_allowed |= r->devices[i].allow &&
				r->devices[i].major.v == 1 &&
				r->devices[i].minor.v == 3 &&
				strcmp(r->devices[i].access, "rwm") == 0;
	CHECK(null_allowed);
	/* the FIFO needs no rule; the char device may be made, not opened */
	CHECK(n >= 2 && r->devices[n - 1].type == 'c' &&
	      r->devices[n - 1].major.v == 10 &&
	      r->devices[n - 1].minor.v == 666 &&
	      strcmp(r->devices[n - 1].access, "m") == 0);
	CHECK(res(hn) && res(hn)->n_devices == 0);
	CHECK(hn && hn->n_changes == 1);
	hardened_free(h);
	hardened_free(hn);
	policy_free(p);
	spec_free(s);
	spec_free(none);
}

/* Kernel memory limits are deprecated: dropped with a warning in every
 * mode, so the runtime never sees them (and create does not fail). */
TEST(kernel_memory_is_dropped_in_every_mode)
{
	struct spec *s = config("", "\"resources\": {\"memory\": {"
				    "\"limit\": 268435456, \"kernel\": 1048576,"
				    " \"kernelTCP\": 65536}}");
	struct policy *p = policy_of("{\"mode\": \"permissive\"}");
	struct hardened *hd = harden_ok(s, NULL), *hp = harden_ok(s, p);
	struct hardened *both[2] = {hd, hp};

	for (size_t i = 0; i < 2; i++) {
		const struct spec_resources *r = res(both[i]);

		CHECK(r && r->memory && !r->memory->kernel.set &&
		      !r->memory->kernel_tcp.set);
		CHECK(r && r->memory && r->memory->limit.v == 268435456);
		CHECK_CHANGE(both[i], ".linux.resources.memory.kernel",
			     "1048576", "dropped",
			     "deprecated by the runtime-spec: kernel memory "
			     "cannot be limited apart");
		CHECK_CHANGE(both[i], ".linux.resources.memory.kernelTCP",
			     "65536", "dropped",
			     "deprecated by the runtime-spec: kernel memory "
			     "cannot be limited apart");
		for (size_t k = 0; both[i] && k < both[i]->n_changes; k++)
			if (strstr(both[i]->changes[k].field, "kernel"))
				CHECK(both[i]->changes[k].warn);
	}
	hardened_free(hd);
	hardened_free(hp);
	policy_free(p);
	spec_free(s);
}

/* net_cls and net_prio tag traffic for the host's rules: the sandbox
 * drops both, with a record each; the permissive mode keeps them. */
TEST(network_classes_are_dropped_by_the_sandbox)
{
	struct spec *s = config("", "\"resources\": {\"network\": {"
				    "\"classID\": 1048577, \"priorities\": ["
				    "{\"name\": \"eth0\", \"priority\": 5},"
				    "{\"name\": \"lo\", \"priority\": 1}]}}");
	struct policy *p = policy_of("{\"mode\": \"permissive\"}");
	struct hardened *hd = harden_ok(s, NULL), *hp = harden_ok(s, p);
	const struct spec_resources *rp = res(hp);

	CHECK(res(hd) && !res(hd)->network);
	CHECK_CHANGE(hd, ".linux.resources.network.classID", "1048577",
		     "dropped",
		     "default: how the host classifies traffic is not the "
		     "container's to choose");
	CHECK_CHANGE(hd, ".linux.resources.network.priorities",
		     "2 interface(s)", "dropped",
		     "default: how the host classifies traffic is not the "
		     "container's to choose");
	CHECK(rp && rp->network && rp->network->class_id.set &&
	      rp->network->class_id.v == 1048577 &&
	      rp->network->n_priorities == 2);
	CHECK(rp && rp->network &&
	      strcmp(rp->network->priorities[1].name, "lo") == 0 &&
	      rp->network->priorities[1].priority == 1);
	hardened_free(hd);
	hardened_free(hp);
	policy_free(p);
	spec_free(s);
}

TEST(sandbox_settings_round_trip)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p = policy_of(
	    "{\"rootfs\": {\"mode\": \"strict\", \"scratchSize\": \"1MiB\"},"
	    " \"syscalls\": {\"allow\": [\"mbind\", \"io_setup\"]},"
	    " \"limits\": {\"bestEffort\": true, \"wallClock\": 5}}");
	struct hardened *h = harden_ok(s, p);
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL;
	struct sandbox back = {0};

	if (!h || hardened_emit_sandbox(h, &json, &err) < 0 ||
	    hardened_parse_sandbox(json, strlen(json), &back, &err) < 0) {
		CHECK(!"emit and parse the sandbox");
		goto out;
	}
	CHECK(back.enforced && back.role == ROLE_WORKLOAD &&
	      back.loopback_only);
	CHECK(back.rootfs == POLICY_ROOTFS_STRICT);
	CHECK(back.scratch_size == (uint64_t)MiB && back.wall_clock == 5);
	CHECK(back.n_syscalls_allow == 2 && back.limits_best_effort);
	CHECK(back.n_syscalls_allow == 2 &&
	      strcmp(back.syscalls_allow[1], "io_setup") == 0);
	CHECK(strstr(json, "\"changes\": [") != NULL);
out:
	sandbox_release(&back);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(sandbox_parse_errors)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{}", ".sandbox: missing"},
	    {"[]", "expected a JSON object"},
	    {"{\"sandbox\": {\"role\": \"x\", \"rootfs\": \"overlay\","
	     " \"scratchSize\": 1, \"wallClock\": 1}}",
	     ".sandbox.role: unknown value \"x\""},
	    {"{\"sandbox\": {\"role\": \"workload\", \"rootfs\": \"overlay\","
	     " \"scratchSize\": -1, \"wallClock\": 1}}",
	     ".sandbox.scratchSize: expected an integer from 0 to "
	     "9223372036854775807"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sandbox sb = {0};
		struct error *err = NULL;

		CHECK(hardened_parse_sandbox(
			  cases[i].json, strlen(cases[i].json), &sb, &err) < 0);
		CHECK_STR(err ? err->msg : NULL, cases[i].msg);
		error_free(err);
		sandbox_release(&sb);
	}
}

int main(void)
{
	return unit_run();
}

/* harden() of its own output under a permissive policy adds no device
 * rule again and records no change but the sandbox's. */
TEST(permissive_devices_are_idempotent)
{
	struct spec *s = fixture("cri_container.json");
	struct policy *p = policy_of("{\"mode\": \"permissive\"}");
	struct hardened *h = harden_ok(s, p);
	struct hardened *h2 = h ? harden_ok(h->spec, p) : NULL;
	_cleanup_free_ char *once = h ? spec_text(h->spec) : NULL;
	_cleanup_free_ char *twice = h2 ? spec_text(h2->spec) : NULL;

	CHECK(once && twice && strcmp(once, twice) == 0);
	CHECK(h2 && h2->n_changes == 1);
	hardened_free(h);
	hardened_free(h2);
	policy_free(p);
	spec_free(s);
}
