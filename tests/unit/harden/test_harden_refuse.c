/* Unit tests of what harden() refuses and what it drops with a record
 * (spec/harden/harden_refuse.c and its callers): the annotation
 * run.corral.refuse only narrows, a drop is marked as one, the workspace
 * of `corral sandbox` and its naive /etc, rlimits above the ceiling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fixture.h"

/* A config with these mounts, annotations and linux fields. */
static struct spec *config(const char *mounts, const char *annotations,
			   const char *linux_)
{
	char json[4096];

	snprintf(json, sizeof(json),
		 "{\"ociVersion\": \"1.2.0\","
		 " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
		 "  \"args\": [\"sh\"], \"cwd\": \"/\","
		 "  \"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": 4096,"
		 "   \"soft\": 2048}]},"
		 " \"root\": {\"path\": \"rootfs\"}, \"mounts\": [%s],"
		 " \"annotations\": {%s}, \"linux\": {%s}}",
		 mounts, annotations, linux_);
	return spec_of(json);
}

#define DATA                                                                   \
	"{\"destination\": \"/data\", \"type\": \"bind\", \"source\":"         \
	" \"/srv/data\", \"options\": [\"rbind\", \"rw\"]}"
#define FUSE                                                                   \
	"\"devices\": [{\"path\": \"/dev/fuse\", \"type\": \"c\","             \
	" \"major\": 10, \"minor\": 229}]"

TEST(the_annotation_turns_a_drop_into_a_refusal_never_the_reverse)
{
	struct spec *plain = config(DATA, "", "");
	struct spec *noted =
	    config(DATA, "\"run.corral.refuse\": \"devices, mounts\"", FUSE);
	struct policy *drop =
	    policy_of("{\"refuse\": {\"mounts\": false, \"devices\": false}}");
	struct hardened *h = harden_ok(plain, drop);
	_cleanup_free_ char *msg = harden_error(noted, drop);
	_cleanup_free_ char *def = harden_error(noted, NULL);

	CHECK(h && !find_mount(h->spec, "/data"));
	CHECK(find_change(h, ".mounts[/data]") &&
	      find_change(h, ".mounts[/data]")->dropped);
	/* the policy drops; the annotation asks for the refusal */
	CHECK_STR(msg, "bind /srv/data on /data: no entry of the policy's "
		       "mounts allows /srv/data (policy: mounts; refused by "
		       "the annotation run.corral.refuse)");
	/* under a refusing policy it changes nothing: there is no word that
	 * would turn a refusal into a drop */
	CHECK_STR(def, "bind /srv/data on /data: no entry of the policy's "
		       "mounts allows /srv/data (policy: mounts)");
	hardened_free(h);
	policy_free(drop);
	spec_free(plain);
	spec_free(noted);
}

TEST(an_annotation_that_names_no_kind_is_an_error)
{
	struct spec *s = config("", "\"run.corral.refuse\": \"mount\"", "");
	struct spec *all = config(DATA, "\"run.corral.refuse\": \"all\"", "");
	struct policy *drop = policy_of("{\"refuse\": {\"mounts\": false}}");
	_cleanup_free_ char *msg = harden_error(s, NULL);
	_cleanup_free_ char *all_msg = harden_error(all, drop);

	CHECK_STR(msg, "annotation run.corral.refuse=mount: unknown kind "
		       "(mounts, volumes, devices, namespaces or all)");
	CHECK(strstr(all_msg, "refused by the annotation run.corral.refuse"));
	policy_free(drop);
	spec_free(s);
	spec_free(all);
}

TEST(a_recorded_drop_is_marked_and_written_out)
{
	struct spec *s =
	    config(DATA, "",
		   "\"sysctl\": {\"kernel.msgmax\": \"1\"}, \"seccomp\":"
		   " {\"defaultAction\": \"SCMP_ACT_ALLOW\","
		   " \"listenerPath\": \"/run/x.sock\"}");
	struct policy *drop = policy_of("{\"refuse\": {\"mounts\": false}}");
	struct hardened *h = harden_ok(s, drop);
	_cleanup_free_ char *json = NULL;
	struct error *err = NULL;
	size_t marked = 0;

	for (size_t i = 0; h && i < h->n_changes; i++)
		marked += h->changes[i].dropped;
	/* the bind, the sysctl and the listener; uid 0's replacement,
	 * the namespaces made new and RLIMIT_CORE are no drops */
	CHECK(marked == 3);
	CHECK(find_change(h, ".process.user.uid") &&
	      !find_change(h, ".process.user.uid")->dropped);
	CHECK(h && hardened_emit_sandbox(h, &json, &err) == 0);
	CHECK(json && strstr(json, "\"dropped\": true"));
	error_free(err);
	hardened_free(h);
	policy_free(drop);
	spec_free(s);
}

TEST(the_callers_workspace_is_kept_read_write_and_its_naive_etc_dropped)
{
	struct spec *s = config(
	    "{\"destination\": \"/workspace\", \"type\": \"bind\", \"source\":"
	    " \"/home/u/project\", \"options\": [\"rbind\", \"rw\"]},"
	    "{\"destination\": \"/etc\", \"type\": \"bind\", \"source\":"
	    " \"/etc\", \"options\": [\"rbind\", \"ro\"]}",
	    "", "");
	struct policy *p = policy_of(NULL);
	struct hardened *h = NULL;
	const struct harden_bind *b = NULL;
	_cleanup_free_ char *none = harden_error(s, p);

	/* without the runtime's word neither is allowed */
	CHECK(strstr(none, "bind /home/u/project on /workspace"));
	if (p) {
		p->workspace = strdup("/home/u/project");
		p->drop_sources = calloc(2, sizeof(char *));
		if (p->drop_sources && (p->drop_sources[0] = strdup("/etc")))
			p->n_drop_sources = 1;
	}
	h = harden_ok(s, p);
	for (size_t i = 0; h && i < h->n_binds; i++)
		if (h->binds[i].workspace)
			b = &h->binds[i];
	CHECK(b && b->kind == BIND_POLICY &&
	      !strcmp(b->entry, "/home/u/project") && !b->follow_links);
	CHECK(h && find_mount(h->spec, "/workspace") &&
	      has_str(find_mount(h->spec, "/workspace")->options,
		      find_mount(h->spec, "/workspace")->n_options, "rw"));
	CHECK(h && !find_mount(h->spec, "/etc"));
	CHECK(find_change(h, ".mounts[/etc]") &&
	      find_change(h, ".mounts[/etc]")->dropped);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(rlimits_above_the_runtimes_own_are_clamped_and_recorded)
{
	struct spec *s = config("", "", "");
	struct policy *p = policy_of(NULL);
	struct hardened *h, *again;
	const struct spec_rlimit *l = NULL;

	if (p) {
		p->rlimits_known = true;
		for (int i = 0; i < POLICY_RLIMITS; i++)
			p->rlimit_max[i] = UINT64_MAX;
		p->rlimit_max[RLIMIT_NOFILE] = 1024;
	}
	h = harden_ok(s, p);
	for (size_t i = 0; h && i < h->spec->process->n_rlimits; i++)
		if (h->spec->process->rlimits[i].resource == RLIMIT_NOFILE)
			l = &h->spec->process->rlimits[i];
	CHECK(l && l->hard == 1024 && l->soft == 1024);
	CHECK_CHANGE(h, ".process.rlimits[RLIMIT_NOFILE]", "2048/4096",
		     "1024/1024",
		     "default: above the runtime's own hard limit");
	CHECK(find_change(h, ".process.rlimits[RLIMIT_NOFILE]") &&
	      find_change(h, ".process.rlimits[RLIMIT_NOFILE]")->dropped);
	/* the clamped spec is what it is: hardened again, no change */
	again = h ? harden_ok(h->spec, p) : NULL;
	CHECK(again && !find_change(again, ".process.rlimits[RLIMIT_NOFILE]"));
	hardened_free(again);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

int main(void)
{
	return unit_run();
}
