/* A minimal unit-test harness that prints TAP.
 *
 *   TEST(parses_args) { CHECK(x == 1); CHECK_STR(a, "b"); }
 *   int main(void) { return unit_run(); }
 *
 * Tests register themselves through a constructor; unit_run() runs each in
 * declaration order and prints "ok N - name" or "not ok N - name" with the
 * failed checks as TAP diagnostics.  It returns non-zero if any test failed.
 */
#ifndef CORRAL_UNIT_H
#define CORRAL_UNIT_H

#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT_MAX 512
static struct unit_test unit_tests[UNIT_MAX];
static int unit_count;
static int unit_failed_checks;

#define TEST(name)                                                             \
	static void test_##name(void);                                         \
	__attribute__((constructor)) static void register_##name(void)         \
	{                                                                      \
		if (unit_count < UNIT_MAX)                                     \
			unit_tests[unit_count++] =                             \
			    (struct unit_test){#name, test_##name};            \
	}                                                                      \
	static void test_##name(void)

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("# %s:%d: CHECK(%s) failed\n", __FILE__,        \
			       __LINE__, #cond);                               \
			unit_failed_checks++;                                  \
		}                                                              \
	} while (0)

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                       \
			printf("# %s:%d: %s == \"%s\", expected \"%s\"\n",     \
			       __FILE__, __LINE__, #a, a_ ? a_ : "(null)",     \
			       b_ ? b_ : "(null)");                            \
			unit_failed_checks++;                                  \
		}                                                              \
	} while (0)

static inline int unit_run(void)
{
	int failed = 0;

	printf("1..%d\n", unit_count);
	for (int i = 0; i < unit_count; i++) {
		int before = unit_failed_checks;

		unit_tests[i].fn();
		if (unit_failed_checks == before) {
			printf("ok %d - %s\n", i + 1, unit_tests[i].name);
		} else {
			printf("not ok %d - %s\n", i + 1, unit_tests[i].name);
			failed++;
		}
		fflush(stdout);
	}
	return failed ? 1 : 0;
}

#endif
