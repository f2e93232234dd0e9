#!/usr/bin/env bash
# t-gperf-outputs.sh - --raw, --collapsed, --callgrind, --text --stacks, --symbols and the
# remaining google-pprof options, against the reference google-pprof.
#
# Inputs of every kind are made here: CPU profiles (the golden static
# program, 64- and 32-bit; testdata/progs/cxxprog.cc profiled, with C++
# inline frames), heap profiles (testdata/progs/heapprog.cc under
# tcmalloc: heap profiler, GetHeapSample, GetHeapGrowthStacks), a
# contention profile (scripts/gen-contention), a thread profile, gprof's
# gmon.out, a DCPI profile (scripts/gen-dcpi) and profile.proto.
#
# 1. --raw: our --text of the symbolized profile equals our --text of the
#    input (several granularities and value options), --raw of it is the
#    same bytes again, and google-pprof reads it with the same Total line
#    (the kinds it reads) or the total the profile section holds.
# 2. --collapsed: the same lines as google-pprof's (in its hash order).
# 3. --callgrind: each function's self cost and each of google-pprof's
#    calls are ours (we also write the outermost call, which it drops).
# 4. --text --stacks: google-pprof's stacks (in its hash order) and leak list.
# 5. --symbols: google-pprof's names for the same standard input.
# 6. --add_lib, --scale (to a stand-in gv), --tools, PPROF_TMPDIR.
# 7. a report by function that shows no file or line (text, the graphs,
#    tree, peek, traces, flame) reads no line tables: the same report as
#    with --verbose (which reads them), for every input, text's value
#    options and rendered SVG.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/outputs
mkdir -p "$W"
REF=${GOOGLE_PPROF:-google-pprof}
G=$TESTDATA/golden
SHARED=${PPROF_SHARED:-$TOP/../shared}
LEGACY=$SHARED/testdata/google-pprof/profile/testdata

require --libprofiler "$REF" gcc g++ python3 nm objdump || exit 1

# --- inputs -------------------------------------------------------------------------
# Each input is "NAME PROGRAM PROFILE KIND": KIND is what google-pprof
# reads it as (cpu, heap, contention), or "other" for what it cannot read.
inputs=()
add() { inputs+=("$1 $2 $3 $4"); }

add golden64 "$G/prog" "$G/prof64le.prof" cpu
add golden32 "$G/prog" "$G/prof32le.prof" cpu
build cxx-prog g++ -g -O2 -o "$W/cxx-prog" "$TESTDATA/progs/cxxprog.cc" "${PROF_LIBS[@]}" &&
	cpu_profile cxx-prog "$W/cxx-prog" "$W/cxx.prof" &&
	add cxx "$W/cxx-prog" "$W/cxx.prof" cpu
HP=$W/heapprog
if build heapprog g++ -g -O2 -o "$HP" "$TESTDATA/progs/heapprog.cc" -Wl,--no-as-needed -ltcmalloc &&
	(cd "$W" && HEAPPROFILE=$W/hp TCMALLOC_SAMPLE_PARAMETER=65536 "${NOASLR[@]}" "$HP" "$W/hp" \
		>/dev/null 2>&1) && [ -s "$W/hp.0001.heap" ] && [ -s "$W/hp.sample" ]; then
	add heap "$HP" "$W/hp.0001.heap" heap
	add sample "$HP" "$W/hp.sample" heap
	add growth "$HP" "$W/hp.growth" heap
	python3 "$TOP/scripts/gen-contention" --period 10 "$W/hp.0001.heap" "$W/cont.prof" &&
		add contention "$HP" "$W/cont.prof" contention
else
	not_ok "heapprog (tcmalloc) writes its heap profiles"
fi
if [ -f "$LEGACY/cppbench.thread" ]; then
	add thread - "$LEGACY/cppbench.thread" other
else
	printf '%s\n' "--- threadz 1 ---" "" "--- Thread 1 (name: main/1) stack: ---" \
		"  PC: 0x4016b3 0x401777 0x401528 0x401b54" "--- Thread 2 (name: worker/2) stack: ---" \
		"  PC: 0x4016c0 0x4017e5 0x401538 0x401b54" "--- Thread 3 (name: worker/3) stack: ---" \
		"  [same as previous thread]" >"$W/thread.prof"
	add thread "$G/prog" "$W/thread.prof" other
fi
build gmon-prog gcc -pg -g -O2 -o "$W/gmon-prog" "$TESTDATA/gmon/basic.c" &&
	(cd "$W" && ./gmon-prog 100 >/dev/null 2>&1) && [ -s "$W/gmon.out" ] &&
	add gmon "$W/gmon-prog" "$W/gmon.out" other
{
	printf 'header %s\n' "version pdb-0.07" "image 1a2b3c4d" "epoch 0411221530" \
		"platform x86_64 Linux" "event cycles" "period 62000" "tstart 401100" "tsize 489071" \
		"cpuspeed 2400" "cpucount 2" "path $G/prog"
	printf 'sample %s\n' "4016b3 50" "4016c0 20" "401777 7" "4017c0 3"
} | python3 "$TOP/scripts/gen-dcpi" -o "$W/prof.dcpi" - && add dcpi "$G/prog" "$W/prof.dcpi" other
"$PPROF" --proto "$G/prog" "$G/prof64le.prof" >"$W/prof.pb.gz" 2>/dev/null &&
	add proto - "$W/prof.pb.gz" other

# args PROGRAM PROFILE: the arguments naming them ("-": no program).
args() { if [ "$1" = - ]; then echo "$2"; else echo "$1 $2"; fi; }

# --- 1. --raw ------------------------------------------------------------------------
for in in "${inputs[@]}"; do
	read -r name prog prof kind <<<"$in"
	# shellcheck disable=SC2046
	if ! "$PPROF" --raw $(args "$prog" "$prof") >"$W/$name.raw" 2>"$W/err"; then
		not_ok "$name: --raw"
		show "$W/err" 5 stderr
		continue
	fi
	case $kind in
	heap) opts=("" --inuse_objects --alloc_space --alloc_objects --show_bytes) ;;
	contention) opts=("" --contentions --mean_delay) ;;
	*) opts=("") ;;
	esac
	opts+=(--lines --addresses --files --cum --focus=main --ignore=leaf_b)
	[ "$name" = gmon ] && opts+=(--sample_index=calls)
	bad=
	for opt in "${opts[@]}"; do
		# shellcheck disable=SC2046,SC2086
		"$PPROF" --text $opt $(args "$prog" "$prof") >"$W/want" 2>/dev/null
		# shellcheck disable=SC2086
		"$PPROF" --text $opt "$W/$name.raw" >"$W/got" 2>"$W/err"
		cmp -s "$W/want" "$W/got" || { bad="$bad ${opt:-(none)}"; diff "$W/want" "$W/got" | head -5; }
	done
	if [ -z "$bad" ]; then
		ok "$name: --raw reads back to the same reports (${#opts[@]} option sets)"
	else
		not_ok "$name: --raw reads back to the same reports (differ:$bad)"
	fi
	"$PPROF" --raw "$W/$name.raw" >"$W/$name.raw2" 2>/dev/null
	same_output "$name: --raw of --raw is the same" "$W/$name.raw" "$W/$name.raw2"
	# google-pprof reads it, with the same total.
	"$REF" --text "$W/$name.raw" >"$W/ref.raw.txt" 2>"$W/ref.err"
	if [ "$kind" = other ]; then
		"$PPROF" --collapsed "$W/$name.raw" | awk '{ n += $NF } END { print "Total: " n " samples" }' >"$W/want"
	else
		# shellcheck disable=SC2046
		"$REF" --text $(args "$prog" "$prof") 2>/dev/null | head -n 1 >"$W/want"
	fi
	head -n 1 "$W/ref.raw.txt" >"$W/got"
	same_output "$name: google-pprof reads our --raw with the same total" "$W/want" "$W/got"
done

# google-pprof's own --raw (no trailer, "?" for every file:line) reads as
# it reads it.  (Of C code: it cuts names at "--", C++'s operator-- too,
# which we keep whole.)
"$REF" --raw "$G/prog" "$G/prof64le.prof" >"$W/gp.raw" 2>/dev/null
for opt in "" --addresses --files --cum; do
	# shellcheck disable=SC2086
	"$REF" --text $opt "$W/gp.raw" >"$W/want" 2>/dev/null
	# shellcheck disable=SC2086
	"$PPROF" --text $opt "$W/gp.raw" >"$W/got" 2>"$W/err"
	same_output "google-pprof's --raw ${opt:-(no options)}: its report" "$W/want" "$W/got"
done

# google-pprof's --raw of a profile fetched from a server: its symbols, then
# "--- profile" and the profile's text as it came (google-pprof cannot read
# it back); we read it as the profile itself.
if [ -s "$W/heap.raw" ]; then
	{ sed -n '1,/^---$/p' "$W/heap.raw" | grep -v '^#pprof'; echo "--- profile"; cat "$W/hp.0001.heap"; } \
		>"$W/server.raw"
	"$PPROF" --text "$HP" "$W/hp.0001.heap" >"$W/want" 2>/dev/null
	"$PPROF" --text "$W/server.raw" >"$W/got" 2>"$W/err"
	same_output "a server's heap profile after its symbols: the heap profile's report" "$W/want" "$W/got"
fi

# --- 2. --collapsed --------------------------------------------------------------------
for in in "${inputs[@]}"; do
	read -r name prog prof kind <<<"$in"
	[ "$kind" = other ] && continue
	case $kind in heap) opts=("" --alloc_objects) ;; contention) opts=("" --contentions) ;; *) opts=("") ;; esac
	for opt in "${opts[@]}"; do
		# shellcheck disable=SC2046,SC2086
		"$REF" --collapsed $opt $(args "$prog" "$prof") 2>/dev/null | LC_ALL=C sort >"$W/want"
		# shellcheck disable=SC2046,SC2086
		"$PPROF" --collapsed $opt $(args "$prog" "$prof") 2>/dev/null | LC_ALL=C sort >"$W/got"
		check "$name --collapsed ${opt}: not empty" test -s "$W/got"
		same_output "$name --collapsed ${opt}: google-pprof's stacks and counts" "$W/want" "$W/got"
	done
done

# --- 3. --callgrind ----------------------------------------------------------------------
cat >"$W/cg.py" <<'EOF'
import sys

def parse(path):
    """Self costs per (file, function) and call costs per (caller, callee)."""
    selfc, calls = {}, {}
    files, fns = {}, {}
    def name(table, v):
        if v.startswith("("):
            idx, _, rest = v.partition(")")
            idx = idx[1:]
            if rest.strip():
                table[idx] = rest.strip()
            return table[idx]
        return v
    fl = fn = cfl = cfn = None
    pending = None
    for line in open(path).read().split("\n"):
        if line.startswith("fl="):
            fl = name(files, line[3:]); pending = None
        elif line.startswith("fn="):
            fn = name(fns, line[3:])
        elif line.startswith("cfl="):
            cfl = name(files, line[4:])
        elif line.startswith("cfn="):
            cfn = name(fns, line[4:])
        elif line.startswith("calls="):
            pending = (cfl, cfn)
        elif line and line[0].isdigit():
            cost = int(line.split()[1])
            if pending:
                k = (fl, fn, pending)
                calls[k] = calls.get(k, 0) + cost
                pending = None
            else:
                selfc[(fl, fn)] = selfc.get((fl, fn), 0) + cost
    return selfc, calls

want_self, want_calls = parse(sys.argv[1])
got_self, got_calls = parse(sys.argv[2])
bad = 0
for k in sorted(set(want_self) | set(got_self), key=str):
    if want_self.get(k, 0) != got_self.get(k, 0):
        print("self cost of %s: google-pprof %d, ours %d" % (k, want_self.get(k, 0), got_self.get(k, 0)))
        bad = 1
for k, v in want_calls.items():
    if got_calls.get(k, -1) < v:
        print("call %s: google-pprof %d, ours %s" % (k, v, got_calls.get(k)))
        bad = 1
sys.exit(bad)
EOF
for in in "${inputs[@]}"; do
	read -r name prog prof kind <<<"$in"
	[ "$kind" = other ] && continue
	# shellcheck disable=SC2046
	"$REF" --callgrind $(args "$prog" "$prof") >"$W/want" 2>/dev/null
	# shellcheck disable=SC2046
	"$PPROF" --callgrind $(args "$prog" "$prof") >"$W/got" 2>/dev/null
	check "$name --callgrind: starts with 'events: Hits'" test "$(head -n 1 "$W/got")" = "events: Hits"
	if python3 "$W/cg.py" "$W/want" "$W/got" >"$W/cg.out"; then
		ok "$name --callgrind: google-pprof's self costs and calls"
	else
		not_ok "$name --callgrind: google-pprof's self costs and calls"
		show "$W/cg.out" 10
	fi
done

# --- 4. --text --stacks ------------------------------------------------------------------
cat >"$W/stacks.py" <<'EOF'
import sys

def norm(path):
    """The report with its Stacks: section in sorted order (google-pprof's is its hash's)."""
    head, sep, rest = open(path).read().partition("Stacks:\n\n")
    if not sep:
        return head
    lines = rest.split("\n")
    blocks, cur, i = [], [], 0
    while i < len(lines):
        l = lines[i]
        if l == "":
            if cur:
                blocks.append("\n".join(cur))
                cur = []
        elif l.startswith("         (") or (l[:1].isdigit() or l[:1] == "-") and " (" in l:
            cur.append(l)
        else:
            break
        i += 1
    return head + sep + "\n\n".join(sorted(blocks)) + "\n--\n" + "\n".join(lines[i:])

sys.exit(norm(sys.argv[1]) != norm(sys.argv[2]))
EOF
for in in "${inputs[@]}"; do
	read -r name prog prof kind <<<"$in"
	[ "$kind" = other ] && continue
	# The leak list is one entry per line of the file in google-pprof, per
	# stack here: they agree for the heap profiler's dumps, not the others.
	case $name in sample | growth) continue ;; esac
	# shellcheck disable=SC2046
	"$REF" --text --stacks $(args "$prog" "$prof") >"$W/want" 2>/dev/null
	# shellcheck disable=SC2046
	"$PPROF" --text --stacks $(args "$prog" "$prof") >"$W/got" 2>/dev/null
	if python3 "$W/stacks.py" "$W/want" "$W/got"; then
		ok "$name --text --stacks: google-pprof's stacks, leaks and rows"
	else
		not_ok "$name --text --stacks: google-pprof's stacks, leaks and rows"
		diff "$W/want" "$W/got" | head -n 10
	fi
done

# --- 5. --symbols ------------------------------------------------------------------------
if [ -s "$W/hp.0001.heap" ]; then
	{
		sed -n '/^MAPPED_LIBRARIES:/,$p' "$W/hp.0001.heap" | tail -n +2
		grep -o '0x[0-9a-f]*' "$W/hp.0001.heap" | sort -u
		printf '%s\n' "0x0" "  0x00000000000000001  " "addr=0xffffffffffffffff;" \
			"0X401000" "0x4011A0" "0x12345678901234567890" "0x1z" "x0x401000"
	} >"$W/symbols.in"
	"$REF" --symbols "$HP" <"$W/symbols.in" >"$W/want" 2>/dev/null
	"$PPROF" --symbols "$HP" <"$W/symbols.in" >"$W/got" 2>"$W/err"
	check "--symbols names $(wc -l <"$W/got") addresses" test "$(wc -l <"$W/got")" -gt 20
	same_output "--symbols prints google-pprof's names" "$W/want" "$W/got"
	clean_exit "--symbols exits 0" $? "$W/err" 0
fi
run_pprof --symbols
check "--symbols without a program is a usage error" test "$RC" -eq 2
run_pprof --symbols --text "$G/prog"
check "--symbols with an output format is a usage error" test "$RC" -eq 2

# --- 6. --add_lib, --scale, --tools, PPROF_TMPDIR ------------------------------------------
# A profile of a library's link-time addresses and no mapped objects: with
# --add_lib the library names them.
if build libmulti gcc -g -O2 -shared -fPIC -o "$W/libmulti.so" "$TESTDATA/progs/libmulti.c"; then
	nm "$W/libmulti.so" | awk '$3 ~ /^lib_/ || $3 == "frame_dummy" { print $1 }' >"$W/lib.addrs"
	{
		echo "period 10000"
		n=0
		while read -r a; do
			n=$((n + 1))
			echo "$((n * 3)): $(printf '%x' $((16#$a + 4))) 401528 401b54"
		done <"$W/lib.addrs"
	} | python3 "$TOP/scripts/gen-cpuprofile" -o "$W/lib.prof" -
	for opt in "" --lines; do
		# shellcheck disable=SC2086
		"$REF" --text $opt --add_lib="$W/libmulti.so" "$G/prog" "$W/lib.prof" >"$W/want" 2>/dev/null
		# shellcheck disable=SC2086
		"$PPROF" --text $opt --add_lib="$W/libmulti.so" "$G/prog" "$W/lib.prof" >"$W/got" 2>"$W/err"
		check "--add_lib ${opt}: names from the library" grep -q lib_ "$W/got"
		same_output "--add_lib ${opt}: google-pprof's report" "$W/want" "$W/got"
	done
fi
mkdir -p "$W/bin" "$W/tmp"
cat >"$W/bin/gv" <<EOF
#!/bin/sh
echo "\$@" >"$W/gv.args"
EOF
chmod +x "$W/bin/gv"
PATH="$W/bin:$PATH" PPROF_TMPDIR="$W/tmp" "$PPROF" --gv --scale=3 "$G/prog" "$G/prof64le.prof" \
	>/dev/null 2>"$W/err"
check "--scale=3 reaches gv as --scale=3" grep -q -- '--scale=3 --noantialias' "$W/gv.args"
check "the file gv shows is in PPROF_TMPDIR" grep -q "$W/tmp/pprof" "$W/gv.args"
"$PPROF" --text --tools=/opt/x/bin/ "$G/prog" "$G/prof64le.prof" >"$W/got" 2>"$W/err"
same_output "--tools leaves the report alone" "$G/prof.default.text" "$W/got"
check "--tools is noted once on stderr" test "$(grep -c -- '--tools' "$W/err")" -eq 1

# --- 7. names alone -------------------------------------------------------------------
for in in "${inputs[@]}"; do
	read -r name prog prof kind <<<"$in"
	opts=("" --top --cum --noinlines --nodecount=5)
	[ "$kind" = heap ] && opts+=(--inuse_objects --alloc_space)
	for opt in "${opts[@]}"; do
		# shellcheck disable=SC2046,SC2086
		"$PPROF" --text $opt $(args "$prog" "$prof") >"$W/names" 2>/dev/null
		# shellcheck disable=SC2046,SC2086
		"$PPROF" --text --verbose $opt $(args "$prog" "$prof") >"$W/lines" 2>/dev/null
		same_output "$name --text ${opt}: by names alone, the report read with line tables" \
			"$W/lines" "$W/names"
	done
	formats=(--dot --tree --peek=. --traces --flame)
	[ "$name" = cxx ] && formats+=(--svg)
	for fmt in "${formats[@]}"; do
		# shellcheck disable=SC2046
		"$PPROF" "$fmt" $(args "$prog" "$prof") >"$W/names" 2>/dev/null
		# shellcheck disable=SC2046
		"$PPROF" "$fmt" --verbose $(args "$prog" "$prof") >"$W/lines" 2>/dev/null
		check "$name ${fmt}: a report" test -s "$W/names"
		same_output "$name ${fmt}: by names alone, the report read with line tables" \
			"$W/lines" "$W/names"
	done
done
exit "$FAILED"
