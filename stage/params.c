/* The stage's parameters on the wire (params.h has the format). */
#include "params.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Strings and lists are capped well below what the length fields hold,
 * so no count from a hostile input makes the decoder allocate more than
 * a small multiple of the input's own size. */
#define STR_MAX (1u << 24)
#define LIST_MAX (1u << 20)

/* ---- encoding ----------------------------------------------------------- */

struct writer {
	char *buf;
	size_t len, cap;
	bool oom;
};

static void put(struct writer *w, const void *data, size_t n)
{
	if (w->oom)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		char *grown;

		while (cap < w->len + n)
			cap *= 2;
		grown = realloc(w->buf, cap);
		if (!grown) {
			w->oom = true;
			return;
		}
		w->buf = grown;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, data, n);
	w->len += n;
}

static void put_uint(struct writer *w, uint64_t v, size_t bytes)
{
	unsigned char b[8];

	for (size_t i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(w, b, bytes);
}

static void put_u8(struct writer *w, bool v)
{
	put_uint(w, v ? 1 : 0, 1);
}

static void put_u32(struct writer *w, uint32_t v)
{
	put_uint(w, v, 4);
}

static void put_str(struct writer *w, const char *s)
{
	size_t n = strlen(s);

	put_u32(w, (uint32_t)n);
	put(w, s, n);
}

static void put_ostr(struct writer *w, const char *s)
{
	put_u8(w, s != NULL);
	if (s)
		put_str(w, s);
}

static void put_strv(struct writer *w, char *const *v, size_t n)
{
	put_u32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		put_str(w, v[i]);
}

static void put_filter(struct writer *w, const struct stage_filter *f)
{
	put_u32(w, f->flags);
	put_u32(w, f->insns ? f->len : 0);
	for (size_t i = 0; f->insns && i < f->len; i++) {
		put_uint(w, f->insns[i].code, 2);
		put_uint(w, f->insns[i].jt, 1);
		put_uint(w, f->insns[i].jf, 1);
		put_u32(w, f->insns[i].k);
	}
}

static bool fits(size_t n, size_t max)
{
	return n <= max;
}

static bool encodable(const struct stage_params *p)
{
	bool ok = p->n_args >= 1 && fits(p->n_args, LIST_MAX) &&
		  fits(p->n_env, LIST_MAX) && fits(p->n_gids, LIST_MAX) &&
		  fits(p->n_rlimits, STAGE_RLIMITS_MAX) &&
		  fits(p->n_start_hooks, LIST_MAX) && p->cwd &&
		  fits(p->baseline.len, BPF_MAXINSNS) &&
		  fits(p->seccomp.len, BPF_MAXINSNS);

	for (size_t i = 0; ok && i < p->n_start_hooks; i++)
		ok = p->start_hooks[i].path &&
		     fits(p->start_hooks[i].n_args, LIST_MAX) &&
		     fits(p->start_hooks[i].n_env, LIST_MAX);
	return ok;
}

int stage_params_encode(const struct stage_params *p, char **out, size_t *len,
			struct error **err)
{
	struct writer w = {0};

	*out = NULL;
	*len = 0;
	if (!encodable(p))
		return error_set(err, EINVAL, "stage parameters: out of range");
	put(&w, STAGE_PARAMS_MAGIC, 8);
	put_u32(&w, (uint32_t)p->mode);
	put_strv(&w, p->args, p->n_args);
	put_strv(&w, p->env, p->n_env);
	put_str(&w, p->cwd);
	put_u32(&w, p->uid);
	put_u32(&w, p->gid);
	put_u32(&w, (uint32_t)p->n_gids);
	for (size_t i = 0; i < p->n_gids; i++)
		put_u32(&w, p->gids[i]);
	put_u8(&w, p->has_umask);
	put_u32(&w, p->umask);
	for (int i = 0; i < STAGE_CAP_SETS; i++)
		put_uint(&w, p->caps[i], 8);
	put_u8(&w, p->enforced);
	put_u8(&w, p->no_new_privs);
	put_u8(&w, p->terminal);
	put_u8(&w, p->dumpable);
	put_u8(&w, p->self_only);
	put_u8(&w, p->no_fork);
	put_u32(&w, (uint32_t)p->n_rlimits);
	for (size_t i = 0; i < p->n_rlimits; i++) {
		put_u32(&w, p->rlimits[i].resource);
		put_uint(&w, p->rlimits[i].soft, 8);
		put_uint(&w, p->rlimits[i].hard, 8);
	}
	put_u8(&w, p->has_oom_score_adj);
	put_u32(&w, (uint32_t)p->oom_score_adj);
	put_u32(&w, (uint32_t)p->keep_fds);
	put_ostr(&w, p->apparmor_profile);
	put_ostr(&w, p->selinux_label);
	put_filter(&w, &p->baseline);
	put_filter(&w, &p->seccomp);
	put_uint(&w, p->wall_clock, 8);
	put_u32(&w, p->supervisor_uid);
	put_u32(&w, p->supervisor_gid);
	put_u32(&w, (uint32_t)p->sync_fd);
	put_u32(&w, (uint32_t)p->fifo_fd);
	put_u32(&w, (uint32_t)p->cgroup_procs_fd);
	put_u32(&w, (uint32_t)p->cgroup_kill_fd);
	put_u8(&w, p->cgroup_procs_reopen);
	put_u32(&w, (uint32_t)p->outcome_fd);
	put_u32(&w, (uint32_t)p->n_start_hooks);
	for (size_t i = 0; i < p->n_start_hooks; i++) {
		const struct spec_hook *h = &p->start_hooks[i];

		put_str(&w, h->path);
		put_strv(&w, h->args, h->n_args);
		put_strv(&w, h->env, h->n_env);
		put_u8(&w, h->timeout.set);
		put_uint(&w, (uint64_t)h->timeout.v, 8);
	}
	if (w.oom) {
		free(w.buf);
		return error_set(err, ENOMEM,
				 "stage parameters: out of memory");
	}
	*out = w.buf;
	*len = w.len;
	return 0;
}

/* ---- decoding ----------------------------------------------------------- */

/* A cursor over the input; the first failure sticks, and every read after
 * it returns zeros, so the decoder checks once per field group. */
struct reader {
	const unsigned char *p;
	size_t left;
	const char *bad; /* what was wrong, or NULL */
	bool oom;
};

static bool failed(const struct reader *r)
{
	return r->bad || r->oom;
}

static const unsigned char *take(struct reader *r, size_t n, const char *what)
{
	const unsigned char *at = r->p;

	if (failed(r))
		return NULL;
	if (n > r->left) {
		r->bad = what;
		return NULL;
	}
	r->p += n;
	r->left -= n;
	return at;
}

static uint64_t get_uint(struct reader *r, size_t bytes, const char *what)
{
	const unsigned char *b = take(r, bytes, what);
	uint64_t v = 0;

	for (size_t i = 0; b && i < bytes; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static uint32_t get_u32(struct reader *r, const char *what)
{
	return (uint32_t)get_uint(r, 4, what);
}

static bool get_bool(struct reader *r, const char *what)
{
	uint64_t v = get_uint(r, 1, what);

	if (v > 1 && !failed(r))
		r->bad = what;
	return v == 1;
}

static char *get_str(struct reader *r, const char *what)
{
	uint32_t n = get_u32(r, what);
	const unsigned char *b;
	char *s;

	if (!failed(r) && n > STR_MAX)
		r->bad = what;
	b = take(r, n, what);
	if (!b)
		return NULL;
	if (memchr(b, '\0', n)) {
		r->bad = what;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		r->oom = true;
		return NULL;
	}
	memcpy(s, b, n);
	s[n] = '\0';
	return s;
}

static char *get_ostr(struct reader *r, const char *what)
{
	return get_bool(r, what) ? get_str(r, what) : NULL;
}

/* A count of items each at least `min_size` bytes long: never more than
 * the bytes left could hold. */
static size_t get_count(struct reader *r, size_t min_size, const char *what)
{
	uint32_t n = get_u32(r, what);

	if (failed(r))
		return 0;
	if (n > LIST_MAX || (size_t)n > r->left / min_size) {
		r->bad = what;
		return 0;
	}
	return n;
}

/* A NULL-terminated list; *n is the count of what was read. */
static char **get_strv(struct reader *r, size_t *n, const char *what)
{
	size_t count = get_count(r, 4, what);
	char **v;

	*n = 0;
	if (failed(r))
		return NULL;
	v = calloc(count + 1, sizeof(*v));
	if (!v) {
		r->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < count && !failed(r); i++) {
		v[i] = get_str(r, what);
		if (v[i])
			*n = i + 1;
	}
	return v;
}

static void get_filter(struct reader *r, struct stage_filter *f,
		       const char *what)
{
	size_t n;

	f->flags = get_u32(r, what);
	n = get_count(r, 8, what);
	if (failed(r) || n == 0)
		return;
	if (n > BPF_MAXINSNS) {
		r->bad = what;
		return;
	}
	f->insns = calloc(n, sizeof(*f->insns));
	if (!f->insns) {
		r->oom = true;
		return;
	}
	f->len = (uint16_t)n;
	for (size_t i = 0; i < n; i++) {
		f->insns[i].code = (uint16_t)get_uint(r, 2, what);
		f->insns[i].jt = (uint8_t)get_uint(r, 1, what);
		f->insns[i].jf = (uint8_t)get_uint(r, 1, what);
		f->insns[i].k = get_u32(r, what);
	}
}

static int32_t get_fd(struct reader *r, const char *what)
{
	int32_t fd = (int32_t)get_u32(r, what);

	if (fd < -1 && !failed(r))
		r->bad = what;
	return fd;
}

static void get_hooks(struct reader *r, struct stage_params *p)
{
	size_t n = get_count(r, 4 + 4 + 4 + 1 + 8, "startContainer hooks");

	if (failed(r) || n == 0)
		return;
	p->start_hooks = calloc(n, sizeof(*p->start_hooks));
	if (!p->start_hooks) {
		r->oom = true;
		return;
	}
	for (size_t i = 0; i < n && !failed(r); i++) {
		struct spec_hook *h = &p->start_hooks[i];

		p->n_start_hooks = i + 1;
		h->path = get_str(r, "hook path");
		h->args = get_strv(r, &h->n_args, "hook args");
		h->env = get_strv(r, &h->n_env, "hook env");
		h->timeout.set = get_bool(r, "hook timeout");
		h->timeout.v = (int64_t)get_uint(r, 8, "hook timeout");
	}
}

static void get_rlimits(struct reader *r, struct stage_params *p)
{
	size_t n = get_count(r, 4 + 8 + 8, "rlimits");

	if (failed(r) || n == 0)
		return;
	if (n > STAGE_RLIMITS_MAX) {
		r->bad = "rlimits";
		return;
	}
	p->n_rlimits = n;
	for (size_t i = 0; i < n; i++) {
		p->rlimits[i].resource = get_u32(r, "rlimits");
		p->rlimits[i].soft = get_uint(r, 8, "rlimits");
		p->rlimits[i].hard = get_uint(r, 8, "rlimits");
	}
}

static void get_process(struct reader *r, struct stage_params *p)
{
	p->args = get_strv(r, &p->n_args, "args");
	if (!failed(r) && p->n_args == 0)
		r->bad = "args";
	p->env = get_strv(r, &p->n_env, "env");
	p->cwd = get_str(r, "cwd");
	p->uid = get_u32(r, "uid");
	p->gid = get_u32(r, "gid");
	p->n_gids = get_count(r, 4, "additional gids");
	if (!failed(r) && p->n_gids) {
		p->gids = calloc(p->n_gids, sizeof(*p->gids));
		if (!p->gids)
			r->oom = true;
		for (size_t i = 0; p->gids && i < p->n_gids; i++)
			p->gids[i] = get_u32(r, "additional gids");
	}
	if (!p->gids)
		p->n_gids = 0;
	p->has_umask = get_bool(r, "umask");
	p->umask = get_u32(r, "umask");
	for (int i = 0; i < STAGE_CAP_SETS; i++)
		p->caps[i] = get_uint(r, 8, "capabilities");
	p->enforced = get_bool(r, "enforced");
	p->no_new_privs = get_bool(r, "no_new_privs");
	p->terminal = get_bool(r, "terminal");
	p->dumpable = get_bool(r, "dumpable");
	p->self_only = get_bool(r, "self_only");
	p->no_fork = get_bool(r, "no_fork");
	get_rlimits(r, p);
	p->has_oom_score_adj = get_bool(r, "oom_score_adj");
	p->oom_score_adj = (int32_t)get_u32(r, "oom_score_adj");
	if (!failed(r) && (p->oom_score_adj < -1000 || p->oom_score_adj > 1000))
		r->bad = "oom_score_adj";
	p->keep_fds = (int32_t)get_u32(r, "keep_fds");
	if (!failed(r) && (p->keep_fds < 0 || p->keep_fds > (1 << 20)))
		r->bad = "keep_fds";
	p->apparmor_profile = get_ostr(r, "apparmor profile");
	p->selinux_label = get_ostr(r, "selinux label");
	get_filter(r, &p->baseline, "baseline filter");
	get_filter(r, &p->seccomp, "seccomp filter");
}

int stage_params_decode(const void *buf, size_t len, struct stage_params *out,
			struct error **err)
{
	struct reader r = {.p = buf, .left = len};
	const unsigned char *magic;

	*out = (struct stage_params){.sync_fd = -1,
				     .fifo_fd = -1,
				     .cgroup_procs_fd = -1,
				     .cgroup_kill_fd = -1,
				     .outcome_fd = -1};
	magic = take(&r, 8, "magic");
	if (magic && memcmp(magic, STAGE_PARAMS_MAGIC, 8) != 0)
		r.bad = "magic";
	out->mode = (enum stage_mode)get_u32(&r, "mode");
	if (!failed(&r) && out->mode != STAGE_INIT && out->mode != STAGE_EXEC)
		r.bad = "mode";
	get_process(&r, out);
	out->wall_clock = get_uint(&r, 8, "wall clock");
	out->supervisor_uid = get_u32(&r, "supervisor uid");
	out->supervisor_gid = get_u32(&r, "supervisor gid");
	out->sync_fd = get_fd(&r, "sync fd");
	out->fifo_fd = get_fd(&r, "fifo fd");
	out->cgroup_procs_fd = get_fd(&r, "cgroup.procs fd");
	out->cgroup_kill_fd = get_fd(&r, "cgroup.kill fd");
	out->cgroup_procs_reopen = get_bool(&r, "cgroup.procs reopen");
	out->outcome_fd = get_fd(&r, "outcome fd");
	get_hooks(&r, out);
	if (!failed(&r) && r.left)
		r.bad = "trailing bytes";
	if (r.oom)
		return error_set(err, ENOMEM,
				 "stage parameters: out of memory");
	if (r.bad)
		return error_set(err, EINVAL,
				 "stage parameters: %s: malformed at byte %zu",
				 r.bad, len - r.left);
	return 0;
}

void stage_params_release(struct stage_params *p)
{
	strv_free(p->args);
	strv_free(p->env);
	free(p->cwd);
	free(p->gids);
	free(p->apparmor_profile);
	free(p->selinux_label);
	free(p->baseline.insns);
	free(p->seccomp.insns);
	for (size_t i = 0; i < p->n_start_hooks; i++) {
		free(p->start_hooks[i].path);
		strv_free(p->start_hooks[i].args);
		strv_free(p->start_hooks[i].env);
	}
	free(p->start_hooks);
	*p = (struct stage_params){.sync_fd = -1,
				   .fifo_fd = -1,
				   .cgroup_procs_fd = -1,
				   .cgroup_kill_fd = -1,
				   .outcome_fd = -1};
}
