/* `corral explain`: what a container can reach and every change corral
 * makes to its config.json, without running anything. */
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "container_dir.h"
#include "fsutil.h"
#include "harden.h"
#include "policy_file.h"
#include "rootless.h"
#include "spec.h"
#include "util.h"

static int explain_bundle(const char *bundle, const char *policy_path,
			  bool json, char **out, struct error **err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *abs_bundle = realpath(bundle, NULL);
	_cleanup_close_ int bfd =
	    open(bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct policy *policy = NULL;
	struct cgroup_bases bases;
	struct hardened *h = NULL;
	struct spec *config = NULL;
	size_t len;
	int r = -1;

	if (bfd < 0 || !abs_bundle)
		return error_errno(err, "bundle %s", bundle);
	if (read_file_at(bfd, "config.json", &text, &len, err) < 0)
		return error_wrap(err, "bundle %s", bundle);
	if (spec_parse(text, len, &config, err) < 0) {
		error_wrap(err, "config.json");
		goto out;
	}
	if (policy_load(policy_path, &policy, err) < 0)
		goto out;
	/* what create would find of an ordinary user's cgroup */
	rootless_cgroup(policy, &bases);
	cg_bases_clear(&bases);
	/* which driver create would take (without --systemd-cgroup, which
	 * explain is not given: the cgroupsPath's form says it) */
	policy->cgroup_systemd =
	    !policy->rootless && config->linux_ &&
	    cg_is_systemd_path(config->linux_->cgroups_path) &&
	    cgroup_systemd_host();
	if (harden(config, policy, abs_bundle, &h, err) < 0) {
		error_wrap(err, "config.json");
		goto out;
	}
	r = json ? explain_json(h, out, err) : explain_text(h, out, err);
out:
	hardened_free(h);
	policy_free(policy);
	spec_free(config);
	return r;
}

/* A created container: what was applied, as saved at create. */
static int explain_container(const char *root, const char *id, bool json,
			     char **out, struct error **err)
{
	struct container_dir dir = {-1, -1};
	int r;

	if (container_dir_open(root, id, &dir, err) < 0)
		return -1;
	r = read_file_at(dir.dirfd,
			 json ? EXPLAIN_JSON_FILE : EXPLAIN_TEXT_FILE, out,
			 NULL, err);
	container_dir_close(&dir);
	return r;
}

int container_explain(const char *root, const char *id, const char *bundle,
		      const char *policy, bool json, char **out,
		      struct error **err)
{
	if (bundle)
		return explain_bundle(bundle, policy, json, out, err);
	return explain_container(root, id, json, out, err);
}
