/* Device nodes in the container's /dev: the standard set (null, zero,
 * full, random, urandom, tty), config.json's linux.devices, and the
 * /dev/fd, /dev/std*, /dev/ptmx links. */
#ifndef CORRAL_DEVICES_H
#define CORRAL_DEVICES_H

#include "error.h"
#include "spec.h"

int devices_setup(int rootfd, const struct spec *spec, struct error **err);

#endif
