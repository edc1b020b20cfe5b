/* Unit tests of the kubelet's volumes by kind (spec/harden/harden_mounts.c): a
 * pod's emptyDir is kept writable, its configMap and downwardAPI
 * read-only, a secret only when the policy's volumes.secrets names it;
 * another pod's volume, a subPath, a path of another shape and an
 * unknown kind are binds the policy's mounts must allow, and the runtime
 * is told to open a volume as a directory below its engine directory.
 * What the policy does not allow is refused (refuse.volumes,
 * refuse.mounts), or dropped and recorded with the switch off. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "harden_internal.h"
#include "unit.h"

#define UID "6a1f3c2e-9b8d-4e7f-a6c5-1d2e3f4a5b6c"
#define PODS "/var/lib/kubelet/pods/"
#define VOL PODS UID "/volumes/kubernetes.io~"

static char *bind(const char *dest, const char *source, const char *rw)
{
	char *out = NULL;

	if (asprintf(&out,
		     "{\"destination\": \"%s\", \"type\": \"bind\","
		     " \"source\": \"%s\", \"options\": [\"rbind\", \"%s\"]}",
		     dest, source, rw) < 0)
		return NULL;
	return out;
}

/* A CRI container of pod UID with these mounts. */
static struct spec *pod_container(const char *mounts)
{
	char json[8192];

	snprintf(json, sizeof(json),
		 "{\"ociVersion\": \"1.2.0\","
		 " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
		 "  \"args\": [\"sh\"], \"cwd\": \"/\"},"
		 " \"root\": {\"path\": \"rootfs\"}, \"mounts\": [%s],"
		 " \"annotations\": {\"io.kubernetes.cri.container-type\":"
		 "  \"container\", \"io.kubernetes.cri.sandbox-uid\": \"" UID
		 "\"},"
		 " \"linux\": {}}",
		 mounts);
	return spec_of(json);
}

/* Hardened under `policy` (NULL: the default) for a member of pod
 * `proven`, the uid the runtime proved from its records (NULL: none). */
static struct hardened *hardened_for(const char *mounts, const char *policy,
				     const char *proven)
{
	struct spec *s = pod_container(mounts);
	struct policy *p = policy ? policy_of(policy) : NULL;
	struct policy *def = NULL;
	struct error *err = NULL;
	struct hardened *h = NULL;

	if (!p && policy_default(&def, &err) < 0)
		return NULL;
	if (proven)
		(p ? p : def)->pod_uid = strdup(proven);
	if (s && harden(s, p ? p : def, "/run/b", &h, &err) < 0) {
		printf("# harden: %s\n", err->msg);
		error_free(err);
	}
	spec_free(s);
	policy_free(p);
	policy_free(def);
	return h;
}

static struct hardened *hardened_with(const char *mounts, const char *policy)
{
	return hardened_for(mounts, policy, UID);
}

/* A policy that drops, recorded, the binds its mounts do not allow. */
#define DROP_MOUNTS "{\"refuse\": {\"mounts\": false}}"

/* The line harden() refuses a member of the pod with (a static buffer:
 * one at a time). */
static const char *refusal(const char *mounts, const char *policy)
{
	static char msg[1024];
	struct spec *s = pod_container(mounts);
	struct policy *p = policy ? policy_of(policy) : policy_of(NULL);
	struct error *err = NULL;
	struct hardened *h = NULL;

	snprintf(msg, sizeof(msg), "(hardened)");
	if (p)
		p->pod_uid = strdup(UID);
	if (s && p && harden(s, p, "/run/b", &h, &err) < 0)
		snprintf(msg, sizeof(msg), "%s", err->msg);
	error_free(err);
	hardened_free(h);
	spec_free(s);
	policy_free(p);
	return msg;
}

static const struct harden_bind *bind_at(const struct hardened *h,
					 const char *dest)
{
	for (size_t i = 0; h && i < h->n_binds; i++)
		if (!strcmp(h->spec->mounts[h->binds[i].mount].destination,
			    dest))
			return &h->binds[i];
	return NULL;
}

static bool has_option(const struct spec_mount *m, const char *o)
{
	return m && has_str(m->options, m->n_options, o);
}

TEST(the_pods_own_scratch_and_read_only_kinds_are_kept)
{
	char *a = bind("/scratch", VOL "empty-dir/cache", "rw");
	char *b = bind("/config", VOL "configmap/app-config", "rw");
	char *c = bind("/info", VOL "downward-api/podinfo", "ro");
	char mounts[4096];
	struct hardened *h;
	const struct harden_bind *v;

	snprintf(mounts, sizeof(mounts), "%s,%s,%s", a, b, c);
	h = hardened_with(mounts, NULL);
	v = bind_at(h, "/scratch");
	CHECK(v && v->kind == BIND_VOLUME &&
	      !strcmp(v->entry, "/var/lib/kubelet/pods") && !v->follow_links);
	CHECK(has_option(find_mount(h ? h->spec : NULL, "/scratch"), "rw"));
	CHECK(bind_at(h, "/config") && bind_at(h, "/info"));
	/* the configMap became read-only whatever config.json said */
	CHECK(has_option(find_mount(h ? h->spec : NULL, "/config"), "ro"));
	CHECK(!has_option(find_mount(h ? h->spec : NULL, "/config"), "rw"));
	CHECK_CHANGE(h, ".mounts[/config]", NULL, NULL,
		     "default: a configMap volume, read-only");
	hardened_free(h);
	free(a);
	free(b);
	free(c);
}

TEST(a_secret_only_when_the_policy_names_it)
{
	char *a = bind("/creds", VOL "secret/db-creds", "ro");
	char *b = bind("/other", VOL "secret/api-key", "ro");
	char mounts[4096];
	struct hardened *h;

	snprintf(mounts, sizeof(mounts), "%s,%s", a, b);
	CHECK(!hardened_with(mounts, NULL));
	CHECK_STR(refusal(mounts, NULL),
		  "volume " VOL "secret/db-creds on /creds: a secret volume "
		  "is mounted only when the policy's volumes.secrets names it "
		  "(policy: volumes.secrets)");
	h = hardened_with(mounts, "{\"refuse\": {\"volumes\": false}}");
	CHECK(h && !find_mount(h->spec, "/creds") &&
	      !find_mount(h->spec, "/other"));
	CHECK_CHANGE(h, ".mounts[/creds]", NULL, "dropped",
		     "policy: refuse.volumes false: a secret volume is "
		     "mounted only when the policy's volumes.secrets names it "
		     "(policy: volumes.secrets)");
	hardened_free(h);
	h = hardened_with(mounts, "{\"volumes\": {\"secrets\": [\"db-creds\"]},"
				  " \"refuse\": {\"volumes\": false}}");
	CHECK(bind_at(h, "/creds") &&
	      bind_at(h, "/creds")->kind == BIND_VOLUME);
	CHECK(has_option(find_mount(h ? h->spec : NULL, "/creds"), "ro"));
	CHECK(h && !find_mount(h->spec, "/other"));
	hardened_free(h);
	free(a);
	free(b);
}

TEST(the_service_account_token_stays_out_even_by_name)
{
	char *a = bind("/var/run/secrets/kubernetes.io/serviceaccount",
		       VOL "projected/kube-api-access-7xk2p", "ro");
	struct hardened *h = hardened_with(
	    a, "{\"volumes\": {\"secrets\": [\"kube-api-access-7xk2p\"]}}");

	CHECK(h &&
	      !find_mount(h->spec,
			  "/var/run/secrets/kubernetes.io/serviceaccount"));
	hardened_free(h);
	free(a);
}

TEST(other_pods_other_shapes_and_other_kinds_are_dropped)
{
	const char *const sources[] = {
	    /* another pod's */
	    PODS "0b1c2d3e-0000-4000-8000-000000000000/volumes/"
		 "kubernetes.io~empty-dir/cache",
	    /* below a volume, not the volume */
	    VOL "empty-dir/cache/sub",
	    /* a subPath: its kind is not in the path */
	    PODS UID "/volume-subpaths/cache/app/0",
	    /* a kind without a default */
	    VOL "nfs/share",
	    VOL "empty-dir",
	    /* the kubelet's directory under another name */
	    "/var/lib/kubelet/pods2/" UID "/volumes/kubernetes.io~empty-dir/x",
	};

	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		char *m = bind("/v", sources[i], "rw");
		struct hardened *h = hardened_with(m, DROP_MOUNTS);
		const char *why = refusal(m, NULL);

		if (!h || find_mount(h->spec, "/v"))
			printf("# kept: %s\n", sources[i]);
		CHECK(h && !find_mount(h->spec, "/v"));
		/* a bind like any other: the policy's mounts must allow it */
		CHECK(strstr(why, "(policy: mounts)"));
		hardened_free(h);
		free(m);
	}
}

TEST(without_the_pods_uid_no_volume_is_one)
{
	struct spec *s = spec_of(
	    "{\"ociVersion\": \"1.2.0\", \"process\": {\"user\": {\"uid\": 0,"
	    " \"gid\": 0}, \"args\": [\"sh\"], \"cwd\": \"/\"},"
	    " \"root\": {\"path\": \"rootfs\"}, \"mounts\": [{\"destination\":"
	    " \"/v\", \"type\": \"bind\", \"source\": \"" VOL
	    "empty-dir/cache\", \"options\": [\"rbind\"]}], \"linux\": {}}");
	struct policy *def = policy_of(DROP_MOUNTS);
	struct error *err = NULL;
	struct hardened *h = NULL;

	CHECK(s && harden(s, def, "/run/b", &h, &err) == 0);
	CHECK(h && !find_mount(h->spec, "/v"));
	hardened_free(h);
	policy_free(def);
	spec_free(s);
}

TEST(the_policy_can_leave_kinds_out)
{
	char *a = bind("/scratch", VOL "empty-dir/cache", "rw");
	char *b = bind("/config", VOL "configmap/app-config", "ro");
	char mounts[4096];
	struct hardened *h;

	snprintf(mounts, sizeof(mounts), "%s,%s", a, b);
	CHECK_STR(
	    refusal(mounts, "{\"volumes\": {\"kinds\": [\"configMap\"]}}"),
	    "volume " VOL "empty-dir/cache on /scratch: the policy's "
	    "volumes.kinds leaves this kind out (policy: volumes.kinds)");
	h = hardened_with(mounts, "{\"volumes\": {\"kinds\": [\"configMap\"]},"
				  " \"refuse\": {\"volumes\": false}}");
	CHECK(h && !find_mount(h->spec, "/scratch") && bind_at(h, "/config"));
	CHECK_CHANGE(h, ".mounts[/scratch]", NULL, "dropped",
		     "policy: refuse.volumes false: the policy's volumes.kinds "
		     "leaves this kind out (policy: volumes.kinds)");
	hardened_free(h);
	free(a);
	free(b);
}

TEST(volumes_kinds_are_the_three)
{
	struct policy *p = NULL;
	struct error *err = NULL;
	const char *bad = "{\"volumes\": {\"kinds\": [\"secret\"]}}";

	CHECK(policy_parse(bad, strlen(bad), &p, &err) < 0);
	CHECK(err && strstr(err->msg, "volumes.kinds[0]"));
	error_free(err);
	policy_free(p);
}

TEST(volumes_secrets_must_be_volume_names)
{
	struct policy *p = NULL;
	struct error *err = NULL;
	const char *bad = "{\"volumes\": {\"secrets\": [\"../x\"]}}";

	CHECK(policy_parse(bad, strlen(bad), &p, &err) < 0);
	CHECK(err && strstr(err->msg, "volumes.secrets[0]") &&
	      strstr(err->msg, "DNS-1123"));
	error_free(err);
	policy_free(p);
}

int main(void)
{
	return unit_run();
}

/* The container's own annotation names the pod (UID), but the runtime
 * proved no pod: no kubelet volume is its, by annotation alone; and a
 * proven pod that is another keeps this one's volumes out. */
TEST(an_annotation_alone_gives_no_pods_volumes)
{
	char *a = bind("/scratch", VOL "empty-dir/cache", "rw");
	struct hardened *h = hardened_for(a, DROP_MOUNTS, NULL);

	CHECK(h && !find_mount(h->spec, "/scratch"));
	hardened_free(h);
	h = hardened_for(a, DROP_MOUNTS,
			 "0b1f3c2e-9b8d-4e7f-a6c5-1d2e3f4a5b6c");
	CHECK(h && !find_mount(h->spec, "/scratch"));
	hardened_free(h);
	free(a);
}
