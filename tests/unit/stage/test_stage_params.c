/* The stage's parameter format (stage/params.h): what corral encodes, the
 * stage decodes exactly; and since the stage can be started from inside a
 * container with any bytes on any fd, no input (truncated, extended,
 * flipped, random) crashes the decoder, leaks (make sanitize) or decodes
 * into something the format cannot hold. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "params.h"
#include "unit.h"
#include "util.h"

static char *args[] = {"/bin/sh", "-c", "echo hi", NULL};
static char *env[] = {"PATH=/bin", "HOME=/", NULL};
static char *hook_args[] = {"hook", "--flag", NULL};
static char *hook_env[] = {"A=1", NULL};
static uint32_t gids[] = {10, 20, 65534};
static struct sock_filter insns[] = {
    {0x20, 0, 0, 4},
    {0x15, 1, 0, 0xc000003e},
    {0x06, 0, 0, 0x7fff0000},
};

static void sample(struct stage_params *p, struct spec_hook *hook)
{
	*hook = (struct spec_hook){
	    .path = "/usr/bin/hook",
	    .args = hook_args,
	    .n_args = 2,
	    .env = hook_env,
	    .n_env = 1,
	    .timeout = {true, 7},
	};
	*p = (struct stage_params){
	    .mode = STAGE_INIT,
	    .args = args,
	    .n_args = 3,
	    .env = env,
	    .n_env = 2,
	    .cwd = "/work dir",
	    .uid = 1000,
	    .gid = 1001,
	    .gids = gids,
	    .n_gids = 3,
	    .has_umask = true,
	    .umask = 027,
	    .caps = {~0ULL, 1, 2, 3, 1ULL << 40},
	    .enforced = true,
	    .no_new_privs = true,
	    .terminal = false,
	    .dumpable = true,
	    .self_only = true,
	    .no_fork = true,
	    .rlimits = {{7, 1024, 4096}, {1, 0, UINT64_MAX}},
	    .n_rlimits = 2,
	    .has_oom_score_adj = true,
	    .oom_score_adj = -17,
	    .keep_fds = 2,
	    .apparmor_profile = "corral-default",
	    .selinux_label = NULL,
	    .baseline = {0, 3, insns},
	    .seccomp = {4, 2, insns},
	    .wall_clock = 600,
	    .supervisor_uid = 0,
	    .supervisor_gid = 42,
	    .sync_fd = 5,
	    .fifo_fd = 6,
	    .cgroup_procs_fd = 7,
	    .cgroup_kill_fd = -1,
	    .cgroup_procs_reopen = true,
	    .start_hooks = hook,
	    .n_start_hooks = 1,
	};
}

static bool same_filter(const struct stage_filter *a,
			const struct stage_filter *b)
{
	return a->flags == b->flags && a->len == b->len &&
	       (a->len == 0 ||
		memcmp(a->insns, b->insns, a->len * sizeof(*a->insns)) == 0);
}

static void encode_sample(char **buf, size_t *len)
{
	_cleanup_error_ struct error *e = NULL;
	struct stage_params p;
	struct spec_hook hook;

	sample(&p, &hook);
	*buf = NULL;
	CHECK(stage_params_encode(&p, buf, len, &e) == 0);
}

TEST(round_trip)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *buf = NULL;
	struct stage_params in, out;
	struct spec_hook hook;
	size_t len;

	sample(&in, &hook);
	CHECK(stage_params_encode(&in, &buf, &len, &e) == 0);
	CHECK(stage_params_decode(buf, len, &out, &e) == 0);
	CHECK(out.mode == STAGE_INIT && out.n_args == 3 && out.n_env == 2);
	for (size_t i = 0; i < 3; i++)
		CHECK_STR(out.args[i], args[i]);
	CHECK(out.args[3] == NULL && out.env[2] == NULL);
	CHECK_STR(out.env[1], "HOME=/");
	CHECK_STR(out.cwd, "/work dir");
	CHECK(out.uid == 1000 && out.gid == 1001 && out.n_gids == 3 &&
	      out.gids[2] == 65534);
	CHECK(out.has_umask && out.umask == 027);
	CHECK(memcmp(out.caps, in.caps, sizeof(in.caps)) == 0);
	CHECK(out.enforced && out.no_new_privs && !out.terminal &&
	      out.dumpable && out.self_only && out.no_fork &&
	      out.keep_fds == 2);
	CHECK(out.n_rlimits == 2 && out.rlimits[0].resource == 7 &&
	      out.rlimits[0].soft == 1024 && out.rlimits[0].hard == 4096 &&
	      out.rlimits[1].hard == UINT64_MAX);
	CHECK(out.has_oom_score_adj && out.oom_score_adj == -17);
	CHECK(out.supervisor_uid == 0 && out.supervisor_gid == 42);
	CHECK_STR(out.apparmor_profile, "corral-default");
	CHECK(out.selinux_label == NULL);
	CHECK(same_filter(&out.baseline, &in.baseline));
	CHECK(same_filter(&out.seccomp, &in.seccomp));
	CHECK(out.wall_clock == 600 && out.sync_fd == 5 && out.fifo_fd == 6 &&
	      out.cgroup_procs_fd == 7 && out.cgroup_kill_fd == -1 &&
	      out.cgroup_procs_reopen);
	CHECK(out.n_start_hooks == 1);
	if (out.n_start_hooks == 1) {
		struct spec_hook *h = &out.start_hooks[0];

		CHECK_STR(h->path, "/usr/bin/hook");
		CHECK(h->n_args == 2 && h->n_env == 1 && h->timeout.set &&
		      h->timeout.v == 7);
		CHECK_STR(h->args[1], "--flag");
		CHECK(h->args[2] == NULL);
		CHECK_STR(h->env[0], "A=1");
	}
	stage_params_release(&out);
}

TEST(empty_lists_and_no_filters)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *buf = NULL;
	char *one[] = {"true", NULL}, *none[] = {NULL};
	struct stage_params in = {
	    .mode = STAGE_EXEC,
	    .args = one,
	    .n_args = 1,
	    .env = none,
	    .cwd = "/",
	    .sync_fd = -1,
	    .fifo_fd = -1,
	    .cgroup_procs_fd = -1,
	    .cgroup_kill_fd = -1,
	};
	struct stage_params out;
	size_t len;

	CHECK(stage_params_encode(&in, &buf, &len, &e) == 0);
	CHECK(stage_params_decode(buf, len, &out, &e) == 0);
	CHECK(out.mode == STAGE_EXEC && out.n_args == 1 && out.n_env == 0);
	CHECK(out.env && out.env[0] == NULL);
	CHECK(out.baseline.insns == NULL && out.baseline.len == 0);
	CHECK(out.seccomp.insns == NULL && out.n_start_hooks == 0);
	CHECK(out.gids == NULL && out.n_gids == 0);
	CHECK(out.sync_fd == -1 && out.cgroup_procs_fd == -1);
	stage_params_release(&out);
}

TEST(encode_refuses_what_the_format_cannot_hold)
{
	_cleanup_error_ struct error *e = NULL;
	char *buf = NULL;
	struct stage_params p;
	struct spec_hook hook;
	size_t len;

	sample(&p, &hook);
	p.n_args = 0;
	CHECK(stage_params_encode(&p, &buf, &len, &e) < 0 && e);
	CHECK(buf == NULL);
	error_free(e);
	e = NULL;
	sample(&p, &hook);
	p.n_rlimits = STAGE_RLIMITS_MAX + 1;
	CHECK(stage_params_encode(&p, &buf, &len, &e) < 0 && e);
	CHECK(buf == NULL);
}

/* An oom_score_adj outside the kernel's range is malformed. */
TEST(oom_score_adj_out_of_range_fails)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *buf = NULL;
	struct stage_params p, out;
	struct spec_hook hook;
	size_t len;

	sample(&p, &hook);
	p.oom_score_adj = 1001;
	CHECK(stage_params_encode(&p, &buf, &len, &e) == 0);
	CHECK(stage_params_decode(buf, len, &out, &e) < 0 && e &&
	      strstr(e->msg, "oom_score_adj"));
	stage_params_release(&out);
}

/* Every proper prefix of a valid encoding is an error, and so is the
 * encoding with a byte more. */
TEST(truncated_and_extended_input_fails)
{
	_cleanup_free_ char *buf = NULL, *longer = NULL;
	size_t len, failures = 0;

	encode_sample(&buf, &len);
	for (size_t n = 0; n < len; n++) {
		_cleanup_error_ struct error *e = NULL;
		struct stage_params out;
		_cleanup_free_ char *copy = malloc(n ? n : 1);

		/* a copy of just n bytes, so ASan sees any read past it */
		memcpy(copy, buf, n);
		if (stage_params_decode(copy, n, &out, &e) < 0 && e &&
		    e->code == EINVAL && strstr(e->msg, "stage parameters"))
			failures++;
		stage_params_release(&out);
	}
	CHECK(failures == len);
	longer = malloc(len + 1);
	memcpy(longer, buf, len);
	longer[len] = 0;
	{
		_cleanup_error_ struct error *e = NULL;
		struct stage_params out;

		CHECK(stage_params_decode(longer, len + 1, &out, &e) < 0);
		CHECK(e && strstr(e->msg, "trailing bytes"));
		stage_params_release(&out);
	}
}

/* Each byte of a valid encoding set to each of a few values: the decoder
 * either fails or yields parameters the format can hold. */
TEST(flipped_bytes_never_crash)
{
	static const unsigned char values[] = {0x00, 0x01, 0x02, 0x7f,
					       0x80, 0xfe, 0xff};
	_cleanup_free_ char *buf = NULL;
	size_t len, decoded = 0;

	encode_sample(&buf, &len);
	for (size_t i = 0; i < len; i++) {
		for (size_t v = 0; v < sizeof(values); v++) {
			_cleanup_error_ struct error *e = NULL;
			_cleanup_free_ char *copy = malloc(len);
			struct stage_params out;

			memcpy(copy, buf, len);
			copy[i] = (char)values[v];
			if (stage_params_decode(copy, len, &out, &e) == 0) {
				decoded++;
				CHECK(out.n_args >= 1 &&
				      out.args[out.n_args] == NULL);
				CHECK(out.env[out.n_env] == NULL);
				CHECK(out.mode == STAGE_INIT ||
				      out.mode == STAGE_EXEC);
				CHECK(out.baseline.len <= BPF_MAXINSNS);
			} else {
				CHECK(e != NULL);
			}
			stage_params_release(&out);
		}
	}
	CHECK(decoded > 0); /* some bytes are free values (ids, caps) */
}

/* Random bytes, and random bytes behind a valid magic: errors, no
 * crash.  A fixed seed keeps failures reproducible. */
TEST(garbage_input_fails)
{
	unsigned int seed = 1234;
	size_t errors = 0;

	for (int round = 0; round < 4000; round++) {
		_cleanup_error_ struct error *e = NULL;
		size_t len = (size_t)(rand_r(&seed) % 512);
		_cleanup_free_ char *buf = malloc(len ? len : 1);
		struct stage_params out;

		for (size_t i = 0; i < len; i++)
			buf[i] = (char)rand_r(&seed);
		if (round % 2 && len >= 8)
			memcpy(buf, STAGE_PARAMS_MAGIC, 8);
		if (stage_params_decode(buf, len, &out, &e) < 0 && e)
			errors++;
		stage_params_release(&out);
	}
	CHECK(errors == 4000);
}

/* Counts that claim more items than the bytes left could hold fail
 * before anything that size is allocated. */
TEST(huge_counts_fail_early)
{
	unsigned char buf[8 + 4 + 4];
	_cleanup_error_ struct error *e = NULL;
	struct stage_params out;

	memcpy(buf, STAGE_PARAMS_MAGIC, 8);
	memcpy(buf + 8, "\x01\x00\x00\x00", 4);	 /* STAGE_INIT */
	memcpy(buf + 12, "\xff\xff\xff\x7f", 4); /* 2^31 args */
	CHECK(stage_params_decode(buf, sizeof(buf), &out, &e) < 0);
	CHECK(e && strstr(e->msg, "args"));
	stage_params_release(&out);
}

TEST(embedded_nul_in_a_string_fails)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *buf = NULL;
	struct stage_params out;
	size_t len;
	char *at;

	encode_sample(&buf, &len);
	at = memmem(buf, len, "echo hi", 7);
	CHECK(at != NULL);
	if (!at)
		return;
	at[4] = '\0';
	CHECK(stage_params_decode(buf, len, &out, &e) < 0);
	stage_params_release(&out);
}

int main(void)
{
	return unit_run();
}
