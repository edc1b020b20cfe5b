#include "console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "fsutil.h"
#include "hostpath.h"
#include "util.h"

/* The socket is found once, without following a link, must be a socket,
 * and is connected to through that very inode (/proc/self/fd/N): the
 * pty master goes to whoever listens there, so a link swapped in could
 * send it elsewhere. */
int console_connect(const char *path, struct error **err)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	_cleanup_close_ int node = -1;
	char p[FD_PATH_MAX];
	struct stat st;
	int fd;

	node = path[0] == '/'
		   ? hostpath_open(path, O_PATH, "console socket", err)
		   : hostpath_open_at(AT_FDCWD, ".", path, false, O_PATH,
				      "console socket", err);
	if (node < 0)
		return -1;
	if (fstat(node, &st) < 0 || !S_ISSOCK(st.st_mode))
		return error_set(err, ENOTSOCK,
				 "console socket %s: not a socket", path);
	fd_path(node, p);
	memcpy(addr.sun_path, p, strlen(p) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error_errno(err, "console socket %s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		error_errno(err, "console socket %s", path);
		close(fd);
		return -1;
	}
	return fd;
}

static int send_fd(int sock, int fd, struct error **err)
{
	static const char name[] = "/dev/ptmx";

	if (send_with_fd(sock, name, sizeof(name) - 1, fd) < 0)
		return error_errno(err,
				   "send the console to the console socket");
	return 0;
}

/* The size the pty starts with: the caller's terminal's when relayed,
 * else config.json's consoleSize, else the kernel's 0x0. */
static int set_size(int master, const struct spec_process *process,
		    const struct console_shape *shape, struct error **err)
{
	struct winsize ws = {
	    .ws_row = (unsigned short)process->console_height,
	    .ws_col = (unsigned short)process->console_width,
	};

	if (shape)
		ws = shape->size;
	else if (!process->has_console_size)
		return 0;
	if (ioctl(master, TIOCSWINSZ, &ws) < 0)
		return error_errno(err, "set console size");
	return 0;
}

int console_setup(int sock, const struct spec_process *process,
		  const struct console_shape *shape, struct error **err)
{
	_cleanup_close_ int master = -1, slave = -1;

	master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return error_errno(err, "open /dev/ptmx");
	if (unlockpt(master) < 0)
		return error_errno(err, "unlock pty");
	/* TIOCGPTPEER opens the peer without a path lookup. */
	slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return error_errno(err, "open pty peer");
	if (shape && tcsetattr(slave, TCSANOW, &shape->modes) < 0)
		return error_errno(err, "set console modes");
	if (set_size(master, process, shape, err) < 0)
		return -1;
	if (fchown(slave, process->user.uid, (gid_t)-1) < 0)
		return error_errno(err, "chown pty");
	if (send_fd(sock, master, err) < 0)
		return -1;
	if ((!shape || shape->ctty) && ioctl(slave, TIOCSCTTY, 0) < 0)
		return error_errno(err, "set controlling terminal");
	for (int fd = 0; fd < 3; fd++)
		if ((!shape || (shape->fds & (1u << fd))) &&
		    dup2(slave, fd) < 0)
			return error_errno(err, "dup pty to fd %d", fd);
	return 0;
}
