/* Mount options (harden_internal.h): which a kept mount may carry, by its
 * kind, and rewriting a mount's list to what its rule wants; a mount on
 * one line for the change list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harden_internal.h"
#include "util.h"

/* Options every kept mount may carry: they only restrict it, or are
 * timestamps and writeback.  Propagation is private or slave at most:
 * the container's mounts never reach a peer. */
static const char *const common_options[] = {
    "ro",	"rw",	      "nosuid",	     "nodev",	      "noexec",
    "exec",	"noatime",    "atime",	     "nodiratime",    "diratime",
    "relatime", "norelatime", "strictatime", "nostrictatime", "sync",
    "async",	"dirsync",    "defaults",    "rro",	      "rnosuid",
    "rnodev",	"rnoexec",    "rexec",	     "private",	      "rprivate",
    "slave",	"rslave",     "unbindable",  "runbindable",   "tmpcopyup",
};

/* Data options ("key=value" or a flag word) the kernel reads, by type. */
static const struct {
	const char *type;
	const char *words[8]; /* "size=" matches "size=64m" */
} data_options[] = {
    {"bind", {"bind", "rbind"}},
    {"tmpfs",
     {"size=", "mode=", "uid=", "gid=", "nr_inodes=", "nr_blocks=", "huge="}},
    {"devpts", {"newinstance", "ptmxmode=", "mode=", "gid=", "uid=", "max="}},
    {"proc", {"hidepid=", "subset=", "gid="}},
};

/* Whether an option is on the list for a mount of this kind ("bind", or
 * the filesystem type). */
static bool option_allowed(const char *kind, const char *o)
{
	if (harden_strv_has((char *const *)common_options,
			    ARRAY_SIZE(common_options), o))
		return true;
	for (size_t i = 0; kind && i < ARRAY_SIZE(data_options); i++) {
		if (strcmp(data_options[i].type, kind) != 0)
			continue;
		for (size_t j = 0; j < ARRAY_SIZE(data_options[i].words) &&
				   data_options[i].words[j];
		     j++) {
			const char *w = data_options[i].words[j];
			size_t n = strlen(w);

			if (w[n - 1] == '=' ? strncmp(o, w, n) == 0
					    : strcmp(o, w) == 0)
				return true;
		}
	}
	return false;
}

/* ---- rewriting options ----------------------------------------------- */

static bool listed(const char *const *v, size_t max, const char *s)
{
	for (size_t i = 0; i < max && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* A tmpfs size= in bytes (with tmpfs's k, m, g suffixes); false when it
 * is absent, a share of memory ("50%") or not a number. */
static bool tmpfs_bytes(const char *opt, uint64_t *out)
{
	static const char suffixes[] = "kmg";
	const char *s = opt + 5, *k;
	uint64_t n = 0;
	size_t digits = strspn(s, "0123456789");
	unsigned shift = 0;

	if (digits == 0 || digits > 19)
		return false;
	for (size_t i = 0; i < digits; i++)
		n = n * 10 + (uint64_t)(s[i] - '0');
	if (s[digits]) {
		k = strchr(suffixes, s[digits] | 0x20);
		if (!k || s[digits + 1])
			return false;
		shift = 10 * (unsigned)(k - suffixes + 1);
	}
	if (n > (UINT64_MAX >> shift))
		return false;
	*out = n << shift;
	return true;
}

/* A tmpfs of config.json's may be as large as the scratch, no larger:
 * an option with no size, a larger one or a share of the host's memory
 * becomes the scratch size.  True when it already fits. */
bool harden_size_fits(struct spec_mount *m, uint64_t max)
{
	bool fits = false;
	size_t n = 0;

	for (size_t i = 0; i < m->n_options; i++) {
		uint64_t bytes;

		if (strncmp(m->options[i], "size=", 5) != 0) {
			m->options[n++] = m->options[i];
			continue;
		}
		if (!fits && tmpfs_bytes(m->options[i], &bytes) &&
		    bytes <= max) {
			fits = true;
			m->options[n++] = m->options[i];
			continue;
		}
		free(m->options[i]);
	}
	if (m->options)
		m->options[n] = NULL;
	m->n_options = n;
	return fits;
}

/* An owner option (devpts's gid=5) names an id that a user namespace of
 * the caller's ids alone does not map: the kernel refuses the mount.
 * Without it the filesystem's files are the mounting process's. */
static bool unmapped_owner(const struct harden_ctx *c, const char *o)
{
	return c->policy->rootless && c->policy->rootless_single &&
	       (strncmp(o, "uid=", 4) == 0 || strncmp(o, "gid=", 4) == 0);
}

/* Apply an option rule (and a tmpfs size) to m; true when it changed. */
bool harden_rewrite_options(struct harden_ctx *c, struct spec_mount *m,
			    const struct option_rule *r, const char *size)
{
	/* the kind is read before the loop frees any of the options */
	const char *kind = harden_is_bind(m) ? "bind" : m->type;
	size_t n = 0, before = m->n_options;
	bool changed = false;

	for (size_t i = 0; i < m->n_options; i++) {
		if (listed(r->remove, ARRAY_SIZE(r->remove), m->options[i]) ||
		    !option_allowed(kind, m->options[i]) ||
		    unmapped_owner(c, m->options[i])) {
			free(m->options[i]);
			changed = true;
		} else {
			m->options[n++] = m->options[i];
		}
	}
	if (m->options)
		m->options[n] = NULL;
	m->n_options = n;
	for (size_t i = 0; i < ARRAY_SIZE(r->add) && r->add[i]; i++) {
		if (harden_strv_has(m->options, m->n_options, r->add[i]))
			continue;
		if (!harden_strv_push(&m->options, &m->n_options, r->add[i]))
			c->oom = true;
	}
	if (size && !harden_strv_push(&m->options, &m->n_options, size))
		c->oom = true;
	return changed || m->n_options != before;
}

/* "bind /src [rbind,ro]": what a mount is, on one line. */
char *harden_describe_mount(struct harden_ctx *c, const struct spec_mount *m)
{
	_cleanup_free_ char *opts =
	    harden_join(c, m->options, m->n_options, ",");
	_cleanup_free_ char *text =
	    opts ? harden_fmt(c, "%s %s [%s]", m->type ? m->type : "none",
			      m->source ? m->source : "-", opts)
		 : NULL;

	return text ? harden_safe(text, SIZE_MAX) : NULL;
}

/* "options rbind,ro,nosuid": what a kept mount became (type and source
 * stay as they were). */
char *harden_options_string(struct harden_ctx *c, const struct spec_mount *m)
{
	_cleanup_free_ char *opts =
	    harden_join(c, m->options, m->n_options, ",");
	_cleanup_free_ char *text =
	    opts ? harden_fmt(c, "options %s", opts) : NULL;

	return text ? harden_safe(text, SIZE_MAX) : NULL;
}
