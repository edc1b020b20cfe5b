/* `events`: a container's cpu, memory and pids statistics, read from its
 * cgroup's files, and the JSON runc prints for them (`events --stats`),
 * which containerd and podman read.  The readers only read; the
 * formatter is pure, so both are unit-tested on trees laid out like v1
 * and v2 cgroups.
 *
 *   v1: cpuacct.usage, cpuacct.usage_percpu, cpuacct.stat (USER_HZ
 *       ticks), cpu.stat, memory.{usage,max_usage,limit}_in_bytes,
 *       memory.failcnt, memory.memsw.*, memory.stat, memory.oom_control,
 *       pids.current, pids.max
 *   v2: cpu.stat (microseconds), memory.current, memory.max,
 *       memory.peak, memory.events, memory.swap.{current,max,peak},
 *       memory.stat, pids.current, pids.max
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "cgroup_backend.h"
#include "util.h"

#define NS_PER_USEC 1000ULL
#define NS_PER_SEC 1000000000ULL

/* ---- reading files ------------------------------------------------------ */

#define NO_HIERARCHY (-2)

/* ROOT/PATH, open; -1 with *err set when it is gone. */
static int open_below(const char *root, const char *path, struct error **err)
{
	_cleanup_free_ char *dir = root ? cg_join(root, path) : NULL;
	int fd;

	if (!dir)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "cgroup %s: open", dir);
	return fd;
}

/* One controller's directory of the container on v1: the hierarchy of
 * that name (a link to a co-mounted one resolves).  NO_HIERARCHY when the
 * host has no such hierarchy (its files read as absent); -1 with *err set
 * when it has one but the container's directory is gone. */
static int open_v1_controller(const struct cgroup *cg, const char *controller,
			      struct error **err)
{
	_cleanup_free_ char *root = cg_hier_root(cg, controller);

	if (!root && cg->bases.n) /* not delegated: as if absent */
		return NO_HIERARCHY;
	if (root && access(root, F_OK) < 0)
		return NO_HIERARCHY;
	return open_below(root, cg->path, err);
}

/* The container's directory on v2, the leaf every controller is in. */
static int open_v2_leaf(const struct cgroup *cg, struct error **err)
{
	_cleanup_free_ char *root = cg_hier_root(cg, "");

	return open_below(root, cg->path, err);
}

/* A file's text, or NULL when the file is absent (a kernel without
 * memory.peak, a host without swap accounting). */
static char *slurp(int fd, const char *file)
{
	_cleanup_error_ struct error *e = NULL;
	char *text = NULL;

	if (fd < 0 || cg_read(fd, "", file, &text, &e) < 0)
		return NULL;
	return text;
}

/* A number, "max" (UINT64_MAX); 0 when absent or unparsable. */
static uint64_t number(const char *s)
{
	unsigned long long v;
	char *end;

	if (!s)
		return 0;
	s += strspn(s, " \t");
	if (strncmp(s, "max", 3) == 0)
		return UINT64_MAX;
	if (*s == '-') /* v1's -1 in a few files: unlimited */
		return UINT64_MAX;
	errno = 0;
	v = strtoull(s, &end, 10);
	return errno || end == s ? 0 : (uint64_t)v;
}

static uint64_t read_number(int fd, const char *file)
{
	_cleanup_free_ char *text = slurp(fd, file);

	return number(text);
}

/* The value of `key` in a "key value" per line file; 0 when absent. */
static uint64_t keyed(const char *text, const char *key)
{
	size_t len = strlen(key);

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		if (n > len && strncmp(p, key, len) == 0 && p[len] == ' ')
			return number(p + len + 1);
		p += n + (p[n] == '\n');
	}
	return 0;
}

static uint64_t read_keyed(int fd, const char *file, const char *key)
{
	_cleanup_free_ char *text = slurp(fd, file);

	return keyed(text, key);
}

/* Every "key value" line, in order, for memory.stat's "raw". */
static int read_raw(int fd, const char *file, struct cgroup_stats *s,
		    struct error **err)
{
	_cleanup_free_ char *text = slurp(fd, file);

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n"), k = strcspn(p, " \n");
		struct cgroup_stat *grown;

		if (k > 0 && k < n) {
			grown = realloc(s->memory_raw,
					(s->n_memory_raw + 1) * sizeof(*grown));
			if (!grown)
				return error_set(err, ENOMEM,
						 "cgroup: out of memory");
			s->memory_raw = grown;
			grown[s->n_memory_raw].key = strndup(p, k);
			grown[s->n_memory_raw].value = number(p + k + 1);
			if (!grown[s->n_memory_raw].key)
				return error_set(err, ENOMEM,
						 "cgroup: out of memory");
			s->n_memory_raw++;
		}
		p += n + (p[n] == '\n');
	}
	return 0;
}

static int read_percpu(int fd, const char *file, struct cgroup_stats *s,
		       struct error **err)
{
	_cleanup_free_ char *text = slurp(fd, file);

	for (char *p = text, *end; p && *p; p = end) {
		unsigned long long v;
		uint64_t *grown;

		p += strspn(p, " \t\n");
		if (!*p)
			break;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || end == p)
			break;
		grown = realloc(s->cpu_percpu,
				(s->n_cpu_percpu + 1) * sizeof(*grown));
		if (!grown)
			return error_set(err, ENOMEM, "cgroup: out of memory");
		s->cpu_percpu = grown;
		grown[s->n_cpu_percpu++] = v;
	}
	return 0;
}

/* a + b, UINT64_MAX when either is (no limit) or the sum overflows. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- v1 and v2 ---------------------------------------------------------- */

/* The value of memory.stat's `key`, 0 when absent. */
static uint64_t raw_value(const struct cgroup_stats *s, const char *key)
{
	for (size_t i = 0; i < s->n_memory_raw; i++)
		if (strcmp(s->memory_raw[i].key, key) == 0)
			return s->memory_raw[i].value;
	return 0;
}

/* What both layouts name alike: memory.stat (its page cache under
 * `cache`), pids.current and pids.max. */
static int read_stat_and_pids(int mem, int pids, const char *cache,
			      struct cgroup_stats *s, struct error **err)
{
	if (read_raw(mem, "memory.stat", s, err) < 0)
		return -1;
	s->memory_cache = raw_value(s, cache);
	s->pids_current = read_number(pids, "pids.current");
	s->pids_limit = read_number(pids, "pids.max");
	return 0;
}

int cg_v1_stats(const struct cgroup *cg, struct cgroup_stats *s,
		struct error **err)
{
	_cleanup_close_ int acct = -1, cpu = -1, mem = -1, pids = -1;
	_cleanup_free_ char *stat = NULL;
	long hz = sysconf(_SC_CLK_TCK);

	if ((acct = open_v1_controller(cg, "cpuacct", err)) == -1)
		return -1;
	if ((cpu = open_v1_controller(cg, "cpu", err)) == -1)
		return -1;
	if ((mem = open_v1_controller(cg, "memory", err)) == -1)
		return -1;
	if ((pids = open_v1_controller(cg, "pids", err)) == -1)
		return -1;
	if (hz <= 0)
		hz = 100;
	s->cpu_total = read_number(acct, "cpuacct.usage");
	stat = slurp(acct, "cpuacct.stat");
	s->cpu_user = keyed(stat, "user") * NS_PER_SEC / (uint64_t)hz;
	s->cpu_kernel = keyed(stat, "system") * NS_PER_SEC / (uint64_t)hz;
	if (read_percpu(acct, "cpuacct.usage_percpu", s, err) < 0)
		return -1;
	s->cpu_periods = read_keyed(cpu, "cpu.stat", "nr_periods");
	s->cpu_throttled_periods = read_keyed(cpu, "cpu.stat", "nr_throttled");
	s->cpu_throttled_time = read_keyed(cpu, "cpu.stat", "throttled_time");
	s->memory[CGROUP_STAT_LIMIT] =
	    read_number(mem, "memory.limit_in_bytes");
	s->memory[CGROUP_STAT_USAGE] =
	    read_number(mem, "memory.usage_in_bytes");
	s->memory[CGROUP_STAT_MAX] =
	    read_number(mem, "memory.max_usage_in_bytes");
	s->memory[CGROUP_STAT_FAILCNT] = read_number(mem, "memory.failcnt");
	s->swap[CGROUP_STAT_LIMIT] =
	    read_number(mem, "memory.memsw.limit_in_bytes");
	s->swap[CGROUP_STAT_USAGE] =
	    read_number(mem, "memory.memsw.usage_in_bytes");
	s->swap[CGROUP_STAT_MAX] =
	    read_number(mem, "memory.memsw.max_usage_in_bytes");
	s->swap[CGROUP_STAT_FAILCNT] = read_number(mem, "memory.memsw.failcnt");
	return read_stat_and_pids(mem, pids, "cache", s, err);
}

/* memory+swap, as v1's memsw reports it (and runc on v2). */
int cg_v2_stats(const struct cgroup *cg, struct cgroup_stats *s,
		struct error **err)
{
	_cleanup_close_ int fd = open_v2_leaf(cg, err);
	_cleanup_free_ char *stat = NULL;

	if (fd < 0)
		return -1;
	stat = slurp(fd, "cpu.stat");
	s->cpu_total = keyed(stat, "usage_usec") * NS_PER_USEC;
	s->cpu_user = keyed(stat, "user_usec") * NS_PER_USEC;
	s->cpu_kernel = keyed(stat, "system_usec") * NS_PER_USEC;
	s->cpu_periods = keyed(stat, "nr_periods");
	s->cpu_throttled_periods = keyed(stat, "nr_throttled");
	s->cpu_throttled_time = keyed(stat, "throttled_usec") * NS_PER_USEC;
	s->memory[CGROUP_STAT_LIMIT] = read_number(fd, "memory.max");
	s->memory[CGROUP_STAT_USAGE] = read_number(fd, "memory.current");
	s->memory[CGROUP_STAT_MAX] = read_number(fd, "memory.peak");
	s->memory[CGROUP_STAT_FAILCNT] = read_keyed(fd, "memory.events", "max");
	s->swap[CGROUP_STAT_LIMIT] = add_sat(
	    s->memory[CGROUP_STAT_LIMIT], read_number(fd, "memory.swap.max"));
	s->swap[CGROUP_STAT_USAGE] =
	    add_sat(s->memory[CGROUP_STAT_USAGE],
		    read_number(fd, "memory.swap.current"));
	s->swap[CGROUP_STAT_MAX] = add_sat(s->memory[CGROUP_STAT_MAX],
					   read_number(fd, "memory.swap.peak"));
	s->swap[CGROUP_STAT_FAILCNT] =
	    read_keyed(fd, "memory.swap.events", "max");
	return read_stat_and_pids(fd, fd, "file", s, err);
}

int cgroup_stats_read(const struct cgroup *cg, struct cgroup_stats *out,
		      struct error **err)
{
	int rc;

	*out = (struct cgroup_stats){0};
	rc = cg->backend->stats(cg, out, err);
	if (rc < 0) {
		cgroup_stats_clear(out);
		return -1;
	}
	/* runc's pids limit: 0 is "no limit" */
	if (out->pids_limit == UINT64_MAX)
		out->pids_limit = 0;
	return 0;
}

void cgroup_stats_clear(struct cgroup_stats *s)
{
	for (size_t i = 0; i < s->n_memory_raw; i++)
		free(s->memory_raw[i].key);
	free(s->memory_raw);
	free(s->cpu_percpu);
	*s = (struct cgroup_stats){0};
}

int cgroup_oom_kills(const struct cgroup *cg, uint64_t *out, struct error **err)
{
	*out = 0;
	return cg->backend->oom_kills(cg, out, err);
}

/* The oom_kill count of FILE in fd, which this closes; -1 (no fd, *err
 * set by its opener) fails. */
static int oom_kills_in(int fd, const char *file, uint64_t *out)
{
	if (fd == -1)
		return -1;
	*out = read_keyed(fd, file, "oom_kill");
	if (fd >= 0)
		close(fd);
	return 0;
}

int cg_v1_oom_kills(const struct cgroup *cg, uint64_t *out, struct error **err)
{
	return oom_kills_in(open_v1_controller(cg, "memory", err),
			    "memory.oom_control", out);
}

int cg_v2_oom_kills(const struct cgroup *cg, uint64_t *out, struct error **err)
{
	return oom_kills_in(open_v2_leaf(cg, err), "memory.events", out);
}

/* ---- the JSON ----------------------------------------------------------- */

static void key(yajl_gen g, const char *k)
{
	yajl_gen_string(g, (const unsigned char *)k, strlen(k));
}

/* uint64 as a JSON number: yajl's integers are long long. */
static void num(yajl_gen g, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%" PRIu64, v);

	yajl_gen_number(g, buf, (size_t)n);
}

static void key_num(yajl_gen g, const char *k, uint64_t v)
{
	key(g, k);
	num(g, v);
}

static void entry(yajl_gen g, const char *k, const uint64_t v[4])
{
	key(g, k);
	yajl_gen_map_open(g);
	key_num(g, "limit", v[CGROUP_STAT_LIMIT]);
	key_num(g, "usage", v[CGROUP_STAT_USAGE]);
	key_num(g, "max", v[CGROUP_STAT_MAX]);
	key_num(g, "failcnt", v[CGROUP_STAT_FAILCNT]);
	yajl_gen_map_close(g);
}

static void emit_cpu(yajl_gen g, const struct cgroup_stats *s)
{
	key(g, "cpu");
	yajl_gen_map_open(g);
	key(g, "usage");
	yajl_gen_map_open(g);
	key_num(g, "total", s->cpu_total);
	key(g, "percpu");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < s->n_cpu_percpu; i++)
		num(g, s->cpu_percpu[i]);
	yajl_gen_array_close(g);
	key_num(g, "kernel", s->cpu_kernel);
	key_num(g, "user", s->cpu_user);
	yajl_gen_map_close(g);
	key(g, "throttling");
	yajl_gen_map_open(g);
	key_num(g, "periods", s->cpu_periods);
	key_num(g, "throttled_periods", s->cpu_throttled_periods);
	key_num(g, "throttled_time", s->cpu_throttled_time);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

static void emit_memory(yajl_gen g, const struct cgroup_stats *s)
{
	key(g, "memory");
	yajl_gen_map_open(g);
	key_num(g, "cache", s->memory_cache);
	entry(g, "usage", s->memory);
	entry(g, "swap", s->swap);
	key(g, "raw");
	yajl_gen_map_open(g);
	for (size_t i = 0; i < s->n_memory_raw; i++)
		key_num(g, s->memory_raw[i].key, s->memory_raw[i].value);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

int cgroup_stats_emit(const char *id, const struct cgroup_stats *s, char **out,
		      struct error **err)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *buf;
	size_t len;
	char *text;

	*out = NULL;
	if (!g)
		return error_set(err, ENOMEM, "events: out of memory");
	yajl_gen_config(g, yajl_gen_validate_utf8, 1);
	yajl_gen_map_open(g);
	key(g, "type");
	key(g, "stats");
	key(g, "id");
	key(g, id);
	key(g, "data");
	yajl_gen_map_open(g);
	emit_cpu(g, s);
	emit_memory(g, s);
	key(g, "pids");
	yajl_gen_map_open(g);
	key_num(g, "current", s->pids_current);
	key_num(g, "limit", s->pids_limit);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
	if (yajl_gen_map_close(g) != yajl_gen_status_ok ||
	    yajl_gen_get_buf(g, &buf, &len) != yajl_gen_status_ok) {
		yajl_gen_free(g);
		return error_set(err, EINVAL, "events: cannot emit the stats");
	}
	text = malloc(len + 2);
	if (!text) {
		yajl_gen_free(g);
		return error_set(err, ENOMEM, "events: out of memory");
	}
	memcpy(text, buf, len);
	memcpy(text + len, "\n", 2);
	yajl_gen_free(g);
	*out = text;
	return 0;
}
