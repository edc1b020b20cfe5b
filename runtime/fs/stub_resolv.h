/* The container's /etc/resolv.conf under an egress policy: it names the
 * egress helper's stub resolver (nameserver 127.0.0.1), whatever the
 * image or the engine put there.
 *
 * The file is corral's: written in the container's state directory,
 * opened there by descriptor and cloned into a detached read-only,
 * nosuid, nodev, noexec mount by the parent; the child attaches that
 * clone on the rootfs's /etc/resolv.conf.  The target is opened without
 * following its last component: an image's link at /etc/resolv.conf
 * (../run/systemd/resolve/stub-resolv.conf) is covered, never followed,
 * and an engine's bind of its own resolv.conf is no longer in the
 * effective spec (harden_egress.c drops it). */
#ifndef CORRAL_STUB_RESOLV_H
#define CORRAL_STUB_RESOLV_H

#include "error.h"

#define STUB_RESOLV_FILE "resolv.conf" /* in the state directory */
#define STUB_RESOLV_TEXT "nameserver 127.0.0.1\n"

/* Parent: the file in the state directory dirfd and its detached clone
 * in *out.  A rootfs (rootfd, the clone of the bundle's) with no /etc is
 * told in the log and gets none (*out stays -1): the stub is then
 * unused. */
int stub_resolv_prepare(int dirfd, int rootfd, int *out, struct error **err);

/* Child, once config.json's mounts are attached: the clone on
 * /etc/resolv.conf of the tree at rootfd.  No /etc, or a read-only root
 * without the file, is skipped (the child has no log to tell). */
int stub_resolv_attach(int rootfd, int clone, struct error **err);

#endif
