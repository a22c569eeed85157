#!/bin/sh
# dmlref check with the process backend written in C
# (conformance/backends/reference_process.c), which runs natively wherever
# dmlref does, Windows included:
#   - it passes the whole suite, statuses and rules compared, at the latest
#     level and at 3_0; --jobs 2 gives the report of --jobs 1;
#   - each way it can misbehave gets the verdict it deserves, as its Python
#     equivalents in tests/cli/test_check.sh do: a hang, a crash, an exit cost
#     their case and the run goes on; garbage, another case's name, a line
#     without end are errors; a second or late reply is charged to its case;
#     a wrong element, a refusal of a valid case fail; a backend that hangs
#     from the start stops the run with exit 2; every wait bounded, no
#     process left behind;
#   - --filter and --exclude select by shell patterns, as fnmatch() does (a
#     table of patterns against crafted case names, through --list).
# Quick mode (DMLREF_TEST_QUICK, tests/cli/lib.sh): every check, each run
# over vectors/ on suite_paths (the whole suite's runs on the quick suite).
#   test_process_backend.sh DMLREF_BINARY BACKENDS_DIR
# DMLREF_BINARY may be a script that runs dmlref another way (`wine
# dmlref.exe "$@"`); BACKENDS_DIR holds reference_process or
# reference_process.exe, whose path is given to --exec as the system names it
# (winepath, wine's own under $WINE, or cygpath, when there is one, for the
# .exe).
#   CHECK_LIMIT=SECONDS (default 600): how long one run may take before it counts as hung
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -ne 2 ]; then
    usage "DMLREF_BINARY BACKENDS_DIR"
fi
take_binary "$1"
dmlref=$bin
backends=$(cd "$2" && pwd) || exit 3
make_tmp process
cd "$root" || exit 1
quick_banner "the runs over the whole suite or across its folders: the quick suite's \
$(suite_total) vectors"

# native PATH: PATH as the backend's system names it (wine takes a POSIX
# path too, when it has no winepath at hand)
native() {
    if [ -n "$exe" ] && command -v winepath >/dev/null 2>&1; then
        WINEDEBUG=-all winepath -w "$1" 2>/dev/null
    elif [ -n "$exe" ] && [ -n "${WINE:-}" ]; then
        WINEDEBUG=-all "$WINE" winepath -w "$1" 2>/dev/null
    elif [ -n "$exe" ] && command -v cygpath >/dev/null 2>&1; then
        cygpath -w "$1"
    else
        printf '%s\n' "$1"
    fi
}

exe=
if [ -x "$backends/reference_process" ]; then
    program="$backends/reference_process"
elif [ -f "$backends/reference_process.exe" ]; then
    exe=.exe
    program="$backends/reference_process.exe"
else
    echo "$0: no reference_process in $backends (sh conformance/backends/build.sh)" >&2
    exit 3
fi
program=$(native "$program")
counter=$(native "$tmp/counter")
quoted="\"$program\"" # a path with spaces stays one word for sh -c and cmd.exe
# hostile BEHAVIOUR...: the backend misbehaving, one way a case; on POSIX the
# shell gives way to it (exec), so that its crash or its closed stdout is the
# command's own (cmd.exe, on Windows, has no exec: it passes on a crash's
# exception code as its exit status, and keeps its copy of the pipes)
hostile() {
    if [ -z "$exe" ]; then
        printf 'exec %s "%s" %s' "$quoted" "$counter" "$*"
    else
        printf '%s "%s" %s' "$quoted" "$counter" "$*"
    fi
}

# fails TEXT: a failure, with the end of the last run's output ($tmp/out)
fails() {
    fail "$1"
    show_tail 8 "$tmp/out"
}

# run_check ARGS: dmlref check ARGS, its output in $tmp/out, its exit status
# in rc and its seconds in elapsed; the counter of the misbehaving backend
# starts again
run_check() {
    rm -f "$tmp/counter"
    started=$(date +%s)
    suite_run timeout "${CHECK_LIMIT:-600}" "$dmlref" check "$@" >"$tmp/out" 2>&1 # a hang fails the test, not the suite
    rc=$?
    elapsed=$(($(date +%s) - started))
    tr -d '\r' <"$tmp/out" >"$tmp/out.lf" && mv "$tmp/out.lf" "$tmp/out"
}

# check NAME EXPECTED_EXIT PATTERN... -- ARGS: runs dmlref check ARGS, wants
# the exit status and every pattern (grep -E) in its output
check() {
    name=$1 want=$2
    shift 2
    patterns=""
    while [ "$1" != "--" ]; do
        patterns="$patterns
$1"
        shift
    done
    shift
    run_check "$@"
    # Under wine, cmd.exe now and then fails to start a program that it
    # starts the next time (exit 9009, "Can't recognize ... as an internal
    # or external command"): once, such a run is run again (no backend of
    # these tests exits so).  A command line that names no program fails
    # both times.
    if [ -n "$exe" ] && grep -q '(status 9009)' "$tmp/out"; then
        echo "note: $name: cmd.exe did not start the backend once (exit 9009); run again"
        run_check "$@"
    fi
    if [ "$rc" != "$want" ]; then
        fails "$name: exit $rc, wanted $want"
        return
    fi
    echo "$patterns" | while IFS= read -r p; do
        [ -z "$p" ] && continue
        grep -Eq -- "$p" "$tmp/out" || { echo "missing: $p" >>"$tmp/missing"; }
    done
    if [ -s "$tmp/missing" ]; then
        cat "$tmp/missing" >>"$tmp/out"
        rm -f "$tmp/missing"
        fails "$name"
        return
    fi
    ok "$name"
}

# within NAME SECONDS: the last check took at most SECONDS
# The bounds are far above a run's own seconds (6 s for the hang alone), since
# under an emulator beside the other lanes of make check each process start
# takes many times longer; what they catch is a wait that does not end.
within() {
    if [ "$elapsed" -le "$2" ]; then
        ok "$1: ${elapsed} s, at most $2"
    else
        fails "$1: ${elapsed} s, more than $2"
    fi
}

# ---- a correct backend -------------------------------------------------------------

check "the whole suite passes, statuses and rules compared" 0 \
    "^[0-9]+ passed, 0 failed, 0 skipped$" -- \
    --exec "$quoted" --strict-status vectors
check "... and at feature level 3_0, where more cases must be refused" 0 \
    "^[0-9]+ passed, 0 failed, 0 skipped$" -- \
    --exec "$quoted" --strict-status --feature-level 3_0 --filter 'gather_elements/*' vectors

# --jobs 2 gives the report of --jobs 1: the same lines, the same summary.  A
# backend that refuses every case makes both passes (the invalid cases) and
# failures (the valid ones), whichever job runs which case.
selection='*/float32/2d/*'
cases=$(suite_run "$dmlref" check --list --filter "$selection" vectors 2>"$tmp/list.err" | wc -l)
if [ "$cases" -gt 0 ] && [ "$(tr -d '\r' <"$tmp/list.err")" = "dmlref check: $cases cases selected" ]; then
    ok "--list names the $cases cases of $selection, and says how many on stderr"
else
    bad "dmlref check --list --filter '$selection': $cases cases" "$tmp/list.err"
fi
everything_refused=$(hostile "$(yes refuse | head -n "$cases" | tr '\n' ' ')")
for jobs in 1 2; do
    check "--jobs $jobs: a run of passes and failures" 1 "passed, [1-9][0-9]* failed" -- \
        --jobs "$jobs" --verbose --exec "$everything_refused" --filter "$selection" vectors
    grep -E '^(PASS|FAIL|SKIP|ERROR) ' "$tmp/out" | LC_ALL=C sort >"$tmp/jobs$jobs"
    tail -n 1 "$tmp/out" >>"$tmp/jobs$jobs"
done
if [ -s "$tmp/jobs1" ] && cmp -s "$tmp/jobs1" "$tmp/jobs2" \
    && [ "$(wc -l <"$tmp/jobs1")" -eq $((cases + 1)) ]; then
    ok "--jobs 2 gives the report of --jobs 1 ($cases cases)"
else
    fails "--jobs 2 gives the report of --jobs 1"
    diff "$tmp/jobs1" "$tmp/jobs2" | head -n 6
fi

# ---- misbehaving: each fault costs its own case --------------------------------------

one='gather_elements/float32/1d/axis0_int32_permuted'
two='gather_elements/float32/1d/axis0_uint64_packed'

check "unsupported: skipped, with its message" 0 \
    "^SKIP  $one: unsupported: reference_process: told to support nothing$" \
    "^1 passed, 0 failed, 1 skipped$" -- \
    --exec "$(hostile unsupported)" --filter "$one" --filter "$two" vectors
check "a valid case refused: fails" 1 \
    "^FAIL  $one: refused a valid case: reference_process: told to refuse every case$" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile refuse)" --filter "$one" --filter "$two" vectors
check "a wrong element: fails, naming it" 1 \
    "^FAIL  $one: \\\$\\.tensors\\.OutputTensor\\.expected\\[0\\]: OutputTensor\\[0\\]: expected " \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile wrong)" --filter "$one" --filter "$two" vectors
check "garbage: a malformed reply, restarted for the next case" 1 \
    "^ERROR $one: malformed reply: reply: \\\$: " "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile garbage)" --filter "$one" --filter "$two" vectors
check "a reply naming another case: an error" 1 "^ERROR $one: .*answers another case" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile other-name)" --filter "$one" --filter "$two" vectors
check "a hang: timed out, the run goes on" 1 "^ERROR $one: timed out after 2 s" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile hang)" --timeout 2 --filter "$one" --filter "$two" vectors
within "a hang (2 cases, timeout 2 s)" 90
check "a slow reply (3 s) past the timeout: timed out, the run goes on" 1 \
    "^ERROR $one: timed out after 2 s" "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile slow)" --timeout 2 --filter "$one" --filter "$two" vectors
check "a crash: an error naming it, restarted for the next case" 1 \
    "^ERROR $one: the backend crashed \\((signal 11|exception 0xC0000005, access violation)" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile crash)" --filter "$one" --filter "$two" vectors
check "an exit: an error with its status, restarted for the next case" 1 \
    "^ERROR $one: the backend's process exited \\(status 3\\)" "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile exit)" --filter "$one" --filter "$two" vectors
# (under cmd.exe, which keeps its copy of stdout, the case times out instead)
check "stdout closed, the process living on: an error, not a hang" 1 \
    "^ERROR $one: (the backend closed its stdout and did not exit|timed out after 5 s)" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile close-stdout)" --timeout 5 --filter "$one" --filter "$two" vectors
within "stdout closed" 90
check "stdin closed, the process living on: an error within the timeout" 1 \
    "^ERROR $two: (timed out after 2 s|the backend stopped reading its stdin)" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile answer close-stdin)" --timeout 2 --filter "$one" --filter "$two" vectors
within "stdin closed" 90
check "a line that never ends: an error, bounded memory" 1 \
    "^ERROR $one: the backend's reply is longer than [0-9]+ bytes" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile endless)" --timeout 30 --filter "$one" --filter "$two" vectors
within "a line that never ends" 90
check "a reply given twice at once: charged to its case" 1 \
    "^ERROR $one: the backend wrote more than one line for this case" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile twice)" --filter "$one" --filter "$two" vectors
check "a reply given again later: charged to its case, not the next" 1 \
    "^ERROR $one: (the backend replied to this case again|after its reply to this case the backend)" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "$(hostile late slow)" --filter "$one" --filter "$two" vectors
check "a backend that hangs from the start: stopped, exit 2" 2 \
    "timed out after 0.5 s" \
    "stopped: the backend failed its first 3 cases the same way without answering any" \
    "^0 passed, 3 failed, 0 skipped$" -- \
    --exec "$(hostile hang hang hang hang)" --timeout 0.5 --filter 'gather_elements/float32/1d/*' vectors

# every way of misbehaving in one run: each fault on its own case, the
# run bounded, no process left (no two timeouts in a row, which would read
# as a backend failing its first cases the same way where the closed stdout
# times out under cmd.exe).  The timeout also covers starting the process
# again after each fault, which takes seconds under wine on a loaded machine.
check "every misbehaviour in one run: each case charged, the run bounded" 1 \
    "^ERROR gather_elements/float32/1d/axis0_int32_permuted: timed out after 5 s" \
    "^ERROR gather_elements/float32/1d/axis0_int32_strided_output: malformed reply" \
    "^ERROR gather_elements/float32/1d/axis0_int64_padded: (the backend closed its stdout|timed out)" \
    "^ERROR gather_elements/float32/1d/axis0_int64_strided_output: the backend crashed" \
    "^ERROR gather_elements/float32/1d/axis0_uint32_broadcast_input: the backend's reply is longer" \
    "^ERROR gather_elements/float32/1d/axis0_uint32_padded: (timed out|the backend stopped reading)" \
    "^FAIL  gather_elements/float32/1d/axis0_uint64_broadcast_input: " \
    "^2 passed, 7 failed, 0 skipped$" -- \
    --exec "$(hostile hang garbage close-stdout crash endless close-stdin wrong)" --timeout 5 \
    --filter 'gather_elements/float32/1d/*' vectors
within "every misbehaviour in one run (9 cases, timeout 5 s)" 120
sleep 1
if pgrep -f "$(basename "$tmp")" >"$tmp/left"; then
    fails "processes left behind: $(tr '\n' ' ' <"$tmp/left")"
    pkill -9 -f "$(basename "$tmp")"
else
    ok "no backend process left behind"
fi

# ---- --filter and --exclude: shell patterns, as fnmatch() without flags ----------------
# Case names (a-z 0-9 _ - . /) made from one vector; each row: a pattern and
# the names it selects (none: the selection is empty, exit 2).

mkdir -p "$tmp/names"
for name in abc a/b a.b a-b ab_1 x/y/z9 b a..b; do
    sed "s|\"name\": \"[^\"]*\"|\"name\": \"$name\"|" \
        vectors/gather_elements/float32/1d/axis0_int32_permuted.json \
        >"$tmp/names/$(echo "$name" | tr '/' '+').json"
done
while IFS='|' read -r pattern want; do
    [ -z "$pattern" ] && continue
    "$dmlref" check --list --filter "$pattern" "$tmp/names" 2>/dev/null | tr -d '\r' | LC_ALL=C sort \
        | tr '\n' ' ' | sed 's/ $//' >"$tmp/got"
    if [ "$(cat "$tmp/got")" = "$want" ]; then
        ok
    else
        fail "--filter '$pattern' selects '$(cat "$tmp/got")', not '$want'"
    fi
done <<'TABLE'
*|a-b a..b a.b a/b ab_1 abc b x/y/z9
a*|a-b a..b a.b a/b ab_1 abc
a?b|a-b a.b a/b
a*b|a-b a..b a.b a/b
*/*|a/b x/y/z9
x*9|x/y/z9
?|b
??|
*b*|a-b a..b a.b a/b ab_1 abc b
[ab]|b
[a-c]|b
[c-a]*|
[!a]*|b x/y/z9
[^a]*|b x/y/z9
a[-.]b|a-b a.b
a[.-/]b|a.b a/b
a[!-]b|a.b a/b
[]a]b*|ab_1 abc
[!]]|b
*[[:digit:]]|ab_1 x/y/z9
[[:alpha:]]|b
[[:alpha:]][[:punct:]]*|a-b a..b a.b a/b x/y/z9
*[[:upper:]]*|
[[.a.]]bc|abc
[[=a=]]bc|abc
a\.b|a.b
\a\b\c|abc
a\*|
*\|
a[b|
*[|
ab[_]1|ab_1
a.*|a..b a.b
**b|a-b a..b a.b a/b b
TABLE
"$dmlref" check --list --filter 'a*' --exclude '*.*' --exclude '[!a]*' --exclude '*/*' \
    "$tmp/names" 2>/dev/null | tr -d '\r' | LC_ALL=C sort | tr '\n' ' ' >"$tmp/got"
if [ "$(cat "$tmp/got")" = "a-b ab_1 abc " ]; then
    ok "--exclude takes the same patterns"
else
    fail "--exclude: got '$(cat "$tmp/got")'"
fi

finish
