/* units.h - Go pprof's measurement units: scaling values between units and printing them. */
#ifndef PPROF_UNITS_H
#define PPROF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Units come in families, each with canonical names and a factor to the
 * family's base (Go pprof internal/measurement):
 *   memory: B, kB, MB, GB, TB, PB (powers of 1024; base B)
 *   time:   ns, us, ms, s, hrs (base ns; default s)
 *   GCU:    n*GCU ... P*GCU (powers of 1000; base GCU)
 * A unit string is recognized as Go sniffs it: lowercased, a trailing "s"
 * dropped when longer than two characters, then matched against aliases
 * ("bytes", "kilobyte", "MB", "nanoseconds", "sec", "hour", "us", ...).
 * Go has no minutes: "min" and "minutes" are not time units.
 * Unit strings returned by these functions are static or the caller's.
 */

/*
 * Go's measurement.Scale: value in from_unit expressed in to_unit.  When
 * from_unit is in a family: to_unit "minimum" or "auto" picks the largest
 * unit of the family that keeps the value at or above 1 (the default unit
 * for 0); an unknown to_unit gives the family's default unit.  Otherwise the
 * value stays as it is, with unit "" for "count", "sample", "unit",
 * "minimum" and "auto", else to_unit.  *unit may be NULL.
 */
double units_scale(int64_t value, const char *from_unit, const char *to_unit, const char **unit);

/*
 * Go's measurement.ScaledLabel: the scaled value "%.2f" without a trailing
 * ".00", followed by its unit ("1.33s", "29.50MB", "1990ms", "12"); zero
 * (or what rounds to it) is "0".
 */
void units_label(int64_t value, const char *from_unit, const char *to_unit, char *buf, size_t n);

/* Go's measurement.Percentage: "  100%" near 100, "%5.2f%%" from 1, else "%5.2g%%". */
void units_percentage(int64_t value, int64_t total, char *buf, size_t n);

/* Whether unit belongs to a family (time, memory, GCU): values in it scale. */
int units_family(const char *unit);

/*
 * Whether Go knows unit as a --unit value: "minimum", "auto", or a unit of
 * a family.  (Go takes any string: an unknown one scales to the family's
 * default unit, or labels values of an unknown family with it.)
 */
int units_known(const char *unit);

/*
 * The unit of a report under --unit=minimum (Go's report.selectOutputUnit):
 * m = the smallest nonzero |flat| of the n nodes (|cum| where flat is 0),
 * M = total (m = M when all are 0); each gets its "minimum" unit, and when
 * they differ and 100 m < M, the unit of 100 m is used, else that of m.
 * Returns sample_unit when the chosen unit is "" (counts), and sample_unit
 * when n is 0.
 */
const char *units_report_unit(const int64_t *flat, const int64_t *cum, size_t n, int64_t total,
			      const char *sample_unit);

#endif
