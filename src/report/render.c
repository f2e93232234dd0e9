/* render.c - ps, pdf, svg, gif and png call graphs laid out and rendered in process by gvc; viewers. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dot.h"
#include "graphviz.h"
#include "strbuf.h"
#include "svgpan.h"
#include "util.h"
#include "viewer.h"

extern char **environ;

/*
 * The plugins a render needs, and the package a Debian user installs to
 * get them.  gvc finds plugins through the "config6a" file that `dot -c`
 * (or libgvc6-config-update) writes beside them; without it gvc knows no
 * plugin at all, so then they are loaded here by file name and handed to
 * gvc as built-ins.
 */
static const char *const plugin_names[] = { "core", "dot_layout", "pango", "gd" };

static const struct {
	const char *format;   /* a gvc device */
	const char *plugin;   /* libgvplugin_NAME.so that provides it */
} format_plugins[] = {
	{ "ps2", "core" },
	{ "svg", "core" },
	{ "pdf", "pango" },
	{ "png", "pango" },
	{ "gif", "gd" },
};

#define GV_PACKAGE "libgvc6"

/* Graphviz reports through agerr; collect its messages instead of printing them. */
static struct strbuf gv_messages = STRBUF_INIT;

static int gv_message(char *msg)
{
	sb_adds(&gv_messages, msg);
	return 0;
}

/* The collected messages on one line, for an error report. */
static const char *gv_last_messages(void)
{
	char *s;

	if (!gv_messages.buf)
		return "";
	for (s = gv_messages.buf; *s; s++)
		if (*s == '\n')
			*s = ' ';
	while (gv_messages.len && gv_messages.buf[gv_messages.len - 1] == ' ')
		gv_messages.buf[--gv_messages.len] = 0;
	return gv_messages.buf;
}

static int has_plugin(GVC_t *gvc, const char *kind, const char *name)
{
	int n = 0, i, found = 0;
	char **list = gv.gvPluginList(gvc, kind, &n, NULL);

	for (i = 0; i < n; i++) {
		if (!strcmp(list[i], name))
			found = 1;
		free(list[i]);
	}
	free(list);
	return found;
}

/* Where libgvc was loaded from: its directory, and the ".so.N" its plugins share. */
struct gvc_path {
	char dir[PATH_MAX];
	char suffix[32];
};

static int find_libgvc(struct dl_phdr_info *info, size_t size, void *data)
{
	struct gvc_path *gp = data;
	const char *name = info->dlpi_name, *base, *so;

	if (!name || !(base = strrchr(name, '/')) || strncmp(base + 1, "libgvc.so", 9))
		return 0;
	so = strstr(base, ".so");
	snprintf(gp->dir, sizeof(gp->dir), "%.*s", (int)(base - name), name);
	snprintf(gp->suffix, sizeof(gp->suffix), "%s", so);
	return 1;
}

/* A context whose plugins are loaded here, for when gvc found no configuration. */
static GVC_t *context_from_plugin_files(void)
{
	static lt_symlist_t builtins[ARRAY_SIZE(plugin_names) + 1];
	static char symbols[ARRAY_SIZE(plugin_names)][64];
	struct gvc_path gp = { "", "" };
	const char *dirs[2];
	size_t i, k, n = 0;

	dl_iterate_phdr(find_libgvc, &gp);
	dirs[0] = getenv("GVBINDIR");
	dirs[1] = NULL;
	if (gp.dir[0]) {
		static char libdir[PATH_MAX + 16];

		snprintf(libdir, sizeof(libdir), "%s/graphviz", gp.dir);
		dirs[1] = libdir;
	}
	for (i = 0; i < ARRAY_SIZE(plugin_names); i++) {
		void *lib = NULL;

		for (k = 0; k < ARRAY_SIZE(dirs) && !lib; k++) {
			char file[PATH_MAX + 64];
			void *h;

			if (!dirs[k] || !dirs[k][0])
				continue;
			snprintf(file, sizeof(file), "%s/libgvplugin_%s%s", dirs[k], plugin_names[i],
				 gp.suffix[0] ? gp.suffix : ".so");
			/* Plugins stay loaded for the life of the process. */
			if (!(h = dlopen(file, RTLD_NOW | RTLD_LOCAL)))
				continue;
			snprintf(symbols[n], sizeof(symbols[n]), "gvplugin_%s_LTX_library", plugin_names[i]);
			lib = dlsym(h, symbols[n]);
		}
		if (lib) {
			builtins[n].name = symbols[n];
			builtins[n].address = lib;
			n++;
		}
	}
	builtins[n].name = NULL;
	builtins[n].address = NULL;
	return gv.gvContextPlugins(builtins, 0);
}

/*
 * The context lives in the caller's report_env, so one context serves
 * every render of a run or a prompt session: the pango plugin keeps font
 * names that belong to its context, and a second context after the first
 * has been freed reads them after they are gone.
 */
static GVC_t *context_get(struct report_env *env)
{
	GVC_t *gvc;

	if (env->gvc)
		return env->gvc;
	gvc = gv.gvContext();
	if (gvc && !has_plugin(gvc, "layout", "dot")) {
		gv.gvFreeContext(gvc);
		gvc = context_from_plugin_files();
	}
	return env->gvc = gvc;
}

void report_env_release(struct report_env *env)
{
	if (env->gvc)
		gv.gvFreeContext(env->gvc);
	env->gvc = NULL;
}

static const char *plugin_for(const char *format)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(format_plugins); i++)
		if (!strcmp(format_plugins[i].format, format))
			return format_plugins[i].plugin;
	return "?";
}

/* The output format as the user named it: pprof's --ps is gvc's ps2. */
static const char *user_name(const char *format)
{
	return strcmp(format, "ps2") ? format : "ps";
}

/*
 * Builds, lays out and renders the graph of p in a gvc format; *data is
 * freed with gvFreeRenderData.
 */
static int render(const struct profile *p, const struct report_options *o, const char *format,
		  enum dot_flags flags, char **data, unsigned int *len, struct err *e)
{
	agusererrf old;
	Agraph_t *g = NULL;
	GVC_t *gvc = NULL;
	int ret = -1;

	if (graphviz_load(e) < 0)
		return -1;
	old = gv.agseterrf(gv_message);
	sb_reset(&gv_messages);
	*data = NULL;
	*len = 0;
	if (!(g = dot_graph_new(p, o, flags, e)))
		goto out;
	if (!o->env)
		BUG("render: no report_env to keep the Graphviz context in");
	if (!(gvc = context_get(o->env))) {
		err_set(e, "cannot start Graphviz (gvc)");
		goto out;
	}
	if (!has_plugin(gvc, "layout", "dot")) {
		err_set(e, "cannot lay out the graph: the Graphviz plugin for the dot layout "
			"(libgvplugin_dot_layout) is missing; install %s", GV_PACKAGE);
		goto out;
	}
	if (!has_plugin(gvc, "device", format)) {
		err_set(e, "cannot render %s: the Graphviz plugin for it (libgvplugin_%s) is missing; "
			"install %s", user_name(format), plugin_for(format), GV_PACKAGE);
		goto out;
	}
	if (gv.gvLayout(gvc, g, "dot") != 0) {
		err_set(e, "graphviz cannot lay out the graph: %s", gv_last_messages());
		goto out;
	}
	if (gv.gvRenderData(gvc, g, format, data, len) != 0 || !*data) {
		err_set(e, "graphviz cannot render %s: %s", user_name(format), gv_last_messages());
		gv.gvFreeLayout(gvc, g);
		goto out;
	}
	gv.gvFreeLayout(gvc, g);
	ret = 0;
out:
	if (ret == 0 && gv_messages.len && !o->quiet)
		warnf("graphviz: %s", gv_last_messages());
	if (g)
		gv.agclose(g);
	gv.agseterrf(old);
	sb_release(&gv_messages);
	return ret;
}

/* The rendering as a file holds it: SVG gets pprof's pan and zoom. */
static int render_file(const struct profile *p, const struct report_options *o,
		       const char *format, enum dot_flags flags, struct strbuf *bytes, struct err *e)
{
	char *data;
	unsigned int len;

	if (render(p, o, format, flags, &data, &len, e) < 0)
		return -1;
	sb_reset(bytes);
	if (strcmp(format, "svg") != 0 || svg_add_pan_zoom(data, len, bytes) < 0)
		sb_add(bytes, data, len);
	gv.gvFreeRenderData(data);
	return 0;
}

static int render_write(FILE *out, const struct profile *p, const struct report_options *o,
			const char *format, enum dot_flags flags, struct err *e)
{
	struct strbuf bytes = STRBUF_INIT;
	int ret = 0;

	if (render_file(p, o, format, flags, &bytes, e) < 0)
		ret = -1;
	else if (fwrite(bytes.buf, 1, bytes.len, out) != bytes.len)
		ret = err_set(e, "cannot buffer the %s output", user_name(format));
	sb_release(&bytes);
	return ret;
}

/* pprof pipes dot -Tps2 into its PostScript and PDF outputs. */
static int ps_write(FILE *out, const struct profile *p, const struct report_options *o,
		    struct err *e)
{
	return render_write(out, p, o, "ps2", 0, e);
}

static int pdf_write(FILE *out, const struct profile *p, const struct report_options *o,
		     struct err *e)
{
	return render_write(out, p, o, "pdf", DOT_PAGE_SIZE, e);
}

static int svg_write(FILE *out, const struct profile *p, const struct report_options *o,
		     struct err *e)
{
	return render_write(out, p, o, "svg", 0, e);
}

static int gif_write(FILE *out, const struct profile *p, const struct report_options *o,
		     struct err *e)
{
	return render_write(out, p, o, "gif", 0, e);
}

static int png_write(FILE *out, const struct profile *p, const struct report_options *o,
		     struct err *e)
{
	return render_write(out, p, o, "png", 0, e);
}

/* --- viewers --------------------------------------------------------------- */

/*
 * Writes the rendering to a new file DIR/pprofXXXXXX.SUFFIX, DIR being
 * $PPROF_TMPDIR, else $TMPDIR, else /tmp; file receives its name.
 */
static int write_temp(const char *format, enum dot_flags flags, const char *suffix,
		      const struct profile *p, const struct report_options *o, struct strbuf *file,
		      struct err *e)
{
	const char *dir = getenv("PPROF_TMPDIR");

	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	struct strbuf bytes = STRBUF_INIT;
	int fd;

	if (render_file(p, o, format, flags, &bytes, e) < 0)
		return -1;
	sb_reset(file);
	sb_addf(file, "%s/pprofXXXXXX.%s", dir && *dir ? dir : "/tmp", suffix);
	fd = mkstemps(file->buf, (int)strlen(suffix) + 1);
	if (fd < 0) {
		err_set(e, "cannot create a temporary file '%s': %s", file->buf, strerror(errno));
		sb_release(&bytes);
		return -1;
	}
	if (write_all(fd, bytes.buf, bytes.len) < 0) {
		err_set(e, "cannot write '%s': %s", file->buf, strerror(errno));
		close(fd);
		unlink(file->buf);
		sb_release(&bytes);
		return -1;
	}
	sb_release(&bytes);
	if (close(fd) < 0) {
		err_set(e, "cannot write '%s': %s", file->buf, strerror(errno));
		unlink(file->buf);
		return -1;
	}
	return 0;
}

/*
 * Runs argv (searched in PATH, no shell) and waits for it.  Returns its
 * exit status, or -1 with errno set when it could not be started.
 */
static int run(char *const argv[])
{
	pid_t pid;
	int status, rc;

	fflush(NULL);
	rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int view(const struct profile *p, const struct report_options *o, const char *format,
		const char *suffix, const char *viewer, const char *const *args, const char *package,
		struct err *e)
{
	struct strbuf file = STRBUF_INIT;
	const char *argv[8];
	size_t n = 0;
	int ret = 0;

	if (write_temp(format, 0, suffix, p, o, &file, e) < 0) {
		sb_release(&file);
		return -1;
	}
	argv[n++] = viewer;
	while (*args)
		argv[n++] = *args++;
	argv[n++] = file.buf;
	argv[n] = NULL;
	if (run((char *const *)argv) < 0)
		ret = err_set(e, "cannot run '%s': %s (install the %s package)", viewer,
			      strerror(errno), package);
	unlink(file.buf);
	sb_release(&file);
	return ret;
}

static int gv_write(FILE *out, const struct profile *p, const struct report_options *o,
		    struct err *e)
{
	char scale[32];
	const char *args[] = { scale, "--noantialias", NULL };

	snprintf(scale, sizeof(scale), "--scale=%d", o->gv_scale);
	return view(p, o, "ps2", "ps", "gv", args, "gv", e);
}

static int evince_write(FILE *out, const struct profile *p, const struct report_options *o,
			struct err *e)
{
	static const char *const args[] = { NULL };

	return view(p, o, "pdf", "pdf", "evince", args, "evince", e);
}

/*
 * Runs one $BROWSER entry: words split at blanks, "%s" replaced by the
 * file, else the file added last.
 */
static int run_browser(const char *cmd, const char *file)
{
	char *copy = xstrdup(cmd), *s = copy, *w;
	const char **argv = xcalloc(strlen(cmd) + 2, sizeof(*argv));
	struct strbuf sub = STRBUF_INIT;
	size_t n = 0;
	int used = 0, rc;

	while ((w = strsep(&s, " \t"))) {
		char *pct;

		if (!*w)
			continue;
		if ((pct = strstr(w, "%s")) && !used) {
			sb_add(&sub, w, (size_t)(pct - w));
			sb_adds(&sub, file);
			sb_adds(&sub, pct + 2);
			argv[n++] = sub.buf;
			used = 1;
		} else {
			argv[n++] = w;
		}
	}
	if (!used)
		argv[n++] = file;
	argv[n] = NULL;
	rc = n > 1 ? run((char *const *)argv) : -1;
	sb_release(&sub);
	free(argv);
	free(copy);
	return rc;
}

/*
 * The browser may hand the file to a running instance and return at once,
 * so the file is removed a few seconds later, as pprof does, by a child
 * that keeps none of our output open.
 */
static void remove_later(const char *file)
{
	pid_t pid = fork();

	if (pid < 0) {
		unlink(file);
		return;
	}
	if (pid > 0) {
		/* The child forks the remover and exits at once: no zombie is left. */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return;
	}
	if (fork() != 0)
		_exit(0);
	{
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		sleep(5);
		unlink(file);
		_exit(0);
	}
}

int browser_open(const char *target, struct err *e)
{
	const char *browser = getenv("BROWSER");
	int ok = 0;

	if (browser && *browser) {
		/* $BROWSER: commands separated by ':', the first that succeeds wins. */
		char *list = xstrdup(browser), *s = list, *cmd;

		while (!ok && (cmd = strsep(&s, ":")))
			if (*cmd && run_browser(cmd, target) == 0)
				ok = 1;
		free(list);
		if (!ok)
			return err_set(e, "could not load a web browser with $BROWSER ('%s')", browser);
	} else {
		char *argv[] = { (char *)"xdg-open", (char *)target, NULL };
		int rc = run(argv);

		if (rc < 0)
			return err_set(e, "cannot run 'xdg-open': %s (install the xdg-utils package, "
				       "or name a browser in $BROWSER)", strerror(errno));
		if (rc != 0)
			return err_set(e, "xdg-open could not open '%s' (exit status %d; name a browser "
				       "in $BROWSER)", target, rc);
	}
	return 0;
}

static int web_write(FILE *out, const struct profile *p, const struct report_options *o,
		     struct err *e)
{
	struct strbuf file = STRBUF_INIT;
	int ret = 0;

	if (write_temp("svg", 0, "svg", p, o, &file, e) < 0) {
		sb_release(&file);
		return -1;
	}
	notef("Loading web page file://%s", file.buf);
	if (browser_open(file.buf, e) < 0) {
		ret = -1;
		unlink(file.buf);
	} else {
		remove_later(file.buf);
	}
	sb_release(&file);
	return ret;
}

const struct report_format report_ps_format = {
	.name = "ps",
	.by_names = 1,
	.help = "Generate PostScript to stdout",
	.write = ps_write,
};

const struct report_format report_pdf_format = {
	.name = "pdf",
	.by_names = 1,
	.help = "Generate PDF to stdout",
	.write = pdf_write,
};

const struct report_format report_svg_format = {
	.name = "svg",
	.by_names = 1,
	.help = "Generate SVG to stdout",
	.write = svg_write,
};

const struct report_format report_gif_format = {
	.name = "gif",
	.by_names = 1,
	.help = "Generate GIF to stdout",
	.write = gif_write,
};

const struct report_format report_png_format = {
	.name = "png",
	.by_names = 1,
	.help = "Generate PNG to stdout",
	.write = png_write,
};

const struct report_format report_gv_format = {
	.name = "gv",
	.by_names = 1,
	.help = "Generate PostScript and display it with gv",
	.write = gv_write,
	.viewer = 1,
};

const struct report_format report_evince_format = {
	.name = "evince",
	.by_names = 1,
	.help = "Generate PDF and display it with evince",
	.write = evince_write,
	.viewer = 1,
};

const struct report_format report_web_format = {
	.name = "web",
	.by_names = 1,
	.help = "Generate SVG and open it in a web browser",
	.write = web_write,
	.viewer = 1,
};
