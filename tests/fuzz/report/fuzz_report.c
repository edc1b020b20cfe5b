/* Fuzz target: the report's records (spec/report/report.h): the outcome file
 * (the supervisor's start, end and syscall lines, corral kill's) and the
 * egress log, then both renderers; and the READY record of the upper
 * layer (report_ready_parse) from the same bytes.
 *
 * The input is split at the first NUL: the outcome record before it, the
 * egress log after.  Whatever the bytes, the parsers keep at most their
 * bounds (REPORT_SYSCALLS_MAX syscalls, REPORT_DENIED_SHOWN names), every
 * kept comm is the supervisor's escaped form, the counts add up to the
 * total, and the text report holds no byte a terminal would act on but
 * the newline; the JSON report parses.  The READY record keeps at most
 * REPORT_READY_MAX entries, sorted, and every line
 * it writes again parses to the same entry.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "fuzz.h"
#include "report.h"

static void check_comm(const char *s)
{
	FUZZ_CHECK(*s, "empty comm");
	for (; *s; s++)
		FUZZ_CHECK((*s >= 'a' && *s <= 'z') ||
			       (*s >= 'A' && *s <= 'Z') ||
			       (*s >= '0' && *s <= '9') || strchr("._-\\?", *s),
			   "comm byte 0x%02x kept", (unsigned char)*s);
}

static void check_ready(const char *buf, size_t len)
{
	struct report_ready rd;
	struct error *err = NULL;

	FUZZ_CHECK(report_ready_parse(buf, len, &rd, &err) == 0, "ready: %s",
		   err ? err->msg : "?");
	FUZZ_CHECK(rd.n <= REPORT_READY_MAX, "%zu ready entries", rd.n);
	for (size_t i = 0; i < rd.n; i++) {
		struct report_ready again;
		char *line = report_ready_line(&rd.v[i]);

		FUZZ_CHECK(i == 0 || rd.v[i - 1].ino <= rd.v[i].ino,
			   "not sorted at %zu", i);
		FUZZ_CHECK(line, "no line");
		FUZZ_CHECK(
		    report_ready_parse(line, strlen(line), &again, &err) == 0 &&
			again.n == 1 && again.v[0].ino == rd.v[i].ino &&
			again.v[0].dir == rd.v[i].dir &&
			strcmp(again.v[0].path, rd.v[i].path) == 0,
		    "line %s does not read back", line);
		report_ready_release(&again);
		free(line);
	}
	report_ready_release(&rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *nul = memchr(buf, '\0', size);
	size_t olen = nul ? (size_t)(nul - buf) : size;
	struct report r = {.status = "stopped"};
	struct error *err = NULL;
	char *text = NULL, *json = NULL;
	uint64_t sum = 0;
	yajl_val root;

	check_ready(buf, size);
	r.id = strdup("fuzz");
	FUZZ_CHECK(report_parse_outcome(buf, olen, &r, &err) == 0,
		   "outcome: %s", err ? err->msg : "?");
	if (nul)
		FUZZ_CHECK(report_parse_egress(nul + 1, size - olen - 1, &r,
					       &err) == 0,
			   "egress: %s", err ? err->msg : "?");
	/* the whole input as create's sandbox.json */
	FUZZ_CHECK(report_parse_changes(buf, size, &r, &err) == 0,
		   "changes: %s", err ? err->msg : "?");
	FUZZ_CHECK(r.n_drops <= REPORT_DROPS_SHOWN, "%zu drops", r.n_drops);
	FUZZ_CHECK(r.n_syscalls <= REPORT_SYSCALLS_MAX, "%zu syscalls",
		   r.n_syscalls);
	FUZZ_CHECK(r.n_denied <= REPORT_DENIED_SHOWN, "%zu denied", r.n_denied);
	for (size_t i = 0; i < r.n_syscalls; i++) {
		check_comm(r.syscalls[i].comm);
		FUZZ_CHECK(r.syscalls[i].count > 0, "a count of 0 kept");
		sum += r.syscalls[i].count;
		if (i % 2 == 0)
			r.syscalls[i].name = strdup("mount");
	}
	FUZZ_CHECK(sum == r.syscalls_total, "counts %llu, total %llu",
		   (unsigned long long)sum,
		   (unsigned long long)r.syscalls_total);
	report_sort_syscalls(&r);
	for (size_t i = 1; i < r.n_syscalls; i++)
		FUZZ_CHECK(r.syscalls[i - 1].count >= r.syscalls[i].count,
			   "not sorted at %zu", i);
	FUZZ_CHECK(report_text(&r, &text, &err) == 0, "text: %s",
		   err ? err->msg : "?");
	for (const char *p = text; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f
			       ? true
			       : *p == '\n',
			   "text byte 0x%02x", (unsigned char)*p);
	FUZZ_CHECK(report_json(&r, &json, &err) == 0, "json: %s",
		   err ? err->msg : "?");
	root = yajl_tree_parse(json, NULL, 0);
	FUZZ_CHECK(root, "the JSON report does not parse:\n%s", json);
	yajl_tree_free(root);
	free(text);
	free(json);
	report_release(&r);
	return 0;
}
