/* The "files changed" section of `corral report` (report_files.c). */
#ifndef CORRAL_REPORT_FILES_H
#define CORRAL_REPORT_FILES_H

#include "error.h"
#include "report.h"

/* Walk DIR/scratch/upper (dirfd: the container's state directory) into r,
 * with the scratch tmpfs's use; rootfs (the lower layer's host path, or
 * NULL) tells created from modified.  No scratch at all leaves
 * r->files_known false with the reason. */
int report_files_read(int dirfd, const char *rootfs, struct report *r,
		      struct error **err);

#endif
