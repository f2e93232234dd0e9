#!/usr/bin/env bash
# t-interactive.sh - the (pprof) prompt, driven through standard input and
# through a pseudo-terminal: top, settings, help, errors, completion, history.
set -u
source "$(dirname "$0")/lib.sh"

G=$TESTDATA/golden
W=$TEST_TMP/interactive
mkdir -p "$W/home"
run() { printf "$1" | "$PPROF" --interactive "$G/prog" "$G/prof64le.prof" 2>"$W/err"; }

run 'top5\n' >"$W/top5"
"$PPROF" --text "$G/prog" "$G/prof64le.prof" | head -n 6 >"$W/text5"
same_output "top5 equals the first rows of --text" "$W/text5" "$W/top5"
check "piped input shows no prompt" bash -c "! grep -q '(pprof)' '$W/top5' '$W/err'"

run 'top20 --cum\n' >"$W/topcum"
"$PPROF" --text --cum "$G/prog" "$G/prof64le.prof" | head -n 21 >"$W/textcum"
same_output "top20 --cum equals --text --cum" "$W/textcum" "$W/topcum"

run 'top\n' >"$W/top"
"$PPROF" --text "$G/prog" "$G/prof64le.prof" | head -n 11 >"$W/text10"
same_output "top shows 10 rows" "$W/text10" "$W/top"

run 'focus=walk\ntop100\n' >"$W/focus"
"$PPROF" --text --focus=walk "$G/prog" "$G/prof64le.prof" >"$W/textfocus"
same_output "focus= persists and equals --focus" "$W/textfocus" "$W/focus"

run 'lines\ntop100\ngranularity=functions\ntop100\n' >"$W/gran"
{ "$PPROF" --text --lines "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text "$G/prog" "$G/prof64le.prof"; } >"$W/textgran"
same_output "granularity settings equal --lines, then --functions" "$W/textgran" "$W/gran"

# Later reports reuse what the first ones worked out (stacks, values, the
# entries of each granularity): a session going back and forth must still
# equal the command line, report for report.
run 'top100\nfocus=walk\ntop100\nlines\ntop100\nfocus=\nignore=leaf_a\ntop100\nfunctions\ntop100\nlines\nignore=\ntop100\nfunctions\ntop100\n' >"$W/revisit"
{ "$PPROF" --text "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text --focus=walk "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text --lines --focus=walk "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text --lines --ignore=leaf_a "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text --ignore=leaf_a "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text --lines "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text "$G/prog" "$G/prof64le.prof"; } >"$W/textrevisit" 2>/dev/null
same_output "a session revisiting settings equals the command line each time" "$W/textrevisit" "$W/revisit"

# After a report by function without filters, one by line or by file and
# function takes its values from each location's sums, added up while the
# profile was symbolized, and reduces again only the stacks that meet a
# function twice (walk's recursion here; mix is inlined into mid).
run 'top100\nlines\ntop100\ngranularity=filefunctions\ntop100 --cum\n' >"$W/sums"
{ "$PPROF" --text "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text --lines "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text --filefunctions --cum "$G/prog" "$G/prof64le.prof"; } >"$W/textsums" 2>/dev/null
same_output "reports by line and by file and function after one by function equal the command line" \
	"$W/textsums" "$W/sums"

run 'ignore=leaf\ntop100\nignore=\ntop1\n' >"$W/ignore"
{ "$PPROF" --text --ignore=leaf "$G/prog" "$G/prof64le.prof"
  "$PPROF" --text "$G/prog" "$G/prof64le.prof" | head -n 2; } >"$W/textignore"
same_output "ignore= persists until cleared" "$W/textignore" "$W/ignore"

run 'top100 -leaf_a\n' >"$W/dash"
check "top -RE ignores matching stacks" bash -c "grep -v ^After '$W/dash' | grep -vq leaf_a && ! grep -v ^After '$W/dash' | grep -q leaf_a"
check "top -RE says what it ignores" grep -q "Ignoring samples in call stacks that match 'leaf_a'" "$W/err"
check "top -RE reports what is left" grep -q "^After ignoring 'leaf_a': " "$W/dash"

run 'help\n' >"$W/help"
for c in top list disasm gv web focus ignore help quit; do
	check "help lists $c" grep -q "^  $c" "$W/help"
done
run 'help top\n' >"$W/helptop"
check "help COMMAND explains it" grep -q 'cumulative' "$W/helptop"

run 'bogus\ntop1\n' >"$W/bogus"
check "an unknown command is one error line" test "$(grep -c 'Unknown command' "$W/err")" -eq 1
check "the prompt goes on after an error" grep -q '^Total:' "$W/bogus"
run 'focus=(\ntop1\n' >"$W/badre"
check "a bad regex is one error line" grep -q "invalid focus regex" "$W/err"
check "the prompt goes on after a bad regex" grep -q '^Total:' "$W/badre"
run 'nodecount=x\n' >/dev/null
check "a bad number is refused" grep -q 'nodecount' "$W/err"
run 'top1\nquit\ntop5\n' >"$W/quit"
check "quit ends the session" test "$(grep -c '^Total' "$W/quit")" -eq 1
printf 'top1\n' | "$PPROF" --interactive "$G/prog" "$G/prof64le.prof" >/dev/null 2>&1
check "end of input ends with status 0" test $? -eq 0

# Through a pseudo-terminal: prompt, completion and history across runs.
cat >"$W/drive_tty.py" <<'PY'
# Runs pprof on a pseudo-terminal, types keys, and prints what it showed.
import os, pty, select, signal, sys, time
argv = sys.argv[1:]
def session(keys):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    out = b""
    def read_until(pat, timeout=10):
        nonlocal out
        end = time.time() + timeout
        while pat not in out[mark:] and time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
    mark = 0
    read_until(b"(pprof) ")
    for k in keys + [b"quit\r"]:
        mark = len(out)
        os.write(fd, k)
        read_until(b"(pprof) ", 5)
    for _ in range(50):
        if os.waitpid(pid, os.WNOHANG)[0]:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return out.decode("utf-8", "replace")
first = session([b"top2\r", b"wal\t\r", b"disasm ^mid$\r"])
second = session([b"\x1b[A\x1b[A\x1b[A\x1b[A\r"])
third = session([b"to\x03", b"top1\r"])
sys.stdout.write(first + "\n=====\n" + second + "\n#####\n" + third)
PY
HOME=$W/home XDG_DATA_HOME=$W/home/data TERM=xterm python3 "$W/drive_tty.py" "$PPROF" "$G/prog" "$G/prof64le.prof" >"$W/pty.out" 2>&1
check "a terminal gets the welcome line and the prompt" grep -q "Welcome to pprof" "$W/pty.out"
check "a terminal runs commands" grep -q "leaf_a" "$W/pty.out"
check "a terminal runs disasm" grep -q "ROUTINE ====================== mid" "$W/pty.out"
check "tab completes a function name (wal -> walk)" grep -q "^walk" "$W/home/data/pprof/history"
check "the history is kept in XDG_DATA_HOME" grep -q "top2" "$W/home/data/pprof/history"
check "the history comes back in the next session (up-arrow reruns top2)" \
	bash -c "sed -n '/=====/,/#####/p' '$W/pty.out' | grep -q '^Total: 220'"
check "Ctrl-C at the prompt gives a fresh prompt, not an exit" \
	bash -c "sed -n '/#####/,\$p' '$W/pty.out' | grep -q '^Total: 220'"

# Graph commands write the same graph as the command line.
run "dot >$W/i.dot\n" >/dev/null
"$PPROF" --dot "$G/prog" "$G/prof64le.prof" >"$W/c.dot" 2>/dev/null
same_output "dot >FILE writes what --dot prints" "$W/c.dot" "$W/i.dot"
check "dot >FILE says where it wrote" grep -q "Wrote $W/i.dot" "$W/err"
(cd "$W" && printf 'pdf\n' | "$PPROF" --interactive "$G/prog" "$G/prof64le.prof" >/dev/null 2>&1)
check "pdf without a file name writes pprof.1.pdf" bash -c "file '$W/pprof.1.pdf' | grep -q PDF"
run 'list\n' >/dev/null
check "list without a regex is one error line" test "$(wc -l <"$W/err")" -eq 1

# list and disasm: the same as --list and --disasm (non-dash arguments are
# joined with | into the routine regex, -RE ignores stacks).
printf 'list ^mid$\ndisasm walk -leaf_b\nlist mid walk\n' |
	"$PPROF" --interactive --source_path="$G" "$G/prog" "$G/prof64le.prof" >"$W/lists" 2>"$W/err"
{ "$PPROF" --list='^mid$' --source_path="$G" "$G/prog" "$G/prof64le.prof"
  "$PPROF" --disasm=walk --ignore=leaf_b --source_path="$G" "$G/prog" "$G/prof64le.prof"
  "$PPROF" --list='mid|walk' --source_path="$G" "$G/prog" "$G/prof64le.prof"; } >"$W/lists.cli" 2>/dev/null
grep -Ev '^(Total|After ignoring)' "$W/lists" >"$W/lists.body"
same_output "list, disasm -RE and list RE RE equal --list, --disasm --ignore" "$W/lists.cli" "$W/lists.body"
# As google-pprof's prompt, each listing comes after the total and what -RE kept.
check "each listing after 'Total: 220 samples'" test "$(grep -cx 'Total: 220 samples' "$W/lists")" -eq 3
check "disasm -leaf_b after what google-pprof says it keeps" \
	grep -qx "After ignoring 'leaf_b': 170 samples of 220 (77.3%)" "$W/lists"
check "the listings name the routines" test "$(grep -c '^ROUTINE' "$W/lists")" -eq 4
run 'list ^nosuch$\ntop1\n' >"$W/nolist"
check "list without a match is one error line and the prompt goes on" \
	bash -c "grep -q 'no routine with samples matches' '$W/err' && grep -q '^Total' '$W/nolist'"

# A topN picks its rows out of many entries without sorting them all: the
# rows must still be --text's first ones.  300 functions of one long prefix
# (ties on the first 16 bytes of the name) and three sample counts (ties on
# the value) make the names decide most places.
if require gcc python3; then
	python3 - "$W/many.c" <<'PY'
import sys
n = 300
with open(sys.argv[1], "w") as f:
    f.write("#include <stdio.h>\n")
    for i in range(n):
        f.write("__attribute__((noinline)) int frobnicate_the_widget_%03d(int x)"
                " { return x * %d + 1; }\n" % (i, i + 3))
    f.write("int main(void)\n{\n")
    for i in range(n):
        f.write("\tprintf(\"%%lx\\n\", (unsigned long)&frobnicate_the_widget_%03d);\n" % i)
    f.write("\tprintf(\"%lx\\n\", (unsigned long)&main);\n\treturn 0;\n}\n")
PY
	if build "many functions" gcc -g -O1 -no-pie -o "$W/many" "$W/many.c" &&
	   "$W/many" >"$W/many.addrs"; then
		# Records in a scrambled order: entries are made in the order met.
		python3 - "$W/many.addrs" "$W/many" >"$W/many.txt" <<'PY'
import sys
addrs = [int(a, 16) for a in open(sys.argv[1]).read().split()]
main, funcs = addrs[-1], addrs[:-1]
print("period 10000")
for k in range(len(funcs)):
    i = k * 37 % len(funcs)
    print("%d: %x %x" % (i % 3 + 1, funcs[i] + 1, main + 5))
    if i % 7 == 0:
        print("%d: %x %x" % (i % 4 + 1, main + 2, funcs[i] + 2))
print("map 00400000-00600000 r-xp 00000000 00:00 0 " + sys.argv[2])
PY
		python3 "$TOP/scripts/gen-cpuprofile" -o "$W/many.prof" "$W/many.txt"
		printf 'top\ntop 3 --cum\ntop 18\nlines\ntop 5\n' |
			"$PPROF" --interactive "$W/many" "$W/many.prof" >"$W/picked" 2>/dev/null
		{ "$PPROF" --text "$W/many" "$W/many.prof" | head -n 11
		  "$PPROF" --text --cum "$W/many" "$W/many.prof" | head -n 4
		  "$PPROF" --text "$W/many" "$W/many.prof" | head -n 19
		  "$PPROF" --text --lines "$W/many" "$W/many.prof" | head -n 6; } >"$W/picked.cli" 2>/dev/null
		same_output "top N of 300 tied entries equals --text's first rows" "$W/picked.cli" "$W/picked"
		check "the tied rows are told apart by name" \
			test "$(grep -c ' frobnicate_the_widget_' "$W/picked")" -ge 30
	fi
fi
