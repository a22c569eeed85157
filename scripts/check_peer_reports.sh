#!/bin/sh
# check_peer_reports.sh - the peer comparison pages of docs/performance/ are
# what scripts/peers_report.py makes of the runs kept beside them.
#
# For each page docs/performance/peers-M.md, the report made from the runs
# kept beside it, docs/performance/peers-M-*.json (one run, or runs over
# parts of the matrix), must be the page byte for byte.  Then, to show the
# comparison can fail, a copy of the first run with one of dmlref's figures
# doubled must give a different page, and the join must refuse a case
# measured twice or under one policy only, and an incomplete run.  The last
# line counts the checks, "peer reports (docs/performance/): N passed, N
# failed"; exit 1 when one fails.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-/usr/bin/python3}
report="$python $root/scripts/peers_report.py"
dir=$root/docs/performance
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { echo "$*"; failed=$((failed + 1)); }

machines=0
for page in "$dir"/peers-*.md; do
    [ -f "$page" ] || continue
    m=${page##*/peers-}
    m=${m%.md}
    machines=$((machines + 1))
    set -- "$dir"/peers-"$m"-*.json
    if $report "$@" >"$tmp/$m.md" 2>"$tmp/$m.err" && cmp -s "$tmp/$m.md" "$page"; then
        pass
    else
        fail "docs/performance/peers-$m.md: not what scripts/peers_report.py makes of peers-$m-*.json"
        diff "$page" "$tmp/$m.md" | head -n 10
        cat "$tmp/$m.err"
    fi
    first=$1
    shift
    "$python" - "$first" "$tmp/changed.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["cases"][0]["dmlref_gbps"] *= 2
json.dump(doc, open(sys.argv[2], "w"))
PY
    if $report "$tmp/changed.json" "$@" 2>/dev/null | cmp -s - "$page"; then
        fail "docs/performance/peers-$m.md: a run with one of dmlref's figures doubled gives the same page"
    else
        pass
    fi
done
[ "$machines" -gt 0 ] || fail "docs/performance/: no peers-*.md"

# The join refuses what would make a wrong page: one case measured twice (a
# run given twice), a case measured under one policy only, and a run that
# ended before its last case.
if [ "$machines" -gt 0 ]; then
    if $report "$first" "$first" >/dev/null 2>&1; then
        fail "scripts/peers_report.py: a run given twice is not refused"
    else
        pass
    fi
    "$python" - "$first" "$tmp/error_only.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["cases"] = [r for r in doc["cases"] if r["oob"] == "error"]
json.dump(doc, open(sys.argv[2], "w"))
PY
    if $report "$tmp/error_only.json" >/dev/null 2>&1; then
        fail "scripts/peers_report.py: a run without its clamp rows is not refused"
    else
        pass
    fi
    "$python" - "$first" "$tmp/incomplete.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["complete"] = False
json.dump(doc, open(sys.argv[2], "w"))
PY
    if $report "$tmp/incomplete.json" >/dev/null 2>&1; then
        fail "scripts/peers_report.py: the part of a run that ended early is not refused"
    else
        pass
    fi
fi
echo "peer reports (docs/performance/): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
