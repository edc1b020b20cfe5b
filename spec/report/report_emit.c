/* `corral report`'s two renderers: text for a person, JSON for a program,
 * both from one struct report (report.h), so they cannot disagree. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "strfmt.h"
#include "units.h"
#include "util.h"

static const char *const change_names[] = {
    [REPORT_CREATED] = "created",
    [REPORT_MODIFIED] = "modified",
    [REPORT_DELETED] = "deleted",
};

#define NETWORK_NOTE                                                           \
	"connects inside the loopback-only namespace are not visible to "      \
	"corral"
#define BINDS_NOTE                                                             \
	"by file times within the run, approximate: another writer's files "   \
	"then are listed, deletions are not seen"
#define FILES_NOTE                                                             \
	"the scratch overlay's upper layer (a tmpfs config.json mounts is "    \
	"not seen)"
#define SYSCALLS_UNKNOWN                                                       \
	"not recorded: the supervisor had no seccomp listener (no "            \
	"baseline under a permissive policy, or a container made before it)"
#define DROPS_NOTE                                                             \
	"what config.json asked for that the container runs without, as "      \
	"create recorded it (refused requests never make a container)"
#define SYSCALLS_NOTE                                                          \
	"the workload's calls the baseline always denies; calls "              \
	"config.json's filter refuses itself, and those of `corral exec`, "    \
	"are not recorded"

/* Nanoseconds between two realtime stamps, or -1 (also for stamps a
 * damaged record could hold: backwards, or centuries apart). */
static int64_t run_ns(const struct report *r)
{
	int64_t sec;

	if (!r->started.known || !r->ended.known ||
	    __builtin_sub_overflow(r->ended.sec, r->started.sec, &sec) ||
	    sec < 0 || sec > INT64_MAX / 1000000000LL - 2 ||
	    r->ended.nsec < 0 || r->ended.nsec >= 1000000000L ||
	    r->started.nsec < 0 || r->started.nsec >= 1000000000L)
		return -1;
	return sec * 1000000000LL + (r->ended.nsec - r->started.nsec);
}

/* The scratch has no block left when the report is made (it may have
 * been full before and not now: the workload can delete). */
static bool scratch_full(const struct report *r)
{
	return r->scratch_used.known && r->scratch_size.known &&
	       r->scratch_size.value > 0 &&
	       r->scratch_used.value >= r->scratch_size.value;
}

static void text_counter(FILE *f, const char *label,
			 const struct report_counter *c, const char *unit)
{
	if (c->known)
		fprintf(f, "  %-18s %" PRIu64 "%s\n", label, c->value, unit);
	else
		fprintf(f, "  %-18s unknown\n", label);
}

static void text_outcome(FILE *f, const struct report *r)
{
	int64_t ns = run_ns(r);

	fprintf(f, "outcome\n  %-18s %s\n", "reason:", report_reason(r));
	if (r->ended_known)
		fprintf(f, "  %-18s %s %d\n",
			"status:", r->signalled ? "killed by signal" : "exit",
			r->code);
	else
		fprintf(f, "  %-18s unknown\n", "status:");
	if (ns >= 0)
		fprintf(f, "  %-18s %.3f s\n", "run time:", (double)ns / 1e9);
	else
		fprintf(f, "  %-18s unknown\n", "run time:");
	if (r->cpu_ns.known)
		fprintf(f, "  %-18s %.3f s\n",
			"cpu time:", (double)r->cpu_ns.value / 1e9);
	else
		fprintf(f, "  %-18s unknown\n", "cpu time:");
	text_counter(f, "peak memory:", &r->memory_peak, " bytes");
}

static void text_limits(FILE *f, const struct report *r)
{
	fprintf(f, "limits hit\n");
	text_counter(f, "oom kills:", &r->oom_kills, "");
	text_counter(f, "forks refused:", &r->pids_refused, " (at pids.max)");
	text_counter(f, "cpu throttled:", &r->throttled_periods, " periods");
	if (!r->wall_clock)
		fprintf(f, "  %-18s none set\n", "wall clock:");
	else
		fprintf(f, "  %-18s %s (limit %" PRIu64 " s)\n",
			"wall clock:", r->by_wall_clock ? "fired" : "not hit",
			r->wall_clock);
	if (r->scratch_used.known && r->scratch_size.known)
		fprintf(
		    f,
		    "  %-18s scratch at %" PRIu64 " of %" PRIu64 " bytes%s\n",
		    "scratch:", r->scratch_used.value, r->scratch_size.value,
		    scratch_full(r) ? " (full: writes fail with ENOSPC)" : "");
	else
		fprintf(f, "  %-18s unknown\n", "scratch:");
}

static void text_files(FILE *f, const struct report *r)
{
	uint64_t listed_names = 0;

	fprintf(f, "files changed\n");
	if (!r->files_known) {
		fprintf(f, "  unknown: %s\n",
			r->files_why ? r->files_why : "no record");
		return;
	}
	if (r->n_files_total == 0)
		fprintf(f, "  none\n");
	for (size_t i = 0; i < r->n_files; i++) {
		const struct report_file *e = &r->files[i];

		fprintf(f, "  %-8s %12" PRIu64 "  %s%s%s",
			change_names[e->change], e->size, e->name,
			e->dir ? "/" : "",
			e->in_bind ? "  (rw bind, by time)" : "");
		if (e->more_names)
			fprintf(f, "  (and %" PRIu64 " more names)",
				e->more_names);
		fputc('\n', f);
		listed_names += e->more_names;
	}
	if (r->n_files_total > r->n_files)
		fprintf(f, "  and %" PRIu64 " more\n",
			r->n_files_total - r->n_files);
	if (r->more_names > listed_names)
		fprintf(f,
			"  and %" PRIu64 " more names of files not listed "
			"(hard links: each file counted once)\n",
			r->more_names - listed_names);
	if (r->files_truncated)
		fprintf(f,
			"  (the walk stopped at its depth or entry bound)\n");
	fprintf(f, "  from: %s\n", FILES_NOTE);
	for (size_t i = 0; i < r->n_binds; i++)
		fprintf(f, "  rw bind %s: %s\n", r->binds[i].path,
			r->binds[i].why ? r->binds[i].why : BINDS_NOTE);
}

static void text_network(FILE *f, const struct report *r)
{
	fprintf(f, "network\n  %s\n", NETWORK_NOTE);
	if (!r->egress_known) {
		fprintf(f, "  egress: no egress proxy log\n");
		return;
	}
	fprintf(f,
		"  egress: %" PRIu64 " allowed, %" PRIu64 " denied"
		"%s\n",
		r->egress_allowed, r->egress_denied,
		r->egress_bad_lines ? " (unreadable lines skipped)" : "");
	if (r->egress_dropped)
		fprintf(f,
			"  egress log: %" PRIu64 " lines dropped (a kind's "
			"share of the log spent; counted above)\n",
			r->egress_dropped);
	fprintf(f,
		"  resolver: %" PRIu64 " names looked up, %" PRIu64
		" from the cache, %" PRIu64 " refused for rate\n",
		r->egress_lookups, r->egress_cache_hits,
		r->egress_rate_refused);
	for (size_t i = 0; i < r->n_denied; i++)
		fprintf(f, "  denied %s\n", r->denied[i]);
}

static void syscall_name(const struct report_syscall *s, char out[48])
{
	if (s->name)
		snprintf(out, 48, "%.40s", s->name);
	else
		snprintf(out, 48, "syscall %d", s->nr);
}

static void text_syscalls(FILE *f, const struct report *r)
{
	size_t shown = r->n_syscalls < REPORT_SYSCALLS_SHOWN
			   ? r->n_syscalls
			   : REPORT_SYSCALLS_SHOWN;

	fprintf(f, "syscalls refused\n");
	if (!r->syscalls_known) {
		fprintf(f, "  %s\n", SYSCALLS_UNKNOWN);
		return;
	}
	fprintf(f, "  %" PRIu64 " refused (EPERM)\n", r->syscalls_total);
	for (size_t i = 0; i < shown; i++) {
		const struct report_syscall *s = &r->syscalls[i];
		char name[48], when[40];

		syscall_name(s, name);
		units_utc_time(s->first_sec, s->first_nsec, when, sizeof(when));
		fprintf(f, "  %-18s %10" PRIu64 "  first %s pid %d (%s)\n",
			name, s->count, when, s->pid, s->comm);
	}
	if (r->n_syscalls > shown)
		fprintf(f, "  and %zu more syscalls\n", r->n_syscalls - shown);
	if (r->syscalls_truncated)
		fprintf(f, "  (more syscalls than the report keeps)\n");
}

static void text_drops(FILE *f, const struct report *r)
{
	fprintf(f, "changed by the sandbox\n");
	if (!r->drops_known) {
		fprintf(f, "  unknown: no record of create's changes\n");
		return;
	}
	if (r->n_drops_total == 0)
		fprintf(f, "  none: the container got all config.json asked "
			   "for, within its limits\n");
	for (size_t i = 0; i < r->n_drops; i++) {
		const struct report_drop *d = &r->drops[i];

		fprintf(f, "  %s: %s -> %s (%s)\n", d->field, d->asked,
			d->applied, d->reason);
	}
	if (r->n_drops_total > r->n_drops)
		fprintf(f, "  and %" PRIu64 " more\n",
			r->n_drops_total - r->n_drops);
}

int report_text(const struct report *r, char **out, struct error **err)
{
	bool oom = false;
	char *buf;
	size_t size;
	FILE *f = strfmt_stream(&oom, &buf, &size);

	if (!f)
		return error_set(err, ENOMEM, "report: out of memory");
	fprintf(f, "container %s (%s)\n", r->id, r->status);
	text_outcome(f, r);
	text_limits(f, r);
	text_files(f, r);
	text_drops(f, r);
	text_network(f, r);
	text_syscalls(f, r);
	*out = strfmt_close(&oom, f, &buf);
	return *out ? 0 : error_set(err, ENOMEM, "report: out of memory");
}

/* ---- JSON ------------------------------------------------------------- */

static void key_counter(yajl_gen g, const char *key,
			const struct report_counter *c)
{
	json_str(g, key);
	if (c->known)
		yajl_gen_integer(g, (long long)c->value);
	else
		yajl_gen_null(g);
}

static void key_null(yajl_gen g, const char *key)
{
	json_str(g, key);
	yajl_gen_null(g);
}

static void json_outcome(yajl_gen g, const struct report *r)
{
	int64_t ns = run_ns(r);

	json_str(g, "outcome");
	yajl_gen_map_open(g);
	json_key_str(g, "reason", report_reason(r));
	if (r->ended_known && r->signalled) {
		key_null(g, "exit_code");
		json_key_int(g, "signal", r->code);
	} else if (r->ended_known) {
		json_key_int(g, "exit_code", r->code);
		key_null(g, "signal");
	} else {
		key_null(g, "exit_code");
		key_null(g, "signal");
	}
	struct report_counter run = {ns >= 0, ns >= 0 ? (uint64_t)ns : 0};
	key_counter(g, "run_time_ns", &run);
	key_counter(g, "cpu_time_ns", &r->cpu_ns);
	key_counter(g, "memory_peak_bytes", &r->memory_peak);
	yajl_gen_map_close(g);
}

static void json_limits(yajl_gen g, const struct report *r)
{
	json_str(g, "limits");
	yajl_gen_map_open(g);
	key_counter(g, "oom_kills", &r->oom_kills);
	key_counter(g, "forks_refused", &r->pids_refused);
	key_counter(g, "cpu_throttled_periods", &r->throttled_periods);
	key_counter(g, "cpu_throttled_ns", &r->throttled_ns);
	json_key_int(g, "wall_clock_limit_s", (long long)r->wall_clock);
	json_key_bool(g, "wall_clock_fired", r->by_wall_clock);
	key_counter(g, "scratch_used_bytes", &r->scratch_used);
	key_counter(g, "scratch_size_bytes", &r->scratch_size);
	json_key_bool(g, "scratch_full", scratch_full(r));
	yajl_gen_map_close(g);
}

static void json_files(yajl_gen g, const struct report *r)
{
	json_str(g, "files");
	if (!r->files_known) {
		yajl_gen_null(g);
		return;
	}
	yajl_gen_map_open(g);
	json_key_int(g, "total", (long long)r->n_files_total);
	json_key_int(g, "bytes", (long long)r->files_bytes);
	json_key_int(g, "more_names", (long long)r->more_names);
	json_key_int(g, "not_listed",
		     (long long)(r->n_files_total - r->n_files));
	json_key_bool(g, "truncated", r->files_truncated);
	json_str(g, "changes");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < r->n_files; i++) {
		yajl_gen_map_open(g);
		json_key_str(g, "change", change_names[r->files[i].change]);
		json_key_str(g, "path", r->files[i].name);
		json_key_bool(g, "dir", r->files[i].dir);
		json_key_int(g, "size", (long long)r->files[i].size);
		json_key_int(g, "more_names",
			     (long long)r->files[i].more_names);
		json_key_str(g, "where",
			     r->files[i].in_bind ? "rw bind" : "scratch");
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	json_key_str(g, "note", FILES_NOTE);
	json_str(g, "rw_binds");
	yajl_gen_map_open(g);
	json_key_str(g, "note", BINDS_NOTE);
	json_str(g, "binds");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < r->n_binds; i++) {
		yajl_gen_map_open(g);
		json_key_str(g, "path", r->binds[i].path);
		json_key_bool(g, "read", !r->binds[i].why);
		json_str(g, "why");
		if (r->binds[i].why)
			json_str(g, r->binds[i].why);
		else
			yajl_gen_null(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

static void json_network(yajl_gen g, const struct report *r)
{
	json_str(g, "network");
	yajl_gen_map_open(g);
	json_key_str(g, "note", NETWORK_NOTE);
	json_str(g, "egress");
	if (!r->egress_known) {
		yajl_gen_null(g);
	} else {
		yajl_gen_map_open(g);
		json_key_int(g, "allowed", (long long)r->egress_allowed);
		json_key_int(g, "denied", (long long)r->egress_denied);
		json_key_int(g, "unreadable_lines",
			     (long long)r->egress_bad_lines);
		json_key_int(g, "dropped_lines", (long long)r->egress_dropped);
		json_key_int(g, "lookups", (long long)r->egress_lookups);
		json_key_int(g, "cache_hits", (long long)r->egress_cache_hits);
		json_key_int(g, "rate_refused",
			     (long long)r->egress_rate_refused);
		json_key_strv(g, "denied_names", (const char *const *)r->denied,
			      r->n_denied);
		yajl_gen_map_close(g);
	}
	yajl_gen_map_close(g);
}

static void json_syscalls(yajl_gen g, const struct report *r)
{
	size_t shown = r->n_syscalls < REPORT_SYSCALLS_SHOWN
			   ? r->n_syscalls
			   : REPORT_SYSCALLS_SHOWN;

	json_str(g, "syscalls_refused");
	if (!r->syscalls_known) {
		yajl_gen_null(g);
		return;
	}
	yajl_gen_map_open(g);
	json_key_str(g, "note", SYSCALLS_NOTE);
	json_key_int(g, "total", (long long)r->syscalls_total);
	json_key_int(g, "not_listed", (long long)(r->n_syscalls - shown));
	json_key_bool(g, "truncated", r->syscalls_truncated);
	json_str(g, "calls");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < shown; i++) {
		const struct report_syscall *s = &r->syscalls[i];
		char when[40];

		units_utc_time(s->first_sec, s->first_nsec, when, sizeof(when));
		yajl_gen_map_open(g);
		if (s->name)
			json_key_str(g, "name", s->name);
		else
			key_null(g, "name");
		json_key_int(g, "nr", s->nr);
		json_key_int(g, "count", (long long)s->count);
		json_key_str(g, "first", when);
		json_key_int(g, "first_pid", s->pid);
		json_key_str(g, "first_comm", s->comm);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
}

static void json_drops(yajl_gen g, const struct report *r)
{
	json_str(g, "changed_by_sandbox");
	if (!r->drops_known) {
		yajl_gen_null(g);
		return;
	}
	yajl_gen_map_open(g);
	json_key_str(g, "note", DROPS_NOTE);
	json_key_int(g, "total", (long long)r->n_drops_total);
	json_key_int(g, "not_listed",
		     (long long)(r->n_drops_total - r->n_drops));
	json_str(g, "dropped");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < r->n_drops; i++) {
		yajl_gen_map_open(g);
		json_key_str(g, "field", r->drops[i].field);
		json_key_str(g, "asked", r->drops[i].asked);
		json_key_str(g, "applied", r->drops[i].applied);
		json_key_str(g, "reason", r->drops[i].reason);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
}

int report_json(const struct report *r, char **out, struct error **err)
{
	yajl_gen g = json_gen_new(1);

	if (!g)
		return error_set(err, ENOMEM, "report: out of memory");
	yajl_gen_map_open(g);
	json_key_str(g, "id", r->id);
	json_key_str(g, "status", r->status);
	json_outcome(g, r);
	json_limits(g, r);
	json_files(g, r);
	json_drops(g, r);
	json_network(g, r);
	json_syscalls(g, r);
	yajl_gen_map_close(g);
	return json_gen_finish(g, out, NULL, err);
}
