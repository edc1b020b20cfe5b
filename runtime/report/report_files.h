/* The "files changed" section of `corral report` (report_files.c). */
#ifndef CORRAL_REPORT_FILES_H
#define CORRAL_REPORT_FILES_H

#include "error.h"
#include "report.h"
#include "spec.h"

/* ROOT/ID/READY_FILE: what the scratch's upper layer held when create
 * was done (report.h, struct report_ready). */
#define READY_FILE "scratch.ready"

/* Record the upper layer's entries (dirfd: the container's state
 * directory, whose scratch is attached) before any code of the
 * container's runs: create calls it at READY. */
int report_files_mark_ready(int dirfd, struct error **err);

/* Walk DIR/scratch/upper (dirfd: the container's state directory) into r,
 * with the scratch tmpfs's use; rootfs (the lower layer's host path, or
 * NULL) tells created from modified; what READY_FILE holds, unchanged,
 * is corral's and not listed.  No scratch at all leaves r->files_known
 * false with the reason. */
int report_files_read(int dirfd, const char *rootfs, struct report *r,
		      struct error **err);

/* The files of config's writable binds (the effective spec) whose times
 * fall within the run (r->started to r->ended, or now), each source
 * opened without following a link; after report_files_read, and only
 * when it knew the files. */
int report_files_binds(const struct spec *config, struct report *r,
		       struct error **err);

#endif
