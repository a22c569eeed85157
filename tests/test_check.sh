#!/bin/sh
# dmlref check end to end with process backends that misbehave, and its
# reports: a hang and a crash are errors for the affected cases and the run
# completes; a malformed reply is an error; the JUnit file is well-formed and
# agrees with the summary line.
#   test_check.sh DMLREF_BINARY
set -u
dmlref=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; sed 's/^/    | /' "$tmp/out" | tail -n 8; }

# check NAME EXPECTED_EXIT PATTERN... -- ARGS: runs dmlref check ARGS, wants
# the exit status and every pattern (grep -E) in its output
check() {
    name=$1 want=$2
    shift 2
    patterns=""
    while [ "$1" != "--" ]; do patterns="$patterns
$1"; shift; done
    shift
    "$dmlref" check "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" != "$want" ]; then bad "$name: exit $rc, wanted $want"; return; fi
    echo "$patterns" | while IFS= read -r p; do
        [ -z "$p" ] && continue
        grep -Eq -- "$p" "$tmp/out" || { echo "missing: $p" >>"$tmp/missing"; }
    done
    if [ -s "$tmp/missing" ]; then
        cat "$tmp/missing" >>"$tmp/out"; rm -f "$tmp/missing"; bad "$name"; return
    fi
    ok "$name"
}

filter='gather_elements/float32/1d/*'
n=$(ls vectors/gather_elements/float32/1d/*.json | wc -l)

# a process that never answers: every case times out, the run completes
check "hanging process: errors, run completes" 1 \
    "ERROR gather_elements/float32/1d/[a-z0-9_]+: timed out after 0.5 s" \
    "^$n errors" "^0 passed, $n failed, 0 skipped$" -- \
    --exec 'sleep 1000' --timeout 0.5 --filter "$filter" vectors

# a process that dies on its first case: an error, then restarted for the next
check "crashing process: errors, restarted, run completes" 1 \
    "the backend's process exited \(status 3\)" "^0 passed, $n failed, 0 skipped$" -- \
    --exec 'read line; exit 3' --filter "$filter" vectors

# a process killed by a signal
check "process killed by a signal" 1 "crashed \(signal 9" -- \
    --exec 'kill -9 $$' --filter "$filter" vectors

# replies that break the protocol
check "malformed reply: not JSON" 1 "malformed reply: reply: \\$: " -- \
    --exec 'while read l; do echo "not json"; done' --filter "$filter" vectors
check "malformed reply: another case's name" 1 'answers another case' -- \
    --exec 'while read l; do echo "{\"name\": \"x\", \"status\": \"error\"}"; done' \
    --filter "$filter" vectors
check "an unsupported answer is a skip" 0 "^0 passed, 0 failed, $n skipped$" -- \
    --exec '/usr/bin/python3 -c "
import json, sys
for line in sys.stdin:
    print(json.dumps({\"name\": json.loads(line)[\"name\"], \"status\": \"unsupported\"}), flush=True)
"' --filter "$filter" vectors

# a correct process backend passes, and the JUnit and JSON reports agree
check "process example backend passes what it supports" 0 "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" -- \
    --exec '/usr/bin/python3 docs/examples/process_example.py' --filter 'gather_elements/*' \
    --junit "$tmp/report.xml" --json "$tmp/report.json" vectors
summary=$(tail -n 1 "$tmp/out")
if /usr/bin/python3 - "$tmp/report.xml" "$tmp/report.json" "$summary" <<'PY'
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
cases = suite.findall("testcase")
passed, failed, skipped = (int(w) for w in sys.argv[3].replace(",", "").split()[::2])
skips = sum(1 for c in cases if c.find("skipped") is not None)
fails = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
assert int(suite.get("tests")) == len(cases) == passed + failed + skipped, (len(cases), sys.argv[3])
assert int(suite.get("skipped")) == skips == skipped
assert int(suite.get("failures")) + int(suite.get("errors")) == fails == failed
report = json.load(open(sys.argv[2]))
assert report["summary"] == {"passed": passed, "failed": failed, "skipped": skipped, "errors": 0}
assert len(report["results"]) == len(cases)
PY
then ok "JUnit report well-formed, counts match the summary"; else bad "JUnit report"; fi

# a plug-in that is not one
check "not a plug-in" 2 "cannot load" -- --backend /nonexistent.so vectors
check "usage: both interfaces" 3 "--backend LIB.so or --exec" -- --backend a.so --exec b vectors

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
