/* fetch.c - remote profiles: parsing host:port arguments, HTTP with libcurl, saving what was fetched. */
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dynlib.h"
#include "fetch.h"
#include "util.h"

/* libcurl, opened at the first request (dynlib.h). */
static struct {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	void (*easy_reset)(CURL *c);
	void (*easy_cleanup)(CURL *c);
	const char *(*easy_strerror)(CURLcode rc);
} lc;

static const struct dynsym curl_syms[] = {
	{ "curl_global_init", (void **)&lc.global_init },
	{ "curl_global_cleanup", (void **)&lc.global_cleanup },
	{ "curl_easy_init", (void **)&lc.easy_init },
	{ "curl_easy_setopt", (void **)&lc.easy_setopt },
	{ "curl_easy_perform", (void **)&lc.easy_perform },
	{ "curl_easy_getinfo", (void **)&lc.easy_getinfo },
	{ "curl_easy_reset", (void **)&lc.easy_reset },
	{ "curl_easy_cleanup", (void **)&lc.easy_cleanup },
	{ "curl_easy_strerror", (void **)&lc.easy_strerror },
	{ NULL, NULL },
};

static const char *const curl_names[] = {
	"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so", NULL,
};
static struct dynlib libcurl = { .names = curl_names, .syms = curl_syms };

/*
 * The pages a profile argument may end with (after /pprof/), as
 * gperftools pprof knows them, and Go's net/http/pprof ones.  The first
 * two are collected over --seconds.
 */
static const char *const pages[] = {
	"profile", "pmuprofile", "heap", "growth", "contention", "wall", "filteredprofile",
	"censusprofile", "allocs", "mutex", "block", "goroutine", "threadcreate", NULL,
};

static int has_scheme(const char *arg)
{
	return !strncmp(arg, "http://", 7) || !strncmp(arg, "https://", 8);
}

int remote_is(const char *arg)
{
	struct stat st;
	size_t n = strcspn(arg, "/?#");
	const char *colon;

	if (has_scheme(arg))
		return 1;
	if (stat(arg, &st) == 0 || n == 0)
		return 0;
	/* host:port, [v6]:port */
	colon = memrchr(arg, ':', n);
	if (!colon || colon == arg || colon + 1 == arg + n)
		return 0;
	for (const char *p = colon + 1; p < arg + n; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

/* Length of the page at s when s is "/pprof/NAME[?QUERY]" to its end, else 0; *cpu for CPU pages. */
static int is_page(const char *s, int *cpu)
{
	size_t i, n;

	if (strncmp(s, "/pprof/", 7))
		return 0;
	s += 7;
	for (i = 0; pages[i]; i++) {
		n = strlen(pages[i]);
		if (!strncmp(s, pages[i], n) && (s[n] == '\0' || s[n] == '?')) {
			*cpu = i < 2;
			return 1;
		}
	}
	return 0;
}

/* For file names: letters, digits and ._+- kept, anything else '_'. */
static char *file_safe(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = isalnum((unsigned char)s[i]) || strchr("._+-", s[i]) ? s[i] : '_';
	out[n] = '\0';
	return out;
}

int remote_parse(const char *arg, struct remote *r, struct err *e)
{
	const char *scheme = "http://", *auth = arg, *at, *host, *path, *p;
	struct strbuf sb = STRBUF_INIT;
	size_t nauth, nhost;

	memset(r, 0, sizeof(*r));
	if (has_scheme(arg)) {
		scheme = arg[4] == 's' ? "https://" : "http://";
		auth = arg + strlen(scheme);
	}
	nauth = strcspn(auth, "/?#");
	if (nauth == 0)
		return err_set(e, "'%s': no host in the address", arg);
	path = auth + nauth;
	/* Credentials stay out of messages and file names. */
	at = memrchr(auth, '@', nauth);
	host = at ? at + 1 : auth;
	if (*host == '[') {
		const char *close = memchr(host, ']', (size_t)(auth + nauth - host));

		nhost = close ? (size_t)(close - host) + 1 : (size_t)(auth + nauth - host);
	} else {
		nhost = strcspn(host, ":/?#");
	}
	if (nhost == 0)
		return err_set(e, "'%s': no host in the address", arg);
	r->host = file_safe(host, nhost);
	/* The shortest prefix that leaves a known page (or "/"), as gperftools pprof splits. */
	for (p = path; *p; p++) {
		if (!strcmp(p, "/") || is_page(p, &r->cpu))
			break;
	}
	if (!*p || !strcmp(p, "/")) {
		r->page = xstrdup("/pprof/profile");
		r->cpu = 1;
	} else {
		r->page = xstrdup(p);
	}
	sb_addf(&sb, "%s%.*s%.*s", scheme, (int)nauth, auth, (int)(p - path), path);
	r->base = xstrdup(sb.buf);
	sb_reset(&sb);
	sb_addf(&sb, "%s%.*s%.*s", scheme, (int)(auth + nauth - host), host, (int)(p - path), path);
	r->shown = sb.buf;
	return 0;
}

void remote_release(struct remote *r)
{
	free(r->base);
	free(r->shown);
	free(r->page);
	free(r->host);
	memset(r, 0, sizeof(*r));
}

struct fetcher {
	struct fetch_options o;
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	time_t started;        /* in saved file names, one time per run */
	struct remote server;  /* whose /pprof/symbol names addresses */
	char *program;         /* its /pprof/cmdline */
	struct symbol_server symbols;
	int have_server;
};

/* One request's state, seen by libcurl's callbacks. */
struct transfer {
	struct fetcher *f;
	struct strbuf *body;
	struct strbuf status;  /* the last status line: "404 Not Found" */
	int too_big;
	/* The line on a terminal: the URL, and the seconds of a CPU profile. */
	const char *shown;
	int seconds, left;
	struct timespec t0;
	int drawn;
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct transfer *t = ctx;

	n *= size;
	if (t->body->len + n > t->f->o.max_size) {
		t->too_big = 1;
		return 0;
	}
	sb_add(t->body, data, n);
	return n;
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
	struct transfer *t = ctx;
	size_t len = size * n, k;

	/* "HTTP/1.1 404 Not Found": keep what follows the version. */
	if (len > 5 && !memcmp(data, "HTTP/", 5)) {
		const char *sp = memchr(data, ' ', len);

		sb_reset(&t->status);
		if (sp)
			for (k = (size_t)(sp + 1 - data); k < len && data[k] != '\r' && data[k] != '\n'; k++)
				sb_addc(&t->status, isprint((unsigned char)data[k]) ? data[k] : '?');
	}
	return len;
}

static void draw(struct transfer *t)
{
	if (t->seconds > 0)
		fprintf(stderr, "\rCollecting a %d-second profile from %s: %d s left \033[K",
			t->seconds, t->shown, t->left);
	else
		fprintf(stderr, "\rFetching %s \033[K", t->shown);
	t->drawn = 1;
}

static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct transfer *t = ctx;
	struct timespec now;
	long left;

	if (interrupted)
		return 1;
	if (!t->shown)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	left = t->seconds - (long)(now.tv_sec - t->t0.tv_sec);
	if (left < 0)
		left = 0;
	if (!t->drawn || left != t->left) {
		t->left = (int)left;
		draw(t);
	}
	return 0;
}

/* The first line of a short text reply, for an error message ("" when none fits). */
static void reply_line(const struct strbuf *body, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < body->len && i < 200 && body->buf[i] != '\n' && body->buf[i] != '\r'; i++) {
		if (!isprint((unsigned char)body->buf[i])) {
			sb_reset(out);
			return;
		}
		sb_addc(out, body->buf[i]);
	}
}

/* What failed, once the transfer is over: -1 with e set, or 0 for a 200 reply. */
static int transfer_result(struct transfer *t, CURLcode rc, const char *shown, struct err *e)
{
	struct strbuf line = STRBUF_INIT;
	long code = 0;

	if (rc == CURLE_WRITE_ERROR && t->too_big)
		return err_set(e, "%s: the reply is larger than %zu bytes (--max_input)", shown,
			       t->f->o.max_size);
	if (rc == CURLE_FILESIZE_EXCEEDED)
		return err_set(e, "%s: the reply would be larger than %zu bytes (--max_input)",
			       shown, t->f->o.max_size);
	if (rc == CURLE_ABORTED_BY_CALLBACK && interrupted)
		return err_set(e, "%s: interrupted", shown);
	if (rc != CURLE_OK) {
		char *why = t->f->errbuf;
		size_t n;

		if (!why[0])
			snprintf(why, CURL_ERROR_SIZE, "%s", lc.easy_strerror(rc));
		n = strlen(why);
		while (n > 0 && isspace((unsigned char)why[n - 1]))
			why[--n] = '\0';
		/* Our messages start in lowercase, but "OpenSSL" or "SSL_connect" stay. */
		for (n = 1; why[n] && !isspace((unsigned char)why[n]); n++)
			if (isupper((unsigned char)why[n]))
				break;
		if (!why[n] || isspace((unsigned char)why[n]))
			why[0] = (char)tolower((unsigned char)why[0]);
		return err_set(e, "%s: %s", shown, why);
	}
	lc.easy_getinfo(t->f->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code == 200)
		return 0;
	reply_line(t->body, &line);
	err_set(e, "%s: the server answered %s%s%s", shown,
		t->status.len ? t->status.buf : "without a status", line.len ? ": " : "", line.buf);
	sb_release(&line);
	return -1;
}

/*
 * GET url (POST when post is not NULL) into body.  shown is the URL for
 * messages; seconds > 0 draws a countdown on a terminal.
 */
static int request(struct fetcher *f, const char *url, const char *shown, const char *post,
		   size_t npost, long timeout, int seconds, struct strbuf *body, struct err *e)
{
	struct transfer t = { .f = f, .body = body, .status = STRBUF_INIT, .seconds = seconds };
	struct sigaction sa = { 0 }, old;
	CURL *c = f->curl;
	CURLcode rc;
	int r;

	sb_reset(body);
	if (isatty(STDERR_FILENO) && seconds >= 0)
		t.shown = shown;
	clock_gettime(CLOCK_MONOTONIC, &t.t0);
	lc.easy_reset(c);
	f->errbuf[0] = '\0';
	lc.easy_setopt(c, CURLOPT_URL, url);
	lc.easy_setopt(c, CURLOPT_ERRORBUFFER, f->errbuf);
	lc.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	lc.easy_setopt(c, CURLOPT_USERAGENT, "pprof");
	lc.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	lc.easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	lc.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	lc.easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	/* A redirected POST stays a POST (gperftools pprof resolves the redirect first). */
	lc.easy_setopt(c, CURLOPT_POSTREDIR, (long)CURL_REDIR_POST_ALL);
	lc.easy_setopt(c, CURLOPT_TIMEOUT, timeout);
	lc.easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)f->o.max_size);
	lc.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	lc.easy_setopt(c, CURLOPT_WRITEDATA, &t);
	lc.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	lc.easy_setopt(c, CURLOPT_HEADERDATA, &t);
	lc.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	lc.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	lc.easy_setopt(c, CURLOPT_XFERINFODATA, &t);
	if (post) {
		lc.easy_setopt(c, CURLOPT_POSTFIELDS, post);
		lc.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)npost);
	}
	/* Ctrl-C ends the transfer, not the program: nothing is left half-saved. */
	interrupted = 0;
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	rc = lc.easy_perform(c);
	sigaction(SIGINT, &old, NULL);
	if (t.drawn)
		fputs("\r\033[K", stderr);
	r = transfer_result(&t, rc, shown, e);
	sb_release(&t.status);
	return r;
}

struct fetcher *fetcher_new(const struct fetch_options *o)
{
	struct fetcher *f = xcalloc(1, sizeof(*f));

	f->o = *o;
	f->started = time(NULL);
	return f;
}

/* The handle, made at the first request: runs without remote profiles never start libcurl. */
static int fetcher_start(struct fetcher *f, struct err *e)
{
	if (f->curl)
		return 0;
	if (dynlib_load(&libcurl, e) < 0)
		return -1;
	if (lc.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return err_set(e, "cannot start libcurl");
	if (!(f->curl = lc.easy_init())) {
		lc.global_cleanup();
		return err_set(e, "cannot start libcurl");
	}
	return 0;
}

void fetcher_free(struct fetcher *f)
{
	if (!f)
		return;
	if (f->curl) {
		lc.easy_cleanup(f->curl);
		lc.global_cleanup();
	}
	remote_release(&f->server);
	free(f->program);
	free(f);
}

/* A page of the server: base + "/pprof/" + name, and its form for messages. */
static void page_urls(const struct remote *r, const char *name, struct strbuf *url,
		      struct strbuf *shown)
{
	sb_reset(url);
	sb_reset(shown);
	sb_addf(url, "%s/pprof/%s", r->base, name);
	sb_addf(shown, "%s/pprof/%s", r->shown, name);
}

static long short_timeout(const struct fetcher *f)
{
	return f->o.timeout > 0 ? f->o.timeout : 60;
}

static int post_symbols(void *ctx, const char *body, size_t len, struct strbuf *reply,
			struct err *e)
{
	struct fetcher *f = ctx;
	struct strbuf url = STRBUF_INIT, shown = STRBUF_INIT;
	int r;

	page_urls(&f->server, "symbol", &url, &shown);
	r = request(f, url.buf, shown.buf, body, len, short_timeout(f), -1, reply, e);
	sb_release(&url);
	sb_release(&shown);
	return r;
}

/* gperftools pprof's check: "num_symbols: N" with N > 0 on the symbol page's first line. */
static int check_symbols(const struct strbuf *body, const char *shown, struct err *e)
{
	const char *s = body->buf, *p;
	size_t n = strcspn(s, "\r\n");

	if (body->len == 0)
		return err_set(e, "%s: empty reply, no symbol page", shown);
	if (n < 12 || memcmp(s, "num_symbols:", 12))
		return err_set(e, "%s: no 'num_symbols: N' line: not a symbol page", shown);
	for (p = s + 12; p < s + n && isspace((unsigned char)*p); p++)
		;
	if (p == s + 12 || p == s + n || strspn(p, "0123456789") != (size_t)(s + n - p))
		return err_set(e, "%s: no 'num_symbols: N' line: not a symbol page", shown);
	if (strspn(p, "0") == (size_t)(s + n - p))
		return err_set(e, "%s: the server has no symbols (a stripped binary)", shown);
	return 0;
}

const char *fetcher_program(struct fetcher *f, const char *arg, struct err *e)
{
	struct strbuf url = STRBUF_INIT, shown = STRBUF_INIT, body = STRBUF_INIT;
	const char *ret = NULL;
	size_t n;

	if (fetcher_start(f, e) < 0)
		return NULL;
	remote_release(&f->server);
	if (remote_parse(arg, &f->server, e) < 0)
		goto done;
	page_urls(&f->server, "symbol", &url, &shown);
	if (request(f, url.buf, shown.buf, NULL, 0, short_timeout(f), -1, &body, e) < 0 ||
	    check_symbols(&body, shown.buf, e) < 0)
		goto done;
	page_urls(&f->server, "cmdline", &url, &shown);
	if (request(f, url.buf, shown.buf, NULL, 0, short_timeout(f), -1, &body, e) < 0)
		goto done;
	/* The first line, up to the NUL that ends argv[0]. */
	n = strcspn(body.buf, "\r\n");
	if (memchr(body.buf, '\0', n))
		n = strlen(body.buf);
	if (n == 0) {
		err_set(e, "%s: empty reply, no program name", shown.buf);
		goto done;
	}
	free(f->program);
	f->program = xmalloc(n + 1);
	memcpy(f->program, body.buf, n);
	f->program[n] = '\0';
	f->symbols.post = post_symbols;
	f->symbols.ctx = f;
	f->have_server = 1;
	ret = f->program;
done:
	sb_release(&url);
	sb_release(&shown);
	sb_release(&body);
	return ret;
}

const struct symbol_server *fetcher_symbols(struct fetcher *f)
{
	return f && f->have_server ? &f->symbols : NULL;
}

/* The directory fetched profiles go to, created when missing (Go pprof's order of fallbacks). */
static char *profile_dir(struct err *e)
{
	const char *env = getenv("PPROF_TMPDIR"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	struct strbuf dirs[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	char *ret = NULL;
	int i, err = 0;

	if (env && *env)
		sb_adds(&dirs[0], env);
	if (home && *home)
		sb_addf(&dirs[1], "%s/pprof", home);
	sb_adds(&dirs[2], tmp && *tmp ? tmp : "/tmp");
	for (i = 0; i < 3 && !ret; i++) {
		struct stat st;

		if (!dirs[i].len)
			continue;
		if (make_dirs(dirs[i].buf, 0755) < 0)
			err = errno;
		if (stat(dirs[i].buf, &st) == 0 && S_ISDIR(st.st_mode) && access(dirs[i].buf, W_OK) == 0)
			ret = xstrdup(dirs[i].buf);
		else if (!err)
			err = EACCES;
	}
	if (!ret)
		err_set(e, "cannot make a directory for fetched profiles ($PPROF_TMPDIR, $HOME/pprof): %s",
			strerror(err));
	for (i = 0; i < 3; i++)
		sb_release(&dirs[i]);
	return ret;
}

/*
 * Writes body to DIR/PROGRAM.TIME.HOST[SUFFIX] (".1", ".2"... appended when
 * taken), through a temporary file renamed into place.
 */
static int save(struct fetcher *f, const struct remote *r, const char *program,
		const struct strbuf *body, struct strbuf *path, struct err *e)
{
	struct strbuf name = STRBUF_INIT, tmp = STRBUF_INIT;
	const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
	char *dir, *safe;
	int fd, k, status = -1;

	if (!(dir = profile_dir(e)))
		return -1;
	safe = file_safe(base, strlen(base));
	sb_addf(&name, "%s/%s.%lld.%s", dir, safe[0] ? safe : "unknown", (long long)f->started, r->host);
	free(safe);
	if (!r->cpu) {
		char *page = file_safe(r->page, strcspn(r->page, "?"));

		for (char *p = page; *p; p++)
			if (*p == '_')
				*p = '.';
		sb_adds(&name, page);
		free(page);
	}
	sb_adds(path, name.buf);
	for (k = 1; access(path->buf, F_OK) == 0 && k < 1000; k++) {
		sb_reset(path);
		sb_addf(path, "%s.%d", name.buf, k);
	}
	sb_addf(&tmp, "%s/.tmp.%s", dir, strrchr(path->buf, '/') + 1);
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, body->buf, body->len) != (ssize_t)body->len || close(fd) < 0 ||
	    rename(tmp.buf, path->buf) < 0) {
		err_set(e, "cannot save the profile as '%s': %s", path->buf, strerror(errno));
		unlink(tmp.buf);
	} else {
		status = 0;
	}
	free(dir);
	sb_release(&name);
	sb_release(&tmp);
	return status;
}

/* The seconds a CPU page's query asks for, or -1. */
static int query_seconds(const char *page)
{
	const char *q = strchr(page, '?'), *s;

	for (s = q; s && (s = strstr(s, "seconds=")); s++)
		if (s[-1] == '?' || s[-1] == '&')
			return atoi(s + 8);
	return -1;
}

int fetcher_load(struct fetcher *f, const char *arg, const char *program,
		 const struct read_options *ro, struct profile **out, const struct reader **rd,
		 struct err *e)
{
	struct strbuf url = STRBUF_INIT, shown = STRBUF_INIT, body = STRBUF_INIT, path = STRBUF_INIT;
	struct remote r;
	int seconds = -1, status = -1;
	long timeout;

	*out = NULL;
	if (fetcher_start(f, e) < 0 || remote_parse(arg, &r, e) < 0)
		return -1;
	sb_addf(&url, "%s%s", r.base, r.page);
	sb_addf(&shown, "%s%s", r.shown, r.page);
	if (r.cpu && (seconds = query_seconds(r.page)) < 0) {
		seconds = f->o.seconds;
		sb_addf(&url, "%cseconds=%d", strchr(r.page, '?') ? '&' : '?', seconds);
		sb_addf(&shown, "%cseconds=%d", strchr(r.page, '?') ? '&' : '?', seconds);
	}
	timeout = f->o.timeout > 0 ? f->o.timeout : (seconds > 0 ? seconds : 0) + 60;
	if (request(f, url.buf, shown.buf, NULL, 0, timeout, seconds > 0 ? seconds : 0, &body, e) < 0)
		goto done;
	if (reader_load_buffer(shown.buf, (const unsigned char *)body.buf, body.len, ro, out, rd, e) < 0)
		goto done;
	if (!program)
		program = f->program ? f->program : "";
	if (save(f, &r, program, &body, &path, e) < 0) {
		profile_free(*out);
		*out = NULL;
		goto done;
	}
	notef("Wrote profile to %s", path.buf);
	status = 0;
done:
	remote_release(&r);
	sb_release(&url);
	sb_release(&shown);
	sb_release(&body);
	sb_release(&path);
	return status;
}
