#!/usr/bin/env bash
# t-usability.sh - what a new user trips over, each fixed and checked here:
#  1. --base across two runs loaded at other addresses (address-space
#     randomization) equals the per-function difference of the two reports;
#  2. the prompt's top takes a row count and focus words (and -ignore);
#  3. the prompt's history directory is created whole, and an unwritable
#     one is said once;
#  5. a program rebuilt after its profile was taken is named on stderr;
#  6. -o that names an input is refused;
#  7. --focus/--ignore that match nothing are warned about, and the text
#     report says what the filters kept;
#  8. call-graph edges never exceed the profile (recursion counted once per
#     stack);
#  9. --unit shows CPU samples as time, naming the sampling frequency;
# 10. a failed check is named again at the end of the test run's output;
# 11. a report too big to hold goes out as it is made, and a write that
#     fails is said, with a failing status.
# (4, --list/--disasm of libc routines, is in t-list.sh.)
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/usability
mkdir -p "$W/home"
G=$TESTDATA/golden
require --libprofiler gcc python3 gvpr || exit 1

# A program with two hot functions and a recursive one.
cat >"$W/prog.c" <<'EOF'
#include <stdlib.h>
volatile double sink;
__attribute__((noinline)) void leaf_a(int n) { double x = 0; for (int i = 0; i < n; i++) x += i * 0.5; sink = x; }
__attribute__((noinline)) void leaf_b(int n) { double x = 1; for (int i = 0; i < n; i++) x *= 1.0000001; sink = x; }
__attribute__((noinline)) void walk(int depth, int n) { if (depth) walk(depth - 1, n); else leaf_a(n); sink += depth; }
int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 40;
	for (int r = 0; r < reps; r++) { walk(6, 800000); leaf_b(800000); }
	return 0;
}
EOF
build prog gcc -g -O1 -fPIE -pie -o "$W/prog" "$W/prog.c" "${PROF_LIBS[@]}" || exit 1
# Two runs, address-space randomization on (no NOASLR here).  Each long
# enough (about 0.3 and 0.6 s on a fast machine, where the profiling timer
# fires some 200 times a second) for both leaves to be sampled: a run whose
# samples all fall in one stack loses its callers to the second-frame rule
# in its own report, while --base takes away its whole stacks (the rule
# sees the stacks left after the subtraction, as in google-pprof).
for run in 1 2; do
	rm -f "$W/run$run.prof"
	CPUPROFILE=$W/run$run.prof CPUPROFILE_FREQUENCY=1000 "$W/prog" $((run * 200)) >/dev/null 2>&1
	[ -s "$W/run$run.prof" ] || { not_ok "run $run writes a profile"; exit 1; }
done

# relocate IN OUT DELTA: the profile IN with every address of the program's
# mappings (and the mappings) moved by DELTA, as another run would see it.
cat >"$W/relocate.py" <<'EOF'
import re, struct, sys
data = open(sys.argv[1], "rb").read()
delta = int(sys.argv[3], 0)
words = list(struct.unpack_from("<%dQ" % (len(data) // 8), data))
# The program's executable mappings, from the map text after the trailer.
hdr = 2 + words[1]
i = hdr
while words[i + 2] != 0:
    i += 2 + words[i + 1]
i += 2 + words[i + 1]
maps = data[i * 8:].decode()
prog = [(int(m.group(1), 16), int(m.group(2), 16)) for m in
        re.finditer(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+ +(\S*/prog)$", maps, re.M)]
def move(a):
    return a + delta if any(lo <= a <= hi for lo, hi in prog) else a
j = hdr
while words[j + 2] != 0:
    n = words[j + 1]
    words[j + 2:j + 2 + n] = [move(a) for a in words[j + 2:j + 2 + n]]
    j += 2 + n
def remap(m):
    lo, hi = int(m.group(1), 16), int(m.group(2), 16)
    if m.group(3).endswith("/prog"):
        lo, hi = lo + delta, hi + delta
    return "%x-%x%s" % (lo, hi, m.group(0)[m.group(0).index(" "):])
maps = re.sub(r"^([0-9a-f]+)-([0-9a-f]+) .*?(\S*)$", remap, maps, flags=re.M)
out = struct.pack("<%dQ" % i, *words[:i]) + maps.encode()
open(sys.argv[2], "wb").write(out)
EOF

# --- 1. --base across runs -------------------------------------------------------
# Make sure the two runs sit at other addresses, as randomization makes them.
python3 "$W/relocate.py" "$W/run2.prof" "$W/run2m.prof" 0x10000000 || not_ok "relocate runs"
# per_function FILE: "name flat cum" of a text report, sorted.
per_function() { awk 'NR > 1 && NF >= 6 { print $6, $1, $4 }' "$1" | LC_ALL=C sort; }
"$PPROF" --text "$W/prog" "$W/run1.prof" >"$W/t1" 2>/dev/null
"$PPROF" --text "$W/prog" "$W/run2m.prof" >"$W/t2" 2>/dev/null
"$PPROF" --text --base="$W/run1.prof" "$W/prog" "$W/run2m.prof" >"$W/tb" 2>"$W/tb.err"
python3 - "$W/t1" "$W/t2" "$W/tb" >"$W/base.cmp" <<'EOF'
import sys
def rows(path):
    r = {}
    for line in open(path).read().splitlines()[1:]:
        f = line.split(None, 5)
        if len(f) == 6:
            r[f[5]] = (int(f[0]), int(f[3]))
    return r
a, b, d = rows(sys.argv[1]), rows(sys.argv[2]), rows(sys.argv[3])
bad = []
for name in set(a) | set(b) | set(d):
    want = (b.get(name, (0, 0))[0] - a.get(name, (0, 0))[0], b.get(name, (0, 0))[1] - a.get(name, (0, 0))[1])
    got = d.get(name, (0, 0))
    if want != got:
        bad.append("%s: --base gives %s, the reports' difference %s" % (name, got, want))
for name in d:
    if name.startswith("0x") or name[0] in "0123456789":
        bad.append("an unnamed row: %s" % name)
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
EOF
if [ $? -eq 0 ]; then
	ok "--base of a run loaded elsewhere equals the difference of the two reports"
else
	not_ok "--base of a run loaded elsewhere equals the difference of the two reports"
	show "$W/base.cmp" 10
fi
"$PPROF" --text "$W/prog" "$W/run1.prof" "$W/run2m.prof" >"$W/tsum" 2>/dev/null
check "summing runs loaded elsewhere names every row" \
	bash -c "awk 'NR > 1 { print \$6 }' '$W/tsum' | grep -qv '^0x\\|^[0-9]' && ! awk 'NR > 1 { print \$6 }' '$W/tsum' | grep -q '^0x'"

# Profiles of the run whose mappings were read (the last one named) are
# added to it as they are read; the others are read alone and merged.  Both
# ways must make the same profile: copies of run 1, then copies moved away.
python3 "$W/relocate.py" "$W/run1.prof" "$W/run1m.prof" 0x10000000 || not_ok "relocate run 1"
r1=$W/run1.prof r1m=$W/run1m.prof
for v in --raw --text --addresses; do
	"$PPROF" $v "$W/prog" "$r1" "$r1" "$r1" >"$W/added$v" 2>&1
	"$PPROF" $v "$W/prog" "$r1m" "$r1m" "$r1" >"$W/merged$v" 2>&1
	"$PPROF" $v "$W/prog" "$r1" "$r1m" "$r1" >"$W/mixed$v" 2>&1
	same_output "three copies of a run, $v: added as read equals merged" "$W/merged$v" "$W/added$v"
	same_output "three copies of a run, $v: added, then merged" "$W/merged$v" "$W/mixed$v"
done
one=$("$PPROF" --text "$W/prog" "$r1" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) samples$/\1/p')
three=$(sed -n 's/^Total: \([0-9]*\) samples$/\1/p' "$W/added--text")
check "three copies of a run total three times one ($one)" test -n "$one" -a "$three" = $((3 * ${one:-0}))

# --- 2. the prompt's top -----------------------------------------------------------
prompt() { printf "$1" | "$PPROF" --interactive "$G/prog" "$G/prof64le.prof" 2>"$W/p.err"; }
rows() { grep -c '%.*%' "$1"; }
prompt 'top 3\n' >"$W/top3"
check "top 3 shows 3 rows" test "$(rows "$W/top3")" -eq 3
prompt 'top zzz\n' >"$W/topz"
check "top WORD focuses on it (nothing matches zzz)" \
	bash -c "test \$(grep -c '%.*%' '$W/topz') -eq 0 && grep -q \"^After focusing on 'zzz': 0 samples\" '$W/topz'"
prompt 'top3 leaf\n' >"$W/topl"
check "top3 WORD: at most 3 rows, all through WORD" \
	bash -c "test \$(grep -c '%.*%' '$W/topl') -le 3 && grep -q \"^After focusing on 'leaf'\" '$W/topl'"
"$PPROF" --text --focus=leaf "$G/prog" "$G/prof64le.prof" 2>/dev/null | sed -n 3,5p >"$W/focus3"
grep '%.*%' "$W/topl" >"$W/topl.rows"
same_output "top3 leaf equals --text --focus=leaf's first 3 rows" "$W/focus3" "$W/topl.rows"
prompt 'top 5 -leaf_a\n' >"$W/topi"
check "top N -WORD ignores WORD" bash -c "! grep -q ' leaf_a\$' '$W/topi' && test \$(grep -c '%.*%' '$W/topi') -le 5"

# --- 3. the history directory -------------------------------------------------------
cat >"$W/drive_prompt.py" <<'EOF'
# Runs the prompt on a pseudo-terminal, types top1 and quit.
import os, pty, select, signal, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out, end = b"", time.time() + 20
for keys in (b"top1\r", b"quit\r", None):
    while b"(pprof) " not in out[-200:] and time.time() < end:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    if keys:
        out = out.replace(b"(pprof) ", b"(PPROF) ")
        os.write(fd, keys)
for _ in range(50):
    if os.waitpid(pid, os.WNOHANG)[0]:
        break
    time.sleep(0.1)
else:
    os.kill(pid, signal.SIGKILL)
sys.stdout.write(out.decode("utf-8", "replace"))
EOF
mkdir -p "$W/fresh"
env -u XDG_DATA_HOME HOME="$W/fresh" TERM=xterm python3 "$W/drive_prompt.py" "$PPROF" "$G/prog" "$G/prof64le.prof" >"$W/tty.out" 2>&1
check "history: ~/.local/share/pprof is created whole" grep -q top1 "$W/fresh/.local/share/pprof/history"
mkdir -p "$W/ro" && touch "$W/ro/.local" && chmod 444 "$W/ro/.local"
env -u XDG_DATA_HOME HOME="$W/ro" TERM=xterm python3 "$W/drive_prompt.py" "$PPROF" "$G/prog" "$G/prof64le.prof" >"$W/tty2.out" 2>&1
check "history: an unusable directory is said once" \
	test "$(grep -c 'for the prompt.s history' "$W/tty2.out")" -eq 1
check "history: the session goes on without it" grep -q 'Total: 220' "$W/tty2.out"

# --- 5. a stale program ---------------------------------------------------------------
cp "$W/prog" "$W/prog.copy"
"$PPROF" --text "$W/prog" "$W/run1.prof" >/dev/null 2>"$W/fresh.err"
check "the program the profile was taken with: no warning" bash -c "! grep -q 'not the file' '$W/fresh.err'"
sed -i 's/x += i \* 0.5;/x += i * 0.25 + 1;/' "$W/prog.c"
# Moved aside, not removed: a file system may give a removed file's inode
# to the next file made, and the rebuilt program would have the old one's.
mv "$W/prog" "$W/prog.before"
build rebuilt gcc -g -O1 -fPIE -pie -o "$W/prog" "$W/prog.c" "${PROF_LIBS[@]}" || exit 1
"$PPROF" --text "$W/prog" "$W/run1.prof" >/dev/null 2>"$W/stale.err"
check "a rebuilt program is named on stderr" grep -q "'$W/prog' is not the file the profile was taken with" "$W/stale.err"
check "the warning is said once" test "$(grep -c 'not the file' "$W/stale.err")" -eq 1

# --- 6. -o naming an input ---------------------------------------------------------------
cp "$W/run1.prof" "$W/keep.prof"
run_pprof -o "$W/keep.prof" --text "$W/prog.copy" "$W/keep.prof"
check "-o PROFILE is refused with status 2" test "$RC" -eq 2
check "-o PROFILE: one line naming it" bash -c "test \$(wc -l <'$W/err') -eq 1 && grep -q 'keep.prof' '$W/err'"
check "-o PROFILE: the profile is untouched" cmp -s "$W/run1.prof" "$W/keep.prof"
cp "$W/prog.copy" "$W/prog.orig"
run_pprof -o "$W/prog.copy" --text "$W/prog.copy" "$W/keep.prof"
check "-o PROGRAM is refused with status 2" test "$RC" -eq 2
check "-o PROGRAM: the program is untouched" cmp -s "$W/prog.copy" "$W/prog.orig"

# --- 7. silent filters -----------------------------------------------------------------------
run_pprof --text --focus=no_such_function "$G/prog" "$G/prof64le.prof"
check "--focus matching nothing: warned on stderr" grep -q "focus='no_such_function' matches no function" "$W/err"
check "--focus matching nothing: the header says 0 kept" grep -q "^After focusing on 'no_such_function': 0 samples of 220" "$W/out"
run_pprof --text --ignore=zzz_nothing "$G/prog" "$G/prof64le.prof"
check "--ignore matching nothing: warned on stderr" grep -q "ignore='zzz_nothing' matches no function" "$W/err"
run_pprof --text --focus=walk "$G/prog" "$G/prof64le.prof"
check "--focus: the header says how much of the total is shown" \
	grep -q "^After focusing on 'walk': 28 samples of 220 (12.7%)" "$W/out"
check "--focus matching something: no warning" test ! -s "$W/err"

# --- 8. recursion in call graphs ---------------------------------------------------------------
for gran in "" --files --lines; do
	"$PPROF" --dot $gran "$W/prog.copy" "$W/run2.prof" >"$W/g.dot" 2>/dev/null
	total=$(head -n 1 "$W/g.dot" | sed -E 's/.*; (-?[0-9]+) samples.*/\1/')
	max=$(gvpr 'E { printf("%s\n", $.label); }' "$W/g.dot" | sort -n | tail -n 1)
	check "--dot ${gran:-(functions)}: no edge exceeds the total ($max <= $total)" test "${max:-0}" -le "$total"
	selfmax=$(gvpr 'E [$.tail == $.head] { printf("%s\n", $.label); }' "$W/g.dot" | sort -n | tail -n 1)
	check "--dot ${gran:-(functions)}: recursion's self-edge within the total" test "${selfmax:-0}" -le "$total"
done

# --- 9. time instead of samples -------------------------------------------------------------------
run_pprof --text --unit=ms "$G/prog" "$G/prof64le.prof"
check "--unit=ms: the total in ms and the sampling frequency" grep -q '^Total: [0-9.]*ms (220 samples at [0-9.]* Hz)$' "$W/out"
"$PPROF" --text "$G/prog" "$G/prof64le.prof" >"$W/plain" 2>/dev/null
python3 - "$W/out" "$W/plain" >"$W/unit.cmp" <<'EOF'
import re, sys
ms = open(sys.argv[1]).read().splitlines()
plain = open(sys.argv[2]).read().splitlines()
hz = float(re.search(r"at ([0-9.e+]+) Hz", ms[0]).group(1))
bad = []
for a, b in zip(ms[1:], plain[1:]):
    f, g = a.split(None, 5), b.split(None, 5)
    if f[5] != g[5]:
        bad.append("row order differs: %s / %s" % (f[5], g[5]))
        continue
    for x, y in ((f[0], g[0]), (f[3], g[3])):
        v = 0.0 if x == "0" else float(x[:-2])
        if abs(v - int(y) * 1000.0 / hz) > 0.006:
            bad.append("%s: %s for %s samples at %g Hz" % (f[5], x, y, hz))
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
EOF
check "--unit=ms: every value is samples x period" test $? -eq 0
run_pprof --text --unit=furlongs "$G/prog" "$G/prof64le.prof"
check "--unit with an unknown unit is a usage error" test "$RC" -eq 2

# --- 10. a failed check is named where a long run's output ends ------------------------------------
# tests/run-tests prints every failed check again after the scripts' counts, just before its
# last line: a view of the end of make check's (or CI's) output shows which one failed.
printf 'echo "ok - first"\necho "not ok - second, broken"\necho "    its message"\n' >"$W/t-broken.sh"
printf 'echo "ok - third"\n' >"$W/t-fine.sh"
"$TOP/tests/run-tests" "$W/t-broken.sh" "$W/t-fine.sh" >"$W/run.out" 2>&1
RC=$?
check "run-tests: a failed check fails the run" test "$RC" -eq 1
check "run-tests: the counts' line is last" test "$(tail -n 1 "$W/run.out")" = "2 passed, 1 failed"
check "run-tests: the failed check is named again just before it" \
	test "$(tail -n 3 "$W/run.out" | head -n 2 | tr '\n' '|')" = "Failed:|[t-broken.sh] not ok - second, broken|"
"$TOP/tests/run-tests" "$W/t-fine.sh" >"$W/run.out" 2>&1
RC=$?
check "run-tests: nothing named when all pass" \
	test "$RC" -eq 0 -a "$(grep -c -e '^Failed:' -e 'not ok' "$W/run.out")" -eq 0

# --- 11. big reports stream; failed writes are said -------------------------------------------
# 6000 distinct leaf addresses: --addresses prints a row each, far more than a stdio buffer.
python3 - "$W/many.prof" <<'EOF'
import struct, sys
w = [0, 3, 0, 10000, 0]
for i in range(6000):
    w += [1 + i % 7, 2, 0x400000 + i * 16, 0x500000 + (i % 40) * 8]
w += [0, 1, 0]
open(sys.argv[1], "wb").write(struct.pack("<%dQ" % len(w), *w))
EOF
run_pprof --text --addresses "$W/many.prof"
check "a big report to standard output: status 0" test "$RC" -eq 0
check "a big report to standard output: a row per address (6000 leaves, 40 callers)" \
	test "$(grep -c '^ .*% 0000000000[45]' "$W/out")" -eq 6040
mv "$W/out" "$W/many.out"
run_pprof -o "$W/many.txt" --text --addresses "$W/many.prof"
check "the same report written whole to a file is the same text" cmp -s "$W/many.out" "$W/many.txt"
if [ -w /dev/full ]; then
	timeout 20 "$PPROF" --text --addresses "$W/many.prof" >/dev/full 2>"$W/err"
	RC=$?
	check "standard output full: status 1" test "$RC" -eq 1
	check "standard output full: one line saying so" \
		bash -c "test \$(wc -l <'$W/err') -eq 1 && grep -q '^pprof: cannot write to standard output: No space left on device$' '$W/err'"
	run_pprof -o /dev/full --text --addresses "$W/many.prof"
	check "-o /dev/full: status 1, naming it" \
		bash -c "test $RC -eq 1 && grep -q \"^pprof: cannot write '/dev/full': No space left on device\$\" '$W/err'"
	# A small report is written when complete: its write fails at the end.
	timeout 20 "$PPROF" --text "$G/prog" "$G/prof64le.prof" >/dev/full 2>"$W/err"
	RC=$?
	check "a small report to a full standard output: status 1, said" \
		bash -c "test $RC -eq 1 && grep -q 'cannot write to standard output' '$W/err'"
fi
