/* Cgroup paths, as pure functions: no system call, so the unit tests and
 * a fuzzer (tests/fuzz/cgroup/fuzz_cgroup_path.c) can feed them anything.
 *
 * A path here is a cgroup's place below each hierarchy's root: "corral/ID",
 * "/a/b", "machine.slice/libpod-ID.scope".  Every path corral writes in,
 * kills in or removes went through cg_path_normalize(): no "." or ".."
 * component, never the root cgroup (killing "every process of the cgroup"
 * there would kill the host). */
#ifndef CORRAL_CGROUP_PATH_H
#define CORRAL_CGROUP_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define CG_PARENT "corral" /* relative paths and the default live here */

/* The cgroup path for a container: config.json's cgroupsPath when set
 * (absolute "/a/b", relative "a/b" below "corral/", or systemd's
 * "slice:prefix:name" mapped to "SLICE-PATH/prefix-name.scope", e.g.
 * "machine.slice:libpod:ID" -> "machine.slice/libpod-ID.scope" and
 * "a-b.slice:x:y" -> "a.slice/a-b.slice/x-y.scope", cg_systemd_parse),
 * else "corral/ID".
 * The result is normalized (cg_path_normalize). */
int cgroup_path_for(const char *cgroups_path, const char *id, char **out,
		    struct error **err);

/* ---- systemd's names (cgroup_path.c says whose rules) ------------------- */

/* Whether NAME is a unit name of TYPE ("slice", "scope") that systemd
 * accepts; instance_ok: "a@b.scope" too. */
bool cg_unit_name_ok(const char *name, const char *type, bool instance_ok);

/* A slice's cgroup path below its manager's root, as systemd makes it:
 * "a-b.slice" -> "a.slice/a-b.slice", "cpu.slice" -> "_cpu.slice",
 * "-.slice" -> "".  A name systemd refuses is an error. */
int cg_slice_path(const char *slice, char **out, struct error **err);

/* "slice:prefix:name": the transient scope "prefix-name.scope" ("name.scope"
 * without a prefix) in SLICE (default_slice when empty), and its cgroup
 * path below the manager's root ("SLICE-PATH/prefix-name.scope",
 * normalized). */
struct cg_systemd_unit {
	char *slice, *scope, *path;
};
bool cg_is_systemd_path(const char *cgroups_path);
int cg_systemd_parse(const char *cgroups_path, const char *default_slice,
		     struct cg_systemd_unit *out, struct error **err);
void cg_systemd_unit_clear(struct cg_systemd_unit *u);

/* Check a cgroup path and return it normalized: "a//b/" -> "a/b",
 * "/a/b" keeps its slash; empty, "/" and "."/".." components are
 * errors. */
int cg_path_normalize(const char *path, char **out, struct error **err);

/* ROOT/PATH without doubled slashes; NULL when out of memory. */
char *cg_join(const char *root, const char *path);

/* ---- delegated cgroups (cgroup.h: cgroup_find_delegated) ---------------- */

/* The container's cgroup in a delegated layout: "corral-ID", one
 * directory beside the caller's own (the delegated cgroup keeps no
 * "corral" parent behind). */
int cg_delegated_path(const char *id, char **out, struct error **err);

/* In a delegated layout, the directory below one hierarchy's root that
 * the container's cgroup is made in. */
struct cgroup_base {
	char *hier; /* the hierarchy's name: "memory", "systemd", "unified";
		       "" for the one tree of a v2 host */
	char *dir;  /* normalized, absolute, never the root: "/a/b" */
};

struct cgroup_bases {
	struct cgroup_base *v;
	size_t n;
};

void cg_bases_clear(struct cgroup_bases *b);
int cg_bases_add(struct cgroup_bases *b, const char *hier, const char *dir);
/* The base of `hier`, NULL when it has none. */
const char *cg_bases_find(const struct cgroup_bases *b, const char *hier);

/* /proc/self/cgroup's lines as (hierarchy, path) pairs, in order: each
 * controller of "N:cpu,cpuacct:/p" ("cpu" and "cpuacct"), "systemd" of
 * "N:name=systemd:/p", and "" of the cgroup2 line "0::/p".  `line` says
 * which line each came from (co-mounted controllers share one).  Paths
 * are as written ("/" for a root); a malformed line is an error. */
struct cg_self {
	struct cgroup_bases paths;
	size_t *line;
};
int cg_self_parse(const char *text, struct cg_self *out, struct error **err);
void cg_self_clear(struct cg_self *s);

/* The record of a delegated cgroup that commands after create read
 * (cgroup.h: cgroup_open_record): the path on the first line, then one
 * "HIER BASE" line per base ("" hierarchies start with the space).  A
 * cgroup name holds no newline, so every line is one field pair. */
int cg_record_format(const char *path, const struct cgroup_bases *b, char **out,
		     struct error **err);
/* Every path is normalized again; no base may be the root. */
int cg_record_parse(const char *text, char **path, struct cgroup_bases *b,
		    struct error **err);

#endif
