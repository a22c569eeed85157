#!/bin/sh
# check_peer_reports.sh - the peer comparison pages of docs/performance/ are
# what scripts/peers_report.py makes of the runs kept beside them.
#
# For each machine M with docs/performance/peers-M-error.json and
# peers-M-clamp.json, the report made from the two must be
# docs/performance/peers-M.md byte for byte.  Then, to show the comparison
# can fail, a copy of one run with one of dmlref's figures doubled must give a
# different page.  The last line counts the checks, "peer reports
# (docs/performance/): N passed, N failed"; exit 1 when one fails.
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
for error in "$dir"/peers-*-error.json; do
    [ -f "$error" ] || continue
    m=${error##*/peers-}
    m=${m%-error.json}
    clamp=$dir/peers-$m-clamp.json
    page=$dir/peers-$m.md
    machines=$((machines + 1))
    if $report "$error" "$clamp" >"$tmp/$m.md" 2>"$tmp/$m.err" && cmp -s "$tmp/$m.md" "$page"; then
        pass
    else
        fail "docs/performance/peers-$m.md: not what scripts/peers_report.py makes of peers-$m-error.json and peers-$m-clamp.json"
        diff "$page" "$tmp/$m.md" | head -n 10
        cat "$tmp/$m.err"
    fi
    "$python" - "$error" "$tmp/changed.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["cases"][0]["dmlref_gbps"] *= 2
json.dump(doc, open(sys.argv[2], "w"))
PY
    if $report "$tmp/changed.json" "$clamp" 2>/dev/null | cmp -s - "$page"; then
        fail "docs/performance/peers-$m.md: a run with one of dmlref's figures doubled gives the same page"
    else
        pass
    fi
done
[ "$machines" -gt 0 ] || fail "docs/performance/: no peers-*-error.json"
echo "peer reports (docs/performance/): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
