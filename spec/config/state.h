/* The state of one container: what `corral state` prints (the runtime-spec
 * state object), what hooks read on stdin, and what corral keeps in
 * ROOT/ID/state.json between commands (the same object plus a private
 * "corral" member with the init process's start time, which guards against
 * pid reuse, the cgroup's path and the kinds of hooks config.json has).
 */
#ifndef CORRAL_STATE_MODEL_H
#define CORRAL_STATE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "host_kernel.h"
#include "spec.h"

struct spec_state {
	char *oci_version;
	char *id;
	const char *status; /* static: "creating", "created", ... */
	int pid;	    /* 0: none */
	char *bundle;
	char *rootfs;
	char *created; /* RFC 3339 with nanoseconds, UTC */
	struct spec_kv *annotations;
	size_t n_annotations;
	/* private, kept in state.json only */
	uint64_t start_time; /* /proc/PID/stat field 22 */
	char *cgroup;	     /* the container's cgroup path, or NULL */
	/* The hook kinds config.json has (bit 1 << enum spec_hook_kind), so
	 * start and delete read config.json only for hooks it has; unknown
	 * in a state.json without the record. */
	bool hooks_known;
	unsigned hooks;
	/* Created under a permissive policy: its hooks' paths are followed
	 * through symbolic links, as config.json wrote them (a hardened
	 * container's hooks are the policy's and never are). */
	bool permissive;
	/* Joined an existing pid namespace (a pod's): its init is not that
	 * namespace's PID 1, so SIGKILL to it kills nothing else, and kill
	 * goes to every process of the cgroup instead. */
	bool shared_pidns;
	/* The policy it was created under names a report.dir, so delete
	 * reads the stored policy.json only then (to write the report);
	 * unknown in a state.json without the record. */
	bool report_known;
	bool report_dir;
	/* The process that ran `corral create` (its parent: the engine's
	 * shim, conmon, a shell), by pid and start time; 0: unknown.  A pod
	 * sandbox's is what its members prove their pod by: the CRI's shim
	 * creates every container of a pod (runtime/ns/pod.c). */
	int creator_pid;
	uint64_t creator_start;
};

enum spec_state_view {
	STATE_PUBLIC,  /* the runtime-spec state object */
	STATE_PRIVATE, /* plus corral's own fields, for state.json */
};

int spec_state_emit(const struct spec_state *state, enum spec_state_view view,
		    char **out, struct error **err);

/* Parse state.json as written by spec_state_emit(STATE_PRIVATE).  The
 * status is not stored: it is computed from the live process. */
int spec_state_parse(const char *json, size_t len, struct spec_state **out,
		     struct error **err);

/* `list --format json`: an array of state objects in runc's shape. */
int spec_state_emit_list(struct spec_state *const *states, size_t n, char **out,
			 struct error **err);

void spec_state_free(struct spec_state *state);

/* The runtime-spec features document for `corral features`; its
 * annotations say the running kernel k and what corral does about each
 * of its differences (run.corral.kernel, run.corral.kernel.NAME;
 * host_kernel.h), none when k is unknown. */
int spec_features_emit(const struct host_kernel *k, char **out,
		       struct error **err);

#endif
