#include "mount_options.h"

#include <errno.h>
#include <linux/mount.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "util.h"

enum opt_kind {
	OPT_SET,
	OPT_CLEAR,
	OPT_PROPAGATION,
	OPT_ATTR_SET,
	OPT_ATTR_CLR,
	OPT_BIND,
	OPT_IGNORE
};

struct mount_option {
	const char *name;
	enum opt_kind kind;
	unsigned long value;
};

/* "tmpcopyup" is accepted and ignored: it asks to copy the image's content
 * into a tmpfs, which never widens what the container can reach. */
static const struct mount_option options[] = {
    {"async", OPT_CLEAR, MS_SYNCHRONOUS},
    {"atime", OPT_CLEAR, MS_NOATIME},
    {"bind", OPT_BIND, MS_BIND},
    {"defaults", OPT_IGNORE, 0},
    {"dev", OPT_CLEAR, MS_NODEV},
    {"diratime", OPT_CLEAR, MS_NODIRATIME},
    {"dirsync", OPT_SET, MS_DIRSYNC},
    {"exec", OPT_CLEAR, MS_NOEXEC},
    {"mand", OPT_SET, MS_MANDLOCK},
    {"noatime", OPT_SET, MS_NOATIME},
    {"nodev", OPT_SET, MS_NODEV},
    {"nodiratime", OPT_SET, MS_NODIRATIME},
    {"noexec", OPT_SET, MS_NOEXEC},
    {"nomand", OPT_CLEAR, MS_MANDLOCK},
    {"norelatime", OPT_CLEAR, MS_RELATIME},
    {"nostrictatime", OPT_CLEAR, MS_STRICTATIME},
    {"nosuid", OPT_SET, MS_NOSUID},
    {"private", OPT_PROPAGATION, MS_PRIVATE},
    {"rbind", OPT_BIND, MS_BIND | MS_REC},
    {"relatime", OPT_SET, MS_RELATIME},
    {"remount", OPT_SET, MS_REMOUNT},
    {"rdev", OPT_ATTR_CLR, MOUNT_ATTR_NODEV},
    {"rexec", OPT_ATTR_CLR, MOUNT_ATTR_NOEXEC},
    {"rnodev", OPT_ATTR_SET, MOUNT_ATTR_NODEV},
    {"rnoexec", OPT_ATTR_SET, MOUNT_ATTR_NOEXEC},
    {"rnosuid", OPT_ATTR_SET, MOUNT_ATTR_NOSUID},
    {"ro", OPT_SET, MS_RDONLY},
    {"rprivate", OPT_PROPAGATION, MS_PRIVATE | MS_REC},
    {"rro", OPT_ATTR_SET, MOUNT_ATTR_RDONLY},
    {"rrw", OPT_ATTR_CLR, MOUNT_ATTR_RDONLY},
    {"rshared", OPT_PROPAGATION, MS_SHARED | MS_REC},
    {"rslave", OPT_PROPAGATION, MS_SLAVE | MS_REC},
    {"rsuid", OPT_ATTR_CLR, MOUNT_ATTR_NOSUID},
    {"runbindable", OPT_PROPAGATION, MS_UNBINDABLE | MS_REC},
    {"rw", OPT_CLEAR, MS_RDONLY},
    {"shared", OPT_PROPAGATION, MS_SHARED},
    {"slave", OPT_PROPAGATION, MS_SLAVE},
    {"strictatime", OPT_SET, MS_STRICTATIME},
    {"suid", OPT_CLEAR, MS_NOSUID},
    {"sync", OPT_SET, MS_SYNCHRONOUS},
    {"tmpcopyup", OPT_IGNORE, 0},
    {"unbindable", OPT_PROPAGATION, MS_UNBINDABLE},
};

const char *const spec_mount_option_names[] = {
    "async",	     "atime",	    "bind",	   "defaults", "dev",
    "diratime",	     "dirsync",	    "exec",	   "mand",     "noatime",
    "nodev",	     "nodiratime",  "noexec",	   "nomand",   "norelatime",
    "nostrictatime", "nosuid",	    "private",	   "rbind",    "relatime",
    "remount",	     "rdev",	    "rexec",	   "rnodev",   "rnoexec",
    "rnosuid",	     "rprivate",    "rro",	   "rrw",      "rshared",
    "rslave",	     "rsuid",	    "runbindable", "rw",       "shared",
    "slave",	     "strictatime", "suid",	   "sync",     "tmpcopyup",
    "unbindable",    NULL,
};

static const struct mount_option *lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		if (strcmp(options[i].name, name) == 0)
			return &options[i];
	return NULL;
}

static int append_data(char **data, const char *word, struct error **err)
{
	size_t old = *data ? strlen(*data) : 0, add = strlen(word);
	char *s = realloc(*data, old + add + 2);

	if (!s)
		return error_set(err, ENOMEM, "mount options: out of memory");
	if (old)
		s[old++] = ',';
	memcpy(s + old, word, add + 1);
	*data = s;
	return 0;
}

int spec_mount_options_parse(char *const *opts, size_t n,
			     struct spec_mount_flags *out, struct error **err)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const struct mount_option *o = lookup(opts[i]);

		if (!o) {
			if (strcmp(opts[i], "idmap") == 0 ||
			    strcmp(opts[i], "ridmap") == 0) {
				free(out->data);
				out->data = NULL;
				return error_set(
				    err, ENOTSUP,
				    "mount option \"%s\" is not supported",
				    opts[i]);
			}
			if (append_data(&out->data, opts[i], err) < 0)
				return -1;
			continue;
		}
		switch (o->kind) {
		case OPT_SET:
			out->flags |= o->value;
			break;
		case OPT_CLEAR:
			out->flags &= ~o->value;
			break;
		case OPT_PROPAGATION:
			out->propagation = o->value;
			break;
		case OPT_ATTR_SET:
			out->attr_set |= o->value;
			out->attr_clr &= ~(uint64_t)o->value;
			break;
		case OPT_ATTR_CLR:
			out->attr_clr |= o->value;
			out->attr_set &= ~(uint64_t)o->value;
			break;
		case OPT_BIND:
			out->bind = true;
			out->flags |= o->value;
			break;
		case OPT_IGNORE:
		default: /* accepted, nothing to set */
			break;
		}
	}
	return 0;
}
