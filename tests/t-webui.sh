#!/usr/bin/env bash
# t-webui.sh - the web UI (--http): a server on a free loopback port, each
# page fetched and compared with the report of the same format on the
# command line, query parameters as Go pprof's (focus, ignore, sample
# index, granularity; parameters of options this pprof lacks refused),
# hostile names from a crafted profile escaped, paths outside the pages
# refused, request bounds, the Host check, $BROWSER, stopping on SIGINT and
# SIGTERM, and headless Chromium running the pages' scripts (the hottest
# function in the DOM, screenshots).  Views whose format or option comes
# with Go pprof's views (flame graph, peek, hide, show) are tested when this
# pprof has them, else their refusal is, with a "skip" line.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/webui
mkdir -p "$W"
G=$TESTDATA/golden
# Graphviz keeps some memory until exit; see the file for what is suppressed.
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan-graphviz.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
require --libprofiler python3 gcc chromium || exit 1

# --- helpers -----------------------------------------------------------------

# fetch.py HOSTPORT METHOD PATH OUT [NAME:VALUE]...: sends one request with
# the path as given (no normalization) and prints the status; the body goes
# to OUT.  A header "Body:N" sends N bytes of body.
cat >"$W/fetch.py" <<'EOF'
import http.client, sys
hostport, method, path, out = sys.argv[1:5]
headers, body = {}, None
for h in sys.argv[5:]:
    k, v = h.split(":", 1)
    if k == "Body":
        body = b"x" * int(v)
    else:
        headers[k] = v
c = http.client.HTTPConnection(hostport, timeout=60)
c.putrequest(method, path, skip_host="Host" in headers)
for k, v in headers.items():
    c.putheader(k, v)
if body is not None:
    c.putheader("Content-Length", str(len(body)))
c.endheaders(body)
try:
    r = c.getresponse()
    data = r.read()
    status = r.status
except (http.client.RemoteDisconnected, ConnectionResetError):
    data, status = b"", 0
open(out, "wb").write(data)
print(status)
EOF

# page.py MODE FILE: what a page shows, as the command line prints it.
#  rows:  the top table's rows, one per line, cells joined by one blank;
#  texts: the text of every <text> of the SVG, one per line;
#  pre:   the text of the page's report (<pre class="report...">).
cat >"$W/page.py" <<'EOF'
import html.parser, re, sys
mode, path = sys.argv[1], sys.argv[2]
doc = open(path, encoding="utf-8").read()

class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.rows, self.texts, self.pre, self.cell = [], [], [], [], None
        self.in_pre = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self.cell = ""
        elif tag == "text":
            self.texts.append("")
        elif tag == "pre" and "report" in (a.get("class") or ""):
            self.in_pre = 1
        self.stack.append(tag)
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "pre":
            self.in_pre = 0
        if self.stack:
            self.stack.pop()
    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d
        if self.stack and self.stack[-1] == "text":
            self.texts[-1] += d
        if self.in_pre:
            self.pre.append(d)

p = P()
p.feed(doc)
if mode == "rows":
    for r in p.rows:
        if r:
            print(" ".join(" ".join(r).split()))
elif mode == "texts":
    print("\n".join(p.texts))
elif mode == "pre":
    sys.stdout.write("".join(p.pre))
EOF

# text_rows FILE: the rows of a --text report as page.py rows prints them.
text_rows() {
	grep -E '^ *-?[0-9.]+[a-zA-Z]* +-?[0-9.]+%' "$1" | awk '{$1=$1; print}'
}

# svg_texts FILE: the <text> contents of an SVG.
svg_texts() {
	python3 - "$1" <<'EOF'
import html, re, sys
for t in re.findall(r"<text[^>]*>(.*?)</text>", open(sys.argv[1], encoding="utf-8").read(), re.S):
    print(html.unescape(t))
EOF
}

SERVER_PID=
# start_server NAME ARGS...: runs pprof --http=127.0.0.1:0 --no_browser ARGS
# in the background (stopping by itself after 10 minutes, should the test
# not stop it), waits for the URL it prints; sets URL, HOSTPORT, SERVER_ERR.
start_server() {
	local name=$1 i
	shift
	SERVER_ERR=$W/$name.server.err
	command timeout "$(scaled 600)" "$PPROF" --http=127.0.0.1:0 --no_browser "$@" \
		2>"$SERVER_ERR" &
	SERVER_PID=$!
	URL=
	for i in $(seq 600); do
		URL=$(grep -o 'http://[^ ]*' "$SERVER_ERR" | head -n 1)
		[ -n "$URL" ] && break
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	HOSTPORT=${URL#http://}
	HOSTPORT=${HOSTPORT%%/*}
	if [ -n "$URL" ] && [[ $HOSTPORT == 127.0.0.1:* ]] && [ "${HOSTPORT#*:}" != 0 ]; then
		ok "$name: the server prints its URL on a free port ($URL)"
		return 0
	fi
	not_ok "$name: the server prints its URL on a free port"
	show "$SERVER_ERR" 10 stderr
	return 1
}

# stop_server NAME [SIGNAL]: stops the server (SIGINT by default); it must
# exit with status 0, say so, and print no sanitizer report.
stop_server() {
	local name=$1 sig=${2:-INT} rc
	kill "-$sig" "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID"
	rc=$?
	SERVER_PID=
	if clean_exit "$name: SIG$sig stops the server cleanly" "$rc" "$SERVER_ERR" 0; then
		check "$name: the server says it stopped" grep -q "web UI stopped" "$SERVER_ERR"
	fi
}
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null' EXIT

# get NAME PATH [HEADER...]: GET PATH into $W/NAME.html; sets STATUS.
get() {
	local name=$1 path=$2
	shift 2
	STATUS=$(python3 "$W/fetch.py" "$HOSTPORT" GET "$path" "$W/$name.html" "$@")
}

# page NAME PATH WANT TEXT...: GET PATH answers WANT and its body has each TEXT.
page() {
	local name=$1 path=$2 want=$3 t
	shift 3
	get "$name" "$path"
	if [ "$STATUS" != "$want" ]; then
		not_ok "$name: $path answers $want (got $STATUS)"
		show "$W/$name.html" 5 body
		return 1
	fi
	for t in "$@"; do
		if ! grep -qF -- "$t" "$W/$name.html"; then
			not_ok "$name: $path shows '$t'"
			return 1
		fi
	done
	ok "$name: $path answers $want${1:+ and shows $*}"
}

# same_as NAME MODE PAGE EXPECTED: what page.py MODE finds in the page equals EXPECTED.
same_as() {
	python3 "$W/page.py" "$2" "$W/$3.html" >"$W/$3.$2"
	same_output "$1" "$4" "$W/$3.$2"
}

has_format() { "$PPROF" --help | grep -q -- "^  --$1[= ]"; }
has_option() { "$PPROF" --help | grep -q -- "^  --$1[= ]"; }

# chromium_run ARGS...: headless Chromium on this machine's pages only.
chromium_run() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --disable-extensions \
		--user-data-dir="$W/chromium" "$@" 2>>"$W/chromium.log"
}

# --- usage -------------------------------------------------------------------

run_pprof --http=nonsense "$G/prog" "$G/prof64le.prof"
check "--http=nonsense is a usage error" test "$RC" -eq 2
check "--http=nonsense: the message names the form" grep -q 'HOST\]:PORT' "$W/err"
run_pprof --http=127.0.0.1:0 --text "$G/prog" "$G/prof64le.prof"
check "--http with an output format is a usage error" test "$RC" -eq 2

# --- the golden program: each page against the command line ------------------

SRC=(--source_path="$G" --trim_path=/golden)
ARGS=("${SRC[@]}" "$G/prog" "$G/prof64le.prof")
"$PPROF" --text "${ARGS[@]}" >"$W/prog.text" 2>/dev/null
HOT=$(text_rows "$W/prog.text" | head -n 1 | awk '{print $6}')
check "the golden profile's hottest function is known ($HOT)" test -n "$HOT"

if start_server prog "${ARGS[@]}"; then
	page graph /ui/ 200 "<svg" "$HOT"
	"$PPROF" --svg "${ARGS[@]}" >"$W/prog.svg" 2>/dev/null
	svg_texts "$W/prog.svg" >"$W/prog.svg.texts"
	same_as "graph: the page's SVG is --svg's" texts graph "$W/prog.svg.texts"
	check "graph: the SVG's own script is left out (the page's drives it)" \
		test "$(grep -c '<script' "$W/graph.html")" -eq 1

	page top /ui/top 200 "<table" "$HOT"
	text_rows "$W/prog.text" >"$W/prog.rows"
	same_as "top: the table's rows are --text's" rows top "$W/prog.rows"

	for q in "f=walk" "i=leaf" "f=main&i=mid" "g=lines" "g=files&f=other" "si=cpu" "si=1"; do
		opts=()
		case $q in
		*f=walk*) opts+=(--focus=walk) ;;
		*f=main*) opts+=(--focus=main) ;;
		*f=other*) opts+=(--focus=other) ;;
		esac
		case $q in *i=leaf*) opts+=(--ignore=leaf) ;; *i=mid*) opts+=(--ignore=mid) ;; esac
		case $q in *g=lines*) opts+=(--lines) ;; *g=files*) opts+=(--files) ;; esac
		case $q in *si=cpu*) opts+=(--sample_index=cpu) ;; *si=1*) opts+=(--sample_index=1) ;; esac
		"$PPROF" --text "${opts[@]}" "${ARGS[@]}" >"$W/q.text" 2>/dev/null
		text_rows "$W/q.text" >"$W/q.rows"
		get top-q "/ui/top?$q"
		if [ "$STATUS" = 200 ]; then
			same_as "top?$q: the rows are those of --text ${opts[*]}" rows top-q "$W/q.rows"
		else
			not_ok "top?$q answers 200 (got $STATUS)"
		fi
	done
	get top-walk "/ui/top?f=walk"
	check "top?f=walk: focus changes what is shown ($HOT is gone)" \
		test "$(grep -c ">$HOT<" "$W/top-walk.html")" -eq 0
	get graph-walk "/ui/?f=walk"
	"$PPROF" --svg --focus=walk "${ARGS[@]}" >"$W/walk.svg" 2>/dev/null
	svg_texts "$W/walk.svg" >"$W/walk.svg.texts"
	same_as "graph?f=walk: the SVG is --svg --focus=walk's" texts graph-walk "$W/walk.svg.texts"
	get graph-ign "/ui/?i=$HOT"
	check "graph?i=$HOT: ignore changes what is shown" test "$(grep -c ">$HOT<" "$W/graph-ign.html")" -eq 0

	page source "/ui/source?f=%5Emain%24" 200 "t += mid(n);"
	"$PPROF" --list='^main$' "${ARGS[@]}" >"$W/main.list" 2>/dev/null
	same_as "source?f=^main\$: the listing is --list's" pre source "$W/main.list"
	page disasm "/ui/disasm?f=$HOT" 200 "ROUTINE"
	"$PPROF" --disasm="$HOT" "${ARGS[@]}" >"$W/hot.disasm" 2>/dev/null
	same_as "disasm?f=$HOT: the listing is --disasm's" pre disasm "$W/hot.disasm"
	page source-none /ui/source 200 "Focus expression"
	page source-nomatch "/ui/source?f=no_such_routine_xyz" 400 "no_such_routine_xyz"

	# Query parameters: bad values, unknown ones, options this pprof lacks.
	get badre "/ui/top?f=%28"
	check "a bad regex answers 400 with one line" \
		test "$STATUS" = 400 -a "$(wc -l <"$W/badre.html")" -eq 1
	check "a bad regex: the line names the parameter" grep -q "parameter 'f'" "$W/badre.html"
	page unknown "/ui/top?zz=1" 400 "unknown parameter 'zz'"
	page badsi "/ui/top?si=nosuch" 400 "no sample value 'nosuch'"
	page loadtime "/ui/top?dropneg=t" 400 "command line"
	for pair in h:hide s:show sf:show_from tf:tagfocus; do
		key=${pair%%:*} opt=${pair#*:}
		if has_option "$opt"; then
			"$PPROF" --text --"$opt"=mid "${ARGS[@]}" >"$W/o.text" 2>/dev/null
			text_rows "$W/o.text" >"$W/o.rows"
			get top-o "/ui/top?$key=mid"
			same_as "top?$key=mid: the rows are those of --text --$opt=mid" rows top-o "$W/o.rows"
		else
			page "no-$opt" "/ui/top?$key=mid" 400 "no option '$opt'"
			skip "$key=: this pprof has no --$opt yet"
		fi
	done

	# Views of formats this pprof may lack.
	for view in flamegraph:flame peek:peek; do
		path=${view%%:*} fmt=${view#*:}
		if has_format "$fmt"; then
			get menu /ui/top
			check "the menu links the $path view" grep -q "href=\"/ui/$path" "$W/menu.html"
			if [ "$fmt" = flame ]; then
				page flame /ui/flamegraph 200 "/ui/flamegraph.svg"
				page flame-svg /ui/flamegraph.svg 200 "$HOT"
			else
				page peek "/ui/peek?f=$HOT" 200 "$HOT"
			fi
		else
			page "no-$fmt" "/ui/$path" 404 "no '$fmt' output format"
			get menu /ui/top
			check "the menu leaves the $path view out" test "$(grep -c "/ui/$path" "$W/menu.html")" -eq 0
			skip "/ui/$path: this pprof has no --$fmt yet"
		fi
	done

	# Links keep the state; the root leads to /ui/.
	get state "/ui/top?f=main&i=leaf_b"
	check "the menu's links carry the query" grep -q 'href="/ui/?f=main&amp;i=leaf_b"' "$W/state.html"
	check "the form shows the focus" grep -q 'name="f" size="14" spellcheck="false" value="main"' "$W/state.html"
	get root "/?f=main"
	check "/ redirects to /ui/ with its query" test "$STATUS" = 302

	# Paths outside the pages, request bounds, methods, the Host check.
	for path in /etc/passwd /ui/../../../etc/passwd /ui/%2e%2e/%2e%2e/etc/passwd \
		//etc/passwd /ui/source/../../etc/passwd "/ui/source?f=/etc/passwd" \
		"/ui/source?f=passwd&file=/etc/passwd" /ui/prog.c /golden/prog.c /ui/top/ \
		/testdata/golden/prog.c "/ui/%00top"; do
		get trick "$path"
		if [[ $STATUS == 4?? ]] && ! grep -q "root:" "$W/trick.html" &&
			! grep -q "t += mid" "$W/trick.html"; then
			ok "$path is refused ($STATUS)"
		else
			not_ok "$path is refused (got $STATUS)"
			show "$W/trick.html" 3 body
		fi
	done
	long=$(printf 'a%.0s' $(seq 60000))
	get long "/ui/top?f=$long"
	check "a 60 kB URL is refused (414 or 431; got $STATUS)" test "$STATUS" = 414 -o "$STATUS" = 431
	long=$(printf 'a%.0s' $(seq 5000))
	get longv "/ui/top?f=$long"
	check "a 5000-byte value is refused (414; got $STATUS)" test "$STATUS" = 414
	many=$(for i in $(seq 40); do printf 'f=a&'; done)
	get many "/ui/top?$many"
	check "40 parameters are refused (414; got $STATUS)" test "$STATUS" = 414
	get nul "/ui/top?f=a%00b"
	check "a NUL in a value is refused (400; got $STATUS)" test "$STATUS" = 400
	get bighdr /ui/top "X-Big:$(printf 'b%.0s' $(seq 40000))"
	check "40 kB of headers are refused (431 or 413; got $STATUS)" \
		test "$STATUS" = 431 -o "$STATUS" = 413 -o "$STATUS" = 414
	STATUS=$(python3 "$W/fetch.py" "$HOSTPORT" POST /ui/top "$W/post.html" Body:10)
	check "POST is refused (405; got $STATUS)" test "$STATUS" = 405
	STATUS=$(python3 "$W/fetch.py" "$HOSTPORT" GET /ui/top "$W/body.html" Body:100000)
	check "a GET with a 100 kB body is refused (413; got $STATUS)" test "$STATUS" = 413
	get host /ui/top "Host:attacker.example:80"
	check "a Host that is not the loopback is refused (403; got $STATUS)" test "$STATUS" = 403
	get host2 /ui/top "Host:localhost:1"
	check "Host localhost is served (200; got $STATUS)" test "$STATUS" = 200
	page after /ui/top 200 "$HOT"

	# Headless Chromium: the pages' scripts run; the hottest function is in the DOM.
	chromium_run --dump-dom "$URL" >"$W/graph.dom"
	check "chromium: the graph page's DOM has $HOT" grep -q ">$HOT<" "$W/graph.dom"
	check "chromium: the page's script fitted the graph (viewport transform)" \
		grep -q 'id="viewport" transform="matrix(' "$W/graph.dom"
	chromium_run --dump-dom "${URL}top" >"$W/top.dom"
	check "chromium: the top page's DOM has $HOT" grep -q ">$HOT<" "$W/top.dom"
	if has_format flame; then
		chromium_run --dump-dom "${URL}flamegraph.svg" >"$W/flame.dom"
		check "chromium: the flame graph's DOM has $HOT" grep -q "$HOT" "$W/flame.dom"
		chromium_run --screenshot="$W/flame.png" --window-size=1200,800 "${URL}flamegraph"
		check "chromium: a screenshot of the flame graph page" test -s "$W/flame.png"
	else
		skip "chromium: the flame graph (this pprof has no --flame yet)"
	fi
	for shot in graph: top:top source:"source?f=%5Emain%24"; do
		chromium_run --screenshot="$W/${shot%%:*}.png" --window-size=1200,800 "${URL}${shot#*:}"
		check "chromium: a screenshot of the ${shot%%:*} page" \
			test "$(stat -c %s "$W/${shot%%:*}.png" 2>/dev/null || echo 0)" -gt 10000
	done
	stop_server prog INT
fi

# --- hostile names: a profile whose names are markup -------------------------

cat >"$W/hostile.py" <<'EOF'
# A profile.proto whose function, file and mapping names would be markup if a
# page did not escape them.
import sys

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def vi(n, v):
    return varint(n << 3) + varint(v)

def ld(n, payload):
    return varint(n << 3 | 2) + varint(len(payload)) + payload

MAIN, SCRIPT, EVIL = "main", '<script>alert("pwned")</script>', 'evil\'"&<b>name'
FILE, MAP = "<img src=x onerror=alert(1)>.c", '/tmp/"><svg onload=alert(2)>'
strings = ["", "samples", "count", MAIN, SCRIPT, EVIL, FILE, MAP]
S = {s: i for i, s in enumerate(strings)}
p = ld(1, vi(1, S["samples"]) + vi(2, S["count"]))
for locs, v in (([3, 2, 1], 10), ([2, 1], 5), ([1], 1)):
    p += ld(2, ld(1, b"".join(varint(x) for x in locs)) + ld(2, varint(v)))
p += ld(3, vi(1, 1) + vi(2, 0x400000) + vi(3, 0x500000) + vi(5, S[MAP]) +
        vi(7, 1) + vi(8, 1) + vi(9, 1))
for loc, fn, line in ((1, 1, 10), (2, 2, 20), (3, 3, 30)):
    p += ld(4, vi(1, loc) + vi(2, 1) + vi(3, 0x401000 + 16 * loc) +
            ld(4, vi(1, fn) + vi(2, line)))
for fn, name in ((1, MAIN), (2, SCRIPT), (3, EVIL)):
    p += ld(5, vi(1, fn) + vi(2, S[name]) + vi(3, S[name]) + vi(4, S[FILE]))
p += b"".join(ld(6, s.encode()) for s in strings)
open(sys.argv[1], "wb").write(p)
EOF
python3 "$W/hostile.py" "$W/hostile.pb"
# --no_strip_temp keeps the angle brackets in the function names.
if start_server hostile --no_strip_temp "$W/hostile.pb"; then
	for path in /ui/ /ui/top "/ui/top?g=lines" "/ui/source?f=alert" "/ui/disasm?f=evil" \
		"/ui/top?f=%22%3E%3Cscript%3Ealert(3)%3C/script%3E" \
		"/ui/?f=%27%3E%3Cimg%20src=x%20onerror=alert(4)%3E" "/ui/peek?f=alert" \
		"/ui/flamegraph" "/ui/flamegraph.svg"; do
		get hostile "$path"
		if [ "$STATUS" = 404 ] && [[ $path == */peek* || $path == */flamegraph* ]]; then
			skip "hostile names: $path (this pprof has no such view yet)"
			continue
		fi
		if grep -qE '<script>alert|<b>name|<img src=x|<svg onload|"><script|'"'"'><img' \
			"$W/hostile.html"; then
			not_ok "hostile names: $path shows them unescaped"
			grep -oE '.{0,40}(<script>alert|<b>name|<img src=x|<svg onload|"><script|'"'"'><img).{0,20}' \
				"$W/hostile.html" | head -n 3 | sed 's/^/    /'
		else
			ok "hostile names: $path escapes them ($STATUS)"
		fi
	done
	get hostile /ui/top
	check "hostile names: the top table shows <script> escaped" \
		grep -qF '&lt;script&gt;alert&lt;/script&gt;' "$W/hostile.html"
	check "hostile names: the top table shows the quotes and & escaped" \
		grep -qF 'evil&#39;&quot;&amp;&lt;b&gt;name' "$W/hostile.html"
	get hostile "/ui/top?g=lines"
	check "hostile names: file names escaped" grep -qF '&lt;img src=x onerror=alert(1)&gt;.c' "$W/hostile.html"
	get hostile /ui/
	check "hostile names: the graph shows them escaped" grep -qF '&lt;script&gt;alert' "$W/hostile.html"
	stop_server hostile TERM
fi

# --- a profile made with libprofiler -------------------------------------------

if build cprog gcc -g -O2 -o "$W/cprog" "$TESTDATA/progs/cprog.c" "${PROF_LIBS[@]}" &&
	cpu_profile cprog "$W/cprog" "$W/cprog.prof"; then
	"$PPROF" --text "$W/cprog" "$W/cprog.prof" >"$W/cprog.text" 2>/dev/null
	CHOT=$(text_rows "$W/cprog.text" | head -n 1 | awk '{print $6}')
	if start_server cprog "$W/cprog" "$W/cprog.prof"; then
		get ctop /ui/top
		text_rows "$W/cprog.text" >"$W/cprog.rows"
		same_as "cprog: the top table is --text's" rows ctop "$W/cprog.rows"
		page cgraph /ui/ 200 "$CHOT"
		"$PPROF" --svg "$W/cprog" "$W/cprog.prof" >"$W/cprog.svg" 2>/dev/null
		svg_texts "$W/cprog.svg" >"$W/cprog.svg.texts"
		same_as "cprog: the graph is --svg's" texts cgraph "$W/cprog.svg.texts"
		page csource "/ui/source?f=%5Emain%24" 200 "ROUTINE"
		"$PPROF" --list='^main$' "$W/cprog" "$W/cprog.prof" >"$W/cprog.list" 2>/dev/null
		same_as "cprog: the source listing is --list's" pre csource "$W/cprog.list"
		chromium_run --dump-dom "$URL" >"$W/cprog.dom"
		check "chromium: the cprog graph's DOM has $CHOT" grep -qF "$CHOT" "$W/cprog.dom"
		stop_server cprog TERM
	fi
fi

# --- $BROWSER, a busy port ------------------------------------------------------

cat >"$W/fake-browser" <<EOF
#!/bin/sh
echo "\$1" >"$W/browser.url"
EOF
chmod +x "$W/fake-browser"
SERVER_ERR=$W/browser.server.err
BROWSER="$W/fake-browser %s" command timeout "$(scaled 600)" "$PPROF" --http=127.0.0.1:0 \
	--focus=main "$G/prog" "$G/prof64le.prof" 2>"$SERVER_ERR" &
SERVER_PID=$!
for i in $(seq 300); do [ -s "$W/browser.url" ] && break; sleep 0.1; done
URL=$(grep -o 'http://[^ ]*' "$SERVER_ERR" | head -n 1)
check "\$BROWSER opens the URL, which carries the command line's focus" \
	grep -qx "${URL:-none}" "$W/browser.url"
check "the URL has f=main" grep -q '/ui/?f=main$' "$W/browser.url"
HOSTPORT=${URL#http://}
HOSTPORT=${HOSTPORT%%/*}
run_pprof --http="$HOSTPORT" --no_browser "$G/prog" "$G/prof64le.prof"
check "a busy port fails with status 1" test "$RC" -eq 1
check "a busy port: the message says so" grep -q "cannot listen" "$W/err"
stop_server browser TERM

exit "$FAILED"
