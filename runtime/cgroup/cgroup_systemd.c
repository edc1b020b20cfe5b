/* The systemd driver (cgroup_backend.h): the container's cgroup is a
 * transient scope that systemd makes, as runc's and crun's systemd
 * drivers make it, on a host whose init is systemd.  systemd owns the
 * cgroup tree there: a cgroup made behind its back is one it may move or
 * kill on a daemon-reload, whose accounting its slices do not see.
 *
 * create names the scope from cgroupsPath "slice:prefix:name"
 * (cg_systemd_parse: systemd's own rules, a name systemd would refuse
 * refused first) and, once the container's first process exists and
 * before it runs a step of its own, asks systemd for the scope with that
 * process in it (StartTransientUnit: Delegate=yes, the limits systemd has
 * properties for), checks that systemd put it where its name says, then
 * has the layout's backend (v1 or v2, cg->layout) write every limit into
 * the scope's cgroup as on any host: the same values systemd wrote, and
 * those it has no property for.  update sets the unit's properties too,
 * so systemd's next realization of the unit keeps them; delete kills what
 * is left and stops the scope, which removes its cgroup.  Entering,
 * freezing, listing, killing and the statistics are the layout's files,
 * unchanged. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_backend.h"
#include "log.h"
#include "systemd.h"
#include "util.h"

bool cgroup_systemd_host(void)
{
	return systemd_booted();
}

/* The driver runs on the unified hierarchy alone.  On a hybrid or v1
 * host systemd makes a scope's cgroup only in the hierarchies of the
 * controllers it manages (not cpuset's, freezer's, net_cls's), so the
 * scope would hold part of the container and corral would make the rest
 * behind systemd's back: the two managers of one tree the driver exists
 * to avoid.  Refused, before systemd is asked for anything. */
static int unified_only(const char *mount_root, struct error **err)
{
	const struct cgroup_backend *layout;

	if (cgroup_detect(mount_root, &layout, err) < 0)
		return -1;
	if (layout != &cgroup_v2_backend)
		return error_set(err, ENOTSUP,
				 "systemd's cgroup driver needs the unified "
				 "cgroup v2 hierarchy, and this host mounts "
				 "v1 controllers (boot with "
				 "systemd.unified_cgroup_hierarchy=1, or use "
				 "cgroupfs)");
	return 0;
}

int cgroup_new_systemd(const char *mount_root, const char *cgroups_path,
		       const char *id, bool user, struct cgroup **out,
		       struct error **err)
{
	struct cg_systemd_unit u = {0};
	struct systemd sd = {.c = {.fd = -1}};
	_cleanup_free_ char *dflt = NULL, *path = NULL;
	const char *slice = user ? "user.slice" : "system.slice", *rel;
	int rc = -1;

	*out = NULL;
	if (!cgroups_path || !*cgroups_path) {
		/* runc's default under its systemd driver, with corral's
		 * prefix */
		if (asprintf(&dflt, "%s:corral:%s", slice, id) < 0) {
			dflt = NULL;
			return error_set(err, ENOMEM, "cgroup: out of memory");
		}
		cgroups_path = dflt;
	}
	if (!cg_is_systemd_path(cgroups_path))
		return error_set(err, EINVAL,
				 "cgroupsPath \"%.200s\": systemd's cgroup "
				 "driver needs \"slice:prefix:name\"",
				 cgroups_path);
	if (cg_systemd_parse(cgroups_path, slice, &u, err) < 0)
		return -1;
	if (unified_only(mount_root, err) < 0)
		goto out;
	/* the manager's own cgroup ("" for PID 1; the user's manager's
	 * service for a user's) is where the slices are */
	if (systemd_connect(user, &sd, err) < 0)
		goto out;
	path = cg_join(sd.manager_cgroup, u.path);
	if (!path) {
		error_set(err, ENOMEM, "cgroup: out of memory");
		goto out;
	}
	/* relative to the mount, as check_place compares it: cg_join of
	 * PID 1's "" gives "/machine.slice/...", a user manager's its own
	 * absolute cgroup before the slice */
	rel = path;
	while (*rel == '/')
		rel++;
	if (cgroup_new(mount_root, rel, out, err) < 0)
		goto out;
	(*out)->backend = &cgroup_systemd_backend;
	(*out)->unit = steal_pointer(&u.scope);
	(*out)->slice = steal_pointer(&u.slice);
	(*out)->user_manager = user;
	rc = 0;
out:
	systemd_close(&sd);
	cg_systemd_unit_clear(&u);
	return rc;
}

int cgroup_open_systemd(const char *mount_root, const char *path,
			const char *unit, bool user, struct cgroup **out,
			struct error **err)
{
	*out = NULL;
	if (!cg_unit_name_ok(unit, "scope", true))
		return error_set(err, EINVAL,
				 "cgroup: \"%.200s\" is not a "
				 "scope's name",
				 unit);
	if (cgroup_new(mount_root, path, out, err) < 0)
		return -1;
	(*out)->backend = &cgroup_systemd_backend;
	(*out)->user_manager = user;
	if (!((*out)->unit = strdup(unit))) {
		cgroup_free(*out);
		*out = NULL;
		return error_set(err, ENOMEM, "cgroup: out of memory");
	}
	return 0;
}

/* The scope's properties: where, what, whose, and the limits. */
static int scope_props(const struct cgroup *cg, const struct systemd *sd,
		       const struct spec_resources *r, struct sd_props *p,
		       struct error **err)
{
	_cleanup_free_ char *on = NULL, *off = NULL, *desc = NULL;

	sd_props_begin(p);
	if (asprintf(&desc, "corral container %s", cg->unit) < 0)
		desc = NULL;
	sd_prop_str(p, "Description", desc ? desc : "corral container");
	sd_prop_str(p, "Slice", cg->slice);
	sd_prop_bool(p, "Delegate", true);
	sd_prop_bool(p, "DefaultDependencies", false);
	sd_prop_pids(p, "PIDs", cg->pid);
	/* a scope that failed goes with its cgroup, as one that ended */
	if (sd->version >= 236)
		sd_prop_str(p, "CollectMode", "inactive-or-failed");
	if (sd_resource_props(r, sd->version, true, p, &on, &off, err) < 0)
		return -1;
	sd_props_end(p);
	if (*off)
		log_warn("%s: systemd %u has no property for %s: written to "
			 "the scope's cgroup only",
			 cg->unit, sd->version, off);
	return 0;
}

/* systemd put the scope where its name says (the path the state and the
 * first process were given). */
static int check_place(const struct cgroup *cg, struct systemd *sd,
		       struct error **err)
{
	_cleanup_free_ char *got = NULL;

	if (systemd_unit_cgroup(sd, cg->unit, &got, err) < 0)
		return -1;
	if (strcmp(got + (got[0] == '/'), cg->path) != 0)
		return error_set(err, EIO,
				 "%s: systemd made its cgroup at %.200s, not "
				 "/%s",
				 cg->unit, got, cg->path);
	return 0;
}

static int sd_prepare(const struct cgroup *cg, const struct spec_resources *r,
		      bool best_effort, struct cg_names *skipped,
		      struct error **err)
{
	struct systemd sd;
	struct sd_props p = {0};
	int rc = -1;

	if (cg->pid <= 0)
		return error_set(err, EINVAL,
				 "%s: no first process to start the scope "
				 "with",
				 cg->unit);
	if (systemd_connect(cg->user_manager, &sd, err) < 0)
		return error_wrap(err, "cgroup");
	if (scope_props(cg, &sd, r, &p, err) < 0)
		goto out;
	if (systemd_start_unit(&sd, cg->unit, &p.b, err) < 0) {
		error_wrap(err, "systemd");
		goto out;
	}
	if (check_place(cg, &sd, err) < 0 ||
	    cg->layout->prepare(cg, r, best_effort, skipped, err) < 0) {
		_cleanup_error_ struct error *stop_err = NULL;

		/* the error that matters is err; a scope left behind is
		 * said, not hidden */
		if (systemd_stop_unit(&sd, cg->unit, &stop_err) < 0)
			log_warn("%s: not stopped: %s", cg->unit,
				 stop_err->msg);
		goto out;
	}
	rc = 0;
out:
	dbus_buf_clear(&p.b);
	systemd_close(&sd);
	return rc;
}

/* The files first (they check every value and change nothing on an
 * error), then the unit, so that systemd keeps the new values. */
static int sd_update(const struct cgroup *cg, const struct spec_resources *r,
		     struct error **err)
{
	struct systemd sd;
	struct sd_props p = {0};
	_cleanup_free_ char *on = NULL, *off = NULL;
	int rc = -1;

	if (cg->layout->update(cg, r, err) < 0)
		return -1;
	if (systemd_connect(cg->user_manager, &sd, err) < 0)
		return error_wrap(err, "cgroup");
	sd_props_begin(&p);
	if (sd_resource_props(r, sd.version, false, &p, &on, &off, err) < 0)
		goto out;
	sd_props_end(&p);
	if (p.n && systemd_set_properties(&sd, cg->unit, &p.b, err) < 0) {
		error_wrap(err, "systemd");
		goto out;
	}
	rc = 0;
out:
	dbus_buf_clear(&p.b);
	systemd_close(&sd);
	return rc;
}

static int sd_stats(const struct cgroup *cg, struct cgroup_stats *out,
		    struct error **err)
{
	return cg->layout->stats(cg, out, err);
}

static int sd_oom_kills(const struct cgroup *cg, uint64_t *out,
			struct error **err)
{
	return cg->layout->oom_kills(cg, out, err);
}

/* What is left is killed first (stopping the scope would send it
 * SIGTERM and wait for systemd's stop timeout); then the scope is
 * stopped, which removes its cgroup. */
static int sd_release(const struct cgroup *cg, struct error **err)
{
	struct systemd sd;
	int rc;

	if (cgroup_kill(cg, err) < 0)
		return -1;
	if (systemd_connect(cg->user_manager, &sd, err) < 0)
		return error_wrap(err, "cgroup");
	rc = systemd_stop_unit(&sd, cg->unit, err);
	systemd_close(&sd);
	return rc < 0 ? error_wrap(err, "systemd") : 0;
}

static int sd_hierarchies(const char *mount_root, const char *path,
			  struct cg_hiers *out, struct error **err)
{
	/* never called: cg_hierarchies asks cg->layout */
	*out = (struct cg_hiers){0};
	return error_set(err, EINVAL,
			 "cgroup: the systemd driver has no "
			 "hierarchies of its own");
}

const struct cgroup_backend cgroup_systemd_backend = {
    .name = "systemd",
    .hierarchies = sd_hierarchies,
    .prepare = sd_prepare,
    .update = sd_update,
    .stats = sd_stats,
    .oom_kills = sd_oom_kills,
    .release = sd_release,
};
