/* heap.c - reader for gperftools heap and growth profiles ("heap profile:" text). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "reader.h"
#include "strbuf.h"
#include "text.h"
#include "util.h"

/*
 * Sampled profiles are unsampled as gperftools pprof does it, per line and
 * in floating point; the model keeps the estimates in units of 1/2^16
 * (value_scale), so that sums print as pprof's do.
 */
#define HEAP_SCALE ((int64_t)1 << 16)

enum sampling { SAMPLING_NONE, SAMPLING_V1, SAMPLING_V2 };

struct heap_header {
	int64_t n1, s1, n2, s2;  /* in use, allocated: objects, bytes */
	enum sampling sampling;
	double rate;             /* bytes per sample (pprof's sample adjustment) */
	int default_rate;        /* the header gave none: 128 KiB */
};

static int heap_sniff(const unsigned char *buf, size_t len)
{
	/* "heap profile: total N" is a Go count profile (thread.c). */
	return text_header_is(buf, len, "heap profile:") &&
	       !text_header_is(buf, len, "heap profile: total ");
}

/* "N: S" with signed 64-bit counts (heap profilers' totals overflow and go negative). */
static int parse_pair(const char **s, const char *end, int64_t *n, int64_t *sz)
{
	*s = text_skip_blanks(*s, end);
	if (text_int(s, end, 1, n) < 0 || *s >= end || **s != ':')
		return -1;
	*s = text_skip_blanks(*s + 1, end);
	return text_int(s, end, 1, sz);
}

/* "N1: S1 [ N2: S2]": the part common to the header and the sample lines. */
static int parse_counts(const char **s, const char *end, int64_t v[4])
{
	if (parse_pair(s, end, &v[0], &v[1]) < 0)
		return -1;
	*s = text_skip_blanks(*s, end);
	if (*s >= end || **s != '[')
		return -1;
	++*s;
	if (parse_pair(s, end, &v[2], &v[3]) < 0)
		return -1;
	*s = text_skip_blanks(*s, end);
	if (*s >= end || **s != ']')
		return -1;
	++*s;
	return 0;
}

/*
 * The header "heap profile: N1: S1 [ N2: S2] @ TYPE[/RATE]" and pprof's
 * choice of unsampling: none for "heapprofile" and types without "heap"
 * (growth), Poisson (v2) for types with "_v2", else v1 at RATE/2; no type
 * with equal pairs is v1 too.  The default rate is 128 KiB.
 */
static int parse_header(struct text *t, struct heap_header *h)
{
	const char *s = t->line + strlen("heap profile:"), *end = t->line + t->len, *type;
	int64_t v[4], rate = 0;
	int has_rate = 0;

	if (parse_counts(&s, end, v) < 0)
		return text_fail(t, "bad heap profile header (want 'heap profile: N: S [N: S] @ TYPE')");
	h->n1 = v[0], h->s1 = v[1], h->n2 = v[2], h->s2 = v[3];
	h->sampling = SAMPLING_NONE;
	h->rate = 0;
	h->default_rate = 0;
	s = text_skip_blanks(s, end);
	type = s < end && *s == '@' ? text_skip_blanks(s + 1, end) : NULL;
	/* pprof's type is what precedes a '/'; an empty one is no type. */
	if (type && type < end && *type != '/') {
		const char *slash = memchr(type, '/', (size_t)(end - type));
		if (slash) {
			const char *r = slash + 1;

			if (text_int(&r, end, 0, &rate) < 0 || text_skip_blanks(r, end) != end)
				return text_fail(t, "bad sampling rate in the heap profile header");
			has_rate = 1;
		}
		s = slash ? slash : end;
		if ((s - type == 11 && !memcmp(type, "heapprofile", 11)) ||
		    !memmem(type, (size_t)(s - type), "heap", 4)) {
			h->sampling = SAMPLING_NONE;
		} else if (memmem(type, (size_t)(s - type), "_v2", 3)) {
			h->sampling = SAMPLING_V2;
			h->rate = has_rate ? (double)rate : 0;
		} else {
			h->sampling = SAMPLING_V1;
			h->rate = has_rate ? (double)rate / 2 : 0;
		}
	} else if (s < end && !type) {
		return text_fail(t, "bad heap profile header (want '@ TYPE' after the counts)");
	} else if (h->n1 == h->n2 && h->s1 == h->s2) {
		h->sampling = SAMPLING_V1;
	}
	if (h->sampling != SAMPLING_NONE && h->rate == 0) {
		h->rate = 128 * 1024;
		h->default_rate = 1;
	}
	return 0;
}

/* pprof's estimate of what a sample of n objects of s bytes stands for. */
static void unsample(const struct heap_header *h, double *n, double *s)
{
	double ratio;

	if (h->sampling == SAMPLING_NONE || *n == 0 || *s == 0)
		return;
	ratio = *s / *n / h->rate;
	if (h->sampling == SAMPLING_V2) {
		double f = 1 / (1 - exp(-ratio));

		*n *= f;
		*s *= f;
	} else if (ratio < 1 && ratio > 0) {
		*n /= ratio;
		*s /= ratio;
	}
}

/* Where the map text starts: the line after MAPPED_LIBRARIES: or --- Memory map:. */
static int is_map_start(const struct text *t)
{
	return text_starts(t, "MAPPED_LIBRARIES:") || text_starts(t, "--- Memory map:");
}

/*
 * Whether any sample line allocated other than what it holds in use: then
 * the profile has Go's four sample types, else its two (objects, space).
 */
static int has_alloc(const unsigned char *buf, size_t len)
{
	struct text t;
	struct err e;

	text_init(&t, "", buf, len, &e);
	text_header(&t, 1);
	while (text_next(&t) && !is_map_start(&t)) {
		const char *s = t.line;
		int64_t v[4];

		if (parse_counts(&s, t.line + t.len, v) == 0 && (v[0] != v[2] || v[1] != v[3]))
			return 1;
	}
	return 0;
}

static int set_values(struct text *t, const struct heap_header *h, const int64_t raw[4],
		      int four, int64_t *value)
{
	double v[4] = { (double)raw[0], (double)raw[1], (double)raw[2], (double)raw[3] };
	int64_t out[4];
	int i;

	unsample(h, &v[0], &v[1]);
	unsample(h, &v[2], &v[3]);
	for (i = 0; i < 4; i++) {
		if (h->sampling == SAMPLING_NONE) {
			out[i] = raw[i];
			continue;
		}
		v[i] *= (double)HEAP_SCALE;
		if (!(fabs(v[i]) < 0x1p62))
			return text_fail(t, "absurd sample count");
		out[i] = llround(v[i]);
	}
	/* Go's order: allocated before in use. */
	if (four) {
		value[0] = out[2], value[1] = out[3], value[2] = out[0], value[3] = out[1];
	} else {
		value[0] = out[0], value[1] = out[1];
	}
	return 0;
}

static void set_types(struct profile *p, int four, const struct heap_header *h)
{
	static const char *const types4[] = {
		"alloc_objects", "count", "alloc_space", "bytes",
		"inuse_objects", "count", "inuse_space", "bytes",
	};
	static const char *const types2[] = { "objects", "count", "space", "bytes" };

	profile_set_sample_types(p, four ? 4 : 2, four ? types4 : types2);
	p->default_sample_type = profile_intern(p, four ? "inuse_space" : "space");
	p->period_type.type = profile_intern(p, "space");
	p->period_type.unit = profile_intern(p, "bytes");
	p->period = h->sampling == SAMPLING_NONE ? 1 : (int64_t)h->rate;
	p->address_bits = 64;
	if (h->sampling != SAMPLING_NONE)
		p->value_scale = HEAP_SCALE;
	/* What Go's legacy parser prunes from heap profiles, for --proto. */
	p->drop_frames = profile_intern(p,
		"calloc|cfree|malloc|free|memalign|do_memalign|(__)?posix_memalign|pvalloc|valloc|"
		"realloc|tcmalloc::.*|tc_calloc|tc_cfree|tc_malloc|tc_free|tc_memalign|"
		"tc_posix_memalign|tc_pvalloc|tc_valloc|tc_realloc|tc_new|tc_delete|tc_newarray|"
		"tc_deletearray|tc_new_nothrow|tc_newarray_nothrow|malloc_zone_malloc|"
		"malloc_zone_calloc|malloc_zone_valloc|malloc_zone_realloc|malloc_zone_memalign|"
		"malloc_zone_free|runtime\\..*|BaseArena::.*|(::)?do_malloc_no_errno|"
		"(::)?do_malloc_pages|(::)?do_malloc|DoSampledAllocation|"
		"MallocedMemBlock::MallocedMemBlock|_M_allocate|__builtin_(vec_)?delete|"
		"__builtin_(vec_)?new|__gnu_cxx::new_allocator::allocate|__libc_malloc|"
		"__malloc_alloc_template::allocate|allocate|cpp_alloc|operator new(\\[\\])?|"
		"simple_alloc::allocate");
	p->keep_frames = profile_intern(p, "runtime\\.panic|runtime\\.reflectcall|runtime\\.call[0-9]*");
}

static void say_sampling(const struct heap_header *h)
{
	if (h->sampling == SAMPLING_NONE)
		return;
	if (h->default_rate)
		notef("Adjusting heap profiles for 1-in-128KB sampling rate");
	else
		notef("Adjusting heap profiles for 1-in-%lld sampling rate", (long long)h->rate);
	if (h->sampling == SAMPLING_V2)
		notef("Heap version 2");
}

static int heap_read(const char *name, const unsigned char *buf, size_t len,
		     const struct read_options *ro, struct profile *p, struct err *e)
{
	struct heap_header h;
	struct text t;
	struct stack_builder *sb = NULL;
	size_t naddr, maplen = 0;
	const char *map = NULL;
	int four = has_alloc(buf, len), ret = -1;

	text_init(&t, name, buf, len, e);
	if (!text_header(&t, 0))
		return err_set(e, "%s: no heap profile header", name);
	if (parse_header(&t, &h) < 0)
		return -1;
	set_types(p, four, &h);
	sb = stack_builder_begin(p);
	while (text_next(&t)) {
		const char *s = t.line, *end = t.line + t.len, *at;
		int64_t raw[4], value[4];

		if (is_map_start(&t)) {
			text_next(&t);
			map = text_rest(&t, &maplen);
			break;
		}
		if (text_skip_blanks(s, end) == end)
			continue;
		if (parse_counts(&s, end, raw) < 0 || (at = text_skip_blanks(s, end)) == end ||
		    *at != '@') {
			text_fail(&t, "not a heap sample line (want 'N: S [N: S] @ ADDRESS...')");
			goto out;
		}
		if (!text_stack(&t, sb, at + 1, end, ro && ro->raw_addresses ? TEXT_RAW : 1, &naddr))
			goto out;
		/* pprof skips a sample without a stack (Go's heap profiles have them). */
		if (!naddr)
			continue;
		if (set_values(&t, &h, raw, four, value) < 0)
			goto out;
		stack_builder_commit(sb, naddr, value);
	}
	/* The samples are all in before the mappings are given to the locations. */
	stack_builder_end(sb);
	sb = NULL;
	reader_maps(p, name, map, maplen);
	say_sampling(&h);
	ret = 0;
out:
	stack_builder_end(sb);
	return ret;
}

/* --inuse_space and the like; on a profile of objects and space alone, in use and allocated are one. */
static void heap_pick(const struct profile *p, const struct report_options *o, int *index,
		      int *mean)
{
	static const int four[] = { 3, 2, 1, 0 }, two[] = { 1, 0, 1, 0 };

	*mean = 0;
	if (o->sample_index_set || o->heap_value < 0 || o->heap_value > 3)
		return;
	if (p->nsample_type == 4)
		*index = four[o->heap_value];
	else if (p->nsample_type == 2)
		*index = two[o->heap_value];
}

/* gperftools pprof's units: objects, or MB with one decimal, or B with --show_bytes. */
static void heap_style(const struct profile *p, int si, const struct report_options *o,
		       struct value_style *vs)
{
	double scale = (double)profile_value_scale(p);

	if (o->unit)
		return report_measured_style(p, si, o, vs);
	memset(vs, 0, sizeof(*vs));
	vs->divisor = scale;
	if (si >= 0 && (size_t)si < p->nsample_type && !strcmp(p->sample_type[si].unit, "count")) {
		vs->unit = "objects";
		vs->whole = 1;
	} else if (o->show_bytes) {
		vs->unit = "B";
		vs->whole = 1;
	} else {
		vs->unit = "MB";
		vs->divisor = 1048576.0 * scale;
		vs->decimals = 1;
	}
}

/* A count as Perl prints the number: whole numbers as such, else 15 significant digits. */
static void perl_number(struct strbuf *sb, int64_t v, int64_t scale)
{
	if (scale <= 1 || v % scale == 0)
		sb_addf(sb, "%lld", (long long)(scale > 1 ? v / scale : v));
	else
		sb_addf(sb, "%.15g", (double)v / (double)scale);
}

struct leak {
	const struct sample *s;
	int64_t bytes;
	size_t order;
};

static int cmp_leak(const void *a, const void *b)
{
	const struct leak *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* "\t@ ADDR SHORT FILE:LINE" for one frame, as pprof's leak list names it. */
static void leak_frame(FILE *out, const struct location *l, int leaf, int keep_templates,
		       struct strbuf *sb)
{
	char a[32];

	/* The leaf keeps its text from the file, which never matches pprof's padded keys. */
	snprintf(a, sizeof(a), leaf ? "%llx" : "%016llx", (unsigned long long)l->address);
	fprintf(out, "\t@ %s ", a);
	if (strlen(a) != 16 || (!l->nline && !l->tried)) {
		fprintf(out, "unknown\n");
	} else if (!l->nline) {
		fprintf(out, "?? ??:0\n");
	} else {
		const struct line *ln = &l->line[l->nline - 1];
		const char *file = ln->function->filename;

		short_function_name(ln->function->name, keep_templates, sb);
		if (!strcmp(file, "?"))
			fprintf(out, "%s ?\n", sb->buf);
		else
			fprintf(out, "%s %s:%lld\n", sb->buf, file[0] ? file : "??",
				(long long)ln->line);
	}
}

/*
 * --stacks: pprof's leak list, each sample by bytes in use, largest first
 * ("Leak of S bytes in N objects allocated from:" and its frames).
 */
static void heap_leaks(FILE *out, const struct profile *p, const struct report_options *o)
{
	struct strbuf sb = STRBUF_INIT;
	struct leak *v = xcalloc(p->nsample + 1, sizeof(*v));
	int in = p->nsample_type == 4 ? 2 : 0;
	size_t i, j;

	if (!p->nsample || p->nsample_type < 2)
		goto out;
	for (i = 0; i < p->nsample; i++) {
		v[i].s = p->sample[i];
		v[i].bytes = sample_value(p->sample[i])[in + 1];
		v[i].order = i;
	}
	qsort(v, p->nsample, sizeof(*v), cmp_leak);
	for (i = 0; i < p->nsample; i++) {
		const struct sample *s = v[i].s;

		sb_reset(&sb);
		sb_adds(&sb, "Leak of ");
		perl_number(&sb, sample_value(s)[in + 1], p->value_scale);
		sb_adds(&sb, " bytes in ");
		perl_number(&sb, sample_value(s)[in], p->value_scale);
		fprintf(out, "%s objects allocated from:\n", sb.buf);
		for (j = 0; j < s->nlocation; j++)
			leak_frame(out, sample_location(p, s, j), j == 0, o->keep_templates, &sb);
	}
	fputc('\n', out);
out:
	free(v);
	sb_release(&sb);
}

struct share {
	int64_t rem;
	size_t i;
};

static int cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Whole numbers for fixed-point values v[0..n) (stride apart): each rounded
 * down, then those with the largest fractions up, so that they add up to
 * the whole part of their sum, which gperftools pprof prints.
 */
static void apportion(const int64_t *v, size_t stride, size_t n, int64_t scale, int64_t *out)
{
	struct share *sh = xcalloc(n + 1, sizeof(*sh));
	int64_t total = 0, sum = 0, target;
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t x = v[i * stride], f = x / scale - (x % scale < 0);

		total = sat_add(total, x);
		out[i] = f;
		sum += f;
		sh[i].rem = x - f * scale;
		sh[i].i = i;
	}
	target = total / scale;
	qsort(sh, n, sizeof(*sh), cmp_share);
	for (i = 0; i < n && sum < target; i++, sum++)
		out[sh[i].i]++;
	free(sh);
}

/*
 * --raw's profile section: the heap profile's text with whole numbers,
 * which gperftools pprof reads unscaled ("@ heapprofile").
 */
static int heap_raw(FILE *out, const struct profile *q, const uint64_t *addr,
		    const struct report_options *o, struct err *e)
{
	int four = q->nsample_type == 4;
	int64_t scale = profile_value_scale(q), tot[4] = { 0 };
	/* The columns of the text: in use, then allocated. */
	size_t col[4] = { four ? 2 : 0, four ? 3 : 1, 0, 1 }, i, j, k;
	int64_t *w = xcalloc(4 * q->nsample + 1, sizeof(*w)), *v;

	if (q->nsample_type != 2 && !four) {
		free(w);
		return err_set(e, "--raw: a heap profile with %zu sample types", q->nsample_type);
	}
	v = xcalloc(q->nsample + 1, sizeof(*v));
	for (k = 0; k < 4; k++) {
		for (i = 0; i < q->nsample; i++)
			v[i] = sample_value(q->sample[i])[col[k]];
		apportion(v, 1, q->nsample, scale, v);
		for (i = 0; i < q->nsample; i++) {
			w[4 * i + k] = v[i];
			tot[k] = sat_add(tot[k], v[i]);
		}
	}
	fprintf(out, "heap profile: %6lld: %8lld [%6lld: %8lld] @ heapprofile\n", (long long)tot[0],
		(long long)tot[1], (long long)tot[2], (long long)tot[3]);
	for (i = 0; i < q->nsample; i++) {
		const struct sample *s = q->sample[i];

		if (!s->nlocation)
			continue;
		fprintf(out, "%6lld: %8lld [%6lld: %8lld] @", (long long)w[4 * i], (long long)w[4 * i + 1],
			(long long)w[4 * i + 2], (long long)w[4 * i + 3]);
		for (j = 0; j < s->nlocation; j++)
			fprintf(out, " 0x%llx", (unsigned long long)addr[sample_stack(s)[j]]);
		fputc('\n', out);
	}
	free(v);
	free(w);
	return 0;
}

/* gperftools pprof's allocator frames, each also with the '_' of Mach-O symbols. */
static const char *const heap_names[] = {
	"calloc", "_calloc", "cfree", "_cfree", "malloc", "_malloc", "free", "_free",
	"memalign", "_memalign", "posix_memalign", "_posix_memalign", "pvalloc", "_pvalloc",
	"valloc", "_valloc", "realloc", "_realloc", "tc_calloc", "_tc_calloc", "tc_cfree",
	"_tc_cfree", "tc_malloc", "_tc_malloc", "tc_free", "_tc_free", "tc_memalign",
	"_tc_memalign", "tc_posix_memalign", "_tc_posix_memalign", "tc_pvalloc", "_tc_pvalloc",
	"tc_valloc", "_tc_valloc", "tc_realloc", "_tc_realloc", "tc_new", "_tc_new",
	"tc_delete", "_tc_delete", "tc_newarray", "_tc_newarray", "tc_deletearray",
	"_tc_deletearray", "tc_new_nothrow", "_tc_new_nothrow", "tc_newarray_nothrow",
	"_tc_newarray_nothrow", "do_malloc", "_do_malloc", "::do_malloc", "_::do_malloc",
	"::do_malloc_or_cpp_alloc", "_::do_malloc_or_cpp_alloc", "DoSampledAllocation",
	"_DoSampledAllocation", "simple_alloc::allocate", "_simple_alloc::allocate",
	"__malloc_alloc_template::allocate", "___malloc_alloc_template::allocate",
	"__builtin_delete", "___builtin_delete", "__builtin_new", "___builtin_new",
	"__builtin_vec_delete", "___builtin_vec_delete", "__builtin_vec_new",
	"___builtin_vec_new", "operator new", "_operator new", "operator new[]",
	"_operator new[]", "malloc_zone_malloc", "_malloc_zone_malloc", "malloc_zone_calloc",
	"_malloc_zone_calloc", "malloc_zone_valloc", "_malloc_zone_valloc",
	"malloc_zone_realloc", "_malloc_zone_realloc", "malloc_zone_memalign",
	"_malloc_zone_memalign", "malloc_zone_free", "_malloc_zone_free",
	"__start_google_malloc", "___start_google_malloc", "__stop_google_malloc",
	"___stop_google_malloc", "__start_malloc_hook", "___start_malloc_hook",
	"__stop_malloc_hook", "___stop_malloc_hook", NULL,
};

static const struct frame_rules heap_frames = {
	.names = heap_names,
	.regex = "TCMalloc|^tcmalloc::",
};

const struct reader reader_heap = {
	.name = "gperftools heap profile",
	.sniff = heap_sniff,
	.read = heap_read,
	.frames = &heap_frames,
	.style = heap_style,
	.pick = heap_pick,
	.leaks = heap_leaks,
	.raw_body = heap_raw,
};
