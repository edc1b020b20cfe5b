/* systemd's manager over D-Bus (systemd_manager.c), for the cgroup
 * module's systemd driver (runtime/cgroup/cgroup_systemd.c): a transient
 * scope started with the container's first process in it, its
 * properties changed, stopped; and the unit properties corral's limits
 * map onto (systemd_props.c, pure).
 *
 * systemd is trusted (it is the host's PID 1 or the calling user's own
 * manager); the names asked of it come from cgroup_path.c's checks of
 * config.json's cgroupsPath, which is not. */
#ifndef CORRAL_SYSTEMD_H
#define CORRAL_SYSTEMD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dbus_conn.h"
#include "error.h"
#include "spec.h"

/* Whether systemd is the init of this host: /run/systemd/system is a
 * directory (the test sd_booted(3) documents). */
bool systemd_booted(void);

struct systemd {
	struct dbus_conn c;
	bool user;	      /* the calling user's manager */
	char *owner;	      /* on a bus: systemd's unique name */
	unsigned version;     /* 252 of "252.39-1~deb12u2"; 0 unknown */
	char *manager_cgroup; /* the manager's own cgroup, "" for PID 1 */
};

/* root: systemd's private socket (/run/systemd/private), else the system
 * bus; user: the user's bus ($XDG_RUNTIME_DIR/bus).  Reads the manager's
 * version and cgroup. */
int systemd_connect(bool user, struct systemd *out, struct error **err);
void systemd_close(struct systemd *sd);

/* StartTransientUnit(name, "replace", props) and wait for its job: 0 when
 * the job's result is "done".  props: a(sv)'s elements (systemd_props). */
int systemd_start_unit(struct systemd *sd, const char *name,
		       const struct dbus_buf *props, struct error **err);
/* StopUnit(name, "replace") and wait for its job; a unit that does not
 * exist is stopped already. */
int systemd_stop_unit(struct systemd *sd, const char *name, struct error **err);
/* SetUnitProperties(name, runtime, props) */
int systemd_set_properties(struct systemd *sd, const char *name,
			   const struct dbus_buf *props, struct error **err);
/* The unit's ControlGroup ("/machine.slice/x.scope"); ENOENT when there
 * is no such unit loaded. */
int systemd_unit_cgroup(struct systemd *sd, const char *name, char **out,
			struct error **err);

/* ---- properties (systemd_props.c, pure) ---------------------------------
 *
 * A list of unit properties a(sv) being written: begin, the properties,
 * end; any failure shows as b->oom. */
struct sd_props {
	struct dbus_buf b;
	size_t at;
	unsigned n;
};
void sd_props_begin(struct sd_props *p);
void sd_props_end(struct sd_props *p);
void sd_prop_str(struct sd_props *p, const char *name, const char *v);
void sd_prop_bool(struct sd_props *p, const char *name, bool v);
void sd_prop_u64(struct sd_props *p, const char *name, uint64_t v);
void sd_prop_pids(struct sd_props *p, const char *name, pid_t pid);
void sd_prop_bytes(struct sd_props *p, const char *name, const uint8_t *v,
		   size_t n);

/* The limits of r that systemd `version` has properties for, added to p
 * (MemoryMax, MemoryLow, MemorySwapMax, TasksMax, CPUQuotaPerSecUSec and
 * CPUQuotaPeriodUSec, CPUWeight, AllowedCPUs, AllowedMemoryNodes,
 * IOWeight), with *on_unit naming them (comma-separated, "" none) and
 * *not_on_unit the limits set that this systemd has no property for (they
 * are written to the scope's cgroup only).  A value out of range is left
 * out: the cgroup's own writer refuses it.  create: a container with no
 * pids limit gets TasksMax=infinity (systemd's DefaultTasksMax is not
 * config.json's); an update changes only what r sets. */
int sd_resource_props(const struct spec_resources *r, unsigned version,
		      bool create, struct sd_props *p, char **on_unit,
		      char **not_on_unit, struct error **err);

/* "0-3,8" as systemd's CPU/NUMA mask (bit N of byte N/8); at most 8192
 * CPUs.  *out malloc'd, *n its bytes. */
int sd_cpu_mask(const char *list, uint8_t **out, size_t *n, struct error **err);

/* 252 of "252.39-1~deb12u2" (or "v252"); 0 when it starts with no
 * number. */
unsigned sd_parse_version(const char *s);

#endif
