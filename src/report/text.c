/* text.c - the text report: one line per entry with flat, flat%, sum%, cum, cum%, name. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "report.h"
#include "strbuf.h"
#include "symlist.h"
#include "units.h"
#include "util.h"

/* v in decimal at q (as "%lld"); returns its length. */
static int fmt_int(char *q, int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int n = 0, k = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		q[k++] = '-';
	while (n)
		q[k++] = tmp[--n];
	q[k] = 0;
	return k;
}

/* "[-]M.D%" of m tenths at buf, and its length. */
static size_t tenths(char *buf, int negative, int64_t m)
{
	char *q = buf;

	if (negative)
		*q++ = '-';
	q += fmt_int(q, m / 10);
	q[0] = '.';
	q[1] = (char)('0' + m % 10);
	q[2] = '%';
	q[3] = 0;
	return (size_t)(q + 3 - buf);
}

/*
 * "%.1f%%" of num * 100 / total, and its length.  Big reports print
 * hundreds of thousands of these, so the digits are made here; printf's
 * correct rounding of the binary value is kept by leaving it the values
 * within a hair of a tie.
 */
static size_t percent(char *buf, size_t n, int64_t num, int64_t total)
{
	double x, y, f;
	int64_t m;

	if (total == 0) {
		snprintf(buf, n, "%s", num == 0 ? "nan" : num > 0 ? "+inf" : "-inf");
		return strlen(buf);
	}
	/*
	 * The usual row in integers: num * 1000 / total tenths, to the
	 * nearest, when the remainder is more than a millionth from a half.  The
	 * double below is within 1e-9 of the exact value there, so it rounds
	 * the same way.
	 */
	if (n >= 32 && num >= 0 && num <= INT64_MAX / 1000 && total > 0 &&
	    total <= INT64_MAX / 2) {
		int64_t q = num * 1000 / total, twice = num * 1000 % total * 2;
		int64_t off = twice > total ? twice - total : total - twice;

		if (q < 9999999 && off > total / 500000 + 1)
			return tenths(buf, 0, q + (twice > total));
	}
	x = (double)num * 100.0 / (double)total;
	y = x * 10.0;
	f = floor(y);
	if (n < 32 || !(fabs(x) < 1e6) || fabs(y - f - 0.5) < 1e-6) {
		snprintf(buf, n, "%.1f%%", x);
		return strlen(buf);
	}
	m = (int64_t)f + (y - f > 0.5);
	return tenths(buf, signbit(x) != 0, m < 0 ? -m : m);
}

/*
 * Entries in report order: by flat or cum, largest first, then by key.
 * Big reports have hundreds of thousands of entries, most of them tied
 * on small values; comparing their keys' first 16 bytes as integers
 * settles most ties, so the sort is a radix sort of integers with
 * strcmp left for the rest.
 */
struct ranked {
	uint64_t value;         /* descending signed order as ascending unsigned */
	uint64_t pfx[2];        /* the key's first 16 bytes, big-endian, NUL-padded */
	const struct entry *e;
};

static uint64_t ranked_value(const void *r)
{
	return ((const struct ranked *)r)->value;
}

static uint64_t ranked_pfx0(const void *r)
{
	return ((const struct ranked *)r)->pfx[0];
}

static uint64_t ranked_pfx1(const void *r)
{
	return ((const struct ranked *)r)->pfx[1];
}

static int cmp_ranked(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return strcmp(((const struct ranked *)a)->e->key, ((const struct ranked *)b)->e->key);
}

static int same_rank(const struct ranked *a, const struct ranked *b)
{
	return a->value == b->value && a->pfx[0] == b->pfx[0] && a->pfx[1] == b->pfx[1];
}

/* report_sorted's order of two ranked entries: <0, 0 or >0. */
static int rank_order(const struct ranked *a, const struct ranked *b)
{
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	if (a->pfx[0] != b->pfx[0])
		return a->pfx[0] < b->pfx[0] ? -1 : 1;
	if (a->pfx[1] != b->pfx[1])
		return a->pfx[1] < b->pfx[1] ? -1 : 1;
	return strcmp(a->e->key, b->e->key);
}

/* One share of the entries, ranked and sorted on its own. */
struct rank_share {
	const struct report *r;
	struct ranked *k;      /* entries [from, to) of r */
	size_t from, to;
	int cum;
};

/* The value that ranks e: descending signed order as ascending unsigned. */
static uint64_t rank_value(const struct entry *e, int cum)
{
	return ~((uint64_t)(cum ? e->cum : e->flat) ^ (UINT64_C(1) << 63));
}

/* e's rank, in k (zeroed). */
static void rank_of(struct ranked *k, const struct entry *e, int cum)
{
	const unsigned char *key = (const unsigned char *)e->key;
	size_t j;

	k->value = rank_value(e, cum);
	for (j = 0; j < 16 && key[j]; j++)
		k->pfx[j / 8] |= (uint64_t)key[j] << (8 * (7 - j % 8));
	k->e = e;
}

/* The radix sort's keys, most significant first. */
static uint64_t (*const by_rank[])(const void *) = { ranked_value, ranked_pfx0, ranked_pfx1 };

static void *rank_share(void *arg)
{
	const struct rank_share *sh = arg;
	struct ranked *k = sh->k;
	size_t i, j, n = sh->to - sh->from;

	for (i = 0; i < n; i++)
		rank_of(&k[i], &sh->r->entry[sh->from + i], sh->cum);
	sort_by_keys(k, n, sizeof(*k), by_rank, 3);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && same_rank(&k[j], &k[i]); j++)
			;
		if (j - i > 1)
			qsort_r(k + i, j - i, sizeof(*k), cmp_ranked, NULL);
	}
	return NULL;
}

size_t report_sorted_share_min = 65536;

/*
 * Caller frees the array.  Big reports are ranked in two halves, the
 * second on a second thread, merged after: keys are unique, so the
 * order is the same.
 */
const struct entry **report_sorted(const struct report *r, int cum)
{
	const struct entry **v = xcalloc(r->nentry + 1, sizeof(*v));
	struct ranked *k = xcalloc(r->nentry + 1, sizeof(*k));
	struct rank_share a = { r, k, 0, r->nentry, cum }, b = { r, k + r->nentry, r->nentry, r->nentry, cum };
	size_t i, x, y;

	/* b is empty unless the entries are split. */
	if (r->nentry >= report_sorted_share_min) {
		a.to = b.from = r->nentry / 2;
		b.k = k + b.from;
		run_both(rank_share, &a, &b);
	} else {
		rank_share(&a);
		rank_share(&b);
	}
	for (i = 0, x = 0, y = b.from; i < r->nentry; i++)
		v[i] = (y == r->nentry || (x < a.to && rank_order(&k[x], &k[y]) <= 0) ? k[x++] : k[y++]).e;
	free(k);
	return v;
}

/* How pprof prints a key: an address key shows its symbol and file:line. */
static void add_name(struct strbuf *sb, const struct entry *e, const struct report_options *o)
{
	if (e->display && o->granularity == GRAN_ADDRESSES) {
		sb_adds(sb, e->key);
		sb_addc(sb, ' ');
	}
	sb_adds(sb, e->display ? e->display : e->key);
	sb_addc(sb, '\n');
}

int64_t report_measure(const struct value_style *vs, int64_t v)
{
	v = sat_mul(v, vs->multiplier);
	return vs->divisor > 1 ? (int64_t)((double)v / vs->divisor) : v;
}

void report_value(const struct report *r, int64_t v, char *buf, size_t n)
{
	if (!r->style.measure && !r->style.whole && !r->style.decimals && r->style.divisor == 1 &&
	    n >= 24)
		fmt_int(buf, v);
	else if (r->style.measure)
		units_label(report_measure(&r->style, v), r->style.measure, r->style.show, buf, n);
	else if (r->style.whole)
		snprintf(buf, n, "%lld", (long long)((double)v / r->style.divisor));
	else if (r->style.decimals || r->style.divisor != 1)
		snprintf(buf, n, "%.*f", r->style.decimals, (double)v / r->style.divisor);
	else
		snprintf(buf, n, "%lld", (long long)v);
}

void report_amount(const struct report *r, int64_t v, char *buf, size_t n)
{
	char num[48];

	report_value(r, v, num, sizeof(num));
	if (r->style.measure)
		snprintf(buf, n, "%s", num);
	else
		snprintf(buf, n, "%s %s", num, r->style.unit);
}

/* "After focusing on 'RE': N samples of T (P%)", as gperftools pprof's prompt says it. */
void report_kept(FILE *out, const struct report *r, int64_t v, const char *what, const char *re)
{
	char kept[80], total[48];

	report_amount(r, v, kept, sizeof(kept));
	report_value(r, r->total, total, sizeof(total));
	fprintf(out, "After %s '%s': %s of %s (%0.1f%%)\n", what, re, kept, total,
		r->total ? (double)v * 100.0 / (double)r->total : 0.0);
}

/* "Total: ..." and what the filters kept. */
static void report_total(FILE *out, const struct report *r, const struct report_options *o)
{
	if (r->total != 0) {
		char t[80];

		report_amount(r, r->total, t, sizeof(t));
		fprintf(out, "Total: %s", t);
		/* Samples shown as time: how many, and how often they were taken. */
		if (r->style.measure && r->style.multiplier > 1) {
			double every = units_scale(r->style.multiplier, r->style.measure, "s", NULL);

			fprintf(out, " (%lld samples", (long long)r->total);
			if (every > 0)
				fprintf(out, " at %.4g Hz", 1 / every);
			fputc(')', out);
		}
		fputc('\n', out);
		/* How much the filters leave, so that a report of part of the profile says so. */
		if (o->focus)
			report_kept(out, r, r->focus_total, "focusing on", o->focus);
		if (o->ignore)
			report_kept(out, r, r->kept_total, "ignoring", o->ignore);
	}
}

void report_text(FILE *out, const struct report *r, const struct report_options *o, int limit)
{
	report_total(out, r, o);
	report_text_rows(out, r, o, limit);
}

/* A column's text: n bytes at s, which has room for COLUMN_TEXT (the copy is made whole). */
#define COLUMN_TEXT 32
#define COLUMN_WIDTH 8  /* the widest column */

/*
 * s (n bytes) right-aligned in width columns, then a space, as "%*s "
 * prints it, at q; returns the byte after.  Big reports write hundreds
 * of thousands of rows: short copies of fixed size, no calls.
 */
static char *put_column(char *q, const char *s, size_t n, size_t width)
{
	if (n < width) {
		memcpy(q, "        ", COLUMN_WIDTH);
		q += width - n;
	}
	if (n <= COLUMN_TEXT)
		memcpy(q, s, COLUMN_TEXT);
	else
		memcpy(q, s, n);
	q[n] = ' ';
	return q + n + 1;
}

/* report_value's text of v in buf (of at least 48 bytes), and its length. */
static size_t value_text(const struct report *r, int64_t v, char *buf, size_t n)
{
	if (!r->style.measure && !r->style.whole && !r->style.decimals && r->style.divisor == 1)
		return (size_t)fmt_int(buf, v);
	report_value(r, v, buf, n);
	return strlen(buf);
}

/* One row: "%8s %6s %6s %8s %6s NAME" of e, with running the sum of flat up to it. */
static void add_row(struct strbuf *sb, const struct report *r, const struct report_options *o,
		    const struct entry *e, int64_t running)
{
	char fp[48], rp[48], cp[48], fv[48], cv[48];
	char line[5 * (COLUMN_WIDTH + sizeof(fv) + 1)], *q = line;
	size_t nfp = percent(fp, sizeof(fp), e->flat, r->local_total);
	size_t nrp = percent(rp, sizeof(rp), running, r->local_total);
	size_t ncp = percent(cp, sizeof(cp), e->cum, r->local_total);
	size_t nfv = value_text(r, e->flat, fv, sizeof(fv));
	size_t ncv = value_text(r, e->cum, cv, sizeof(cv));

	q = put_column(q, fv, nfv, 8);
	q = put_column(q, fp, nfp, 6);
	q = put_column(q, rp, nrp, 6);
	q = put_column(q, cv, ncv, 8);
	q = put_column(q, cp, ncp, 6);
	sb_add(sb, line, (size_t)(q - line));
	add_name(sb, e, o);
}

/* Rows [from, to) of a report's printed rows, composed into sb (a second thread's share). */
struct rows_part {
	const struct report *r;
	const struct report_options *o;
	const struct entry **row;
	const int64_t *running;
	size_t from, to;
	struct strbuf sb;
};

static void *rows_part_run(void *arg)
{
	struct rows_part *part = arg;
	size_t i;

	/* Rows go by value, their entries and keys anywhere: both hinted ahead. */
	for (i = part->from; i < part->to; i++) {
		if (i + 16 < part->to)
			hint_read(part->row[i + 16]);
		if (i + 8 < part->to) {
			hint_read(part->row[i + 8]->key);
			if (part->row[i + 8]->display)
				hint_read(part->row[i + 8]->display);
		}
		add_row(&part->sb, part->r, part->o, part->row[i], part->running[i]);
	}
	return NULL;
}

/* Reports of this many rows and more (--addresses of big profiles) are composed on two threads. */
#define PARALLEL_ROWS 65536
/* Rows each thread composes in a round, before both write: memory stays a few MB. */
#define ROUND_ROWS 16384

/*
 * The rows printed, in report order, with the running sum of flat at each:
 * rows no kept stack reaches are not pprof's at all, and zero rows still
 * add to the sum.  Returns how many.
 */
static size_t printed_rows(const struct report *r, const struct entry **v,
			   const struct entry **row, int64_t *running)
{
	int64_t sum = 0;
	size_t i, n = 0;

	for (i = 0; i < r->nentry; i++) {
		const struct entry *e = v[i];

		/* In value order the entries are anywhere: each a miss, unless asked ahead. */
		if (i + 16 < r->nentry)
			hint_read(v[i + 16]);
		if (!e->kept && !e->flat && !e->cum)
			continue;
		sum = sat_add(sum, e->flat);
		if (e->flat != 0 || e->cum != 0) {
			row[n] = e;
			running[n++] = sum;
		}
	}
	return n;
}

/* Rows [0, n), two pieces at a time composed at once; 0 when a thread could not start. */
static int rows_parallel(FILE *out, const struct report *r, const struct report_options *o,
			 const struct entry **row, const int64_t *running, size_t n)
{
	struct rows_part a = { 0 }, b;
	size_t at;
	pthread_t t;
	int ok = 1;

	a.r = r;
	a.o = o;
	a.row = row;
	a.running = running;
	sb_init(&a.sb);
	b = a;
	sb_init(&b.sb);
	for (at = 0; at < n && ok; at = b.to) {
		a.from = at;
		a.to = b.from = at + ROUND_ROWS < n ? at + ROUND_ROWS : n;
		b.to = b.from + ROUND_ROWS < n ? b.from + ROUND_ROWS : n;
		sb_reset(&a.sb);
		sb_reset(&b.sb);
		/* The first round decides; a later failure to start finishes here. */
		if (pthread_create(&t, NULL, rows_part_run, &b) != 0) {
			if (at == 0) {
				ok = 0;
				break;
			}
			rows_part_run(&b);
			rows_part_run(&a);
		} else {
			rows_part_run(&a);
			pthread_join(t, NULL);
		}
		fwrite(a.sb.buf, 1, a.sb.len, out);
		fwrite(b.sb.buf, 1, b.sb.len, out);
	}
	sb_release(&a.sb);
	sb_release(&b.sb);
	return ok;
}

/*
 * The first limit rows, when they are few beside the entries: the rows
 * (entries with a flat or cum value) that report_sorted would put first,
 * found in one pass that keeps the best so far in order, with their running
 * sums.  Rows not printed have no flat value, so the sums are the same.
 */
static size_t top_rows(const struct report *r, int cum, size_t limit, const struct entry **row,
		       int64_t *running)
{
	struct ranked *best = xcalloc(limit + 1, sizeof(*best)), k;
	size_t i, m = 0, at;
	int64_t sum = 0;

	for (i = 0; i < r->nentry; i++) {
		const struct entry *e = &r->entry[i];

		if (!e->flat && !e->cum)
			continue;
		/* Most entries lose on their value alone. */
		if (m == limit && rank_value(e, cum) > best[m - 1].value)
			continue;
		memset(&k, 0, sizeof(k));
		rank_of(&k, e, cum);
		if (m == limit && rank_order(&k, &best[m - 1]) > 0)
			continue;
		for (at = m < limit ? m++ : m - 1; at > 0 && rank_order(&k, &best[at - 1]) < 0; at--)
			best[at] = best[at - 1];
		best[at] = k;
	}
	for (i = 0; i < m; i++) {
		row[i] = best[i].e;
		sum = sat_add(sum, row[i]->flat);
		running[i] = sum;
	}
	free(best);
	return m;
}

/* Whether a topN's rows are few enough to pick rather than sort the entries for. */
#define PICKED_ROWS 1024

void report_text_rows(FILE *out, const struct report *r, const struct report_options *o, int limit)
{
	int pick = limit > 0 && limit <= PICKED_ROWS && (size_t)limit * 16 < r->nentry;
	const struct entry **v = pick ? NULL : report_sorted(r, o->cum);
	size_t nrow = pick ? (size_t)limit + 1 : r->nentry + 1;
	const struct entry **row = xcalloc(nrow, sizeof(*row));
	int64_t *running = xcalloc(nrow, sizeof(*running));
	struct strbuf sb = STRBUF_INIT;
	size_t i, n = pick ? top_rows(r, o->cum, (size_t)limit, row, running) :
			     printed_rows(r, v, row, running);

	/* Rows printed count for topN (gperftools pprof's counted skipped ones too). */
	if (limit > 0 && (size_t)limit < n)
		n = (size_t)limit;
	if (limit > 0 || n < PARALLEL_ROWS || !rows_parallel(out, r, o, row, running, n)) {
		/* Composed here and written in big pieces: reports can have 10^5 rows. */
		for (i = 0; i < n; i++) {
			add_row(&sb, r, o, row[i], running[i]);
			if (sb.len >= 1 << 16) {
				fwrite(sb.buf, 1, sb.len, out);
				sb_reset(&sb);
			}
		}
		fwrite(sb.buf, 1, sb.len, out);
	}
	sb_release(&sb);
	free(row);
	free(running);
	free(v);
}

static int text_write(FILE *out, const struct profile *p, const struct report_options *o,
		      struct err *e)
{
	struct report r;
	size_t i;

	if (report_build(p, o, &r, e) < 0)
		return -1;
	/* The format's header lines and the profile's comments come first. */
	if (o->header)
		o->header(out, p, o);
	for (i = 0; i < p->ncomment; i++)
		fprintf(out, "%s\n", p->comment[i]);
	/* Go pprof's --nodecount for text: that many rows, when it is given. */
	if (!o->stacks) {
		/* Nothing can fail now: hundreds of thousands of rows need not be held. */
		output_ready(out);
		report_text(out, &r, o, o->nodecount_set ? o->nodecount : 0);
		report_release(&r);
		return 0;
	}
	/* --stacks: every stack, then (heap) each allocation site, then the rows. */
	report_total(out, &r, o);
	fputs("Stacks:\n\n", out);
	if (report_stacks(out, p, o, e) < 0) {
		report_release(&r);
		return -1;
	}
	if (o->leaks)
		o->leaks(out, p, o);
	report_text_rows(out, &r, o, o->nodecount_set ? o->nodecount : 0);
	report_release(&r);
	return 0;
}

const struct report_format report_text_format = {
	.name = "text",
	.by_names = 1,
	.help = "Generate text report",
	.write = text_write,
};

/* Go pprof's name for the text report. */
const struct report_format report_top_format = {
	.name = "top",
	.by_names = 1,
	.help = "Same as --text (Go pprof's -top)",
	.write = text_write,
};
