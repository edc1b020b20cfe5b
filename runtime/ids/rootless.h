/* corral run by an ordinary user (not root of the host's user namespace).
 *
 * The sandbox is the same; what root does with the host's privileges, an
 * ordinary user does in a user namespace of its own, which the commands
 * that set a container up (create, run, sandbox) enter first
 * (rootless_enter): the caller's uid is the sandbox user inside (the
 * policy's user.uid, 65534 by default), and with subordinate ids
 * (/etc/subuid, /etc/subgid, through the setuid newuidmap and newgidmap)
 * the other ids 0-65535 are the caller's subordinate ones, so that root
 * inside exists and is nobody of the host's.  Without them the caller's
 * uid is the only id inside; the kernel then lets no one inside drop the
 * caller's supplementary groups (setgroups is denied), which explain says.
 *
 * The container's namespaces are made by the entered process, so they are
 * that user namespace's; it stays as long as the container does.  State
 * lives under $XDG_RUNTIME_DIR/corral (else /tmp/corral-UID, made 0700),
 * the policy is the user's ($XDG_CONFIG_HOME/corral/policy.json) narrowed
 * by the system's (/etc/corral/policy.json, the administrator's ceiling).
 */
#ifndef CORRAL_ROOTLESS_H
#define CORRAL_ROOTLESS_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup_path.h"
#include "error.h"
#include "policy.h"

/* Whether this process runs as an ordinary user of the host. */
bool rootless(void);

/* Whether this process is outside the host's user namespace: root of a
 * user namespace of an ordinary user's (rootless podman calls corral so,
 * in its own), or an ordinary user's corral in the namespace it entered.
 * Either way it holds no privilege over the host: it cannot idmap a
 * mount, mount a v1 cgroup hierarchy, write the host's cgroup files or
 * make a device node, and the sandbox is set up as rootless_enter's
 * (policy.h: rootless).  From /proc/self/uid_map, which in the host's
 * namespace maps every id to itself, as runc and crun tell it. */
bool rootless_outside_host(void);

/* The default state root of an ordinary user (made 0700 when missing,
 * and refused unless a directory of the caller's alone). */
int rootless_state_root(char **out, struct error **err);

/* The user's policy file, $XDG_CONFIG_HOME/corral/policy.json (or
 * ~/.config/corral/policy.json); NULL when there is none. */
char *rootless_policy_path(void);

/* How the entered user namespace maps ids: "subids" (newuidmap) or
 * "single" (the caller's ids only), as rootless_enter chose. */
const char *rootless_mapping(void);

/* Whether this user namespace denies setgroups (a "single" mapping):
 * the groups a process has then stay. */
bool rootless_setgroups_denied(void);

/* Whether the caller has supplementary groups (beyond its primary one),
 * which a "single" mapping cannot drop. */
bool rootless_has_groups(void);

/* What an ordinary user's corral finds of a cgroup of its own, for
 * harden() (policy.h: cgroup_delegated, cgroup_controllers), and where
 * the container's cgroup goes (cgroup.h: cgroup_find_delegated).  Not
 * rootless, or nothing found (no cgroup mounted, none the caller's): no
 * base, and harden() refuses unless limits are best-effort. */
void rootless_cgroup(struct policy *p, struct cgroup_bases *bases);

/* Enter a new user and mount namespace where inside_uid and inside_gid
 * are the caller's ids: with subordinate ids, by a fork (the setuid
 * helpers map the child's ids from outside); in the child it returns 0
 * and the command goes on there; in the caller, once the child has
 * ended, 1 with *status the child's exit status (which the caller exits
 * with).  With the caller's own ids alone, this process enters them and
 * maps itself, and returns 0.  -1 with *err on failure. */
int rootless_enter(uint32_t inside_uid, uint32_t inside_gid, int *status,
		   struct error **err);

#endif
