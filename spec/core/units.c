#include "units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct {
	const char *name;
	unsigned shift;
} size_units[] = {
    {"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}, {"", 0},
};

/* The leading digits of s as a number; *end is the first non-digit.  No
 * sign, no spaces, no empty string: strtoull() would accept all three. */
static bool leading_number(const char *s, uint64_t *out, const char **end)
{
	char *e = NULL;
	unsigned long long v;

	if (!s || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno != 0)
		return false;
	*out = v;
	*end = e;
	return true;
}

bool units_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;

	if (!leading_number(s, &v, &end) || *end != '\0' || v == 0 || v > max)
		return false;
	*out = v;
	return true;
}

bool units_parse_size(const char *s, uint64_t max, uint64_t *out)
{
	const char *unit;
	uint64_t v;

	if (!leading_number(s, &v, &unit))
		return false;
	if (unit[0] == ' ' && unit[1] != '\0')
		unit++;
	for (size_t i = 0; i < ARRAY_SIZE(size_units); i++) {
		unsigned shift = size_units[i].shift;

		if (strcmp(unit, size_units[i].name) != 0)
			continue;
		if (v > (max >> shift))
			return false;
		*out = v << shift;
		return true;
	}
	return false;
}

char *units_size_string(uint64_t bytes, bool spaced)
{
	const char *sep = spaced ? " " : "";
	char *s = NULL;

	for (size_t i = 0; bytes && i < ARRAY_SIZE(size_units); i++) {
		unsigned shift = size_units[i].shift;

		if (shift == 0 || bytes % (UINT64_C(1) << shift) != 0)
			continue;
		if (asprintf(&s, "%llu%s%s",
			     (unsigned long long)(bytes >> shift), sep,
			     size_units[i].name) < 0)
			return NULL;
		return s;
	}
	if (asprintf(&s, "%llu%s", (unsigned long long)bytes,
		     spaced ? " bytes" : "") < 0)
		return NULL;
	return s;
}

/* The human half of "600s (10 min)": the two largest non-zero units. */
static int human_duration(uint64_t s, char *buf, size_t size)
{
	static const struct {
		const char *name;
		uint64_t seconds;
	} units[] = {{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
	size_t used = 0;
	int parts = 0;

	for (size_t i = 0; i < ARRAY_SIZE(units) && parts < 2; i++) {
		uint64_t n = s / units[i].seconds;
		int r;

		if (n == 0)
			continue;
		s -= n * units[i].seconds;
		r = snprintf(buf + used, size - used, "%s%llu %s",
			     parts ? " " : "", (unsigned long long)n,
			     units[i].name);
		if (r < 0 || (size_t)r >= size - used)
			return -1;
		used += (size_t)r;
		parts++;
	}
	return 0;
}

char *units_duration_string(uint64_t seconds)
{
	char human[64];
	char *s = NULL;
	int r;

	if (seconds == 0)
		return strdup("none");
	if (seconds < 60 || human_duration(seconds, human, sizeof(human)) < 0)
		r = asprintf(&s, "%llus", (unsigned long long)seconds);
	else
		r = asprintf(&s, "%llus (%s)", (unsigned long long)seconds,
			     human);
	return r < 0 ? NULL : s;
}

void units_utc_time(int64_t sec, long nsec, char *out, size_t len)
{
	int64_t days = sec / 86400, rem = sec % 86400;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	/* The civil date of a day count, in eras of 400 years (146097 days)
	 * that start on 1 March, so that the leap day ends each year. */
	days += 719468; /* 0000-03-01 to 1970-01-01 */
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	int64_t doe = days - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int64_t day = doy - (153 * mp + 2) / 5 + 1;
	int64_t month = mp < 10 ? mp + 3 : mp - 9;
	int64_t year = yoe + era * 400 + (month <= 2);

	if (year < 0 || year > 9999 || nsec < 0 || nsec > 999999999) {
		snprintf(out, len, "?");
		return;
	}
	snprintf(out, len,
		 "%04" PRId64 "-%02" PRId64 "-%02" PRId64 "T%02" PRId64
		 ":%02" PRId64 ":%02" PRId64 ".%09ldZ",
		 year, month, day, rem / 3600, rem / 60 % 60, rem % 60, nsec);
}
