/* contention.c - reader for gperftools-style lock contention profiles ("--- contention" text). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "strbuf.h"
#include "text.h"
#include "util.h"

/* "--- contention..." is 1, the old "--- Stacks:" 2, anything else 0. */
static int is_header(const struct text *t)
{
	const char *s = t->line + 3, *end = t->line + t->len;

	if (!text_starts(t, "---"))
		return 0;
	while (s < end && *s == ' ')
		s++;
	if (end - s >= 10 && !memcmp(s, "contention", 10))
		return 1;
	return end - s >= 7 && !memcmp(s, "Stacks:", 7) ? 2 : 0;
}

static int contention_sniff(const unsigned char *buf, size_t len)
{
	struct text t;
	struct err e;

	if (!text_header_is(buf, len, "---"))
		return 0;
	text_init(&t, "", buf, len, &e);
	return text_header(&t, 1) && is_header(&t);
}

/*
 * Delays are cycles divided by the clock rate, so fractions of a
 * nanosecond that pprof keeps: the model keeps values in units of 1/2^10.
 */
#define DELAY_SCALE ((int64_t)1 << 10)

/* What the variables said so far: they apply to the lines after them, as in pprof. */
struct state {
	double cycles_per_ns;    /* 2.8 (GHz) until "cycles/second" says otherwise */
	int64_t period;          /* "sampling period" */
	int seen_clockrate;
};

/* "name = value": pprof's variables.  Returns 1 when the line is one, -1 on a bad value. */
static int variable(struct text *t, struct state *st, struct profile *p)
{
	const char *s = t->line, *end = t->line + t->len, *eq, *k, *ke, *v, *ve;
	char buf[64], *stop;

	if (!t->len || *s < 'a' || *s > 'z' || !(eq = memchr(s, '=', t->len)))
		return 0;
	for (k = s, ke = eq; ke > k && (ke[-1] == ' ' || ke[-1] == '\t'); ke--)
		;
	for (v = text_skip_blanks(eq + 1, end), ve = end; ve > v && (ve[-1] == ' ' || ve[-1] == '\t');
	     ve--)
		;
	snprintf(buf, sizeof(buf), "%.*s", (int)(ve - v), v);
#define IS(name) ((size_t)(ke - k) == strlen(name) && !memcmp(k, name, strlen(name)))
	if (IS("cycles/second")) {
		double hz;

		errno = 0;
		hz = strtod(buf, &stop);
		if (errno || stop == buf || *stop || !(hz > 0) || !isfinite(hz) || ve - v >= 63)
			return text_fail(t, "bad cycles/second '%.*s'", (int)(ve - v), v);
		st->cycles_per_ns = hz / 1e9;
		st->seen_clockrate = 1;
	} else if (IS("sampling period")) {
		const char *q = v;
		int64_t n;

		if (text_int(&q, ve, 0, &n) < 0 || q != ve || n > INT32_MAX)
			return text_fail(t, "bad sampling period '%.*s'", (int)(ve - v), v);
		st->period = n;
		p->period = n;
	} else if (IS("ms since reset")) {
		const char *q = v;
		int64_t ms;

		/* pprof ignores it; Go takes it for the duration. */
		if (text_int(&q, ve, 0, &ms) == 0 && q == ve && ms <= INT64_MAX / 1000000)
			p->duration_nanos = ms * 1000000;
	} else if (!IS("discarded samples")) {
		notef("Ignoring unnknown variable in /contention output: '%.*s' = '%.*s'",
		      (int)(ke - k), k, (int)(ve - v), v);
	}
#undef IS
	return 1;
}

/*
 * A sample line, "CYCLES COUNT @ ADDRESS..." (one blank before '@') or the
 * old "CYCLES @ ADDRESS..." without a count.  Returns 1 when the line is
 * one (*at is where its '@' is), else 0.
 */
static int sample_line(struct text *t, int64_t *cycles, int64_t *count, const char **at)
{
	const char *s = text_skip_blanks(t->line, t->line + t->len), *end = t->line + t->len;
	const char *q, *d;

	/* Digits that do not fit 64 bits would be taken for map text: say so. */
	for (d = s; d < end && *d >= '0' && *d <= '9'; d++)
		;
	if (d - s > 18 && memchr(d, '@', (size_t)(end - d)) && text_int(&s, end, 0, cycles) < 0)
		return text_fail(t, "absurd number of cycles '%.*s'", (int)(d - s), s);
	if (text_int(&s, end, 0, cycles) < 0)
		return 0;
	*count = -1;
	if (end - s >= 2 && s[0] == ' ' && s[1] == '@') {
		*at = s + 1;
		return 1;
	}
	q = text_skip_blanks(s, end);
	for (d = q; d < end && *d >= '0' && *d <= '9'; d++)
		;
	if (q > s && d - q > 18 && end - d >= 2 && d[0] == ' ' && d[1] == '@' &&
	    text_int(&q, end, 0, count) < 0)
		return text_fail(t, "absurd count '%.*s'", (int)(d - q), q);
	if (q == s || text_int(&q, end, 0, count) < 0 || end - q < 2 || q[0] != ' ' || q[1] != '@')
		return 0;
	*at = q + 1;
	return 1;
}

/* The delay in nanoseconds, as pprof computes it: cycles / (cycles per ns) x period. */
static int delay_ns(struct text *t, const struct state *st, int64_t cycles, int64_t *ns)
{
	double d = (double)cycles / st->cycles_per_ns * (double)st->period * (double)DELAY_SCALE;

	if (!(d < 0x1p62))
		return text_fail(t, "absurd delay %lld cycles", (long long)cycles);
	*ns = llround(d);
	return 0;
}

static void set_types(struct profile *p)
{
	static const char *const types[] = { "contentions", "count", "delay", "nanoseconds" };

	profile_set_sample_types(p, 2, types);
	p->default_sample_type = profile_intern(p, "delay");
	p->period_type.type = profile_intern(p, "contentions");
	p->period_type.unit = profile_intern(p, "count");
	p->period = 1;
	p->address_bits = 64;
	p->value_scale = DELAY_SCALE;
	/* What Go's legacy parser prunes from contention profiles, for --proto. */
	p->drop_frames = profile_intern(p,
		"RecordLockProfileData|(base::)?RecordLockProfileData.*|"
		"(base::)?SubmitMutexProfileData.*|(base::)?SubmitSpinLockProfileData.*|"
		"(base::Mutex::)?AwaitCommon.*|(base::Mutex::)?Unlock.*|(base::Mutex::)?UnlockSlow.*|"
		"(base::Mutex::)?ReaderUnlock.*|(base::MutexLock::)?~MutexLock.*|"
		"(Mutex::)?AwaitCommon.*|(Mutex::)?Unlock.*|(Mutex::)?UnlockSlow.*|"
		"(Mutex::)?ReaderUnlock.*|(MutexLock::)?~MutexLock.*|(SpinLock::)?Unlock.*|"
		"(SpinLock::)?SlowUnlock.*|(SpinLockHolder::)?~SpinLockHolder.*");
}

/*
 * Lines are samples, variables, or else mapped-object text, in any order,
 * as pprof reads them.
 */
static int contention_read(const char *name, const unsigned char *buf, size_t len,
			   const struct read_options *ro, struct profile *p, struct err *e)
{
	struct state st = { .cycles_per_ns = 2.8, .period = 1 };
	struct strbuf map = STRBUF_INIT;
	struct stack_builder *sb = NULL;
	size_t naddr;
	struct text t;
	int ret = -1, r;

	text_init(&t, name, buf, len, e);
	if (!text_header(&t, 0) || !is_header(&t))
		return err_set(e, "%s: no contention profile header", name);
	if (is_header(&t) == 2)
		notef("Old format contention profile: mistakenly reports condition variable "
		      "signals as lock contentions.");
	set_types(p);
	sb = stack_builder_begin(p);
	while (text_next(&t)) {
		int64_t cycles, count, value[2];
		const char *at = NULL;

		if ((r = sample_line(&t, &cycles, &count, &at)) < 0)
			goto out;
		if (r) {
			if (!text_stack(&t, sb, at + 1, t.line + t.len,
					ro && ro->raw_addresses ? TEXT_RAW : 1, &naddr))
				goto out;
			if (!naddr)
				continue;
			if (delay_ns(&t, &st, cycles, &value[1]) < 0)
				goto out;
			if (count > 0 && count > INT64_MAX / DELAY_SCALE / (st.period ? st.period : 1)) {
				text_fail(&t, "absurd count %lld", (long long)count);
				goto out;
			}
			value[0] = count < 0 ? 0 : count * st.period * DELAY_SCALE;
			stack_builder_commit(sb, naddr, value);
		} else if ((r = variable(&t, &st, p)) < 0) {
			goto out;
		} else if (!r) {
			sb_add(&map, t.line, t.len);
			sb_addc(&map, '\n');
		}
	}
	if (!st.seen_clockrate)
		notef("No cycles/second entry in profile; Guessing 2.8 GHz");
	/* The samples are all in before the mappings are given to the locations. */
	stack_builder_end(sb);
	sb = NULL;
	reader_maps(p, name, map.buf, map.len);
	ret = 0;
out:
	stack_builder_end(sb);
	sb_release(&map);
	return ret;
}

/* --total_delay, --contentions, --mean_delay (the delay per contention). */
static void contention_pick(const struct profile *p, const struct report_options *o, int *index,
			    int *mean)
{
	*mean = 0;
	if (o->sample_index_set || p->nsample_type != 2)
		return;
	*index = o->delay_value == DELAY_CONTENTIONS ? 0 : 1;
	*mean = o->delay_value == DELAY_MEAN;
}

/* gperftools pprof's units: seconds with three decimals, or contentions as samples. */
static void contention_style(const struct profile *p, int si, const struct report_options *o,
			     struct value_style *vs)
{
	if (o->unit)
		return report_measured_style(p, si, o, vs);
	memset(vs, 0, sizeof(*vs));
	vs->divisor = (double)profile_value_scale(p);
	vs->unit = "samples";
	vs->whole = 1;
	if (si >= 0 && (size_t)si < p->nsample_type && !strcmp(p->sample_type[si].unit, "nanoseconds")) {
		vs->unit = "seconds";
		vs->divisor *= 1e9;
		vs->decimals = 3;
		vs->whole = 0;
	}
}

/*
 * --raw's profile section: contention text in whole nanoseconds (a clock
 * of 1 GHz, no sampling), which gperftools pprof reads with the same
 * values but for the fractions.
 * A stack without contentions takes the old form, delay alone.
 */
static int contention_raw(FILE *out, const struct profile *q, const uint64_t *addr,
			  const struct report_options *o, struct err *e)
{
	int64_t scale = profile_value_scale(q);
	size_t i;
	uint32_t j;

	if (q->nsample_type != 2)
		return err_set(e, "--raw: a contention profile with %zu sample types", q->nsample_type);
	fputs("--- contentionz 1 ---\ncycles/second = 1000000000\nsampling period = 1\n", out);
	if (q->duration_nanos > 0)
		fprintf(out, "ms since reset = %lld\n", (long long)(q->duration_nanos / 1000000));
	for (i = 0; i < q->nsample; i++) {
		const struct sample *s = q->sample[i];
		const int64_t *v = sample_value(s);

		if (!s->nlocation)
			continue;
		/* Whole nanoseconds and contentions, as pprof's patterns want them. */
		if (v[0] / scale)
			fprintf(out, "%lld %lld @", (long long)(v[1] / scale), (long long)(v[0] / scale));
		else
			fprintf(out, "%lld @", (long long)(v[1] / scale));
		for (j = 0; j < s->nlocation; j++)
			fprintf(out, " 0x%llx", (unsigned long long)addr[sample_stack(s)[j]]);
		fputc('\n', out);
	}
	return 0;
}

/* The lock routines that record the contention. */
static const char *const contention_names[] = {
	"base::RecordLockProfileData", "base::SubmitMutexProfileData",
	"base::SubmitSpinLockProfileData", "Mutex::Unlock", "Mutex::UnlockSlow",
	"Mutex::ReaderUnlock", "MutexLock::~MutexLock", "SpinLock::Unlock", "SpinLock::SlowUnlock",
	"SpinLockHolder::~SpinLockHolder", NULL,
};

/* pprof's default regex, the literal NOMATCH, applies to contention profiles too. */
static const struct frame_rules contention_frames = {
	.names = contention_names,
	.regex = "NOMATCH",
};

const struct reader reader_contention = {
	.name = "contention profile",
	.sniff = contention_sniff,
	.read = contention_read,
	.frames = &contention_frames,
	.style = contention_style,
	.pick = contention_pick,
	.raw_body = contention_raw,
};
