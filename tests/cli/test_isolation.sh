#!/bin/sh
# dmlref check contains what a backend does to it (docs/conformance.md, "What
# a backend cannot do to the harness"), with hostile.so and
# tests/cli/hostile_process.py:
#   - a plug-in's load-time code (a constructor) runs in a worker, never in
#     dmlref: a crash, a hang, exit(0) and prints there each end in a one-line
#     error and exit 2 (or stay out of the report);
#   - a failing create() is reported with its own message, as fatal (exit 2);
#   - a thread that writes after execute() is charged to its case, run after
#     run, without crashing dmlref;
#   - a write into a guard page whose protection the plug-in lifted fails;
#   - a fork of the plug-in's worker cannot write into later cases' buffers;
#   - a leaking worker is started again before it runs out of memory;
#   - what a backend prints is capped (no file grows, dmlref's memory stays
#     small) and its last line is still quoted;
#   - a process that a backend starts in a session of its own (setsid) dies
#     with it, from a process backend and from a plug-in (Linux).
# Quick mode (DMLREF_TEST_QUICK, tests/cli/lib.sh): every check, each run
# over vectors/ on the folders its --filter patterns name (the same cases).
#   test_isolation.sh DMLREF_BINARY [BACKENDS_DIR] (default: the binary's folder's backends/)
#   CHECK_LIMIT=SECONDS (default 300): how long one run may take before it counts as hung
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    usage "DMLREF_BINARY [BACKENDS_DIR]"
fi
take_binary "$1"
dmlref=$bin
backends=${2:-$(dirname "$dmlref")/backends}
make_tmp isolation
cd "$root" || exit 1
quick_banner "each run reads only the folders of vectors/ its --filter patterns name"
hostile="$backends/hostile.so"

# Every process this run starts inherits this mark: make check may run this
# script in several lanes at once, and a lane must neither count nor kill
# another lane's processes.
DMLREF_TEST_ISOLATION_RUN=$$
export DMLREF_TEST_ISOLATION_RUN

# run ARGS: dmlref check ARGS, its stdout in $tmp/out, its stderr in
# $tmp/err, its exit status in $rc (a hang fails the test, not the suite)
run() {
    suite_run timeout "${CHECK_LIMIT:-300}" "$dmlref" check "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# expect NAME EXIT STREAM PATTERN...: the last run's exit status, and every
# pattern (grep -E) in STREAM (out or err)
expect() {
    name=$1 want=$2 stream=$tmp/$3
    shift 3
    if [ "$rc" != "$want" ]; then
        fail "$name: exit $rc, wanted $want"
        show_tail 6 "$tmp/out"
        show_tail 6 "$tmp/err"
        return
    fi
    for pattern in "$@"; do
        if ! grep -Eq -- "$pattern" "$stream"; then
            fail "$name: missing '$pattern'"
            show_tail 6 "$stream"
            return
        fi
    done
    ok "$name"
}

# absent NAME STREAM PATTERN: the last run's STREAM does not match PATTERN
absent() {
    if grep -Eq -- "$3" "$tmp/$2"; then
        fail "$1: '$3' in its $2"
        show_tail 6 "$tmp/$2"
    else ok "$1"; fi
}

# no_process_left NAME PATTERN: no process of this run whose command line
# matches PATTERN (each one found is killed, by its ID)
no_process_left() {
    : >"$tmp/left"
    for pid in $(pgrep -f "$2"); do
        if [ ! -r "/proc/$pid/environ" ] ||
            tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
            grep -qx "DMLREF_TEST_ISOLATION_RUN=$DMLREF_TEST_ISOLATION_RUN"; then
            echo "$pid" >>"$tmp/left"
        fi
    done
    if [ -s "$tmp/left" ]; then
        # shellcheck disable=SC2046 # one process ID a word
        kill -9 $(cat "$tmp/left") 2>/dev/null
        fail "$1: processes left behind: $(tr '\n' ' ' <"$tmp/left")"
    else ok "$1: no process left behind"; fi
}

filter='gather_elements/float32/1d/*'
n=$(ls vectors/gather_elements/float32/1d/*.json | wc -l)

# ---- a plug-in's code that runs when it is loaded ------------------------------
# load_case BEHAVIOUR EXIT PATTERN: DMLREF_HOSTILE_LOAD=BEHAVIOUR, one line
# on stderr matching PATTERN, nothing on stdout but what is expected
for load_case in \
    "crash|2|^dmlref: [^ ]*hostile.so: while loading the plug-in and calling its create\(\), the backend crashed \(signal 6" \
    "hang|2|^dmlref: [^ ]*hostile.so: loading the plug-in and its create\(\) timed out after 2 s \(--timeout\)$" \
    "exit0|2|^dmlref: [^ ]*hostile.so: while loading the plug-in and calling its create\(\), the backend's process exited \(status 0\)$" \
    "print|0|^$n passed, 0 failed, 0 skipped$"; do
    how=${load_case%%|*}
    rest=${load_case#*|}
    want=${rest%%|*}
    pattern=${rest#*|}
    started=$(date +%s)
    DMLREF_HOSTILE_LOAD=$how run --backend "$hostile" --timeout 2 --filter "$filter" vectors
    elapsed=$(($(date +%s) - started))
    if [ "$want" = 0 ]; then
        expect "a plug-in that prints when loaded: its prints stay out of the report" 0 out "$pattern"
        absent "... and out of dmlref's stdout and stderr" out 9999
        absent "... (stderr)" err 9999
    else
        expect "a plug-in that does '$how' when loaded: a one-line error, exit $want" "$want" err "$pattern"
        if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then fail "... '$how': stderr has $(wc -l <"$tmp/err") lines"
        else ok "... '$how': stderr is that one line"; fi
        absent "... '$how': no report on stdout" out "passed"
    fi
    if [ "$elapsed" -le 20 ]; then ok "... '$how': ended in $elapsed s"
    else fail "... '$how': took $elapsed s"; fi
done
# dmlref itself never loads the plug-in: a crash there would end dmlref too
DMLREF_HOSTILE_LOAD=crash run --backend "$hostile" --list --filter "$filter" vectors
expect "--list does not load the plug-in" 0 out "gather_elements/float32/1d/axis0_int32_permuted"
DMLREF_HOSTILE_LOAD=crash timeout 60 "$dmlref" fuzz --backend "$hostile" --cases 3 >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "fuzz: a plug-in that crashes when loaded is a one-line error, exit 2" 2 err \
    "^dmlref: [^ ]*hostile.so: while loading the plug-in and calling its create\(\), the backend crashed"

# ---- create() fails --------------------------------------------------------------
run --backend "$hostile" --backend-options fail-create --filter "$filter" vectors
expect "a failing create(): its own message, exit 2" 2 err \
    "^dmlref: [^ ]*hostile.so: the plug-in's create\(\) failed: hostile backend: create\(\) fails on purpose$"
absent "... not 'answered out of turn'" err "out of turn|exited \(status 0\)"
run --backend "$hostile" --backend-options no-such-option --filter "$filter" vectors
expect "a create() that refuses its options: its message, exit 2" 2 err \
    "the plug-in's create\(\) failed: hostile backend: unknown option$"

# ---- a thread that writes after execute() ----------------------------------------
# The case after the writer's sleeps in execute(), so that the write lands
# during it (a fault in the case before's buffers): that case runs again on a
# new worker.  Whether the retry meets the slot the overwrite made bad depends
# on timing: several runs.
late_cases="--filter gather_elements/float32/1d/axis0_int32_permuted
--filter gather_nd/float32/1d/m1_q1_b0_k1_int32_permuted --filter gather_nd1/float32/1d/*"
attempt=1
while [ "$attempt" -le 4 ]; do
    # shellcheck disable=SC2086 # late_cases is a word list
    run --backend "$hostile" --backend-options late-write=100,sleep=400,only-op=GATHER_ND \
        $late_cases vectors
    expect "a thread that writes after execute(), run $attempt: charged to its case, no crash" 1 out \
        "^ERROR gather_nd/float32/1d/m1_q1_b0_k1_int32_permuted: after its reply to this case" \
        "^[0-9]+ passed, 1 failed, 0 skipped$"
    attempt=$((attempt + 1))
done

# ---- a guard page whose protection the plug-in lifted ---------------------------
one='gather_elements/float32/1d/axis0_int32_permuted'
run --backend "$hostile" --backend-options unguard-before=100 --filter "$one" vectors
expect "a write into a guard page made writable (mprotect): fails" 1 out \
    "^FAIL  $one: wrote before the start of OutputTensor \(100 bytes before\)(  |$)"
nd=$(ls vectors/gather_nd/float32/1d/*.json | wc -l)
run --backend "$hostile" --backend-options unguard-before=100,only-op=GATHER_ELEMENTS \
    --filter "$one" --filter 'gather_nd/float32/1d/*' vectors
expect "... the cases after it, on a new worker, pass" 1 out "^FAIL  $one: wrote before" \
    "^$nd passed, 1 failed, 0 skipped$"

# ---- a fork of the worker that keeps writing -------------------------------------
run --backend "$hostile" --backend-options fork-writer,sleep=50 --filter "$filter" vectors
expect "a fork of the worker cannot write into later cases' buffers" 0 out \
    "^$n passed, 0 failed, 0 skipped$"

# ---- a leaking worker ------------------------------------------------------------
# 64 MiB a case, aborting past 300 MiB in one process (a machine out of
# memory); with a growth limit of 128 MiB the worker is started again first.
DMLREF_PLUGIN_MEMORY_GROWTH_MB=128 run --backend "$hostile" --backend-options leak=64:300 \
    --filter "$filter" vectors
expect "a leaking worker is started again before it runs out of memory" 0 out \
    "^$n passed, 0 failed, 0 skipped$"

# ---- what a backend prints is capped -----------------------------------------------
# 100 MiB of stderr a case, with files limited to 10 MiB (a file that took
# it would fail the backend's writes) and dmlref's memory measured
rm -f "$tmp/counter" "$tmp/time"
measure=/usr/bin/time
[ -x "$measure" ] || measure=env # (no GNU time: the memory goes unmeasured, said below)
(
    ulimit -f 20480
    if [ "$measure" = env ]; then set -- env; else set -- "$measure" -f 'most resident: %M KB' -o "$tmp/time"; fi
    suite_run "$@" timeout "${CHECK_LIMIT:-300}" \
        "$dmlref" check --exec "/usr/bin/python3 tests/cli/hostile_process.py $tmp/counter flood flood flood-exit" \
        --filter "$filter" vectors >"$tmp/out" 2>"$tmp/err"
)
rc=$?
expect "a process that floods its stderr: no file holds it, its last line quoted" 1 out \
    "^ERROR gather_elements/float32/1d/axis0_int64_padded: the backend's process exited \(status 3\); its stderr ends: last words$" \
    "^$((n - 1)) passed, 1 failed, 0 skipped$"
most=$(sed -n 's/^most resident: \([0-9]*\) KB$/\1/p' "$tmp/time" 2>/dev/null)
if [ "$measure" = env ]; then ok "... dmlref's memory not measured: no /usr/bin/time"
elif [ -n "$most" ] && [ "$most" -le 200000 ]; then ok "... dmlref's memory stayed small: $most KB"
else fail "... dmlref's memory: ${most:-unknown} KB (at most 200000)"; fi

# ---- a process in a session of its own (setsid) ------------------------------------
if [ "$(uname -s)" = Linux ]; then
    rm -f "$tmp/counter" "$tmp/counter.escaped" "$tmp/marker"
    run --exec "/usr/bin/python3 tests/cli/hostile_process.py $tmp/counter setsid" --filter "$filter" vectors
    expect "a process backend whose child calls setsid(): the run passes" 0 out "^$n passed, 0 failed"
    run --backend "$hostile" --backend-options "setsid-orphan=$tmp/marker" --filter "$filter" vectors
    expect "a plug-in whose child calls setsid(): the run passes" 0 out "^$n passed, 0 failed"
    sleep 4 # each wrote its marker after 3 s, had it lived
    if [ -e "$tmp/counter.escaped" ] || [ -e "$tmp/marker" ]; then
        fail "a setsid() child outlived dmlref check: it wrote its marker"
    else ok "a setsid() child died with dmlref check: no marker written"; fi
    no_process_left "a process backend's setsid() child" "sleep 1319"
    no_process_left "a plug-in's setsid() child" "sleep 1238"
fi

finish
