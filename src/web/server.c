/* server.c - --http: the listening socket, libmicrohttpd, request bounds, signals and the browser. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "dynlib.h"
#include "internal.h"
#include "util.h"
#include "viewer.h"
#include "web.h"

/* Bytes a connection may hold: its request line and headers must fit. */
#define CONNECTION_MEMORY (32 * 1024)
#define MAX_CONNECTIONS 64
#define IDLE_SECONDS 30

static atomic_int stopping;

/* libmicrohttpd, opened when --http starts (dynlib.h). */
static struct {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc, void *apc_cls,
					   MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	const char *(*lookup_connection_value)(struct MHD_Connection *c, enum MHD_ValueKind kind,
					       const char *key);
	int (*get_connection_values_n)(struct MHD_Connection *c, enum MHD_ValueKind kind,
				       MHD_KeyValueIteratorN iterator, void *cls);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status,
					  struct MHD_Response *r);
	void (*destroy_response)(struct MHD_Response *r);
} mhd;

static const struct dynsym mhd_syms[] = {
	{ "MHD_start_daemon", (void **)&mhd.start_daemon },
	{ "MHD_stop_daemon", (void **)&mhd.stop_daemon },
	{ "MHD_lookup_connection_value", (void **)&mhd.lookup_connection_value },
	{ "MHD_get_connection_values_n", (void **)&mhd.get_connection_values_n },
	{ "MHD_create_response_from_buffer", (void **)&mhd.create_response_from_buffer },
	{ "MHD_add_response_header", (void **)&mhd.add_response_header },
	{ "MHD_queue_response", (void **)&mhd.queue_response },
	{ "MHD_destroy_response", (void **)&mhd.destroy_response },
	{ NULL, NULL },
};

static const char *const mhd_names[] = { "libmicrohttpd.so.12", "libmicrohttpd.so", NULL };
static struct dynlib libmhd = { .names = mhd_names, .syms = mhd_syms };

static void on_stop(int sig)
{
	(void)sig;
	atomic_store(&stopping, 1);
}

/* Splits "[HOST]:PORT" at its last colon; host without brackets.  -1 when malformed. */
static int split_address(const char *v, char *host, size_t nhost, char *port, size_t nport)
{
	const char *colon = strrchr(v, ':'), *h = v, *p;
	size_t hl;

	if (!colon)
		return -1;
	hl = (size_t)(colon - v);
	if (hl >= 2 && v[0] == '[' && v[hl - 1] == ']') {
		h = v + 1;
		hl -= 2;
	} else if (memchr(v, ':', hl) || memchr(v, '[', hl)) {
		return -1;  /* an IPv6 address needs its brackets */
	}
	for (p = colon + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	if (hl >= nhost || strlen(colon + 1) >= nport || (colon[1] && atol(colon + 1) > 65535) ||
	    strlen(colon + 1) > 5)
		return -1;
	memcpy(host, h, hl);
	host[hl] = 0;
	snprintf(port, nport, "%s", colon[1] ? colon + 1 : "0");
	return 0;
}

int web_check_address(const char *v, struct err *e)
{
	char host[256], port[8];

	if (split_address(v, host, sizeof(host), port, sizeof(port)) < 0)
		return err_set(e, "option 'http' wants [HOST]:PORT, PORT a number up to 65535 "
			       "(0: a free port), not '%s'", v);
	return 0;
}

static int is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return 0;
}

/*
 * A listening socket on host:port (host 127.0.0.1 when empty).  *port_out
 * receives the port it got, *loopback whether it is a loopback address.
 */
static int listen_on(const char *host, const char *port, int *port_out, int *loopback,
		     struct err *e)
{
	struct addrinfo hints = { 0 }, *ai, *a;
	struct sockaddr_storage got;
	socklen_t len = sizeof(got);
	int fd = -1, rc, saved = 0, one = 1;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((rc = getaddrinfo(*host ? host : "127.0.0.1", port, &hints, &ai)) != 0)
		return err_set(e, "--http: cannot resolve '%s': %s", host, gai_strerror(rc));
	for (a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, 64) < 0) {
			saved = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return err_set(e, "--http: cannot listen on %s:%s: %s", *host ? host : "127.0.0.1",
			       port, strerror(saved));
	if (getsockname(fd, (struct sockaddr *)&got, &len) < 0) {
		saved = errno;
		close(fd);
		return err_set(e, "--http: cannot read the listening address: %s", strerror(saved));
	}
	*loopback = is_loopback((struct sockaddr *)&got);
	*port_out = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
						    : ((struct sockaddr_in *)&got)->sin_port);
	return fd;
}

/* The server as libmicrohttpd's callbacks see it. */
struct server {
	struct web web;
	int loopback;            /* listening on a loopback address only */
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				   size_t key_size, const char *value, size_t value_size)
{
	struct query *q = cls;

	(void)kind;
	/* Too many or too long: the request is refused (a count past the bound says so). */
	if (q->n >= WEB_MAX_ARGS || key_size > WEB_MAX_VALUE || value_size > WEB_MAX_VALUE) {
		q->n = WEB_MAX_ARGS + 1;
		return MHD_NO;
	}
	q->arg[q->n].key = key;
	q->arg[q->n].value = value ? value : "";
	q->n++;
	return MHD_YES;
}

/* Whether a Host header names this machine's loopback (defeats DNS rebinding). */
static int loopback_host(const char *host)
{
	char name[256];
	const char *colon;
	size_t n;
	struct in_addr a4;

	if (host[0] == '[')
		return !strncmp(host, "[::1]", 5) && (!host[5] || host[5] == ':');
	colon = strchr(host, ':');
	n = colon ? (size_t)(colon - host) : strlen(host);
	if (n >= sizeof(name))
		return 0;
	memcpy(name, host, n);
	name[n] = 0;
	if (!strcasecmp(name, "localhost"))
		return 1;
	return inet_pton(AF_INET, name, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

static void reply_text(struct reply *r, unsigned status, const char *msg)
{
	r->status = status;
	r->type = "text/plain; charset=utf-8";
	r->html = 0;
	sb_reset(&r->body);
	sb_adds(&r->body, msg);
	sb_addc(&r->body, '\n');
}

static void make_nonce(char *buf, size_t n)
{
	unsigned char raw[16];
	size_t i;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		struct timespec ts;

		/* No entropy to be had: a nonce still differs per page. */
		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(raw, &ts, sizeof(raw) < sizeof(ts) ? sizeof(raw) : sizeof(ts));
	}
	for (i = 0; i < sizeof(raw) && 2 * i + 2 < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
}

static enum MHD_Result send_reply(struct MHD_Connection *c, struct reply *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char csp[256];

	resp = mhd.create_response_from_buffer(r->body.len, r->body.buf, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	mhd.add_response_header(resp, "Content-Type", r->type);
	mhd.add_response_header(resp, "Cache-Control", "no-store");
	mhd.add_response_header(resp, "X-Content-Type-Options", "nosniff");
	mhd.add_response_header(resp, "Referrer-Policy", "no-referrer");
	/* Nothing is loaded from anywhere else; only our own script runs in a page. */
	if (r->html)
		snprintf(csp, sizeof(csp), "default-src 'none'; script-src 'nonce-%s'; "
			 "style-src 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; "
			 "form-action 'self'; base-uri 'none'; frame-ancestors 'self'", r->nonce);
	else
		snprintf(csp, sizeof(csp), "default-src 'none'; script-src 'unsafe-inline'; "
			 "style-src 'unsafe-inline'; frame-ancestors 'self'");
	mhd.add_response_header(resp, "Content-Security-Policy", csp);
	if (r->location.len)
		mhd.add_response_header(resp, "Location", r->location.buf);
	if (r->status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.add_response_header(resp, "Allow", "GET, HEAD");
	ret = mhd.queue_response(c, r->status, resp);
	mhd.destroy_response(resp);
	return ret;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Checks what a request is before any work; 0 when it may be served. */
static int admit(struct server *s, struct MHD_Connection *c, const char *method,
		 struct query *q, struct reply *r)
{
	const char *host = mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	const char *length = mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");

	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		reply_text(r, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD are served");
		return -1;
	}
	if ((length && strcmp(length, "0")) ||
	    mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding")) {
		reply_text(r, MHD_HTTP_CONTENT_TOO_LARGE, "a request has no body here");
		return -1;
	}
	if (s->loopback && host && !loopback_host(host)) {
		reply_text(r, MHD_HTTP_FORBIDDEN, "this server answers to its loopback address only");
		return -1;
	}
	mhd.get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, collect_arg, q);
	if (q->n > WEB_MAX_ARGS) {
		reply_text(r, MHD_HTTP_URI_TOO_LONG, "query too long: at most 32 parameters of "
			   "4096 bytes each");
		return -1;
	}
	if (atomic_load(&stopping)) {
		reply_text(r, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is stopping");
		return -1;
	}
	return 0;
}

/* Marks a request whose raw URI holds an escaped NUL, which would end the decoded path or value. */
static char has_nul;

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	const char *s;

	(void)cls;
	(void)c;
	for (s = uri; (s = strchr(s, '%')); s++)
		if (s[1] == '0' && s[2] == '0')
			return &has_nul;
	return NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct server *s = cls;
	struct query q = { .n = 0 };
	struct reply r = { .status = 200, .body = STRBUF_INIT, .location = STRBUF_INIT };
	enum MHD_Result ret;
	double t0 = now_ms();

	(void)version;
	(void)upload;
	(void)upload_size;
	if (*con_cls == &has_nul)
		reply_text(&r, MHD_HTTP_BAD_REQUEST, "a NUL byte in the address");
	else if (admit(s, c, method, &q, &r) == 0) {
		make_nonce(r.nonce, sizeof(r.nonce));
		web_serve(&s->web, url, &q, &r);
	}
	if (s->web.verbose)
		fprintf(stderr, "pprof: %s %s: %u (%.1f ms)\n", method, url, r.status, now_ms() - t0);
	ret = send_reply(c, &r);
	sb_release(&r.body);
	sb_release(&r.location);
	return ret;
}

/* Prints the address, and opens it in a browser unless told not to. */
static void announce(const struct server *s, const char *host, int port, int no_browser)
{
	struct strbuf url = STRBUF_INIT;
	const char *shown = *host ? host : "127.0.0.1";
	struct err e;

	sb_addf(&url, strchr(shown, ':') ? "http://[%s]:%d/ui/" : "http://%s:%d/ui/", shown, port);
	web_start_query(&s->web, &url);
	fprintf(stderr, "Serving web UI on %s\n", url.buf);
	if (!s->loopback)
		warnf("--http=%s: anyone who can reach this address can read the profile and the "
		      "source files its views show", host);
	fflush(stderr);
	if (!no_browser && browser_open(url.buf, &e) < 0)
		warnf("%s; open %s yourself", e.msg, url.buf);
	sb_release(&url);
}

int web_run(const struct profile *p, const struct options *o)
{
	struct server s = { .web = { .p = p, .base = *o, .stop = &stopping,
				     .verbose = o->verbose } };
	struct sigaction sa, old_int, old_term;
	struct MHD_Daemon *d;
	sigset_t block, old, waiting;
	char host[256], port[8];
	int fd, got_port = 0;
	struct err e;

	if (split_address(o->http, host, sizeof(host), port, sizeof(port)) < 0) {
		web_check_address(o->http, &e);
		fprintf(stderr, "pprof: %s\n", e.msg);
		return 2;
	}
	if (dynlib_load(&libmhd, &e) < 0) {
		fprintf(stderr, "pprof: --http: %s\n", e.msg);
		return 1;
	}
	if ((fd = listen_on(host, port, &got_port, &s.loopback, &e)) < 0) {
		fprintf(stderr, "pprof: %s\n", e.msg);
		return 1;
	}
	options_init(&s.web.defaults);
	s.web.base.report.interrupt = &stopping;
	/* Requests are served one at a time, on the server's one thread. */
	s.web.base.report.cache = report_cache_new(p);
	atomic_store(&stopping, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* The server's thread inherits a mask that keeps the signals for this one. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	d = mhd.start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, &s,
			     MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_SECONDS,
			     MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!d) {
		close(fd);
		report_cache_free(s.web.base.report.cache);
		fprintf(stderr, "pprof: --http: libmicrohttpd cannot start its server\n");
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return 1;
	}
	announce(&s, host, got_port, o->no_browser);
	/* Wait for a signal without missing one that came before the wait. */
	pthread_sigmask(SIG_BLOCK, &block, &old);
	waiting = old;
	sigdelset(&waiting, SIGINT);
	sigdelset(&waiting, SIGTERM);
	while (!atomic_load(&stopping))
		sigsuspend(&waiting);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Joins the server's thread and closes the listening socket, which it owns. */
	mhd.stop_daemon(d);
	report_cache_free(s.web.base.report.cache);
	/*
	 * The handler stays: another stop signal while pprof frees what it
	 * made must not kill it (timeout(1), stopped, signals the command and
	 * then its whole process group, two signals that a loaded machine can
	 * set apart by milliseconds).
	 */
	fprintf(stderr, "pprof: web UI stopped\n");
	return 0;
}
