/* Unit tests of the policy model (policy_default, policy_parse,
 * policy_emit), the size and duration units, and the example policies in
 * config-examples/policy/. */
#include <dirent.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "units.h"

#define EXAMPLES "config-examples/policy/"
#define MiB (UINT64_C(1) << 20)

/* parse(emit(p)) must emit the same text: the emitter writes every
 * field, so equal text means an equal policy. */
static void check_round_trip(const struct policy *p)
{
	_cleanup_free_ char *t1 = policy_text(p), *t2 = NULL;
	struct policy *back;

	if (!t1)
		return;
	back = policy_of(t1);
	if (!back)
		return;
	t2 = policy_text(back);
	if (t2 && strcmp(t1, t2) != 0) {
		printf("# round trip differs:\n%s\n---\n%s\n", t1, t2);
		unit_failed_checks++;
	}
	policy_free(back);
}

/* ---- defaults and keys ----------------------------------------------- */

TEST(defaults_are_the_design_table)
{
	struct policy *p = policy_of(NULL);

	if (!p)
		return;
	CHECK(p->mode == POLICY_SANDBOX);
	CHECK(p->network == POLICY_NET_LOOPBACK);
	CHECK(p->rootfs == POLICY_ROOTFS_OVERLAY);
	CHECK(p->scratch_size == 64 * MiB);
	CHECK(p->n_env_allow == 4 && p->env_allow[4] == NULL);
	CHECK_STR(p->env_allow[0], "PATH");
	CHECK_STR(p->env_allow[3], "LANG");
	CHECK(p->uid == 65534 && p->gid == 65534);
	CHECK(!p->allow_root && !p->keep_groups);
	CHECK(p->n_caps_keep == 0 && p->n_syscalls_allow == 0);
	CHECK(p->wall_clock == 600);
	CHECK(p->memory == (int64_t)(512 * MiB));
	CHECK(p->pids == 256);
	CHECK(p->cpu_quota == 0 && p->cpu_period == 100000);
	CHECK(!p->limits_best_effort);
	CHECK(p->n_mounts == 0 && p->n_devices == 0);
	CHECK(p->n_sysctl_allow == 10);
	CHECK_STR(p->sysctl_allow[0], "kernel.shm_rmid_forced");
	CHECK_STR(p->sysctl_allow[3], "net.ipv4.ping_group_range");
	check_round_trip(p);
	policy_free(p);
}

TEST(empty_document_is_the_defaults)
{
	struct policy *d = policy_of(NULL), *p = policy_of("{}");
	_cleanup_free_ char *td = d ? policy_text(d) : NULL;
	_cleanup_free_ char *tp = p ? policy_text(p) : NULL;

	CHECK(td && tp && strcmp(td, tp) == 0);
	policy_free(d);
	policy_free(p);
}

TEST(every_key_is_read)
{
	struct policy *p = policy_of(
	    "{ \"mode\": \"permissive\", \"network\": \"config\","
	    "  \"rootfs\": { \"mode\": \"strict\", \"scratchSize\": \"1GiB\" },"
	    "  \"env\": { \"allow\": [\"PATH\", \"PYTHONPATH\"] },"
	    "  \"user\": { \"uid\": 1000, \"gid\": 100, \"allowRoot\": true,"
	    "            \"keepGroups\": true },"
	    "  \"capabilities\": { \"keep\": [\"CAP_NET_BIND_SERVICE\"] },"
	    "  \"syscalls\": { \"allow\": [\"io_pgetevents\", \"mbind\"] },"
	    "  \"limits\": { \"wallClock\": 0, \"memory\": 1073741824,"
	    "              \"pids\": 0, \"cpus\": 1.5, \"bestEffort\": true },"
	    "  \"mounts\": [ { \"source\": \"/data\", \"rw\": true },"
	    "              { \"source\": \"/srv/models\" } ],"
	    "  \"devices\": [ { \"path\": \"/dev/nvidia0\", \"type\": \"c\","
	    "                 \"major\": 195, \"minor\": 0, \"access\": "
	    "\"rwm\" },"
	    "               { \"path\": \"/dev/fuse\", \"type\": \"c\","
	    "                 \"major\": 10, \"minor\": 229 } ],"
	    "  \"sysctls\": { \"allow\": [\"net.ipv4.*\"] } }");

	if (!p)
		return;
	CHECK(p->mode == POLICY_PERMISSIVE && p->network == POLICY_NET_CONFIG);
	CHECK(p->rootfs == POLICY_ROOTFS_STRICT);
	CHECK(p->scratch_size == 1024 * MiB);
	CHECK(p->n_env_allow == 2 && has_str(p->env_allow, 2, "PYTHONPATH"));
	CHECK(p->uid == 1000 && p->gid == 100);
	CHECK(p->allow_root && p->keep_groups);
	CHECK(p->n_caps_keep == 1);
	CHECK_STR(p->caps_keep[0], "CAP_NET_BIND_SERVICE");
	CHECK(p->n_syscalls_allow == 2);
	CHECK(p->wall_clock == 0 && p->pids == 0);
	CHECK(p->memory == (int64_t)(1024 * MiB));
	CHECK(p->cpu_quota == 150000 && p->cpu_period == 100000);
	CHECK(p->limits_best_effort);
	CHECK(p->n_mounts == 2 && p->mounts[0].rw && !p->mounts[1].rw);
	CHECK_STR(p->mounts[1].source, "/srv/models");
	CHECK(p->n_devices == 2);
	CHECK(p->devices[0].type == 'c' && p->devices[0].major == 195);
	CHECK_STR(p->devices[0].access, "rwm");
	CHECK_STR(p->devices[1].access, "rw"); /* the default access */
	CHECK(p->n_sysctl_allow == 1);
	check_round_trip(p);
	policy_free(p);
}

TEST(a_present_empty_list_replaces_the_default)
{
	struct policy *p = policy_of("{\"env\": {\"allow\": []},"
				     " \"sysctls\": {\"allow\": []}}");

	if (!p)
		return;
	CHECK(p->n_env_allow == 0 && p->n_sysctl_allow == 0);
	check_round_trip(p);
	policy_free(p);
}

TEST(a_section_without_its_key_keeps_the_default)
{
	struct policy *p =
	    policy_of("{\"env\": {}, \"limits\": {\"pids\": 9}}");

	if (!p)
		return;
	CHECK(p->n_env_allow == 4);
	CHECK(p->pids == 9 && p->wall_clock == 600);
	policy_free(p);
}

/* "report": {"dir": D}: a clean absolute path, kept through the state
 * directory's copy of the policy (emit, then parse). */
TEST(report_dir_is_a_clean_absolute_path)
{
	struct policy *p = policy_of("{\"report\": {\"dir\": \"/var/log/c\"}}");

	if (p) {
		CHECK_STR(p->report_dir, "/var/log/c");
		check_round_trip(p);
		policy_free(p);
	}
	p = policy_of("{}");
	if (p) {
		CHECK(p->report_dir == NULL);
		policy_free(p);
	}
	CHECK_ERROR(policy_error("{\"report\": {\"dir\": \"logs\"}}"),
		    ".report.dir: must be an absolute path");
	CHECK_ERROR(policy_error("{\"report\": {\"dir\": \"/a/../b\"}}"),
		    ".report.dir: must not contain \"..\"");
	CHECK_ERROR(policy_error("{\"report\": {\"file\": \"/a\"}}"),
		    ".report.file: unknown key");
}

TEST(sizes_are_bytes_or_binary_units)
{
	static const struct {
		const char *json;
		uint64_t bytes;
	} cases[] = {
	    {"\"64MiB\"", 64 * MiB},  {"\"512KiB\"", 512 * 1024},
	    {"\"1GiB\"", 1024 * MiB}, {"\"2 TiB\"", UINT64_C(2) << 40},
	    {"\"4096B\"", 4096},      {"\"4096\"", 4096},
	    {"1048576", MiB},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char json[128];
		struct policy *p;

		snprintf(json, sizeof(json),
			 "{\"rootfs\": {\"scratchSize\": %s},"
			 " \"limits\": {\"memory\": %s}}",
			 cases[i].json, cases[i].json);
		p = policy_of(json);
		CHECK(p && p->scratch_size == cases[i].bytes);
		CHECK(p && p->memory == (int64_t)cases[i].bytes);
		if (p)
			check_round_trip(p);
		policy_free(p);
	}
}

TEST(bad_sizes_name_the_field)
{
	static const char *const bad[] = {
	    "\"1GB\"",
	    "\"1.5GiB\"",
	    "\"\"",
	    "\"MiB\"",
	    "\"-1\"",
	    "\"+5\"",
	    "\"5 \"",
	    "-1",
	    "1.5",
	    "true",
	    "\"9999999999999GiB\"",
	    "\"99999999999999999999\"",
	};
	const char *msg = ".limits.memory: expected a size in bytes or a "
			  "string like \"512MiB\"";

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char json[128];

		snprintf(json, sizeof(json), "{\"limits\": {\"memory\": %s}}",
			 bad[i]);
		CHECK_ERROR(policy_error(json), msg);
	}
	CHECK_ERROR(policy_error("{\"rootfs\": {\"scratchSize\": 0}}"),
		    ".rootfs.scratchSize: must be greater than 0");
	CHECK_ERROR(policy_error("{\"rootfs\": {\"scratchSize\": \"0MiB\"}}"),
		    ".rootfs.scratchSize: must be greater than 0");
}

TEST(cpus_round_trip_through_the_quota)
{
	static const struct {
		const char *json;
		int64_t quota;
	} cases[] = {{"0", 0},
		     {"1", 100000},
		     {"1.5", 150000},
		     {"0.01", 1000},
		     {"0.33333", 33333},
		     {"2.5e0", 250000},
		     {"65536", 6553600000}};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char json[96];
		struct policy *p;

		snprintf(json, sizeof(json), "{\"limits\": {\"cpus\": %s}}",
			 cases[i].json);
		p = policy_of(json);
		CHECK(p && p->cpu_quota == cases[i].quota);
		if (p)
			check_round_trip(p);
		policy_free(p);
	}
}

/* ---- errors ---------------------------------------------------------- */

TEST(unknown_keys_and_wrong_types_name_the_path)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{\"limits\": {\"memroy\": 1}}", ".limits.memroy: unknown key"},
	    {"{\"bogus\": 1}", ".bogus: unknown key"},
	    /* found by tests/fuzz: the message stays one line */
	    {"{\"a\\nb\\\\\": 1}", ".a\\x0ab\\\\: unknown key"},
	    {"{\"env\": {\"alow\": []}}", ".env.alow: unknown key"},
	    {"{\"user\": {\"name\": \"x\"}}", ".user.name: unknown key"},
	    {"{\"mounts\": [{\"source\": \"/d\", \"ro\": true}]}",
	     ".mounts[0].ro: unknown key"},
	    {"{\"devices\": [{\"path\": \"/dev/x\", \"type\": \"c\","
	     " \"major\": 1, \"minor\": 1, \"mode\": 1}]}",
	     ".devices[0].mode: unknown key"},
	    {"{\"mode\": \"sandboxx\"}",
	     ".mode: expected \"sandbox\" or \"permissive\", got \"sandboxx\""},
	    {"{\"mode\": 1}", ".mode: expected \"sandbox\" or \"permissive\""},
	    {"{\"network\": \"host\"}",
	     ".network: expected \"loopback\" or \"config\", got \"host\""},
	    {"{\"rootfs\": {\"mode\": \"ro\"}}",
	     ".rootfs.mode: expected \"overlay\" or \"strict\", got \"ro\""},
	    {"{\"rootfs\": []}", ".rootfs: expected an object"},
	    {"{\"env\": {\"allow\": \"PATH\"}}",
	     ".env.allow: expected an array"},
	    {"{\"env\": {\"allow\": [1]}}", ".env.allow[0]: expected a string"},
	    {"{\"user\": {\"uid\": -1}}",
	     ".user.uid: expected an unsigned 32-bit integer"},
	    {"{\"user\": {\"gid\": 4294967296}}",
	     ".user.gid: expected an unsigned 32-bit integer"},
	    {"{\"user\": {\"allowRoot\": \"yes\"}}",
	     ".user.allowRoot: expected a boolean"},
	    {"{\"limits\": {\"wallClock\": -1}}",
	     ".limits.wallClock: expected an integer from 0 to "
	     "9223372036854775807"},
	    {"{\"limits\": {\"pids\": \"many\"}}",
	     ".limits.pids: expected an integer from 0 to 9223372036854775807"},
	    {"{\"limits\": {\"bestEffort\": 1}}",
	     ".limits.bestEffort: expected a boolean"},
	    {"{\"mounts\": {}}", ".mounts: expected an array"},
	    {"{\"mounts\": [1]}", ".mounts[0]: expected an object"},
	    {"{\"mode\": \"sandbox\", \"mode\": \"permissive\"}",
	     ".mode: duplicate key"},
	    {"[]", "expected a JSON object"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_ERROR(policy_error(cases[i].json), cases[i].msg);
	CHECK_ERROR(policy_error("{"),
		    "invalid JSON: parse error: premature EOF");
}

TEST(bad_names_are_refused)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{\"env\": {\"allow\": [\"A=B\"]}}",
	     ".env.allow[0]: invalid variable name \"A=B\""},
	    {"{\"env\": {\"allow\": [\"PATH\", \"\"]}}",
	     ".env.allow[1]: invalid variable name \"\""},
	    {"{\"capabilities\": {\"keep\": [\"cap_chown\"]}}",
	     ".capabilities.keep[0]: expected a capability name like "
	     "\"CAP_NET_BIND_SERVICE\", got \"cap_chown\""},
	    {"{\"capabilities\": {\"keep\": [\"CAP_NET_BIND_SERIVCE\"]}}",
	     ".capabilities.keep[0]: unknown capability "
	     "\"CAP_NET_BIND_SERIVCE\""},
	    {"{\"syscalls\": {\"allow\": [\"Read\"]}}",
	     ".syscalls.allow[0]: invalid syscall name \"Read\""},
	    {"{\"syscalls\": {\"allow\": [\"\"]}}",
	     ".syscalls.allow[0]: invalid syscall name \"\""},
	    {"{\"sysctls\": {\"allow\": [\"kernel.*.x\"]}}",
	     ".sysctls.allow[0]: invalid sysctl name \"kernel.*.x\""},
	    {"{\"sysctls\": {\"allow\": [\"net..ipv4\"]}}",
	     ".sysctls.allow[0]: invalid sysctl name \"net..ipv4\""},
	    {"{\"sysctls\": {\"allow\": [\"net/ipv4/x\"]}}",
	     ".sysctls.allow[0]: invalid sysctl name \"net/ipv4/x\""},
	    {"{\"user\": {\"uid\": 0}}",
	     ".user.uid: must not be 0 unless allowRoot is true"},
	    {"{\"user\": {\"gid\": 0}}",
	     ".user.gid: must not be 0 unless allowRoot is true"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_ERROR(policy_error(cases[i].json), cases[i].msg);
	CHECK_ERROR(policy_error("{\"user\": {\"uid\": 0, \"gid\": 0,"
				 " \"allowRoot\": true}}"),
		    "(parsed)");
	CHECK_ERROR(policy_error("{\"sysctls\": {\"allow\": [\"net.ipv4.*\","
				 " \"*\", \"kernel.msgmax\"]}}"),
		    "(parsed)");
}

TEST(mount_and_device_paths_are_checked)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{\"mounts\": [{\"source\": \"data\"}]}",
	     ".mounts[0].source: must be an absolute path"},
	    {"{\"mounts\": [{\"source\": \"/data/../etc\"}]}",
	     ".mounts[0].source: must not contain \"..\""},
	    {"{\"mounts\": [{\"source\": \"/data/\"}]}",
	     ".mounts[0].source: must be a clean path (no \"//\", \".\" or "
	     "trailing \"/\")"},
	    {"{\"mounts\": [{\"source\": \"/a//b\"}]}",
	     ".mounts[0].source: must be a clean path (no \"//\", \".\" or "
	     "trailing \"/\")"},
	    {"{\"mounts\": [{\"source\": \"/a/./b\"}]}",
	     ".mounts[0].source: must be a clean path (no \"//\", \".\" or "
	     "trailing \"/\")"},
	    {"{\"mounts\": [{\"rw\": true}]}", ".mounts[0].source: missing"},
	    {"{\"mounts\": [{\"source\": \"/d\", \"rw\": 1}]}",
	     ".mounts[0].rw: expected a boolean"},
	    {"{\"devices\": [{\"path\": \"/tmp/x\", \"type\": \"c\","
	     " \"major\": 1, \"minor\": 1}]}",
	     ".devices[0].path: must be a path under /dev/"},
	    {"{\"devices\": [{\"path\": \"/dev/../etc/x\", \"type\": \"c\","
	     " \"major\": 1, \"minor\": 1}]}",
	     ".devices[0].path: must not contain \"..\""},
	    {"{\"devices\": [{\"path\": \"/dev/x\", \"type\": \"u\","
	     " \"major\": 1, \"minor\": 1}]}",
	     ".devices[0].type: expected \"c\" or \"b\", got \"u\""},
	    {"{\"devices\": [{\"path\": \"/dev/x\", \"type\": \"c\","
	     " \"minor\": 1}]}",
	     ".devices[0].major: missing"},
	    {"{\"devices\": [{\"path\": \"/dev/x\", \"type\": \"c\","
	     " \"major\": -1, \"minor\": 1}]}",
	     ".devices[0].major: expected an unsigned 32-bit integer"},
	    {"{\"devices\": [{\"path\": \"/dev/x\", \"type\": \"c\","
	     " \"major\": 1, \"minor\": 1, \"access\": \"rx\"}]}",
	     ".devices[0].access: expected a subset of \"rwm\", got \"rx\""},
	    {"{\"devices\": [{\"path\": \"/dev/x\", \"type\": \"c\","
	     " \"major\": 1, \"minor\": 1, \"access\": \"\"}]}",
	     ".devices[0].access: expected a subset of \"rwm\", got \"\""},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_ERROR(policy_error(cases[i].json), cases[i].msg);
	CHECK_ERROR(policy_error("{\"mounts\": [{\"source\": \"/\"}]}"),
		    "(parsed)");
}

TEST(cpus_out_of_range)
{
	static const char *const bad[] = {"-1",	   "\"2\"", "0.001",
					  "65537", "1e400", "true"};
	const char *msg = ".limits.cpus: expected a number of CPUs from 0.01 "
			  "to 65536 (0: no limit)";

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char json[96];

		snprintf(json, sizeof(json), "{\"limits\": {\"cpus\": %s}}",
			 bad[i]);
		CHECK_ERROR(policy_error(json), msg);
	}
}

TEST(a_pool_of_ids_is_read_checked_and_written)
{
	struct policy *p =
	    policy_of("{\"user\": {\"pool\": {\"hostUID\": 1073741824,"
		      " \"hostGID\": 2147483648, \"size\": 131072}}}");
	_cleanup_free_ char *bad = NULL;

	CHECK(p && p->pool.set && !p->pool.from_subid);
	CHECK(p && p->pool.uid == 1073741824u && p->pool.gid == 2147483648u &&
	      p->pool.size == 131072);
	if (p)
		check_round_trip(p);
	policy_free(p);
	/* host root, system ids, less than one slice, past the id space */
	static const char *const refused[] = {
	    "{\"user\": {\"pool\": {\"hostUID\": 0, \"hostGID\": 65536,"
	    " \"size\": 65536}}}",
	    "{\"user\": {\"pool\": {\"hostUID\": 65536, \"hostGID\": 1000,"
	    " \"size\": 65536}}}",
	    "{\"user\": {\"pool\": {\"hostUID\": 65536, \"hostGID\": 65536,"
	    " \"size\": 1000}}}",
	    "{\"user\": {\"pool\": {\"hostUID\": 4294901760,"
	    " \"hostGID\": 65536, \"size\": 65536}}}",
	    "{\"user\": {\"pool\": {\"hostUID\": 65536, \"size\": 65536}}}",
	};
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		free(bad);
		bad = policy_error(refused[i]);
		CHECK(bad && strstr(bad, ".user.pool"));
	}
}

TEST(a_null_key_keeps_the_default)
{
	struct policy *p = policy_of("{\"limits\": {\"memory\": null},"
				     " \"mode\": null}");

	CHECK(p && p->memory == (int64_t)(512 * MiB));
	CHECK(p && p->mode == POLICY_SANDBOX);
	policy_free(p);
}

/* ---- units ----------------------------------------------------------- */

TEST(size_and_duration_strings)
{
	static const struct {
		uint64_t bytes;
		const char *compact, *spaced;
	} sizes[] = {
	    {64 * MiB, "64MiB", "64 MiB"},
	    {1536 * MiB, "1536MiB", "1536 MiB"},
	    {UINT64_C(1) << 30, "1GiB", "1 GiB"},
	    {2048, "2KiB", "2 KiB"},
	    {1000, "1000", "1000 bytes"},
	    {0, "0", "0 bytes"},
	};
	static const struct {
		uint64_t s;
		const char *text;
	} times[] = {{600, "600s (10 min)"},
		     {90, "90s (1 min 30 s)"},
		     {30, "30s"},
		     {0, "none"},
		     {3600, "3600s (1 h)"},
		     {86461, "86461s (1 d 1 min)"},
		     {900, "900s (15 min)"}};

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		_cleanup_free_ char *a =
		    units_size_string(sizes[i].bytes, false);
		_cleanup_free_ char *b =
		    units_size_string(sizes[i].bytes, true);

		CHECK_STR(a, sizes[i].compact);
		CHECK_STR(b, sizes[i].spaced);
	}
	for (size_t i = 0; i < ARRAY_SIZE(times); i++) {
		_cleanup_free_ char *t = units_duration_string(times[i].s);

		CHECK_STR(t, times[i].text);
	}
}

TEST(utc_time_matches_gmtime)
{
	static const int64_t secs[] = {
	    0,	       1,	   86399,      86400,	     951782400,
	    951868799, 1709164800, 4107542400, 253402300799, -1};
	char got[UNITS_UTC_TIME_LEN], want[UNITS_UTC_TIME_LEN];

	for (size_t i = 0; i < ARRAY_SIZE(secs); i++) {
		time_t t = (time_t)secs[i];
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S", &tm);
		strcat(want, ".000000042Z");
		units_utc_time(secs[i], 42, got, sizeof(got));
		CHECK_STR(got, want);
	}
	/* every day of 1999-2101, leap days and century years included */
	for (int64_t s = 915148800; s < 4136400000; s += 86400 + 3601) {
		time_t t = (time_t)s;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S.000000000Z",
			 &tm);
		units_utc_time(s, 0, got, sizeof(got));
		if (strcmp(got, want) != 0) {
			CHECK_STR(got, want);
			break;
		}
	}
	units_utc_time(253402300800, 0, got, sizeof(got));
	CHECK_STR(got, "?");
}

TEST(parse_count_and_size)
{
	uint64_t v = 0;

	CHECK(units_parse_count("300", 1000, &v) && v == 300);
	CHECK(!units_parse_count("0", 1000, &v));
	CHECK(!units_parse_count("1001", 1000, &v));
	CHECK(!units_parse_count("-3", 1000, &v));
	CHECK(!units_parse_count(" 3", 1000, &v));
	CHECK(!units_parse_count("3s", 1000, &v));
	CHECK(!units_parse_count("", 1000, &v));
	CHECK(units_parse_size("256MiB", INT64_MAX, &v) && v == 256 * MiB);
	CHECK(!units_parse_size("256mib", INT64_MAX, &v));
	CHECK(!units_parse_size("2GiB", UINT64_C(1) << 30, &v));
}

/* ---- the example policies -------------------------------------------- */

static struct policy *example(const char *name)
{
	char path[256];
	size_t len = 0;
	_cleanup_free_ char *json = NULL;

	snprintf(path, sizeof(path), EXAMPLES "%s", name);
	json = read_file(path, &len);
	return json ? policy_of(json) : NULL;
}

TEST(default_json_is_exactly_the_built_ins)
{
	struct policy *d = policy_of(NULL), *p = example("default.json");
	_cleanup_free_ char *built_in = d ? policy_text(d) : NULL;
	_cleanup_free_ char *file = NULL, *parsed = p ? policy_text(p) : NULL;
	size_t len = 0;

	file = read_file(EXAMPLES "default.json", &len);
	CHECK(built_in && file && strcmp(built_in, file) == 0);
	CHECK(built_in && parsed && strcmp(built_in, parsed) == 0);
	policy_free(d);
	policy_free(p);
}

TEST(every_example_parses_and_round_trips)
{
	DIR *dir = opendir(EXAMPLES);
	struct dirent *e;
	int count = 0;

	CHECK(dir != NULL);
	while (dir && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		struct policy *p;

		if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)
			continue;
		printf("# %s\n", e->d_name);
		p = example(e->d_name);
		if (p)
			check_round_trip(p);
		policy_free(p);
		count++;
	}
	if (dir)
		closedir(dir);
	CHECK(count >= 4);
}

TEST(agent_gpu_and_permissive_examples)
{
	struct policy *agent = example("agent.json");
	struct policy *gpu = example("gpu.json");
	struct policy *perm = example("permissive.json");
	struct policy *pkgs = example("packages.json");

	CHECK(agent && agent->memory == (int64_t)(2048 * MiB));
	CHECK(agent && agent->pids == 512 && agent->wall_clock == 900);
	CHECK(agent && agent->mode == POLICY_SANDBOX &&
	      agent->n_caps_keep == 0);
	CHECK(gpu && gpu->n_devices == 4);
	CHECK(gpu && gpu->n_devices == 4 &&
	      strcmp(gpu->devices[1].path, "/dev/nvidia0") == 0 &&
	      gpu->devices[1].major == 195 && gpu->devices[1].minor == 0);
	CHECK(perm && perm->mode == POLICY_PERMISSIVE);
	CHECK(pkgs && pkgs->network == POLICY_NET_EGRESS &&
	      pkgs->n_egress_allow == 5);
	policy_free(pkgs);
	policy_free(agent);
	policy_free(gpu);
	policy_free(perm);
}

int main(void)
{
	return unit_run();
}
