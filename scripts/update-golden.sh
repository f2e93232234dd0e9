#!/usr/bin/env bash
# update-golden.sh - regenerate the golden profiles and expected outputs in
# testdata/golden from the reference tool (gperftools' google-pprof).
#
#   scripts/update-golden.sh            (run from anywhere in the tree)
#   GOOGLE_PPROF=/path/to/pprof scripts/update-golden.sh
#
# 1. testdata/golden/stacks.txt -> prof64le.prof prof64be.prof prof32le.prof
#    prof32be.prof with scripts/gen-cpuprofile;
# 2. for each line "NAME<TAB>OPTIONS" of testdata/golden/CASES:
#      google-pprof --text OPTIONS testdata/golden/prog testdata/golden/prof64le.prof
#        > testdata/golden/prof.NAME.text      (stdout only)
#    and the same from prof32le.prof into prof32.NAME.text;
# 3. for each line "NAME<TAB>OPTIONS" of testdata/golden/LISTS:
#      google-pprof OPTIONS testdata/golden/prog testdata/golden/prof64le.prof
#        > testdata/golden/prof.NAME.out
#    which needs the sources at /golden, where the debug information puts
#    them: /golden is made a symbolic link to testdata/golden when missing
#    (as root), and removed afterwards;
# 4. checks that google-pprof prints the same for 64be as for 64le and for
#    32be as for 32le, and that the 32-bit output equals the 64-bit output once
#    16-digit addresses are shortened to 8 digits (google-pprof prints
#    addresses of 32-bit profiles with 8 hex digits: "0x004b0000").
# Commands run from the top of the tree with relative paths, exactly as
# tests/t-golden.sh runs pprof.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
REF=${GOOGLE_PPROF:-google-pprof}
G=testdata/golden
command -v "$REF" >/dev/null || { echo "update-golden: $REF not found" >&2; exit 1; }

for layout in "64 little 64le" "64 big 64be" "32 little 32le" "32 big 32be"; do
	# shellcheck disable=SC2086 # split "BITS ENDIAN NAME"
	set -- $layout
	scripts/gen-cpuprofile --bits "$1" --endian "$2" -o "$G/prof$3.prof" "$G/stacks.txt"
done

# Shortens 16-digit addresses with 8 leading zeros to 8 digits.
short_addrs() {
	sed -E -e 's/0x00000000([0-9a-f]{8})\b/0x\1/g' -e 's/\b00000000([0-9a-f]{8})\b/\1/g' "$1"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
while IFS=$'\t' read -r name opts; do
	case $name in ''|'#'*) continue ;; esac
	for l in 64le 64be 32le 32be; do
		# shellcheck disable=SC2086 # options are space-separated on purpose
		if ! "$REF" --text $opts "$G/prog" "$G/prof$l.prof" >"$tmp/$l" 2>"$tmp/err"; then
			echo "update-golden: $name ($l): $REF failed:" >&2
			cat "$tmp/err" >&2
			exit 1
		fi
	done
	cp "$tmp/64le" "$G/prof.$name.text"
	cp "$tmp/32le" "$G/prof32.$name.text"
	cmp -s "$tmp/64le" "$tmp/64be" || { echo "update-golden: $name: 64be differs from 64le" >&2; status=1; }
	cmp -s "$tmp/32le" "$tmp/32be" || { echo "update-golden: $name: 32be differs from 32le" >&2; status=1; }
	if ! cmp -s <(short_addrs "$tmp/64le") "$tmp/32le"; then
		echo "update-golden: $name: 32-bit output differs from 64-bit beyond address width:" >&2
		diff <(short_addrs "$tmp/64le") "$tmp/32le" >&2 || true
		status=1
	fi
	echo "$G/prof.$name.text  (--text $opts)"
done <"$G/CASES"

made_link=
if [ ! -e /golden ]; then
	ln -s "$top/$G" /golden || { echo "update-golden: cannot create /golden (run as root)" >&2; exit 1; }
	made_link=1
fi
while IFS=$'\t' read -r name opts; do
	case $name in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086 # options are space-separated on purpose
	if ! "$REF" $opts "$G/prog" "$G/prof64le.prof" >"$G/prof.$name.out" 2>"$tmp/err"; then
		echo "update-golden: $name: $REF failed:" >&2
		cat "$tmp/err" >&2
		status=1
	fi
	echo "$G/prof.$name.out  ($opts)"
done <"$G/LISTS"
[ -n "$made_link" ] && rm -f /golden
exit $status
