/* Unit tests of runtime/cgroup/cgroup_stats.c: statistics in runc's shape, on
 * the fake trees of cgroup_fake.c (no root needed). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "cgroup.h"
#include "cgroup_fake.h"
#include "unit.h"
#include "util.h"

/* ---- statistics (cgroup_stats.c) ---------------------------------------- */

/* Make DIR (relative to the tree, with its parents) and write FILE. */
static void stat_file(const char *dir, const char *file, const char *text)
{
	char path[1024];
	int fd;

	for (char *p = path + snprintf(path, sizeof(path), "%s/", tree); *dir;
	     dir++, p++) {
		*p = *dir;
		p[1] = '\0';
		if (*dir == '/')
			mkdir(path, 0755);
	}
	mkdir(path, 0755);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	put_file(fd, file, text);
	close(fd);
}

/* A number at a JSON path of the emitted stats. */
static bool json_num(yajl_val doc, const char *want, ...)
{
	const char *path[8];
	va_list ap;
	size_t n = 0;
	yajl_val v;

	va_start(ap, want);
	while (n < 7 && (path[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	path[n] = NULL;
	v = yajl_tree_get(doc, path, yajl_t_number);
	if (v && strcmp(YAJL_GET_NUMBER(v), want) == 0)
		return true;
	printf("# %s...: %s, expected %s\n", path[0],
	       v ? YAJL_GET_NUMBER(v) : "(absent)", want);
	return false;
}

static yajl_val stats_json(const char *path, char **text)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup_stats s;
	struct cgroup *cg = NULL;
	char errbuf[128];
	yajl_val doc = NULL;

	*text = NULL;
	if (cgroup_new(tree, path, &cg, &e) < 0 ||
	    cgroup_stats_read(cg, &s, &e) < 0) {
		printf("# %s\n", e ? e->msg : "?");
		cgroup_free(cg);
		return NULL;
	}
	if (cgroup_stats_emit("ct1", &s, text, &e) == 0)
		doc = yajl_tree_parse(*text, errbuf, sizeof(errbuf));
	cgroup_stats_clear(&s);
	cgroup_free(cg);
	return doc;
}

TEST(v1_stats_in_runc_shape)
{
	_cleanup_free_ char *text = NULL;
	const char *type_path[] = {"type", NULL}, *id_path[] = {"id", NULL};
	const char *percpu[] = {"data", "cpu", "usage", "percpu", NULL};
	long hz = sysconf(_SC_CLK_TCK);
	char user_ns[32];
	yajl_val doc, v;

	tree_new(false, "cpu cpuacct memory pids freezer");
	stat_file("cpuacct/ct", "cpuacct.usage", "123456789\n");
	stat_file("cpuacct/ct", "cpuacct.usage_percpu", "100 200 300 \n");
	stat_file("cpuacct/ct", "cpuacct.stat", "user 250\nsystem 50\n");
	stat_file("cpu/ct", "cpu.stat",
		  "nr_periods 10\nnr_throttled 3\nthrottled_time 4000\n");
	stat_file("memory/ct", "memory.usage_in_bytes", "4096\n");
	stat_file("memory/ct", "memory.max_usage_in_bytes", "8192\n");
	stat_file("memory/ct", "memory.limit_in_bytes",
		  "9223372036854771712\n");
	stat_file("memory/ct", "memory.failcnt", "2\n");
	stat_file("memory/ct", "memory.memsw.usage_in_bytes", "5000\n");
	stat_file("memory/ct", "memory.memsw.limit_in_bytes", "67108864\n");
	stat_file("memory/ct", "memory.stat", "cache 1024\nrss 2048\n");
	stat_file("memory/ct", "memory.oom_control",
		  "oom_kill_disable 0\nunder_oom 0\noom_kill 4\n");
	stat_file("pids/ct", "pids.current", "3\n");
	stat_file("pids/ct", "pids.max", "max\n");
	doc = stats_json("/ct", &text);
	CHECK(doc != NULL);
	v = yajl_tree_get(doc, type_path, yajl_t_string);
	CHECK_STR(v ? YAJL_GET_STRING(v) : NULL, "stats");
	v = yajl_tree_get(doc, id_path, yajl_t_string);
	CHECK_STR(v ? YAJL_GET_STRING(v) : NULL, "ct1");
	CHECK(
	    json_num(doc, "123456789", "data", "cpu", "usage", "total", NULL));
	snprintf(user_ns, sizeof(user_ns), "%llu",
		 250ULL * 1000000000ULL / (unsigned long long)hz);
	CHECK(json_num(doc, user_ns, "data", "cpu", "usage", "user", NULL));
	v = yajl_tree_get(doc, percpu, yajl_t_array);
	CHECK(v && YAJL_GET_ARRAY(v)->len == 3);
	CHECK(json_num(doc, "3", "data", "cpu", "throttling",
		       "throttled_periods", NULL));
	CHECK(json_num(doc, "4000", "data", "cpu", "throttling",
		       "throttled_time", NULL));
	CHECK(json_num(doc, "4096", "data", "memory", "usage", "usage", NULL));
	CHECK(json_num(doc, "8192", "data", "memory", "usage", "max", NULL));
	CHECK(json_num(doc, "9223372036854771712", "data", "memory", "usage",
		       "limit", NULL));
	CHECK(json_num(doc, "2", "data", "memory", "usage", "failcnt", NULL));
	CHECK(
	    json_num(doc, "67108864", "data", "memory", "swap", "limit", NULL));
	CHECK(json_num(doc, "0", "data", "memory", "swap", "max", NULL));
	CHECK(json_num(doc, "1024", "data", "memory", "cache", NULL));
	CHECK(json_num(doc, "2048", "data", "memory", "raw", "rss", NULL));
	CHECK(json_num(doc, "3", "data", "pids", "current", NULL));
	CHECK(json_num(doc, "0", "data", "pids", "limit", NULL));
	CHECK(text && strchr(text, '\n') == text + strlen(text) - 1);
	yajl_tree_free(doc);
	tree_free();
}

TEST(v2_stats_in_runc_shape)
{
	_cleanup_free_ char *text = NULL;
	const char *percpu[] = {"data", "cpu", "usage", "percpu", NULL};
	yajl_val doc, v;

	tree_new(true, ALL_V2);
	stat_file("a/ct", "cpu.stat",
		  "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n"
		  "nr_periods 7\nnr_throttled 2\nthrottled_usec 30\n");
	stat_file("a/ct", "memory.current", "65536\n");
	stat_file("a/ct", "memory.max", "max\n");
	stat_file("a/ct", "memory.peak", "131072\n");
	stat_file("a/ct", "memory.events",
		  "low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\n");
	stat_file("a/ct", "memory.swap.current", "4096\n");
	stat_file("a/ct", "memory.swap.max", "0\n");
	stat_file("a/ct", "memory.stat", "anon 1000\nfile 3000\n");
	stat_file("a/ct", "pids.current", "2\n");
	stat_file("a/ct", "pids.max", "64\n");
	doc = stats_json("a/ct", &text);
	CHECK(doc != NULL);
	CHECK(json_num(doc, "1500000", "data", "cpu", "usage", "total", NULL));
	CHECK(json_num(doc, "500000", "data", "cpu", "usage", "kernel", NULL));
	CHECK(json_num(doc, "1000000", "data", "cpu", "usage", "user", NULL));
	v = yajl_tree_get(doc, percpu, yajl_t_array);
	CHECK(v && YAJL_GET_ARRAY(v)->len == 0);
	CHECK(json_num(doc, "7", "data", "cpu", "throttling", "periods", NULL));
	CHECK(json_num(doc, "30000", "data", "cpu", "throttling",
		       "throttled_time", NULL));
	CHECK(json_num(doc, "18446744073709551615", "data", "memory", "usage",
		       "limit", NULL));
	CHECK(json_num(doc, "65536", "data", "memory", "usage", "usage", NULL));
	CHECK(json_num(doc, "131072", "data", "memory", "usage", "max", NULL));
	CHECK(json_num(doc, "5", "data", "memory", "usage", "failcnt", NULL));
	/* swap is memory+swap, as v1's memsw */
	CHECK(json_num(doc, "69632", "data", "memory", "swap", "usage", NULL));
	CHECK(json_num(doc, "18446744073709551615", "data", "memory", "swap",
		       "limit", NULL));
	CHECK(json_num(doc, "3000", "data", "memory", "cache", NULL));
	CHECK(json_num(doc, "1000", "data", "memory", "raw", "anon", NULL));
	CHECK(json_num(doc, "64", "data", "pids", "limit", NULL));
	yajl_tree_free(doc);
	tree_free();
}

TEST(oom_kills_and_a_gone_cgroup)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup_stats s;
	struct cgroup *cg = NULL;
	uint64_t kills = 9;

	tree_new(true, ALL_V2);
	stat_file("ct", "memory.events", "max 1\noom 2\noom_kill 2\n");
	CHECK(cgroup_new(tree, "ct", &cg, &e) == 0);
	CHECK(cg && cgroup_oom_kills(cg, &kills, &e) == 0 && kills == 2);
	cgroup_free(cg);
	cg = NULL;
	CHECK(cgroup_new(tree, "gone", &cg, &e) == 0);
	CHECK(cg && cgroup_oom_kills(cg, &kills, &e) < 0 && e->code == ENOENT);
	error_free(e);
	e = NULL;
	CHECK(cg && cgroup_stats_read(cg, &s, &e) < 0 && e->code == ENOENT);
	cgroup_free(cg);
	cg = NULL;
	error_free(e);
	e = NULL;

	tree_new(false, "memory pids");
	stat_file("memory/ct", "memory.oom_control",
		  "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
	CHECK(cgroup_new(tree, "ct", &cg, &e) == 0);
	CHECK(cg && cgroup_oom_kills(cg, &kills, &e) == 0 && kills == 3);
	/* a host without the counter: 0 */
	stat_file("memory/ct", "memory.oom_control", "oom_kill_disable 0\n");
	CHECK(cg && cgroup_oom_kills(cg, &kills, &e) == 0 && kills == 0);
	cgroup_free(cg);
	tree_free();
}

int main(void)
{
	return unit_run();
}
