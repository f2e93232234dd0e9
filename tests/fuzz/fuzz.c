/* fuzz.c - the harnesses' shared part: reading with one reader, and using what it read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "options.h"
#include "proto.h"

FILE *fuzz_null(void)
{
	static FILE *null;

	if (!null && !(null = fopen("/dev/null", "w"))) {
		perror("fuzz: /dev/null");
		abort();
	}
	return null;
}

const char *fuzz_testdata(const char *rel)
{
	static char path[4096];
	const char *top = getenv("TESTDATA");

	snprintf(path, sizeof(path), "%s/%s", top && *top ? top : "testdata", rel);
	return path;
}

/* A finding that is no crash: a broken promise between two parts of the program. */
static void broken(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, detail);
	abort();
}

int fuzz_default_index(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nsample_type; i++)
		if (!strcmp(p->sample_type[i].type, p->default_sample_type))
			return (int)i;
	return p->nsample_type ? (int)p->nsample_type - 1 : 0;
}

/* profile.proto as the writer writes it must read back, with every sample. */
static void round_trip(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct profile *q;
	struct err e = { { 0 } };

	if (!mem)
		broken("open_memstream", "out of memory");
	if (proto_write(mem, p, &e) < 0)
		broken("writing profile.proto", e.msg);
	fclose(mem);
	q = profile_new();
	if (proto_read_buffer("round trip", (unsigned char *)buf, len, PROTO_MAX_INFLATED, q, &e) < 0)
		broken("reading back the profile.proto written", e.msg);
	if (q->nsample != p->nsample || q->nsample_type != p->nsample_type ||
	    q->nlocation != p->nlocation || q->nmapping != p->nmapping)
		broken("reading back the profile.proto written", "the profile differs");
	profile_free(q);
	free(buf);
}

void fuzz_exercise(const struct profile *p, const struct reader *r)
{
	struct options o;
	struct report_options *ro = &o.report;
	struct profile *q;
	struct err e = { { 0 } };

	if (p->nsample + p->nlocation > FUZZ_REPORT_MAX)
		return;
	options_init(&o);
	ro->quiet = 1;
	ro->frames = r->frames;
	ro->style = r->style;
	ro->header = r->header;
	/* The default value by function, then the first by address, sorted by cum. */
	ro->sample_index = fuzz_default_index(p);
	report_text_format.write(fuzz_null(), p, ro, &e);
	ro->sample_index = 0;
	ro->granularity = GRAN_ADDRESSES;
	ro->cum = 1;
	report_text_format.write(fuzz_null(), p, ro, &e);
	round_trip(p);
	q = profile_new_like(p);
	profile_merge(q, p, 1);
	profile_merge(q, p, 1);
	profile_subtract(q, p, 1);
	profile_free(q);
}

void fuzz_report(const struct profile *p, const struct reader *r,
		 const struct symbolize_options *so, const char *const *argv)
{
	const struct report_format *fmt;
	struct report_env env = { 0 };
	struct options o;
	struct report_options *ro = &o.report;
	struct err e = { { 0 } };
	int argc;

	for (argc = 0; argv[argc]; argc++)
		;
	if (options_parse(&o, argc, (char **)argv, &e) < 0)
		broken("the harness's options", e.msg);
	fmt = o.format ? o.format : &report_text_format;
	ro->quiet = 1;
	ro->program = so ? so->program : NULL;
	ro->regex = o.format_arg;
	ro->symbolize = so;
	ro->env = &env;
	ro->frames = r->frames;
	ro->style = r->style;
	ro->header = r->header;
	ro->sample_index = fuzz_default_index(p);
	fmt->write(fuzz_null(), p, ro, &e);
	report_env_release(&env);
	free(o.args);
}

/* Whether two profiles have the same samples (in order), values and locations. */
static int same_samples(const struct profile *a, const struct profile *b)
{
	size_t i, j;

	if (a->nsample != b->nsample || a->nlocation != b->nlocation ||
	    a->nmapping != b->nmapping || a->nsample_type != b->nsample_type)
		return 0;
	for (i = 0; i < a->nlocation; i++)
		if (a->location[i]->address != b->location[i]->address)
			return 0;
	for (i = 0; i < a->nsample; i++) {
		const struct sample *s = a->sample[i], *t = b->sample[i];

		if (s->nlocation != t->nlocation)
			return 0;
		for (j = 0; j < s->nlocation; j++)
			if (sample_stack(s)[j] != sample_stack(t)[j])
				return 0;
		for (j = 0; j < a->nsample_type; j++)
			if (sample_value(s)[j] != sample_value(t)[j])
				return 0;
	}
	return 1;
}

/*
 * A reader's add hook, given the input a second time: what it adds must
 * be what merging the input read alone gives.
 */
static void add_twice(const struct reader *r, const struct read_options *ro, const uint8_t *data,
		      size_t size, const struct profile *p)
{
	struct profile *added = profile_new(), *merged = profile_new();
	struct err e = { { 0 } };
	int rc;

	if (r->read("fuzz", data, size, ro, added, &e) < 0 ||
	    r->read("fuzz", data, size, ro, merged, &e) < 0)
		broken("a second read of the same input", e.msg);
	rc = reader_add_buffer("fuzz", data, size, ro, r, added, &e);
	if (rc < 0 && strncmp(e.msg, "fuzz", 4))
		broken("a reader's message does not name the file", e.msg);
	if (rc > 0) {
		profile_merge(merged, p, 1);
		if (!same_samples(added, merged))
			broken("adding an input to its own profile", "differs from merging it");
	}
	profile_free(added);
	profile_free(merged);
}

int fuzz_reader(const struct reader *r, const struct read_options *ro, const uint8_t *data,
		size_t size)
{
	struct profile *p;
	struct err e = { { 0 } };

	/* reader_load_buffer's contract: a reader reads only what its sniff claimed. */
	if (!size || !r->sniff(data, size))
		return 0;
	p = profile_new();
	if (r->read("fuzz", data, size, ro, p, &e) == 0) {
		if (r->add)
			add_twice(r, ro, data, size, p);
		fuzz_exercise(p, r);
	} else if (strncmp(e.msg, "fuzz", 4))
		broken("a reader's message does not name the file", e.msg);
	profile_free(p);
	return 0;
}
