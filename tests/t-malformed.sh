#!/usr/bin/env bash
# t-malformed.sh - malformed and unusable inputs must fail cleanly.
#
# Bad inputs are built in $TEST_TMP with scripts/gen-cpuprofile from
# testdata/golden/stacks.txt (PCs of the static binary testdata/golden/prog)
# or small descriptions written here.  For every bad input,
#   $PPROF --text PROGRAM PROFILE
# must exit with status 1, print nothing on stdout, and print exactly one
# line on stderr that names the offending file (the profile, or the program
# when the program is what is wrong); a truncated profile's message must also
# contain the word "offset".  A crash (status >= 128, a timeout, or a
# sanitizer report on stderr) is always a failure.
#
# Garbage in the mapped-object text does not make the profile invalid: those
# profiles must give exit status 0 and the normal report
# (testdata/golden/prof.default.text); warnings on stderr are allowed.
#
# SHOW_ERR=1 bash tests/t-malformed.sh also shows the messages of passing cases.
set -u
source "$(dirname "$0")/lib.sh"

G=$TESTDATA/golden
PROG=$G/prog
W=$TEST_TMP/malformed
mkdir -p "$W"
GEN=(python3 "$TOP/scripts/gen-cpuprofile")
EXPECTED=$G/prof.default.text

require python3 || exit 1

# expect_error NAME SHOWN ARGS...: pprof --text ARGS must fail cleanly, its
# message naming SHOWN.
expect_error() {
	local name=$1 shown=$2
	shift 2
	run_pprof --text "$@"
	fails_cleanly "$name" "$shown"
}

# expect_report NAME PROFILE [EXPECTED]: pprof must print the normal golden
# report (EXPECTED, by default prof.default.text).
expect_report() {
	local name=$1 prof=$2 expected=${3:-$EXPECTED}
	run_pprof --text "$PROG" "$prof"
	clean_exit "$name: exits 0 without crashing" "$RC" "$W/err" 0
	same_output "$name: normal report" "$expected" "$W/out"
}

# gen NAME [GEN OPTIONS...]: writes $W/NAME.prof from the description on stdin.
gen() {
	local name=$1
	shift
	"${GEN[@]}" "$@" -o "$W/$name.prof" - || not_ok "gen-cpuprofile makes $name.prof"
}

# The golden records without the period, header, trailer or map lines.
grep -E '^[0-9]+:' "$G/stacks.txt" >"$W/records.txt"
# The golden description without its map lines.
grep -v '^map' "$G/stacks.txt" >"$W/nomap.txt"

# --- truncation --------------------------------------------------------------
# A profile cut anywhere before the end of its trailer is bad; the message
# must contain "offset" once at least one 32-bit slot is there (a file of 1-3
# bytes may instead be called an unknown format).  Cut inside the map text,
# it is still a valid profile.

# cut_points END OFFSETS_FILE: prints the offsets 1..END-1 to test: all of them
# for small profiles, otherwise every STEP-th plus both sides of each section
# boundary listed in OFFSETS_FILE (as written by gen-cpuprofile --offsets).
cut_points() {
	local end=$1 offsets=$2
	if [ "$end" -le 4096 ]; then
		seq 1 $((end - 1))
		return
	fi
	{
		seq 1 $((end / 1000 + 1)) $((end - 1))
		awk '{ print $2 - 1; print $2; print $2 + 1 }' "$offsets"
		seq 1 16
	} | awk -v end="$end" '$1 >= 1 && $1 < end' | sort -n -u
}

# cut_files FILE DIR OFFSET...: writes DIR/N.prof = the first N bytes of FILE.
cut_files() {
	python3 - "$@" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
for n in sys.argv[3:]:
    with open("%s/%s.prof" % (sys.argv[2], n), "wb") as f:
        f.write(data[:int(n)])
PY
}

for layout in "64 little 64le" "32 little 32le" "64 big 64be" "32 big 32be"; do
	# shellcheck disable=SC2086 # split "BITS ENDIAN NAME"
	set -- $layout
	bits=$1 endian=$2 l=$3
	full=$W/full$l.prof
	case $bits in 32) expected=$G/prof32.default.text ;; *) expected=$EXPECTED ;; esac
	"${GEN[@]}" --bits "$bits" --endian "$endian" --offsets "$W/offsets$l" -o "$full" "$G/stacks.txt" ||
		{ not_ok "gen-cpuprofile makes the $l profile"; continue; }
	end=$(awk '$1 == "trailer" { print $2 }' "$W/offsets$l")
	# The 64le profile is cut at every offset; the other layouts at both
	# sides of each section boundary and every 7th byte.
	if [ "$l" = 64le ]; then
		points=$(cut_points "$end" "$W/offsets$l")
	else
		points=$({ seq 1 7 $((end - 1)); seq 1 8
			awk '{ print $2 - 1; print $2; print $2 + 1 }' "$W/offsets$l"; } |
			awk -v end="$end" '$1 >= 1 && $1 < end' | sort -n -u)
	fi
	mkdir -p "$W/cut$l"
	# shellcheck disable=SC2086
	cut_files "$full" "$W/cut$l" $points
	tested=0 failed=0 details=
	for n in $points; do
		run_pprof --text "$PROG" "$W/cut$l/$n.prof"
		offset=
		[ "$n" -ge 4 ] && offset=offset
		tested=$((tested + 1))
		if ! failed_cleanly "$RC" "$W/out" "$W/err" "$W/cut$l/$n.prof" "$offset"; then
			failed=$((failed + 1))
			if [ "$failed" -le 5 ]; then
				details+="    cut at $n: $WHY; stderr: ${ERR_LINES[0]:-}"$'\n'
			fi
		fi
	done
	if [ "$failed" -eq 0 ]; then
		ok "$l profile cut at $tested offsets before the end of the trailer ($end): fails cleanly"
	else
		not_ok "$l profile cut at $tested offsets before the end of the trailer ($end): $failed do not fail cleanly"
		printf '%s' "$details"
	fi
	# Cut in the map text: still a valid profile.
	size=$(wc -c <"$full")
	for n in "$end" $((end + 1)) $((end + 20)) $((size - 1)); do
		head -c "$n" "$full" >"$W/cut$l-$n.prof"
		expect_report "$l profile cut at $n, inside the map text" "$W/cut$l-$n.prof" "$expected"
	done
done

# --- empty, directory, missing files -----------------------------------------
: >"$W/empty.prof"
expect_error "empty profile" "$W/empty.prof" "$PROG" "$W/empty.prof"
mkdir -p "$W/dir.prof"
expect_error "directory as profile" "$W/dir.prof" "$PROG" "$W/dir.prof"
expect_error "nonexistent profile" "$W/missing.prof" "$PROG" "$W/missing.prof"
printf 'this is not a profile\nat all\n' >"$W/text.prof"
expect_error "text file as profile" "$W/text.prof" "$PROG" "$W/text.prof"

"${GEN[@]}" -o "$W/plain.prof" "$W/nomap.txt" || not_ok "gen-cpuprofile makes plain.prof"
printf 'int main() { return 0; }\n' >"$W/notelf.c"
expect_error "program that is not ELF" "$W/notelf.c" "$W/notelf.c" "$W/plain.prof"
expect_error "nonexistent program" "$W/missing-prog" "$W/missing-prog" "$W/plain.prof"
mkdir -p "$W/progdir"
expect_error "directory as program" "$W/progdir" "$W/progdir" "$W/plain.prof"

# --- bad header words --------------------------------------------------------
# bad_header NAME BITS HEADER_SLOTS...: golden records under a replaced header.
bad_header() {
	local name=$1 bits=$2
	shift 2
	{ echo "header $*"; cat "$W/records.txt"; } | gen "$name" --bits "$bits"
	expect_error "$name" "$W/$name.prof" "$PROG" "$W/$name.prof"
}
bad_header hdr-slot0-nonzero-64 64 1 3 0 10000 0
bad_header hdr-slot0-nonzero-32 32 7 3 0 10000 0
bad_header hdr-count-2 64 0 2 0 10000 0
bad_header hdr-count-1 64 0 1 0
bad_header hdr-count-0 64 0 0
bad_header hdr-count-2-32 32 0 2 0 10000 0
bad_header hdr-count-past-eof 64 0 0x7fffffff 0 10000 0
bad_header hdr-version-1 64 0 3 1 10000 0
bad_header hdr-version-huge 64 0 3 0xffffffffffff 10000 0
bad_header hdr-version-1-32 32 0 3 1 10000 0
# 32-bit view: bytes 4-5 and 6-7 both nonzero.
bad_header hdr-neither-32 32 0 0x00030003 0 10000 0
# 64-bit view: first slot 0, second slot with both 4-byte halves nonzero.
bad_header hdr-neither-64 64 0 0x0000000300000003 0 10000 0
# only the first header slot.
printf '\0\0\0\0\0\0\0\0' >"$W/hdr-one-slot.prof"
expect_error "hdr-one-slot" "$W/hdr-one-slot.prof" "$PROG" "$W/hdr-one-slot.prof"

# A header with one extra word (header count 4) is valid: the extra word is skipped.
{ echo "header 0 4 0 10000 0 0"; grep -v -e '^period' "$G/stacks.txt"; } | gen hdr-extra-word
expect_report "header with an extra word" "$W/hdr-extra-word.prof"

# --- bad records -------------------------------------------------------------
# bad_record NAME BITS RECORD_DIRECTIVE: one bad record after two good ones.
bad_record() {
	local name=$1 bits=$2 rec=$3
	{ echo "period 10000"; head -n 2 "$W/records.txt"; echo "$rec"; sed -n '3,$p' "$W/records.txt"; } |
		gen "$name" --bits "$bits"
	expect_error "$name" "$W/$name.prof" "$PROG" "$W/$name.prof"
}
bad_record num-pcs-0xffffffff-64 64 "record 1 0xffffffff 4016b3 401777 401528"
bad_record num-pcs-0xffffffff-32 32 "record 1 0xffffffff 4016b3 401777 401528"
bad_record num-pcs-2^40 64 "record 1 0x10000000000 4016b3 401777 401528"
bad_record num-pcs-max-64 64 "record 1 0xffffffffffffffff 4016b3 401777 401528"
bad_record num-pcs-2^31-32 32 "record 1 0x80000000 4016b3 401777 401528"
bad_record num-pcs-0 64 "record 5 0"
bad_record num-pcs-0-32 32 "record 5 0"

# --- missing trailer -----------------------------------------------------------
gen no-trailer --no-trailer <"$W/nomap.txt"
expect_error "records then EOF (no trailer)" "$W/no-trailer.prof" "$PROG" "$W/no-trailer.prof"
gen no-trailer-32 --bits 32 --no-trailer <"$W/nomap.txt"
expect_error "records then EOF (no trailer, 32-bit)" "$W/no-trailer-32.prof" "$PROG" "$W/no-trailer-32.prof"
gen no-trailer-map --no-trailer <"$G/stacks.txt"
expect_error "records then map text (no trailer)" "$W/no-trailer-map.prof" "$PROG" "$W/no-trailer-map.prof"
{ echo "header 0 3 0 10000 0"; } | gen header-only --no-trailer
expect_error "header then EOF" "$W/header-only.prof" "$PROG" "$W/header-only.prof"

# --- garbage map lines: still a valid profile ----------------------------------
# garbage_map NAME DIRECTIVES: the golden profile with DIRECTIVES appended.
garbage_map() {
	local name=$1 extra=$2
	{ cat "$G/stacks.txt"; printf '%s\n' "$extra"; } | gen "$name"
	expect_report "map garbage: $name" "$W/$name.prof"
}
garbage_map binary-junk "mapbytes 00 ff fe 01 7f 80 0a 00 00 2d 2d 0a 1b 5b 33 31 6d ff ff ff ff 0a"
garbage_map nul-in-line "mapbytes 30 30 34 30 30 30 30 30 00 2d 30 30 35 30 30 30 30 30 20 72 2d 78 70 0a"
garbage_map half-line "mapbytes 30 30 34 30 31 30 30 30 2d 30 30 34"
garbage_map half-line-so "mapbytes 30 30 34 30 31 30 30 30 2d 30 30 35 30 30 30 30 30 20 72 2d 78 70 20 30 30 30 30 30 30 30 30 20 30 38 3a 30 31 20 39 20 2f 6c 69 62 2f 6c 69"
garbage_map zzzz "map zzzz-1234 r-xp"
garbage_map dash-only "map -"
garbage_map empty-lines "map
map
map "
garbage_map overflow-hex "map ffffffffffffffffffffffffffffffff-fffffffffffffffffffffffffffffffff r-xp 00000000 08:01 1 /nonexistent/golden/libover.so"
# Would cover every PC if the 17-digit addresses wrapped modulo 2^64.
garbage_map overflow-wrap "map 10000000000400000-10000000000500000 r-xp 00000000 08:01 1 /nonexistent/golden/libwrap.so"
garbage_map overflow-offset "map 7f100000-7f200000 r-xp fffffffffffffffffffffff 08:01 1 /nonexistent/golden/liboff.so"
garbage_map reversed-range "map 7f300000-7f200000 r-xp 00000000 08:01 1 /nonexistent/golden/librev.so"
garbage_map cooked-lines "map 7f400000-7f500000: /nonexistent/golden/libcooked.so
map ffffffff-: /x.so
map -: .so"
garbage_map build-var "map build=
map 7f600000-7f700000 r-xp 00000000 08:01 1 \$build/\$build\$build/libb.so
map 7f700000-7f800000 r-xp 00000000 08:01 1 \$nobuild/libc.so.6"
garbage_map crlf "mapbytes 37 66 38 30 30 30 30 30 2d 37 66 39 30 30 30 30 30 20 72 2d 78 70 20 30 30 30 30 30 30 30 30 20 30 38 3a 30 31 20 31 20 2f 6e 6f 6e 2f 6c 69 62 2e 73 6f 0d 0a"
garbage_map long-line "map $(head -c 100000 /dev/zero | tr '\0' a)"
garbage_map long-path "map 7fa00000-7fb00000 r-xp 00000000 08:01 1 /$(head -c 20000 /dev/zero | tr '\0' d)/lib.so"

# --- several profiles ---------------------------------------------------------
# The profiles to add are read one ahead on a second thread (pipeline.c): a
# bad one among several still fails the run cleanly, naming it, whether it
# comes first, in the middle or last of those added.
P64=$G/prof64le.prof
head -c 200 "$P64" >"$W/cut.prof"
expect_error "bad first of four profiles" cut.prof "$PROG" "$W/cut.prof" "$P64" "$P64" "$P64"
expect_error "bad second of four profiles" cut.prof "$PROG" "$P64" "$W/cut.prof" "$P64" "$P64"
expect_error "bad third of four profiles" cut.prof "$PROG" "$P64" "$P64" "$W/cut.prof" "$P64"
expect_error "missing second of four profiles" nothere.prof "$PROG" "$P64" "$W/nothere.prof" "$P64" "$P64"
printf 'heap profile:    1:   100 [    1:   100] @ heapprofile\n     1:   100 [     1:   100] @ 0x401000\n' >"$W/heap.prof"
expect_error "a heap profile among CPU profiles" heap.prof "$PROG" "$P64" "$W/heap.prof" "$P64" "$P64"
# Four copies add up to four times one.
run_pprof --text "$PROG" "$P64" "$P64" "$P64" "$P64"
clean_exit "four profiles: exits 0" "$RC" "$W/err" 0
check "four profiles: four times the total of one" \
	bash -c "one=\$('$PPROF' --text '$PROG' '$P64' 2>/dev/null | sed -n 's/^Total: \([0-9]*\) samples.*/\1/p'); \
		 four=\$(sed -n 's/^Total: \([0-9]*\) samples.*/\1/p' '$W/out'); [ -n \"\$one\" ] && [ \"\$four\" -eq \$((4 * one)) ]"
