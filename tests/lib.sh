# lib.sh - helpers sourced by the tests/t-*.sh scripts.
# Environment from tests/run-tests: TOP, PPROF, TESTDATA, TEST_TMP.
# Each script keeps its files under its own directory W in TEST_TMP.
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${PPROF:=$TOP/pprof}"
: "${TESTDATA:=$TOP/testdata}"
if [ -z "${TEST_TMP:-}" ]; then
	TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pprof-test.XXXXXX")
	trap 'rm -rf "$TEST_TMP"' EXIT
fi

# Under VALGRIND=1 (tests/run-tests), VG is the valgrind command that runs
# our own binaries other than $PPROF, and every timeout is TIMEOUT_SCALE
# times longer; otherwise VG is empty.
VG=()
[ -n "${VALGRIND_CMD:-}" ] && read -r -a VG <<<"$VALGRIND_CMD"
if [ -n "${TIMEOUT_SCALE:-}" ]; then
	timeout() {
		if [[ $1 =~ ^[0-9]+$ ]]; then
			local d=$1
			shift
			command timeout "$((d * TIMEOUT_SCALE))" "$@"
		else
			command timeout "$@"
		fi
	}
fi

# scaled SECONDS: SECONDS as timeout() scales them.  A background job that
# must get signals sent to $! runs `command timeout "$(scaled N)" ...`: a
# shell function there would run in a subshell that keeps them from it.
scaled() {
	echo "$(($1 * ${TIMEOUT_SCALE:-1}))"
}

# FAILED is 1 once a check has failed: a script may end with exit "$FAILED".
FAILED=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; FAILED=1; }
skip() { echo "skip - $*"; }

# show FILE [N [LABEL]]: the first N (10) lines of FILE, indented, each
# after "LABEL: " when a LABEL is given.
show() {
	sed "s/^/    ${3:+$3: }/" "$1" | head -n "${2:-10}"
}

# check NAME COMMAND...: passes when COMMAND exits 0.
check() {
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# same_output NAME EXPECTED_FILE ACTUAL_FILE: passes when identical; shows a diff otherwise.
same_output() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff -u "$2" "$3" | head -n 40 | sed 's/^/    /'
	fi
}

# exited_cleanly STATUS STDERR_FILE [WANT...]: whether a command that exited
# with STATUS, its stderr in STDERR_FILE, exited cleanly: it did not time out
# (status 124, timeout's), die of a signal or fail to run (125 and above),
# print a sanitizer report (AddressSanitizer, LeakSanitizer, or
# UndefinedBehaviorSanitizer's "runtime error") or exit with valgrind's
# error status (VALGRIND_EXIT, under VALGRIND=1), and, when WANT statuses are
# given, its status is one of them.  Sets WHY to the reason it did not exit
# cleanly ("" when it did) and ERR_LINES to the lines of STDERR_FILE.
# Starts no process: the truncation tests call it thousands of times.
exited_cleanly() {
	local status=$1 all want
	ERR_LINES=()
	mapfile -t ERR_LINES <"$2"
	shift 2
	all="${ERR_LINES[*]}"
	want="$*"
	WHY=
	if [ "$status" -eq 124 ]; then
		WHY="timed out"
	elif [ "$status" -ge 125 ]; then
		WHY="crashed (status $status)"
	elif [ -n "${VALGRIND_EXIT:-}" ] && [ "$status" -eq "$VALGRIND_EXIT" ]; then
		WHY="valgrind found errors (status $status)"
	elif [[ $all == *AddressSanitizer* || $all == *LeakSanitizer* ||
		$all == *UndefinedBehaviorSanitizer* || $all == *"runtime error"* ]]; then
		WHY="sanitizer report on stderr"
	elif [ $# -gt 0 ] && [[ " $want " != *" $status "* ]]; then
		WHY="exit status $status, want ${want// / or }"
	fi
	[ -z "$WHY" ]
}

# clean_exit NAME STATUS STDERR_FILE [WANT...]: passes when the command
# exited cleanly (see exited_cleanly); otherwise shows its stderr.
clean_exit() {
	local name=$1 status=$2 err=$3
	shift 3
	if exited_cleanly "$status" "$err" "$@"; then
		ok "$name"
		return 0
	fi
	not_ok "$name ($WHY)"
	show "$err" 10 stderr
	return 1
}

# failed_cleanly STATUS STDOUT_FILE STDERR_FILE [TEXT...]: whether a command
# failed cleanly: it exited cleanly with status 1, printed nothing on stdout
# and one line on stderr, containing each TEXT.  Sets WHY and ERR_LINES as
# exited_cleanly does.
failed_cleanly() {
	local text
	exited_cleanly "$1" "$3" 1 || return 1
	if [ -s "$2" ]; then
		WHY="output on stdout"
	elif [ "${#ERR_LINES[@]}" -ne 1 ]; then
		WHY="${#ERR_LINES[@]} lines on stderr, want 1"
	else
		for text in "${@:4}"; do
			if [[ ${ERR_LINES[0]} != *"$text"* ]]; then
				WHY="stderr lacks '$text'"
				break
			fi
		done
	fi
	[ -z "$WHY" ]
}

# run_pprof ARGS...: runs $PPROF ARGS for 20 seconds at most, its stdout
# into $W/out and its stderr into $W/err; sets RC to its exit status.
run_pprof() {
	timeout 20 "$PPROF" "$@" >"$W/out" 2>"$W/err"
	RC=$?
}

# fails_cleanly NAME [TEXT...]: passes when the last run_pprof failed cleanly
# (see failed_cleanly).  SHOW_ERR=1 shows the message of a passing run too.
fails_cleanly() {
	local name=$1
	shift
	if failed_cleanly "$RC" "$W/out" "$W/err" "$@"; then
		ok "$name: fails cleanly"
		if [ -n "${SHOW_ERR:-}" ]; then show "$W/err" 5 stderr; fi
		return 0
	fi
	not_ok "$name: fails cleanly ($WHY)"
	show "$W/out" 5 stdout
	show "$W/err" 5 stderr
	return 1
}

# short_addrs FILE: FILE with 16-digit addresses of 8 leading zeros written
# with 8 digits, as google-pprof prints the addresses of 32-bit profiles.
short_addrs() {
	sed -E -e 's/0x00000000([0-9a-f]{8})\b/0x\1/g' -e 's/\b00000000([0-9a-f]{8})\b/\1/g' "$1"
}

have() { command -v "$1" >/dev/null 2>&1; }

# require [--libprofiler] TOOL...: the programs a test needs, libprofiler
# (for programs the test profiles) and a built $PPROF.  Prints a not_ok line
# for each missing one, naming what installs it, and fails if any is missing.
# Missing tools are failures, not skips: scripts/install-deps installs them.
require() {
	local missing= tool
	if [ "${1:-}" = --libprofiler ]; then
		shift
		case $(gcc -print-file-name=libprofiler.so 2>/dev/null) in
		/*) ;;
		*) not_ok "libprofiler.so is installed (libgoogle-perftools-dev; run scripts/install-deps)"
		   missing=1 ;;
		esac
	fi
	for tool in "$@"; do
		have "$tool" || { not_ok "$tool is installed (run scripts/install-deps)"; missing=1; }
	done
	if [ ! -x "$PPROF" ]; then
		not_ok "$PPROF is built (run make)"
		missing=1
	fi
	[ -z "$missing" ]
}

# build NAME COMMAND...: runs a compiler command; on failure a not_ok line
# with the command's output.
build() {
	local name=$1; shift
	if "$@" >"$TEST_TMP/build.log" 2>&1; then
		return 0
	fi
	not_ok "$name builds"
	show "$TEST_TMP/build.log" 20
	return 1
}

# Link flags of the programs a test profiles with cpu_profile.
PROF_LIBS=(-Wl,--no-as-needed -lprofiler)

# Profiles hold raw addresses: without ASLR the runs of a program share one
# address layout, so their profiles can be summed and compared.
NOASLR=(env)
setarch -R true 2>/dev/null && NOASLR=(setarch -R)

# cpu_profile NAME PROGRAM PROFILE [ARG]: runs PROGRAM [ARG] under
# libprofiler (1000 samples a second), writing PROFILE; on failure a
# not_ok line naming NAME.
cpu_profile() {
	local name=$1 prog=$2 prof=$3
	rm -f "$prof"
	if ! CPUPROFILE=$prof CPUPROFILE_FREQUENCY=1000 "${NOASLR[@]}" "$prog" ${4:+"$4"} \
		>"$TEST_TMP/run.log" 2>&1; then
		not_ok "$name runs"
		show "$TEST_TMP/run.log" 20
		return 1
	fi
	[ -s "$prof" ] && return 0
	not_ok "$name writes a CPU profile (is libprofiler linked?)"
	return 1
}

# gp_text FILE: our --text output as google-pprof prints it: without the
# "After focusing on 'RE': ..." and "After ignoring 'RE': ..." header lines
# that we add when --focus or --ignore is given (google-pprof's --text has
# none; its prompt prints the same lines).
gp_text() {
	grep -v -e "^After focusing on '" -e "^After ignoring '" "$1"
}

# says_kept NAME FILE OPTS...: with --focus/--ignore among OPTS, FILE has the
# matching "After ..." header line right after the Total line.
says_kept() {
	local name=$1 file=$2 o; shift 2
	for o in "$@"; do
		case $o in
		--focus=*) check "$name: the header says what --focus kept" \
			grep -qF "After focusing on '${o#--focus=}': " "$file" ;;
		--ignore=*) check "$name: the header says what --ignore kept" \
			grep -qF "After ignoring '${o#--ignore=}': " "$file" ;;
		esac
	done
}

# no_text FILE: a --disasm listing without the instruction text, which is
# capstone's and not objdump's: the "%6s %6s    %8s: TEXT" lines keep
# "%6s %6s    %8s:", the rest is as is.
no_text() { sed -E 's/^(.{6} .{6}    [ 0-9a-f]{8,}):.*/\1:/' "$1"; }
