/* corral-egress-conn: the program one connection of the egress proxy runs
 * (runtime/egress/egress_child.h).  Its broker executes it from the memfd the
 * helper made, with the workload's connection, the broker's socket and
 * the init's pidfd as descriptors 3, 4 and 5 and its limits as arguments;
 * the environment is empty.  It loads its own seccomp filter (no socket,
 * connect, bind, exec, open ...: egress_conn in
 * runtime/egress/egress_seccomp.c) before it reads a byte of the workload's,
 * then handles the connection (egress/conn.c), asking the broker for the
 * upstream (egress/broker.c). Started any other way it finds no broker and
 * exits 127 having done nothing.
 *
 * It is not dumpable from its start: the memfd is execute-only (0111), and
 * the kernel marks a process that runs an image it may not read
 * non-dumpable at the exec. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "egress_child.h"
#include "egress_conn.h"
#include "seccomp_prebuilt.h"

static long number(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || end == s || v < 0 || v > max ? -1 : v;
}

static int load_filter(void)
{
	struct sock_fprog prog = {
	    .len = seccomp_prebuilt_egress_conn.len,
	    .filter = (struct sock_filter *)seccomp_prebuilt_egress_conn.filter,
	};

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int main(int argc, char **argv)
{
	struct egress_proxy p = {.log_fd = -1, .stop_fd = EGRESS_CHILD_STOP_FD};
	long v[EGRESS_CHILD_ARGC];
	int type = 0;
	socklen_t len = sizeof(type);

	if (argc != EGRESS_CHILD_ARGC)
		return 127;
	for (int i = 1; i < EGRESS_CHILD_ARGC; i++)
		if ((v[i] = number(argv[i], INT_MAX)) < 0)
			return 127;
	/* a broker's socket, or nothing to do */
	if (getsockopt(EGRESS_CHILD_BROKER_FD, SOL_SOCKET, SO_TYPE, &type,
		       &len) < 0 ||
	    type != SOCK_SEQPACKET || v[1] > 65535)
		return 127;
	if (load_filter() < 0)
		return 1;
	p.head_max = (size_t)v[2];
	p.head_ms = (int)v[3];
	p.hello_ms = (int)v[4];
	p.idle_ms = (int)v[5];
	egress_conn_handle(EGRESS_CHILD_CLIENT_FD, (uint16_t)v[1], &p);
	return 0;
}
