/* The container's network: a fresh network namespace holds only lo, which
 * is brought up here so loopback servers inside work; no other interface
 * exists, so nothing can leave. */
#ifndef CORRAL_NETNS_H
#define CORRAL_NETNS_H

#include <stdbool.h>

#include "error.h"

/* Child, in its new network namespace. */
int netns_loopback_up(struct error **err);

/* Child, once lo is up: addr (IPv4 text) as a /32 of lo, host scope.
 * With an egress policy, the stub resolver's reserved address
 * (DNS_STUB_ADDR), on which the helper's transparent listeners bind. */
int netns_add_loopback_addr(const char *addr, struct error **err);

/* A namespace path that config.json (or any hostile party) names, opened
 * safely: first with O_PATH, which only looks the path up (a FIFO does
 * not block, a device's driver is not called, nothing is read), then
 * checked to be a namespace file (nsfs) before anything else, then
 * opened for real through /proc/self/fd and checked to be of nstype
 * (CLONE_NEWNET, CLONE_NEWPID ...: NS_GET_NSTYPE).  Links are followed
 * on the lookup, as /proc/PID/ns/net is one (a magic link to nsfs); what
 * counts is what was opened.  Every failure is the same line, "PATH: not
 * a KIND namespace", so that the message does not tell which root-only
 * file exists.  The descriptor (O_RDONLY|O_CLOEXEC), or -1 with *err. */
int ns_open_path(const char *path, int nstype, struct error **err);

/* Whether some task (a thread of any process) on the host is in the
 * network namespace fd names: one pass over /proc/PID/task/TID/ns/net,
 * by inode.  Tasks that cannot be asked (gone, or another user's for an
 * ordinary user's corral) are passed over. */
bool netns_has_tasks(int fd);

#endif
