/* systemd's manager over D-Bus (systemd.h): org.freedesktop.systemd1's
 * Manager methods corral calls, and the wait for a job's end.
 *
 * On a bus, systemd's signals reach corral through a match rule on
 * systemd's name, and only those whose sender is systemd's unique name
 * are read: another client of the bus may send a signal to corral's own
 * name, and a forged JobRemoved would end a wait early. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "systemd.h"
#include "util.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define PROPS_IFACE "org.freedesktop.DBus.Properties"
#define PRIVATE_SOCKET "/run/systemd/private"
#define SYSTEM_BUS "/run/dbus/system_bus_socket"

bool systemd_booted(void)
{
	struct stat st;

	return lstat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

static int call(struct systemd *sd, const char *path, const char *iface,
		const char *member, const char *sig, const struct dbus_buf *b,
		struct dbus_in *reply, char **error_name, struct error **err)
{
	return dbus_call(&sd->c, SD_DEST, path, iface, member, sig, b, reply,
			 error_name, err);
}

/* Properties.Get(iface, name) of a string property. */
static int get_string(struct systemd *sd, const char *path, const char *iface,
		      const char *name, char **out, char **error_name,
		      struct error **err)
{
	struct dbus_buf b = {0};
	struct dbus_in reply = {0};
	struct dbus_reader r;
	const char *sig, *s;
	int rc = -1;

	*out = NULL;
	dbus_put_str(&b, iface);
	dbus_put_str(&b, name);
	if (call(sd, path, PROPS_IFACE, "Get", "ss", &b, &reply, error_name,
		 err) < 0 ||
	    dbus_expect(&reply.m, "v", name, err) < 0)
		goto out;
	dbus_reader_init(&r, &reply.m);
	if (dbus_read_sig(&r, &sig) < 0 || strcmp(sig, "s") != 0 ||
	    dbus_read_str(&r, &s) < 0) {
		error_set(err, EPROTO, "%s: not a string", name);
		goto out;
	}
	*out = strdup(s);
	rc = *out ? 0 : error_set(err, ENOMEM, "%s: out of memory", name);
out:
	dbus_buf_clear(&b);
	dbus_in_clear(&reply);
	return rc;
}

/* On a bus: systemd's unique name, and its signals sent to us. */
static int subscribe(struct systemd *sd, struct error **err)
{
	struct dbus_buf b = {0};
	struct dbus_in reply = {0};
	struct dbus_reader r;
	const char *owner;
	int rc = -1;

	dbus_put_str(&b, SD_DEST);
	if (dbus_call(&sd->c, "org.freedesktop.DBus", "/org/freedesktop/DBus",
		      "org.freedesktop.DBus", "GetNameOwner", "s", &b, &reply,
		      NULL, err) < 0 ||
	    dbus_expect(&reply.m, "s", "GetNameOwner", err) < 0)
		goto out;
	dbus_reader_init(&r, &reply.m);
	if (dbus_read_str(&r, &owner) < 0 || !(sd->owner = strdup(owner))) {
		error_set(err, EPROTO, "GetNameOwner: no name");
		goto out;
	}
	dbus_in_clear(&reply);
	dbus_buf_clear(&b);
	dbus_put_str(&b, "type='signal',sender='" SD_DEST
			 "',interface='" SD_MANAGER "',member='JobRemoved'");
	if (dbus_call(&sd->c, "org.freedesktop.DBus", "/org/freedesktop/DBus",
		      "org.freedesktop.DBus", "AddMatch", "s", &b, &reply, NULL,
		      err) < 0)
		goto out;
	dbus_in_clear(&reply);
	/* systemd sends its signals on a bus only while someone subscribed */
	rc = call(sd, SD_PATH, SD_MANAGER, "Subscribe", "", NULL, &reply, NULL,
		  err);
out:
	dbus_buf_clear(&b);
	dbus_in_clear(&reply);
	return rc;
}

/* The socket: root's is systemd's private one (no bus daemon between,
 * and no Hello), or the system bus when it has none; a user's is the
 * user's bus, where the user's systemd is. */
static int open_socket(struct systemd *sd, bool user, struct error **err)
{
	_cleanup_free_ char *path = NULL;
	const char *dir = getenv("XDG_RUNTIME_DIR");
	_cleanup_error_ struct error *private_err = NULL;

	if (!user) {
		if (dbus_open(PRIVATE_SOCKET, false, &sd->c, &private_err) == 0)
			return 0;
		if (dbus_open(SYSTEM_BUS, true, &sd->c, err) == 0)
			return 0;
		return error_wrap(err, "%s", private_err->msg);
	}
	if (dir && *dir == '/') {
		if (asprintf(&path, "%s/bus", dir) < 0)
			path = NULL;
	} else if (asprintf(&path, "/run/user/%u/bus", (unsigned)getuid()) < 0)
		path = NULL;
	if (!path)
		return error_set(err, ENOMEM, "systemd: out of memory");
	return dbus_open(path, true, &sd->c, err);
}

int systemd_connect(bool user, struct systemd *out, struct error **err)
{
	_cleanup_free_ char *version = NULL;

	*out = (struct systemd){.c = {.fd = -1}, .user = user};
	if (open_socket(out, user, err) < 0)
		return error_wrap(err, "systemd");
	if ((out->c.bus && subscribe(out, err) < 0) ||
	    get_string(out, SD_PATH, SD_MANAGER, "Version", &version, NULL,
		       err) < 0 ||
	    get_string(out, SD_PATH, SD_MANAGER, "ControlGroup",
		       &out->manager_cgroup, NULL, err) < 0) {
		systemd_close(out);
		return error_wrap(err, "systemd");
	}
	out->version = sd_parse_version(version);
	return 0;
}

void systemd_close(struct systemd *sd)
{
	dbus_close(&sd->c);
	free(sd->owner);
	free(sd->manager_cgroup);
	*sd = (struct systemd){.c = {.fd = -1}};
}

/* A method whose reply is a job's object path, then the job's end:
 * JobRemoved(id, job, unit, result), "done" being success. */
static int run_job(struct systemd *sd, const char *member, const char *sig,
		   const struct dbus_buf *b, const char *unit,
		   char **error_name, struct error **err)
{
	struct dbus_in reply = {0};
	struct dbus_reader r;
	_cleanup_free_ char *job = NULL;
	const char *s;

	if (call(sd, SD_PATH, SD_MANAGER, member, sig, b, &reply, error_name,
		 err) < 0)
		return -1;
	dbus_reader_init(&r, &reply.m);
	if (dbus_expect(&reply.m, "o", member, err) < 0 ||
	    dbus_read_str(&r, &s) < 0 || !(job = strdup(s))) {
		dbus_in_clear(&reply);
		return error_set(err, EPROTO, "%s %s: no job", member, unit);
	}
	dbus_in_clear(&reply);
	for (;;) {
		struct dbus_in in = {0};
		const char *path, *name, *result;
		uint32_t id;
		int got = dbus_next_signal(&sd->c, DBUS_TIMEOUT_MS, &in, err);

		if (got <= 0)
			return got < 0 ? -1
				       : error_set(err, ETIMEDOUT,
						   "%s %s: the job did not "
						   "end in time",
						   member, unit);
		dbus_reader_init(&r, &in.m);
		if ((sd->owner &&
		     (!in.m.sender || strcmp(in.m.sender, sd->owner) != 0)) ||
		    strcmp(in.m.path, SD_PATH) != 0 ||
		    strcmp(in.m.iface, SD_MANAGER) != 0 ||
		    strcmp(in.m.member, "JobRemoved") != 0 ||
		    strcmp(in.m.sig, "uoss") != 0 ||
		    dbus_read_u32(&r, &id) < 0 ||
		    dbus_read_str(&r, &path) < 0 ||
		    dbus_read_str(&r, &name) < 0 ||
		    dbus_read_str(&r, &result) < 0 || strcmp(path, job) != 0) {
			dbus_in_clear(&in);
			continue;
		}
		if (strcmp(result, "done") != 0) {
			error_set(err, EIO, "%s %s: the job ended \"%.32s\"",
				  member, unit, result);
			dbus_in_clear(&in);
			return -1;
		}
		dbus_in_clear(&in);
		return 0;
	}
}

/* The a(sv) of sd_props, built on a buffer of its own: its elements
 * start at offset 8 there, 8-aligned as they are here after the array's
 * length and padding, so their bytes are copied as they are. */
static void put_props(struct dbus_buf *b, const struct dbus_buf *props)
{
	size_t at = dbus_array_begin(b, 8);

	if (props->len > 8)
		dbus_put_raw(b, props->data + 8, props->len - 8);
	dbus_array_end(b, at, 8);
}

int systemd_start_unit(struct systemd *sd, const char *name,
		       const struct dbus_buf *props, struct error **err)
{
	struct dbus_buf b = {0};
	size_t aux;
	int rc;

	dbus_put_str(&b, name);
	dbus_put_str(&b, "replace");
	put_props(&b, props);
	aux = dbus_array_begin(&b, 8); /* no auxiliary units */
	dbus_array_end(&b, aux, 8);
	rc = run_job(sd, "StartTransientUnit", "ssa(sv)a(sa(sv))", &b, name,
		     NULL, err);
	dbus_buf_clear(&b);
	return rc;
}

int systemd_stop_unit(struct systemd *sd, const char *name, struct error **err)
{
	struct dbus_buf b = {0};
	_cleanup_free_ char *error_name = NULL;
	_cleanup_error_ struct error *e = NULL;
	int rc;

	dbus_put_str(&b, name);
	dbus_put_str(&b, "replace");
	rc = run_job(sd, "StopUnit", "ss", &b, name, &error_name, &e);
	dbus_buf_clear(&b);
	if (rc < 0 && error_name &&
	    strcmp(error_name, "org.freedesktop.systemd1.NoSuchUnit") == 0)
		return 0;
	if (rc < 0)
		*err = steal_pointer(&e);
	return rc;
}

int systemd_set_properties(struct systemd *sd, const char *name,
			   const struct dbus_buf *props, struct error **err)
{
	struct dbus_buf b = {0};
	struct dbus_in reply = {0};
	int rc;

	dbus_put_str(&b, name);
	dbus_put_bool(&b, true); /* runtime: gone with the unit */
	put_props(&b, props);
	rc = call(sd, SD_PATH, SD_MANAGER, "SetUnitProperties", "sba(sv)", &b,
		  &reply, NULL, err);
	dbus_buf_clear(&b);
	dbus_in_clear(&reply);
	return rc;
}

int systemd_unit_cgroup(struct systemd *sd, const char *name, char **out,
			struct error **err)
{
	struct dbus_buf b = {0};
	struct dbus_in reply = {0};
	struct dbus_reader r;
	_cleanup_free_ char *error_name = NULL, *path = NULL;
	const char *s;
	int rc = -1;

	*out = NULL;
	dbus_put_str(&b, name);
	if (call(sd, SD_PATH, SD_MANAGER, "GetUnit", "s", &b, &reply,
		 &error_name, err) < 0) {
		if (error_name &&
		    strcmp(error_name, "org.freedesktop."
				       "systemd1.NoSuchUnit") == 0)
			(*err)->code = ENOENT;
		goto out;
	}
	dbus_reader_init(&r, &reply.m);
	if (dbus_expect(&reply.m, "o", "GetUnit", err) < 0 ||
	    dbus_read_str(&r, &s) < 0 || !(path = strdup(s))) {
		error_set(err, EPROTO, "GetUnit %s: no path", name);
		goto out;
	}
	rc = get_string(sd, path, "org.freedesktop.systemd1.Scope",
			"ControlGroup", out, NULL, err);
out:
	dbus_buf_clear(&b);
	dbus_in_clear(&reply);
	return rc;
}
