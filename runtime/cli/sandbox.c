#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container.h"
#include "fsutil.h"
#include "hostpath.h"
#include "policy.h"
#include "policy_file.h"
#include "spec.h"
#include "util.h"

/* The host directories the default root borrows, read-only.  On a merged
 * /usr host the others are symlinks into it and are recreated as such. */
static const char *const host_dirs[] = {"/usr",	  "/bin",   "/sbin",  "/lib",
					"/lib32", "/lib64", "/libx32"};

/* What the naive config asks for beyond them only to show what the
 * sandbox cuts (the host's /etc): dropped, recorded, not refused. */
static const char *const naive_sources[] = {"/etc"};

/* A synthetic /etc: enough for programs to resolve users and localhost,
 * and nothing of the host's. */
static const struct {
	const char *name;
	const char *content;
} etc_files[] = {
    {"passwd", "root:x:0:0:root:/root:/usr/sbin/nologin\n"
	       "nobody:x:65534:65534:nobody:/tmp:/usr/sbin/nologin\n"},
    {"group", "root:x:0:\nnogroup:x:65534:\n"},
    {"hosts", "127.0.0.1\tlocalhost\n::1\tlocalhost\n"},
    /* under an egress policy corral mounts its stub resolver's
     * resolv.conf here (runtime/fs/stub_resolv.c); otherwise no name
     * server answers on 127.0.0.1 */
    {"resolv.conf", ""},
    {"nsswitch.conf", "passwd: files\ngroup: files\nhosts: files dns\n"},
};

static int write_at(int dirfd, const char *name, const char *content,
		    struct error **err)
{
	_cleanup_close_ int fd =
	    openat(dirfd, name,
		   O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd < 0 || write_all(fd, content, strlen(content)) < 0)
		return error_errno(err, "sandbox rootfs: write %s", name);
	return 0;
}

static char *strv_append(char ***v, size_t *n, const char *s)
{
	char **grown = realloc(*v, (*n + 2) * sizeof(char *));

	if (!grown)
		return NULL;
	*v = grown;
	grown[*n] = strdup(s);
	if (!grown[*n])
		return NULL;
	grown[++*n] = NULL;
	return grown[*n - 1];
}

static int add_bind(struct spec *s, const char *source, const char *dest,
		    bool rw, struct error **err)
{
	const char *const opts[] = {"rbind", rw ? "rw" : "ro", "nosuid",
				    "nodev"};
	struct spec_mount *grown =
	    realloc(s->mounts, (s->n_mounts + 1) * sizeof(*s->mounts));
	struct spec_mount *m;

	if (!grown)
		return error_set(err, ENOMEM, "out of memory");
	s->mounts = grown;
	m = &s->mounts[s->n_mounts++];
	*m = (struct spec_mount){.destination = strdup(dest),
				 .type = strdup("bind"),
				 .source = strdup(source)};
	if (!m->destination || !m->type || !m->source)
		return error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (!strv_append(&m->options, &m->n_options, opts[i]))
			return error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* The default config's /tmp is a tmpfs of its own; the embedded root has
 * a /tmp directory, so its writes land in the scratch overlay instead,
 * with the rest, where `corral report` sees them. */
static void drop_tmp_mount(struct spec *s)
{
	for (size_t i = 0; i < s->n_mounts; i++) {
		struct spec_mount *m = &s->mounts[i];

		if (strcmp(m->destination, "/tmp") != 0)
			continue;
		free(m->destination);
		free(m->type);
		free(m->source);
		strv_free(m->options);
		memmove(m, m + 1, (s->n_mounts - i - 1) * sizeof(*m));
		s->n_mounts--;
		return;
	}
}

/* rootfs/ with /etc, the links of a merged-/usr host, and bind mounts of
 * the host's /usr (and of /lib etc. where they are directories). */
static int make_rootfs(int bundle, struct spec *s, struct error **err)
{
	_cleanup_close_ int rootfs = -1, etc = -1;

	if (mkdirat(bundle, "rootfs", 0755) < 0 ||
	    (rootfs = openat(bundle, "rootfs",
			     O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    mkdirat(rootfs, "etc", 0755) < 0 ||
	    mkdirat(rootfs, "tmp", 01777) < 0 ||
	    fchmodat(rootfs, "tmp", 01777, 0) < 0 || /* past the umask */
	    (etc = openat(rootfs, "etc", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error_errno(err, "sandbox rootfs");
	for (size_t i = 0; i < ARRAY_SIZE(etc_files); i++)
		if (write_at(etc, etc_files[i].name, etc_files[i].content,
			     err) < 0)
			return -1;
	for (size_t i = 0; i < ARRAY_SIZE(host_dirs); i++) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (lstat(host_dirs[i], &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (add_bind(s, host_dirs[i], host_dirs[i], false,
				     err) < 0)
				return -1;
			continue;
		}
		n = readlink(host_dirs[i], target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (symlinkat(target, rootfs, host_dirs[i] + 1) < 0)
			return error_errno(err, "sandbox rootfs: link %s",
					   host_dirs[i]);
	}
	return 0;
}

static int set_annotation(struct spec *s, const char *key, const char *value,
			  struct error **err)
{
	struct spec_kv *grown;

	if (!value)
		return 0;
	grown = realloc(s->annotations,
			(s->n_annotations + 1) * sizeof(*s->annotations));
	if (!grown)
		return error_set(err, ENOMEM, "out of memory");
	s->annotations = grown;
	grown[s->n_annotations].key = strdup(key);
	grown[s->n_annotations].value = strdup(value);
	s->n_annotations++;
	if (!grown[s->n_annotations - 1].key ||
	    !grown[s->n_annotations - 1].value)
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* dir made absolute against the working directory by its text alone:
 * empty components and "." dropped, ".." taking the component before it
 * away.  No link is looked at, so this is the path the caller typed. */
static char *typed_path(const char *dir)
{
	char cwd[PATH_MAX], *out, *save = NULL;
	_cleanup_free_ char *joined = NULL;
	size_t size, n = 0;
	int len;

	if (dir[0] == '/')
		cwd[0] = '\0';
	else if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	size = strlen(cwd) + strlen(dir) + 2;
	joined = malloc(size);
	out = joined ? malloc(size) : NULL;
	if (!out)
		return NULL;
	len = snprintf(joined, size, "%s/%s", cwd, dir);
	if (len < 0 || (size_t)len >= size) {
		free(out);
		return NULL;
	}
	for (char *c = strtok_r(joined, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			while (n > 0 && out[--n] != '/')
				;
			continue;
		}
		out[n++] = '/';
		memcpy(out + n, c, strlen(c));
		n += strlen(c);
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

int sandbox_workspace_open(const char *dir, struct sandbox_workspace *ws,
			   struct error **err)
{
	struct stat st;

	*ws = (struct sandbox_workspace){.fd = -1, .home = getenv("HOME")};
	ws->path = realpath(dir, NULL);
	if (!ws->path)
		return error_errno(err, "workspace %s", dir);
	ws->typed = typed_path(dir);
	if (!ws->typed)
		return error_errno(err, "workspace %s", dir);
	ws->through_link = strcmp(ws->typed, ws->path) != 0;
	ws->fd =
	    hostpath_open(ws->path, O_PATH | O_DIRECTORY, "workspace", err);
	if (ws->fd < 0)
		return -1;
	if (fstat(ws->fd, &st) < 0)
		return error_errno(err, "workspace %s", ws->path);
	ws->owner = st.st_uid;
	ws->caller = getuid();
	ws->caller_gid = getgid();
	ws->dev = st.st_dev;
	ws->ino = st.st_ino;
	return 0;
}

void sandbox_workspace_close(struct sandbox_workspace *ws)
{
	free(ws->path);
	ws->path = NULL;
	free(ws->typed);
	ws->typed = NULL;
	closep(&ws->fd);
}

/* In the user namespace's own mount namespace a descriptor of the
 * caller's cannot be cloned (open_tree takes a mount of the caller's
 * namespace): the path is opened again, without links, and must be the
 * very directory the caller checked. */
static int reopen_workspace(struct sandbox_workspace *ws, struct error **err)
{
	_cleanup_close_ int fd =
	    hostpath_open(ws->path, O_PATH | O_DIRECTORY, "workspace", err);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return error_errno(err, "workspace %s", ws->path);
	if (st.st_dev != ws->dev || st.st_ino != ws->ino)
		return error_set(err, EBUSY,
				 "workspace %s: replaced while corral entered "
				 "its user namespace",
				 ws->path);
	closep(&ws->fd);
	ws->fd = take_fd(&fd);
	return 0;
}

/* Whether the policy mounts the workspace: below an entry of its mounts,
 * or as the caller's own directory (policy_workspace_check); else one
 * line, before anything is made.  create asks the policy again.  The
 * caller's own only when reached without a link: a link on the way may
 * be another sandbox's, swapped into a workspace it can write, and would
 * lead to any directory of the caller's (root's: the host's). */
static int workspace_allowed(const struct sandbox_opts *o, bool *own,
			     struct error **err)
{
	const struct sandbox_workspace *ws = o->workspace;
	struct policy *p = NULL;
	int r;

	if (policy_load(o->policy, &p, err) < 0)
		return -1;
	r = policy_workspace_check(p, ws->path, ws->home, ws->owner, ws->caller,
				   own, err);
	policy_free(p);
	if (r == 0 && *own && ws->through_link)
		return error_set(err, EPERM,
				 "workspace %s: a symbolic link on the way "
				 "(to %s); a directory of the caller's own is "
				 "mounted only when named without one "
				 "(policy: workspace.allowOwn; or an entry of "
				 "mounts)",
				 ws->typed, ws->path);
	return r;
}

/* The environment of the caller, as an engine would pass it on, with HOME
 * pointing into the sandbox.  The policy's allowlist decides what stays. */
static int copy_environment(struct spec_process *p)
{
	extern char **environ;

	for (char **e = environ; *e; e++)
		if (strncmp(*e, "HOME=", 5) != 0 &&
		    !strv_append(&p->env, &p->n_env, *e))
			return -1;
	return strv_append(&p->env, &p->n_env, "HOME=/tmp") ? 0 : -1;
}

/* The host's network namespace, as `--network host` would ask for: under
 * the sandbox harden() replaces it with a fresh one holding only lo. */
static int ask_host_network(struct spec *s)
{
	for (size_t i = 0; s->linux_ && i < s->linux_->n_namespaces; i++) {
		struct spec_namespace *ns = &s->linux_->namespaces[i];

		if (ns->type == NS_NETWORK && !ns->path)
			return (ns->path = strdup("/proc/self/ns/net")) ? 0
									: -1;
	}
	return 0;
}

/* The config a naive engine would write for "run CMD on my machine": the
 * caller's user, environment and network, the host's /usr and /etc.  It
 * is deliberately wide: harden() cuts it down to the sandbox, so what runs
 * is what the policy allows, and a permissive policy shows the difference
 * honestly. */
static int make_config(const struct sandbox_opts *o, int bundle,
		       const char *rootfs, const char *workspace,
		       struct error **err)
{
	_cleanup_free_ char *json = NULL;
	struct spec *s = NULL;
	int r = -1;

	if (spec_default(&s, err) < 0)
		return -1;
	strv_free(s->process->args);
	strv_free(s->process->env);
	s->process->args = s->process->env = NULL;
	s->process->n_args = s->process->n_env = 0;
	for (int i = 0; i < o->argc; i++)
		if (!strv_append(&s->process->args, &s->process->n_args,
				 o->argv[i]))
			goto oom;
	if (copy_environment(s->process) < 0 || ask_host_network(s) < 0)
		goto oom;
	s->process->user.uid = getuid();
	s->process->user.gid = getgid();
	free(s->process->cwd);
	s->process->cwd = strdup("/tmp");
	s->root->readonly = false; /* writes land in the scratch overlay */
	free(s->root->path);
	s->root->path = strdup(rootfs ? rootfs : "rootfs");
	if (!s->process->cwd || !s->root->path)
		goto oom;
	if (!o->rootfs)
		drop_tmp_mount(s);
	if ((!o->rootfs && (make_rootfs(bundle, s, err) < 0 ||
			    add_bind(s, "/etc", "/etc", false, err) < 0)) ||
	    (workspace &&
	     add_bind(s, workspace, "/workspace", true, err) < 0) ||
	    set_annotation(s, "run.corral.timeout", o->timeout, err) < 0 ||
	    set_annotation(s, "run.corral.memory", o->memory, err) < 0 ||
	    spec_emit(s, &json, NULL, err) < 0 ||
	    write_at(bundle, "config.json", json, err) < 0)
		goto out;
	r = 0;
	goto out;
oom:
	error_set(err, ENOMEM, "out of memory");
out:
	spec_free(s);
	return r;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int sandbox_run(const struct sandbox_opts *o, int *status, struct error **err)
{
	char id[64], bundle_path[PATH_MAX];
	_cleanup_close_ int bundle = -1;
	_cleanup_free_ char *rootfs = NULL;
	struct sandbox_workspace *ws = o->workspace;
	const char *workspace = ws ? ws->path : NULL;
	struct preopened_source preopened;
	struct create_opts co;
	bool own = false;
	int r = -1;

	if (o->rootfs && !(rootfs = realpath(o->rootfs, NULL)))
		return error_errno(err, "rootfs %s", o->rootfs);
	if (ws && ((o->workspace_reopen && reopen_workspace(ws, err) < 0) ||
		   workspace_allowed(o, &own, err) < 0))
		return -1;
	preopened = (struct preopened_source){.source = workspace,
					      .fd = ws ? ws->fd : -1,
					      .idmap = own,
					      .uid = ws ? ws->caller : 0,
					      .gid = ws ? ws->caller_gid : 0};
	snprintf(id, sizeof(id), "sandbox-%d", (int)getpid());
	if (mkdir(o->root, 0700) < 0 && errno != EEXIST)
		return error_errno(err, "state root %s", o->root);
	if (snprintf(bundle_path, sizeof(bundle_path), "%s/.%s.bundle", o->root,
		     id) >= (int)sizeof(bundle_path))
		return error_set(err, ENAMETOOLONG, "state root too long");
	if (mkdir(bundle_path, 0700) < 0)
		return error_errno(err, "sandbox bundle %s", bundle_path);
	bundle = open(bundle_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (bundle < 0) {
		error_errno(err, "sandbox bundle %s", bundle_path);
		goto out;
	}
	if (make_config(o, bundle, rootfs, workspace, err) < 0)
		goto out;
	co = (struct create_opts){
	    .root = o->root,
	    .id = id,
	    .bundle = bundle_path,
	    .policy = o->policy,
	    .extra_ro_sources = o->rootfs ? NULL : host_dirs,
	    .n_extra_ro_sources = o->rootfs ? 0 : ARRAY_SIZE(host_dirs),
	    .own_rootfs = rootfs,
	    .preopened = workspace ? &preopened : NULL,
	    .n_preopened = workspace ? 1 : 0,
	    .workspace = workspace,
	    .workspace_owner = ws ? ws->owner : 0,
	    .caller_uid = ws ? ws->caller : 0,
	    .caller_home = ws ? ws->home : NULL,
	    .drop_sources = o->rootfs ? NULL : naive_sources,
	    .n_drop_sources = o->rootfs ? 0 : ARRAY_SIZE(naive_sources),
	    .report = o->report,
	};
	r = container_run(&co, false, status, err);
out:
	nftw(bundle_path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return r;
}
