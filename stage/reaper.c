/* The supervisor's kill of its own cgroup (reaper.h).  It runs under the
 * supervisor's seccomp filter, without capabilities, as the workload's
 * user, so it only reads the fds corral opened for it, opens pidfds and
 * sends signals; memory is fixed arrays, not the heap.  The cgroup cannot
 * be frozen first, as `delete` does: the supervisor is in it and would
 * freeze itself.  Instead it lists and kills until the list is empty;
 * what a dying process forks in between is in the next listing. */
#include "reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

#define BATCH 256	     /* pids pinned at once */
#define KILL_TIMEOUT_MS 5000 /* as long as delete waits */
#define NO_PIDFD (-2)	     /* the kernel has no pidfd_open (< 5.3) */

/* One listing of cgroup.procs, read in chunks: each pid but the caller's
 * goes to fn(ctx, pid); false when the file cannot be read. */
static bool for_each_pid(const struct reaper *r, void (*fn)(void *, pid_t),
			 void *ctx)
{
	_cleanup_close_ int reopened = -1;
	char buf[4096];
	pid_t self = getpid();
	long pid = 0;
	bool digits = false;
	off_t off = 0;
	int fd = r->procs_fd;

	if (r->reopen) {
		char path[FD_PATH_MAX];

		fd_path(r->procs_fd, path);
		/* openat, which the filter allows: musl's open() is
		 * open(2) */
		fd = reopened = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
	}
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		for (ssize_t i = 0; i <= n; i++) {
			bool end = i == n;

			if (!end && buf[i] >= '0' && buf[i] <= '9') {
				pid = pid * 10 + (buf[i] - '0');
				digits = pid <= 0x7fffffff;
				continue;
			}
			if (end && n > 0)
				break; /* a pid may go on in the next chunk */
			if (digits && pid > 0 && pid != self)
				fn(ctx, (pid_t)pid);
			pid = 0;
			digits = false;
		}
		if (n == 0)
			return true;
		off += n;
	}
}

struct batch {
	pid_t pid[BATCH];
	int pidfd[BATCH];
	bool listed[BATCH];
	size_t n;
	size_t seen; /* pids of the listing so far */
	size_t skip; /* the first `skip` pids belong to earlier batches */
};

/* Collect the next batch of pids and pin each with a pidfd. */
static void collect(void *ctx, pid_t pid)
{
	struct batch *b = ctx;

	if (b->seen++ < b->skip || b->n == BATCH)
		return;
	b->pid[b->n] = pid;
	b->pidfd[b->n] = pidfd_open_(pid);
	if (b->pidfd[b->n] < 0 && errno == ENOSYS)
		b->pidfd[b->n] = NO_PIDFD;
	b->listed[b->n] = false;
	b->n++;
}

static void mark(void *ctx, pid_t pid)
{
	struct batch *b = ctx;

	for (size_t i = 0; i < b->n; i++)
		if (b->pid[i] == pid)
			b->listed[i] = true;
}

/* Signal the batch's pids that the second listing still shows: a pidfd
 * taken before it, for a pid in it, is a process of the cgroup. */
static void kill_batch(const struct reaper *r, struct batch *b)
{
	bool relisted = for_each_pid(r, mark, b);

	for (size_t i = 0; i < b->n; i++) {
		if (relisted && b->listed[i] && b->pidfd[i] >= 0)
			pidfd_send_signal_(b->pidfd[i], SIGKILL);
		else if (relisted && b->listed[i] && b->pidfd[i] == NO_PIDFD)
			kill(b->pid[i], SIGKILL); /* the best a 5.2 can do */
		if (b->pidfd[i] >= 0)
			close(b->pidfd[i]);
	}
}

/* One round over the whole listing, a batch at a time; the number of
 * other processes it saw. */
static size_t kill_round(const struct reaper *r)
{
	static struct batch b;
	size_t total = 0;

	for (size_t skip = 0;; skip += BATCH) {
		b.n = 0;
		b.seen = 0;
		b.skip = skip;
		if (!for_each_pid(r, collect, &b))
			return 0;
		total = b.seen;
		if (b.n == 0)
			return total;
		kill_batch(r, &b);
		if (b.seen <= skip + BATCH)
			return total;
	}
}

void reaper_kill_others(const struct reaper *r)
{
	struct timespec pause = {0, 2 * 1000 * 1000};

	for (int waited = 0; waited < KILL_TIMEOUT_MS; waited += 2) {
		if (kill_round(r) == 0)
			return;
		nanosleep(&pause, NULL);
	}
}

void reaper_kill_all(const struct reaper *r)
{
	if (r->kill_fd < 0 || write(r->kill_fd, "1", 1) != 1)
		reaper_kill_others(r);
}
