/* `corral explain`: the blast radius of a hardened container — what it can
 * reach, concern by concern — and every change harden() made, for a person
 * (explain_text) or a program (explain_json).  Pure: it reads the
 * effective spec, the sandbox settings and the change list, nothing else.
 *
 * Both renderers read one `struct view` (explain_view.h), so the page and
 * the JSON cannot tell different stories.
 */
#include "harden.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dns.h"
#include "explain_view.h"
#include "harden_internal.h"
#include "json.h"
#include "json_tidy.h"
#include "units.h"
#include "util.h"

/* ---- JSON ------------------------------------------------------------ */

static void key_num_or_null(yajl_gen g, const char *key, int64_t v)
{
	json_str(g, key);
	if (v > 0)
		yajl_gen_integer(g, (long long)v);
	else
		yajl_gen_null(g);
}

static void key_list(yajl_gen g, const char *key, char *const *v, size_t n)
{
	json_key_strv(g, key, (const char *const *)v, n);
}

static void json_dropped_mounts(yajl_gen g, const struct hardened *h)
{
	json_str(g, "mountsDropped");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < h->n_changes; i++) {
		const struct harden_change *ch = &h->changes[i];
		size_t n = strlen(ch->field);

		if (strncmp(ch->field, ".mounts[", 8) != 0 ||
		    strcmp(ch->applied, "dropped") != 0 || n < 9)
			continue;
		yajl_gen_map_open(g);
		json_str(g, "destination");
		yajl_gen_string(g, (const unsigned char *)ch->field + 8, n - 9);
		json_key_str(g, "was", ch->asked);
		json_key_str(g, "reason", ch->reason);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

static void json_filesystem(yajl_gen g, const struct view *v)
{
	const struct spec *s = v->h->spec;

	json_str(g, "filesystem");
	yajl_gen_map_open(g);
	json_key_str(g, "root", v->root);
	json_key_bool(g, "rootReadOnly", v->root_readonly);
	json_key_int(g, "scratchSize", (long long)v->h->sandbox.scratch_size);
	key_list(g, "writable", v->writable, v->n_writable);
	json_str(g, "mounts");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct spec_mount *m = &s->mounts[i];

		yajl_gen_map_open(g);
		json_key_str(g, "destination", m->destination);
		json_key_str(g, "type", m->type ? m->type : "");
		json_key_str(g, "source", m->source ? m->source : "");
		key_list(g, "options", m->options, m->n_options);
		json_key_bool(g, "readOnly",
			      harden_strv_has(m->options, m->n_options, "ro"));
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
}

/* Why a limit is off (sandbox.limits_off), NULL when it is not: an
 * ordinary user's corral without a cgroup of its own, or whose delegated
 * cgroup lacks the limit's controller, under limits.bestEffort. */
static const char *limit_off(const struct view *v, unsigned limit)
{
	const struct sandbox *s = &v->h->sandbox;

	if (!(s->limits_off & limit))
		return NULL;
	if (s->no_cgroup)
		return "off: no cgroup of the caller's own (policy: "
		       "limits.bestEffort)";
	return limit == POLICY_LIMIT_MEMORY
		   ? "off: the caller's delegated cgroup has no memory "
		     "controller (policy: limits.bestEffort)"
	       : limit == POLICY_LIMIT_PIDS
		   ? "off: the caller's delegated cgroup has no pids "
		     "controller (policy: limits.bestEffort)"
		   : "off: the caller's delegated cgroup has no cpu "
		     "controller (policy: limits.bestEffort)";
}

/* Where the limits are written: the host's cgroup tree, or an ordinary
 * user's own. */
static const char *either(const char *a, const char *b)
{
	return a ? a : b;
}

static const char *cgroup_place(const struct sandbox *s)
{
	if (s->cgroup_systemd)
		return "systemd";
	if (!s->rootless)
		return "host";
	return s->cgroup_delegated ? "delegated" : "none";
}

static void key_off(yajl_gen g, const struct view *v, unsigned limit)
{
	const char *off = limit_off(v, limit);

	if (off)
		json_key_str(g, "off", off);
}

static void json_limits(yajl_gen g, const struct view *v)
{
	json_str(g, "time");
	yajl_gen_map_open(g);
	key_num_or_null(g, "wallClock", (int64_t)v->h->sandbox.wall_clock);
	json_key_str(g, "source", v->wall_source);
	yajl_gen_map_close(g);
	json_key_str(g, "cgroup", cgroup_place(&v->h->sandbox));
	json_str(g, "memory");
	yajl_gen_map_open(g);
	key_num_or_null(g, "limit", v->memory);
	json_str(g, "swap");
	if (v->memory && v->swap >= 0)
		yajl_gen_integer(g, (long long)v->swap);
	else
		yajl_gen_null(g);
	key_off(g, v, POLICY_LIMIT_MEMORY);
	yajl_gen_map_close(g);
	json_str(g, "pids");
	yajl_gen_map_open(g);
	key_num_or_null(g, "limit", v->pids);
	key_off(g, v, POLICY_LIMIT_PIDS);
	yajl_gen_map_close(g);
	json_str(g, "cpu");
	yajl_gen_map_open(g);
	key_off(g, v, POLICY_LIMIT_CPU);
	key_num_or_null(g, "quota", v->cpu_quota);
	key_num_or_null(g, "period", v->cpu_period);
	json_str(g, "cpus");
	if (v->cpu_quota)
		yajl_gen_double(g,
				(double)v->cpu_quota / (double)v->cpu_period);
	else
		yajl_gen_null(g);
	yajl_gen_map_close(g);
}

static void json_privileges(yajl_gen g, const struct view *v)
{
	const struct spec_process *pr = v->h->spec->process;
	const struct spec_linux *lx = v->h->spec->linux_;

	json_str(g, "privileges");
	yajl_gen_map_open(g);
	if (pr) {
		json_key_int(g, "uid", pr->user.uid);
		json_key_int(g, "gid", pr->user.gid);
		if (lx && lx->n_uid_mappings) {
			json_key_int(g, "hostUid",
				     explain_host_id(lx->uid_mappings,
						     lx->n_uid_mappings,
						     pr->user.uid));
			json_key_int(g, "hostGid",
				     explain_host_id(lx->gid_mappings,
						     lx->n_gid_mappings,
						     pr->user.gid));
		}
		json_str(g, "groups");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < pr->user.n_additional_gids; i++)
			yajl_gen_integer(g, pr->user.additional_gids[i]);
		yajl_gen_array_close(g);
	}
	key_list(g, "idMappings", v->id_maps, v->n_id_maps);
	key_list(g, "capabilities", v->caps, v->n_caps);
	json_key_bool(g, "noNewPrivileges", pr && pr->no_new_privileges);
	yajl_gen_map_close(g);
	json_str(g, "syscalls");
	yajl_gen_map_open(g);
	json_key_bool(g, "baseline", v->h->sandbox.enforced);
	key_list(g, "extraAllowed", v->h->sandbox.syscalls_allow,
		 v->h->sandbox.n_syscalls_allow);
	json_key_bool(g, "configFilter", lx && lx->seccomp);
	yajl_gen_map_close(g);
}

static void json_reach(yajl_gen g, const struct view *v)
{
	json_str(g, "reach");
	yajl_gen_map_open(g);
	json_filesystem(g, v);
	json_str(g, "network");
	yajl_gen_map_open(g);
	json_key_bool(g, "loopbackOnly",
		      v->h->sandbox.enforced && v->h->sandbox.loopback_only);
	json_key_str(g, "namespace", v->netns);
	json_key_bool(g, "pod",
		      v->h->sandbox.enforced && v->h->sandbox.pod_network);
	json_key_str(g, "summary", v->network);
	if (v->h->sandbox.enforced && v->h->sandbox.egress_on) {
		json_str(g, "egress");
		yajl_gen_map_open(g);
		key_list(g, "allow", v->h->sandbox.egress,
			 v->h->sandbox.n_egress);
		json_key_str(g, "proxy", EGRESS_PROXY_AUTHORITY);
		json_key_str(g, "stubResolver", DNS_STUB_SERVER);
		json_key_str(g, "stubAddress", DNS_STUB_ADDR);
		json_key_str(g, "dialFrom",
			     v->h->sandbox.engine_netns
				 ? v->h->sandbox.engine_netns
				 : "own");
		yajl_gen_map_close(g);
	}
	yajl_gen_map_close(g);
	json_str(g, "secrets");
	yajl_gen_map_open(g);
	key_list(g, "envKept", v->env_kept, v->n_env_kept);
	key_list(g, "envDropped", v->env_dropped, v->n_env_dropped);
	json_dropped_mounts(g, v->h);
	yajl_gen_map_close(g);
	json_limits(g, v);
	json_privileges(g, v);
	key_list(g, "devices", v->devices, v->n_devices);
	key_list(g, "hooks", v->hooks, v->n_hooks);
	yajl_gen_map_close(g);
}

/* "kernel": the release and what corral does about each kernel
 * difference (host_kernel.h); absent when the runtime did not probe. */
static void json_kernel(yajl_gen g, const struct host_kernel *k)
{
	struct host_kernel_fact facts[HOST_KERNEL_N_FACTS];
	unsigned n = host_kernel_facts(k, facts);

	if (!n)
		return;
	json_str(g, "kernel");
	yajl_gen_map_open(g);
	json_key_str(g, "release", k->release);
	for (unsigned i = 0; i < n; i++)
		json_key_str(g, facts[i].name, facts[i].what);
	yajl_gen_map_close(g);
}

int explain_json(const struct hardened *h, char **out, struct error **err)
{
	struct view v;
	yajl_gen g;

	if (explain_view_build(h, &v, err) < 0)
		return -1;
	g = json_gen_new(1);
	if (!g) {
		explain_view_release(&v);
		return error_set(err, ENOMEM, "out of memory");
	}
	yajl_gen_map_open(g);
	json_str(g, "sandbox");
	harden_emit_sandbox_object(g, &h->sandbox);
	json_reach(g, &v);
	json_kernel(g, &h->sandbox.kernel);
	json_str(g, "changes");
	harden_emit_changes(g, h);
	yajl_gen_map_close(g);
	explain_view_release(&v);
	return json_tidy_finish(g, out, err);
}

/* ---- text ------------------------------------------------------------ */

#define SECTION_WIDTH 12
#define LABEL_WIDTH 16

/* A string from config.json on one line: control characters are shown
 * as '?' so a hostile name cannot rewrite the reader's terminal. */
static void put_safe(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

/* One row: "section  label  value"; an empty section or label aligns. */
static void row(FILE *f, const char *section, const char *label,
		const char *value)
{
	fprintf(f, "%-*s%-*s", SECTION_WIDTH, section, LABEL_WIDTH, label);
	put_safe(f, value);
	fputc('\n', f);
}

/* One row per item, or one row saying `none`. */
static void rows(FILE *f, const char *section, const char *label,
		 char *const *v, size_t n, const char *none)
{
	if (n == 0)
		row(f, section, label, none);
	for (size_t i = 0; i < n; i++)
		row(f, i ? "" : section, i ? "" : label, v[i]);
}

/* A list on one row, comma-separated. */
static void list_row(FILE *f, const char *section, const char *label,
		     char *const *v, size_t n, const char *none)
{
	fprintf(f, "%-*s%-*s", SECTION_WIDTH, section, LABEL_WIDTH, label);
	if (n == 0)
		fputs(none, f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		put_safe(f, v[i]);
	}
	fputc('\n', f);
}

static void text_header(FILE *f, const struct hardened *h)
{
	if (!h->sandbox.enforced) {
		fputs("WARNING: SANDBOX OFF (policy mode permissive): the "
		      "container runs as config.json says\n\n",
		      f);
		return;
	}
	fprintf(f, "corral sandbox: enforced (%s)\n\n",
		h->sandbox.role == ROLE_POD_SANDBOX
		    ? "pod sandbox: no wall clock; its process a pause's: "
		      "no fork, 10 s of CPU, 64 MiB"
		    : "workload");
}

static void text_secrets(FILE *f, const struct view *v)
{
	const struct hardened *h = v->h;
	bool any = false;

	list_row(f, "secrets", "env kept", v->env_kept, v->n_env_kept, "none");
	list_row(f, "", "env dropped", v->env_dropped, v->n_env_dropped,
		 "none");
	for (size_t i = 0; i < h->n_changes; i++) {
		const struct harden_change *ch = &h->changes[i];

		if (strncmp(ch->field, ".mounts[", 8) != 0 ||
		    strcmp(ch->applied, "dropped") != 0)
			continue;
		fprintf(f, "%-*s%-*s", SECTION_WIDTH, "", LABEL_WIDTH,
			any ? "" : "mounts dropped");
		fprintf(f, "%.*s (", (int)(strlen(ch->field) - 9),
			ch->field + 8);
		put_safe(f, ch->reason);
		fputs(")\n", f);
		any = true;
	}
	if (!any)
		row(f, "", "mounts dropped", "none");
}

static void text_limits(FILE *f, const struct view *v)
{
	_cleanup_free_ char *wall =
	    units_duration_string(v->h->sandbox.wall_clock);
	_cleanup_free_ char *mem =
	    v->memory ? units_size_string((uint64_t)v->memory, true) : NULL;
	char buf[128];

	if (v->h->sandbox.wall_clock)
		snprintf(buf, sizeof(buf),
			 "%s, then every process is killed (%s)",
			 wall ? wall : "?", v->wall_source);
	else
		snprintf(buf, sizeof(buf), "no limit (%s)", v->wall_source);
	row(f, "time", "wall clock", buf);
	snprintf(buf, sizeof(buf), "%s%s", mem ? mem : "no limit",
		 !mem		? ""
		 : v->swap == 0 ? ", no swap"
				: ", swap allowed");
	row(f, "memory", "limit",
	    either(limit_off(v, POLICY_LIMIT_MEMORY), buf));
	if (v->pids)
		snprintf(buf, sizeof(buf), "%lld processes",
			 (long long)v->pids);
	row(f, "pids", "limit",
	    either(limit_off(v, POLICY_LIMIT_PIDS),
		   v->pids ? buf : "no limit"));
	if (v->cpu_quota)
		snprintf(buf, sizeof(buf), "%g CPUs (%lld us per %lld us)",
			 (double)v->cpu_quota / (double)v->cpu_period,
			 (long long)v->cpu_quota, (long long)v->cpu_period);
	row(f, "cpu", "limit",
	    either(limit_off(v, POLICY_LIMIT_CPU),
		   v->cpu_quota ? buf : "no limit"));
	if (v->h->sandbox.cgroup_systemd)
		row(f, "", "cgroup",
		    "a transient scope made through systemd (driver: "
		    "systemd)");
	else if (v->h->sandbox.rootless)
		row(f, "", "cgroup",
		    v->h->sandbox.cgroup_delegated
			? "the caller's delegated cgroup (rootless)"
			: "none (rootless: no cgroup of the caller's own)");
}

static void text_privileges(FILE *f, const struct view *v)
{
	const struct spec_process *pr = v->h->spec->process;
	const struct spec_linux *lx = v->h->spec->linux_;
	const struct sandbox *sb = &v->h->sandbox;
	char buf[160];

	if (pr && lx && lx->n_uid_mappings) {
		snprintf(buf, sizeof(buf),
			 "%u:%u (host %lld:%lld), %zu supplementary group%s",
			 pr->user.uid, pr->user.gid,
			 explain_host_id(lx->uid_mappings, lx->n_uid_mappings,
					 pr->user.uid),
			 explain_host_id(lx->gid_mappings, lx->n_gid_mappings,
					 pr->user.gid),
			 pr->user.n_additional_gids,
			 pr->user.n_additional_gids == 1 ? "" : "s");
		row(f, "privileges", "user", buf);
	} else if (pr) {
		snprintf(buf, sizeof(buf), "%u:%u, %zu supplementary group%s",
			 pr->user.uid, pr->user.gid, pr->user.n_additional_gids,
			 pr->user.n_additional_gids == 1 ? "" : "s");
		row(f, "privileges", "user", buf);
	}
	rows(f, pr ? "" : "privileges", "user namespace", v->id_maps,
	     v->n_id_maps, "none (ids are the host's)");
	list_row(f, "", "capabilities", v->caps, v->n_caps, "none");
	row(f, "", "no_new_privs", pr && pr->no_new_privileges ? "yes" : "no");
	row(f, "syscalls", "baseline",
	    sb->enforced ? "loaded (unknown calls fail with ENOSYS)" : "off");
	list_row(f, "", "extra allowed", sb->syscalls_allow,
		 sb->n_syscalls_allow, "none");
	row(f, "", "config filter",
	    lx && lx->seccomp ? "loaded too (a call must pass both)" : "none");
	list_row(f, "devices", "", v->devices, v->n_devices, "none");
	rows(f, "hooks", "run as root", v->hooks, v->n_hooks, "none");
}

/* A change's "ASKED -> APPLIED", GAP, "(REASON)" and the line's end. */
static void put_change(FILE *f, const struct harden_change *ch, const char *gap)
{
	put_safe(f, ch->asked);
	fputs(" -> ", f);
	put_safe(f, ch->applied);
	fputs(gap, f);
	fputc('(', f);
	put_safe(f, ch->reason);
	fputs(")\n", f);
}

/* What the container runs without that config.json asked for: each
 * recorded drop (harden_change.dropped) on a line of its own, which the
 * report lists again under "changed by the sandbox". */
static void text_dropped(FILE *f, const struct hardened *h)
{
	bool any = false;

	for (size_t i = 0; i < h->n_changes; i++) {
		const struct harden_change *ch = &h->changes[i];

		if (!ch->dropped)
			continue;
		fprintf(f, "%-*s%-*s", SECTION_WIDTH, any ? "" : "dropped",
			LABEL_WIDTH, any ? "" : "runs without");
		put_safe(f, ch->field);
		fputs(": ", f);
		put_change(f, ch, " ");
		any = true;
	}
	if (!any)
		row(f, "dropped", "runs without",
		    "nothing config.json asked for");
}

/* The kernel's differences and what corral does about each, as
 * json_kernel says them. */
static void text_kernel(FILE *f, const struct host_kernel *k)
{
	struct host_kernel_fact facts[HOST_KERNEL_N_FACTS];
	unsigned n = host_kernel_facts(k, facts);

	if (!n)
		return;
	row(f, "kernel", "release", k->release);
	for (unsigned i = 0; i < n; i++)
		row(f, "", facts[i].name, facts[i].what);
}

/* The change list, the field column aligned. */
static void text_changes(FILE *f, const struct hardened *h)
{
	int width = 0;

	for (size_t i = 0; i < h->n_changes; i++) {
		int n = (int)strlen(h->changes[i].field);

		if (n > width)
			width = n > 44 ? 44 : n;
	}
	fprintf(f, "\nchanges to config.json (%zu)\n", h->n_changes);
	for (size_t i = 0; i < h->n_changes; i++) {
		const struct harden_change *ch = &h->changes[i];

		fputs("  ", f);
		put_safe(f, ch->field);
		fprintf(f, "%*s  ",
			width - (int)strlen(ch->field) > 0
			    ? width - (int)strlen(ch->field)
			    : 0,
			"");
		put_change(f, ch, "  ");
	}
}

/* The stub resolver, for clients that ignore the proxy variables. */
#define STUB_ROW                                                               \
	"corral's stub resolver at " DNS_STUB_SERVER " (/etc/resolv.conf) "    \
	"answers these hosts with " DNS_STUB_ADDR ", where TLS (by server "    \
	"name) and plain HTTP (by Host) reach them without the proxy; "        \
	"every other name is NXDOMAIN"

static void text_page(FILE *f, const struct view *v)
{
	text_header(f, v->h);
	row(f, "filesystem", "root", v->root);
	rows(f, "", "writable", v->writable, v->n_writable, "nothing");
	rows(f, "", "host paths", v->host_paths, v->n_host_paths, "none");
	row(f, "network", "", v->network);
	if (v->h->sandbox.enforced && v->h->sandbox.egress_on) {
		rows(f, "", "egress", v->h->sandbox.egress,
		     v->h->sandbox.n_egress, "none");
		row(f, "", "names", STUB_ROW);
	}
	text_secrets(f, v);
	text_limits(f, v);
	text_privileges(f, v);
	text_dropped(f, v->h);
	text_kernel(f, &v->h->sandbox.kernel);
	text_changes(f, v->h);
}

int explain_text(const struct hardened *h, char **out, struct error **err)
{
	char *buf = NULL;
	size_t size = 0;
	struct view v;
	FILE *f;

	if (explain_view_build(h, &v, err) < 0)
		return -1;
	f = open_memstream(&buf, &size);
	if (!f) {
		explain_view_release(&v);
		return error_set(err, ENOMEM, "out of memory");
	}
	text_page(f, &v);
	explain_view_release(&v);
	if (fclose(f) != 0) {
		free(buf);
		return error_set(err, ENOMEM, "explain: out of memory");
	}
	*out = buf;
	return 0;
}
