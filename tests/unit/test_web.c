/* test_web.c - the web UI without a server: escaping, --http values, pages and query parameters. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "profiles.h"
#include "report.h"
#include "util.h"
#include "web.h"
#include "../../src/web/internal.h"

TEST(escapes)
{
	struct strbuf sb = STRBUF_INIT;

	html_adds(&sb, "a<b>&\"c'd");
	CHECK_STR(sb.buf, "a&lt;b&gt;&amp;&quot;c&#39;d");
	sb_reset(&sb);
	html_add(&sb, "x\0y", 3);
	CHECK_STR(sb.buf, "x\xef\xbf\xbdy");
	sb_reset(&sb);
	url_adds(&sb, "^a b&c=d/é");
	CHECK_STR(sb.buf, "%5Ea%20b%26c%3Dd%2F%C3%A9");
	sb_release(&sb);
}

TEST(addresses)
{
	static const char *const good[] = { ":0", ":8080", "127.0.0.1:0", "localhost:", "[::1]:0",
					    "0.0.0.0:65535" };
	static const char *const bad[] = { "8080", "::1:80", "h:65536", "h:12a", "[::1:0",
					   "h:123456", "a[b:1" };
	struct err e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (!CHECK(web_check_address(good[i], &e) == 0))
			TEST_NOTE("    %s: %s", good[i], e.msg);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (!CHECK(web_check_address(bad[i], &e) < 0))
			TEST_NOTE("    %s accepted", bad[i]);
}

/* main -> <b>&"x' -> leaf, and main -> other. */
static struct profile *markup_profile(void)
{
	struct profile *p = new_profile("samples", "count", NULL);
	const uint64_t deep[] = { 0x30, 0x20, 0x10 }, side[] = { 0x40, 0x10 };

	named_location(p, 0x10, "main", 5, NULL);
	named_location(p, 0x20, "<b>&\"x'", 6, NULL);
	named_location(p, 0x30, "leaf", 7, NULL);
	named_location(p, 0x40, "other", 8, NULL);
	add_stack(p, deep, 3, 7);
	add_stack(p, side, 2, 3);
	return p;
}

static atomic_int stop;

/* Serves path with the query's key=value pairs (decoded); r is the caller's to release. */
static void serve(struct web *w, const char *path, const char *const *kv, struct reply *r)
{
	struct query q = { .n = 0 };

	for (; kv && kv[0]; kv += 2, q.n++) {
		q.arg[q.n].key = kv[0];
		q.arg[q.n].value = kv[1];
	}
	memset(r, 0, sizeof(*r));
	r->status = 200;
	sb_init(&r->body);
	sb_init(&r->location);
	strcpy(r->nonce, "00");
	web_serve(w, path, &q, r);
}

static void release(struct reply *r)
{
	sb_release(&r->body);
	sb_release(&r->location);
}

TEST(pages)
{
	struct profile *p = markup_profile();
	struct web w = { .p = p, .stop = &stop };
	struct report_env env = { 0 };
	struct reply r;

	options_init(&w.base);
	options_init(&w.defaults);
	w.base.report.env = &env;
	/* --no_strip_temp: the name keeps its angle brackets. */
	w.base.report.keep_templates = 1;
	serve(&w, "/ui/top", NULL, &r);
	CHECK_EQ_INT(r.status, 200);
	if (!CHECK(strstr(r.body.buf, "&lt;b&gt;&amp;&quot;x&#39;") != NULL))
		TEST_NOTE("%s", strstr(r.body.buf, "<tbody>"));
	CHECK(strstr(r.body.buf, "<b>&") == NULL);
	CHECK(strstr(r.body.buf, ">leaf<") != NULL);
	release(&r);

	serve(&w, "/ui/top", (const char *const[]){ "f", "other", NULL }, &r);
	CHECK_EQ_INT(r.status, 200);
	CHECK(strstr(r.body.buf, ">leaf<") == NULL);
	CHECK(strstr(r.body.buf, ">other<") != NULL);
	CHECK(strstr(r.body.buf, "value=\"other\"") != NULL);
	release(&r);

	serve(&w, "/ui/top", (const char *const[]){ "i", "leaf", "g", "lines", NULL }, &r);
	CHECK_EQ_INT(r.status, 200);
	CHECK(strstr(r.body.buf, ">leaf ") == NULL);
	CHECK(strstr(r.body.buf, ">other t.c:8<") != NULL);
	release(&r);

	serve(&w, "/ui/top", (const char *const[]){ "zz", "1", NULL }, &r);
	CHECK_EQ_INT(r.status, 400);
	CHECK_STR(r.body.buf, "unknown parameter 'zz'\n");
	release(&r);

	serve(&w, "/ui/top", (const char *const[]){ "f", "(", NULL }, &r);
	CHECK_EQ_INT(r.status, 400);
	CHECK(strstr(r.body.buf, "parameter 'f'") != NULL);
	release(&r);

	serve(&w, "/ui/top", (const char *const[]){ "g", "pages", NULL }, &r);
	CHECK_EQ_INT(r.status, 400);
	release(&r);

	/* Options of the load are not the request's to change. */
	serve(&w, "/ui/top", (const char *const[]){ "dropneg", "t", NULL }, &r);
	CHECK_EQ_INT(r.status, 400);
	release(&r);

	serve(&w, "/ui/top/../top", NULL, &r);
	CHECK_EQ_INT(r.status, 404);
	release(&r);

	serve(&w, "/", (const char *const[]){ "f", "a b", NULL }, &r);
	CHECK_EQ_INT(r.status, 302);
	CHECK_STR(r.location.buf, "/ui/?f=a%20b");
	release(&r);

	serve(&w, "/ui/flamegraph", NULL, &r);
	CHECK_EQ_INT(r.status, report_find_format("flame") ? 200 : 404);
	release(&r);

	serve(&w, "/ui/source", NULL, &r);
	CHECK_EQ_INT(r.status, 200);
	CHECK(strstr(r.body.buf, "class=\"hint\"") != NULL);
	release(&r);

	report_env_release(&env);
	profile_free(p);
}

TEST(start_query)
{
	struct profile *p = markup_profile();
	struct web w = { .p = p, .stop = &stop };
	struct strbuf sb = STRBUF_INIT;

	options_init(&w.base);
	options_init(&w.defaults);
	web_start_query(&w, &sb);
	CHECK_STR(sb.buf, "");
	w.base.report.focus = "a|b";
	w.base.report.granularity = GRAN_LINES;
	web_start_query(&w, &sb);
	CHECK_STR(sb.buf, "?f=a%7Cb&g=lines");
	sb_release(&sb);
	profile_free(p);
}

int main(void)
{
	RUN(escapes);
	RUN(addresses);
	RUN(pages);
	RUN(start_query);
	return test_done();
}
