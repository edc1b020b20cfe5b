/* yajl's beautifier writes an empty array or object over three lines
 * ("[\n\n  ]"); the policy file and explain's output are read by people,
 * so the writers in spec/ that beautify pass their text through here. */
#ifndef CORRAL_JSON_TIDY_H
#define CORRAL_JSON_TIDY_H

#include <stddef.h>

#include <yajl/yajl_gen.h>

#include "error.h"

/* Collapse empty arrays and objects to "[]" and "{}" in place.  Safe on
 * any JSON text: a string cannot hold a raw newline, so whitespace
 * between brackets is always structure. */
void json_tidy(char *text);

/* json_gen_finish() followed by json_tidy(). */
int json_tidy_finish(yajl_gen gen, char **out, struct error **err);

#endif
