#include "netns.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util.h"

int netns_loopback_up(struct error **err)
{
	_cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;

	if (fd < 0)
		return error_errno(err, "bring up lo: socket");
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return error_errno(err, "bring up lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return error_errno(err, "bring up lo");
	return 0;
}

/* One RTM_NEWADDR, acknowledged: the kernel's answer is an NLMSG_ERROR
 * whose error is 0 on success. */
int netns_add_loopback_addr(const char *addr, struct error **err)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
		struct rtattr local;
		unsigned char local_addr[4];
		struct rtattr address;
		unsigned char address_addr[4];
	} req;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	union {
		struct nlmsghdr nh;
		char buf[512];
	} ack;
	_cleanup_close_ int fd = -1;
	unsigned idx = if_nametoindex("lo");
	ssize_t n;

	memset(&req, 0, sizeof(req));
	if (idx == 0)
		return error_errno(err, "add %s to lo: no lo", addr);
	if (inet_pton(AF_INET, addr, req.local_addr) != 1)
		return error_set(err, EINVAL, "add %s to lo: not an address",
				 addr);
	memcpy(req.address_addr, req.local_addr, 4);
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_NEWADDR;
	req.nh.nlmsg_flags =
	    NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	req.nh.nlmsg_seq = 1;
	req.ifa.ifa_family = AF_INET;
	req.ifa.ifa_prefixlen = 32;
	req.ifa.ifa_scope = RT_SCOPE_HOST;
	req.ifa.ifa_index = idx;
	req.local.rta_type = IFA_LOCAL;
	req.local.rta_len = RTA_LENGTH(4);
	req.address.rta_type = IFA_ADDRESS;
	req.address.rta_len = RTA_LENGTH(4);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return error_errno(err, "add %s to lo: netlink socket", addr);
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) != (ssize_t)sizeof(req))
		return error_errno(err, "add %s to lo: netlink send", addr);
	do
		n = recv(fd, &ack, sizeof(ack), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return error_errno(err, "add %s to lo: netlink receive", addr);
	if ((size_t)n < NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    ack.nh.nlmsg_type != NLMSG_ERROR)
		return error_set(err, EPROTO,
				 "add %s to lo: no acknowledgement", addr);
	errno = -((struct nlmsgerr *)NLMSG_DATA(&ack.nh))->error;
	if (errno)
		return error_errno(err, "add %s to lo", addr);
	return 0;
}

/* ---- namespace paths ------------------------------------------------ */

static const char *ns_kind(int nstype)
{
	switch (nstype) {
	case CLONE_NEWNET:
		return "network";
	case CLONE_NEWPID:
		return "pid";
	case CLONE_NEWIPC:
		return "ipc";
	case CLONE_NEWUTS:
		return "uts";
	case CLONE_NEWNS:
		return "mount";
	case CLONE_NEWUSER:
		return "user";
	case CLONE_NEWCGROUP:
		return "cgroup";
	default:
		return "time";
	}
}

int ns_open_path(const char *path, int nstype, struct error **err)
{
	_cleanup_close_ int lookup = -1, fd = -1;
	struct statfs fs;
	struct stat a, b;
	char self[64];

	/* O_PATH: no open of the object itself, whatever it is */
	lookup = open(path, O_PATH | O_CLOEXEC);
	if (lookup < 0 || fstatfs(lookup, &fs) < 0 || fs.f_type != NSFS_MAGIC ||
	    fstat(lookup, &a) < 0)
		goto not_ns;
	/* an nsfs inode: opening it reads nothing and runs no driver */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", lookup);
	fd = open(self, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino || ioctl(fd, NS_GET_NSTYPE) != nstype)
		goto not_ns;
	return take_fd(&fd);
not_ns:
	return error_set(err, EINVAL, "%s: not a %s namespace", path,
			 ns_kind(nstype));
}

/* Whether the task dir (/proc/PID/task) holds a task in `want`. */
static bool tasks_in(int taskdir, const struct stat *want)
{
	DIR *d = fdopendir(taskdir);
	struct dirent *e;
	bool found = false;

	if (!d) {
		close(taskdir);
		return false;
	}
	while (!found && (e = readdir(d))) {
		char rel[300];
		struct stat st;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(rel, sizeof(rel), "%s/ns/net", e->d_name);
		found = fstatat(dirfd(d), rel, &st, 0) == 0 &&
			st.st_dev == want->st_dev && st.st_ino == want->st_ino;
	}
	closedir(d);
	return found;
}

bool netns_has_tasks(int fd)
{
	struct stat want;
	struct dirent *e;
	bool found = false;
	DIR *proc;

	if (fstat(fd, &want) < 0)
		return true; /* cannot tell: in use */
	proc = opendir("/proc");
	if (!proc)
		return true;
	while (!found && (e = readdir(proc))) {
		char rel[300];
		int t;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(rel, sizeof(rel), "%s/task", e->d_name);
		t = openat(dirfd(proc), rel,
			   O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t >= 0)
			found = tasks_in(t, &want);
	}
	closedir(proc);
	return found;
}
