#!/usr/bin/env bash
# t-golden.sh - machine-independent golden tests.
#
# testdata/golden holds a static, non-PIE binary (prog, built as BUILD says),
# CPU profiles of it generated from stacks.txt by scripts/gen-cpuprofile in
# four layouts (prof64le, prof64be, prof32le, prof32be), and the output of
# the reference google-pprof for each option set of CASES
# (scripts/update-golden.sh): prof.NAME.text for the 64-bit profiles,
# prof32.NAME.text for the 32-bit ones.  google-pprof is not needed here.
#
# For each option set and layout, "$PPROF --text OPTS testdata/golden/prog
# testdata/golden/profLAYOUT.prof" must print exactly the expected file and
# exit 0.  Then the layouts must agree with each other: 64be == 64le and
# 32be == 32le byte for byte, and 32le == 64le once 16-digit addresses with 8
# leading zeros are written with 8 digits (google-pprof prints addresses of
# 32-bit profiles with 8 hex digits, e.g. "0x004b0000").
set -u
source "$(dirname "$0")/lib.sh"

G=testdata/golden
W=$TEST_TMP/golden
mkdir -p "$W"
cd "$TOP" || exit 1

require python3 || exit 1

# The committed profiles must be what gen-cpuprofile makes of stacks.txt.
for layout in "64 little 64le" "64 big 64be" "32 little 32le" "32 big 32be"; do
	# shellcheck disable=SC2086 # split "BITS ENDIAN NAME"
	set -- $layout
	if python3 scripts/gen-cpuprofile --bits "$1" --endian "$2" -o "$W/gen$3.prof" "$G/stacks.txt" &&
		cmp -s "$W/gen$3.prof" "$G/prof$3.prof"; then
		ok "prof$3.prof is up to date with stacks.txt"
	else
		not_ok "prof$3.prof is up to date with stacks.txt (run scripts/update-golden.sh)"
	fi
done

# run_case NAME LAYOUT OPTS...: runs pprof into $W/NAME.LAYOUT.{out,err}, checks it.
run_case() {
	local name=$1 l=$2 rc exp
	shift 2
	local out=$W/$name.$l.out err=$W/$name.$l.err
	timeout 60 "$PPROF" --text "$@" "$G/prog" "$G/prof$l.prof" >"$out" 2>"$err"
	rc=$?
	case $l in 32*) exp=$G/prof32.$name.text ;; *) exp=$G/prof.$name.text ;; esac
	gp_text "$out" >"$out.gp"
	same_output "$name ($l): --text $* matches google-pprof" "$exp" "$out.gp"
	says_kept "$name ($l)" "$out" "$@"
	clean_exit "$name ($l): exits 0 cleanly" "$rc" "$err" 0
}

while IFS=$'\t' read -r name opts; do
	case $name in ''|'#'*) continue ;; esac
	for l in 64le 64be 32le 32be; do
		# shellcheck disable=SC2086 # options are space-separated on purpose
		run_case "$name" "$l" $opts
	done
	same_output "$name: 64be report == 64le report" "$W/$name.64le.out" "$W/$name.64be.out"
	same_output "$name: 32be report == 32le report" "$W/$name.32le.out" "$W/$name.32be.out"
	short_addrs "$W/$name.64le.out" >"$W/$name.64le.short"
	same_output "$name: 32le report == 64le report (8-digit addresses)" \
		"$W/$name.64le.short" "$W/$name.32le.out"
done <"$G/CASES"


# Listings (LISTS): every layout prints google-pprof's listing of the 64-bit
# profile byte for byte, the sources found through --source_path.  --disasm
# listings are compared without the instruction text, which is capstone's
# and not objdump's: addresses, instruction boundaries, counts, source lines
# and totals must still be google-pprof's.
while IFS=$'\t' read -r name opts; do
	case $name in ''|'#'*) continue ;; esac
	exp=$G/prof.$name.out
	for l in 64le 64be 32le 32be; do
		out=$W/$name.$l.out err=$W/$name.$l.err
		# shellcheck disable=SC2086 # options are space-separated on purpose
		timeout 60 "$PPROF" $opts --source_path="$G" "$G/prog" "$G/prof$l.prof" >"$out" 2>"$err"
		rc=$?
		case " $opts" in
		*" --disasm"*)
			no_text "$exp" >"$W/$name.exp"
			no_text "$out" >"$out.cmp"
			same_output "$name ($l): $opts matches google-pprof but for the instruction text" \
				"$W/$name.exp" "$out.cmp" ;;
		*)
			same_output "$name ($l): $opts matches google-pprof" "$exp" "$out" ;;
		esac
		clean_exit "$name ($l): exits 0 cleanly" "$rc" "$err" 0
	done
done <"$G/LISTS"

# The inlined mix() in mid(): --disasm shows its samples on mix's own lines
# (39-40), --list on the line of the call in mid (46).
grep -qE '^ +[0-9]+ +[0-9]+ +40: x = \(x \^ \(x >> 7\)\)' "$W/disasm-mid.64le.out" &&
	ok "disasm-mid: samples of the inlined mix() are on its line 40" ||
	not_ok "disasm-mid: samples of the inlined mix() are on its line 40"
grep -qE '^ +[0-9]+ +[0-9]+ +46: 	unsigned long m = mix\(n\);' "$W/list-mid.64le.out" &&
	ok "list-mid: samples of the inlined mix() are charged to mid's line 46" ||
	not_ok "list-mid: samples of the inlined mix() are charged to mid's line 46"

# A report of 80,000 rows is composed on two threads, a round of rows each
# (text.c); with --nodecount it is composed row by row.  The two are the
# same bytes, and every address is a row.
python3 - "$W/rows.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("period 10000\n")
    for i in range(80000):
        f.write("%d: %x 401528 401b54\n" % (1 + i % 5, 0x500000 + 3 * i))
PY
if python3 scripts/gen-cpuprofile -o "$W/rows.prof" "$W/rows.txt"; then
	"$PPROF" --addresses "$G/prog" "$W/rows.prof" >"$W/rows.par" 2>/dev/null
	"$PPROF" --addresses --nodecount=1000000 "$G/prog" "$W/rows.prof" >"$W/rows.seq" 2>/dev/null
	check "80,000 rows: one row per address" test "$(grep -c ' ??:0$' "$W/rows.par")" -eq 80000
	same_output "80,000 rows: composed on two threads as row by row" "$W/rows.seq" "$W/rows.par"
else
	not_ok "gen-cpuprofile makes the 80,000-row profile"
fi
