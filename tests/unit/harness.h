/* harness.h - a tiny unit-test harness: one "ok - " / "not ok - " line per check. */
#ifndef PPROF_TEST_HARNESS_H
#define PPROF_TEST_HARNESS_H

/*
 * Usage:
 *
 *	TEST(adds_bytes) { ...; CHECK(x); CHECK_EQ_INT(a, 3); CHECK_STR(s, "x"); }
 *	int main(void) { RUN(adds_bytes); return test_done(); }
 *
 * Each check prints one line, "ok - FILE:LINE EXPR" or "not ok - FILE:LINE
 * EXPR", followed on failure by "# " lines with the values seen.  RUN
 * prints "# NAME" before a test.  test_done prints "N passed, N failed" and
 * returns the exit status: 0 when nothing failed, 1 otherwise.
 * Checks do not stop the test; guard dereferences with `if (!CHECK(p))
 * return;` (every check returns whether it passed).
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int test_passed_, test_failed_;

static const char *test_base_(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int __attribute__((unused)) test_report_(int ok, const char *file, int line,
						  const char *expr)
{
	printf("%s - %s:%d %s\n", ok ? "ok" : "not ok", test_base_(file), line, expr);
	if (ok)
		test_passed_++;
	else
		test_failed_++;
	fflush(stdout);
	return ok;
}

/* Prints a diagnostic line ("# ...") under the last check. */
#define TEST_NOTE(...) (printf("# " __VA_ARGS__), putchar('\n'), fflush(stdout))

#define CHECK(cond) test_report_(!!(cond), __FILE__, __LINE__, #cond)

static int __attribute__((unused)) test_eq_int_(intmax_t a, intmax_t b, const char *file,
						  int line, const char *expr)
{
	int ok = test_report_(a == b, file, line, expr);

	if (!ok)
		TEST_NOTE("    got %jd, want %jd", a, b);
	return ok;
}

static int __attribute__((unused)) test_eq_u64_(uint64_t a, uint64_t b, const char *file,
						  int line, const char *expr)
{
	int ok = test_report_(a == b, file, line, expr);

	if (!ok)
		TEST_NOTE("    got 0x%" PRIx64 ", want 0x%" PRIx64, a, b);
	return ok;
}

static int __attribute__((unused)) test_str_(const char *a, const char *b, const char *file,
					       int line, const char *expr)
{
	int ok = test_report_(a && b && !strcmp(a, b), file, line, expr);

	if (!ok)
		TEST_NOTE("    got '%s', want '%s'", a ? a : "(null)", b ? b : "(null)");
	return ok;
}

static int __attribute__((unused)) test_contains_(const char *hay, const char *needle,
						    const char *file, int line, const char *expr)
{
	int ok = test_report_(hay && needle && strstr(hay, needle), file, line, expr);

	if (!ok)
		TEST_NOTE("    '%s' does not contain '%s'", hay ? hay : "(null)",
			  needle ? needle : "(null)");
	return ok;
}

/* Signed integers (and anything that fits intmax_t). */
#define CHECK_EQ_INT(a, b) test_eq_int_((intmax_t)(a), (intmax_t)(b), __FILE__, __LINE__, \
					#a " == " #b)
/* Unsigned 64-bit values such as addresses, printed in hex on failure. */
#define CHECK_EQ_U64(a, b) test_eq_u64_((uint64_t)(a), (uint64_t)(b), __FILE__, __LINE__, \
					#a " == " #b)
#define CHECK_STR(a, b) test_str_((a), (b), __FILE__, __LINE__, #a " eq " #b)
#define CHECK_CONTAINS(hay, needle) test_contains_((hay), (needle), __FILE__, __LINE__, \
						   #hay " contains " #needle)

#define TEST(name) static void name(void)
#define RUN(name) (printf("# %s\n", #name), fflush(stdout), name())

static int __attribute__((unused)) test_done(void)
{
	printf("%d passed, %d failed\n", test_passed_, test_failed_);
	fflush(stdout);
	return test_failed_ != 0;
}

#endif
