/* `corral report`'s pure half: the records' parsers, the list of files
 * changed, and the two renderers (report.h). */
#include "report.h"

#include "egress_counts.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/mount.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <yajl/yajl_tree.h>

#include "json.h"
#include "mount_options.h"
#include "spec.h"
#include "util.h"

/* The reason is read from the most specific record to the least: the
 * supervisor's deadline, then what killed the workload.  A workload that
 * started and has no end line lost its record: the supervisor died
 * before it could write it (the OOM killer, when the cgroup counted one)
 * or its writes failed. */
const char *report_reason(const struct report *r)
{
	if (r->status && strcmp(r->status, "stopped") != 0)
		return r->status;
	if (r->ended_known && r->by_wall_clock)
		return "wall clock";
	if (r->ended_known && r->signalled && r->code == SIGKILL &&
	    r->oom_kills.known && r->oom_kills.value > 0)
		return "OOM kill";
	if (r->kill_signal &&
	    (!r->ended_known || (r->signalled && r->code == r->kill_signal)))
		return "corral kill";
	if (r->ended_known)
		return r->signalled ? "workload killed by a signal"
				    : "workload exit";
	if (r->started.known && r->oom_kills.known && r->oom_kills.value > 0)
		return "OOM kill (record incomplete)";
	if (r->started.known)
		return "record incomplete";
	return "unknown";
}

char *report_escape(const char *s, size_t len)
{
	char *out = malloc(len * 4 + 1), *p = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\') {
			*p++ = '\\';
			*p++ = '\\';
		} else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\'') {
			snprintf(p, 5, "\\x%02x", c);
			p += 4;
		} else {
			*p++ = (char)c;
		}
	}
	*p = '\0';
	return out;
}

/* The supervisor's COMM: escaped already (\xNN for every byte outside
 * [A-Za-z0-9._-]), or "?"; anything else is not its line. */
static bool comm_ok(const char *s)
{
	if (strcmp(s, "?") == 0)
		return true;
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\') {
			if (s[1] != 'x' || !isxdigit((unsigned char)s[2]) ||
			    !isxdigit((unsigned char)s[3]))
				return false;
			s += 3;
		} else if (!isalnum(c) && c != '.' && c != '_' && c != '-') {
			return false;
		}
	}
	return true;
}

/* "syscall ARCH NR COUNT SEC NSEC PID COMM": 1 kept, 0 not the format,
 * -1 out of memory. */
static int syscall_line(const char *line, struct report *r)
{
	unsigned int arch;
	int nr, pid, end = 0;
	unsigned long long count;
	long long sec;
	long nsec;
	char comm[72];
	struct report_syscall *s = NULL;

	if (sscanf(line, "syscall %x %d %llu %lld %ld %d %71s%n", &arch, &nr,
		   &count, &sec, &nsec, &pid, comm, &end) != 7 ||
	    line[end] != '\0' || nr < 0 || count == 0 || pid < 0 || nsec < 0 ||
	    nsec >= 1000000000L || !comm_ok(comm))
		return 0;
	for (size_t i = 0; i < r->n_syscalls && !s; i++)
		if (r->syscalls[i].nr == nr && r->syscalls[i].arch == arch)
			s = &r->syscalls[i];
	if (!s && r->n_syscalls == REPORT_SYSCALLS_MAX) {
		r->syscalls_truncated = true;
		return 1;
	}
	if (!s) {
		if (!r->syscalls &&
		    !(r->syscalls =
			  calloc(REPORT_SYSCALLS_MAX, sizeof(*r->syscalls))))
			return -1;
		s = &r->syscalls[r->n_syscalls];
		*s = (struct report_syscall){.arch = arch, .nr = nr};
		if (!(s->comm = strdup(comm)))
			return -1;
		r->n_syscalls++;
	}
	/* the latest count; the first call's fields are the first line's */
	r->syscalls_total += (uint64_t)count - s->count;
	if (s->count == 0) {
		s->first_sec = sec;
		s->first_nsec = nsec;
		s->pid = pid;
	}
	s->count = count;
	r->syscalls_known = true;
	return 1;
}

/* One line of the outcome record; false when it does not parse. */
static bool outcome_line(const char *line, struct report *r)
{
	long long sec;
	long nsec;
	int code, sig;
	char how[8], why[12];

	if (sscanf(line, "start %lld %ld", &sec, &nsec) == 2) {
		r->started = (struct report_time){true, sec, nsec};
		return true;
	}
	if (sscanf(line, "end %lld %ld %7s %d %11s", &sec, &nsec, how, &code,
		   why) == 5 &&
	    (strcmp(how, "exit") == 0 || strcmp(how, "signal") == 0) &&
	    (strcmp(why, "workload") == 0 || strcmp(why, "wall_clock") == 0) &&
	    code >= 0 && code <= 255) {
		r->ended = (struct report_time){true, sec, nsec};
		r->ended_known = true;
		r->signalled = strcmp(how, "signal") == 0;
		r->code = code;
		r->by_wall_clock = strcmp(why, "wall_clock") == 0;
		return true;
	}
	if (sscanf(line, "kill %d", &sig) == 1 && sig > 0 && sig < 65) {
		r->kill_signal = sig;
		return true;
	}
	return false;
}

int report_parse_outcome(const char *buf, size_t len, struct report *r,
			 struct error **err)
{
	char line[160];
	size_t start = 0;

	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i - start < sizeof(line)) {
			memcpy(line, buf + start, i - start);
			line[i - start] = '\0';
			if (strcmp(line, "listening") == 0)
				r->syscalls_known = true;
			else if (strncmp(line, "syscall ", 8) != 0)
				outcome_line(line, r);
			else if (syscall_line(line, r) < 0)
				return error_set(err, ENOMEM,
						 "outcome: out of memory");
		}
		start = i + 1;
	}
	return 0;
}

static int syscall_cmp(const void *a, const void *b)
{
	const struct report_syscall *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->arch != y->arch)
		return x->arch < y->arch ? -1 : 1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

void report_sort_syscalls(struct report *r)
{
	if (r->n_syscalls)
		qsort(r->syscalls, r->n_syscalls, sizeof(*r->syscalls),
		      syscall_cmp);
}

static const char *str_member(yajl_val obj, const char *key)
{
	yajl_val v = json_get(obj, key);

	return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
}

/* One line of the egress log; false when it is not the format. */
static bool egress_line(const char *line, struct report *r, bool *oom)
{
	yajl_val root = yajl_tree_parse(line, NULL, 0), port;
	const char *verdict = str_member(root, "verdict");
	const char *name = str_member(root, "name");
	const char *reason = str_member(root, "reason");
	_cleanup_free_ char *ename = NULL, *ereason = NULL;
	bool ok = true;
	char *s, **v;

	port = json_get(root, "port");
	if (verdict && YAJL_IS_INTEGER(json_get(root, "dropped"))) {
		/* a share of the log spent: the counters have the numbers */
	} else if (!verdict || !name || !YAJL_IS_INTEGER(port)) {
		ok = false;
	} else if (strcmp(verdict, "allow") == 0) {
	} else if (strcmp(verdict, "deny") != 0) {
		ok = false;
	} else if (r->n_denied < REPORT_DENIED_SHOWN) {
		ename = report_escape(name, strlen(name));
		ereason = reason ? report_escape(reason, strlen(reason)) : NULL;
		if (!ename ||
		    asprintf(&s, "%s:%lld (%s)", ename, YAJL_GET_INTEGER(port),
			     ereason ? ereason : "-") < 0)
			s = NULL;
		v = s ? realloc(r->denied, (r->n_denied + 1) * sizeof(*v))
		      : NULL;
		if (!v) {
			free(s);
			*oom = true;
		} else {
			r->denied = v;
			r->denied[r->n_denied++] = s;
		}
	}
	yajl_tree_free(root);
	return ok;
}

int report_parse_egress(const char *buf, size_t len, struct report *r,
			struct error **err)
{
	size_t start = 0;
	bool oom = false;

	for (size_t i = 0; i < len && !oom; i++) {
		_cleanup_free_ char *line = NULL;

		if (buf[i] != '\n')
			continue;
		line = strndup(buf + start, i - start);
		start = i + 1;
		if (!line)
			oom = true;
		else if (line[0] && !egress_line(line, r, &oom))
			r->egress_bad_lines++;
	}
	return oom ? error_set(err, ENOMEM, "egress log: out of memory") : 0;
}

static int file_cmp(const void *a, const void *b)
{
	const struct report_file *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keep `f` (its name not yet escaped) among the largest
 * REPORT_FILES_SHOWN; count it either way. */
static int add_file(struct report *r, const char *name,
		    const struct report_file *f, struct error **err)
{
	struct report_file *slot = NULL;

	r->n_files_total++;
	r->files_bytes += f->size;
	if (!r->files) {
		r->files = calloc(REPORT_FILES_SHOWN, sizeof(*r->files));
		if (!r->files)
			return error_set(err, ENOMEM, "report: out of memory");
	}
	if (r->n_files < REPORT_FILES_SHOWN) {
		slot = &r->files[r->n_files++];
	} else {
		/* full: the new one takes the place of the smallest kept */
		slot = &r->files[0];
		for (size_t i = 1; i < r->n_files; i++)
			if (r->files[i].size < slot->size)
				slot = &r->files[i];
		if (slot->size >= f->size)
			return 0;
		free(slot->name);
		slot->name = NULL;
	}
	*slot = *f;
	slot->name = report_escape(name, strlen(name));
	if (!slot->name) {
		*slot = r->files[--r->n_files];
		return error_set(err, ENOMEM, "report: out of memory");
	}
	return 0;
}

int report_add_file(struct report *r, const char *name, enum report_change c,
		    bool dir, uint64_t size, struct error **err)
{
	struct report_file f = {.change = c, .dir = dir, .size = size};

	return add_file(r, name, &f, err);
}

int report_add_bind_file(struct report *r, const char *name,
			 enum report_change c, bool dir, uint64_t size,
			 struct error **err)
{
	struct report_file f = {
	    .change = c, .dir = dir, .size = size, .in_bind = true};

	return add_file(r, name, &f, err);
}

/* A set of (dev, ino), open addressing, doubled when half full; (0, 0)
 * marks an empty place (no file has inode 0). */
struct report_inodes {
	struct report_inode {
		uint64_t dev, ino;
	} * v;
	size_t cap, n;
};

static bool inode_used(const struct report_inode *e)
{
	return e->dev || e->ino;
}

static size_t inode_slot(const struct report_inodes *s, uint64_t dev,
			 uint64_t ino)
{
	uint64_t h =
	    (ino ^ (dev * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
	size_t i = (size_t)(h ^ (h >> 32)) & (s->cap - 1);

	while (inode_used(&s->v[i]) &&
	       (s->v[i].dev != dev || s->v[i].ino != ino))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int inodes_grow(struct report_inodes *s)
{
	struct report_inodes bigger = {.cap = s->cap ? s->cap * 2 : 1024};

	bigger.v = calloc(bigger.cap, sizeof(*bigger.v));
	if (!bigger.v)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		if (inode_used(&s->v[i]))
			bigger
			    .v[inode_slot(&bigger, s->v[i].dev, s->v[i].ino)] =
			    s->v[i];
	bigger.n = s->n;
	free(s->v);
	*s = bigger;
	return 0;
}

/* 1 when (dev, ino) was seen before, 0 when it is new (and recorded
 * now), -1 when out of memory. */
static int inode_seen(struct report *r, uint64_t dev, uint64_t ino)
{
	struct report_inodes *s = r->inodes;
	size_t i;

	if (!s && !(s = r->inodes = calloc(1, sizeof(*s))))
		return -1;
	if ((s->n + 1) * 2 > s->cap && inodes_grow(s) < 0)
		return -1;
	i = inode_slot(s, dev, ino);
	if (inode_used(&s->v[i]))
		return 1;
	s->v[i] = (struct report_inode){dev, ino};
	s->n++;
	return 0;
}

int report_add_linked(struct report *r, const char *name, enum report_change c,
		      uint64_t size, bool in_bind, uint64_t dev, uint64_t ino,
		      struct error **err)
{
	struct report_file f = {.change = c,
				.size = size,
				.in_bind = in_bind,
				.linked = true,
				.dev = dev,
				.ino = ino};
	int seen = inode_seen(r, dev, ino);

	if (seen < 0)
		return error_set(err, ENOMEM, "report: out of memory");
	if (!seen)
		return add_file(r, name, &f, err);
	r->more_names++;
	/* the list holds at most REPORT_FILES_SHOWN: a look through it
	 * costs less than keeping places in step with its sorting */
	for (size_t i = 0; i < r->n_files; i++)
		if (r->files[i].linked && r->files[i].dev == dev &&
		    r->files[i].ino == ino) {
			r->files[i].more_names++;
			break;
		}
	return 0;
}

int report_add_bind(struct report *r, const char *path, const char *why,
		    struct error **err)
{
	struct report_bind *v;

	v = reallocarray(r->binds, r->n_binds + 1, sizeof(*v));
	if (!v)
		return error_set(err, ENOMEM, "report: out of memory");
	r->binds = v;
	v[r->n_binds].path = report_escape(path, strlen(path));
	if (!v[r->n_binds].path)
		return error_set(err, ENOMEM, "report: out of memory");
	v[r->n_binds++].why = why;
	return 0;
}

bool report_rw_bind(const struct spec_mount *m)
{
	struct spec_mount_flags f = {0};
	bool rw;

	if (spec_mount_options_parse(m->options, m->n_options, &f, NULL) < 0)
		return false;
	rw = f.bind && !(f.flags & MS_RDONLY) &&
	     !(f.attr_set & MOUNT_ATTR_RDONLY);
	free(f.data);
	return rw;
}

void report_sort_files(struct report *r)
{
	if (r->n_files)
		qsort(r->files, r->n_files, sizeof(*r->files), file_cmp);
}

void report_release(struct report *r)
{
	for (size_t i = 0; i < r->n_files; i++)
		free(r->files[i].name);
	free(r->files);
	for (size_t i = 0; i < r->n_binds; i++)
		free(r->binds[i].path);
	free(r->binds);
	for (size_t i = 0; i < r->n_denied; i++)
		free(r->denied[i]);
	free(r->denied);
	for (size_t i = 0; i < r->n_syscalls; i++) {
		free(r->syscalls[i].name);
		free(r->syscalls[i].comm);
	}
	free(r->syscalls);
	for (size_t i = 0; i < r->n_drops; i++) {
		free(r->drops[i].field);
		free(r->drops[i].asked);
		free(r->drops[i].applied);
		free(r->drops[i].reason);
	}
	free(r->drops);
	free(r->id);
	if (r->inodes)
		free(r->inodes->v);
	free(r->inodes);
	*r = (struct report){0};
}

/* ---- the READY record of the upper layer ----------------------------- */

char *report_ready_line(const struct report_ready_entry *e)
{
	char *line = NULL;
	int n;

	if (e->dir)
		n = asprintf(&line, "%" PRIu64 " d %s\n", e->ino, e->path);
	else
		n = asprintf(&line,
			     "%" PRIu64 " f %" PRIu64 " %" PRId64
			     " %ld %" PRId64 " %ld %s\n",
			     e->ino, e->size, e->mtime_sec, e->mtime_nsec,
			     e->ctime_sec, e->ctime_nsec, e->path);
	return n < 0 ? NULL : line;
}

static int ready_cmp(const void *a, const void *b)
{
	const struct report_ready_entry *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* One line (NUL-terminated, no newline): 1 kept in *e, 0 not the format,
 * -1 out of memory. */
static int ready_entry(const char *line, struct report_ready_entry *e)
{
	unsigned long long ino, size;
	long long msec, csec;
	long mnsec, cnsec;
	char kind;
	int at = 0;

	if (sscanf(line, "%llu %c %n", &ino, &kind, &at) != 2 || at == 0)
		return 0;
	*e = (struct report_ready_entry){.ino = ino, .dir = kind == 'd'};
	if (kind == 'f') {
		int more = 0;

		if (sscanf(line + at, "%llu %lld %ld %lld %ld %n", &size, &msec,
			   &mnsec, &csec, &cnsec, &more) != 5 ||
		    more == 0)
			return 0;
		at += more;
		e->size = size;
		e->mtime_sec = msec;
		e->mtime_nsec = mnsec;
		e->ctime_sec = csec;
		e->ctime_nsec = cnsec;
	} else if (kind != 'd') {
		return 0;
	}
	if (!line[at] || line[at - 1] != ' ')
		return 0;
	return (e->path = strdup(line + at)) ? 1 : -1;
}

int report_ready_parse(const char *buf, size_t len, struct report_ready *out,
		       struct error **err)
{
	const char *p = buf, *end = buf + len;

	*out = (struct report_ready){0};
	while (p < end && out->n < REPORT_READY_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		_cleanup_free_ char *line = NULL;
		int k;

		if (!nl)
			break; /* a partial last line */
		if (!out->v &&
		    !(out->v = calloc(REPORT_READY_MAX, sizeof(*out->v))))
			goto oom;
		if (memchr(p, '\0', (size_t)(nl - p)) == NULL) {
			if (!(line = strndup(p, (size_t)(nl - p))))
				goto oom;
			k = ready_entry(line, &out->v[out->n]);
			if (k < 0)
				goto oom;
			out->n += (size_t)k;
		}
		p = nl + 1;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), ready_cmp);
	return 0;
oom:
	report_ready_release(out);
	return error_set(err, ENOMEM, "report: out of memory");
}

bool report_ready_holds(const struct report_ready *rd,
			const struct report_ready_entry *e)
{
	const struct report_ready_entry *k;
	_cleanup_free_ char *path = NULL;

	if (!rd->n)
		return false;
	k = bsearch(e, rd->v, rd->n, sizeof(*rd->v), ready_cmp);
	if (!k)
		return false;
	/* equal inodes: bsearch finds one of them; look at its neighbours */
	while (k > rd->v && k[-1].ino == e->ino)
		k--;
	path = report_escape(e->path, strlen(e->path));
	if (!path)
		return false; /* listed: the record never hides by mistake */
	for (; k < rd->v + rd->n && k->ino == e->ino; k++) {
		if (k->dir != e->dir || strcmp(k->path, path) != 0)
			continue;
		if (k->dir ||
		    (k->size == e->size && k->mtime_sec == e->mtime_sec &&
		     k->mtime_nsec == e->mtime_nsec &&
		     k->ctime_sec == e->ctime_sec &&
		     k->ctime_nsec == e->ctime_nsec))
			return true;
	}
	return false;
}

void report_ready_release(struct report_ready *rd)
{
	for (size_t i = 0; i < rd->n; i++)
		free(rd->v[i].path);
	free(rd->v);
	*rd = (struct report_ready){0};
}

void report_parse_egress_counts(const void *buf, size_t len, struct report *r)
{
	struct egress_counts c;

	if (!buf || len != sizeof(c))
		return;
	memcpy(&c, buf, sizeof(c));
	if (c.magic != EGRESS_COUNTS_MAGIC || c.size != sizeof(c))
		return;
	r->egress_known = true;
	r->egress_allowed = r->egress_denied = r->egress_dropped = 0;
	for (int k = 0; k < EGRESS_KINDS; k++) {
		r->egress_allowed += c.decisions[k][EGRESS_ALLOW];
		r->egress_denied += c.decisions[k][EGRESS_DENY];
		for (int v = 0; v < EGRESS_VERDICTS; v++)
			r->egress_dropped += c.dropped[k][v];
	}
	r->egress_lookups = c.lookups;
	r->egress_cache_hits = c.cache_hits;
	r->egress_rate_refused = c.rate_refused;
}
