/* `corral report`: each section from its own record (report_gather.h). */
#include "report_gather.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_fs.h"
#include "egress_counts.h"
#include "fsutil.h"
#include "harden.h"
#include "hostpath.h"
#include "log.h"
#include "policy.h"
#include "policy_file.h"
#include "report.h"
#include "report_files.h"
#include "util.h"

/* Records are corral's own, but bounded all the same; the egress log is
 * capped by its writer at 8 MiB (runtime/egress/egress_proxy.c). */
#define RECORD_MAX (1 << 20)
#define EGRESS_LOG_MAX (9 << 20)

int report_open_outcome(const struct container_dir *dir, int *fd,
			struct error **err)
{
	*fd = openat(dir->dirfd, OUTCOME_FILE,
		     O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW |
			 O_CLOEXEC,
		     0600);
	return *fd < 0 ? error_errno(err, "make " OUTCOME_FILE) : 0;
}

static void note(const struct container_dir *dir, const char *line, int n)
{
	_cleanup_close_ int fd =
	    openat(dir->dirfd, OUTCOME_FILE,
		   O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && n > 0)
		write_all(fd, line, (size_t)n);
}

void report_note_kill(const struct container_dir *dir, int sig)
{
	char line[32];

	note(dir, line, snprintf(line, sizeof(line), "kill %d\n", sig));
}

void report_note_deadline(const struct container_dir *dir)
{
	struct timespec now;
	char line[64];

	clock_gettime(CLOCK_REALTIME, &now);
	note(dir, line,
	     snprintf(line, sizeof(line), "end %lld %ld signal 9 wall_clock\n",
		      (long long)now.tv_sec, now.tv_nsec));
}

/* A small file of the state directory, or NULL when absent or too big. */
static char *read_record(int dirfd, const char *name, off_t max, size_t *len)
{
	_cleanup_close_ int fd =
	    openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *buf = NULL;

	if (fd < 0 || lseek(fd, 0, SEEK_END) > max ||
	    lseek(fd, 0, SEEK_SET) < 0 ||
	    read_fd(fd, name, &buf, len, NULL) < 0)
		return NULL;
	return buf;
}

bool report_deadline_recorded(const struct container_dir *dir)
{
	size_t len;
	_cleanup_free_ char *rec =
	    read_record(dir->dirfd, OUTCOME_FILE, RECORD_MAX, &len);

	return rec && strstr(rec, " wall_clock\n");
}

/* pids.events' "max N": forks the kernel refused at pids.max. */
static void pids_refused(const struct cgroup *cg, struct report *r)
{
	struct cg_hiers h = {0};

	if (cg_hiers_open(cg, &h, NULL) < 0)
		return;
	for (size_t i = 0; i < h.n && !r->pids_refused.known; i++) {
		_cleanup_free_ char *text = NULL;
		const char *p;

		if (h.v[i].fd < 0 || !cg_exists(h.v[i].fd, "pids.events") ||
		    cg_read(h.v[i].fd, h.v[i].dir, "pids.events", &text, NULL) <
			0)
			continue;
		p = strstr(text, "max ");
		if (p && (p == text || p[-1] == '\n'))
			r->pids_refused = (struct report_counter){
			    true, strtoull(p + 4, NULL, 10)};
	}
	cg_hiers_clear(&h);
}

/* What the cgroup counted; it stays from create until delete. */
static void from_cgroup(const struct container *c, struct report *r)
{
	struct cgroup_stats st = {0};
	uint64_t oom;

	if (!c->cgroup)
		return;
	if (cgroup_stats_read(c->cgroup, &st, NULL) == 0) {
		r->cpu_ns = (struct report_counter){true, st.cpu_total};
		/* 0 is what a kernel without the peak file leaves */
		r->memory_peak = (struct report_counter){
		    st.memory[CGROUP_STAT_MAX] > 0, st.memory[CGROUP_STAT_MAX]};
		r->throttled_periods =
		    (struct report_counter){true, st.cpu_throttled_periods};
		r->throttled_ns =
		    (struct report_counter){true, st.cpu_throttled_time};
	}
	cgroup_stats_clear(&st);
	if (cgroup_oom_kills(c->cgroup, &oom, NULL) == 0)
		r->oom_kills = (struct report_counter){true, oom};
	pids_refused(c->cgroup, r);
}

static void wall_clock_limit(const struct container *c, struct report *r)
{
	_cleanup_free_ char *json = NULL;
	struct sandbox sb = {0};
	size_t len;

	json = read_record(c->dir.dirfd, SANDBOX_FILE, RECORD_MAX, &len);
	if (json && hardened_parse_sandbox(json, len, &sb, NULL) == 0)
		r->wall_clock = sb.wall_clock;
	sandbox_release(&sb);
}

/* The numbers of the supervisor's record as names, for the architecture
 * the call was made through (libseccomp's tables; the stage has none). */
static void name_syscalls(struct report *r)
{
	for (size_t i = 0; i < r->n_syscalls; i++) {
		struct report_syscall *s = &r->syscalls[i];

		s->name = seccomp_syscall_resolve_num_arch(s->arch, s->nr);
	}
	report_sort_syscalls(r);
}

/* The writable binds of the effective spec (the stored config.json). */
static int rw_binds(const struct container *c, struct report *r,
		    struct error **err)
{
	struct spec *config = NULL;
	int ret;

	if (!r->files_known)
		return 0;
	if (container_dir_load_config(&c->dir, &config, NULL) < 0)
		return 0; /* no binds known: none listed */
	ret = report_files_binds(config, r, err);
	spec_free(config);
	return ret;
}

/* The egress helper's counters: the report's counts are theirs. */
static void egress_counts(const struct container *c, struct report *r)
{
	_cleanup_free_ char *counts = NULL;
	size_t len = 0;

	counts = read_record(c->dir.dirfd, EGRESS_COUNTS_FILE,
			     sizeof(struct egress_counts), &len);
	report_parse_egress_counts(counts, len, r);
}

static int gather(const struct container *c, struct report *r,
		  struct error **err)
{
	_cleanup_free_ char *outcome = NULL, *egress = NULL;
	size_t len;

	r->id = strdup(c->state->id);
	if (!r->id)
		return error_set(err, ENOMEM, "out of memory");
	r->status = container_status_name(c->status);
	if ((outcome =
		 read_record(c->dir.dirfd, OUTCOME_FILE, RECORD_MAX, &len)) &&
	    report_parse_outcome(outcome, len, r, err) < 0)
		return -1;
	name_syscalls(r);
	from_cgroup(c, r);
	wall_clock_limit(c, r);
	if (report_files_read(c->dir.dirfd, c->state->rootfs, r, err) < 0 ||
	    rw_binds(c, r, err) < 0)
		return -1;
	if ((egress = read_record(c->dir.dirfd, EGRESS_LOG_FILE, EGRESS_LOG_MAX,
				  &len)) &&
	    report_parse_egress(egress, len, r, err) < 0)
		return -1;
	egress_counts(c, r);
	return 0;
}

/* "name:port (reason)" without the reason, which the log's lines have. */
static const char *denied_name(char *d)
{
	char *cut = strrchr(d, '(');

	if (cut && cut > d + 1 && cut[-1] == ' ')
		cut[-1] = '\0';
	return d;
}

void report_log_egress(const struct container *c)
{
	_cleanup_free_ char *log = NULL;
	struct report r = {0};
	char dropped[32];
	size_t len;

	log = read_record(c->dir.dirfd, EGRESS_LOG_FILE, EGRESS_LOG_MAX, &len);
	if (!log || report_parse_egress(log, len, &r, NULL) < 0) {
		report_release(&r);
		return;
	}
	egress_counts(c, &r);
	snprintf(dropped, sizeof(dropped), "%llu",
		 (unsigned long long)r.egress_dropped);
	log_info("%s: egress: %llu allowed, %llu denied%s%s%s%s%s%s%s",
		 c->state->id, (unsigned long long)r.egress_allowed,
		 (unsigned long long)r.egress_denied, r.n_denied ? " (" : "",
		 r.n_denied ? denied_name(r.denied[0]) : "",
		 r.n_denied > 1 ? ", " : "",
		 r.n_denied > 1 ? denied_name(r.denied[1]) : "",
		 r.n_denied ? (r.egress_denied > 2 ? ", ...)" : ")") : "",
		 r.egress_dropped ? "; log lines dropped: " : "",
		 r.egress_dropped ? dropped : "");
	report_release(&r);
}

int report_render(const struct container *c, bool json, char **out,
		  struct error **err)
{
	struct report r = {0};
	int ret;

	ret = gather(c, &r, err);
	if (ret == 0)
		ret = json ? report_json(&r, out, err)
			   : report_text(&r, out, err);
	report_release(&r);
	return ret < 0 ? error_wrap(err, "report %s", c->state->id) : 0;
}

int container_report(const char *root, const char *id, bool json, char **out,
		     struct error **err)
{
	struct container c;
	int r;

	if (container_open(root, id, &c, err) < 0)
		return -1;
	r = report_render(&c, json, out, err);
	container_close(&c);
	return r;
}

/* The file is made new where the path leads without a link: its
 * directory is opened by hostpath_open (no symbolic link on the way; a
 * relative one from the caller's cwd), the file with O_EXCL | O_NOFOLLOW,
 * so neither an existing file nor a planted link is written through. */
static int save_at(const char *json, const char *dir, const char *base,
		   const char *shown, struct error **err)
{
	_cleanup_close_ int dirfd = -1, fd = -1;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return error_set(err, EINVAL, "report %s: no file name", shown);
	dirfd = dir[0] == '/' ? hostpath_open(dir, O_PATH | O_DIRECTORY,
					      "report directory", err)
			      : open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return *err ? -1 : error_errno(err, "report %s", dir);
	fd = openat(dirfd, base,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, json, strlen(json)) < 0)
		return error_errno(err, "report %s", shown);
	return 0;
}

int report_save(const struct container *c, const char *file, struct error **err)
{
	_cleanup_free_ char *json = NULL, *dir = NULL;
	const char *slash = strrchr(file, '/');

	if (report_render(c, true, &json, err) < 0)
		return -1;
	if (!slash)
		dir = strdup(".");
	else if (slash == file)
		dir = strdup("/");
	else
		dir = strndup(file, (size_t)(slash - file));
	if (!dir)
		return error_set(err, ENOMEM, "out of memory");
	return save_at(json, dir, slash ? slash + 1 : file, file, err);
}

/* The stored policy is the one create applied (policy.json in the state
 * directory); its report.dir is a clean absolute path (policy_parse.c)
 * and the ID a validated one, so DIR/ID.json names one new file. */
int report_save_policy(const struct container *c, struct error **err)
{
	_cleanup_free_ char *text = NULL, *json = NULL, *name = NULL;
	struct policy *pol = NULL;
	size_t len;
	int r = 0;

	/* state.json says whether the policy has a report.dir: reading and
	 * parsing policy.json at every delete is for those that do (and
	 * for a state.json that does not say) */
	if (c->state->report_known && !c->state->report_dir)
		return 0;
	text = read_record(c->dir.dirfd, POLICY_FILE, RECORD_MAX, &len);
	if (!text || policy_load_text(text, len, &pol, NULL) < 0)
		return 0;
	if (pol->report_dir) {
		if (asprintf(&name, "%s.json", c->state->id) < 0) {
			name = NULL;
			r = error_set(err, ENOMEM, "out of memory");
		} else if ((r = report_render(c, true, &json, err)) == 0) {
			r = save_at(json, pol->report_dir, name,
				    pol->report_dir, err);
		}
	}
	policy_free(pol);
	return r;
}
