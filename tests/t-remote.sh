#!/usr/bin/env bash
# t-remote.sh - remote profiles and remote symbols, against servers on 127.0.0.1.
#
# 1. gperftools' protocol (tests/pprof-server.py serving CPU profiles of
#    testdata/progs made here, naming addresses from the programs' symbols):
#    "$PPROF --text 127.0.0.1:PORT" without a program prints what
#    google-pprof prints against the same server, byte for byte; the
#    fetched profile is saved under $PPROF_TMPDIR as google-pprof names it,
#    and reads again offline; redirects, credentials, proxies.
# 2. Go's net/http/pprof (testdata/go/pprofserver.go): CPU and heap profiles
#    report its hot functions, as go tool pprof does on the saved file.
# 3. Bad servers: refused connections, unknown hosts, 404, 500, timeouts,
#    cut and endless bodies, pages that are no profile, redirect loops, a
#    server without symbols: exit 1, one line naming the URL, nothing saved.
# 4. A terminal sees a countdown; Ctrl-C ends the fetch cleanly.
# 5. Remote symbols for local files: a stripped program's profile gets
#    names and lines from debuginfod (Debian's debuginfod indexing the
#    debug file), and a profile whose program is gone finds it by build id
#    (debuginfod, PPROF_BINARY_PATH).
# Every server listens on 127.0.0.1 only (debuginfod on every address of
# the machine, as it has no option to choose, and is asked on 127.0.0.1),
# stops by itself, and is killed when the script ends.
set -u
source "$(dirname "$0")/lib.sh"

PROGS=$TESTDATA/progs
W=$TEST_TMP/remote
mkdir -p "$W"
REF=${GOOGLE_PPROF:-google-pprof}
SERVER=$TOP/tests/pprof-server.py

require --libprofiler "$REF" python3 gcc g++ nm curl || exit 1

# Only loopback traffic: no proxy unless a test sets one.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
unset DEBUGINFOD_URLS PPROF_BINARY_PATH
export PPROF_TMPDIR=$W/saved
mkdir -p "$PPROF_TMPDIR"

PIDS=()
stop_servers() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
}
prev_trap=$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")
trap "stop_servers; $prev_trap" EXIT

# serve NAME PORTFILE COMMAND...: starts COMMAND (which writes its port to
# PORTFILE and stops by itself; timeout stops it too) and sets PORT.
serve() {
	local name=$1 pf=$2 i
	shift 2
	rm -f "$pf"
	timeout 300 "$@" >"$W/$name.log" 2>&1 &
	PIDS+=($!)
	for i in $(seq 300); do
		[ -s "$pf" ] && break
		sleep 0.1
	done
	PORT=$(cat "$pf" 2>/dev/null)
	if [ -z "$PORT" ]; then
		not_ok "$name starts"
		show "$W/$name.log" 10
		return 1
	fi
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

saved_count() { find "$PPROF_TMPDIR" -type f | wc -l; }

# --- 1. gperftools' protocol ------------------------------------------------
build c-prog gcc -g -O2 -o "$W/c-prog" "$PROGS/cprog.c" "${PROF_LIBS[@]}" || exit 1
build cxx-prog g++ -g -O2 -o "$W/cxx-prog" "$PROGS/cxxprog.cc" "${PROF_LIBS[@]}" || exit 1
cpu_profile c-prog "$W/c-prog" "$W/c-prog.prof" || exit 1
cpu_profile cxx-prog "$W/cxx-prog" "$W/cxx-prog.prof" || exit 1

# compare NAME URL OPTS...: google-pprof and we, --text OPTS URL, stdout byte for byte.
compare() {
	local name=$1 url=$2 rc
	shift 2
	"$REF" --text --seconds=1 "$@" "$url" >"$W/ref.txt" 2>"$W/ref.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$W/ref.txt" ]; then
		not_ok "$name: google-pprof failed (status $rc)"
		show "$W/ref.err" 5 stderr
		return 1
	fi
	timeout 60 "$PPROF" --text --seconds=1 "$@" "$url" >"$W/out.txt" 2>"$W/err"
	rc=$?
	# Names from the server have no file or line: google-pprof shows "?",
	# we show "??:0" as for any address without one.
	gp_text "$W/out.txt" | sed 's/ ??:0$/ ?/' >"$W/out.gp"
	same_output "$name matches google-pprof" "$W/ref.txt" "$W/out.gp"
	clean_exit "$name exits 0" "$rc" "$W/err" 0
}

for prog in c-prog cxx-prog; do
	serve "$prog-server" "$W/$prog.port" python3 "$SERVER" --lifetime 240 \
		--profile "$W/$prog.prof" --port-file "$W/$prog.port" --log "$W/$prog.requests" \
		-- "$W/$prog" --some-flag || continue
	P=$PORT
	compare "$prog: --text" "127.0.0.1:$P"
	compare "$prog: --text --cum" "127.0.0.1:$P/pprof/profile" --cum
	compare "$prog: --text --focus" "http://127.0.0.1:$P" --focus=main
	compare "$prog: --text --addresses (but for '?')" "127.0.0.1:$P" --addresses
	check "$prog: the server's names were asked for (POST /pprof/symbol)" \
		grep -q '^POST /pprof/symbol' "$W/$prog.requests"

	# Saved as google-pprof names it, the path on stderr, and readable offline.
	before=$(saved_count)
	run_pprof --text --seconds=1 "127.0.0.1:$P"
	saved=$(sed -n 's/^Wrote profile to //p' "$W/err")
	check "$prog: stderr says only where the profile was saved" \
		test "$(wc -l <"$W/err")" -eq 1 -a -n "$saved"
	check "$prog: saved as PPROF_TMPDIR/PROGRAM.TIME.HOST" \
		test "$(dirname "$saved")" = "$PPROF_TMPDIR" -a \
		"$(basename "$saved" | sed -E 's/\.[0-9]{9,}\./.TIME./')" = "$prog.TIME.127.0.0.1"
	check "$prog: the saved file is the server's profile" cmp -s "$saved" "$W/$prog.prof"
	check "$prog: one file more, no temporary left" \
		test "$(saved_count)" -eq $((before + 1)) -a -z "$(find "$PPROF_TMPDIR" -name '.tmp*')"
	"$REF" --text "$W/$prog" "$saved" >"$W/ref-offline.txt" 2>/dev/null
	run_pprof --text "$W/$prog" "$saved"
	same_output "$prog: the saved profile reads offline as google-pprof reads it" \
		"$W/ref-offline.txt" "$W/out"
done

# libcurl, and the TLS libraries it brings, are opened for remote profiles
# only: their constructors cost every run that loads them.
LD_DEBUG=files "$PPROF" --text "$W/c-prog" "$W/c-prog.prof" >/dev/null 2>"$W/ld-local.err"
check "a local report loads neither libcurl nor libmicrohttpd" \
	bash -c "! grep -qE 'file=lib(curl|microhttpd)' '$W/ld-local.err'"
check "... as the loader's trace shows (it names pprof's libraries)" \
	grep -q 'file=libdw' "$W/ld-local.err"
LD_DEBUG=files timeout 60 "$PPROF" --text --seconds=1 "127.0.0.1:$(cat "$W/c-prog.port")" \
	>/dev/null 2>"$W/ld-remote.err"
check "a remote profile opens libcurl when it fetches" \
	grep -q 'file=libcurl.*dynamically loaded by' "$W/ld-remote.err"

P=$(cat "$W/c-prog.port")
# Redirects are followed; credentials stay out of messages and file names.
run_pprof --text --seconds=0 "127.0.0.1:$P/redirect/pprof/profile"
check "a redirect is followed" test "$RC" -eq 0 -a -s "$W/out"
run_pprof --text --seconds=0 "http://someone:s3cret@127.0.0.1:$P"
check "credentials in the URL: fetched" test "$RC" -eq 0 -a -s "$W/out"
check "credentials in the URL: not in messages or file names" \
	test -z "$(grep -e s3cret -e someone "$W/err"; find "$PPROF_TMPDIR" | grep -e s3cret -e someone)"

# A proxy from libcurl's environment: it gets the requests for a name that
# only it knows (no name lookup happens here).
cat >"$W/proxy.py" <<'EOF'
import http.server, os, sys, threading, urllib.request
target, portfile, log = sys.argv[1], sys.argv[2], sys.argv[3]
class P(http.server.BaseHTTPRequestHandler):
    def relay(self):
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else None
        path = self.path.split("/", 3)[3] if self.path.startswith("http") else self.path.lstrip("/")
        req = urllib.request.Request("http://%s/%s" % (target, path), data=data, method=self.command)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(req) as r:
            body = r.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = relay
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), P)
open(portfile + ".tmp", "w").write("%d\n" % s.server_address[1])
os.rename(portfile + ".tmp", portfile)
threading.Timer(120, lambda: os._exit(0)).start()
s.serve_forever()
EOF
if serve proxy "$W/proxy.port" python3 "$W/proxy.py" "127.0.0.1:$P" "$W/proxy.port" "$W/proxy.log"; then
	http_proxy=http://127.0.0.1:$PORT run_pprof --text --seconds=0 pprof-test.invalid:80
	check "http_proxy is honoured" test "$RC" -eq 0 -a -s "$W/out"
	check "the proxy relayed the profile and symbol requests" \
		grep -Eq '^POST http://pprof-test.invalid(:80)?/pprof/symbol' "$W/proxy.log"
	check "the saved file is named after the host asked for" \
		test -n "$(find "$PPROF_TMPDIR" -name 'c-prog.*.pprof-test.invalid')"
fi

# --- 2. Go's net/http/pprof ---------------------------------------------------
if have go; then
	mkdir -p "$W/go"
	cp "$TESTDATA/go/pprofserver.go" "$W/go/"
	if [ -z "$HOME" ] || [ ! -w "$HOME" ]; then
		export GOCACHE="$W/go/cache" GOPATH="$W/go/path"
	fi
	if build pprofserver env GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local \
		go build -o "$W/go/pprofserver" "$W/go/pprofserver.go" &&
		serve go-server "$W/go.port" "$W/go/pprofserver" "$W/go.port" 200; then
		G=$PORT
		run_pprof --text --seconds=2 "127.0.0.1:$G/debug/pprof/profile"
		cp "$W/out" "$W/go-cpu.txt"
		check "Go CPU profile: main.spinHot is the hottest, main.spinWarm next" \
			test "$(awk '$NF ~ /^main\./ {print $NF}' "$W/go-cpu.txt" | head -2 | tr '\n' ' ')" = \
			"main.spinHot main.spinWarm "
		saved=$(sed -n 's/^Wrote profile to //p' "$W/err")
		check "Go CPU profile: saved as pprofserver.TIME.127.0.0.1" \
			test "$(basename "$saved" | sed -E 's/\.[0-9]{9,}\./.TIME./')" = "pprofserver.TIME.127.0.0.1"
		run_pprof --text "$saved"
		same_output "Go CPU profile: the saved file reads offline the same" "$W/go-cpu.txt" "$W/out"
		go tool pprof -top "$saved" 2>/dev/null | awk '$NF ~ /^main\./ {print $NF; exit}' >"$W/go-top"
		check "Go CPU profile: go tool pprof's hottest function is ours" \
			test "$(cat "$W/go-top")" = main.spinHot

		run_pprof --text "127.0.0.1:$G/debug/pprof/heap"
		cp "$W/out" "$W/go-heap.txt"
		check "Go heap profile: main.retainBlocks holds the memory" \
			test "$(awk 'NR > 2 {print $NF; exit}' "$W/go-heap.txt")" = main.retainBlocks
		saved=$(sed -n 's/^Wrote profile to //p' "$W/err")
		check "Go heap profile: saved with the page in its name (.pprof.heap)" \
			test "$(basename "$saved" | sed -E 's/\.[0-9]{9,}\./.TIME./')" = \
			"pprofserver.TIME.127.0.0.1.pprof.heap"
		go tool pprof -top "$saved" 2>/dev/null | awk '$NF ~ /^main\./ {print $NF; exit}' >"$W/go-top"
		check "Go heap profile: go tool pprof agrees" test "$(cat "$W/go-top")" = main.retainBlocks
		for page in allocs goroutine mutex block; do
			run_pprof --text "http://127.0.0.1:$G/debug/pprof/$page"
			clean_exit "Go $page profile is fetched and read" "$RC" "$W/err" 0
		done
	fi
else
	skip "Go server tests (go is not installed; scripts/install-deps installs golang-go)"
fi

# --- 3. Bad servers -------------------------------------------------------
# bad NAME TEXT PPROF-ARGS...: fails cleanly naming TEXT, nothing saved.
bad() {
	local name=$1 text=$2 before
	shift 2
	before=$(saved_count)
	run_pprof --text "$@"
	fails_cleanly "$name" "$text"
	check "$name: nothing saved" \
		test "$(saved_count)" -eq "$before" -a -z "$(find "$PPROF_TMPDIR" -name '.tmp*')"
}

U=127.0.0.1:$P
SHOW_ERR=1
NP=$(free_port)
bad "connection refused" "127.0.0.1:$NP/pprof/symbol" --seconds=0 "127.0.0.1:$NP"
if unshare -n true 2>/dev/null; then
	# In a network namespace of its own (no network at all), no query leaves the machine.
	before=$(saved_count)
	timeout 20 unshare -n "$PPROF" --text --seconds=0 pprof-test.invalid:80 >"$W/out" 2>"$W/err"
	RC=$?
	fails_cleanly "unknown host" "http://pprof-test.invalid:80/pprof/symbol"
else
	skip "unknown host (unshare -n is not permitted here)"
fi
bad "404" "http://$U/e404/pprof/profile?seconds=0: the server answered 404" --seconds=0 "$U/e404"
bad "500" "http://$U/e500/pprof/profile?seconds=0: the server answered 500" --seconds=0 "$U/e500"
bad "timeout" "http://$U/slow/pprof/profile?seconds=0" --seconds=0 --timeout=2 "$U/slow"
bad "truncated reply" "http://$U/trunc/pprof/profile?seconds=0" --seconds=0 "$U/trunc"
bad "truncated profile" "http://$U/cut/pprof/profile?seconds=0" --seconds=0 "$U/cut"
bad "not a profile" "http://$U/html/pprof/profile?seconds=0: unknown profile format" --seconds=0 "$U/html"
bad "endless reply" "larger than 1048576 bytes" --seconds=0 --max_input=1M "$U/endless"
bad "redirect loop" "http://$U/loop/pprof/profile?seconds=0" --seconds=0 "$U/loop"
bad "no symbol page" "http://$U/nosym/pprof/symbol: the server answered 404" --seconds=0 "$U/nosym"
bad "no symbols" "http://$U/stripped/pprof/symbol: the server has no symbols" --seconds=0 "$U/stripped"
bad "https to a plain server" "https://$U/pprof/symbol" --seconds=0 "https://$U"
bad "a program with a bad server" "http://$U/e500/pprof/profile?seconds=0" --seconds=0 "$W/c-prog" "$U/e500"
SHOW_ERR=

# --- 4. A terminal: the countdown, and Ctrl-C -----------------------------------
# term.py INTERRUPT OUT CMD...: CMD with its stderr on a terminal; with
# INTERRUPT 1, a SIGINT half a second after the countdown first shows (the
# fetch has begun, however slowly pprof started: valgrind).
cat >"$W/term.py" <<'EOF'
import os, pty, signal, subprocess, sys, time
interrupt, out = sys.argv[1] == "1", sys.argv[2]
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[3:], stdout=open(out, "w"), stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
seen, start, sent, shown = b"", time.time(), False, None
while True:
    if shown is None and b" s left" in seen:
        shown = time.time()
    if interrupt and not sent and shown is not None and time.time() - shown > 0.5:
        p.send_signal(signal.SIGINT)
        sent = True
    try:
        import select
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            seen += os.read(master, 4096)
    except OSError:
        pass
    if p.poll() is not None:
        try:
            while True:
                r, _, _ = select.select([master], [], [], 0.2)
                if not r:
                    break
                seen += os.read(master, 4096)
        except OSError:
            pass
        break
    if time.time() - start > 30:
        p.kill()
sys.stdout.write(seen.decode("latin-1").replace("\r", "\n"))
sys.exit(p.returncode)
EOF
python3 "$W/term.py" 0 "$W/tty.out" "$PPROF" --text --seconds=3 "$U" >"$W/tty.err"
RC=$?
check "terminal: the fetch succeeds" test "$RC" -eq 0 -a -s "$W/tty.out"
check "terminal: a countdown of the seconds left" \
	grep -q 'Collecting a 3-second profile from http://127.0.0.1:[0-9]*/pprof/profile?seconds=3: 2 s left' "$W/tty.err"
before=$(saved_count)
python3 "$W/term.py" 1 "$W/tty.out" "$PPROF" --text --seconds=5 "$U" >"$W/tty.err"
RC=$?
check "Ctrl-C: exit status 1, a message, no report" \
	test "$RC" -eq 1 -a ! -s "$W/tty.out"
check "Ctrl-C: the message names the URL" grep -q "pprof: http://$U/pprof/profile?seconds=5: interrupted" "$W/tty.err"
check "Ctrl-C: nothing saved" test "$(saved_count)" -eq "$before"

# --- 5. Remote symbols for local files: debuginfod, build ids -----------------
# hot.c: a program built with a build id, stripped; its debug file apart.
cat >"$W/hot.c" <<'EOF'
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long leaf(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		sink = s += i * i;
	return s;
}
__attribute__((noinline)) static unsigned long mid(unsigned long n)
{
	return leaf(n) + leaf(n / 2);
}
int main(int argc, char **argv)
{
	for (int i = 0; i < 600; i++)
		sink += mid(1000000 + argc);
	printf("%lu\n", sink);
	return 0;
}
EOF
D=$W/dbg
mkdir -p "$D/index"
build hot gcc -g -O2 -Wl,--build-id -o "$D/hot" "$W/hot.c" "${PROF_LIBS[@]}" &&
	objcopy --only-keep-debug "$D/hot" "$D/index/hot.debug" &&
	objcopy --strip-all "$D/hot" "$D/index/hot" &&
	cp "$D/index/hot" "$W/hot.stripped" &&
	cpu_profile hot "$W/hot.stripped" "$W/hot.prof" || exit 1
BUILD_ID=$(readelf -n "$D/hot" | awk '/Build ID/ {print $3}')

# The reference: the profile read with the program before stripping.
run_pprof --text --lines "$D/hot" "$W/hot.prof"
cp "$W/out" "$W/hot-lines.ref"
check "the unstripped program names leaf and mid with lines" \
	grep -q 'leaf .*hot.c:[0-9]' "$W/hot-lines.ref"
run_pprof --text --lines "$W/hot.stripped" "$W/hot.prof"
check "stripped, no debuginfod: no names" test "$RC" -eq 0 -a -z "$(grep 'leaf' "$W/out")"

if have debuginfod; then
	DP=$(free_port)
	timeout 200 debuginfod -F -p "$DP" -d "$W/debuginfod.sqlite" -g 0 "$D/index" \
		>"$W/debuginfod.log" 2>&1 &
	PIDS+=($!)
	for i in $(seq 300); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' \
			"http://127.0.0.1:$DP/buildid/$BUILD_ID/debuginfo")" = 200 ] && break
		sleep 0.1
	done
	export DEBUGINFOD_CACHE_PATH=$W/debuginfod-cache
	DEBUGINFOD_URLS=http://127.0.0.1:$DP run_pprof --text --lines "$W/hot.stripped" "$W/hot.prof"
	same_output "stripped: debuginfod's debug file gives the names and lines" \
		"$W/hot-lines.ref" "$W/out"
	clean_exit "stripped with debuginfod exits 0" "$RC" "$W/err" 0

	# A profile from elsewhere: its mappings carry build ids, its program is not here.
	cat >"$W/buildids.py" <<'EOF'
# buildids.py IN OUT FILE=BUILDID...: a profile.proto with the build ids
# given for the mappings of those files, and no function names (as a
# profiler that does not symbolize writes it).
import gzip, sys
def varint(b, i):
    x = s = 0
    while True:
        c = b[i]; i += 1; x |= (c & 0x7f) << s; s += 7
        if c < 0x80: return x, i
def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i); f, t = key >> 3, key & 7
        if t == 0: v, j = varint(b, i); yield f, t, b[i:j]; i = j
        elif t == 2: n, j = varint(b, i); yield f, t, b[j:j + n]; i = j + n
        elif t == 1: yield f, t, b[i:i + 8]; i += 8
        elif t == 5: yield f, t, b[i:i + 4]; i += 4
def enc_varint(x):
    out = bytearray()
    while True:
        c = x & 0x7f; x >>= 7
        if x: out.append(c | 0x80)
        else: out.append(c); return bytes(out)
def field(f, t, v):
    key = enc_varint(f << 3 | t)
    return key + (enc_varint(len(v)) + v if t == 2 else v)
data = gzip.decompress(open(sys.argv[1], "rb").read())
ids = dict(a.split("=", 1) for a in sys.argv[3:])
strings = [v.decode() for f, t, v in fields(data) if f == 6]
out = bytearray()
for f, t, v in fields(data):
    if f == 5:
        continue  # functions
    if f == 4:  # a location without lines
        v = b"".join(field(*x) for x in fields(v) if x[0] != 4)
    if f == 3:  # a mapping: its build id, and nothing symbolized
        m = [x for x in fields(v) if x[0] not in (6, 7, 8, 9, 10)]
        name = [strings[varint(x[2], 0)[0]] for x in m if x[0] == 5]
        if name and name[0] in ids:
            strings.append(ids[name[0]])
            m.append((6, 0, enc_varint(len(strings) - 1)))
        v = b"".join(field(*x) for x in m)
    if f == 6:
        continue
    out += field(f, t, v)
for s in strings:
    out += field(6, 2, s.encode())
open(sys.argv[2], "wb").write(gzip.compress(bytes(out)))
EOF
	mkdir -p "$W/gone"
	cp "$W/hot.stripped" "$W/gone/hot"
	cpu_profile hot-gone "$W/gone/hot" "$W/gone.prof" &&
		run_pprof --proto "$W/gone/hot" "$W/gone.prof" && cp "$W/out" "$W/gone.pb.gz" &&
		python3 "$W/buildids.py" "$W/gone.pb.gz" "$W/gone-ids.pb.gz" "$W/gone/hot=$BUILD_ID"
	run_pprof --text --lines "$D/hot" "$W/gone.prof"
	cp "$W/out" "$W/gone-lines.ref"
	rm -f "$W/gone/hot"
	run_pprof --text --lines "$W/gone-ids.pb.gz"
	check "program gone, no debuginfod: no names" test -z "$(grep 'leaf' "$W/out")"
	DEBUGINFOD_URLS=http://127.0.0.1:$DP run_pprof --text --lines "$W/gone-ids.pb.gz"
	check "program gone: debuginfod finds it by build id (names and lines)" \
		grep -q 'leaf .*hot.c:[0-9]' "$W/out"
	lines_of() { awk '$NF ~ /:[0-9]+$/ {print $(NF-1), $NF}' "$1" | sort -u; }
	check "program gone: the same functions and lines as with the program" \
		test "$(lines_of "$W/gone-lines.ref")" = "$(lines_of "$W/out")"
	clean_exit "program gone, with debuginfod, exits 0" "$RC" "$W/err" 0
	unset DEBUGINFOD_CACHE_PATH
else
	not_ok "debuginfod is installed (run scripts/install-deps)"
fi

# PPROF_BINARY_PATH: directories searched by build id and by name.
mkdir -p "$W/bin/$BUILD_ID" "$W/byname" "$W/other"
cp "$D/hot" "$W/bin/$BUILD_ID/hot"
cp "$D/hot" "$W/byname/hot"
PPROF_BINARY_PATH=$W/nonesuch:$W/bin run_pprof --text "$W/gone-ids.pb.gz"
check "PPROF_BINARY_PATH: DIR/BUILDID/NAME" grep -q ' leaf$' "$W/out"
PPROF_BINARY_PATH=$W/byname run_pprof --text "$W/gone-ids.pb.gz"
check "PPROF_BINARY_PATH: DIR/NAME" grep -q ' leaf$' "$W/out"
mkdir -p "$W/bid/.build-id/${BUILD_ID:0:2}"
cp "$D/hot" "$W/bid/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}"
PPROF_BINARY_PATH=$W/bid run_pprof --text "$W/gone-ids.pb.gz"
check "PPROF_BINARY_PATH: DIR/.build-id/XX/REST" grep -q ' leaf$' "$W/out"
# Another program of the same name is not taken for it.
cp "$W/c-prog" "$W/other/hot"
PPROF_BINARY_PATH=$W/other run_pprof --text "$W/gone-ids.pb.gz"
check "PPROF_BINARY_PATH: a file of another build id is ignored, and said so" \
	test -z "$(grep ' leaf$' "$W/out")" -a -n "$(grep 'build id' "$W/err")"

exit "$FAILED"
