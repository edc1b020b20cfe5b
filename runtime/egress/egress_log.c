/* The egress proxy's log (egress_proxy.h egress_log): one JSON line per
 * decision, appended with one write, within its kind's and verdict's
 * share of the log, and the counters beside it. */
#include "egress_proxy.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

#define LOG_LINE_MAX 4096

/* A JSON string: every byte outside printable ASCII, and the quote and
 * backslash, escaped (a name is the workload's text). */
static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c;
	     c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c >= 0x7f)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

static void put_addr(FILE *f, const struct egress_addr *a)
{
	char text[64];

	egress_addr_text(a, text, sizeof(text));
	put_json_str(f, text);
}

static const char *const kind_names[EGRESS_KINDS] = {
    [EGRESS_KIND_PROXY] = "proxy",
    [EGRESS_KIND_TRANSPARENT] = "transparent",
    [EGRESS_KIND_DNS] = "dns",
};

/* Each kind's and verdict's share of the log, in bytes: 7.25 MiB in all,
 * the rest of log_max (8 MiB) left for the lines that say a share is
 * spent.  The file is in the state directory, on the host's tmpfs: a
 * workload must not fill it, nor crowd out one kind of line with another
 * (20,000 refused names must not hide the request that was let through). */
static const uint64_t log_budget[EGRESS_KINDS][EGRESS_VERDICTS] = {
    [EGRESS_KIND_PROXY] = {2 << 20, 1 << 20},
    [EGRESS_KIND_TRANSPARENT] = {2 << 20, 1 << 20},
    [EGRESS_KIND_DNS] = {256 << 10, 1 << 20},
};

static enum egress_log_kind kind_of(const char *kind)
{
	for (int k = 0; k < EGRESS_KINDS; k++)
		if (kind && strcmp(kind, kind_names[k]) == 0)
			return (enum egress_log_kind)k;
	return EGRESS_KIND_PROXY;
}

/* Take n bytes of the share, if they fit. */
static bool take_budget(struct egress_counts *c, int k, int v, size_t n)
{
	uint64_t used = __atomic_load_n(&c->logged[k][v], __ATOMIC_RELAXED);

	do {
		if (used + n > log_budget[k][v])
			return false;
	} while (!__atomic_compare_exchange_n(&c->logged[k][v], &used, used + n,
					      true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

/* One line, one write(): O_APPEND keeps concurrent processes' lines
 * whole.  Past log_max bytes nothing more is written at all. */
static void write_line(const struct egress_proxy *p, char *line, long n)
{
	off_t size = lseek(p->log_fd, 0, SEEK_END);

	if (size < 0 || (size_t)size >= p->log_max)
		return;
	line[n] = '\n';
	if (write(p->log_fd, line, (size_t)n + 1) < 0)
		return;
}

/* The line about kind k's and verdict v's share: spent (dropped 0, when
 * the first line is dropped) or, at the end, how many were. */
static void log_share(const struct egress_proxy *p, int k, int v,
		      uint64_t dropped)
{
	char line[LOG_LINE_MAX], now[64];
	int n;

	now_rfc3339(now, sizeof(now));
	if (dropped)
		n = snprintf(
		    line, sizeof(line) - 1,
		    "{\"time\":\"%s\",\"kind\":\"%s\",\"verdict\":"
		    "\"%s\",\"dropped\":%llu,\"reason\":\"%llu lines "
		    "dropped: their share of the log (%llu bytes) was "
		    "spent; corral report counts them\"}",
		    now, kind_names[k], v == EGRESS_ALLOW ? "allow" : "deny",
		    (unsigned long long)dropped, (unsigned long long)dropped,
		    (unsigned long long)log_budget[k][v]);
	else
		n = snprintf(line, sizeof(line) - 1,
			     "{\"time\":\"%s\",\"kind\":\"%s\",\"verdict\":"
			     "\"%s\",\"dropped\":0,\"reason\":\"the share of "
			     "the log for these lines (%llu bytes) is spent: "
			     "the next ones are counted, not written\"}",
			     now, kind_names[k],
			     v == EGRESS_ALLOW ? "allow" : "deny",
			     (unsigned long long)log_budget[k][v]);
	if (n > 0 && n < (int)sizeof(line) - 1)
		write_line(p, line, n);
}

/* The line of d in line (LOG_LINE_MAX bytes, without its newline): its
 * length, or -1 when it did not fit (a line is never written half). */
static long format_line(const struct egress_proxy *p,
			const struct egress_decision *d, char *line)
{
	char now[64];
	FILE *f = fmemopen(line, LOG_LINE_MAX, "w");
	long n;

	if (!f)
		return -1;
	now_rfc3339(now, sizeof(now));
	fprintf(f, "{\"time\":\"%s\",\"container\":", now);
	put_json_str(f, p->container_id);
	fprintf(f, ",\"kind\":");
	put_json_str(f, d->kind ? d->kind : "proxy");
	fprintf(f, ",\"method\":");
	put_json_str(f, d->method);
	fprintf(f, ",\"name\":");
	put_json_str(f, d->name);
	fprintf(f, ",\"port\":%u,\"resolved\":[", d->port);
	for (size_t i = 0; i < d->n_resolved; i++) {
		if (i)
			fputc(',', f);
		put_addr(f, &d->resolved[i]);
	}
	fprintf(f, "],\"address\":");
	if (d->chosen)
		put_addr(f, d->chosen);
	else
		fputs("null", f);
	fprintf(f, ",\"rule\":");
	if (d->rule)
		put_json_str(f, d->rule);
	else
		fputs("null", f);
	fprintf(f, ",\"verdict\":\"%s\",\"reason\":", d->verdict);
	put_json_str(f, d->reason);
	fprintf(f,
		",\"bytes_up\":%llu,\"bytes_down\":%llu,\"duration_ms\":%lld}",
		d->up, d->down, egress_now_ms() - d->start_ms);
	n = ftell(f);
	fclose(f);
	return n <= 0 || n >= LOG_LINE_MAX - 1 ? -1 : n;
}

void egress_log(const struct egress_proxy *p, const struct egress_decision *d)
{
	char line[LOG_LINE_MAX];
	int k = kind_of(d->kind);
	int v = d->verdict && strcmp(d->verdict, "allow") == 0 ? EGRESS_ALLOW
							       : EGRESS_DENY;
	long n;

	if (p->counts)
		__atomic_add_fetch(&p->counts->decisions[k][v], 1,
				   __ATOMIC_RELAXED);
	if (p->log_fd < 0 || (n = format_line(p, d, line)) < 0)
		return;
	if (p->counts && !take_budget(p->counts, k, v, (size_t)n + 1)) {
		if (__atomic_fetch_add(&p->counts->dropped[k][v], 1,
				       __ATOMIC_RELAXED) == 0)
			log_share(p, k, v, 0);
		return;
	}
	write_line(p, line, n);
}

void egress_log_dropped(const struct egress_proxy *p)
{
	if (!p->counts || p->log_fd < 0)
		return;
	for (int k = 0; k < EGRESS_KINDS; k++)
		for (int v = 0; v < EGRESS_VERDICTS; v++) {
			uint64_t n = __atomic_load_n(&p->counts->dropped[k][v],
						     __ATOMIC_RELAXED);

			if (n)
				log_share(p, k, v, n);
		}
}

/* ---- the filter ------------------------------------------------------ */
