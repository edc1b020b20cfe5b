/* Unit tests of `corral report`'s pure half (spec/report/report.c,
 * spec/report/report_emit.c, report_changes.c): the outcome record's lines,
 * the reason, escaping, the capped list of files, the egress log, what the
 * sandbox changed, and both renderers. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "json.h"
#include "egress_counts.h"
#include "report.h"
#include "spec.h"
#include "unit.h"
#include "util.h"

static void parse(struct report *r, const char *text)
{
	CHECK(report_parse_outcome(text, strlen(text), r, NULL) == 0);
}

TEST(outcome_lines_and_reasons)
{
	struct report r = {.status = "stopped"};

	parse(&r, "start 100 5\nend 102 500000005 exit 3 workload\n");
	CHECK(r.started.known && r.ended.known && r.code == 3);
	CHECK(!r.signalled && !r.by_wall_clock);
	CHECK_STR(report_reason(&r), "workload exit");

	r = (struct report){.status = "stopped"};
	parse(&r, "start 1 0\nend 2 0 signal 9 wall_clock\n");
	CHECK_STR(report_reason(&r), "wall clock");

	r = (struct report){.status = "stopped", .oom_kills = {true, 1}};
	parse(&r, "end 2 0 signal 9 workload\n");
	CHECK_STR(report_reason(&r), "OOM kill");

	r = (struct report){.status = "stopped"};
	parse(&r, "kill 15\nend 2 0 signal 15 workload\n");
	CHECK_STR(report_reason(&r), "corral kill");

	r = (struct report){.status = "stopped"};
	parse(&r, "kill 9\n");
	CHECK_STR(report_reason(&r), "corral kill");

	r = (struct report){.status = "stopped"};
	parse(&r, "start 1 0\n");
	CHECK_STR(report_reason(&r), "record incomplete");
	r.oom_kills = (struct report_counter){true, 2};
	CHECK_STR(report_reason(&r), "OOM kill (record incomplete)");

	r = (struct report){.status = "stopped"};
	CHECK_STR(report_reason(&r), "unknown");
	r.status = "running";
	CHECK_STR(report_reason(&r), "running");
}

TEST(bad_outcome_lines_are_skipped)
{
	struct report r = {.status = "stopped"};

	parse(&r, "end 2 0 exit 300 workload\nend 2 0 exit 1 bogus\n"
		  "kill 99\nend 1 2 exit 4");
	CHECK(!r.ended_known && r.kill_signal == 0);
	CHECK_STR(report_reason(&r), "unknown");
}

TEST(escape_makes_every_byte_printable)
{
	char *s = report_escape("a\nb\"c\\d\xff", 8);

	CHECK_STR(s, "a\\x0ab\\x22c\\\\d\\xff");
	free(s);
}

TEST(files_keep_the_largest_and_count_the_rest)
{
	struct report r = {0};
	struct error *err = NULL;
	char name[32];

	for (int i = 0; i < REPORT_FILES_SHOWN + 20; i++) {
		snprintf(name, sizeof(name), "/f%d", i);
		CHECK(report_add_file(&r, name, REPORT_CREATED, false,
				      (uint64_t)i, &err) == 0);
	}
	report_sort_files(&r);
	CHECK(r.n_files == REPORT_FILES_SHOWN);
	CHECK(r.n_files_total == REPORT_FILES_SHOWN + 20);
	CHECK(r.files[0].size == REPORT_FILES_SHOWN + 19);
	CHECK(r.files[REPORT_FILES_SHOWN - 1].size == 20);
	report_release(&r);
}

/* 2000 more names of a 30 MiB file are that file once: in the bytes, the
 * count and the list; the small files the names would have pushed out of
 * the list of 100 stay in it; a name of an evicted file is still no file. */
TEST(hard_links_count_each_inode_once)
{
	struct report r = {0};
	struct error *err = NULL;
	char name[32], *text = NULL, *json = NULL;
	uint64_t bytes = 30ull << 20;

	CHECK(report_add_linked(&r, "/big", REPORT_CREATED, 30u << 20, false, 7,
				42, &err) == 0);
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "/l%d", i);
		CHECK(report_add_linked(&r, name, REPORT_CREATED, 30u << 20,
					false, 7, 42, &err) == 0);
	}
	for (int i = 0; i < REPORT_FILES_SHOWN - 1; i++) {
		snprintf(name, sizeof(name), "/s%d", i);
		CHECK(report_add_file(&r, name, REPORT_CREATED, false,
				      (uint64_t)i + 1, &err) == 0);
		bytes += (uint64_t)i + 1;
	}
	/* the same inode number on another device is another file */
	CHECK(report_add_linked(&r, "/shared/b", REPORT_MODIFIED, 1000, true, 8,
				42, &err) == 0);
	CHECK(report_add_linked(&r, "/shared/c", REPORT_MODIFIED, 1000, true, 8,
				42, &err) == 0);
	bytes += 1000;
	report_sort_files(&r);
	CHECK(r.files_bytes == bytes);
	CHECK(r.n_files_total == REPORT_FILES_SHOWN + 1);
	CHECK(r.more_names == 2001);
	CHECK(r.n_files == REPORT_FILES_SHOWN);
	CHECK_STR(r.files[0].name, "/big");
	CHECK(r.files[0].more_names == 2000);
	CHECK_STR(r.files[1].name, "/shared/b");
	CHECK(r.files[1].in_bind && r.files[1].more_names == 1);
	CHECK(r.files[REPORT_FILES_SHOWN - 1].size == 2); /* /s0 pushed out */
	r.files_known = true;
	CHECK(report_text(&r, &text, &err) == 0);
	CHECK(text && strstr(text, "  created      31457280  /big  (and 2000 "
				   "more names)\n"));
	CHECK(text && strstr(text, "  and 1 more\n"));
	CHECK(text && !strstr(text, "more names of files not listed"));
	CHECK(report_json(&r, &json, &err) == 0);
	CHECK(json && strstr(json, "\"more_names\": 2001"));
	CHECK(json && strstr(json, "\"more_names\": 2000"));
	free(text);
	free(json);

	/* a linked file pushed out of the list: its names are counted
	 * apart, and later ones too */
	for (int i = 0; i < REPORT_FILES_SHOWN; i++) {
		snprintf(name, sizeof(name), "/huge%d", i);
		CHECK(report_add_file(&r, name, REPORT_CREATED, false,
				      1ull << 40, &err) == 0);
	}
	CHECK(report_add_linked(&r, "/l-late", REPORT_CREATED, 30u << 20, false,
				7, 42, &err) == 0);
	CHECK(r.n_files_total == 2 * REPORT_FILES_SHOWN + 1);
	CHECK(r.more_names == 2002);
	text = NULL;
	CHECK(report_text(&r, &text, &err) == 0);
	CHECK(text && strstr(text, "  and 2002 more names of files not listed "
				   "(hard links: each file counted once)\n"));
	free(text);
	report_release(&r);
}

/* The log gives the denied names, never the counts (issue 39, item 10):
 * a log is bounded per kind and may have dropped lines. */
TEST(egress_log_lists_denied_and_counts_nothing)
{
	struct report r = {0};
	struct error *err = NULL;
	const char *log =
	    "{\"verdict\":\"allow\",\"name\":\"pypi.org\",\"port\":443,"
	    "\"reason\":\"rule\"}\n"
	    "{\"verdict\":\"deny\",\"name\":\"evil\\nx\",\"port\":80,"
	    "\"reason\":\"no rule\"}\n"
	    "{\"kind\":\"dns\",\"verdict\":\"deny\",\"dropped\":7}\n"
	    "not json\n{\"verdict\":\"maybe\",\"name\":\"a\",\"port\":1}\n";

	CHECK(report_parse_egress(log, strlen(log), &r, &err) == 0);
	CHECK(!r.egress_known && r.egress_allowed == 0 && r.egress_denied == 0);
	CHECK(r.egress_bad_lines == 2 && r.n_denied == 1);
	CHECK_STR(r.denied[0], "evil\\x0ax:80 (no rule)");
	report_release(&r);
}

/* The counts are the counters' record's, whatever the log kept; a record
 * of another size or magic is none. */
TEST(egress_counts_come_from_the_counters)
{
	struct egress_counts c = {.magic = EGRESS_COUNTS_MAGIC,
				  .size = sizeof(c)};
	struct report r = {0};

	c.decisions[EGRESS_KIND_PROXY][EGRESS_ALLOW] = 2;
	c.decisions[EGRESS_KIND_TRANSPARENT][EGRESS_ALLOW] = 1;
	c.decisions[EGRESS_KIND_DNS][EGRESS_DENY] = 20000;
	c.dropped[EGRESS_KIND_DNS][EGRESS_DENY] = 16000;
	c.rate_refused = 5;
	c.lookups = 21;
	report_parse_egress_counts(&c, sizeof(c), &r);
	CHECK(r.egress_known && r.egress_allowed == 3);
	CHECK(r.egress_denied == 20000 && r.egress_dropped == 16000);
	CHECK(r.egress_rate_refused == 5 && r.egress_lookups == 21);
	report_release(&r);
	r = (struct report){0};
	report_parse_egress_counts(&c, sizeof(c) - 8, &r);
	CHECK(!r.egress_known);
	c.magic = 0;
	report_parse_egress_counts(&c, sizeof(c), &r);
	CHECK(!r.egress_known);
	report_release(&r);
}

/* The JSON parses, and an unknown counter is null, not 0. */
TEST(json_and_text_say_unknown)
{
	struct report r = {.status = "stopped", .wall_clock = 5};
	struct error *err = NULL;
	char *json = NULL, *text = NULL;
	const char *peak[] = {"outcome", "memory_peak_bytes", NULL};
	const char *sys[] = {"syscalls_refused", NULL};
	yajl_val root;

	r.id = strdup("c1");
	parse(&r, "start 1 0\nend 3 0 signal 9 wall_clock\n");
	CHECK(report_add_file(&r, "/x\ny", REPORT_DELETED, false, 0, &err) ==
	      0);
	r.files_known = true;
	CHECK(report_json(&r, &json, &err) == 0);
	CHECK(report_text(&r, &text, &err) == 0);
	root = json ? yajl_tree_parse(json, NULL, 0) : NULL;
	CHECK(root != NULL);
	CHECK(YAJL_IS_NULL(yajl_tree_get(root, peak, yajl_t_any)));
	CHECK(yajl_tree_get(root, sys, yajl_t_any) &&
	      YAJL_IS_NULL(yajl_tree_get(root, sys, yajl_t_any)));
	CHECK(json && strstr(json, "\"reason\": \"wall clock\""));
	CHECK(text && strstr(text, "peak memory:       unknown"));
	CHECK(text && strstr(text, "wall clock:        fired (limit 5 s)"));
	CHECK(text && strstr(text, "deleted             0  /x\\x0ay\n"));
	CHECK(text && strstr(text, "syscalls refused\n  not recorded: the "
				   "supervisor had no seccomp listener"));
	yajl_tree_free(root);
	free(json);
	free(text);
	report_release(&r);
}

/* sandbox.json's changes marked "dropped" are "changed by the sandbox",
 * in their order, a control byte escaped; the others are not listed; a
 * record that does not parse is unknown, never "none". */
TEST(changed_by_the_sandbox_lists_the_recorded_drops)
{
	static const char record[] =
	    "{\"sandbox\": {}, \"changes\": ["
	    " {\"field\": \".process.user.uid\", \"asked\": \"0\","
	    "  \"applied\": \"65534\", \"reason\": \"default\"},"
	    " {\"field\": \".mounts[/data]\", \"asked\": \"bind /srv\\u001b\","
	    "  \"applied\": \"dropped\", \"reason\": \"policy: refuse.mounts"
	    " false: no entry\", \"dropped\": true},"
	    " {\"field\": \".hooks.prestart[0]\", \"asked\": \"/bin/x\","
	    "  \"applied\": \"dropped\", \"reason\": \"default\","
	    "  \"dropped\": true}]}";
	struct report r = {.status = "stopped"}, bad = {.status = "stopped"};
	char *text = NULL, *json = NULL, *bad_text = NULL;
	const char *total[] = {"changed_by_sandbox", "total", NULL};
	yajl_val root;

	r.id = strdup("c1");
	bad.id = strdup("c2");
	CHECK(report_parse_changes(record, strlen(record), &r, NULL) == 0);
	CHECK(report_parse_changes("{", 1, &bad, NULL) == 0);
	CHECK(r.drops_known && r.n_drops == 2 && r.n_drops_total == 2);
	CHECK(!bad.drops_known);
	CHECK(report_text(&r, &text, NULL) == 0);
	CHECK(report_json(&r, &json, NULL) == 0);
	CHECK(report_text(&bad, &bad_text, NULL) == 0);
	CHECK(text &&
	      strstr(text, "changed by the sandbox\n"
			   "  .mounts[/data]: bind /srv\\x1b -> dropped "
			   "(policy: refuse.mounts false: no entry)\n"
			   "  .hooks.prestart[0]: /bin/x -> dropped "
			   "(default)\n"));
	CHECK(text && !strstr(text, ".process.user.uid"));
	CHECK(bad_text &&
	      strstr(bad_text, "changed by the sandbox\n  unknown"));
	root = json ? yajl_tree_parse(json, NULL, 0) : NULL;
	CHECK(root && YAJL_IS_INTEGER(yajl_tree_get(root, total, yajl_t_any)) &&
	      YAJL_GET_INTEGER(yajl_tree_get(root, total, yajl_t_any)) == 2);
	yajl_tree_free(root);
	free(text);
	free(json);
	free(bad_text);
	report_release(&r);
	report_release(&bad);
}

/* The supervisor's syscall lines: the latest count of each, the first
 * call's time, pid and comm from its first line; malformed lines (a raw
 * byte or space in the comm, extra fields, a count of 0) are skipped. */
TEST(syscall_lines_keep_the_latest_count)
{
	struct report r = {.status = "stopped"};

	parse(&r, "start 1 0\nlistening\n");
	CHECK(r.syscalls_known && r.n_syscalls == 0 && r.syscalls_total == 0);
	parse(&r, "syscall c000003e 165 1 10 5 7 sh\n"
		  "syscall c000003e 321 1 11 6 8 a\\x20b\n"
		  "syscall c000003e 165 40 10 5 7 sh\n"
		  "syscall c000003e 165 90 10 5 7 sh\n"
		  "syscall c000003e 250 3 12 0 9 ?\n"
		  "syscall c000003e 101 1 12 0 9 a b\n"
		  "syscall c000003e 101 1 12 0 9 a\x01\n"
		  "syscall c000003e 101 1 12 0 9 a\\x2\n"
		  "syscall c000003e 101 0 12 0 9 a\n"
		  "syscall c000003e -1 1 12 0 9 a\n"
		  "syscall c000003e 101 1 12 1000000000 9 a\n");
	CHECK(r.n_syscalls == 3);
	CHECK(r.syscalls_total == 94);
	report_sort_syscalls(&r);
	CHECK(r.syscalls[0].nr == 165 && r.syscalls[0].count == 90);
	CHECK(r.syscalls[0].first_sec == 10 && r.syscalls[0].first_nsec == 5);
	CHECK(r.syscalls[0].pid == 7);
	CHECK_STR(r.syscalls[0].comm, "sh");
	CHECK(r.syscalls[1].nr == 250 && r.syscalls[1].count == 3);
	CHECK_STR(r.syscalls[1].comm, "?");
	CHECK(r.syscalls[2].nr == 321 && r.syscalls[2].arch == 0xc000003e);
	CHECK_STR(r.syscalls[2].comm, "a\\x20b");
	report_release(&r);
}

/* More distinct syscalls than the report keeps: counted as truncated,
 * memory bounded. */
TEST(syscall_lines_are_capped)
{
	struct report r = {.status = "stopped"};
	char line[96];

	for (int nr = 0; nr < REPORT_SYSCALLS_MAX + 10; nr++) {
		snprintf(line, sizeof(line), "syscall c000003e %d 2 1 0 1 x\n",
			 nr);
		parse(&r, line);
	}
	CHECK(r.n_syscalls == REPORT_SYSCALLS_MAX && r.syscalls_truncated);
	CHECK(r.syscalls_total == 2 * REPORT_SYSCALLS_MAX);
	report_release(&r);
}

/* Both renderers list the named syscalls, largest count first, capped at
 * REPORT_SYSCALLS_SHOWN; an unnamed number says so. */
TEST(syscalls_in_text_and_json)
{
	struct report r = {.status = "stopped"};
	struct error *err = NULL;
	char *json = NULL, *text = NULL, line[96];
	const char *total[] = {"syscalls_refused", "total", NULL};
	const char *calls[] = {"syscalls_refused", "calls", NULL};
	const char *listed[] = {"syscalls_refused", "not_listed", NULL};
	yajl_val root, v, first;

	r.id = strdup("c1");
	parse(&r, "listening\nsyscall c000003e 165 1000000 1796355527 "
		  "5 4 sysprobe\nsyscall c000003e 321 1 0 0 9 a\\x0ab\n");
	for (int nr = 1000; nr < 1000 + REPORT_SYSCALLS_SHOWN; nr++) {
		snprintf(line, sizeof(line), "syscall c000003e %d 1 0 0 1 x\n",
			 nr);
		parse(&r, line);
	}
	for (size_t i = 0; i < r.n_syscalls; i++)
		if (r.syscalls[i].nr == 165)
			r.syscalls[i].name = strdup("mount");
	report_sort_syscalls(&r);
	CHECK(report_json(&r, &json, &err) == 0);
	CHECK(report_text(&r, &text, &err) == 0);
	root = json ? yajl_tree_parse(json, NULL, 0) : NULL;
	CHECK(root != NULL);
	v = yajl_tree_get(root, total, yajl_t_number);
	CHECK(v && YAJL_GET_INTEGER(v) == 1000000 + 1 + REPORT_SYSCALLS_SHOWN);
	v = yajl_tree_get(root, listed, yajl_t_number);
	CHECK(v && YAJL_GET_INTEGER(v) == 2);
	v = yajl_tree_get(root, calls, yajl_t_array);
	CHECK(v && YAJL_GET_ARRAY(v)->len == REPORT_SYSCALLS_SHOWN);
	first = v ? YAJL_GET_ARRAY(v)->values[0] : NULL;
	CHECK_STR(YAJL_GET_STRING(json_get(first, "name")), "mount");
	CHECK(YAJL_GET_INTEGER(json_get(first, "count")) == 1000000);
	CHECK(YAJL_GET_INTEGER(json_get(first, "first_pid")) == 4);
	CHECK_STR(YAJL_GET_STRING(json_get(first, "first_comm")), "sysprobe");
	CHECK_STR(YAJL_GET_STRING(json_get(first, "first")),
		  "2026-12-04T03:38:47.000000005Z");
	CHECK(text && strstr(text, "syscalls refused\n  1000051 refused "
				   "(EPERM)\n  mount                 1000000  "
				   "first 2026-12-04T03:38:47.000000005Z pid 4 "
				   "(sysprobe)\n  syscall 321"));
	CHECK(text && strstr(text, "  and 2 more syscalls\n"));
	yajl_tree_free(root);
	free(json);
	free(text);
	report_release(&r);
}

/* events.c writes each egress line again through json_value: the same
 * value comes out, and nothing deeper than it was told. */
TEST(ready_record_round_trips_and_holds_only_the_unchanged)
{
	struct report_ready_entry dir = {.ino = 7, .dir = true, .path = "/mnt"};
	struct report_ready_entry file = {.ino = 9,
					  .size = 0,
					  .mtime_sec = 100,
					  .mtime_nsec = 5,
					  .ctime_sec = 100,
					  .ctime_nsec = 6,
					  .path = "/etc/resolv conf"};
	_cleanup_free_ char *a = report_ready_line(&dir);
	_cleanup_free_ char *b = report_ready_line(&file);
	_cleanup_free_ char *text = NULL;
	struct report_ready rd;
	struct report_ready_entry probe;

	CHECK_STR(a, "7 d /mnt\n");
	CHECK_STR(b, "9 f 0 100 5 100 6 /etc/resolv conf\n");
	CHECK(asprintf(&text, "%sjunk\n3 x /y\n%s4 d\n", b, a) > 0);
	CHECK(report_ready_parse(text, strlen(text), &rd, NULL) == 0);
	CHECK(rd.n == 2 && rd.v[0].ino == 7 && rd.v[1].ino == 9);
	CHECK(report_ready_holds(&rd, &dir));
	/* a directory: the same inode and path, whatever its times */
	probe = dir;
	probe.mtime_sec = 999;
	CHECK(report_ready_holds(&rd, &probe));
	probe.path = "/mnt2"; /* renamed */
	CHECK(!report_ready_holds(&rd, &probe));
	probe = dir;
	probe.ino = 8; /* made again */
	CHECK(!report_ready_holds(&rd, &probe));
	CHECK(report_ready_holds(&rd, &file));
	probe = file;
	probe.size = 1; /* written */
	CHECK(!report_ready_holds(&rd, &probe));
	probe = file;
	probe.ctime_nsec = 7; /* chmod */
	CHECK(!report_ready_holds(&rd, &probe));
	probe = file;
	probe.dir = true;
	CHECK(!report_ready_holds(&rd, &probe));
	report_ready_release(&rd);
	/* a name with bytes to escape matches its escaped record */
	file.path = "/a\nb";
	free(b);
	b = NULL;
	{
		_cleanup_free_ char *esc = report_escape("/a\nb", 4);
		struct report_ready_entry rec = file;

		rec.path = esc;
		b = report_ready_line(&rec);
	}
	CHECK_STR(b, "9 f 0 100 5 100 6 /a\\x0ab\n");
	CHECK(report_ready_parse(b, strlen(b), &rd, NULL) == 0);
	CHECK(report_ready_holds(&rd, &file));
	report_ready_release(&rd);
	/* no record: nothing is held */
	CHECK(report_ready_parse("", 0, &rd, NULL) == 0);
	CHECK(!report_ready_holds(&rd, &dir));
	report_ready_release(&rd);
}

TEST(rw_binds_are_binds_without_ro)
{
	char *rw[] = {"rbind", "rw", "nosuid"};
	char *ro[] = {"rbind", "ro"};
	char *rro[] = {"bind", "rro"};
	struct spec_mount m = {.destination = "/d",
			       .type = "bind",
			       .source = "/s",
			       .options = rw,
			       .n_options = 3};

	CHECK(report_rw_bind(&m));
	m.options = ro;
	m.n_options = 2;
	CHECK(!report_rw_bind(&m));
	m.options = rro;
	CHECK(!report_rw_bind(&m));
	m.options = NULL;
	m.n_options = 0;
	m.type = "tmpfs";
	CHECK(!report_rw_bind(&m));
}

TEST(bind_files_in_text_and_json)
{
	struct report r = {.status = "stopped",
			   .files_known = true,
			   .scratch_used = {true, 4096},
			   .scratch_size = {true, 4096}};
	_cleanup_free_ char *text = NULL, *json = NULL;
	yajl_val v;

	r.id = strdup("c");
	CHECK(report_add_file(&r, "/s", REPORT_CREATED, false, 3, NULL) == 0);
	CHECK(report_add_bind_file(&r, "/data/x", REPORT_MODIFIED, false, 5,
				   NULL) == 0);
	CHECK(report_add_bind(&r, "/data", NULL, NULL) == 0);
	CHECK(report_add_bind(&r, "/other", "not read: why", NULL) == 0);
	report_sort_files(&r);
	CHECK(report_text(&r, &text, NULL) == 0);
	CHECK(strstr(text, "  modified            5  /data/x  (rw bind, by "
			   "time)\n"));
	CHECK(strstr(text, "  created             3  /s\n"));
	CHECK(strstr(text, "  rw bind /data: by file times"));
	CHECK(strstr(text, "  rw bind /other: not read: why\n"));
	CHECK(strstr(text, "(full: writes fail with ENOSPC)"));
	CHECK(report_json(&r, &json, NULL) == 0);
	v = yajl_tree_parse(json, NULL, 0);
	CHECK(v);
	{
		const char *full[] = {"limits", "scratch_full", NULL};
		const char *binds[] = {"files", "rw_binds", "binds", NULL};
		yajl_val b = yajl_tree_get(v, binds, yajl_t_array);

		CHECK(YAJL_IS_TRUE(yajl_tree_get(v, full, yajl_t_true)));
		CHECK(b && YAJL_GET_ARRAY(b)->len == 2);
	}
	CHECK(strstr(json, "\"where\": \"rw bind\""));
	CHECK(strstr(json, "\"where\": \"scratch\""));
	yajl_tree_free(v);
	report_release(&r);
}

TEST(json_value_writes_a_parsed_line_again)
{
	const char *in = "{\"a\":[1,\"x\\n\",{\"b\":true}],\"c\":null,"
			 "\"n\":-1.5e3,\"f\":false}";
	yajl_val v = yajl_tree_parse(in, NULL, 0);
	yajl_gen g = json_gen_new(0);
	char *out = NULL;

	CHECK(v && g && json_value(g, v, 4));
	CHECK(json_gen_finish(g, &out, NULL, NULL) == 0);
	CHECK_STR(out, "{\"a\":[1,\"x\\n\",{\"b\":true}],\"c\":null,"
		       "\"n\":-1.5e3,\"f\":false}\n");
	free(out);
	g = json_gen_new(0);
	CHECK(g && !json_value(g, v, 2)); /* {a:[{...}]} is three deep */
	yajl_gen_free(g);
	yajl_tree_free(v);
}

int main(void)
{
	return unit_run();
}
