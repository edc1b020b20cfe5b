/* Unit tests of runtime/systemd/dbus_wire.c and systemd_props.c: the
 * messages corral writes parse back as written; replies that are not
 * well formed are refused; the unit properties config.json's limits
 * become, by systemd version. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dbus_wire.h"
#include "systemd.h"
#include "unit.h"
#include "util.h"

/* ---- a message to parse: a signal or reply written by hand ----------- */

struct hand {
	struct dbus_buf b;
	size_t fields;
};

static void field(struct dbus_buf *b, uint8_t code, const char *sig,
		  const char *value)
{
	dbus_put_align(b, 8);
	dbus_put_u8(b, code);
	dbus_put_sig(b, sig);
	if (sig[0] == 'g')
		dbus_put_sig(b, value);
	else
		dbus_put_str(b, value);
}

/* A little-endian message of `type` with PATH/INTERFACE/MEMBER (or a
 * reply serial) and body. */
static void hand_msg(struct dbus_buf *out, uint8_t type, uint32_t reply_to,
		     const char *member, const char *sig,
		     const struct dbus_buf *body)
{
	uint8_t fixed[4] = {'l', type, 0, 1};
	size_t at;

	*out = (struct dbus_buf){0};
	dbus_put_raw(out, fixed, 4);
	dbus_put_u32(out, (uint32_t)body->len);
	dbus_put_u32(out, 7);
	at = dbus_array_begin(out, 8);
	if (member) {
		field(out, 1, "o", "/org/freedesktop/systemd1");
		field(out, 2, "s", "org.freedesktop.systemd1.Manager");
		field(out, 3, "s", member);
	}
	if (reply_to) {
		dbus_put_align(out, 8);
		dbus_put_u8(out, 5);
		dbus_put_sig(out, "u");
		dbus_put_u32(out, reply_to);
	}
	if (type == DBUS_ERROR)
		field(out, 4, "s", "org.freedesktop.systemd1.NoSuchUnit");
	field(out, 8, "g", sig);
	dbus_array_end(out, at, 8);
	dbus_put_align(out, 8);
	dbus_put_raw(out, body->data, body->len);
}

static void job_removed(struct dbus_buf *out, const char *result)
{
	struct dbus_buf body = {0};

	dbus_put_u32(&body, 42);
	dbus_put_str(&body, "/org/freedesktop/systemd1/job/42");
	dbus_put_str(&body, "x.scope");
	dbus_put_str(&body, result);
	hand_msg(out, DBUS_SIGNAL, 0, "JobRemoved", "uoss", &body);
	dbus_buf_clear(&body);
}

/* A unit's PropertiesChanged as systemd 252 sends it to every client of
 * its private socket: dictionaries, a struct and an array of structs in
 * variants.  A signal corral ignores must still parse, or the wait for a
 * reply fails on it (the systemd guest's first create did). */
TEST(a_properties_changed_signal_parses)
{
	_cleanup_error_ struct error *e = NULL;
	struct dbus_buf msg, body = {0};
	struct dbus_msg m;
	size_t dict, a, bytes;

	dbus_put_str(&body, "org.freedesktop.systemd1.Unit");
	dict = dbus_array_begin(&body, 8);
	dbus_put_align(&body, 8);
	dbus_put_str(&body, "ActiveState");
	dbus_put_sig(&body, "s");
	dbus_put_str(&body, "inactive");
	dbus_put_align(&body, 8);
	dbus_put_str(&body, "Job");
	dbus_put_sig(&body, "(uo)");
	dbus_put_align(&body, 8);
	dbus_put_u32(&body, 0);
	dbus_put_str(&body, "/");
	dbus_put_align(&body, 8);
	dbus_put_str(&body, "InvocationID");
	dbus_put_sig(&body, "ay");
	bytes = dbus_array_begin(&body, 1);
	dbus_put_u8(&body, 7);
	dbus_array_end(&body, bytes, 1);
	dbus_put_align(&body, 8);
	dbus_put_str(&body, "Conditions");
	dbus_put_sig(&body, "a(sbbsi)");
	a = dbus_array_begin(&body, 8);
	dbus_array_end(&body, a, 8);
	dbus_put_align(&body, 8);
	dbus_put_str(&body, "ActiveEnterTimestamp");
	dbus_put_sig(&body, "t");
	dbus_put_u64(&body, 1);
	dbus_array_end(&body, dict, 8);
	a = dbus_array_begin(&body, 4);
	dbus_put_str(&body, "Asserts");
	dbus_array_end(&body, a, 4);
	CHECK(!body.oom);
	hand_msg(&msg, DBUS_SIGNAL, 0, "PropertiesChanged", "sa{sv}as", &body);
	CHECK(dbus_msg_parse(msg.data, msg.len, &m, &e) == 0);
	CHECK_STR(m.sig, "sa{sv}as");
	dbus_buf_clear(&msg);
	dbus_buf_clear(&body);
}

TEST(a_method_call_parses_back)
{
	_cleanup_error_ struct error *e = NULL;
	struct dbus_buf body = {0}, msg = {0};
	struct dbus_msg m;
	struct dbus_reader r;
	const char *s;
	size_t size;

	dbus_put_str(&body, "x.scope");
	dbus_put_str(&body, "replace");
	CHECK(dbus_method_call(3, "org.freedesktop.systemd1",
			       "/org/freedesktop/systemd1",
			       "org.freedesktop.systemd1.Manager", "StopUnit",
			       "ss", &body, &msg, &e) == 0);
	CHECK(msg.len % 8 == 0 || msg.len > 0);
	CHECK(dbus_msg_size(msg.data, &size, &e) == 0 && size == msg.len);
	CHECK(dbus_msg_parse(msg.data, msg.len, &m, &e) == 0);
	CHECK(m.type == DBUS_METHOD_CALL && m.serial == 3);
	CHECK_STR(m.member, "StopUnit");
	CHECK_STR(m.path, "/org/freedesktop/systemd1");
	CHECK_STR(m.iface, "org.freedesktop.systemd1.Manager");
	CHECK_STR(m.sig, "ss");
	dbus_reader_init(&r, &m);
	CHECK(dbus_read_str(&r, &s) == 0);
	CHECK_STR(s, "x.scope");
	CHECK(dbus_read_str(&r, &s) == 0);
	CHECK_STR(s, "replace");
	CHECK(r.pos == r.len);
	dbus_buf_clear(&body);
	dbus_buf_clear(&msg);
}

TEST(a_signal_and_an_error_parse)
{
	_cleanup_error_ struct error *e = NULL;
	struct dbus_buf msg, body = {0};
	struct dbus_msg m;
	struct dbus_reader r;
	const char *s;
	uint32_t id;

	job_removed(&msg, "done");
	CHECK(dbus_msg_parse(msg.data, msg.len, &m, &e) == 0);
	CHECK(m.type == DBUS_SIGNAL);
	CHECK_STR(m.member, "JobRemoved");
	dbus_reader_init(&r, &m);
	CHECK(dbus_read_u32(&r, &id) == 0 && id == 42);
	CHECK(dbus_read_str(&r, &s) == 0);
	CHECK_STR(s, "/org/freedesktop/systemd1/job/42");
	dbus_buf_clear(&msg);

	dbus_put_str(&body, "Unit x.scope not loaded.");
	hand_msg(&msg, DBUS_ERROR, 9, NULL, "s", &body);
	CHECK(dbus_msg_parse(msg.data, msg.len, &m, &e) == 0);
	CHECK(m.type == DBUS_ERROR && m.reply_serial == 9);
	CHECK_STR(m.error_name, "org.freedesktop.systemd1.NoSuchUnit");
	dbus_buf_clear(&msg);
	dbus_buf_clear(&body);
}

/* Each corruption of a good message is refused, none read past it. */
TEST(broken_messages_are_refused)
{
	struct dbus_buf good;
	struct dbus_msg m;

	job_removed(&good, "done");
	for (size_t cut = 0; cut < good.len; cut++) {
		_cleanup_error_ struct error *e = NULL;
		uint8_t *copy = malloc(cut ? cut : 1);

		memcpy(copy, good.data, cut);
		CHECK(dbus_msg_parse(copy, cut, &m, &e) < 0);
		free(copy);
	}
	/* every single byte changed to 0xff: refused, or a message that
	 * still holds together (a name's letter, a value) */
	for (size_t i = 0; i < good.len; i++) {
		_cleanup_error_ struct error *e = NULL;
		uint8_t saved = good.data[i];

		good.data[i] = 0xff;
		if (dbus_msg_parse(good.data, good.len, &m, &e) == 0)
			CHECK(m.body + m.body_len <= good.data + good.len);
		good.data[i] = saved;
	}
	dbus_buf_clear(&good);
}

TEST(bad_signatures_and_values)
{
	_cleanup_error_ struct error *e = NULL;
	struct dbus_buf body = {0}, msg;
	struct dbus_msg m;

	CHECK(dbus_sig_valid("a(sv)"));
	CHECK(dbus_sig_valid("ssa(sv)a(sa(sv))"));
	CHECK(dbus_sig_valid("a{sv}"));
	CHECK(!dbus_sig_valid("a"));
	CHECK(!dbus_sig_valid("(s"));
	CHECK(!dbus_sig_valid("()"));
	CHECK(!dbus_sig_valid("a{vs}"));
	CHECK(!dbus_sig_valid("{ss}"));
	CHECK(!dbus_sig_valid("z"));
	CHECK(!dbus_sig_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaas"));
	/* a boolean of 2 */
	dbus_put_u32(&body, 2);
	hand_msg(&msg, DBUS_METHOD_RETURN, 1, NULL, "b", &body);
	CHECK(dbus_msg_parse(msg.data, msg.len, &m, &e) < 0);
	dbus_buf_clear(&msg);
	dbus_buf_clear(&body);
	/* a string whose length runs past the body */
	error_free(e);
	e = NULL;
	dbus_put_u32(&body, 1000);
	dbus_put_raw(&body, "abc", 4);
	hand_msg(&msg, DBUS_METHOD_RETURN, 1, NULL, "s", &body);
	CHECK(dbus_msg_parse(msg.data, msg.len, &m, &e) < 0);
	dbus_buf_clear(&msg);
	dbus_buf_clear(&body);
	/* bytes after the body's values */
	error_free(e);
	e = NULL;
	dbus_put_str(&body, "/a");
	dbus_put_u32(&body, 0);
	hand_msg(&msg, DBUS_METHOD_RETURN, 1, NULL, "o", &body);
	CHECK(dbus_msg_parse(msg.data, msg.len, &m, &e) < 0);
	dbus_buf_clear(&msg);
	dbus_buf_clear(&body);
	/* a reply with no reply serial */
	error_free(e);
	e = NULL;
	dbus_put_str(&body, "/a");
	hand_msg(&msg, DBUS_METHOD_RETURN, 0, NULL, "o", &body);
	CHECK(dbus_msg_parse(msg.data, msg.len, &m, &e) < 0);
	dbus_buf_clear(&msg);
	dbus_buf_clear(&body);
}

/* ---- properties -------------------------------------------------------- */

/* The a(sv) of p as "Name=sig" words, for comparing. */
static char *prop_names(const struct sd_props *p)
{
	struct dbus_msg m = {.body = p->b.data, .body_len = p->b.len};
	struct dbus_reader r;
	static char out[1024];
	const char *name, *sig = "a(sv)";
	size_t end, n = 0;

	dbus_reader_init(&r, &m);
	out[0] = '\0';
	if (dbus_read_array(&r, 8, &end) < 0)
		return NULL;
	while (dbus_read_more(&r, end)) {
		const char *vsig, *rest;

		r.pos = (r.pos + 7) / 8 * 8;
		if (dbus_read_str(&r, &name) < 0 ||
		    dbus_read_sig(&r, &vsig) < 0)
			return NULL;
		rest = vsig;
		if (dbus_read_skip(&r, &rest) < 0)
			return NULL;
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s=%s",
				      n ? " " : "", name, vsig);
	}
	(void)sig;
	return r.bad || r.pos != r.len ? NULL : out;
}

TEST(limits_become_unit_properties_by_version)
{
	_cleanup_error_ struct error *e = NULL;
	struct spec_memory mem = {.limit = {true, 64 << 20},
				  .reservation = {true, 16 << 20},
				  .swap = {true, 96 << 20}};
	struct spec_cpu cpu = {.quota = {true, 50000},
			       .period = {true, 200000},
			       .shares = {true, 1024},
			       .cpus = "0-1"};
	struct spec_block_io bio = {.weight = {true, 500}};
	struct spec_resources r = {.memory = &mem,
				   .cpu = &cpu,
				   .pids_limit = {true, 50},
				   .block_io = &bio};
	struct sd_props p;
	char *on, *off;

	sd_props_begin(&p);
	CHECK(sd_resource_props(&r, 252, true, &p, &on, &off, &e) == 0);
	sd_props_end(&p);
	CHECK_STR(prop_names(&p),
		  "MemoryMax=t MemoryLow=t MemorySwapMax=t TasksMax=t "
		  "CPUQuotaPeriodUSec=t CPUQuotaPerSecUSec=t CPUWeight=t "
		  "AllowedCPUs=ay IOWeight=t");
	CHECK_STR(off, "");
	free(on);
	free(off);
	dbus_buf_clear(&p.b);
	/* systemd 241: no CPUQuotaPeriodUSec, no AllowedCPUs */
	sd_props_begin(&p);
	CHECK(sd_resource_props(&r, 241, true, &p, &on, &off, &e) == 0);
	sd_props_end(&p);
	CHECK_STR(off, "CPUQuotaPeriodUSec,AllowedCPUs");
	free(on);
	free(off);
	dbus_buf_clear(&p.b);
}

TEST(property_values)
{
	_cleanup_error_ struct error *e = NULL;
	struct spec_cpu cpu = {.quota = {true, 50000},
			       .period = {true, 200000}};
	struct spec_resources r = {.cpu = &cpu};
	struct sd_props p;
	struct dbus_msg m;
	struct dbus_reader rd;
	const char *name, *sig;
	uint64_t v;
	size_t end;
	char *on, *off;

	sd_props_begin(&p);
	CHECK(sd_resource_props(&r, 252, true, &p, &on, &off, &e) == 0);
	sd_props_end(&p);
	/* TasksMax=infinity (no pids limit), the period, 0.25 CPU a second */
	CHECK_STR(prop_names(&p),
		  "TasksMax=t CPUQuotaPeriodUSec=t CPUQuotaPerSecUSec=t");
	m = (struct dbus_msg){.body = p.b.data, .body_len = p.b.len};
	dbus_reader_init(&rd, &m);
	CHECK(dbus_read_array(&rd, 8, &end) == 0);
	CHECK(dbus_read_str(&rd, &name) == 0 && dbus_read_sig(&rd, &sig) == 0);
	CHECK(dbus_read_u64(&rd, &v) == 0 && v == UINT64_MAX);
	rd.pos = (rd.pos + 7) / 8 * 8;
	CHECK(dbus_read_str(&rd, &name) == 0 && dbus_read_sig(&rd, &sig) == 0);
	CHECK(dbus_read_u64(&rd, &v) == 0 && v == 200000);
	rd.pos = (rd.pos + 7) / 8 * 8;
	CHECK(dbus_read_str(&rd, &name) == 0 && dbus_read_sig(&rd, &sig) == 0);
	CHECK(dbus_read_u64(&rd, &v) == 0 && v == 250000);
	free(on);
	free(off);
	dbus_buf_clear(&p.b);
	/* an update changes only what it sets */
	sd_props_begin(&p);
	r = (struct spec_resources){0};
	CHECK(sd_resource_props(&r, 252, false, &p, &on, &off, &e) == 0);
	CHECK(p.n == 0);
	free(on);
	free(off);
	dbus_buf_clear(&p.b);
}

TEST(cpu_masks_and_versions)
{
	uint8_t *mask;
	size_t n;

	CHECK(sd_cpu_mask("0-3,8", &mask, &n, NULL) == 0);
	CHECK(n == 2 && mask[0] == 0x0f && mask[1] == 0x01);
	free(mask);
	CHECK(sd_cpu_mask("8191", &mask, &n, NULL) == 0 && n == 1024);
	free(mask);
	CHECK(sd_cpu_mask("8192", &mask, &n, NULL) < 0);
	CHECK(sd_cpu_mask("3-1", &mask, &n, NULL) < 0);
	CHECK(sd_cpu_mask("1,", &mask, &n, NULL) < 0);
	CHECK(sd_cpu_mask("a", &mask, &n, NULL) < 0);
	CHECK(sd_cpu_mask("1--2", &mask, &n, NULL) < 0);
	CHECK(sd_parse_version("252.39-1~deb12u2") == 252);
	CHECK(sd_parse_version("v257") == 257);
	CHECK(sd_parse_version("unknown") == 0);
}

int main(void)
{
	return unit_run();
}
