#!/usr/bin/env bash
# t-endian.sh - slot width and byte order do not change the report.
#
# One stack description with PCs of testdata/golden/prog (addresses as in
# testdata/golden/stacks.txt) is turned into 32-bit little-endian, 64-bit
# little-endian, 64-bit big-endian and 32-bit big-endian CPU profiles by
# scripts/gen-cpuprofile at test time.  "$PPROF --text [OPTS]" must give the
# identical report for all four.  Counts span several bytes (70000 = 0x11170,
# 4660 = 0x1234, 258 = 0x102, 66051 = 0x10203), so a byte-order slip shows.
# No PC lies outside the binary's symbols, so no report prints a raw address
# (32-bit profiles print addresses with 8 hex digits, 64-bit ones with 16);
# --addresses is compared after shortening 16-digit addresses to 8 digits.
set -u
source "$(dirname "$0")/lib.sh"

PROG=$TESTDATA/golden/prog
W=$TEST_TMP/endian
mkdir -p "$W"
GEN=(python3 "$TOP/scripts/gen-cpuprofile")

require python3 od || exit 1

cat >"$W/stacks.txt" <<'EOF'
period 5000
# main -> mid -> leaf_a
70000: 4016b3 401777 401528 401b54 403250 401591
# main -> mid (inlined mix)
4660: 401762 401528 401b54 403250 401591
# main -> walk -> walk -> leaf_b
258: 401708 4017e5 4017c6 401538 401b54 403250 401591
# main -> other -> leaf_a
1: 4016b0 40181c 401543 401b54 403250 401591
# the same as the first stack: summed with it
66051: 4016b3 401777 401528 401b54 403250 401591
# main -> mid -> leaf_b
513: 401708 401782 401528 401b54 403250 401591
map build=/golden
map 00401000-00479000 r-xp 00001000 08:01 1234 $build/prog
EOF
total=$((70000 + 4660 + 258 + 1 + 66051 + 513))

layouts="32le 64le 64be 32be"
for l in $layouts; do
	case $l in
	32le) args=(--bits 32 --endian little) ;;
	64le) args=(--bits 64 --endian little) ;;
	64be) args=(--bits 64 --endian big) ;;
	32be) args=(--bits 32 --endian big) ;;
	esac
	if "${GEN[@]}" "${args[@]}" -o "$W/$l.prof" "$W/stacks.txt"; then
		ok "gen-cpuprofile writes the $l profile"
	else
		not_ok "gen-cpuprofile writes the $l profile"
	fi
done

# The generator itself: sizes and the first header words per layout.
check "32-bit profile is 4-byte slots" test "$(head -c 16 "$W/32le.prof" | od -An -tx1 | tr -d ' \n')" = 00000000030000000000000088130000
check "32-bit big-endian header" test "$(head -c 16 "$W/32be.prof" | od -An -tx1 | tr -d ' \n')" = 00000000000000030000000000001388
check "64-bit little-endian header" test "$(head -c 16 "$W/64le.prof" | od -An -tx1 | tr -d ' \n')" = 00000000000000000300000000000000
check "64-bit big-endian header" test "$(head -c 16 "$W/64be.prof" | od -An -tx1 | tr -d ' \n')" = 00000000000000000000000000000003

# compare_layouts NAME OPTS...: runs pprof on every layout, compares with 64le.
compare_layouts() {
	local name=$1 l rc
	shift
	for l in $layouts; do
		timeout 60 "$PPROF" --text "$@" "$PROG" "$W/$l.prof" >"$W/$name.$l" 2>"$W/$name.$l.err"
		rc=$?
		if exited_cleanly "$rc" "$W/$name.$l.err" 0 && [ -s "$W/$name.$l" ]; then
			ok "$name: $l profile reads (status 0, output)"
		else
			not_ok "$name: $l profile reads (status $rc${WHY:+, $WHY})"
			show "$W/$name.$l.err" 5 stderr
		fi
	done
	if head -n 1 "$W/$name.64le" | grep -qx "Total: $total samples"; then
		ok "$name: 64le total is $total samples"
	else
		not_ok "$name: 64le total is $total samples (got: $(head -n 1 "$W/$name.64le"))"
	fi
	for l in $layouts; do
		[ "$l" = 64le ] && continue
		case $name:$l in
		addresses:32*)
			short_addrs "$W/$name.64le" >"$W/$name.64le.short"
			same_output "$name: $l report == 64le report (8-digit addresses)" "$W/$name.64le.short" "$W/$name.$l"
			;;
		*)
			same_output "$name: $l report == 64le report" "$W/$name.64le" "$W/$name.$l"
			;;
		esac
	done
}

compare_layouts functions
compare_layouts lines --lines
compare_layouts files --files
compare_layouts cum --cum
compare_layouts focus --focus=walk
compare_layouts addresses --addresses
