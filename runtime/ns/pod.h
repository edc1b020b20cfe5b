/* Which pod a container belongs to (docs/threat-model.md, "Identity"):
 * never config.json's word alone.  A container that names its pod
 * sandbox must prove it from corral's records (the pod sandbox's
 * state.json, its creator); what it may then share of the pod (its
 * namespaces, its user namespace, its network and the proxy serving it,
 * its kubelet volumes' uid) comes from what the pod sandbox recorded. */
#ifndef CORRAL_POD_H
#define CORRAL_POD_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "namespace.h"
#include "policy.h"
#include "spec.h"

struct sandbox;

/* The process that ran this corral, noted once by main() before any
 * fork of corral's own (an ordinary user's corral enters its user
 * namespace in a child): the engine's shim, conmon, a shell. */
void pod_note_caller(void);
/* Its pid and start time; -1 when it is gone or unknown. */
int pod_caller(int *pid, uint64_t *start);

/* A container that names a pod sandbox by containerd's CRI annotation
 * (io.kubernetes.cri.sandbox-id) must prove it from corral's records: a
 * running pod sandbox of that name in this state root that corral made
 * for the same engine process (the pod's shim) as this create.  Then
 * *pod_uid is the pod's uid as that pod sandbox recorded it (its own
 * io.kubernetes.cri.sandbox-uid), and a container annotation naming
 * another uid is refused; a claim that cannot be proved is refused with
 * one line.  0 with *pod_uid NULL when the container claims no CRI pod,
 * or is a pod sandbox itself. */
int pod_claim(const char *root, const struct spec *spec, char **pod_uid,
	      struct error **err);

int pod_userns(const char *root, const struct spec *spec,
	       struct policy_slice *slice, int *fd);

/* Make the plan join that user namespace (fd, which it takes) instead of
 * making one: plan->hop. */
void pod_plan_join_userns(struct ns_plan *plan, int fd);

/* The namespace a member of a pod dials out from: when fd (the network
 * namespace config.json names) is the running init's of the container's
 * own pod sandbox, *path is the one the engine gave that sandbox (its
 * CNI namespace, in its sandbox.json); NULL otherwise.  Under the CRI an
 * app container names its pause container's namespace, which corral made
 * loopback-only. */
int pod_engine_netns(const char *root, const struct spec *spec, int fd,
		     char **path);

/* A member of a pod shares its pod sandbox's network: when the network
 * namespace config.json names (sb->engine_netns, which harden did not
 * join) is the one corral made for the container's running pod sandbox
 * (loopback-only, or with the pod's egress proxy), the plan joins it
 * instead of making a new one, and sb->pod_network says so.  An error
 * when sharing would widen this container's network (the proxy, or its
 * rules, differ); 0 and nothing changed when the namespace is not that. */
int pod_join_network(const char *root, const struct spec *spec,
		     struct sandbox *sb, struct ns_plan *plan,
		     struct error **err);
/* Whether fd is the namespace `name` (pid, ipc, uts) of the running init
 * of the container's own pod sandbox, proved as pod_claim proves it. */
bool pod_is_pods_ns(const char *root, const struct spec *joiner,
		    const char *name, int fd);

#endif
