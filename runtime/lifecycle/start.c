/* start: a created container's init released through its exec fifo,
 * and the poststart hooks; its two halves for run (container.h). */
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "container_dir.h"
#include "fsutil.h"
#include "hooks.h"
#include "log.h"
#include "spec.h"
#include "state.h"
#include "util.h"

/* poststart and poststop hooks: a failure is a warning, and the remaining
 * hooks still run (runtime-spec, "Lifecycle"). */
void container_hooks_warn(const struct container_dir *dir,
			  struct spec_state *st, enum spec_hook_kind kind)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL;
	struct spec *spec = NULL;

	if (st->hooks_known && !(st->hooks & (1U << kind)))
		return;
	if (container_dir_load_config(dir, &spec, &err) < 0 ||
	    spec_state_emit(st, STATE_PUBLIC, &json, &err) < 0) {
		log_warn("%s hooks: %s", spec_hook_kind_names[kind], err->msg);
		spec_free(spec);
		return;
	}
	for (size_t i = 0; i < spec->hooks[kind].n; i++) {
		struct spec_hook_list one = {&spec->hooks[kind].hooks[i], 1};

		if (hooks_run(&one, kind, json, st->permissive, &err) < 0) {
			log_warn("%s", err->msg);
			error_free(err);
			err = NULL;
		}
	}
	spec_free(spec);
}

/* Wait for init's answer on the exec fifo: "0" once the startContainer
 * hooks ran, "1" and the error when one failed; nothing when init died.
 * A reader of a FIFO sees EOF before any writer came, so read only once
 * poll says data is there, then until the writer closes. */
static int read_start_reply(int fifo, int pidfd, char *buf, size_t size)
{
	struct pollfd p[2] = {{.fd = fifo, .events = POLLIN},
			      {.fd = pidfd, .events = POLLIN}};
	size_t len = 0;

	for (;;) {
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!(p[0].revents & (POLLIN | POLLHUP)))
			break; /* init exited without a word */
		n = read(fifo, buf + len, size - 1 - len);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0 || (len += (size_t)n) == size - 1)
			break;
	}
	buf[len] = '\0';
	return (int)len;
}

int container_start_open(const struct container_dir *dir,
			 const struct spec_state *st, struct start_fds *s,
			 struct error **err)
{
	/* The pidfd first: opening the fifo releases init, and a short
	 * workload can be done and reaped (by conmon, a subreaper) before
	 * pidfd_open would run. */
	s->pidfd = container_init_pidfd(st, err);
	if (s->pidfd < 0)
		return -1;
	s->fifo =
	    openat(dir->dirfd, FIFO_FILE, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->fifo < 0) {
		closep(&s->pidfd);
		return error_errno(err, "open exec fifo");
	}
	return 0;
}

int container_start_opened(const struct container_dir *dir,
			   struct spec_state *st, struct start_fds *s,
			   struct error **err)
{
	_cleanup_close_ int fifo = take_fd(&s->fifo);
	_cleanup_close_ int pidfd = take_fd(&s->pidfd);
	char reply[4096];

	if (read_start_reply(fifo, pidfd, reply, sizeof(reply)) <= 0)
		return error_set(
		    err, ESRCH,
		    "cannot start container %s: its init process exited",
		    st->id);
	unlinkat(dir->dirfd, FIFO_FILE, 0);
	if (reply[0] != '0')
		return error_set(err, EIO, "start %s: %s", st->id, reply + 1);
	log_debug("started %s: pid %d", st->id, st->pid);
	st->status = container_status_name(CONTAINER_RUNNING);
	container_hooks_warn(dir, st, HOOK_POSTSTART);
	return 0;
}

/* Release a created container's init through its exec fifo, then run
 * the poststart hooks; the caller holds the directory's lock. */
int container_start_created(const struct container_dir *dir,
			    struct spec_state *st, struct error **err)
{
	struct start_fds s = START_FDS_INIT;

	if (container_start_open(dir, st, &s, err) < 0)
		return -1;
	return container_start_opened(dir, st, &s, err);
}

int container_start(const char *root, const char *id, struct error **err)
{
	struct container c;
	int r = -1;

	if (container_open(root, id, &c, err) < 0)
		return -1;
	if (c.status != CONTAINER_CREATED)
		error_set(err, EINVAL, "cannot start container %s: it is %s",
			  id, container_status_name(c.status));
	else
		r = container_start_created(&c.dir, c.state, err);
	container_close(&c);
	return r;
}
