/* cgtool: drives corral's cgroup module from the integration tests, until
 * create and delete call it themselves.
 *
 *   cgtool [-r ROOT] [-b] prepare PATH MEMORY PIDS [KEY=VALUE...]
 *   cgtool [-r ROOT] enter PATH PID
 *   cgtool [-r ROOT] kill PATH
 *   cgtool [-r ROOT] destroy PATH
 *   cgtool [-r ROOT] dirs PATH      the directories of PATH that exist
 *   cgtool [-r ROOT] detect         "v1" or "v2"
 *   cgtool path CGROUPS_PATH ID     cgroup_path_for()
 *
 * ROOT defaults to /sys/fs/cgroup; -b makes prepare best-effort (it then
 * prints "skipped NAME" lines).  MEMORY is bytes (swap is set equal, as
 * harden() does: no swap) and PIDS a count; "-" leaves either unset.
 * KEYs: swap, reservation, quota, period, shares, cpus, mems,
 * blkio-weight, hugetlb.SIZE, unified.FILE, device (as "c 1:3 rwm",
 * allowed), device-deny (the same, denied); device rules apply in the
 * order given.  prepare prints the directories it made, one a line. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "cgroup_backend.h"
#include "util.h"

#define MAX_ITEMS 16

static struct spec_memory memory;
static struct spec_cpu cpu;
static struct spec_block_io block_io;
static struct spec_hugepage_limit hugepages[MAX_ITEMS];
static struct spec_kv unified[MAX_ITEMS];
static struct spec_device_rule devices[MAX_ITEMS];
static struct spec_resources res;

static int usage(void)
{
	fprintf(stderr, "usage: cgtool [-r ROOT] [-b] prepare PATH MEMORY PIDS "
			"[KEY=VALUE...] | enter PATH PID | kill PATH | "
			"destroy PATH | dirs PATH | detect | path CGPATH ID\n");
	return 2;
}

static int fail(struct error *e)
{
	fprintf(stderr, "cgtool: %s\n", e ? e->msg : "failed");
	error_free(e);
	return 1;
}

static bool number(const char *s, struct spec_opt *o)
{
	char *end;
	long long v;

	if (strcmp(s, "-") == 0)
		return true;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*o = (struct spec_opt){true, v};
	return true;
}

static bool device(char *s, bool allow, struct spec_device_rule *d)
{
	char type, access[8];
	char major[24], minor[24];
	struct spec_opt o = {0};

	if (sscanf(s, "%c %23[^:]:%23s %7s", &type, major, minor, access) != 4)
		return false;
	*d = (struct spec_device_rule){
	    .allow = allow, .type = type, .access = strdup(access)};
	if (strcmp(major, "*") != 0 && number(major, &o))
		d->major = o;
	if (strcmp(minor, "*") != 0 && number(minor, &o))
		d->minor = o;
	return d->access != NULL;
}

static bool option(char *kv)
{
	char *v = strchr(kv, '=');
	struct spec_opt o = {0};

	if (!v)
		return false;
	*v++ = '\0';
	if (strncmp(kv, "hugetlb.", 8) == 0 &&
	    res.n_hugepage_limits < MAX_ITEMS && number(v, &o)) {
		hugepages[res.n_hugepage_limits++] =
		    (struct spec_hugepage_limit){kv + 8, (uint64_t)o.v};
		return true;
	}
	if (strncmp(kv, "unified.", 8) == 0 && res.n_unified < MAX_ITEMS) {
		unified[res.n_unified++] = (struct spec_kv){kv + 8, v};
		return true;
	}
	if ((strcmp(kv, "device") == 0 || strcmp(kv, "device-deny") == 0) &&
	    res.n_devices < MAX_ITEMS)
		return device(v, strcmp(kv, "device") == 0,
			      &devices[res.n_devices++]);
	if (strcmp(kv, "cpus") == 0 || strcmp(kv, "mems") == 0) {
		*(strcmp(kv, "cpus") == 0 ? &cpu.cpus : &cpu.mems) = v;
		return true;
	}
	if (strcmp(kv, "swap") == 0)
		return number(v, &memory.swap);
	if (strcmp(kv, "reservation") == 0)
		return number(v, &memory.reservation);
	if (strcmp(kv, "quota") == 0)
		return number(v, &cpu.quota);
	if (strcmp(kv, "period") == 0)
		return number(v, &cpu.period);
	if (strcmp(kv, "shares") == 0)
		return number(v, &cpu.shares);
	if (strcmp(kv, "blkio-weight") == 0)
		return number(v, &block_io.weight);
	return false;
}

/* Print the directories of PATH that exist, in every hierarchy. */
static int dirs(const char *root, const char *path, bool *any)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	struct error *e = NULL;
	const struct cgroup_backend *backend;
	struct stat st;

	if (cgroup_detect(root, &backend, &e) < 0 ||
	    backend->hierarchies(root, path, &h, &e) < 0)
		return fail(e);
	for (size_t i = 0; i < h.n; i++) {
		if (stat(h.v[i].dir, &st) == 0) {
			printf("%s\n", h.v[i].dir);
			*any = true;
		}
	}
	return 0;
}

static int prepare(const char *root, bool best_effort, int argc, char **argv)
{
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct error *e = NULL;
	bool any = false;

	if (argc < 3 || !number(argv[1], &memory.limit) ||
	    !number(argv[2], &res.pids_limit))
		return usage();
	memory.swap = memory.limit;
	for (int i = 3; i < argc; i++)
		if (!option(argv[i]))
			return usage();
	res.memory = &memory;
	res.cpu = &cpu;
	res.block_io = &block_io;
	res.hugepage_limits = hugepages;
	res.unified = unified;
	res.devices = devices;
	if (cgroup_prepare(root, argv[0], &res, best_effort, &cg, &skipped,
			   &e) < 0)
		return fail(e);
	for (char **s = skipped; s && *s; s++)
		printf("skipped %s\n", *s);
	cgroup_free(cg);
	return dirs(root, argv[0], &any);
}

int main(int argc, char **argv)
{
	const char *root = "/sys/fs/cgroup";
	struct cgroup *cg = NULL;
	struct error *e = NULL;
	bool best_effort = false, any = false;
	const struct cgroup_backend *backend;
	int i = 1, rc = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			root = argv[++i];
		else if (strcmp(argv[i], "-b") == 0)
			best_effort = true;
		else
			return usage();
	}
	if (i >= argc)
		return usage();
	argc -= i;
	argv += i;
	if (strcmp(argv[0], "detect") == 0) {
		if (cgroup_detect(root, &backend, &e) < 0)
			return fail(e);
		printf("%s\n", backend->name);
		return 0;
	}
	if (strcmp(argv[0], "path") == 0 && argc == 3) {
		_cleanup_free_ char *out = NULL;

		if (cgroup_path_for(argv[1], argv[2], &out, &e) < 0)
			return fail(e);
		printf("%s\n", out);
		return 0;
	}
	if (argc < 2)
		return usage();
	if (strcmp(argv[0], "prepare") == 0)
		return prepare(root, best_effort, argc - 1, argv + 1);
	if (strcmp(argv[0], "dirs") == 0)
		return dirs(root, argv[1], &any);
	if (cgroup_new(root, argv[1], &cg, &e) < 0)
		return fail(e);
	if (strcmp(argv[0], "enter") == 0 && argc == 3) {
		char *end;
		long pid = strtol(argv[2], &end, 10);

		if (*end || pid <= 0 || pid > INT_MAX)
			rc = usage();
		else
			rc = cgroup_enter(cg, (pid_t)pid, &e);
	} else if (strcmp(argv[0], "kill") == 0) {
		rc = cgroup_kill(cg, &e);
	} else if (strcmp(argv[0], "destroy") == 0) {
		rc = cgroup_destroy(cg, &e);
	} else {
		rc = usage();
	}
	cgroup_free(cg);
	return rc < 0 ? fail(e) : rc;
}
