/* Translation of config.json mount options into mount(2) arguments.  Pure:
 * the runtime applies the result, harden() and unit tests read it. */
#ifndef CORRAL_MOUNT_OPTIONS_H
#define CORRAL_MOUNT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct spec_mount_flags {
	unsigned long flags;	   /* MS_* to set at mount time */
	unsigned long propagation; /* MS_SHARED, MS_SLAVE, ... | MS_REC */
	uint64_t attr_set; /* MOUNT_ATTR_* applied recursively ("rro") */
	uint64_t attr_clr;
	bool bind;  /* "bind" or "rbind" */
	char *data; /* the rest, comma-joined, for the filesystem; or NULL */
};

/* Parse a mount's options.  Unknown words are filesystem data ("size=1m",
 * "mode=755", "newinstance").  Options corral cannot honour ("idmap") fail. */
int spec_mount_options_parse(char *const *options, size_t n,
			     struct spec_mount_flags *out, struct error **err);

/* The option names corral understands, NULL-terminated (features). */
extern const char *const spec_mount_option_names[];

#endif
