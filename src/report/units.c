/* units.c - Go pprof's measurement units: scaling, labels, percentages, a report's unit. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "util.h"

struct unit {
	const char *name;
	const char *alias[4];
	double factor;
};

struct family {
	const struct unit *unit;
	size_t nunit;
	const struct unit *dflt;
};

static const struct unit memory_units[] = {
	{ "B", { "b", "byte" }, 1 },
	{ "kB", { "kb", "kbyte", "kilobyte" }, 1024.0 },
	{ "MB", { "mb", "mbyte", "megabyte" }, 1048576.0 },
	{ "GB", { "gb", "gbyte", "gigabyte" }, 1073741824.0 },
	{ "TB", { "tb", "tbyte", "terabyte" }, 1099511627776.0 },
	{ "PB", { "pb", "pbyte", "petabyte" }, 1125899906842624.0 },
};

/* "μs" is listed but never matches: sniffing drops its "s" (three bytes). */
static const struct unit time_units[] = {
	{ "ns", { "ns", "nanosecond" }, 1 },
	{ "us", { "\xce\xbcs", "us", "microsecond" }, 1e3 },
	{ "ms", { "ms", "millisecond" }, 1e6 },
	{ "s", { "s", "sec", "second" }, 1e9 },
	{ "hrs", { "hour", "hr" }, 3600e9 },
};

static const struct unit gcu_units[] = {
	{ "n*GCU", { "nanogcu" }, 1e-9 },
	{ "u*GCU", { "microgcu" }, 1e-6 },
	{ "m*GCU", { "milligcu" }, 1e-3 },
	{ "GCU", { "gcu" }, 1 },
	{ "k*GCU", { "kilogcu" }, 1e3 },
	{ "M*GCU", { "megagcu" }, 1e6 },
	{ "G*GCU", { "gigagcu" }, 1e9 },
	{ "T*GCU", { "teragcu" }, 1e12 },
	{ "P*GCU", { "petagcu" }, 1e15 },
};

/* Time's default is seconds, which need not be the base. */
static const struct unit time_default = { "s", { NULL }, 1e9 };
static const struct unit gcu_default = { "GCU", { NULL }, 1 };

static const struct family families[] = {
	{ memory_units, sizeof(memory_units) / sizeof(memory_units[0]), &memory_units[0] },
	{ time_units, sizeof(time_units) / sizeof(time_units[0]), &time_default },
	{ gcu_units, sizeof(gcu_units) / sizeof(gcu_units[0]), &gcu_default },
};

#define NFAMILY (sizeof(families) / sizeof(families[0]))

/* Go's sniffUnit: lowercase, drop one trailing "s" beyond two bytes, find the alias. */
static const struct unit *sniff(const struct family *f, const char *name)
{
	char low[64];
	size_t n = strlen(name), i, j;

	if (n >= sizeof(low))
		return NULL;
	for (i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	if (n > 2 && low[n - 1] == 's')
		n--;
	low[n] = 0;
	for (i = 0; i < f->nunit; i++)
		for (j = 0; j < 4 && f->unit[i].alias[j]; j++)
			if (!strcmp(f->unit[i].alias[j], low))
				return &f->unit[i];
	return NULL;
}

static int is_auto(const char *unit)
{
	return !strcmp(unit, "minimum") || !strcmp(unit, "auto");
}

/* Go's autoScale: the largest unit keeping v (in base units) at or above 1. */
static const struct unit *auto_unit(const struct family *f, double v)
{
	const struct unit *best = NULL;
	size_t i;

	for (i = 0; i < f->nunit; i++)
		if ((!best || f->unit[i].factor >= best->factor) && v / f->unit[i].factor >= 1.0)
			best = &f->unit[i];
	return best ? best : f->dflt;
}

double units_scale(int64_t value, const char *from_unit, const char *to_unit, const char **unit)
{
	const char *dummy;
	size_t i;

	if (!unit)
		unit = &dummy;
	/* Go scales |value| and negates; INT64_MIN has no opposite and goes as is. */
	if (value < 0 && value != INT64_MIN)
		return -units_scale(-value, from_unit, to_unit, unit);
	for (i = 0; i < NFAMILY; i++) {
		const struct unit *from = sniff(&families[i], from_unit), *to;
		double v;

		if (!from)
			continue;
		v = (double)value * from->factor;
		if (is_auto(to_unit))
			to = auto_unit(&families[i], v);
		else if (!(to = sniff(&families[i], to_unit)))
			to = families[i].dflt;
		*unit = to->name;
		return v / to->factor;
	}
	if (is_auto(to_unit) || !strcmp(to_unit, "count") || !strcmp(to_unit, "sample") ||
	    !strcmp(to_unit, "unit"))
		*unit = "";
	else
		*unit = to_unit;
	return (double)value;
}

void units_label(int64_t value, const char *from_unit, const char *to_unit, char *buf, size_t n)
{
	const char *unit;
	double v = units_scale(value, from_unit, to_unit, &unit);
	char num[64];
	size_t len;

	snprintf(num, sizeof(num), "%.2f", v);
	len = strlen(num);
	if (len > 3 && !strcmp(num + len - 3, ".00"))
		num[len - 3] = 0;
	if (!strcmp(num, "0") || !strcmp(num, "-0"))
		snprintf(buf, n, "0");
	else
		snprintf(buf, n, "%s%s", num, unit);
}

void units_percentage(int64_t value, int64_t total, char *buf, size_t n)
{
	double ratio = total ? fabs((double)value / (double)total) * 100 : 0;

	if (ratio >= 99.95 && ratio <= 100.05)
		snprintf(buf, n, "  100%%");
	else if (ratio >= 1.0)
		snprintf(buf, n, "%5.2f%%", ratio);
	else
		snprintf(buf, n, "%5.2g%%", ratio);
}

int units_family(const char *unit)
{
	size_t i;

	for (i = 0; i < NFAMILY; i++)
		if (sniff(&families[i], unit))
			return 1;
	return 0;
}

int units_known(const char *unit)
{
	size_t i;

	if (is_auto(unit))
		return 1;
	for (i = 0; i < NFAMILY; i++)
		if (sniff(&families[i], unit))
			return 1;
	return 0;
}

const char *units_report_unit(const int64_t *flat, const int64_t *cum, size_t n, int64_t total,
			      const char *sample_unit)
{
	int64_t min = 0, max = total, scaled;
	const char *min_unit, *max_unit, *unit;
	size_t i;

	if (!n)
		return sample_unit;
	for (i = 0; i < n; i++) {
		int64_t v = sat_abs(flat[i]) ? sat_abs(flat[i]) : sat_abs(cum[i]);

		if (v > 0 && (!min || v < min))
			min = v;
	}
	if (!min)
		min = max;
	units_scale(min, sample_unit, "minimum", &min_unit);
	units_scale(max, sample_unit, "minimum", &max_unit);
	unit = min_unit;
	/* 100 m in Go's int64 arithmetic, without its overflow. */
	if (strcmp(min_unit, max_unit) && !__builtin_mul_overflow(min, 100, &scaled) && scaled < max)
		units_scale(scaled, sample_unit, "minimum", &unit);
	return *unit ? unit : sample_unit;
}
