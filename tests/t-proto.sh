#!/usr/bin/env bash
# t-proto.sh - profile.proto: reading Go's profiles, writing ours, bad input.
#
# 1. Go profiles (scripts/gen-goprofiles: cpu, heap, allocs, mutex, block,
#    goroutine) and google/pprof's sample.cpu (from the shared test data
#    beside the repository, when it is there): for every sample index, the
#    flat and cumulative value of each function in "$PPROF --text
#    --sample_index=N" equals go tool pprof -text's, compared as numbers.
# 2. Round trips: --proto of a gperftools CPU profile, read by go tool
#    pprof, gives our --text's numbers; our reader gives the same --text
#    from it; --proto of a proto gives the same bytes again, and go tool
#    pprof -raw the same profile (but for the has_* flags of mappings, which
#    we set from what the locations carry).
# 3. Malformed input (truncated, corrupt gzip, a gzip bomb, bad varints,
#    wire types, ids, lengths): exit 1, one line on stderr naming the file,
#    nothing on stdout, no sanitizer report.
# Parts 1 and 2 need go (golang-go, from scripts/install-deps) and skip
# without it.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/proto
mkdir -p "$W"
SHARED=${PPROF_SHARED:-$TOP/../shared}
SAMPLE_CPU=$SHARED/testdata/google-pprof/internal/report/testdata/sample.cpu

require --libprofiler python3 gcc || exit 1

# The unit Go prints values in with -unit, for a sample type's unit.
go_unit() {
	case $1 in
	nanoseconds) echo ns ;; microseconds) echo us ;; milliseconds) echo ms ;;
	seconds) echo s ;; bytes) echo B ;; *) echo "" ;;
	esac
}

# Compares the text reports: ours on $1, Go's on $2 (see compare.py).
cat >"$W/compare.py" <<'EOF'
import re, sys

def short(name):
    # gperftools pprof's short names: innermost (...) groups go, repeatedly,
    # but for a Go method's receiver, after a '.' ("fmt.(*pp).fmtInteger").
    inline = name.endswith(" (inline)")
    if inline:
        name = name[: -len(" (inline)")]
    while True:
        n = re.sub(r"(?<!\.)\([^()]*\)", "", name)
        if n == name:
            break
        name = n
    return name + (" (inline)" if inline else "")

def number(s, scale):
    s = s.strip()
    m = re.fullmatch(r"(-?[0-9.]+)([a-zA-Z]*)", s)
    if not m:
        raise ValueError("not a value: %r" % s)
    return float(m.group(1)) * scale

# Both reports print values in the same unit (-unit / --unit), as labels.
ours, theirs = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines()
scale, step = 1.0, 0.5
ours_rows = {}
for line in ours:
    f = line.split(None, 5)
    if len(f) == 6 and re.fullmatch(r"-?[0-9.]+[a-zA-Z]*", f[0]) and f[1].endswith("%"):
        ours_rows[f[5]] = (number(f[0], scale), number(f[3], scale))
go_rows, collide = {}, set()
body = False
for line in theirs:
    if line.strip().startswith("flat"):
        body = True
        continue
    if not body:
        continue
    f = line.split(None, 5)
    if len(f) < 6:
        continue
    name = short(f[5])
    flat, cum = number(f[0], 1), number(f[3], 1)
    if name in go_rows:
        collide.add(name)
        go_rows[name] = (go_rows[name][0] + flat, max(go_rows[name][1], cum))
    else:
        go_rows[name] = (flat, cum)
bad = []
for name in sorted(set(ours_rows) | set(go_rows)):
    o = ours_rows.get(name, (0, 0))
    g = go_rows.get(name, (0, 0))
    if abs(o[0] - g[0]) > step:
        bad.append("%s: flat %g, go %g" % (name, o[0], g[0]))
    # Go names that become one of ours have no cumulative value to compare.
    if name not in collide and abs(o[1] - g[1]) > step:
        bad.append("%s: cum %g, go %g" % (name, o[1], g[1]))
if not ours_rows or not go_rows:
    bad.append("no rows to compare (%d ours, %d go)" % (len(ours_rows), len(go_rows)))
for b in bad[:10]:
    print("    " + b)
sys.exit(1 if bad else 0)
EOF

# compare_go NAME PROFILE: ours and Go's text for every sample index.
compare_go() {
	local name=$1 prof=$2 types i n=0 unit rc noisy=
	if ! go tool pprof -raw "$prof" >"$W/raw" 2>"$W/go.err"; then
		not_ok "$name: go tool pprof reads it"
		sed 's/^/    /' "$W/go.err" | head -n 5
		return
	fi
	types=$(sed -n '/^Samples:/{n;s/\[dflt\]//g;p;q}' "$W/raw")
	for t in $types; do
		unit=$(go_unit "${t#*/}")
		"$PPROF" --text ${unit:+--unit=$unit} --sample_index=$n "$prof" >"$W/ours.txt" 2>"$W/ours.err"
		rc=$?
		if [ "$rc" -ne 0 ] || [ -s "$W/ours.err" ]; then
			noisy="$noisy $n (status $rc: $(head -n 1 "$W/ours.err"))"
		fi
		go tool pprof -symbolize=none -text -nodefraction=0 -edgefraction=0 -nodecount=0 \
			${unit:+-unit=$unit} -sample_index=$n "$prof" >"$W/go.txt" 2>"$W/go.err"
		if python3 "$W/compare.py" "$W/ours.txt" "$W/go.txt" >"$W/cmp.log"; then
			ok "$name: ${t%%/*} per function as go tool pprof"
		else
			not_ok "$name: ${t%%/*} per function as go tool pprof"
			cat "$W/cmp.log"
		fi
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || not_ok "$name: has sample types"
	if [ -z "$noisy" ]; then
		ok "$name: --text exits 0 with nothing on stderr"
	else
		not_ok "$name: --text exits 0 with nothing on stderr; not for:$noisy"
	fi
}

# rawnorm.py: go tool pprof -raw without ids and orders: each sample as its
# values, its stack (location contents: address, mapping file, frames) and
# labels, sorted; mappings' has_* flags left out.
cat >"$W/rawnorm.py" <<'EOF'
import re, sys
lines = sys.stdin.read().splitlines()
sec, samples, locs, maps, head = None, [], {}, {}, []
cur = None
for l in lines:
    if l in ("Samples:", "Locations", "Mappings"):
        sec = l
        continue
    if sec is None:
        head.append(l)
    elif sec == "Samples:":
        m = re.match(r"^\s*([-\d ]+): ([\d ]*)$", l)
        if m:
            cur = [m.group(1).split(), m.group(2).split(), []]
            samples.append(cur)
        elif cur is not None and l.strip():
            cur[2].append(l.strip())
        elif l.strip():
            head.append(l)
    elif sec == "Locations":
        m = re.match(r"^\s*(\d+): (0x[0-9a-f]+) M=(\d+) (.*)$", l)
        if m:
            cur = [m.group(2), m.group(3), [m.group(4)]]
            locs[m.group(1)] = cur
        elif l.strip():
            cur[2].append(l.strip())
    elif sec == "Mappings":
        m = re.match(r"^(\d+): (\S+) (.*?)\s*(\[[A-Z]{2}\])*$", l)
        if m:
            maps[m.group(1)] = m.group(2) + " " + m.group(3)
def loc(i):
    a, mp, fr = locs[i]
    return (a, maps.get(mp, ""), tuple(fr))
out = head + sorted(repr((s[0], [loc(i) for i in s[1]], sorted(s[2]))) for s in samples)
print("\n".join(out))
EOF

# roundtrip NAME PROFILE: --proto twice gives one byte sequence, the same
# -raw for Go (ids, orders and flags aside) and the same --text for us.
roundtrip() {
	local name=$1 prof=$2
	"$PPROF" --proto "$prof" >"$W/rt1.pb.gz" 2>"$W/rt.err" &&
		"$PPROF" --proto "$W/rt1.pb.gz" >"$W/rt2.pb.gz" 2>>"$W/rt.err"
	if [ $? -eq 0 ] && [ ! -s "$W/rt.err" ]; then
		ok "$name: --proto exits 0 with nothing on stderr"
	else
		not_ok "$name: --proto exits 0 with nothing on stderr"
		sed 's/^/    /' "$W/rt.err" | head -n 5
	fi
	check "$name: --proto of its --proto gives the same bytes" cmp -s "$W/rt1.pb.gz" "$W/rt2.pb.gz"
	go tool pprof -raw "$prof" 2>/dev/null | python3 "$W/rawnorm.py" >"$W/raw0"
	go tool pprof -raw "$W/rt1.pb.gz" 2>/dev/null | python3 "$W/rawnorm.py" >"$W/raw1"
	same_output "$name: go tool pprof -raw of --proto" "$W/raw0" "$W/raw1"
	"$PPROF" --text "$prof" >"$W/t0" 2>&1
	"$PPROF" --text "$W/rt1.pb.gz" >"$W/t1" 2>&1
	same_output "$name: --text of --proto" "$W/t0" "$W/t1"
}

# --- 1. Go's profiles ----------------------------------------------------------
if ! have go; then
	skip "go is not installed (golang-go; run scripts/install-deps): Go profiles and round trips"
else
	if "$TOP/scripts/gen-goprofiles" "$W/go" >"$W/gen.log" 2>&1; then
		for p in cpu heap allocs mutex block goroutine; do
			if [ -s "$W/go/$p.pb.gz" ]; then
				compare_go "go $p" "$W/go/$p.pb.gz"
				roundtrip "go $p" "$W/go/$p.pb.gz"
			else
				not_ok "gen-goprofiles writes $p.pb.gz"
			fi
		done
		# Listings of a Go program (its DWARF has no .debug_aranges): the
		# counts of each routine's lines and instructions add up to --text's.
		hot=$("$PPROF" --text --unit=ns "$W/go/cpu.pb.gz" 2>/dev/null |
			awk '$6 ~ /^main\.burn/ { print $6; exit }')
		flat=$("$PPROF" --text --unit=ns "$W/go/cpu.pb.gz" 2>/dev/null |
			awk -v f="$hot" '$6 == f { sub(/ns$/, "", $1); print $1; exit }')
		for mode in list disasm; do
			"$PPROF" --$mode="^$hot\$" --unit=ns "$W/go/profgen" "$W/go/cpu.pb.gz" \
				>"$W/go.$mode" 2>"$W/go.$mode.err"
			sum=$(awk '$1 ~ /^[0-9]+ns$/ && $3 ~ /^[0-9]+:$|^[0-9a-f]+:$/ { sub(/ns$/, "", $1); s += $1 }
				END { print s + 0 }' "$W/go.$mode")
			check "go cpu: --$mode of $hot: rows add up to its flat ${flat}ns (got ${sum}ns)" \
				test -n "$hot" -a "$sum" = "$flat"
		done
	else
		not_ok "scripts/gen-goprofiles runs"
		sed 's/^/    /' "$W/gen.log" | head -n 20
	fi
	if [ -f "$SAMPLE_CPU" ]; then
		compare_go "google/pprof sample.cpu" "$SAMPLE_CPU"
		roundtrip "google/pprof sample.cpu" "$SAMPLE_CPU"
	else
		skip "google/pprof's sample.cpu: skipped, no shared test data beside the repository"
	fi

	# --- 2. a gperftools CPU profile through --proto -----------------------
	cat >"$W/prog.c" <<'EOF'
#include <stdlib.h>
volatile double sink;
__attribute__((noinline)) static void leaf_a(int n) { double x = 0; for (int i = 0; i < n; i++) x += i * 0.5; sink = x; }
__attribute__((noinline)) static void leaf_b(int n) { double x = 1; for (int i = 0; i < n; i++) x *= 1.0000001; sink = x; }
__attribute__((noinline)) static void mid(int n) { leaf_a(n); leaf_b(n / 2); }
int main(int argc, char **argv) { for (int r = 0; r < 60; r++) { mid(2000000); leaf_b(1000000); } return 0; }
EOF
	# A run of a few milliseconds may catch leaf_a alone: every stack's
	# second frame is then mid, which the report removes as a signal frame
	# ("Removing mid from all stack traces"), and --proto keeps what the
	# report saw, while a sum with another profile removes nothing.  The
	# sums below compare like with like only for profiles without that, so
	# a run that has it is made again.
	prog_profile() {
		local try
		for try in 1 2 3 4 5 6; do
			cpu_profile "$1" "$W/prog" "$2" || return 1
			"$PPROF" --text "$W/prog" "$2" 2>&1 >/dev/null | grep -q '^Removing ' || return 0
		done
		not_ok "$1: a profile that samples more than leaf_a in six runs"
		return 1
	}
	if build prog gcc -g -O2 -o "$W/prog" "$W/prog.c" -Wl,--no-as-needed -lprofiler &&
		prog_profile prog "$W/prog.prof"; then
		"$PPROF" --text "$W/prog" "$W/prog.prof" >"$W/gp.txt" 2>"$W/gp.err"
		"$PPROF" --proto "$W/prog" "$W/prog.prof" >"$W/gp.pb.gz" 2>>"$W/gp.err"
		go tool pprof -symbolize=none -text -nodefraction=0 -edgefraction=0 -nodecount=0 \
			-sample_index=samples "$W/gp.pb.gz" >"$W/go.txt" 2>"$W/go.err"
		# Our own functions only: unnamed frames are addresses for gperftools
		# pprof but mapping names for Go.
		# (GCC may name clones leaf_a.constprop.0.)
		grep -E ' (leaf_a|leaf_b|mid|main)[.a-z0-9]*$' "$W/gp.txt" >"$W/gp-own.txt"
		grep -E '  (leaf_a|leaf_b|mid|main)[.a-z0-9]*$' "$W/go.txt" | sed 's/^/ /' >"$W/go-own.txt"
		{ echo "Total: 0 samples"; cat "$W/gp-own.txt"; } >"$W/gp-own2.txt"
		{ echo "      flat"; cat "$W/go-own.txt"; } >"$W/go-own2.txt"
		if [ "$(wc -l <"$W/gp-own.txt")" -ge 1 ] &&
			python3 "$W/compare.py" "$W/gp-own2.txt" "$W/go-own2.txt" >"$W/cmp.log"; then
			ok "gperftools profile: --proto read by go tool pprof gives our --text's numbers"
		else
			not_ok "gperftools profile: --proto read by go tool pprof gives our --text's numbers"
			cat "$W/cmp.log"
			sed 's/^/    ours: /' "$W/gp.txt" | head -n 8
			sed 's/^/    go: /' "$W/go.txt" | head -n 12
		fi
		# The rows; the headers differ (a proto's says its type, and its
		# values print as Go pprof's).
		"$PPROF" --text "$W/gp.pb.gz" 2>&1 | grep -v -e '^Type: ' -e '^Total: ' >"$W/gp2.txt"
		grep -v '^Total: ' "$W/gp.txt" >"$W/gp1.txt"
		same_output "gperftools profile: our --text of our --proto" "$W/gp1.txt" "$W/gp2.txt"
		roundtrip "gperftools profile" "$W/gp.pb.gz"

		# --- merging: sums, mixtures, associativity ---------------------
		for r in 2 3; do
			prog_profile "prog run $r" "$W/prog$r.prof"
			"$PPROF" --proto "$W/prog" "$W/prog$r.prof" >"$W/gp$r.pb.gz" 2>/dev/null
		done
		"$PPROF" --text "$W/prog" "$W/prog.prof" "$W/prog2.prof" >"$W/sum.legacy" 2>/dev/null
		"$PPROF" --text "$W/gp.pb.gz" "$W/gp2.pb.gz" 2>/dev/null |
			grep -v -e '^Type: ' -e '^Total: ' >"$W/sum.proto"
		grep -v '^Total: ' "$W/sum.legacy" >"$W/sum.legacy.rows"
		same_output "two protos add up as their legacy profiles do" "$W/sum.legacy.rows" "$W/sum.proto"
		"$PPROF" --text "$W/prog" "$W/prog.prof" "$W/gp2.pb.gz" 2>/dev/null |
			grep -v -e '^Type: ' -e '^Total: ' >"$W/sum.mixed"
		same_output "a legacy profile and a proto of the same kind add up" "$W/sum.legacy.rows" "$W/sum.mixed"
		# (a + b) + c, a + (b + c) and a + b + c: one profile, byte for byte.
		"$PPROF" --proto "$W/gp.pb.gz" "$W/gp2.pb.gz" >"$W/ab.pb.gz" 2>/dev/null
		"$PPROF" --proto "$W/gp2.pb.gz" "$W/gp3.pb.gz" >"$W/bc.pb.gz" 2>/dev/null
		"$PPROF" --proto "$W/ab.pb.gz" "$W/gp3.pb.gz" >"$W/ab_c.pb.gz" 2>/dev/null
		"$PPROF" --proto "$W/gp.pb.gz" "$W/bc.pb.gz" >"$W/a_bc.pb.gz" 2>/dev/null
		"$PPROF" --proto "$W/gp.pb.gz" "$W/gp2.pb.gz" "$W/gp3.pb.gz" >"$W/abc.pb.gz" 2>/dev/null
		"$PPROF" --proto "$W/gp3.pb.gz" "$W/gp.pb.gz" "$W/gp2.pb.gz" >"$W/cab.pb.gz" 2>/dev/null
		check "merging is associative: (a+b)+c and a+(b+c) are the same bytes" \
			cmp -s "$W/ab_c.pb.gz" "$W/a_bc.pb.gz"
		check "merging is associative: a+b+c in one run, in any order, the same bytes" \
			bash -c "cmp -s '$W/abc.pb.gz' '$W/ab_c.pb.gz' && cmp -s '$W/cab.pb.gz' '$W/abc.pb.gz'"
		check "a merged profile is not empty" test -s "$W/abc.pb.gz"
		run_pprof --text "$W/gp.pb.gz" "$W/go/heap.pb.gz"
		fails_cleanly "a CPU proto and a heap proto" "not the same kind of profile" "heap.pb.gz" "gp.pb.gz"
	fi
fi

# --- big profiles: written on two threads -------------------------------------
# From 65,536 samples the writer encodes the two halves of the samples at
# once, and from 4 MB of encoding it compresses two gzip members at once:
# a profile of 150,000 distinct stacks in the golden program's own
# functions (in its .cold parts two functions share a name, which
# gperftools pprof keeps apart by address and a proto does not) reads back
# with the same report, writes the same bytes again, adds up with itself,
# and (with go) go tool pprof reads the same profile.
python3 - "$W/big.txt" <<'PY'
import random, sys
random.seed(7)
pcs = [0x401600 + i for i in range(0x240)]
with open(sys.argv[1], "w") as f:
    f.write("period 10000\n")
    for i in range(150000):
        stack = random.sample(pcs, 12)
        f.write("%d: %s\n" % (1 + i % 7, " ".join("%x" % a for a in stack)))
PY
BIGP=$TESTDATA/golden/prog
if python3 "$TOP/scripts/gen-cpuprofile" -o "$W/big.prof" "$W/big.txt"; then
	"$PPROF" --proto "$BIGP" "$W/big.prof" >"$W/big.pb.gz" 2>"$W/big.err"
	check "big profile: --proto exits 0" test -s "$W/big.pb.gz"
	members=$(python3 -c '
import sys, zlib
data, n = open(sys.argv[1], "rb").read(), 0
while data:
    d = zlib.decompressobj(16 + 15)
    d.decompress(data)
    data, n = d.unused_data, n + 1
print(n)' "$W/big.pb.gz")
	check "big profile: --proto wrote two gzip members ($members)" test "$members" = 2
	"$PPROF" --addresses "$BIGP" "$W/big.prof" 2>/dev/null | grep -v '^Total' >"$W/big.t0"
	"$PPROF" --addresses "$BIGP" "$W/big.pb.gz" 2>/dev/null | grep -v -e '^Total' -e '^Type' >"$W/big.t1"
	check "big profile: a report of many rows" test "$(wc -l <"$W/big.t0")" -gt 500
	same_output "big profile: --addresses of --proto" "$W/big.t0" "$W/big.t1"
	"$PPROF" --proto "$W/big.pb.gz" >"$W/big2.pb.gz" 2>/dev/null
	check "big profile: --proto of its --proto gives the same bytes" cmp -s "$W/big.pb.gz" "$W/big2.pb.gz"
	"$PPROF" --proto "$BIGP" "$W/big.prof" "$W/big.prof" >"$W/bigx2.pb.gz" 2>/dev/null
	"$PPROF" --proto "$W/big.pb.gz" "$W/big.pb.gz" >"$W/bigx2b.pb.gz" 2>/dev/null
	check "big profile: the sum of two, from the legacy files and from the protos, the same bytes" \
		cmp -s "$W/bigx2.pb.gz" "$W/bigx2b.pb.gz"
	if have go; then
		go tool pprof -raw "$W/big.pb.gz" 2>/dev/null | grep -c '^ *[0-9]' >"$W/big.go" || true
		check "big profile: go tool pprof reads its 150,000 samples" \
			test "$(cat "$W/big.go")" -ge 150000
	fi
else
	not_ok "gen-cpuprofile makes the big profile"
fi

# --- 3. malformed input ---------------------------------------------------------
# gen.py writes a small valid profile (plain and gzip) and the broken ones.
cat >"$W/gen.py" <<'EOF'
import gzip, os, sys, zlib

def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def key(n, wt):
    return varint(n << 3 | wt)

def vi(n, v):
    return key(n, 0) + varint(v)

def ld(n, payload):
    return key(n, 2) + varint(len(payload)) + payload

def profile(strings=("", "samples", "count", "cpu", "nanoseconds", "main", "prog", "k", "v"),
            mapping_id=1, loc_mapping=1, fn_id=1, line_fn=1, loc_id=1, sample_loc=1,
            values=(1, 10), extra_fn=b"", fn_name=5):
    p = ld(1, vi(1, 1) + vi(2, 2)) + ld(1, vi(1, 3) + vi(2, 4))
    p += ld(2, ld(1, varint(sample_loc)) + ld(2, b"".join(varint(x) for x in values)) +
            ld(3, vi(1, 7) + vi(2, 8)))
    p += ld(3, vi(1, mapping_id) + vi(2, 0x400000) + vi(3, 0x500000) + vi(5, 6))
    p += ld(4, vi(1, loc_id) + vi(2, loc_mapping) + vi(3, 0x401000) + ld(4, vi(1, line_fn) + vi(2, 3)))
    p += ld(5, vi(1, fn_id) + vi(2, fn_name) + vi(3, fn_name)) + extra_fn
    p += ld(11, vi(1, 3) + vi(2, 4)) + vi(12, 10000000)
    # The strings last, the last one used: every proper prefix is broken.
    p += b"".join(ld(6, s.encode()) for s in strings)
    return p

d = sys.argv[1]
def put(name, data, gz=True):
    with open(os.path.join(d, name), "wb") as f:
        f.write(gzip.compress(data, mtime=0) if gz else data)

good = profile()
put("good.pb", good, gz=False)
put("good.pb.gz", good)
corrupt = bytearray(gzip.compress(good, mtime=0))
corrupt[10] = 0xff
put("corrupt-gzip.pb.gz", bytes(corrupt), gz=False)
crc = bytearray(gzip.compress(good, mtime=0))
crc[-6] ^= 0x55
put("bad-crc.pb.gz", bytes(crc), gz=False)
put("trailing.pb.gz", gzip.compress(good, mtime=0) + b"junk", gz=False)
# Over the 1 GiB cap, and 1000 times its size.
z = zlib.compressobj(9, zlib.DEFLATED, 31)
chunk = bytes(1 << 20)
with open(os.path.join(d, "bomb.pb.gz"), "wb") as f:
    for _ in range(1025):
        f.write(z.compress(chunk))
    f.write(z.flush())
put("long-varint.pb.gz", good + key(9, 0) + b"\xff" * 10 + b"\x01")
put("varint-overflow.pb.gz", good + key(9, 0) + b"\xff" * 9 + b"\x7f")
put("wire-type.pb.gz", key(12, 2) + varint(1) + b"\x01" + good)
put("group.pb.gz", good + key(9, 3))
put("field-zero.pb.gz", good + b"\x00\x00")
put("mapping-id0.pb.gz", profile(mapping_id=0, loc_mapping=0))
put("location-id0.pb.gz", profile(loc_id=0, sample_loc=0))
put("function-id0.pb.gz", profile(fn_id=0, line_fn=0))
put("missing-mapping.pb.gz", profile(loc_mapping=5))
put("missing-location.pb.gz", profile(sample_loc=9))
put("missing-function.pb.gz", profile(line_fn=7))
put("line-function0.pb.gz", profile(line_fn=0))
put("dup-function.pb.gz", profile(extra_fn=ld(5, vi(1, 1) + vi(2, 5))))
put("dup-sparse-function.pb.gz", profile(fn_id=77, line_fn=77, extra_fn=ld(5, vi(1, 77) + vi(2, 5))))
put("value-count.pb.gz", profile(values=(1,)))
put("string-index.pb.gz", profile(fn_name=99))
put("string0.pb.gz", profile(strings=("x", "samples", "count", "cpu", "nanoseconds", "main", "prog", "k", "v")))
put("no-strings.pb.gz", profile(strings=()))
put("negative-length.pb.gz", good + key(6, 2) + varint((1 << 64) - 1))
put("long-length.pb.gz", good + key(6, 2) + varint(1000) + b"abc")
put("nested-length.pb.gz", good + ld(4, key(4, 2) + varint(50) + b"\x08"))
put("concatenated.pb.gz", good + vi(9, 1) + good + vi(9, 2))
put("concatenated-plain.pb", good + vi(9, 1) + good + vi(9, 2), gz=False)
put("long-varint.pb", good + key(9, 0) + b"\xff" * 10 + b"\x01", gz=False)
put("empty.pb.gz", b"")
put("not-proto.pb.gz", b"\x00\x00\x00\x00\x03\x00\x00\x00")
EOF

if ! python3 "$W/gen.py" "$W" 2>"$W/gen.err"; then
	not_ok "malformed profiles are generated"
	sed 's/^/    /' "$W/gen.err"
	exit 1
fi

# run FILE: $PPROF --text FILE into $W/out and $W/err; REASON says what is
# wrong with the result as a clean error (exit 1, stdout empty, one stderr
# line naming FILE, no crash or sanitizer report), or is empty.
run_bad() {
	local f=$1 all
	timeout 60 "$PPROF" --text "$f" >"$W/out" 2>"$W/err"
	RC=$?
	mapfile -t ERR_LINES <"$W/err"
	all="${ERR_LINES[*]}"
	REASON=
	if [ "$RC" -eq 124 ]; then REASON="timed out"
	elif [ "$RC" -ge 125 ]; then REASON="crashed (status $RC)"
	elif [[ $all == *Sanitizer* || $all == *"runtime error"* ]]; then REASON="sanitizer report"
	elif [ "$RC" -ne 1 ]; then REASON="exit status $RC, want 1"
	elif [ -s "$W/out" ]; then REASON="output on stdout"
	elif [ "${#ERR_LINES[@]}" -ne 1 ]; then REASON="${#ERR_LINES[@]} lines on stderr, want 1"
	elif [[ ${ERR_LINES[0]} != *"$f"* ]]; then REASON="stderr does not name the file"
	fi
}

# bad NAME WORDS: the file fails cleanly with a message containing WORDS.
bad() {
	run_bad "$W/$1"
	if [ -z "$REASON" ] && [[ ${ERR_LINES[0]} != *"$2"* ]]; then
		REASON="message lacks '$2'"
	fi
	if [ -z "$REASON" ]; then
		ok "$1: fails cleanly ($2)"
		[ -z "${SHOW_ERR:-}" ] || sed 's/^/    stderr: /' "$W/err"
	else
		not_ok "$1: fails cleanly ($REASON)"
		sed 's/^/    stdout: /' "$W/out" | head -n 3
		sed 's/^/    stderr: /' "$W/err" | head -n 3
	fi
}

for f in good.pb good.pb.gz; do
	"$PPROF" --text "$W/$f" >"$W/out" 2>"$W/err"
	if [ $? -eq 0 ] && grep -q 'main$' "$W/out" && [ ! -s "$W/err" ]; then
		ok "$f: the small profile reads"
	else
		not_ok "$f: the small profile reads"
		sed 's/^/    /' "$W/out" "$W/err" | head -n 5
	fi
done

bad corrupt-gzip.pb.gz "corrupt gzip data"
bad bad-crc.pb.gz "corrupt gzip data"
bad trailing.pb.gz "trailing data"
bad bomb.pb.gz "times its size: refused as a decompression bomb"
bad long-varint.pb.gz "offset 0x"
bad long-varint.pb.gz "varint longer than 10 bytes"
bad varint-overflow.pb.gz "varint overflows"
bad wire-type.pb.gz "Profile.period: wire type 2, expected 0"
bad group.pb.gz "invalid wire type 3"
bad field-zero.pb.gz "field number 0"
bad mapping-id0.pb.gz "mapping 1 has id 0"
bad location-id0.pb.gz "location 1 has id 0"
bad function-id0.pb.gz "function 1 has id 0"
bad missing-mapping.pb.gz "refers to mapping 5"
bad missing-location.pb.gz "refers to location 9"
bad missing-function.pb.gz "refers to function 7"
bad line-function0.pb.gz "refers to function 0"
bad dup-function.pb.gz "two functions have id 1"
bad dup-sparse-function.pb.gz "two functions have id 77"
bad value-count.pb.gz "1 values for 2 sample types"
bad string-index.pb.gz "string index 99 out of range"
bad string0.pb.gz 'string_table[0] must be ""'
bad no-strings.pb.gz 'string_table[0] must be ""'
bad negative-length.pb.gz "negative length"
bad long-length.pb.gz "length 1000 runs past end of data"
bad nested-length.pb.gz "Location.line: length 50 runs past end"
bad concatenated.pb.gz "concatenated profiles"
bad concatenated-plain.pb "concatenated profiles"
bad long-varint.pb "varint longer than 10 bytes"
bad empty.pb.gz "empty"
bad not-proto.pb.gz "not a profile.proto"

# Every truncation of the small profile, plain and compressed.
for f in good.pb good.pb.gz; do
	size=$(stat -c %s "$W/$f")
	fails=
	for ((n = 1; n < size; n++)); do
		head -c "$n" "$W/$f" >"$W/cut-$f"
		run_bad "$W/cut-$f"
		if [ -n "$REASON" ]; then
			fails="$fails $n ($REASON)"
			[ "${#fails}" -lt 300 ] || break
		fi
	done
	if [ -z "$fails" ]; then
		ok "$f cut at each of its $((size - 1)) offsets: fails cleanly"
	else
		not_ok "$f cut short fails cleanly; not at:$fails"
	fi
done
