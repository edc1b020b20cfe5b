/* The slices of the policy's pool of user-namespace ids (policy.h, struct
 * policy_pool): each container with corral's own user namespace holds
 * one slice of POLICY_SLICE host uids and gids, its own, for its ids
 * 0-65535 (a pod's members share their pod sandbox's).
 *
 * Which slices are taken is kept in one directory of the host's,
 * USERNS_POOL_DIR, whatever the state root, so that containers of two
 * engines (podman's /run/corral, containerd's /run/containerd/runc/NS)
 * never share host ids.  A slice is two files, named by its first host
 * uid ("65536") and its first host gid ("g65536"), made with O_EXCL under
 * an flock of the directory (one taker or giver at a time), each holding
 * who took it: the state root, the container's ID, and the pid and start
 * time of the create that took it.  A record whose container directory
 * is gone, whose create is no longer running and in whose slice no pod
 * member is, or that holds no whole holder, was left by a create or
 * delete that was killed (or a pod sandbox deleted before its members),
 * and is taken again.  Slices start at multiples of POLICY_SLICE, so two pools
 * that overlap name the same ids alike, uids and gids each. */
#ifndef CORRAL_USERNS_POOL_H
#define CORRAL_USERNS_POOL_H

#include "error.h"
#include "policy.h"

#define USERNS_POOL_DIR "/run/corral-userns"

/* Take a free slice of pool for container ROOT/ID (root absolute). */
int userns_slice_take(const struct policy_pool *pool, const char *root,
		      const char *id, struct policy_slice *out,
		      struct error **err);

/* Give back the slice at host uid `uid` and gid `gid`, when ROOT/ID
 * holds it and, for a pod sandbox, no member of its pod is in it still;
 * or when ROOT/ID is the last member of a pod whose sandbox was deleted
 * first.  A slice someone else holds is left alone. */
void userns_slice_release(uint32_t uid, uint32_t gid, const char *root,
			  const char *id, bool pod_sandbox);

/* A user namespace whose ids 0-65535 are host uids uid... and gids
 * gid...: its descriptor, for mount_setattr(MOUNT_ATTR_IDMAP) to show a
 * layer's files as the container's (the image's root as the
 * container's root, which is host uid `uid`). */
int userns_slice_open(uint32_t uid, uint32_t gid, struct error **err);

/* The same for any one range: ids in_uid.. (and in_gid..) inside are
 * host uids uid.. (gids gid..), count of each. */
int userns_map_open(uint32_t in_uid, uint32_t uid, uint32_t in_gid,
		    uint32_t gid, uint32_t count, struct error **err);

#endif
