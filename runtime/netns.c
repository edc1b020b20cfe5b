#include "netns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
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
