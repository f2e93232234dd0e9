/* test_units.c - unit tests for Go pprof's value scaling and labels (include/units.h). */
#include "harness.h"
#include "units.h"

/*
 * Expected strings are what go tool pprof -text (Go 1.19) printed for
 * one-function profiles of these values and units, with the -unit named.
 */
static const char *label(int64_t v, const char *from, const char *to)
{
	static char buf[64];

	units_label(v, from, to, buf, sizeof(buf));
	return buf;
}

static const char *pct(int64_t v, int64_t total)
{
	static char buf[32];

	units_percentage(v, total, buf, sizeof(buf));
	return buf;
}

TEST(labels_as_go_prints_them)
{
	CHECK_STR(label(30932992, "bytes", "auto"), "29.50MB");
	CHECK_STR(label(1024, "bytes", "auto"), "1kB");
	CHECK_STR(label(5, "bytes", "auto"), "5B");
	CHECK_STR(label(0, "bytes", "auto"), "0");
	CHECK_STR(label(30932992, "bytes", "kb"), "30208kB");
	CHECK_STR(label(1536, "bytes", "kb"), "1.50kB");
	CHECK_STR(label(1330000000, "nanoseconds", "auto"), "1.33s");
	CHECK_STR(label(-1330000000, "nanoseconds", "auto"), "-1.33s");
	CHECK_STR(label(5, "nanoseconds", "auto"), "5ns");
	CHECK_STR(label(1150000000, "nanoseconds", "ms"), "1150ms");
	CHECK_STR(label(123456, "nanoseconds", "ms"), "0.12ms");
	CHECK_STR(label(5400000000000, "nanoseconds", "hrs"), "1.50hrs");
	CHECK_STR(label(7200000000, "microseconds", "auto"), "2hrs");
	CHECK_STR(label(100, "microseconds", "auto"), "100us");
	CHECK_STR(label(3, "seconds", "s"), "3s");
	CHECK_STR(label(1, "milliseconds", "ms"), "1ms");
	CHECK_STR(label(5, "count", "auto"), "5");
	CHECK_STR(label(7, "count", "minimum"), "7");
}

TEST(unknown_units_fall_back_as_in_go)
{
	/* No minutes in Go: the time family's default, seconds. */
	CHECK_STR(label(90000000000, "nanoseconds", "minutes"), "90s");
	CHECK_STR(label(1, "nanoseconds", "minutes"), "0");
	/* Bytes asked of a time: seconds again. */
	CHECK_STR(label(5, "nanoseconds", "MB"), "0");
	/* A unit of no family labels the value as it is. */
	CHECK_STR(label(5, "count", "foo"), "5foo");
	CHECK(units_known("ms") && units_known("MB") && units_known("auto") &&
	      units_known("minimum") && units_known("megabytes") && units_known("kB") &&
	      units_known("KB") && units_known("nanoseconds") && units_known("hrs"));
	CHECK(!units_known("minutes") && !units_known("foo") && !units_known("count"));
}

TEST(scaling)
{
	const char *u;

	CHECK(units_scale(1536, "bytes", "kilobytes", &u) == 1.5);
	CHECK_STR(u, "kB");
	CHECK(units_scale(2, "megabytes", "B", &u) == 2097152.0);
	CHECK_STR(u, "B");
	CHECK(units_scale(1500, "ms", "seconds", &u) == 1.5);
	CHECK_STR(u, "s");
	CHECK(units_scale(7, "count", "count", &u) == 7.0);
	CHECK_STR(u, "");
	CHECK(units_scale(7, "widgets", "gadgets", &u) == 7.0);
	CHECK_STR(u, "gadgets");
	CHECK(units_scale(1, "GCU", "milligcu", &u) == 1000.0);
	CHECK_STR(u, "m*GCU");
	CHECK(units_scale(INT64_MIN, "count", "auto", NULL) == (double)INT64_MIN);
}

TEST(percentages)
{
	CHECK_STR(pct(1150, 1990), "57.79%");
	CHECK_STR(pct(1990, 1990), "  100%");
	CHECK_STR(pct(1024, 30934021), "0.0033%");
	CHECK_STR(pct(5, 30934021), "1.6e-05%");
	CHECK_STR(pct(3, 7203), "0.042%");
	CHECK_STR(pct(0, 0), "    0%");
	CHECK_STR(pct(-1330000000, 1330000005), "  100%");
}

/* The report's unit under --unit=minimum, from the profiles above. */
TEST(report_unit)
{
	int64_t flat1[] = { 1150000000, 440000000, 400000000 }, cum1[] = { 1150000000, 440000000, 400000000 };
	int64_t flat2[] = { 30932992, 1024, 5 }, cum2[] = { 30932992, 1024, 5 };
	int64_t flat3[] = { 1330000000, 123456 }, cum3[] = { 1330000000, 123456 };
	int64_t flat4[] = { 5, 7 }, cum4[] = { 5, 7 };
	int64_t flat5[] = { 3, 7200 }, cum5[] = { 3, 7200 };
	int64_t flat6[] = { 0, 0 }, cum6[] = { 2000000000, 0 };

	CHECK_STR(units_report_unit(flat1, cum1, 3, 1990000000, "nanoseconds"), "ms");
	CHECK_STR(units_report_unit(flat2, cum2, 3, 30934021, "bytes"), "B");
	CHECK_STR(units_report_unit(flat3, cum3, 2, 1330123456, "nanoseconds"), "ms");
	CHECK_STR(units_report_unit(flat4, cum4, 2, 12, "count"), "count");
	CHECK_STR(units_report_unit(flat5, cum5, 2, 7203, "seconds"), "s");
	CHECK_STR(units_report_unit(flat6, cum6, 2, 2000000000, "nanoseconds"), "s");
	CHECK_STR(units_report_unit(NULL, NULL, 0, 0, "nanoseconds"), "nanoseconds");
}

int main(void)
{
	RUN(labels_as_go_prints_them);
	RUN(unknown_units_fall_back_as_in_go);
	RUN(scaling);
	RUN(percentages);
	RUN(report_unit);
	return test_done();
}
