#!/usr/bin/env bash
# t-fuzz-regress.sh - every input the fuzzing harnesses start from (their
# seeds) and every input that once made one fail (their crashes) goes
# through the same harness again, linked to the replay driver instead of
# libFuzzer (tests/fuzz/README): built by `make unit` as
# $UNIT_DIR/fuzz-NAME, with the sanitizers under SANITIZE=1.  Each input
# must come back: no crash, no sanitizer report, no hang (the harness's
# own checks abort on a broken promise, such as a profile written as
# profile.proto that does not read back).  Then one check of the fuzzing
# runner itself (tests/fuzz/run): a DIR that is not a directory.
set -u
source "$(dirname "$0")/lib.sh"

W=$TEST_TMP/fuzz-regress
mkdir -p "$W"
BIN=${UNIT_DIR:-$TOP/tests/unit/bin}
export TESTDATA

for src in "$TOP"/tests/fuzz/*.c; do
	name=$(basename "$src" .c)
	case $name in fuzz|replay) continue ;; esac
	dirs=()
	for d in "$TOP/tests/fuzz/$name/seeds" "$TOP/tests/fuzz/$name/crashes"; do
		[ -d "$d" ] && dirs+=("$d")
	done
	if [ ! -x "$BIN/fuzz-$name" ]; then
		not_ok "$name: the replay harness $BIN/fuzz-$name is built (make unit)"
		continue
	fi
	if [ ${#dirs[@]} -eq 0 ]; then
		not_ok "$name: has seeds in tests/fuzz/$name/seeds"
		continue
	fi
	timeout 600 "${VG[@]}" "$BIN/fuzz-$name" "${dirs[@]}" >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	if clean_exit "$name: replays $(grep -c '^ok - ' "$W/$name.out") inputs" "$rc" "$W/$name.err" 0; then
		sed "s|^ok - $TOP/tests/fuzz/|ok - $name: |" "$W/$name.out"
	else
		echo "    last input: $(grep '^replay: ' "$W/$name.err" | tail -n 1 | sed 's/^replay: //')"
	fi
done

# The runner given something that is not a directory stops at once, naming
# it, and runs nothing (it once went on with an empty path: every
# executable in / was started as a harness).
timeout 60 "$TOP/tests/fuzz/run" "$TOP/tests/fuzz/README" >"$W/run.out" 2>"$W/run.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "tests/fuzz/README" "$W/run.err" &&
   ! grep -q '^fuzz' "$W/run.out" "$W/run.err"; then
	ok "tests/fuzz/run stops when DIR is not a directory"
else
	not_ok "tests/fuzz/run stops when DIR is not a directory (exit $rc)"
	show "$W/run.err" 5
fi
exit "$FAILED"
