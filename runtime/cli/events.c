/* events: runc's event stream for a container, one JSON object a line.
 * `--stats` prints one {"type":"stats",...} and returns; otherwise a
 * stats object comes every interval, an {"type":"oom","id":ID} as soon
 * as the cgroup's OOM-kill count grows (checked every OOM_POLL_MS), and
 * with the egress proxy each of its decisions, from the first, as
 * {"type":"egress","id":ID,"data":{...the egress.log line...}}, until the
 * container's init exits.
 *
 * The container's lock is held only to read its state: a stream that
 * lasts as long as the container must not block the commands on it.
 * Its init is pinned with a pidfd (checked against the recorded start
 * time), so the end of the stream is the end of that process. */
#include "cgroup_commands.h"
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "json.h"
#include "report_gather.h"
#include "state.h"
#include "util.h"

#define OOM_POLL_MS 100
#define EGRESS_LINE_MAX 8192 /* the proxy writes lines of 4 KiB at most */
#define EGRESS_DEPTH 4	     /* its lines nest no deeper */

/* The proxy's log, read as it grows.  It is written by the proxy's
 * process (uid nobody, handling the workload's requests): each line is
 * parsed and written again, never copied, so no line can be more than
 * one well-formed event. */
struct egress_tail {
	int fd; /* -1: no proxy */
	char buf[EGRESS_LINE_MAX];
	size_t len;
	bool skipping; /* within a line longer than buf: dropped */
};

static void cgroup_freep(struct cgroup **cg)
{
	cgroup_free(*cg);
}

static int emit_stats(const struct cgroup *cg, const char *id, event_sink sink,
		      void *ctx, struct error **err)
{
	struct cgroup_stats s;
	_cleanup_free_ char *json = NULL;
	int r;

	if (cgroup_stats_read(cg, &s, err) < 0)
		return error_wrap(err, "events %s", id);
	r = cgroup_stats_emit(id, &s, &json, err);
	cgroup_stats_clear(&s);
	if (r < 0)
		return -1;
	return sink(json, ctx) < 0 ? error_errno(err, "events %s: write", id)
				   : 0;
}

static int emit_oom(const char *id, event_sink sink, void *ctx,
		    struct error **err)
{
	yajl_gen g = json_gen_new(0);
	_cleanup_free_ char *json = NULL;

	if (!g)
		return error_set(err, ENOMEM, "events: out of memory");
	yajl_gen_map_open(g);
	json_key_str(g, "type", "oom");
	json_key_str(g, "id", id);
	yajl_gen_map_close(g);
	if (json_gen_finish(g, &json, NULL, err) < 0)
		return -1;
	return sink(json, ctx) < 0 ? error_errno(err, "events %s: write", id)
				   : 0;
}

static int emit_egress(const char *line, const char *id, event_sink sink,
		       void *ctx, struct error **err)
{
	yajl_val v = yajl_tree_parse(line, NULL, 0);
	_cleanup_free_ char *json = NULL;
	yajl_gen g;
	bool ok;

	if (!YAJL_IS_OBJECT(v)) {
		yajl_tree_free(v);
		return 0; /* not a decision: skipped */
	}
	if (!(g = json_gen_new(0))) {
		yajl_tree_free(v);
		return error_set(err, ENOMEM, "events: out of memory");
	}
	yajl_gen_map_open(g);
	json_key_str(g, "type", "egress");
	json_key_str(g, "id", id);
	json_str(g, "data");
	ok = json_value(g, v, EGRESS_DEPTH);
	yajl_tree_free(v);
	if (!ok) {
		yajl_gen_free(g);
		return 0;
	}
	yajl_gen_map_close(g);
	if (json_gen_finish(g, &json, NULL, err) < 0)
		return -1;
	return sink(json, ctx) < 0 ? error_errno(err, "events %s: write", id)
				   : 0;
}

static void tail_open(int dirfd, struct egress_tail *t)
{
	struct stat st;

	t->len = 0;
	t->skipping = false;
	t->fd = openat(dirfd, EGRESS_LOG_FILE,
		       O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (t->fd >= 0 && (fstat(t->fd, &st) < 0 || !S_ISREG(st.st_mode)))
		closep(&t->fd);
}

/* Every complete line the log has gained. */
static int tail_read(struct egress_tail *t, const char *id, event_sink sink,
		     void *ctx, struct error **err)
{
	while (t->fd >= 0) {
		ssize_t n =
		    read(t->fd, t->buf + t->len, sizeof(t->buf) - t->len);
		size_t start = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		t->len += (size_t)n;
		for (size_t i = 0; i < t->len; i++) {
			if (t->buf[i] != '\n')
				continue;
			t->buf[i] = '\0';
			if (!t->skipping &&
			    emit_egress(t->buf + start, id, sink, ctx, err) < 0)
				return -1;
			t->skipping = false;
			start = i + 1;
		}
		memmove(t->buf, t->buf + start, t->len - start);
		t->len -= start;
		if (t->len == sizeof(t->buf)) {
			t->skipping = true;
			t->len = 0;
		}
	}
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The init of the container, or -1 when it is gone (stopped). */
static int pin_init(const struct spec_state *st)
{
	int fd = pidfd_open_(st->pid);
	uint64_t start;
	char state;

	if (fd >= 0 && (proc_stat(st->pid, &start, &state) < 0 ||
			start != st->start_time)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether the pinned init has exited (then a delete may have removed the
 * cgroup under the stream: that is its end, not an error). */
static bool exited(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return poll(&p, 1, 0) > 0;
}

/* Report new OOM kills; *seen is the count already reported. */
static int check_oom(const struct cgroup *cg, const char *id, uint64_t *seen,
		     event_sink sink, void *ctx, struct error **err)
{
	_cleanup_error_ struct error *e = NULL;
	uint64_t kills = 0;

	if (cgroup_oom_kills(cg, &kills, &e) < 0 || kills <= *seen)
		return 0; /* a cgroup that is gone has no news */
	*seen = kills;
	return emit_oom(id, sink, ctx, err);
}

static int stream(const struct cgroup *cg, const char *id, int pidfd,
		  struct egress_tail *tail, unsigned interval_ms,
		  event_sink sink, void *ctx, struct error **err)
{
	_cleanup_error_ struct error *e = NULL;
	uint64_t seen = 0;
	long next = now_ms();

	cgroup_oom_kills(cg, &seen, &e);
	for (;;) {
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		long left;
		int r;

		if (now_ms() >= next) {
			if (emit_stats(cg, id, sink, ctx, err) < 0)
				return exited(pidfd) ? 0 : -1;
			next += interval_ms;
		}
		left = next - now_ms();
		r = poll(&p, 1,
			 left < 0	      ? 0
			 : left < OOM_POLL_MS ? (int)left
					      : OOM_POLL_MS);
		if (r < 0 && errno != EINTR)
			return error_errno(err, "events %s: poll", id);
		/* the kill that ended the container is reported too, and the
		 * proxy's last decisions */
		if (check_oom(cg, id, &seen, sink, ctx, err) < 0 ||
		    tail_read(tail, id, sink, ctx, err) < 0)
			return -1;
		if (r > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)))
			return 0;
	}
}

int container_events(const char *root, const char *id, bool stats_only,
		     unsigned interval_ms, event_sink sink, void *ctx,
		     struct error **err)
{
	_cleanup_(cgroup_freep) struct cgroup *cg = NULL;
	_cleanup_close_ int pidfd = -1;
	_cleanup_free_ struct egress_tail *tail = calloc(1, sizeof(*tail));
	struct container c;
	int r = 0;

	if (!tail)
		return error_set(err, ENOMEM, "events: out of memory");

	if (container_open(root, id, &c, err) < 0)
		return error_wrap(err, "events");
	if (c.status == CONTAINER_STOPPED)
		r = error_set(err, EINVAL,
			      "events %s: the container is stopped", id);
	else if (!container_cgroup(&c, "events", err))
		r = -1;
	else if (stats_only)
		r = emit_stats(c.cgroup, id, sink, ctx, err);
	else if ((pidfd = pin_init(c.state)) < 0)
		r = error_set(err, ESRCH, "events %s: the container is stopped",
			      id);
	tail_open(c.dir.dirfd, tail);
	cg = steal_pointer(&c.cgroup);
	container_close(&c);
	if (r == 0 && !stats_only)
		r = stream(cg, id, pidfd, tail, interval_ms ? interval_ms : 1,
			   sink, ctx, err);
	closep(&tail->fd);
	return r;
}
