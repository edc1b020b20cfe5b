/* Sizes and durations as people write and read them: "512MiB" in a policy
 * file or an annotation, "64 MiB" and "600s (10 min)" in `corral explain`.
 * Pure string functions; they report a bad value by their return value and
 * leave the wording of the error to the caller, who knows the field.
 */
#ifndef CORRAL_UNITS_H
#define CORRAL_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A byte count: decimal digits, optionally followed by B, KiB, MiB, GiB or
 * TiB (one space allowed before the unit).  Decimal units (KB, MB) are
 * refused: whether they mean 1000 or 1024 is exactly the kind of doubt a
 * limit must not have.  False when malformed or above max. */
bool units_parse_size(const char *s, uint64_t max, uint64_t *out);

/* A positive decimal integer without sign or spaces, at most max. */
bool units_parse_count(const char *s, uint64_t max, uint64_t *out);

/* "64MiB" (spaced: "64 MiB") in the largest binary unit that divides the
 * value exactly, else bytes ("1000", spaced: "1000 bytes").  Heap string,
 * NULL when out of memory. */
char *units_size_string(uint64_t bytes, bool spaced);

/* "600s (10 min)", "90s (1 min 30 s)", "30s"; 0 is "none". */
char *units_duration_string(uint64_t seconds);

/* "2026-12-04T03:39:11.123456789Z": an RFC 3339 time in UTC, for state
 * and report files.  Computed from the seconds since the epoch alone:
 * glibc's gmtime_r reads /etc/localtime once per process, a file open and
 * parse every corral command would pay.  len is at least
 * UNITS_UTC_TIME_LEN; out is "?" for a year outside 0-9999. */
#define UNITS_UTC_TIME_LEN 40
void units_utc_time(int64_t sec, long nsec, char *out, size_t len);

#endif
