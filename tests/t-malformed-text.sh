#!/usr/bin/env bash
# t-malformed-text.sh - broken heap, growth, contention, thread and symbolized profiles.
#
# For each reader a small valid profile is written here (no program, so no
# symbol reading) and cut at every offset (every 5th past 400 bytes of the
# longer ones, and around each line break): "$PPROF --text PROFILE" must
# either print a report and exit 0 (a text profile cut after a whole line is
# a shorter profile) or fail cleanly: status 1, nothing on stdout, one line
# on stderr naming the file.  Then absurd counts and bad headers must fail
# cleanly, naming the file, and odd but valid inputs must read.  The inputs
# google/pprof's fuzzer keeps (shared test data, when present) must exit
# cleanly too.  A crash, a timeout or a sanitizer report always fails.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/malformed-text
mkdir -p "$W"
G=$TESTDATA/golden
SHARED=${PPROF_SHARED:-$TOP/../shared}

require python3 || exit 1

# The valid inputs.
cat >"$W/heap.prof" <<'EOF'
heap profile:   12:  7000 [   30: 16000] @ heap_v2/524288
     3:     1500 [     6:     3000] @ 0x4016b3 0x401777 0x401528
     9:     5500 [    24:    13000] @ 0x4016c0 0x4017e5 0x401538 0x401b54

MAPPED_LIBRARIES:
00400000-004b0000 r-xp 00000000 08:01 1 /nonexistent/prog
EOF
cat >"$W/growth.prof" <<'EOF'
heap profile:    2:  2097152 [     2:  2097152] @ growth
     1:  1048576 [     1:  1048576] @ 0x4016b3 0x401777 0x401528
     1:  1048576 [     1:  1048576] @ 0x4016c0 0x401528
EOF
cat >"$W/contention.prof" <<'EOF'
--- contentionz 1 ---
cycles/second = 2400000000
sampling period = 100
ms since reset = 1234
   190304       27 @ 0x4016b3 0x401777 0x401528
      768        1 @ 0x4016c0 0x4017e5
--- Memory map: ---
  00400000-004b0000: /nonexistent/prog
EOF
cat >"$W/thread.prof" <<'EOF'
--- threadz 1 ---

--- Thread 7f794ab90940 (name: main/14748) stack: ---
  PC:  0x004016b3: leaf_a
  0x00401777: mid
--- Thread 7f794964e700 (name: thread1/14751) stack: ---
  PC: 0x4016c0 0x4017e5 0x401538
      creator: 0x401528 0x401b54
--- Thread 7f794934c700 (name: thread2/14752) stack: ---
  [same as previous thread]
--- Memory map: ---
  00400000-004b0000: /nonexistent/prog
EOF
cat >"$W/count.prof" <<'EOF'
threadcreate profile: total 3
2 @ 0x4016b3 0x401777 0x401528
1 @ 0x4016c0 0x4017e5
EOF
"$PPROF" --raw "$W/heap.prof" >"$W/raw-heap.prof" 2>/dev/null
printf '%s\n' "period 10000" "5: 4016b3 401777 401528" "3: 4016c0 4017e5 401538" |
	python3 "$TOP/scripts/gen-cpuprofile" -o "$W/cpu.prof" -
"$PPROF" --raw "$G/prog" "$W/cpu.prof" >"$W/raw-cpu.prof" 2>/dev/null
"$PPROF" --raw "$W/contention.prof" >"$W/raw-contention.prof" 2>/dev/null
# A symbolized profile as google-pprof writes it: no #pprof lines, no trailer.
python3 - "$W/raw-cpu.prof" "$W/gp-raw.prof" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
head, sep, body = data.partition(b"\n---\n")
lines = [l for l in head.split(b"\n") if not l.startswith(b"#pprof")]
open(sys.argv[2], "wb").write(b"\n".join(lines) + sep + body[:-24])
PY

inputs=(heap growth contention thread count raw-heap raw-cpu raw-contention gp-raw)
for f in "${inputs[@]}"; do
	run_pprof --text "$W/$f.prof"
	clean_exit "$f: the whole profile reads" "$RC" "$W/err" 0
	check "$f: the whole profile has a Total" grep -q '^Total: ' "$W/out"
done

# --- truncation at every offset ---------------------------------------------------------
# cut_files FILE DIR: DIR/N.prof = the first N bytes of FILE, for N = 1 ..
# size-1; for files over 1000 bytes, every N up to 400, then every 5th and
# both sides of each line break.  Prints the Ns.
cut_files() {
	python3 - "$1" "$2" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
cuts = set(range(1, len(data)))
if len(data) > 1000:
    cuts = set(range(1, 401)) | set(range(401, len(data), 5))
    for i, c in enumerate(data):
        if c == 10:
            cuts |= {i, i + 1, i + 2}
for n in sorted(c for c in cuts if 0 < c < len(data)):
    with open("%s/%d.prof" % (sys.argv[2], n), "wb") as f:
        f.write(data[:n])
    print(n)
PY
}
for f in "${inputs[@]}"; do
	mkdir -p "$W/cut-$f"
	tested=0 failed=0 read=0 details=
	for n in $(cut_files "$W/$f.prof" "$W/cut-$f"); do
		p=$W/cut-$f/$n.prof
		run_pprof --text "$p"
		tested=$((tested + 1))
		if [ "$RC" -eq 0 ] && exited_cleanly "$RC" "$W/err" 0; then
			read=$((read + 1))
			continue
		fi
		if ! failed_cleanly "$RC" "$W/out" "$W/err" "$p"; then
			failed=$((failed + 1))
			[ "$failed" -le 5 ] && details+="    cut at $n: $WHY; stderr: ${ERR_LINES[0]:-}"$'\n'
		fi
	done
	if [ "$failed" -eq 0 ]; then
		ok "$f cut at $tested offsets: a report ($read) or one clean error"
	else
		not_ok "$f cut at $tested offsets: $failed neither read nor fail cleanly"
		printf '%s' "$details"
	fi
done

# --- absurd counts and bad headers ------------------------------------------------------
# bad NAME TEXT...: a profile of these lines must fail cleanly, naming it.
bad() {
	local name=$1; shift
	printf '%s\n' "$@" >"$W/$name.prof"
	run_pprof --text "$W/$name.prof"
	fails_cleanly "$name" "$W/$name.prof"
}
bad heap-count-overflow "heap profile: 1: 2 [ 3: 4] @ heapprofile" \
	"1: 99999999999999999999 [ 1: 1] @ 0x401000"
bad heap-scaled-overflow "heap profile: 1: 2 [ 1: 2] @ heap_v2/1" \
	"1: 9000000000000000000 [ 1: 9000000000000000000] @ 0x401000"
bad heap-header-counts "heap profile: x: 2 [ 3: 4] @ heapprofile"
bad heap-header-brackets "heap profile: 1: 2 3: 4 @ heapprofile"
bad heap-header-rate "heap profile: 1: 2 [ 3: 4] @ heap_v2/12x"
bad heap-header-junk "heap profile: 1: 2 [ 3: 4] junk"
bad heap-line "heap profile: 1: 2 [ 3: 4] @ heapprofile" "1: 2 [ 3: 4 @ 0x401000"
bad heap-address "heap profile: 1: 2 [ 3: 4] @ heapprofile" "1: 2 [ 3: 4] @ 0x40zz00"
bad heap-address-wide "heap profile: 1: 2 [ 3: 4] @ heapprofile" \
	"1: 2 [ 3: 4] @ 0x123456789012345678"
bad contention-cycles "--- contention" "99999999999999999999 1 @ 0x401000"
bad contention-count "--- contention" "10 99999999999999999999 @ 0x401000"
bad contention-count-period "--- contention" "sampling period = 2000000000" \
	"10 9000000000000 @ 0x401000"
bad contention-clock "--- contention" "cycles/second = 0" "10 1 @ 0x401000"
bad contention-clock-text "--- contention" "cycles/second = fast" "10 1 @ 0x401000"
bad contention-period "--- contention" "sampling period = -3" "10 1 @ 0x401000"
bad contention-address "--- contention" "10 1 @ 0x4010g0"
bad thread-header "--- threadz 1 ---" "--- Thread xyz stack: ---" "  PC: 0x401000"
bad thread-address "--- Thread 1 (name: a/1) stack: ---" "  PC: 0x123456789012345678"
bad count-line "goroutine profile: total 2" "2 0x401000"
bad symbolized-unclosed "--- symbol" "0x401000 main"
bad symbolized-no-body "--- symbol" "0x401000 main" "---"
bad symbolized-junk-body "--- symbol" "0x401000 main" "---" "--- profile" "this is no profile"
bad symbolized-kind "--- symbol" "#pprof 1 =no%20such%20reader" "---"
bad symbolized-not-first "--- symbol" "#pprof types 1 =samples =count" "---"
bad symbolized-no-types "--- symbol" "#pprof 1 =gperftools%20CPU%20profile" "---"
bad symbolized-count "--- symbol" "#pprof 1 =gperftools%20CPU%20profile" \
	"#pprof types 99999 =samples =count" "---"
bad symbolized-location-function "--- symbol" "#pprof 1 =gperftools%20CPU%20profile" \
	"#pprof types 1 =samples =count" "#pprof location 0 401000 0 1 7 3" "---"
bad symbolized-sample-location "--- symbol" "#pprof 1 =gperftools%20CPU%20profile" \
	"#pprof types 1 =samples =count" "#pprof sample 1 5 1 3 0" "---"
bad symbolized-sample-values "--- symbol" "#pprof 1 =gperftools%20CPU%20profile" \
	"#pprof types 1 =samples =count" "#pprof location 0 401000 0 0" "#pprof sample 2 5 5 1 1 0" "---"
bad symbolized-escape "--- symbol" "#pprof 1 =gperftools%20CPU%20profile" \
	"#pprof types 1 =samples =cou%2" "---"
bad symbolized-mapping "--- symbol" "#pprof 1 =gperftools%20CPU%20profile" \
	"#pprof types 1 =samples =count" "#pprof location 3 401000 0 0" "---"

# --- odd but valid -------------------------------------------------------------------------
# good NAME TEXT...: a profile of these lines must read, exit 0 and give a Total.
good() {
	local name=$1; shift
	printf '%s\n' "$@" >"$W/$name.prof"
	run_pprof --text "$W/$name.prof"
	clean_exit "$name reads" "$RC" "$W/err" 0 && check "$name has a Total" grep -q '^Total:' "$W/out"
}
good heap-negative-header "heap profile: -5: -4096 [ 8589934592: 17179869184] @ heapprofile" \
	"2: 64 [ 8589934592: 17179869184] @ 0x401000 0x401100"
good heap-zero-objects-v1 "heap profile: 1: 64 [ 1: 64] @ heap/1024" "0: 0 [ 1: 64] @ 0x401000" \
	"1: 64 [ 1: 64] @ 0x401100"
good heap-empty-stack "heap profile: 1: 64 [ 1: 64] @ heapprofile" "1: 64 [ 1: 64] @" \
	"1: 64 [ 1: 64] @ 0x401000"
good heap-warn "%warn this profile is a test" "%ignored command" \
	"heap profile: 1: 64 [ 1: 64] @ heapprofile" "1: 64 [ 1: 64] @ 0x401000"
check "a %warn line is shown" grep -q 'WARNING: this profile is a test' "$W/err"
good heap-crlf "heap profile: 1: 64 [ 1: 64] @ heapprofile"$'\r' "1: 64 [ 1: 64] @ 0x401000"$'\r'
good contention-no-clock "--- contention" "1000 2 @ 0x401000 0x401100"
check "no cycles/second: google-pprof's note" grep -qx 'No cycles/second entry in profile; Guessing 2.8 GHz' "$W/err"
good contention-old "--- Stacks:" "1000 @ 0x401000 0x401100"
good symbolized-operator "--- symbol" "0x401000 A::operator--()--B::f" "---" "--- contentionz" \
	"10 1 @ 0x401000"
check "operator-- keeps its name" grep -q ' A::operator--$' "$W/out"

# --- google/pprof's fuzz inputs ----------------------------------------------------------
if [ -d "$SHARED/testdata/google-pprof/fuzz" ]; then
	for p in "$SHARED"/testdata/google-pprof/fuzz/testdata/* "$SHARED"/testdata/google-pprof/fuzz/corpus/*; do
		[ -f "$p" ] || continue
		run_pprof --text "$p"
		if [ "$RC" -eq 0 ] && exited_cleanly "$RC" "$W/err" 0; then
			ok "fuzz input $(basename "$p") reads"
		else
			SHOW_ERR= fails_cleanly "fuzz input $(basename "$p")" "$p"
		fi
	done
else
	skip "google/pprof's fuzz inputs: skipped, no shared test data at $SHARED"
fi
exit "$FAILED"
