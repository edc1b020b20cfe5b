/* Helpers for the unit tests of the policy and harden(): reading files,
 * parsing fixtures and policies, hardening, and finding things in the
 * result.  Each helper that fails counts a failed check and prints why,
 * so a test can just return on NULL.  Tests run from the repository
 * root. */
#ifndef CORRAL_TEST_FIXTURE_H
#define CORRAL_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harden.h"
#include "policy.h"
#include "spec.h"
#include "unit.h"
#include "util.h"

#define FIXTURES "tests/unit/fixtures/"

static inline char *read_file(const char *path, size_t *len)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t size = 0, used = 0, n;

	if (!f) {
		printf("# cannot open %s\n", path);
		unit_failed_checks++;
		return NULL;
	}
	do {
		if (used + 4097 > size) {
			char *grown = realloc(buf, size + 65536);

			if (!grown) {
				free(buf);
				return NULL;
			}
			buf = grown;
			size += 65536;
		}
		n = fread(buf + used, 1, 4096, f);
		used += n;
	} while (n > 0);
	buf[used] = '\0';
	*len = used;
	return buf;
}

static inline struct spec *spec_of(const char *json)
{
	_cleanup_error_ struct error *err = NULL;
	struct spec *s = NULL;

	if (spec_parse(json, strlen(json), &s, &err) < 0) {
		printf("# spec: %s\n", err->msg);
		unit_failed_checks++;
		return NULL;
	}
	return s;
}

static inline struct spec *fixture(const char *name)
{
	char path[256];
	size_t len = 0;
	_cleanup_free_ char *json = NULL;

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	json = read_file(path, &len);
	return json ? spec_of(json) : NULL;
}

static inline struct policy *policy_of(const char *json)
{
	_cleanup_error_ struct error *err = NULL;
	struct policy *p = NULL;

	if (!json)
		return policy_default(&p, &err) < 0 ? NULL : p;
	if (policy_parse(json, strlen(json), &p, &err) < 0) {
		printf("# policy: %s\n", err->msg);
		unit_failed_checks++;
		return NULL;
	}
	return p;
}

/* The error message a policy document fails with, or "(parsed)". */
static inline char *policy_error(const char *json)
{
	struct error *err = NULL;
	struct policy *p = NULL;
	char *msg;

	if (policy_parse(json, strlen(json), &p, &err) == 0) {
		policy_free(p);
		return strdup("(parsed)");
	}
	msg = strdup(err ? err->msg : "(no error)");
	error_free(err);
	return msg;
}

static inline char *policy_text(const struct policy *p)
{
	_cleanup_error_ struct error *err = NULL;
	char *out = NULL;

	if (policy_emit(p, &out, &err) < 0) {
		printf("# policy_emit: %s\n", err->msg);
		unit_failed_checks++;
		return NULL;
	}
	return out;
}

static inline char *spec_text(const struct spec *s)
{
	_cleanup_error_ struct error *err = NULL;
	char *out = NULL;

	if (spec_emit(s, &out, NULL, &err) < 0) {
		printf("# spec_emit: %s\n", err->msg);
		unit_failed_checks++;
		return NULL;
	}
	return out;
}

/* harden() that must succeed; policy NULL means the built-ins. */
static inline struct hardened *harden_ok(const struct spec *s,
					 const struct policy *policy)
{
	_cleanup_error_ struct error *err = NULL;
	struct policy *def = NULL;
	struct hardened *h = NULL;

	if (!s)
		return NULL;
	if (!policy && policy_default(&def, &err) < 0)
		return NULL;
	if (harden(s, policy ? policy : def, NULL, &h, &err) < 0) {
		printf("# harden: %s\n", err->msg);
		unit_failed_checks++;
		h = NULL;
	}
	policy_free(def);
	return h;
}

/* The error harden() fails with, or "(hardened)"; policy NULL means the
 * built-ins. */
static inline char *harden_error(const struct spec *s,
				 const struct policy *policy)
{
	struct error *err = NULL;
	struct hardened *h = NULL;
	struct policy *def = NULL;
	char *msg;

	if (!policy && policy_default(&def, &err) < 0) {
		error_free(err);
		return strdup("(no policy)");
	}
	if (harden(s, policy ? policy : def, NULL, &h, &err) == 0) {
		hardened_free(h);
		policy_free(def);
		return strdup("(hardened)");
	}
	msg = strdup(err ? err->msg : "(no error)");
	error_free(err);
	policy_free(def);
	return msg;
}

static inline const struct harden_change *find_change(const struct hardened *h,
						      const char *field)
{
	for (size_t i = 0; h && i < h->n_changes; i++)
		if (strcmp(h->changes[i].field, field) == 0)
			return &h->changes[i];
	return NULL;
}

static inline const struct spec_mount *find_mount(const struct spec *s,
						  const char *dest)
{
	for (size_t i = 0; s && i < s->n_mounts; i++)
		if (strcmp(s->mounts[i].destination, dest) == 0)
			return &s->mounts[i];
	return NULL;
}

static inline int has_str(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

#define CHECK_ERROR(got_expr, expected)                                        \
	do {                                                                   \
		char *got_ = (got_expr);                                       \
		CHECK_STR(got_, expected);                                     \
		free(got_);                                                    \
	} while (0)

static inline void check_field(const char *what, const char *got,
			       const char *want, int line)
{
	if (want && (!got || strcmp(got, want) != 0)) {
		printf("# line %d: %s == \"%s\", expected \"%s\"\n", line, what,
		       got ? got : "(null)", want);
		unit_failed_checks++;
	}
}

/* That h has a change of field with these strings (NULL: any). */
static inline void check_change(const struct hardened *h, const char *field,
				const char *asked, const char *applied,
				const char *reason, int line)
{
	const struct harden_change *ch = find_change(h, field);

	if (!ch) {
		printf("# line %d: no change of %s\n", line, field);
		unit_failed_checks++;
		return;
	}
	check_field("asked", ch->asked, asked, line);
	check_field("applied", ch->applied, applied, line);
	check_field("reason", ch->reason, reason, line);
}

#define CHECK_CHANGE(h, field, asked, applied, reason)                         \
	check_change(h, field, asked, applied, reason, __LINE__)

#endif
