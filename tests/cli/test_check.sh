#!/bin/sh
# dmlref check end to end: every verdict with a backend that deserves it.
#   - backends that misbehave: a hang or a crash after an answer costs its
#     case and the run completes; one that fails its first cases the same way
#     (cannot start, hangs from the start) stops the run with exit 2 and its
#     stderr; malformed replies are errors; any reply to any vector is judged;
#   - nothing green by accident: no vector selected, every case skipped, a
#     report that cannot be written: exit 2;
#   - validation judged at the backend's level by the oracle: backends (a
#     process, a plug-in) that never validate fail, the same ones validating
#     pass; --strict-status; permitted variants;
#   - backends hostile to the harness (hostile.so, tests/cli/hostile_process.py):
#     every way to hang it ends within the timeout with no process left, a
#     plug-in's prints stay out of the report, guard pages, late writes and
#     replies charged to their case, an OpenMP plug-in after a crash;
#   - reports: valid UTF-8 whatever the backend says, JUnit suites per
#     operator with durations and a reproducing command, --rerun-failed,
#     --max-failures, --shard, --jobs, --list, progress, usage errors;
#   - a backend that implements one operator gets the same verdicts as a
#     plug-in and as a process; --jobs prints a serial run's report and stops
#     where it does; --rerun-failed and report paths that cannot be right;
#     each failure carries the dmlref explain command that derives it.
# Quick mode (DMLREF_TEST_QUICK, tests/cli/lib.sh): every check, each run
# over vectors/ on suite_paths: a run with no --filter, or one whose pattern
# spans operators or data types, on the quick suite; one whose patterns name
# folders on those folders alone (the same cases).
#   test_check.sh DMLREF_BINARY [BACKENDS_DIR] (default: the binary's folder's backends/)
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
make_tmp check
cd "$root" || exit 1
quick_banner "the runs over the whole suite or across its folders: the quick suite's \
$(suite_total) vectors"

# fails TEXT: a failure, with the end of the last run's output ($tmp/out)
fails() {
    fail "$1"
    show_tail 8 "$tmp/out"
}

# check NAME EXPECTED_EXIT PATTERN... -- ARGS: runs dmlref check ARGS, wants
# the exit status and every pattern (grep -E) in its output
check() {
    name=$1 want=$2
    shift 2
    patterns=""
    while [ "$1" != "--" ]; do patterns="$patterns
$1"; shift; done
    shift
    started=$(date +%s)
    suite_run timeout "${CHECK_LIMIT:-300}" "$dmlref" check "$@" >"$tmp/out" 2>&1 # a hang fails the test, not the suite
    rc=$?
    elapsed=$(($(date +%s) - started))
    if [ "$rc" != "$want" ]; then fails "$name: exit $rc, wanted $want"; return; fi
    echo "$patterns" | while IFS= read -r p; do
        [ -z "$p" ] && continue
        grep -Eq -- "$p" "$tmp/out" || { echo "missing: $p" >>"$tmp/missing"; }
    done
    if [ -s "$tmp/missing" ]; then
        cat "$tmp/missing" >>"$tmp/out"; rm -f "$tmp/missing"; fails "$name"; return
    fi
    ok "$name"
}

filter='gather_elements/float32/1d/*'
n=$(ls vectors/gather_elements/float32/1d/*.json | wc -l)

# a process that never answers: the run stops after its first cases, exit 2
check "hanging process from the start: stopped, exit 2" 2 \
    "ERROR gather_elements/float32/1d/[a-z0-9_]+: timed out after 0.5 s" \
    "stopped: the backend failed its first 3 cases the same way without answering any" \
    "^0 passed, 3 failed, 0 skipped$" -- \
    --exec 'sleep 1000' --timeout 0.5 --filter "$filter" vectors

# a backend that cannot start (a Python without its module): stopped with its stderr
check "backend that cannot start: stopped with its stderr, exit 2" 2 \
    "its stderr ends: ModuleNotFoundError: No module named 'no_such_module_dmlref'" \
    "stopped: the backend failed its first 3 cases" "^0 passed, 3 failed, 0 skipped$" -- \
    --exec "/usr/bin/python3 -c 'import no_such_module_dmlref'" vectors

# a process that answers, then hangs: every later case times out, the run completes
# (the first process answers one case; every later line, and every restarted
# process, meets the marker file and misbehaves)
answer_once="/usr/bin/python3 tests/cli/answer_once.py $tmp/answered"
answer_then="$answer_once hang"
check "process that answers, then hangs: errors, run completes" 1 \
    "timed out after 0.5 s" "^0 passed, $((n - 1)) failed, 1 skipped$" -- \
    --exec "$answer_then" --timeout 0.5 --filter "$filter" vectors

# a process that dies after its first answer: an error, restarted for the next
rm -f "$tmp/answered"
answer_then_die="$answer_once exit"
check "crashing process: errors, restarted, run completes" 1 \
    "the backend's process exited \(status 3\)" "^0 passed, $((n - 1)) failed, 1 skipped$" -- \
    --exec "$answer_then_die" --filter "$filter" vectors

# a process killed by a signal
check "process killed by a signal" 2 "crashed \(signal 9" -- \
    --exec 'kill -9 $$' --filter "$filter" vectors

# replies that break the protocol
check "malformed reply: not JSON" 2 "malformed reply: reply: \\$: " -- \
    --exec 'while read l; do echo "not json"; done' --filter "$filter" vectors
check "malformed reply: another case's name" 1 'answers another case' -- \
    --exec 'while read l; do echo "{\"name\": \"x\", \"status\": \"error\"}"; done' \
    --filter "$filter" vectors
unsupported='/usr/bin/python3 -c "
import json, sys
for line in sys.stdin:
    print(json.dumps({\"name\": json.loads(line)[\"name\"], \"status\": \"unsupported\",
                      \"message\": \"FLOAT32 is not implemented\"}), flush=True)
"'
check "a backend that supports nothing is not green: exit 2, reasons summed" 2 \
    "^skipped: $n unsupported: FLOAT32 is not implemented$" "^0 passed, 0 failed, $n skipped$" \
    "no case was judged: all $n selected cases were skipped" -- \
    --exec "$unsupported" --filter "$filter" vectors

# selections of nothing are errors, not passes
check "a --filter that matches nothing: exit 2" 2 \
    "no case selected: [0-9]+ vector files, none taken by --filter" -- \
    --exec cat --filter 'no/such/*' vectors
mkdir -p "$tmp/empty"
check "an empty folder: exit 2" 2 "no case selected: the paths hold no vector" -- \
    --exec cat "$tmp/empty"
"$dmlref" verify "$tmp/empty" >"$tmp/out" 2>&1
if [ $? = 2 ] && grep -q "no vector" "$tmp/out"; then ok "verify of an empty folder: exit 2"
else fails "verify of an empty folder: exit 2"; fi

# any reply to any vector: outputs of the right element count (zeros) for every
# case, the must-refuse ones (sizes of 0, above 2^32 elements) included
zeros='/usr/bin/python3 -c "
import json, sys
outs = {\"GATHER_ELEMENTS\": [\"OutputTensor\"], \"SCATTER_ELEMENTS\": [\"OutputTensor\"],
        \"SCATTER\": [\"OutputTensor\"], \"GATHER_ND\": [\"OutputTensor\"], \"GATHER_ND1\": [\"OutputTensor\"],
        \"NONZERO_COORDINATES\": [\"OutputCountTensor\", \"OutputCoordinatesTensor\"]}
for line in sys.stdin:
    case = json.loads(line)
    reply = {}
    for name in outs[case[\"operator\"]]:
        n = 1
        for size in case[\"tensors\"][name].get(\"sizes\", [1]):
            n *= size
        reply[name] = [0] * min(n, 1 << 20)
    print(json.dumps({\"name\": case[\"name\"], \"outputs\": reply}), flush=True)
"'
check "outputs for every must-refuse vector: judged, no crash" 1 \
    "accepted a case that must be refused" "^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$" -- \
    --exec "$zeros" --filter '*/error_*' vectors

# validation is judged at the backend's level, by the oracle
model="/usr/bin/python3 tests/cross/model_backend.py"
# (the numpy model takes seconds on the 16-million-element undecidable layout,
# a case no backend is judged on: left out of its runs)
big="*_undecidable_large"
check "a backend that never validates fails, naming the rules it accepted" 1 \
    "FAIL  gather_elements/float32/2d/error_indices_smaller_off_axis_d5: accepted a case that must be refused at feature level 6_4: DMLREF_ERROR_SIZE_MISMATCH \(R-GE-3\)" \
    "FAIL  nonzero_coordinates/float16/2d/error_n_above_rank: accepted a case that must be refused at feature level 6_4: DMLREF_ERROR_SIZE_MISMATCH \(R-NZ-5\)" -- \
    --exec "$model --no-validation" --filter '*/error_*' --exclude "$big" vectors
check "the same backend validating passes, statuses compared" 0 "^[0-9]+ passed, 0 failed, 0 skipped$" -- \
    --exec "$model" --strict-status --filter '*/error_*' --exclude "$big" vectors
check "at feature level 3_0, no refusal case is skipped for its level" 1 \
    "accepted a case that must be refused at feature level 3_0" "^[0-9]+ passed, [0-9]+ failed, 0 skipped$" -- \
    --exec "$model --no-validation" --feature-level 3_0 --filter '*/error_*' --exclude "$big" vectors
check "a vector valid at 4_1 must be refused at 3_0" 1 \
    "gather_elements/float64/.*accepted a case that must be refused at feature level 3_0: DMLREF_ERROR_UNSUPPORTED_DATA_TYPE \(R-GE-5\)" -- \
    --exec "$model --no-validation" --feature-level 3_0 --filter 'gather_elements/float64/1d/*' vectors
# every one of those passes is an "unsupported" answer, which a backend that
# implements nothing gives too: each case passes, and the run judged nothing
check "... and the validating backend refuses it at 3_0: each passes, nothing judged, exit 2" 2 \
    "^[0-9]+ passed, 0 failed, 0 skipped$" "no case was judged: .* passed only by answering" -- \
    --exec "$model" --strict-status --feature-level 3_0 --filter 'gather_elements/float64/1d/*' vectors
check "a plug-in that never validates fails at its level, naming the rules" 1 \
    "accepted a case that must be refused at feature level 3_0: DMLREF_ERROR_UNSUPPORTED_DATA_TYPE \(R-GE-5\)" -- \
    --backend "$backends/faulty_skips_validation.so" --feature-level 3_0 vectors
check "the same plug-in validating passes at that level, statuses compared" 0 \
    "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" -- \
    --backend "$backends/naive.so" --feature-level 3_0 --strict-status vectors
# permitted variants: flushing subnormals in NonZero passes, saying so; in a copy it fails
check "NonZero flushing subnormals passes with the variant reported" 0 \
    "^PASS  nonzero_coordinates/float32/1d/subnormal: the permitted variant subnormals_flushed \(R-NZ-10\)$" \
    "^passed: 3 the permitted variant subnormals_flushed \(R-NZ-10\)$" -- \
    --backend "$backends/faulty_nonzero_flushes_subnormals.so" --filter 'nonzero_coordinates/*' vectors
check "a copy flushing subnormals fails" 1 \
    "FAIL  gather_elements/float32/1d/special_bit_patterns: .*expected -1.1754942106924411e-38 \(0x807fffff\), got -0.0 \(0x80000000\)" -- \
    --backend "$backends/faulty_copy_flushes_subnormals.so" --filter 'gather_elements/float32/*' vectors
wrong_status='/usr/bin/python3 -c "
import json, sys
for line in sys.stdin:
    print(json.dumps({\"name\": json.loads(line)[\"name\"], \"status\": \"error\",
                      \"error\": {\"status\": \"DMLREF_ERROR_SIZE_MISMATCH\"}}), flush=True)
"'
check "--strict-status: a refusal naming another status fails" 1 \
    "refused with DMLREF_ERROR_SIZE_MISMATCH, dmlref refuses it with DMLREF_ERROR_INVALID_ATTRIBUTE \(R-GE-2\)" -- \
    --exec "$wrong_status" --strict-status --filter '*/error_axis_2_of_2d' vectors
check "without --strict-status any refusal of an invalid case passes" 0 "^1 passed, 0 failed, 0 skipped$" -- \
    --exec "$wrong_status" --filter 'gather_elements/*/error_axis_2_of_2d' vectors

# reports: valid UTF-8 whatever the backend says, written whole, or exit 2
garbage='/usr/bin/python3 -c "
import sys
sys.stdin.readline()
sys.stderr.buffer.write(b\"bad bytes \\xff\\xfe\\xc3 and a control \\x01 <&>\\n\")
sys.exit(1)
"'
check "a backend's bytes that are not UTF-8 leave the reports valid" 2 "^0 passed, 3 failed" -- \
    --exec "$garbage" --filter "$filter" --junit "$tmp/bad.xml" --json "$tmp/bad.json" vectors
if /usr/bin/python3 -c "
import json, sys, xml.etree.ElementTree as ET
ET.parse(sys.argv[1]); r = json.load(open(sys.argv[2], encoding='utf-8'))
assert '\ufffd' in r['results'][0]['message'], r['results'][0]['message']
" "$tmp/bad.xml" "$tmp/bad.json" 2>>"$tmp/out"; then ok "reports parse as UTF-8 XML and JSON"
else fails "reports parse as UTF-8 XML and JSON"; fi
check "a report that cannot be written: exit 2" 2 "/nonexistent-dir/r.xml: cannot write" -- \
    --backend $backends/reference.so --filter "$filter" --junit /nonexistent-dir/r.xml vectors

# a correct process backend passes, and the JUnit and JSON reports agree
check "process example backend passes what it supports" 0 "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" -- \
    --exec '/usr/bin/python3 docs/examples/process_example.py' --filter 'gather_elements/*' \
    --junit "$tmp/report.xml" --json "$tmp/report.json" vectors
summary=$(tail -n 1 "$tmp/out")
if /usr/bin/python3 - "$tmp/report.xml" "$tmp/report.json" "$summary" <<'PY'
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("testsuite/testcase")
passed, failed, skipped = (int(w) for w in sys.argv[3].replace(",", "").split()[::2])
skips = sum(1 for c in cases if c.find("skipped") is not None)
fails = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
assert int(root.get("tests")) == len(cases) == passed + failed + skipped, (len(cases), sys.argv[3])
assert int(root.get("skipped")) == skips == skipped
assert int(root.get("failures")) + int(root.get("errors")) == fails == failed
assert [s.get("name") for s in root.findall("testsuite")] == ["GATHER_ELEMENTS"]
assert all(float(c.get("time")) >= 0 and c.get("file").endswith(".json") for c in cases)
report = json.load(open(sys.argv[2]))
assert report["summary"] == {"passed": passed, "failed": failed, "skipped": skipped, "errors": 0}
assert len(report["results"]) == len(cases)
PY
then ok "JUnit report well-formed, counts match the summary"; else fails "JUnit report"; fi

# a failure's JUnit body names the vector's file and the command that reproduces it
check "faulty plug-in: JUnit failure body" 1 "" -- \
    --backend $backends/faulty_off_by_one_axis.so --filter 'gather_elements/float32/2d/*' \
    --junit "$tmp/faulty.xml" --json "$tmp/faulty.json" vectors
if /usr/bin/python3 - "$tmp/faulty.xml" "$backends" <<'PY'
import sys, xml.etree.ElementTree as ET
failure = ET.parse(sys.argv[1]).getroot().find("testsuite/testcase/failure")
body = failure.text
assert "\nvector: " in body and ".json" in body, body
assert "\nreproduce: dmlref check --backend '%s/faulty_off_by_one_axis.so' '" % sys.argv[2] in body, body
PY
then ok "JUnit failure names the file and the command"; else fails "JUnit failure body"; fi

# --rerun-failed runs exactly the failed cases of a report
failed_count=$(/usr/bin/python3 -c "
import json, sys; r = json.load(open(sys.argv[1])); print(sum(x['result'] in ('fail', 'error') for x in r['results']))" "$tmp/faulty.json")
check "--rerun-failed REPORT runs its failed cases" 1 "^0 passed, $failed_count failed, 0 skipped$" -- \
    --backend $backends/faulty_off_by_one_axis.so --rerun-failed "$tmp/faulty.json" vectors
check "--max-failures stops the run" 1 "^stopped after 2 failed cases \(--max-failures\)" \
    "^[0-9]+ passed, 2 failed" -- \
    --backend $backends/faulty_off_by_one_axis.so --max-failures 2 vectors

# --shard K/N: disjoint, together one unsharded run; --jobs: the same report
suite_run "$dmlref" check --backend $backends/reference.so --verbose --filter 'gather_nd*' vectors \
    | grep -E '^(PASS|SKIP) ' | sort >"$tmp/whole"
: >"$tmp/sharded"
for k in 1 2 3; do
    suite_run "$dmlref" check --backend $backends/reference.so --verbose --filter 'gather_nd*' \
        --shard $k/3 vectors | grep -E '^(PASS|SKIP) ' >>"$tmp/sharded"
done
if [ -s "$tmp/whole" ] && sort "$tmp/sharded" | cmp -s - "$tmp/whole" \
    && [ "$(sort "$tmp/sharded" | uniq -d | wc -l)" = 0 ]; then ok "--shard 1/3..3/3: disjoint, the whole run"
else fails "--shard"; fi
# (stderr is judged: a job that freed its path twice printed glibc's abort
# message once per job, and the reports still matched)
for jobs in 1 2; do
    suite_run "$dmlref" check --backend $backends/faulty_off_by_one_axis.so --jobs $jobs \
        --json "$tmp/jobs$jobs.json" vectors >"$tmp/jobs$jobs.out" 2>"$tmp/jobs$jobs.err"
done
if [ -s "$tmp/jobs1.err" ] || [ -s "$tmp/jobs2.err" ]; then
    bad "--jobs 1 and 2 write nothing on stderr" "$tmp/jobs1.err" "$tmp/jobs2.err"
else ok "--jobs 1 and 2 write nothing on stderr"; fi
if /usr/bin/python3 -c "
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
strip = lambda r: [(x['name'], x['result'], x['message']) for x in r['results']]
assert a['summary'] == b['summary'] and strip(a) == strip(b)
assert a['summary']['failed'] > 0
" "$tmp/jobs1.json" "$tmp/jobs2.json"; then ok "--jobs 2 gives the report of --jobs 1"
else fails "--jobs 2 report"; fi
suite_run "$dmlref" check --list --filter 'gather_nd1/*' --exclude '*/error_*' vectors >"$tmp/list" 2>"$tmp/out"
if [ $? = 0 ] && ! grep -q error_ "$tmp/list" && [ "$(wc -l <"$tmp/list")" -gt 10 ] \
    && grep -q "^dmlref check: $(wc -l <"$tmp/list" | tr -d ' ') cases selected$" "$tmp/out"; then
    ok "--list with --filter and --exclude"; else fails "--list"; fi

# on a terminal, a progress count on stderr; none in a pipe
if command -v script >/dev/null 2>&1; then
    nd1=$(suite_paths --filter 'gather_nd1/*')
    script -qec "$dmlref check --backend $backends/reference.so --filter 'gather_nd1/*' $nd1" \
        /dev/null | tr '\r' '\n' >"$tmp/tty"
    suite_run "$dmlref" check --backend "$backends/reference.so" --filter 'gather_nd1/*' vectors \
        >"$tmp/pipe" 2>&1
    if grep -Eq '^dmlref check: [0-9]+/[0-9]+ files, [0-9]+ passed' "$tmp/tty" \
        && ! grep -q 'files, ' "$tmp/pipe"; then ok "progress count on a terminal only"
    else fails "progress count on a terminal only"; fi
fi

# ---- a backend that misbehaves toward the harness ------------------------------
# Each of these hung, fooled or outlived dmlref check once; every wait is now
# bounded, the backend's process group dies with its case, and a fault is
# charged to the case that made it.

# within NAME SECONDS: the last check took at most SECONDS
within() {
    if [ "$elapsed" -le "$2" ]; then ok "$1: ${elapsed} s, at most $2"
    else fails "$1: ${elapsed} s, more than $2"; fi
}
# Every process this run starts inherits this mark: make check runs this script
# in several lanes at once, whose backends have the same command lines, and a
# lane must neither count nor kill another lane's.
DMLREF_TEST_CHECK_RUN=$$
export DMLREF_TEST_CHECK_RUN
# own_processes PATTERN: this run's processes whose command line matches PATTERN
# (every match where /proc does not show a process's environment)
own_processes() {
    for pid in $(pgrep -f "$1"); do
        if [ ! -r "/proc/$pid/environ" ] ||
            tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
            grep -qx "DMLREF_TEST_CHECK_RUN=$DMLREF_TEST_CHECK_RUN"; then
            echo "$pid"
        fi
    done
}
# no_process_left NAME PATTERN: no process of this run whose command line
# matches PATTERN
no_process_left() {
    own_processes "$2" >"$tmp/left"
    if [ -s "$tmp/left" ]; then
        # shellcheck disable=SC2046 # one process ID a word
        kill -9 $(cat "$tmp/left") 2>/dev/null
        fails "$1: processes left behind: $(tr '\n' ' ' <"$tmp/left")"
    else ok "$1: no process left behind"; fi
}
one='gather_elements/float32/1d/axis0_int32_permuted'
two='gather_elements/float32/1d/axis0_uint64_packed'
large='gather_elements/float32/2d/large_1m_random'
# a case whose request is 200 KB (the suite's large cases are generated, their
# requests small): more than a pipe holds
/usr/bin/python3 -c "
import json
n = 20000
print(json.dumps({'format': 'dmlref-vector-1', 'name': 'big_request', 'operator': 'GATHER_ELEMENTS',
    'feature_level': '6_4', 'attributes': {'Axis': 0}, 'tensors': {
    'InputTensor': {'dtype': 'FLOAT32', 'sizes': [n], 'data': [i + 0.5 for i in range(n)]},
    'IndicesTensor': {'dtype': 'INT32', 'sizes': [1], 'data': [0]},
    'OutputTensor': {'dtype': 'FLOAT32', 'sizes': [1]}}}))" >"$tmp/big_case.json"
"$dmlref" eval "$tmp/big_case.json" -o "$tmp/big/big_request.json"
# a case whose buffers must start on 8192-byte boundaries
/usr/bin/python3 -c "
import json
t = lambda dtype, sizes, **more: dict(dtype=dtype, sizes=sizes, alignment=8192, **more)
print(json.dumps({'format': 'dmlref-vector-1', 'name': 'aligned_8192', 'operator': 'GATHER_ELEMENTS',
    'feature_level': '6_4', 'attributes': {'Axis': 0}, 'tensors': {
    'InputTensor': t('FLOAT32', [4], data=[0.5, 1.5, 2.5, 3.5]),
    'IndicesTensor': t('INT32', [2], data=[3, -4]),
    'OutputTensor': t('FLOAT32', [2])}}))" >"$tmp/aligned_case.json"
"$dmlref" eval "$tmp/aligned_case.json" -o "$tmp/aligned/aligned_8192.json"
hostile="$backends/hostile.so"
counter="$tmp/counter"

rm -f "$counter"
check "process that closes its stdout and lives on: an error, not a hang" 1 \
    "ERROR $one: the backend closed its stdout and did not exit" -- \
    --exec "exec /usr/bin/python3 tests/cli/hostile_process.py $counter close-stdout" --timeout 30 \
    --filter "$one" vectors
within "process that closes its stdout" 20 # well within --timeout 30, under load too
rm -f "$counter"
check "process that closes its stdin and lives on: an error within the timeout" 1 \
    "ERROR $two: (timed out after 5 s|the backend stopped reading its stdin)" \
    "^1 passed, 1 failed, 0 skipped$" -- \
    --exec "/usr/bin/python3 tests/cli/hostile_process.py $counter answer close-stdin" --timeout 5 \
    --filter "$one" --filter "$two" vectors
within "process that closes its stdin" 20 # the first case's 5 s include Python's start
rm -f "$counter"
check "process whose line never ends: an error, bounded memory" 1 \
    "ERROR $one: the backend's reply is longer than [0-9]+ bytes" -- \
    --exec "/usr/bin/python3 tests/cli/hostile_process.py $counter endless" --timeout 30 \
    --filter "$one" vectors
within "process whose line never ends" 15
check "process that never reads a request of 200 KB: timed out, not blocked" 1 \
    "ERROR big_request: timed out after 1 s \(it had not read the whole request\)" -- \
    --exec 'sleep 1307' --timeout 1 "$tmp/big"
within "process that never reads its request" 10
no_process_left "process that never reads its request" "sleep 1307"
check "a timed-out command's children die with it (sh -c does not exec)" 1 \
    "ERROR $one: timed out after 0.5 s" -- --exec 'sleep 1308; true' --timeout 0.5 --filter "$one" vectors
no_process_left "a timed-out command's children" "sleep 1308"
rm -f "$counter"
check "a process that starts a child, then hangs: both die" 1 "ERROR $one: timed out after 0.5 s" -- \
    --exec "/usr/bin/python3 tests/cli/hostile_process.py $counter orphan" --timeout 0.5 \
    --filter "$one" vectors
no_process_left "a process that starts a child, then hangs" "sleep 1306"
# shellcheck disable=SC2046 # one folder a word
"$dmlref" check --exec 'sleep 1309' --timeout 100 --filter "$one" $(suite_paths --filter "$one") \
    >"$tmp/out" 2>&1 &
sleep 1
kill -TERM $!
wait $! 2>/dev/null
no_process_left "dmlref check interrupted (SIGTERM) ends its backend" "sleep 1309"

rm -f "$counter"
check "a reply given twice at once: charged to its case" 1 \
    "ERROR $one: the backend wrote more than one line for this case" "^1 passed, 1 failed" -- \
    --exec "/usr/bin/python3 tests/cli/hostile_process.py $counter twice" \
    --filter "$one" --filter "$two" vectors
rm -f "$counter"
check "a reply given again later: charged to its case, not the next" 1 \
    "ERROR $one: (the backend replied to this case again|after its reply to this case the backend)" \
    "^1 passed, 1 failed" -- \
    --exec "/usr/bin/python3 tests/cli/hostile_process.py $counter late slow" \
    --filter "$one" --filter "$two" vectors
rm -f "$counter"
check "a reply given again in one read with the next: charged to its case, the next passes" 1 \
    "ERROR $one: the backend replied to this case again" "^1 passed, 1 failed" -- \
    --exec "/usr/bin/python3 tests/cli/hostile_process.py $counter again-with-next" --timeout 5 \
    --filter "$one" --filter "$two" vectors
rm -f "$counter"
check "--jobs: a process cannot forge a job's records" 2 "^0 passed, 0 failed, 2 skipped$" -- \
    --jobs 2 --exec "/usr/bin/python3 tests/cli/hostile_process.py $counter forge forge" \
    --filter "$one" --filter "$two" vectors

# plug-ins
check "plug-in that closes dmlref's descriptors and lives on: an error, not a hang" 1 \
    "ERROR $one: the backend closed dmlref's pipe and did not exit" -- \
    --backend "$hostile" --backend-options close-fds --timeout 30 --filter "$one" vectors
within "plug-in that closes dmlref's descriptors" 10
check "plug-in that changes its working folder and accepts everything: fails" 1 \
    "accepted a case that must be refused" -- \
    --backend "$hostile" --backend-options chdir-accept-all --filter '*/error_*' --filter '*/r-*' vectors
check "a plug-in's prints stay out of the report" 0 "^9 passed, 0 failed, 0 skipped$" -- \
    --backend "$hostile" --backend-options print --filter 'gather_elements/float32/1d/*' vectors
if grep -q "9999" "$tmp/out"; then fails "a plug-in's prints stay out of the report: it shows 9999"
else ok "a plug-in's prints stay out of the report: no 9999"; fi
check "a write 200 bytes past an output (inside its last page): fails" 1 \
    "FAIL  $one: wrote past the TotalTensorSizeInBytes of OutputTensor \(byte 2[0-9][0-9] of its" -- \
    --backend "$hostile" --backend-options write-past=200 --filter "$one" vectors
check "a write 5000 bytes past an output (a guard page): fails" 1 \
    "FAIL  $one: touched memory past the TotalTensorSizeInBytes of OutputTensor .*a guard page faulted" -- \
    --backend "$hostile" --backend-options write-past=5000 --filter "$one" vectors
check "a write 100 bytes before an output: fails" 1 \
    "FAIL  $one: touched memory before the start of OutputTensor \(100 bytes before\)" -- \
    --backend "$hostile" --backend-options write-before=100 --filter "$one" vectors
check "a thread that writes after execute(): charged to its case, the next passes" 1 \
    "^(ERROR|FAIL ) $large" "^1 passed, 1 failed, 0 skipped$" -- \
    --backend "$hostile" --backend-options late-write=5,only-op=GATHER_ELEMENTS \
    --filter "$large" --filter 'gather_nd/uint8/2d/large_1m_rows' vectors
check "a plug-in's child process dies with its worker" 0 "^9 passed" -- \
    --backend "$hostile" --backend-options fork-orphan --filter 'gather_elements/float32/1d/*' vectors
no_process_left "a plug-in's child process" "sleep 1237"
check "after a wrong digest-only case and a crash, an OpenMP plug-in still runs in parallel" 1 \
    "FAIL  $large" "ERROR  *gather_nd1/float32/1d/[a-z0-9_]+: the backend crashed" \
    "^2 passed, [0-9]+ failed, 0 skipped$" -- \
    --backend "$hostile" --backend-options wrong-op=GATHER_ELEMENTS,crash-op=GATHER_ND1 --timeout 20 \
    --filter "$large" --filter 'gather_nd1/float32/1d/*' \
    --filter 'nonzero_coordinates/float32/2d/large_1m_sparse' \
    --filter 'scatter_elements/float16/2d/large_1m_one_update_per_row' vectors

check "GuaranteedBaseOffsetAlignment 8192: the buffers honour it, the reference passes" 0 \
    "^1 passed, 0 failed, 0 skipped$" -- --backend "$backends/reference.so" "$tmp/aligned"

# every way of hanging, in one run: cases x timeout plus a little, no process
# left, each fault on its own case
rm -f "$counter"
check "a process that hangs every way: each case charged, the run bounded" 1 \
    "^ERROR gather_elements/float32/1d/axis0_int32_permuted: timed out" \
    "^ERROR gather_elements/float32/1d/axis0_int32_strided_output: the backend closed its stdout" \
    "^ERROR gather_elements/float32/1d/axis0_int64_padded: timed out" \
    "^ERROR gather_elements/float32/1d/axis0_int64_strided_output: the backend's reply is longer" \
    "^ERROR gather_elements/float32/1d/axis0_uint32_broadcast_input: timed out" \
    "^4 passed, 5 failed, 0 skipped$" -- \
    --exec "exec /usr/bin/python3 tests/cli/hostile_process.py $counter hang close-stdout close-stdin endless orphan" \
    --timeout 2 --filter 'gather_elements/float32/1d/*' vectors
within "a process that hangs every way (9 cases, timeout 2 s)" 20
no_process_left "a process that hangs every way" "sleep 1306"

# usage: errors name the option; --help
check "usage: an unknown option is named" 3 "unknown option '--fliter'" -- \
    --exec cat --fliter x vectors
check "usage: a bad --shard is named" 3 "check: --shard takes K/N" -- --exec cat --shard 4/3 vectors
check "usage: a bad --jobs is named" 3 "check: --jobs takes a number" -- --exec cat --jobs 0 vectors
check "check --help" 0 "--rerun-failed REPORT" "--shard K/N" -- --help

# a plug-in that is not one
check "not a plug-in" 2 "cannot load" -- --backend /nonexistent.so vectors
check "usage: both interfaces" 3 "--backend LIB.so or --exec" -- --backend a.so --exec b vectors

# ---- partial backends, --jobs order, --rerun-failed, reports, explain --------
# A backend that implements one operator: "unsupported" means the same from
# both interfaces (a skip), except where the oracle refuses the case with
# that very status; --jobs reports as a serial run does, and stops where it
# does; --rerun-failed and report paths that cannot be right; each failure
# line carries the dmlref explain command that derives its element.

# verdicts REPORT.json: "name result" lines, in the report's order
verdicts() {
    /usr/bin/python3 -c "
import json, sys
for r in json.load(open(sys.argv[1]))['results']:
    print(r['name'], r['result'])" "$1"
}
only_plugin="--backend $backends/reference.so --backend-options only=GATHER_ELEMENTS"
only_process="$backends/reference_process --only GATHER_ELEMENTS"
# shellcheck disable=SC2086 # $only_plugin is three words
suite_run "$dmlref" check $only_plugin --json "$tmp/only_plugin.json" vectors \
    >"$tmp/only_plugin.out" 2>"$tmp/only_plugin.err"
plugin_rc=$?
suite_run "$dmlref" check --exec "$only_process" --json "$tmp/only_process.json" vectors \
    >"$tmp/only_process.out" 2>"$tmp/only_process.err"
process_rc=$?
verdicts "$tmp/only_plugin.json" >"$tmp/only_plugin.verdicts" 2>>"$tmp/only_plugin.err"
verdicts "$tmp/only_process.json" >"$tmp/only_process.verdicts" 2>>"$tmp/only_process.err"
total=$(suite_total)
if [ "$plugin_rc" = 0 ] && [ "$process_rc" = 0 ] && [ ! -s "$tmp/only_plugin.err" ] &&
    [ ! -s "$tmp/only_process.err" ] &&
    [ "$(wc -l <"$tmp/only_plugin.verdicts" | tr -d ' ')" = "$total" ] &&
    cmp -s "$tmp/only_plugin.verdicts" "$tmp/only_process.verdicts"; then
    ok "a GATHER_ELEMENTS-only plug-in and process: the same verdict on all $total cases"
else
    diff "$tmp/only_plugin.verdicts" "$tmp/only_process.verdicts" | head -5 >"$tmp/only.diff"
    bad "a GATHER_ELEMENTS-only plug-in and process: the same verdicts (exit $plugin_rc, $process_rc)" \
        "$tmp/only.diff" "$tmp/only_plugin.err" "$tmp/only_process.err"
fi
# the only passes outside its operator: the cases dmlref refuses with
# DMLREF_ERROR_UNSUPPORTED_OPERATOR, the very status the plug-in answers
grep -v '^gather_elements/' "$tmp/only_plugin.verdicts" | grep ' pass$' | sed 's/ pass$//' \
    >"$tmp/only_passes"
# shellcheck disable=SC2046 # one folder a word
grep -rl '"DMLREF_ERROR_UNSUPPORTED_OPERATOR"' $(suite_paths) --include='*.json' |
    grep -v -e '^vectors/gather_elements/' -e '^vectors/schema.json$' | sed 's#^vectors/##; s#\.json$##' | sort >"$tmp/only_refused"
if [ -s "$tmp/only_refused" ] && sort "$tmp/only_passes" | cmp -s - "$tmp/only_refused"; then
    ok "... it passes no other operator's case but those refused with its very status"
else bad "... it passes other operators' cases" "$tmp/only_passes"; fi
if grep -qx 'gather_nd1/uint8/3d/error_index_out_of_range skip' "$tmp/only_plugin.verdicts"; then
    ok "... a must-refuse case of another operator is a skip, not a refusal"
else fails "... gather_nd1/uint8/3d/error_index_out_of_range is not a skip"; fi
# shellcheck disable=SC2086
for strict in "" --strict-status; do
    check "a GATHER_ELEMENTS-only plug-in on gather_nd/* ${strict:-(default)}: nothing judged, exit 2" 2 \
        "no case was judged: all [0-9]+ selected cases were skipped" "^0 passed, 0 failed, [0-9]+ skipped$" -- \
        $only_plugin $strict --filter 'gather_nd/*' vectors
    check "a GATHER_ELEMENTS-only process on gather_nd/* ${strict:-(default)}: nothing judged, exit 2" 2 \
        "no case was judged: all [0-9]+ selected cases were skipped" "^0 passed, 0 failed, [0-9]+ skipped$" -- \
        --exec "$only_process" $strict --filter 'gather_nd/*' vectors
    # its one pass there, error_at_2_1, is dmlref's own "unsupported": not judged
    check "a GATHER_ELEMENTS-only plug-in on nonzero_coordinates/* ${strict:-(default)}: nothing judged, exit 2" 2 \
        "no case was judged: of [0-9]+ selected cases [0-9]+ were skipped and 1 passed only by answering" \
        "^1 passed, 0 failed, [0-9]+ skipped$" -- $only_plugin $strict --filter 'nonzero_coordinates/*' vectors
    check "a GATHER_ELEMENTS-only process on nonzero_coordinates/* ${strict:-(default)}: nothing judged, exit 2" 2 \
        "no case was judged: of [0-9]+ selected cases [0-9]+ were skipped and 1 passed only by answering" \
        "^1 passed, 0 failed, [0-9]+ skipped$" -- --exec "$only_process" $strict --filter 'nonzero_coordinates/*' vectors
done

# --jobs: the text report of a serial run, byte for byte, run after run (it
# printed results as jobs finished them); --max-failures 1 stops at the first
# failure both ways (serially it stopped at the second)
faulty=$backends/faulty_off_by_one_axis.so
suite_run "$dmlref" check --backend "$faulty" --filter 'gather_elements/*' vectors \
    >"$tmp/serial.out" 2>"$tmp/serial.err"
serial_rc=$?
for round in 1 2 3; do
    suite_run "$dmlref" check --backend "$faulty" --filter 'gather_elements/*' --jobs 3 vectors \
        >"$tmp/jobs3.out" 2>"$tmp/jobs3.err"
    jobs_rc=$?
    if [ "$serial_rc" = 1 ] && [ "$jobs_rc" = 1 ] && grep -q '^FAIL ' "$tmp/serial.out" &&
        cmp -s "$tmp/serial.out" "$tmp/jobs3.out" && [ ! -s "$tmp/serial.err" ] &&
        [ ! -s "$tmp/jobs3.err" ]; then
        ok "--jobs 3, round $round: the serial run's text report, byte for byte, nothing on stderr"
    else
        diff "$tmp/serial.out" "$tmp/jobs3.out" | head -4 >"$tmp/jobs3.diff"
        bad "--jobs 3, round $round: the serial run's text report (exit $serial_rc, $jobs_rc)" \
            "$tmp/jobs3.diff" "$tmp/serial.err" "$tmp/jobs3.err"
    fi
done
for jobs in 1 3; do
    check "--max-failures 1 --jobs $jobs: stops right after the first failure" 1 \
        "^stopped after 1 failed cases \(--max-failures\)" "^[0-9]+ passed, 1 failed, 0 skipped$" -- \
        --backend "$faulty" --max-failures 1 --jobs $jobs vectors
    grep -Ev '^dmlref check ' "$tmp/out" >"$tmp/max$jobs.out"
done
if cmp -s "$tmp/max1.out" "$tmp/max3.out"; then ok "--max-failures 1: the same report with --jobs 3"
else bad "--max-failures 1: the same report with --jobs 3" "$tmp/max1.out" "$tmp/max3.out"; fi

# --rerun-failed: a case the suite no longer has is an error, not a silent pass
/usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
r['results'] += [{'name': 'gone/first', 'result': 'fail'}, {'name': 'gone/second', 'result': 'error'}]
json.dump(r, open(sys.argv[2], 'w'))" "$tmp/faulty.json" "$tmp/gone.json"
check "--rerun-failed naming cases no longer there: exit 2, the first and how many" 2 \
    "gone.json: 2 of its $((failed_count + 2)) failed cases are not among the vectors given, the first: gone/first" -- \
    --backend "$faulty" --rerun-failed "$tmp/gone.json" vectors
if grep -q "passed, " "$tmp/out"; then fails "--rerun-failed naming gone cases runs nothing"
else ok "--rerun-failed naming gone cases runs nothing"; fi
mkfifo "$tmp/report.fifo"
check "--rerun-failed of a FIFO: refused at once, not a hang" 2 \
    "report.fifo: cannot read the --rerun-failed report: not a regular file" -- \
    --backend "$faulty" --rerun-failed "$tmp/report.fifo" vectors
within "--rerun-failed of a FIFO" 10
head -c 34000000 /dev/zero | tr '\0' ' ' >"$tmp/huge.json"
check "--rerun-failed of a report over 32 MiB: a clear error" 2 \
    "huge.json: more than 32 MiB, more than a --rerun-failed report may have" -- \
    --backend "$faulty" --rerun-failed "$tmp/huge.json" vectors
# 30 MB of "{}," would make a parse tree of gigabytes: refused before it is
# parsed, its peak memory (Python's getrusage of the child; no ulimit -v,
# which AddressSanitizer's shadow memory cannot live under) far below that
/usr/bin/python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('{\"results\": [' + '{},' * 10000000 + '{}]}')" "$tmp/tree.json"
suite_run /usr/bin/python3 -c "
import resource, subprocess, sys
with open(sys.argv[1], 'w') as out:
    rc = subprocess.call(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)" "$tmp/out" \
    "$dmlref" check --backend "$faulty" --rerun-failed "$tmp/tree.json" vectors >"$tmp/tree.rc"
read -r tree_rc tree_mib <"$tmp/tree.rc"
if [ "$tree_rc" = 2 ] && [ "$tree_mib" -lt 1024 ] &&
    grep -q "tree.json: \$: its [0-9]* bytes of JSON would take [0-9]* MiB to parse, more than the 512 MiB" "$tmp/out"; then
    ok "--rerun-failed of a report whose parse would take gigabytes: refused, named, $tree_mib MiB at most"
else fails "--rerun-failed of a report whose parse would take gigabytes (exit $tree_rc, $tree_mib MiB)"; fi

# two reports naming one file: refused, nothing written
for second in "$tmp/one.report" "$tmp/../$(basename "$tmp")/one.report"; do
    rm -f "$tmp/one.report"
    check "--junit and --json naming one file ($second): exit 2" 2 \
        "dmlref check: --junit .*one.report and --json .*one.report name the same file" -- \
        --backend "$backends/reference.so" --filter "$filter" --junit "$tmp/one.report" \
        --json "$second" vectors
    if [ -e "$tmp/one.report" ]; then fails "... and wrote it"; else ok "... and wrote nothing"; fi
done
: >"$tmp/one.report"
ln -s "$tmp/one.report" "$tmp/link.report"
check "--junit and --json reaching one file through a link: exit 2" 2 "name the same file" -- \
    --backend "$backends/reference.so" --filter "$filter" --junit "$tmp/one.report" \
    --json "$tmp/link.report" vectors

# every failure line carries the command that derives its wrong element, and
# that command, run as printed, explains that very element: each operator's
# outputs (NonZero's two), a digest-only case, and a path that needs quoting
mkdir -p "$tmp/it's here"
cp vectors/gather_elements/float16/2d/axis1_int32_padded.json "$tmp/it's here/"
for run in "faulty_off_by_one_axis $tmp/it's here" \
    "faulty_nonzero_count_off_by_one vectors/nonzero_coordinates/float16/1d" \
    "faulty_nonzero_left_aligned vectors/nonzero_coordinates/float16/4d" \
    "faulty_scatter_no_input_copy vectors/scatter_elements/float16/1d" \
    "faulty_gather_nd1_batch_offset vectors/gather_nd1/float16/2d" \
    "faulty_no_negative_indices vectors/gather_nd/float16/3d" \
    "faulty_off_by_one_axis vectors/gather_elements/float32/2d/large_1m_random.json"; do
    plugin=${run%% *} path=${run#* }
    "$dmlref" check --backend "$backends/$plugin.so" --junit "$tmp/derive.xml" "$path" \
        >"$tmp/derive.out" 2>"$tmp/derive.err"
    line=$(grep -m 1 '^FAIL .*; derive it: dmlref explain ' "$tmp/derive.out")
    command=${line##*; derive it: }
    element=$(echo "$command" | sed -n "s/.* --element '\([A-Za-z]*\)\[\([0-9,]*\)\]'$/\1[\2]/p")
    shown=$(echo "$element" | sed 's/,/, /g')
    # the element the line names first, "OutputTensor[0, 1]: expected", is the one derived
    if [ -z "$element" ] || ! echo "$line" | grep -qF ": $shown: expected"; then
        bad "$plugin: a failure line with the explain command of its element" "$tmp/derive.out" "$tmp/derive.err"
        continue
    fi
    sh -c "\"\$0\" ${command#dmlref }" "$dmlref" >"$tmp/explain.out" 2>"$tmp/explain.err"
    explain_rc=$?
    if [ "$explain_rc" = 0 ] && [ ! -s "$tmp/explain.err" ] && grep -qF "$shown = " "$tmp/explain.out"; then
        ok "$plugin: '$command' runs and derives $shown"
    else
        bad "$plugin: '$command' derives $shown (exit $explain_rc)" "$tmp/explain.err" "$tmp/explain.out"
    fi
    if /usr/bin/python3 -c "
import sys, xml.etree.ElementTree as ET
bodies = [f.text for f in ET.parse(sys.argv[1]).getroot().iter('failure')]
assert any(b.endswith('\nderive it: ' + sys.argv[2]) for b in bodies), bodies[:1]
" "$tmp/derive.xml" "$command" 2>"$tmp/junit.err"; then ok "$plugin: the JUnit failure body carries it"
    else bad "$plugin: the JUnit failure body carries the command" "$tmp/junit.err"; fi
done

finish
