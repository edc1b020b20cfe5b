/* Every field the config.json parser knows has a rule in harden_fields[]
 * (spec/harden/harden_fields.c), every rule names a field the parser knows, and
 * docs/threat-model.md lists every rule.
 *
 * The parser's fields are not listed by hand: this test is linked with a
 * build of spec/ where json_member() reports each key it looks up
 * (JSON_TRACE_KEYS), and parses a fixture that holds every object and one
 * element of every array, so each key path is looked up at least once.  A
 * field the parser learns later is then a failing test until it has a
 * rule. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "harden.h"
#include "parse_internal.h"
#include "unit.h"

#define MAX_KEYS 512
static char *seen[MAX_KEYS];
static size_t n_seen;

/* The path with array indices as "[]", a hook kind as "*" and the four
 * throttle lists as one. */
static void put_path(char *buf, size_t size, const struct jpath *p)
{
	char up[512] = "";

	if (!p) {
		buf[0] = '\0';
		return;
	}
	put_path(up, sizeof(up), p->up);
	if (p->key && p->up && p->up->key && !p->up->up &&
	    strcmp(p->up->key, "hooks") == 0)
		snprintf(buf, size, "%s.*", up);
	else if (p->key)
		snprintf(buf, size, "%s.%s", up, p->key);
	else
		snprintf(buf, size, "%s[]", up);
}

static void normalize_throttle(char *s)
{
	char *t = strstr(s, ".throttle");
	char *d = t ? strstr(t, "Device[]") : NULL;

	if (t && d) {
		memmove(t + 10, d + 6, strlen(d + 6) + 1);
		t[9] = '*';
	}
}

void json_trace_key(const struct jpath *p, const char *key);
void json_trace_key(const struct jpath *p, const char *key)
{
	char parent[512], path[600];

	put_path(parent, sizeof(parent), p);
	if (p && p->key && !p->up && strcmp(p->key, "hooks") == 0)
		snprintf(path, sizeof(path), "%s.*", parent);
	else
		snprintf(path, sizeof(path), "%s.%s", parent, key);
	normalize_throttle(path);
	for (size_t i = 0; i < n_seen; i++)
		if (strcmp(seen[i], path) == 0)
			return;
	if (n_seen < MAX_KEYS)
		seen[n_seen++] = strdup(path);
}

static const struct harden_field *rule_of(const char *path)
{
	for (size_t i = 0; i < harden_n_fields; i++)
		if (strcmp(harden_fields[i].path, path) == 0)
			return &harden_fields[i];
	return NULL;
}

static bool is_seen(const char *path)
{
	for (size_t i = 0; i < n_seen; i++)
		if (strcmp(seen[i], path) == 0)
			return true;
	return false;
}

static void parse_everything(void)
{
	size_t len = 0;
	_cleanup_free_ char *json = read_file(FIXTURES "all_fields.json", &len);
	struct spec *s = json ? spec_of(json) : NULL;

	spec_free(s);
}

TEST(every_parsed_field_has_a_rule)
{
	parse_everything();
	/* 137 when this was written: a much smaller count means the fixture
	 * lost objects and the check below would pass without looking */
	CHECK(n_seen > 120);
	for (size_t i = 0; i < n_seen; i++)
		if (!rule_of(seen[i])) {
			printf("# no rule for %s\n", seen[i]);
			unit_failed_checks++;
		}
}

TEST(every_rule_names_a_parsed_field)
{
	static const char *const verdicts[] = {"kept", "narrowed", "replaced",
					       "dropped", "refused"};

	for (size_t i = 0; i < harden_n_fields; i++) {
		const struct harden_field *f = &harden_fields[i];
		_cleanup_free_ char *words = strdup(f->decision);
		char *save = NULL;

		if (f->path[0] == '.' && !is_seen(f->path)) {
			printf("# %s is not a field the parser reads\n",
			       f->path);
			unit_failed_checks++;
		}
		CHECK(f->rule && f->rule[0]);
		for (char *w = strtok_r(words, " ", &save); w;
		     w = strtok_r(NULL, " ", &save)) {
			bool known = strcmp(w, "or") == 0;

			for (size_t j = 0; j < ARRAY_SIZE(verdicts); j++)
				known |= strcmp(w, verdicts[j]) == 0;
			if (!known)
				printf("# %s: unknown decision \"%s\"\n",
				       f->path, w);
			CHECK(known);
		}
	}
}

/* A kind is one of these, or several joined by " or ". */
static bool known_kind(const char *kind)
{
	static const char *const kinds[] = {
	    "recorded",
	    "refused",
	    "refused (refuse.mounts)",
	    "refused (refuse.volumes)",
	    "refused (refuse.devices)",
	    "refused (refuse.namespaces)",
	    "refused (refuse.mounts, refuse.volumes)",
	    "not read",
	};

	for (const char *p = kind;;) {
		const char *end = strstr(p, " or ");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		bool found = false;

		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
			found |= strlen(kinds[i]) == n &&
				 strncmp(kinds[i], p, n) == 0;
		if (!found)
			return false;
		if (!end)
			return true;
		p = end + 4;
	}
}

/* What a user asked for and does not get is either refused or recorded:
 * a rule that drops or refuses says which (the kind), and a kind is only
 * where something can be dropped, narrowed or refused. */
TEST(every_drop_and_refusal_has_its_kind)
{
	for (size_t i = 0; i < harden_n_fields; i++) {
		const struct harden_field *f = &harden_fields[i];
		bool drops = strstr(f->decision, "dropped") != NULL;
		bool refuses = strstr(f->decision, "refused") != NULL;

		if ((drops || refuses) && !f->kind) {
			printf("# %s: no kind\n", f->path);
			unit_failed_checks++;
			continue;
		}
		if (!f->kind)
			continue;
		if (!known_kind(f->kind)) {
			printf("# %s: unknown kind \"%s\"\n", f->path, f->kind);
			unit_failed_checks++;
		}
		if (refuses && !strstr(f->kind, "refused")) {
			printf("# %s: refused, but its kind says not\n",
			       f->path);
			unit_failed_checks++;
		}
		CHECK(drops || refuses || strstr(f->decision, "narrowed"));
	}
}

/* The row of the threat model's table for f: "| `PATH` | DECISION |",
 * with "| KIND |" at its end when the rule has one. */
static bool doc_has_row(const char *doc, const struct harden_field *f)
{
	char head[256], tail[128];
	const char *row, *eol;
	size_t n;

	snprintf(head, sizeof(head), "| `%s` | %s |", f->path, f->decision);
	row = strstr(doc, head);
	if (!row) {
		printf("# docs/threat-model.md has no row \"%s\"\n", head);
		return false;
	}
	if (!f->kind)
		return true;
	eol = strchr(row, '\n');
	n = eol ? (size_t)(eol - row) : strlen(row);
	snprintf(tail, sizeof(tail), "| %s |", f->kind);
	if (n < strlen(tail) ||
	    strncmp(row + n - strlen(tail), tail, strlen(tail)) != 0) {
		printf("# docs/threat-model.md: the row of %s does not end "
		       "\"%s\"\n",
		       f->path, tail);
		return false;
	}
	return true;
}

TEST(the_threat_model_lists_every_rule)
{
	size_t len = 0;
	_cleanup_free_ char *doc = read_file("docs/threat-model.md", &len);

	if (!doc)
		return;
	for (size_t i = 0; i < harden_n_fields; i++)
		if (!doc_has_row(doc, &harden_fields[i]))
			unit_failed_checks++;
}

int main(void)
{
	int r = unit_run();

	for (size_t i = 0; i < n_seen; i++)
		free(seen[i]);
	return r;
}
