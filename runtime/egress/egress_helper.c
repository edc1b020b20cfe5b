/* The egress helper's setup, a flat list of steps (docs/architecture.md,
 * "The egress helper").  create forks it right after GO (the cgroup
 * exists by then), so that the first half runs while the init sets the
 * container up; it
 *
 *   1. closes every fd of create's but the eight it needs (stdio goes to
 *      /dev/null), resets the signal mask and leaves create's session
 *      (a terminal's ^C is the container's);
 *   2. joins the container's cgroup: it is counted against the limits and
 *      killed with the container (it starts in the cgroup2 directory,
 *      cloned there as the init is, and moves itself only in the v1
 *      hierarchies);
 *   3. reads /etc/hosts and /etc/resolv.conf into memory, after which it
 *      needs no file at all, parses its rules, maps the counters' record
 *      (EGRESS_COUNTS_FILE) and makes the resolver's cache, both shared
 *      with the per-connection processes it forks, and empties its
 *      bounding set;
 *   4. waits for the init's byte on the lo_up socket, written once it
 *      has made its network namespace and brought loopback up, with that
 *      namespace attached (straight from the init: create is not woken to
 *      pass it on), or ends when the init is gone (its end of the socket
 *      closed unwritten);
 *   5. enters the namespace it dials from (the engine's, config.json's
 *      path; corral's own, where it is, when none), and a thread of its
 *      enters the init's (the descriptor the init sent), puts
 *      DNS_STUB_ADDR on its lo (the init's setup goes on meanwhile),
 *      makes the listening socket on EGRESS_PROXY_AUTHORITY there, the
 *      stub resolver's UDP socket on 127.0.0.1:53 and the transparent
 *      listeners on DNS_STUB_ADDR (443, 80 and each port a rule names),
 *      and ends: a socket stays in the namespace it was made in, so the
 *      container reaches the proxy and nothing else, and the proxy's own
 *      connections leave from the namespace it dials from;
 *   6. drops every other privilege: groups, uid and gid to nobody, every
 *      capability set, no_new_privs, not dumpable; then its own seccomp
 *      filter, which has no open, exec or mount;
 *   7. tells create it is ready and serves until the init's pidfd says
 *      the container's init has exited: each connection in a broker (a
 *      fork) that executes the connections' own program (a memfd made in
 *      step 3) to read it (runtime/egress/egress_child.h).
 *
 * Privileged operations, all before step 6 and each safe: the cgroup
 * writes move this process alone into the container's own cgroup; the
 * namespace entries use descriptors checked to be network namespaces:
 * the one the init sent (corral's code still, before any of the
 * container's runs) and the dial namespace opened before the fork; the one
 * address added is DNS_STUB_ADDR/32 on the lo of the container's own network
 * namespace, which corral made and nothing else uses; the sockets are
 * bound to the container's loopback only (127.0.0.1, and DNS_STUB_ADDR,
 * which is on its lo alone). */
#include "egress_helper.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "dns.h"
#include "egress.h"
#include "egress_cache.h"
#include "egress_child.h"
#include "egress_proxy.h"
#include "fsutil.h"
#include "harden.h"
#include "namespace.h"
#include "pod.h"
#include "netns.h"
#include "rootless.h"
#include "util.h"

#define READY_TIMEOUT_MS 10000
#define LISTEN_BACKLOG 128

/* The descriptors the helper keeps from create. */
struct helper_fds {
	bool in_cgroup2; /* cloned into the cgroup2 directory */
	int init;	 /* pidfd of the container's init */
	int dial;	 /* the network namespace it dials from */
	int log;	 /* EGRESS_LOG_FILE, O_APPEND */
	int counts;	 /* EGRESS_COUNTS_FILE, mapped shared */
	int hosts;	 /* /etc/hosts, or -1 */
	int resolv;	 /* /etc/resolv.conf, or -1 */
	int lo_up;	 /* the init's "lo is up", a socket */
	int netns;	 /* the init's network namespace, sent with it */
	int ready;	 /* the pipe to create */
};

static bool same_netns(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The network namespace at path, where the proxy is to dial from: a
 * network namespace (ns_open_path: looked up with O_PATH and checked
 * before it is opened); corral's own, which is where the proxy dials
 * from when config.json names none, so naming it changes nothing
 * (`corral sandbox`, `podman --network host`); never PID 1's when that is
 * another (the host's, for a corral in a namespace of its own); and,
 * unless corral recorded it for the pod (`recorded`), one in which no
 * task lives yet: the namespace the engine has just made for this
 * container (a CNI or podman namespace), not another container's, a
 * pod's in use or any /run/netns namespace a program serves from.
 * docs/threat-model.md, "The egress proxy", says why. */
static int open_netns(const char *path, bool recorded, struct error **err)
{
	int fd = ns_open_path(path, CLONE_NEWNET, err);
	const char *why = NULL;

	if (fd < 0)
		return error_wrap(err, "egress: the namespace to dial from");
	if (same_netns(fd, "/proc/self/ns/net"))
		return fd;
	if (same_netns(fd, "/proc/1/ns/net"))
		why = "it is the host's";
	else if (!recorded && netns_has_tasks(fd))
		why = "processes live in it (another container's, or one in "
		      "use): corral's proxy dials only from a namespace the "
		      "engine made for this container";
	if (!why)
		return fd;
	close(fd);
	return error_set(
	    err, EPERM, "egress: the namespace to dial from %s: %s", path, why);
}

/* Where the proxy dials from when config.json names a namespace: that
 * one, unless it is the pod sandbox's (loopback-only, made by corral),
 * then the one the engine gave the sandbox, which corral recorded.
 * Without one, corral's own, where the helper is already. */
static int open_dial_netns(const struct egress_start *s, struct error **err)
{
	_cleanup_free_ char *pod = NULL;
	_cleanup_close_ int named = -1;

	/* a pod sandbox's own state directory is locked by this create */
	if (s->sandbox->role != ROLE_POD_SANDBOX) {
		named =
		    ns_open_path(s->sandbox->engine_netns, CLONE_NEWNET, NULL);
		if (named >= 0 &&
		    pod_engine_netns(s->root, s->spec, named, &pod) == 0 && pod)
			return open_netns(pod, true, err);
	}
	return open_netns(s->sandbox->engine_netns, false, err);
}

/* A host file the resolver reads into *fd, left -1 when the host has
 * none.  They are the host administrator's, not the bundle's, so a link
 * (a systemd-resolved /etc/resolv.conf) is followed. */
static int open_host_file(const char *path, int *fd, struct error **err)
{
	*fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0 && errno != ENOENT)
		return error_errno(err, "egress: %s", path);
	return 0;
}

/* ---- the helper's side ----------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The connections' program (egress/main.c), in corral's data as the
 * stage is: a sealed memfd at EGRESS_CONN_IMAGE_FD, the one descriptor
 * the helper's filter lets execveat run.  Execute-only (0111): its
 * processes may not read the image they run, so the kernel makes them
 * non-dumpable at the exec, and one at a time they cannot be read or
 * traced by another process of nobody's. */
extern const char corral_egress_conn_start[];
extern const char corral_egress_conn_end[];

static int conn_image(struct error **err)
{
	_cleanup_close_ int fd = sealed_memfd(
	    EGRESS_CONN_NAME, corral_egress_conn_start,
	    (size_t)(corral_egress_conn_end - corral_egress_conn_start), true,
	    err);

	if (fd < 0)
		return -1;
	if (fchmod(fd, 0111) < 0 ||
	    dup3(fd, EGRESS_CONN_IMAGE_FD, O_CLOEXEC) < 0)
		return error_errno(err, "%s", EGRESS_CONN_NAME);
	return 0;
}

/* The counters' record, shared by the helper's processes (they are forks
 * of it) and read by `corral report`; the log's budgets are kept in it. */
static int map_counts(struct helper_fds *f, struct egress_proxy *p,
		      struct error **err)
{
	void *m = mmap(NULL, sizeof(struct egress_counts),
		       PROT_READ | PROT_WRITE, MAP_SHARED, f->counts, 0);

	if (m == MAP_FAILED)
		return error_errno(err, "map %s", EGRESS_COUNTS_FILE);
	closep(&f->counts);
	p->counts = m;
	return 0;
}

/* Close every fd but the ones in f (create's sync socket, the state
 * directory lock, the bundle ...). */
static int close_others(const struct helper_fds *f, struct error **err)
{
	int keep[] = {f->init,	f->dial,   f->log,   f->counts,
		      f->hosts, f->resolv, f->lo_up, f->ready};
	unsigned next = 0;

	qsort(keep, ARRAY_SIZE(keep), sizeof(keep[0]), cmp_int);
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++) {
		if (keep[i] < 0)
			continue;
		if ((unsigned)keep[i] > next &&
		    syscall(SYS_close_range, next, keep[i] - 1, 0) < 0)
			return error_errno(err, "close_range");
		next = (unsigned)keep[i] + 1;
	}
	if (syscall(SYS_close_range, next, ~0U, 0) < 0)
		return error_errno(err, "close_range");
	return 0;
}

/* create installs no handler (main ignores SIGPIPE, which the proxy
 * wants too: a peer's reset is an EPIPE); only the mask is create's. */
static void reset_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* A socket of type bound to addr:port (listening, for a stream). */
static int bind_one(int type, const char *addr, uint16_t port,
		    struct error **err)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	_cleanup_close_ int fd = -1;
	int one = 1;

	inet_pton(AF_INET, addr, &a.sin_addr);
	fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, LISTEN_BACKLOG) < 0))
		return error_errno(
		    err, "%s %s:%u",
		    type == SOCK_STREAM ? "listen on" : "bind UDP", addr, port);
	return take_fd(&fd);
}

/* The transparent listeners' ports: 443, 80, then each other port a
 * rule names, once each (at most n_rules + 2). */
static size_t transparent_ports(const struct egress_proxy *p, uint16_t *ports)
{
	size_t n = 0;

	ports[n++] = EGRESS_PORT_HTTPS;
	ports[n++] = EGRESS_PORT_HTTP;
	for (size_t i = 0; i < p->n_rules; i++) {
		uint16_t port = p->rules[i].port;
		bool seen = port == 0;

		for (size_t j = 0; !seen && j < n; j++)
			seen = ports[j] == port;
		if (!seen)
			ports[n++] = port;
	}
	return n;
}

/* Every socket of the container's side, made in the init's network
 * namespace by a thread of their own (listen_thread): the proxy's, the
 * stub resolver's and the transparent listeners, on DNS_STUB_ADDR, added
 * to lo here rather than by the init, so that its netlink round trip is
 * not on the way to the init's READY (the init brought lo up before it
 * wrote to lo_up). */
static int listen_inside(const struct helper_fds *f,
			 const struct egress_proxy *p,
			 struct egress_listeners *l, struct error **err)
{
	_cleanup_free_ uint16_t *ports = calloc(p->n_rules + 2, sizeof(*ports));
	size_t n;

	if (!ports)
		return error_set(err, ENOMEM, "out of memory");
	n = transparent_ports(p, ports);
	l->transparent = calloc(n, sizeof(*l->transparent));
	if (!l->transparent)
		return error_set(err, ENOMEM, "out of memory");
	if (f->netns < 0 || ioctl(f->netns, NS_GET_NSTYPE) != CLONE_NEWNET)
		return error_set(err, EPROTO,
				 "the init sent no network namespace");
	if (setns(f->netns, CLONE_NEWNET) < 0)
		return error_errno(err, "enter the container's network "
					"namespace");
	if (netns_add_loopback_addr(DNS_STUB_ADDR, err) < 0)
		return -1;
	l->proxy =
	    bind_one(SOCK_STREAM, EGRESS_PROXY_ADDR, EGRESS_PROXY_PORT, err);
	if (l->proxy < 0)
		return -1;
	l->dns = bind_one(SOCK_DGRAM, EGRESS_DNS_ADDR, EGRESS_DNS_PORT, err);
	if (l->dns < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int fd = bind_one(SOCK_STREAM, DNS_STUB_ADDR, ports[i], err);

		if (fd < 0)
			return -1;
		l->transparent[l->n_transparent++] =
		    (struct egress_listener){fd, ports[i]};
	}
	return 0;
}

struct listen_args {
	const struct helper_fds *f;
	const struct egress_proxy *p;
	struct egress_listeners *l;
	struct error *err;
	int r;
};

static void *listen_run(void *arg)
{
	struct listen_args *a = arg;

	a->r = listen_inside(a->f, a->p, a->l, &a->err);
	return NULL;
}

/* Whether this thread is in the network namespace FD names already
 * (`corral sandbox` asks for corral's own by its path): entering it again
 * would need CAP_SYS_ADMIN over its owner, which an ordinary user's
 * helper lacks for the host's. */
static bool in_netns(int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 &&
	       stat("/proc/thread-self/ns/net", &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The network namespace is a thread's own: this thread enters the
 * init's, makes the sockets there and ends, and the helper never leaves
 * the namespace it dials from.  An ordinary user's helper could not come
 * back to the host's, which its user namespace does not own. */
static int listen_thread(const struct helper_fds *f,
			 const struct egress_proxy *p,
			 struct egress_listeners *l, struct error **err)
{
	struct listen_args a = {.f = f, .p = p, .l = l, .r = -1};
	pthread_t t;
	int e;

	if (f->dial >= 0 && !in_netns(f->dial) &&
	    setns(f->dial, CLONE_NEWNET) < 0)
		return error_errno(err, "enter the network namespace to dial "
					"from");
	e = pthread_create(&t, NULL, listen_run, &a);
	if (e != 0) {
		errno = e;
		return error_errno(err, "start the listeners' thread");
	}
	pthread_join(t, NULL);
	if (a.r < 0) {
		*err = a.err;
		return -1;
	}
	return 0;
}

/* The bounding set goes first, while CAP_SETPCAP allows it; the
 * effective set the namespace steps need is left as it is. */
static int drop_bounding_set(struct error **err)
{
	for (int cap = 0;; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap) == 0)
			continue;
		if (errno == EINVAL) /* past the last the kernel knows */
			return 0;
		return error_errno(err, "drop capability %d", cap);
	}
}

/* Nothing of root is left: no capability in any set, nobody's ids and no
 * groups, and no way back through an exec (no_new_privs; the filter has
 * no execve anyway).  Not dumpable: another process of uid nobody on the
 * host cannot ptrace it or read its memory.  An ordinary user's helper
 * under a single mapping keeps the user's groups, which the kernel lets
 * no process of that namespace drop: they are the user's own anyway. */
static int drop_privileges(struct error **err)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {{0}};
	const uid_t id = EGRESS_HELPER_UID;

	if (setgroups(0, NULL) < 0) {
		int e = errno; /* the check below reads a file */

		if (e != EPERM || !rootless_setgroups_denied()) {
			errno = e;
			return error_errno(err, "drop supplementary groups");
		}
	}
	if (setresgid(id, id, id) < 0 || setresuid(id, id, id) < 0)
		return error_errno(err, "become uid %u", id);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ||
	    syscall(SYS_capset, &hdr, data) < 0)
		return error_errno(err, "clear capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return error_errno(err, "no_new_privs");
	return 0;
}

/* Steps 1 to 3: everything that needs neither the init's network
 * namespace nor its lo. */
static int helper_prepare(const struct egress_start *s, struct helper_fds *f,
			  struct egress_proxy *p, struct error **err)
{
	struct egress_resolver *res = NULL;
	struct egress_rule *rules = NULL;

	reset_signals();
	prctl(PR_SET_NAME, "corral-egress", 0, 0, 0); /* in ps, top */
	if (close_others(f, err) < 0)
		return error_wrap(err, "egress helper");
	if (setsid() < 0)
		return error_errno(err, "egress helper: setsid");
	/* fds 0-2 on /dev/null, so that nothing a library writes to stderr
	 * lands in a client's socket */
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue; /* one of the eight, if create had no stdio */
		/* the lowest free number: fd, the ones below being taken */
		if (open("/dev/null", O_RDWR | O_NOCTTY) != fd)
			return error_errno(err, "egress helper: /dev/null");
	}
	if (s->cgroup && cgroup_enter_self(s->cgroup, f->in_cgroup2, err) < 0)
		return error_wrap(err, "egress helper: cgroup");
	if (egress_resolver_load(f->hosts, f->resolv, &res, err) < 0 ||
	    egress_rules_parse(s->sandbox->egress, s->sandbox->n_egress,
			       egress_public_suffix, &rules, err) < 0 ||
	    drop_bounding_set(err) < 0)
		return error_wrap(err, "egress helper");
	closep(&f->hosts);
	closep(&f->resolv);
	egress_proxy_defaults(p);
	p->rules = rules;
	p->n_rules = s->sandbox->n_egress;
	p->container_id = s->id;
	p->log_fd = f->log;
	p->resolver = res;
	p->stop_fd = f->init;
	if (map_counts(f, p, err) < 0 ||
	    egress_cache_make(&p->cache, err) < 0 || conn_image(err) < 0)
		return error_wrap(err, "egress helper");
	return 0;
}

/* Steps 5 and 6, once the init's lo is up. */
static int helper_enter(struct helper_fds *f, const struct egress_proxy *p,
			struct egress_listeners *l, struct error **err)
{
	if (listen_thread(f, p, l, err) < 0)
		return error_wrap(err, "egress helper");
	closep(&f->netns);
	closep(&f->dial);
	if (drop_privileges(err) < 0 || egress_proxy_seccomp(err) < 0)
		return error_wrap(err, "egress helper");
	return 0;
}

/* The init's one byte, written when its lo is up, with its network
 * namespace (runtime/lifecycle/init.c says why not through its pidfd); anything
 * else (the init gone, or it exec'd the stage without writing) ends the
 * helper, and create reads at READY that it ended during setup. */
static bool wait_lo_up(int fd, int *netns)
{
	char c;

	return recv_with_fd(fd, &c, 1, netns) == 1;
}

/* The helper process: its setup's error goes to create over the pipe;
 * after "ready" it only serves. */
static _Noreturn void helper_main(const struct egress_start *s,
				  struct helper_fds *f)
{
	struct error *err = NULL;
	struct egress_proxy p;
	struct egress_listeners l = {.proxy = -1, .dns = -1};
	int r = helper_prepare(s, f, &p, &err);

	if (!wait_lo_up(f->lo_up, &f->netns))
		_exit(1);
	closep(&f->lo_up);
	if (r < 0 || helper_enter(f, &p, &l, &err) < 0) {
		ssize_t w = write(f->ready, err->msg, strlen(err->msg));

		(void)w;
		_exit(1);
	}
	if (write(f->ready, "", 1) != 1)
		_exit(1);
	closep(&f->ready);
	_exit(egress_proxy_serve(&l, &p, &err) < 0 ? 1 : 0);
}

/* ---- create's side --------------------------------------------------- */

/* The helper's one byte, or its error message; it must come within
 * READY_TIMEOUT_MS. */
static int wait_ready(int fd, struct error **err)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	char msg[512];
	ssize_t n;
	int r;

	do
		r = poll(&pfd, 1, READY_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return error_set(err, ETIMEDOUT,
				 "egress helper: not ready after %d ms",
				 READY_TIMEOUT_MS);
	n = read(fd, msg, sizeof(msg) - 1);
	if (n == 1 && msg[0] == '\0')
		return 0;
	if (n <= 0)
		return error_set(err, EIO,
				 "egress helper: exited during setup");
	msg[n] = '\0';
	return error_set(err, EIO, "%s", msg);
}

/* The counters' record, made here as root with its header: the helper
 * only maps it, and the report reads nothing it did not find there. */
static int make_counts(int dirfd, struct error **err)
{
	struct egress_counts c = {.magic = EGRESS_COUNTS_MAGIC,
				  .size = sizeof(c)};
	_cleanup_close_ int fd =
	    openat(dirfd, EGRESS_COUNTS_FILE,
		   O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0 || pwrite(fd, &c, sizeof(c), 0) != (ssize_t)sizeof(c))
		return error_errno(err, "egress: %s", EGRESS_COUNTS_FILE);
	return take_fd(&fd);
}

static int write_pid(int dirfd, pid_t pid, struct error **err)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);

	return write_file_atomic_at(dirfd, EGRESS_PID_FILE, buf, (size_t)n,
				    0600, err);
}

static void helper_fds_close(struct helper_fds *f)
{
	closep(&f->init);
	closep(&f->dial);
	closep(&f->log);
	closep(&f->counts);
	closep(&f->hosts);
	closep(&f->resolv);
	closep(&f->ready);
}

int egress_helper_fork(const struct egress_start *s, struct egress_helper *h,
		       struct error **err)
{
	struct helper_fds f = {false, -1, -1, -1, -1, -1, -1, -1, -1, -1};
	int ready[2] = {-1, -1};
	_cleanup_close_ int cgroup_fd = -1;
	int r = -1;

	*h = (struct egress_helper){.pid = -1, .ready = -1};
	f.init = (int)syscall(SYS_pidfd_open, s->init, 0);
	if (f.init < 0) {
		error_errno(err, "egress: pidfd of the init");
		goto out;
	}
	if ((s->sandbox->engine_netns &&
	     (f.dial = open_dial_netns(s, err)) < 0) ||
	    open_host_file("/etc/hosts", &f.hosts, err) < 0 ||
	    open_host_file("/etc/resolv.conf", &f.resolv, err) < 0)
		goto out;
	/* The log is opened here, as root, and written by nobody through
	 * this descriptor only. */
	f.log = openat(s->dirfd, EGRESS_LOG_FILE,
		       O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW |
			   O_CLOEXEC,
		       0600);
	if (f.log < 0) {
		error_errno(err, "egress: %s", EGRESS_LOG_FILE);
		goto out;
	}
	if ((f.counts = make_counts(s->dirfd, err)) < 0)
		goto out;
	if (pipe2(ready, O_CLOEXEC) < 0) {
		error_errno(err, "egress: pipe");
		goto out;
	}
	/* Started in the cgroup2 directory, as the init is (ns_clone): a
	 * write of its pid to cgroup.procs would take the cgroup threadgroup
	 * lock for writing and wait for an RCU grace period, several ms on
	 * a busy host, all of it on the way to READY. */
	if (s->cgroup)
		cgroup_fd = cgroup_clone_fd(s->cgroup);
	h->pid = ns_clone(0, cgroup_fd, &f.in_cgroup2);
	if (h->pid < 0) {
		error_errno(err, "egress: fork the helper");
		goto out;
	}
	if (h->pid == 0) {
		close(ready[0]);
		f.lo_up = s->lo_up;
		f.ready = ready[1];
		helper_main(s, &f);
	}
	h->ready = take_fd(&ready[0]);
	/* written now, while the init sets up, rather than at READY; a
	 * create that fails after removes the state directory with it */
	r = write_pid(s->dirfd, h->pid, err);
out:
	closep(&ready[0]);
	closep(&ready[1]);
	helper_fds_close(&f);
	return r;
}

int egress_helper_ready(struct egress_helper *h, struct error **err)
{
	if (wait_ready(h->ready, err) < 0)
		return -1;
	closep(&h->ready);
	return 0;
}

void egress_helper_stop(struct egress_helper *h)
{
	if (h->pid > 0) {
		kill(h->pid, SIGKILL);
		waitpid(h->pid, NULL, 0);
	}
	h->pid = -1;
	closep(&h->ready);
}
