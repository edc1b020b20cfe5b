/* `corral sandbox --workspace DIR`: which directories of the caller's own
 * may be mounted read-write at /workspace without a mounts entry
 * (policy.h, policy_workspace_check).  The caller is trusted (it typed
 * the command), but the code it runs is not: a workspace is where that
 * code writes and what it can destroy, so it is a directory meant for the
 * job, never one the system or the user's other work lives in. */
#include "policy.h"

#include <errno.h>
#include <string.h>

#include "util.h"

/* The system's trees: the directory and everything below it.  Writing
 * there changes what the host runs (/etc, /usr, /boot, the libraries),
 * reaches the kernel (/proc, /sys, /dev), other programs' sockets and
 * state (/run, /var: the engines' storage, databases, logs, spools). */
static const char *const system_trees[] = {
    "/bin",    "/boot", "/dev", "/etc",	 "/lib", "/lib32", "/lib64",
    "/libx32", "/proc", "/run", "/sbin", "/sys", "/usr",   "/var",
};

/* Directories that hold many owners' files: the directory itself, not
 * what is below it ("/home" but /home/alice/project, "/tmp" but
 * /tmp/build).  Mounted whole, the code would reach every user's home,
 * every program's temporary files, the site's data. */
static const char *const shared_dirs[] = {
    "/", "/home", "/media", "/mnt", "/opt", "/root", "/srv", "/tmp", "/var/tmp",
};

/* Below /var, only /var/tmp's subdirectories are anyone's scratch. */
#define VAR_TMP "/var/tmp"

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

/* A directory right below /home: someone's home. */
static bool a_home(const char *dir)
{
	return strncmp(dir, "/home/", 6) == 0 && dir[6] &&
	       !strchr(dir + 6, '/');
}

const char *policy_workspace_forbidden(const char *dir, const char *home)
{
	for (size_t i = 0; i < ARRAY_SIZE(shared_dirs); i++)
		if (strcmp(dir, shared_dirs[i]) == 0)
			return "a directory of many owners' files is never a "
			       "workspace (name a directory below it)";
	if (a_home(dir) || (home && home[0] == '/' && strcmp(dir, home) == 0))
		return "a home directory is never a workspace: it holds the "
		       "user's keys and shell startup files (name a project "
		       "directory below it)";
	if (under(dir, VAR_TMP))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(system_trees); i++)
		if (under(dir, system_trees[i]))
			return "a system directory is never a workspace";
	return NULL;
}

int policy_workspace_check(const struct policy *p, const char *dir,
			   const char *home, uint32_t owner, uint32_t caller,
			   bool *own, struct error **err)
{
	const char *why;

	*own = false;
	for (size_t i = 0; i < p->n_mounts; i++)
		if (under(dir, p->mounts[i].source))
			return 0;
	if (!p->workspace_own)
		return error_set(err, EPERM,
				 "workspace %s: the policy mounts no "
				 "workspace of the caller's own (policy: "
				 "workspace.allowOwn; or an entry of mounts)",
				 dir);
	why = policy_workspace_forbidden(dir, home);
	if (why)
		return error_set(err, EPERM,
				 "workspace %s: %s (policy: mounts)", dir, why);
	if (owner != caller)
		return error_set(err, EPERM,
				 "workspace %s: owned by uid %u, not by the "
				 "caller (uid %u) (policy: mounts)",
				 dir, owner, caller);
	*own = true;
	return 0;
}
