/* Build-time generator: the table spec/egress/egress_suffix.c searches, from
 * the Public Suffix List (Debian's publicsuffix package, its ICANN and PRIVATE
 * sections) and corral's own list (tools/egress_suffixes.txt: IP-echo and
 * wildcard-DNS services, tunnels and out-of-band catchers, S3's regional
 * endpoints).  Usage: psl_gen PSL OWN >public_suffixes.inc
 *
 * Each name is written in the form egress rules compare (lowercase,
 * punycode: egress_normalize_host), its labels reversed ("co.uk" is
 * "uk.co"), so that every entry under a name follows it in one sorted
 * run.  The names go into one string (no pointers: the table costs a
 * static-pie corral no relocation at start), the table holds each one's
 * offset and kinds, sorted by name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"
#include "egress_suffix.h"
#include "util.h"

struct entry {
	char *key; /* reversed labels */
	unsigned kinds;
};

static struct entry *entries;
static size_t n_entries, cap_entries;

/* "a.b.c" -> "c.b.a" */
static char *reverse_labels(const char *name)
{
	size_t len = strlen(name), at = 0;
	char *out = malloc(len + 1);
	const char *end = name + len;

	if (!out)
		return NULL;
	while (end > name) {
		const char *dot = end;

		while (dot > name && dot[-1] != '.')
			dot--;
		memcpy(out + at, dot, (size_t)(end - dot));
		at += (size_t)(end - dot);
		if (dot > name)
			out[at++] = '.';
		end = dot > name ? dot - 1 : name;
	}
	out[at] = '\0';
	return out;
}

static int add(const char *name, unsigned kind, const char *where)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *norm = NULL;

	if (egress_normalize_host(name, &norm, &err) < 0) {
		fprintf(stderr, "psl_gen: %s: %s\n", where, err->msg);
		return -1;
	}
	if (n_entries == cap_entries) {
		struct entry *e;

		cap_entries = cap_entries ? cap_entries * 2 : 1024;
		e = realloc(entries, cap_entries * sizeof(*e));
		if (!e)
			return -1;
		entries = e;
	}
	entries[n_entries].key = reverse_labels(norm);
	entries[n_entries].kinds = kind;
	return entries[n_entries++].key ? 0 : -1;
}

/* One line of the PSL: "name", "*.name" or "!name"; the comments and
 * blank lines are skipped.  A rule ends at the first blank. */
static int psl_line(char *line, const char *where)
{
	line[strcspn(line, " \t\r\n")] = '\0';
	if (!line[0] || strncmp(line, "//", 2) == 0)
		return 0;
	if (line[0] == '!')
		return add(line + 1, SUFFIX_EXCEPTION, where);
	if (strncmp(line, "*.", 2) == 0)
		return add(line + 2, SUFFIX_WILDCARD, where);
	if (strchr(line, '*')) {
		fprintf(stderr, "psl_gen: %s: a wildcard not leftmost\n",
			where);
		return -1;
	}
	return add(line, SUFFIX_RULE, where);
}

static int aws_region(const char *r, const char *where)
{
	static const char *const forms[] = {
	    "s3.%s.amazonaws.com", "s3-website.%s.amazonaws.com",
	    "s3.dualstack.%s.amazonaws.com", "s3-%s.amazonaws.com",
	    "s3-website-%s.amazonaws.com"};
	char name[256];

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		snprintf(name, sizeof(name), forms[i], r);
		if (add(name, SUFFIX_HOSTING, where) < 0)
			return -1;
	}
	return 0;
}

static int own_line(char *line, const char *where)
{
	char *kind = strtok(line, " \t\r\n"), *name = strtok(NULL, " \t\r\n");

	if (!kind || kind[0] == '#')
		return 0;
	if (name && strcmp(kind, "echo") == 0)
		return add(name, SUFFIX_ECHO, where);
	if (name && strcmp(kind, "hosting") == 0)
		return add(name, SUFFIX_HOSTING, where);
	if (name && strcmp(kind, "aws-region") == 0)
		return aws_region(name, where);
	fprintf(stderr,
		"psl_gen: %s: expected \"echo|hosting|aws-region "
		"NAME\"\n",
		where);
	return -1;
}

static int read_list(const char *path, int (*fn)(char *, const char *))
{
	FILE *f = fopen(path, "re");
	char line[1024], where[1200];
	unsigned n = 0;
	int r = 0;

	if (!f) {
		fprintf(stderr, "psl_gen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (r == 0 && fgets(line, sizeof(line), f)) {
		snprintf(where, sizeof(where), "%s:%u", path, ++n);
		r = fn(line, where);
	}
	fclose(f);
	return r;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key,
		      ((const struct entry *)b)->key);
}

/* The string of names as C, 8 names a line. */
static void print_names(size_t n)
{
	printf("static const char suffix_names[] =\n");
	for (size_t i = 0; i < n; i++)
		printf("%s\"%s\\0\"%s", i % 8 == 0 ? "    " : "",
		       entries[i].key,
		       i + 1 == n   ? ";\n\n"
		       : i % 8 == 7 ? "\n"
				    : " ");
}

int main(int argc, char **argv)
{
	size_t n = 0, off = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: psl_gen PUBLIC_SUFFIX_LIST OWN_LIST\n");
		return 2;
	}
	if (read_list(argv[1], psl_line) < 0 ||
	    read_list(argv[2], own_line) < 0)
		return 1;
	if (n_entries < 1000) {
		fprintf(stderr,
			"psl_gen: %s: only %zu rules: not the Public "
			"Suffix List\n",
			argv[1], n_entries);
		return 1;
	}
	qsort(entries, n_entries, sizeof(*entries), by_key);
	/* one entry a name, its kinds merged ("x" and "*.x" both listed) */
	for (size_t i = 0; i < n_entries; i++) {
		if (n && strcmp(entries[n - 1].key, entries[i].key) == 0) {
			entries[n - 1].kinds |= entries[i].kinds;
			free(entries[i].key);
			continue;
		}
		entries[n++] = entries[i];
	}
	printf("/* Generated by tools/psl_gen.c from %s and %s: do not "
	       "edit. */\n\n",
	       argv[1], argv[2]);
	print_names(n);
	printf("static const struct suffix_entry suffix_table[] = {\n");
	for (size_t i = 0; i < n; i++) {
		printf("    {%zu, 0x%x},\n", off, entries[i].kinds);
		off += strlen(entries[i].key) + 1;
	}
	printf("};\n");
	return 0;
}
