/* Cgroup paths, as pure functions: no system call, so the unit tests and
 * a fuzzer (tests/fuzz/fuzz_cgroup_path.c) can feed them anything.
 *
 * A path here is a cgroup's place below each hierarchy's root: "corral/ID",
 * "/a/b", "machine.slice/libpod-ID.scope".  Every path corral writes in,
 * kills in or removes went through cg_path_normalize(): no "." or ".."
 * component, never the root cgroup (killing "every process of the cgroup"
 * there would kill the host). */
#ifndef CORRAL_CGROUP_PATH_H
#define CORRAL_CGROUP_PATH_H

#include "error.h"

#define CG_PARENT "corral" /* relative paths and the default live here */

/* The cgroup path for a container: config.json's cgroupsPath when set
 * (absolute "/a/b", relative "a/b" below "corral/", or systemd's
 * "slice:prefix:name" mapped to "SLICE-PATH/prefix-name.scope", e.g.
 * "machine.slice:libpod:ID" -> "machine.slice/libpod-ID.scope" and
 * "a-b.slice:x:y" -> "a.slice/a-b.slice/x-y.scope"), else "corral/ID".
 * The result is normalized (cg_path_normalize). */
int cgroup_path_for(const char *cgroups_path, const char *id, char **out,
		    struct error **err);

/* Check a cgroup path and return it normalized: "a//b/" -> "a/b",
 * "/a/b" keeps its slash; empty, "/" and "."/".." components are
 * errors. */
int cg_path_normalize(const char *path, char **out, struct error **err);

/* ROOT/PATH without doubled slashes; NULL when out of memory. */
char *cg_join(const char *root, const char *path);

#endif
