/* The cgroup unit tests' fake kernel and fixtures (cgroup_fake.c): every
 * tests/unit/cgroup/ links it, in place of the kernel's side of
 * the seam in runtime/cgroup/cgroup_fs.h. */
#ifndef CORRAL_TEST_CGROUP_FAKE_H
#define CORRAL_TEST_CGROUP_FAKE_H

#include <stdbool.h>
#include <sys/types.h>

#include "cgroup.h"
#include "error.h"
#include "spec.h"

/* ---- the fake tree ---------------------------------------------------- */

extern char tree[256];	   /* the fake mount root */
extern char wlog[1 << 16]; /* every write, in order */
extern bool fake_v2;
extern bool no_swap_files;	/* swap accounting off */
extern bool no_kill_file;	/* a kernel before cgroup.kill */
extern const char *broken_file; /* made a directory: writes fail */
/* bpf(2) on the fake tree; NULL (as tree_new() leaves it): the kernel's */
extern long (*fake_bpf)(int cmd, void *attr, unsigned size);

/* A new fake tree: v2 with these controllers in the root's
 * cgroup.controllers, or v1 with these hierarchies (NULL: all). */
void tree_new(bool v2, const char *controllers);
/* A v1 hierarchy more in the tree: a directory, or a link to LINK_TO
 * ("net_prio" to "net_cls,net_prio", as hosts co-mount them). */
void tree_add_v1(const char *name, const char *link_to);
void tree_free(void);

void put_file(int dirfd, const char *name, const char *content);
/* The text of tree/DIR/NAME (a static buffer), NULL when absent. */
char *get_file(const char *dir, const char *name);
bool exists(const char *rel);
/* Set a file of the fake tree, as the kernel or an admin had it. */
void preset(const char *rel, const char *name, const char *content);
/* Put `pids` in the container's cgroup.procs of hierarchy `hier` ("" on
 * v2) of the fake tree. */
void procs(const char *hier, const char *path, const char *pids);

/* A sleeping child of the test's, listed in the cgroup.procs of `rel`. */
pid_t listed_sleeper(const char *rel);
bool sleeper_killed(pid_t p);
void sleeper_stop(pid_t p);

/* ---- checks ------------------------------------------------------------ */

/* The log after the line `s` at or after `from`; NULL when absent. */
const char *find_line(const char *from, const char *s);
/* Whether the log has these lines (NULL-ended), in this order. */
bool logged(const char *first, ...);
bool has_subdir(const char *rel);
/* Nothing of a container is left in any hierarchy. */
bool no_cgroup_left(const char *name);
bool has(char **list, const char *s);
bool msg_has(struct error *e, const char *s);

/* ---- fixtures ---------------------------------------------------------- */

#define ALL_V2 "cpuset cpu io memory hugetlb pids"

struct res_bufs {
	struct spec_resources r;
	struct spec_memory m;
	struct spec_cpu c;
	struct spec_block_io b;
	struct spec_hugepage_limit h[2];
	struct spec_kv u[2];
	struct spec_device_rule d[4];
};

#define SET(x) ((struct spec_opt){true, (x)})

/* Every kind of limit, with values whose formats differ per layout. */
void full_resources(struct res_bufs *x);
/* cgroup_prepare() on the fake tree. */
int prepare(const char *path, const struct spec_resources *r, bool best_effort,
	    struct cgroup **cg, char ***skipped, struct error **err);

#endif
