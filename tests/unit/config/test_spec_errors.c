/* Unit tests of the config.json reader on documents that must fail: each
 * error names the JSON path of what is wrong, and nothing is returned.
 * Also the resources object alone (`corral update`'s input) and the
 * writer's refusals.  Fixtures are read from tests/unit/fixtures/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

/* ---- helpers --------------------------------------------------------- */

/* The error message spec_parse() gives for a document that must fail. */
static char *parse_error_len(const char *json, size_t len)
{
	struct error *err = NULL;
	struct spec *s = NULL;
	char *msg;

	if (spec_parse(json, len, &s, &err) == 0) {
		spec_free(s);
		return strdup("(parsed)");
	}
	if (s) /* *out must be untouched on failure */
		return strdup("(out set on failure)");
	msg = strdup(err ? err->msg : "(no error)");
	error_free(err);
	return msg;
}

static char *parse_error(const char *json)
{
	return parse_error_len(json, strlen(json));
}

static char *process_error(const char *json)
{
	struct error *err = NULL;
	struct spec_process *p = NULL;
	char *msg;

	if (spec_parse_process(json, strlen(json), &p, &err) == 0) {
		spec_process_free(p);
		return strdup("(parsed)");
	}
	msg = strdup(err ? err->msg : "(no error)");
	error_free(err);
	return msg;
}

#define CHECK_ERROR(got_expr, expected)                                        \
	do {                                                                   \
		char *got_ = (got_expr);                                       \
		CHECK_STR(got_, expected);                                     \
		free(got_);                                                    \
	} while (0)

TEST(malformed_json)
{
	_cleanup_free_ char *json = NULL;
	size_t len = 0;

	json = read_file(FIXTURES "bad_truncated.json", &len);
	if (json)
		CHECK_ERROR(parse_error_len(json, len),
			    "invalid JSON: parse error: premature EOF");
	CHECK_ERROR(parse_error(""),
		    "invalid JSON: parse error: premature EOF");
	CHECK_ERROR(parse_error("{} x"),
		    "invalid JSON: parse error: trailing garbage");
	CHECK_ERROR(parse_error("{\"a\":1,}"),
		    "invalid JSON: parse error: invalid object key (must be a "
		    "string)");
	CHECK_ERROR(parse_error("/* comment */ {}"),
		    "invalid JSON: lexical error: probable comment found in "
		    "input text, comments are not enabled.");
	CHECK_ERROR(
	    parse_error("{\"ociVersion\": \"1\xff\"}"),
	    "invalid JSON: lexical error: invalid bytes in UTF8 string.");
	CHECK_ERROR(parse_error_len("{}\0{}", 5),
		    "invalid JSON: parse error: trailing garbage");
	CHECK_ERROR(parse_error("{\"ociVersion\": \"1\\u0000.2\"}"),
		    "invalid JSON: a string contains \\u0000");
}

TEST(nesting_is_bounded)
{
	char json[400];
	size_t n = 0;

	n += (size_t)snprintf(json, sizeof(json), "{\"x\":");
	for (int i = 0; i < 100; i++)
		json[n++] = '[';
	for (int i = 0; i < 100; i++)
		json[n++] = ']';
	json[n++] = '}';
	json[n] = '\0';
	CHECK_ERROR(parse_error(json),
		    "invalid JSON: nested deeper than 64 levels");
}

TEST(not_an_object)
{
	_cleanup_free_ char *json = NULL;
	size_t len = 0;

	json = read_file(FIXTURES "bad_not_object.json", &len);
	if (json)
		CHECK_ERROR(parse_error_len(json, len),
			    "expected a JSON object");
	CHECK_ERROR(parse_error("42"), "expected a JSON object");
	CHECK_ERROR(parse_error("null"), "expected a JSON object");
	CHECK_ERROR(parse_error("\"config\""), "expected a JSON object");
}

#define DOC(body) "{\"ociVersion\":\"1.0.2\"," body "}"
#define PROC(body) DOC("\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\"," body "}")
#define LINUX(body) DOC("\"linux\":{" body "}")
#define RES(body) LINUX("\"resources\":{" body "}")
#define SECCOMP(body)                                                          \
	LINUX("\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ALLOW\"," body "}")

static const struct {
	const char *json;
	const char *error;
} bad_documents[] = {
    /* top level */
    {"{}", ".ociVersion: missing"},
    {"{\"ociVersion\":null}", ".ociVersion: missing"},
    {"{\"ociVersion\":1}", ".ociVersion: expected a string"},
    {DOC("\"hostname\":\"a\",\"hostname\":\"b\""), ".hostname: duplicate key"},
    {DOC("\"process\":[]"), ".process: expected an object"},
    {DOC("\"root\":{}"), ".root.path: missing"},
    {DOC("\"root\":{\"path\":null}"), ".root.path: missing"},
    {DOC("\"root\":{\"path\":\"rootfs\",\"readonly\":\"yes\"}"),
     ".root.readonly: expected a boolean"},
    {DOC("\"mounts\":{}"), ".mounts: expected an array"},
    {DOC("\"mounts\":[\"/proc\"]"), ".mounts[0]: expected an object"},
    {DOC("\"mounts\":[{\"destination\":\"/a\"},{\"type\":\"bind\"}]"),
     ".mounts[1].destination: missing"},
    {DOC("\"mounts\":[{\"destination\":\"/a\",\"options\":[\"ro\",7]}]"),
     ".mounts[0].options[1]: expected a string"},
    {DOC("\"hooks\":{\"poststop\":[{\"args\":[\"x\"]}]}"),
     ".hooks.poststop[0].path: missing"},
    {DOC("\"hooks\":{\"prestart\":[{\"path\":\"hook\"}]}"),
     ".hooks.prestart[0].path: must be an absolute path"},
    {DOC("\"hooks\":{\"prestart\":[{\"path\":\"/h\",\"timeout\":0}]}"),
     ".hooks.prestart[0].timeout: must be positive"},
    {DOC("\"hooks\":{\"createRuntime\":[{\"path\":\"/h\",\"timeout\":-5}]}"),
     ".hooks.createRuntime[0].timeout: must be positive"},
    {DOC("\"hooks\":{\"prestart\":[{\"path\":\"/h\",\"timeout\":2.5}]}"),
     ".hooks.prestart[0].timeout: expected a 32-bit integer"},
    {DOC("\"annotations\":{\"io.x\":1}"),
     ".annotations[\"io.x\"]: expected a string"},
    {DOC("\"annotations\":{\"a\":\"1\",\"b\":\"2\",\"a\":\"3\"}"),
     ".annotations[\"a\"]: duplicate key"},
    {DOC("\"annotations\":[]"), ".annotations: expected an object"},
    /* process */
    {DOC("\"process\":{\"cwd\":\"/\"}"), ".process.args: missing"},
    {DOC("\"process\":{\"args\":[],\"cwd\":\"/\"}"),
     ".process.args: must not be empty"},
    {DOC("\"process\":{\"args\":\"sh\",\"cwd\":\"/\"}"),
     ".process.args: expected an array"},
    {DOC("\"process\":{\"args\":[\"a\",\"b\",3],\"cwd\":\"/\"}"),
     ".process.args[2]: expected a string"},
    {DOC("\"process\":{\"args\":[\"a\",null]}"),
     ".process.args[1]: expected a string"},
    {DOC("\"process\":{\"args\":[\"sh\"]}"), ".process.cwd: missing"},
    {DOC("\"process\":{\"args\":[\"sh\"],\"cwd\":\"tmp\"}"),
     ".process.cwd: must be an absolute path"},
    {DOC("\"process\":{\"args\":[\"sh\"],\"cwd\":\"\"}"),
     ".process.cwd: must be an absolute path"},
    {PROC("\"terminal\":1"), ".process.terminal: expected a boolean"},
    {PROC("\"env\":[\"A=1\",{}]"), ".process.env[1]: expected a string"},
    {PROC("\"user\":{\"uid\":-1,\"gid\":0}"),
     ".process.user.uid: expected an unsigned 32-bit integer"},
    {PROC("\"user\":{\"uid\":4294967296,\"gid\":0}"),
     ".process.user.uid: expected an unsigned 32-bit integer"},
    {PROC("\"user\":{\"uid\":\"0\",\"gid\":0}"),
     ".process.user.uid: expected an unsigned 32-bit integer"},
    {PROC("\"user\":{\"uid\":1.5,\"gid\":0}"),
     ".process.user.uid: expected an unsigned 32-bit integer"},
    {PROC("\"user\":{\"uid\":1.0,\"gid\":0}"),
     ".process.user.uid: expected an unsigned 32-bit integer"},
    {PROC("\"user\":{\"uid\":1e3,\"gid\":0}"),
     ".process.user.uid: expected an unsigned 32-bit integer"},
    {PROC("\"user\":{\"uid\":0}"), ".process.user.gid: missing"},
    {PROC("\"user\":{}"), ".process.user.uid: missing"},
    {PROC("\"user\":{\"uid\":0,\"gid\":0,\"additionalGids\":[1,-2]}"),
     ".process.user.additionalGids[1]: expected an unsigned 32-bit "
     "integer"},
    {PROC("\"user\":{\"uid\":0,\"gid\":0,\"umask\":true}"),
     ".process.user.umask: expected an unsigned 32-bit integer"},
    {PROC("\"consoleSize\":{\"height\":24}"),
     ".process.consoleSize.width: missing"},
    {PROC("\"capabilities\":{\"bounding\":[\"CAP_KILL\",1]}"),
     ".process.capabilities.bounding[1]: expected a string"},
    {PROC("\"capabilities\":[]"), ".process.capabilities: expected an object"},
    {PROC("\"rlimits\":[{\"type\":\"RLIMIT_FOO\",\"hard\":1,\"soft\":1}]"),
     ".process.rlimits[0].type: unknown rlimit \"RLIMIT_FOO\""},
    {PROC("\"rlimits\":[{\"type\":\"nofile\",\"hard\":1,\"soft\":1}]"),
     ".process.rlimits[0].type: unknown rlimit \"nofile\""},
    {PROC("\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"hard\":1,\"soft\":1},"
	  "{\"type\":\"RLIMIT_NOFILE\",\"hard\":1,\"soft\":1},"
	  "{\"type\":\"RLIMIT_CPU\",\"hard\":2,\"soft\":2}]"),
     ".process.rlimits: RLIMIT_CPU listed twice"},
    {PROC("\"rlimits\":[{\"hard\":1,\"soft\":1}]"),
     ".process.rlimits[0].type: missing"},
    {PROC("\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"hard\":1}]"),
     ".process.rlimits[0].soft: missing"},
    {PROC("\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"hard\":"
	  "18446744073709551616,\"soft\":1}]"),
     ".process.rlimits[0].hard: expected an unsigned 64-bit integer"},
    {PROC("\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"hard\":-1,\"soft\":1}]"),
     ".process.rlimits[0].hard: expected an unsigned 64-bit integer"},
    {PROC("\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"hard\":1,\"soft\":0.5}]"),
     ".process.rlimits[0].soft: expected an unsigned 64-bit integer"},
    {PROC("\"oomScoreAdj\":2147483648"),
     ".process.oomScoreAdj: expected a 32-bit integer"},
    {PROC("\"noNewPrivileges\":\"true\""),
     ".process.noNewPrivileges: expected a boolean"},
    {PROC("\"apparmorProfile\":false"),
     ".process.apparmorProfile: expected a string"},
    /* linux */
    {DOC("\"linux\":true"), ".linux: expected an object"},
    {LINUX("\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"foo\"}]"),
     ".linux.namespaces[1].type: unknown namespace type \"foo\""},
    {LINUX("\"namespaces\":[{\"type\":\"net\"}]"),
     ".linux.namespaces[0].type: unknown namespace type \"net\""},
    {LINUX("\"namespaces\":[{\"type\":\"a\\nb\\\"\"}]"),
     ".linux.namespaces[0].type: unknown namespace type "
     "\"a\\x0ab\\\"\""},
    {LINUX("\"namespaces\":[{\"path\":\"/proc/1/ns/net\"}]"),
     ".linux.namespaces[0].type: missing"},
    {LINUX("\"namespaces\":[{\"type\":\"ipc\",\"path\":5}]"),
     ".linux.namespaces[0].path: expected a string"},
    {LINUX("\"uidMappings\":[{\"containerID\":0,\"hostID\":1000}]"),
     ".linux.uidMappings[0].size: missing"},
    {LINUX("\"gidMappings\":[{\"containerID\":0,\"hostID\":-5,\"size\":1}]"),
     ".linux.gidMappings[0].hostID: expected an unsigned 32-bit integer"},
    {LINUX("\"devices\":[{\"type\":\"c\",\"major\":1,\"minor\":3}]"),
     ".linux.devices[0].path: missing"},
    {LINUX("\"devices\":[{\"path\":\"dev/null\",\"type\":\"c\"}]"),
     ".linux.devices[0].path: must be an absolute path"},
    {LINUX("\"devices\":[{\"path\":\"/dev/x\",\"type\":\"x\"}]"),
     ".linux.devices[0].type: unknown device type \"x\""},
    {LINUX("\"devices\":[{\"path\":\"/dev/x\",\"type\":\"cc\"}]"),
     ".linux.devices[0].type: unknown device type \"cc\""},
    {LINUX("\"devices\":[{\"path\":\"/dev/x\"}]"),
     ".linux.devices[0].type: missing"},
    {LINUX("\"devices\":[{\"path\":\"/dev/x\",\"type\":\"c\",\"minor\":1}]"),
     ".linux.devices[0].major: missing"},
    {LINUX("\"devices\":[{\"path\":\"/dev/x\",\"type\":\"b\",\"major\":8}]"),
     ".linux.devices[0].minor: missing"},
    {LINUX("\"devices\":[{\"path\":\"/d\",\"type\":\"p\",\"fileMode\":-1}]"),
     ".linux.devices[0].fileMode: expected an unsigned 32-bit integer"},
    {LINUX("\"cgroupsPath\":[]"), ".linux.cgroupsPath: expected a string"},
    {LINUX("\"sysctl\":{\"net.ipv4.ip_forward\":1}"),
     ".linux.sysctl[\"net.ipv4.ip_forward\"]: expected a string"},
    {LINUX("\"maskedPaths\":[1]"), ".linux.maskedPaths[0]: expected a string"},
    {LINUX("\"readonlyPaths\":\"/proc\""),
     ".linux.readonlyPaths: expected an array"},
    {LINUX("\"personality\":{\"flags\":\"x\"}"),
     ".linux.personality.flags: expected an array"},
    /* resources */
    {RES("\"devices\":[{\"allow\":true,\"access\":\"rwx\"}]"),
     ".linux.resources.devices[0].access: unknown device access \"rwx\""},
    {RES("\"devices\":[{\"allow\":true,\"type\":\"u\"}]"),
     ".linux.resources.devices[0].type: unknown device type \"u\""},
    {RES("\"devices\":[{\"allow\":1}]"),
     ".linux.resources.devices[0].allow: expected a boolean"},
    {RES("\"memory\":{\"limit\":9223372036854775808}"),
     ".linux.resources.memory.limit: expected a 64-bit integer"},
    {RES("\"memory\":{\"limit\":1.5}"),
     ".linux.resources.memory.limit: expected a 64-bit integer"},
    {RES("\"memory\":{\"swappiness\":-1}"),
     ".linux.resources.memory.swappiness: expected an integer from 0 to "
     "9223372036854775807"},
    {RES("\"memory\":{\"disableOOMKiller\":0}"),
     ".linux.resources.memory.disableOOMKiller: expected a boolean"},
    {RES("\"cpu\":{\"shares\":-1}"),
     ".linux.resources.cpu.shares: expected an integer from 0 to "
     "9223372036854775807"},
    {RES("\"cpu\":{\"period\":18446744073709551615}"),
     ".linux.resources.cpu.period: expected an integer from 0 to "
     "9223372036854775807"},
    {RES("\"cpu\":{\"cpus\":3}"),
     ".linux.resources.cpu.cpus: expected a string"},
    {RES("\"pids\":{\"limit\":\"many\"}"),
     ".linux.resources.pids.limit: expected a 64-bit integer"},
    {RES("\"blockIO\":{\"weight\":65536}"),
     ".linux.resources.blockIO.weight: expected an unsigned 16-bit integer"},
    {RES("\"blockIO\":{\"weightDevice\":[{\"major\":8}]}"),
     ".linux.resources.blockIO.weightDevice[0].minor: missing"},
    {RES("\"blockIO\":{\"throttleReadBpsDevice\":[{\"major\":8,\"minor\":0}]}"),
     ".linux.resources.blockIO.throttleReadBpsDevice[0].rate: missing"},
    {RES("\"blockIO\":{\"throttleWriteIOPSDevice\":[{\"major\":8,"
	 "\"minor\":0,\"rate\":-1}]}"),
     ".linux.resources.blockIO.throttleWriteIOPSDevice[0].rate: expected "
     "an unsigned 64-bit integer"},
    {RES("\"hugepageLimits\":[{\"limit\":1}]"),
     ".linux.resources.hugepageLimits[0].pageSize: missing"},
    {RES("\"network\":{\"classID\":-1}"),
     ".linux.resources.network.classID: expected an unsigned 32-bit "
     "integer"},
    {RES("\"network\":{\"priorities\":[{\"name\":\"eth0\"}]}"),
     ".linux.resources.network.priorities[0].priority: missing"},
    {RES("\"network\":{\"priorities\":[{\"priority\":1}]}"),
     ".linux.resources.network.priorities[0].name: missing"},
    {RES("\"network\":{\"priorities\":[{\"name\":\"eth0 9\","
	 "\"priority\":1}]}"),
     ".linux.resources.network.priorities[0].name: not a network "
     "interface name \"eth0 9\""},
    {RES("\"network\":{\"priorities\":[{\"name\":\"a\\nb\","
	 "\"priority\":1}]}"),
     ".linux.resources.network.priorities[0].name: not a network "
     "interface name \"a\\x0ab\""},
    {RES("\"network\":{\"priorities\":[{\"name\":\"\","
	 "\"priority\":1}]}"),
     ".linux.resources.network.priorities[0].name: not a network "
     "interface name \"\""},
    {RES("\"network\":{\"priorities\":[{\"name\":\"..\","
	 "\"priority\":1}]}"),
     ".linux.resources.network.priorities[0].name: not a network "
     "interface name \"..\""},
    {RES("\"network\":{\"priorities\":[{\"name\":\"a/b\","
	 "\"priority\":1}]}"),
     ".linux.resources.network.priorities[0].name: not a network "
     "interface name \"a/b\""},
    {RES("\"network\":{\"priorities\":[{\"name\":\"eth0:1\","
	 "\"priority\":1}]}"),
     ".linux.resources.network.priorities[0].name: not a network "
     "interface name \"eth0:1\""},
    {RES("\"network\":{\"priorities\":[{\"name\":\"abcdefghijklmnop\","
	 "\"priority\":1}]}"),
     ".linux.resources.network.priorities[0].name: not a network "
     "interface name \"abcdefghijklmnop\""},
    {RES("\"unified\":{\"memory.max\":100}"),
     ".linux.resources.unified[\"memory.max\"]: expected a string"},
    /* seccomp */
    {LINUX("\"seccomp\":{}"), ".linux.seccomp.defaultAction: missing"},
    {SECCOMP("\"defaultErrnoRet\":-1"),
     ".linux.seccomp.defaultErrnoRet: expected an unsigned 32-bit "
     "integer"},
    {SECCOMP("\"architectures\":[\"SCMP_ARCH_X86_64\",null]"),
     ".linux.seccomp.architectures[1]: expected a string"},
    {SECCOMP("\"syscalls\":[{\"names\":[\"read\"]}]"),
     ".linux.seccomp.syscalls[0].action: missing"},
    {SECCOMP("\"syscalls\":[{\"action\":\"SCMP_ACT_ALLOW\"}]"),
     ".linux.seccomp.syscalls[0].names: missing"},
    {SECCOMP("\"syscalls\":[{\"names\":[],\"action\":\"A\"}]"),
     ".linux.seccomp.syscalls[0].names: must not be empty"},
    {SECCOMP("\"syscalls\":[{\"names\":[\"a\"],\"action\":\"A\"},"
	     "{\"names\":[\"b\"],\"action\":\"A\",\"args\":[{\"index\":0,"
	     "\"value\":1}]}]"),
     ".linux.seccomp.syscalls[1].args[0].op: missing"},
    {SECCOMP("\"syscalls\":[{\"names\":[\"a\"],\"action\":\"A\","
	     "\"args\":[{\"value\":1,\"op\":\"SCMP_CMP_EQ\"}]}]"),
     ".linux.seccomp.syscalls[0].args[0].index: missing"},
    {SECCOMP("\"syscalls\":[{\"names\":[\"a\"],\"action\":\"A\","
	     "\"args\":[{\"index\":0,\"value\":-1,\"op\":\"SCMP_CMP_EQ\"}]}]"),
     ".linux.seccomp.syscalls[0].args[0].value: expected an unsigned "
     "64-bit integer"},
    {SECCOMP("\"syscalls\":[{\"names\":[\"a\"],\"action\":\"A\","
	     "\"errnoRet\":\"EPERM\"}]"),
     ".linux.seccomp.syscalls[0].errnoRet: expected an unsigned 32-bit "
     "integer"},
};

TEST(bad_documents_name_the_field)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_documents); i++) {
		char *got = parse_error(bad_documents[i].json);

		if (strcmp(got, bad_documents[i].error) != 0) {
			printf("# case %zu: %s\n#   got      %s\n"
			       "#   expected %s\n",
			       i, bad_documents[i].json, got,
			       bad_documents[i].error);
			unit_failed_checks++;
		}
		free(got);
	}
}

/* ---- process.json ---------------------------------------------------- */

TEST(process_json_errors_start_at_the_process)
{
	CHECK_ERROR(process_error("{\"args\":[1],\"cwd\":\"/\"}"),
		    ".args[0]: expected a string");
	CHECK_ERROR(process_error("{\"args\":[\"sh\"],\"cwd\":\"x\"}"),
		    ".cwd: must be an absolute path");
	CHECK_ERROR(process_error("{\"args\":[\"sh\"],\"cwd\":\"/\","
				  "\"user\":{\"uid\":0,\"gid\":-1}}"),
		    ".user.gid: expected an unsigned 32-bit integer");
	CHECK_ERROR(process_error("{\"cwd\":\"/\"}"), ".args: missing");
	CHECK_ERROR(process_error("[]"), "expected a JSON object");
	CHECK_ERROR(process_error("{"),
		    "invalid JSON: parse error: premature EOF");
}

/* ---- tables and emit ------------------------------------------------- */

TEST(emit_rejects_invalid_utf8)
{
	struct spec s = {0};
	_cleanup_error_ struct error *err = NULL;
	char *text = NULL;
	size_t len = 0;

	s.oci_version = (char *)"1.2.0";
	s.hostname = (char *)"bad\xff";
	CHECK(spec_emit(&s, &text, &len, &err) < 0);
	CHECK(text == NULL);
	CHECK(err != NULL);
	if (err)
		CHECK_STR(err->msg,
			  "emit: at \"hostname\": a string is not valid UTF-8");
}

/* ---- spec_parse_resources ------------------------------------------- */

/* The error spec_parse_resources() gives for a document that must fail. */
static char *resources_error(const char *json)
{
	struct spec_resources *r = NULL;
	struct error *err = NULL;
	char *msg;

	if (spec_parse_resources(json, strlen(json), &r, &err) == 0) {
		spec_resources_free(r);
		return strdup("(parsed)");
	}
	msg = strdup(err && err->msg ? err->msg : "(no message)");
	CHECK(r == NULL);
	error_free(err);
	return msg;
}

TEST(resources_alone_parse)
{
	static const char json[] =
	    "{\"memory\": {\"limit\": 268435456, \"swap\": -1},"
	    " \"cpu\": {\"quota\": 50000, \"period\": 100000,"
	    " \"shares\": 512, \"cpus\": \"0-1\"},"
	    " \"pids\": {\"limit\": 64},"
	    " \"blockIO\": {\"weight\": 300},"
	    " \"hugepageLimits\": [{\"pageSize\": \"2MB\", \"limit\": "
	    "4194304}],"
	    " \"unified\": {\"memory.high\": \"200M\"},"
	    " \"devices\": [{\"allow\": false, \"access\": \"rwm\"}]}";
	_cleanup_error_ struct error *err = NULL;
	struct spec_resources *r = NULL;

	CHECK(spec_parse_resources(json, strlen(json), &r, &err) == 0);
	if (err)
		printf("# %s\n", err->msg);
	CHECK(r && r->memory && r->memory->limit.set &&
	      r->memory->limit.v == 268435456);
	CHECK(r && r->memory && r->memory->swap.set && r->memory->swap.v == -1);
	CHECK(r && r->memory && !r->memory->reservation.set);
	CHECK(r && r->cpu && r->cpu->quota.v == 50000 &&
	      r->cpu->period.v == 100000 && r->cpu->shares.v == 512);
	CHECK_STR(r && r->cpu ? r->cpu->cpus : NULL, "0-1");
	CHECK(r && r->pids_limit.set && r->pids_limit.v == 64);
	CHECK(r && r->block_io && r->block_io->weight.v == 300);
	CHECK(r && r->n_hugepage_limits == 1 &&
	      r->hugepage_limits[0].limit == 4194304);
	CHECK(r && r->n_unified == 1);
	CHECK_STR(r && r->n_unified ? r->unified[0].key : NULL, "memory.high");
	CHECK(r && r->n_devices == 1 && !r->devices[0].allow &&
	      r->devices[0].type == 'a');
	spec_resources_free(r);
}

TEST(resources_alone_empty_and_absent)
{
	_cleanup_error_ struct error *err = NULL;
	struct spec_resources *r = NULL;

	CHECK(spec_parse_resources("{}", 2, &r, &err) == 0);
	CHECK(r && !r->memory && !r->cpu && !r->pids_limit.set &&
	      !r->block_io && r->n_devices == 0);
	spec_resources_free(r);
	r = NULL;
	CHECK(spec_parse_resources("{\"memory\": null}", 16, &r, &err) == 0);
	CHECK(r && !r->memory);
	spec_resources_free(r);
	spec_resources_free(NULL);
}

TEST(resources_alone_errors_name_the_path)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
	    {"[]", "expected a JSON object"},
	    {"", NULL},
	    {"{\"memory\": {\"limit\": \"1G\"}}", ".memory.limit: "},
	    {"{\"memory\": 5}", ".memory: "},
	    {"{\"pids\": {\"limit\": 1.5}}", ".pids.limit: "},
	    {"{\"cpu\": {\"cpus\": 3}}", ".cpu.cpus: "},
	    {"{\"cpu\": {\"shares\": -1}}", ".cpu.shares: "},
	    {"{\"devices\": [{\"allow\": true, \"type\": \"x\"}]}",
	     ".devices[0].type: "},
	    {"{\"hugepageLimits\": [{\"limit\": 1}]}",
	     ".hugepageLimits[0].pageSize: missing"},
	    {"{\"unified\": {\"a\": 1}}", ".unified[\"a\"]: "},
	    {"{\"memory\": {\"limit\": 1, \"limit\": 2}}", ".memory.limit"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_free_ char *msg = resources_error(cases[i].json);

		CHECK(msg && strcmp(msg, "(parsed)") != 0);
		if (cases[i].want && (!msg || !strstr(msg, cases[i].want))) {
			printf("# %s: \"%s\" lacks \"%s\"\n", cases[i].json,
			       msg ? msg : "(null)", cases[i].want);
			unit_failed_checks++;
		}
	}
}

/* The runtime-spec asks for a SemVer 2.0.0 ociVersion (runtime-tools'
 * misc_props: "invalid" must fail create). */
TEST(oci_version_is_semver)
{
	static const char *const good[] = {"1.0.0", "1.2.0", "1.0.2-dev",
					   "0.9.0-rc.1+build.5", "10.20.30"};
	static const char *const bad[] = {
	    "invalid", "1",	 "1.0",	       "1.0.0.0", "01.0.0",
	    "1.0.0-",  "1.0.0+", "1.0.0-a..b", " 1.0.0",  "1.0.0 "};
	char json[256];

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct spec *s = NULL;
		struct error *err = NULL;

		snprintf(json, sizeof(json), "{\"ociVersion\": \"%s\"}",
			 good[i]);
		CHECK(spec_parse(json, strlen(json), &s, &err) == 0);
		spec_free(s);
		error_free(err);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		_cleanup_free_ char *msg = NULL;

		snprintf(json, sizeof(json), "{\"ociVersion\": \"%s\"}",
			 bad[i]);
		msg = parse_error(json);
		CHECK(msg && strstr(msg, ".ociVersion: expected a SemVer"));
	}
}

int main(void)
{
	return unit_run();
}
