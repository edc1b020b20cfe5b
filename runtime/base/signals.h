#ifndef CORRAL_SIGNALS_H
#define CORRAL_SIGNALS_H

#include "error.h"

/* "TERM", "SIGTERM" or "15" to a signal number. */
int signal_parse(const char *s, int *sig, struct error **err);

#endif
