#!/bin/sh
# check_peer_reports.sh - the peer comparison pages of docs/performance/ are
# what scripts/report/peers_report.py makes of the runs kept beside them.
#
# For each page docs/performance/peers-M.md, the report made from the runs
# kept beside it, docs/performance/peers-M-*.json (one run, or runs over
# parts of the matrix), must be the page byte for byte, and
# docs/performance.md must show the table of the first comparison's cases
# that peers_report.py --first-comparison makes of the same runs (and, for
# the 2-vCPU machine, the figures of --targets).  Then, to show the checks
# can fail, a copy of the first run with one of dmlref's figures doubled
# must give a different page, one with a ratio of the first comparison
# doubled a table the docs do not show (and one with a copy rate halved,
# targets' figures they do not show), and the join must refuse a case
# measured twice or under one policy only, and an incomplete run; the
# estimate may not read the indices slower than dmlref's strict pass did;
# and a row below its target is bound, not missed, where dmlref's time is
# within the floor.
# The last line counts the checks, "peer reports (docs/performance/): N
# passed, N failed"; exit 1 when one fails.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-/usr/bin/python3}
report="$python $root/scripts/report/peers_report.py"
dir=$root/docs/performance
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { passed=$((passed + 1)); }
# contains FILE PART: FILE holds PART's text, whole, somewhere
contains() {
    "$python" -c 'import sys; sys.exit(open(sys.argv[2]).read() not in open(sys.argv[1]).read())' "$1" "$2"
}
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
        fail "docs/performance/peers-$m.md: not what scripts/report/peers_report.py makes of peers-$m-*.json"
        diff "$page" "$tmp/$m.md" | head -n 10
        cat "$tmp/$m.err"
    fi
    if $report --first-comparison "$@" >"$tmp/$m.first" 2>"$tmp/$m.err" &&
        contains "$root/docs/performance.md" "$tmp/$m.first"; then
        pass
    else
        fail "docs/performance.md: does not show the first comparison's table that scripts/report/peers_report.py --first-comparison makes of peers-$m-*.json"
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
    # the runs again, the one that holds the first comparison's first case
    # with that case's ratio doubled
    rm -rf "$tmp/runs" && mkdir "$tmp/runs" && cp "$first" "$@" "$tmp/runs/"
    if ! "$python" - "$tmp/runs" <<'PY'; then
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/*.json"):
    doc = json.load(open(path))
    rows = [r for r in doc["cases"] if r["name"] == "gather_elements/axis1_seq/packed/e1_i64/2^24"]
    if rows:
        rows[0]["dmlref_over_torch"] *= 2
        json.dump(doc, open(path, "w"))
        sys.exit(0)
sys.exit(1)
PY
        fail "docs/performance/peers-$m-*.json: no run holds the first comparison's first case"
    elif $report --first-comparison "$tmp/runs"/*.json >"$tmp/changed.first" 2>/dev/null &&
        contains "$root/docs/performance.md" "$tmp/changed.first"; then
        fail "docs/performance.md: a run with a ratio of the first comparison doubled gives the table it shows"
    else
        pass
    fi
done
[ "$machines" -gt 0 ] || fail "docs/performance/: no peers-*.md"

# The table of targets in docs/performance.md is measured on the 2-vCPU
# machine: the docs show the figures peers_report.py --targets makes of its
# runs, and not those of a run with one sequential case's copy rate halved.
set -- "$dir"/peers-2cpu-*.json
if [ -f "$1" ] && $report --targets "$@" >"$tmp/targets" 2>"$tmp/targets.err" &&
    contains "$root/docs/performance.md" "$tmp/targets"; then
    pass
else
    fail "docs/performance.md: does not show what scripts/report/peers_report.py --targets makes of peers-2cpu-*.json"
    cat "$tmp/targets.err" 2>/dev/null
fi
if [ -f "$1" ]; then
    "$python" - "$1" "$tmp/changed_targets.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
row = next(r for r in doc["cases"] if r["name"] == "gather_elements/axis1_seq/packed/e4_i64/2^24")
row["copy_gbps"] /= 2
json.dump(doc, open(sys.argv[2], "w"))
PY
    shift
    if $report --targets "$tmp/changed_targets.json" "$@" >"$tmp/changed.targets" 2>/dev/null &&
        contains "$root/docs/performance.md" "$tmp/changed.targets"; then
        fail "docs/performance.md: a run with a copy rate halved gives the targets' figures it shows"
    else
        pass
    fi
fi

# The join refuses what would make a wrong page: one case measured twice (a
# run given twice), a case measured under one policy only, and a run that
# ended before its last case.
if [ "$machines" -gt 0 ]; then
    if $report "$first" "$first" >/dev/null 2>&1; then
        fail "scripts/report/peers_report.py: a run given twice is not refused"
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
        fail "scripts/report/peers_report.py: a run without its clamp rows is not refused"
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
        fail "scripts/report/peers_report.py: the part of a run that ended early is not refused"
    else
        pass
    fi
    # The estimate reads the indices no slower than dmlref's own strict pass
    # did: a case below its target whose indices read alone at 1 GB/s, but
    # whose error run took hardly longer than its clamp run, is "missed"
    # (with PyTorch's time twice that of the copy beside it, so that the
    # run's own rates cannot make it bound). And a case below its target is
    # bound when dmlref's time is within the floor, missed when it is not:
    # the error run took 1.2 times the copy's time, with its clamp run at
    # 0.9 (a floor of 1.3 copies) and at 1.1 (a floor of 1.1).
    "$python" - "$first" "$tmp" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["cases"] = [r for r in doc["cases"] if r["threads"] == 1 and
                r["name"] == "gather_elements/axis1_seq/packed/e4_i64/2^24"]
error, clamp = sorted(doc["cases"], key=lambda r: r["oob"] != "error")
copy_ms = error["dmlref_bytes"] / (error["case_sized_copy_gbps"] * 1e6)
error["index_read_gbps"] = 1.0
error["dmlref_over_torch"] = 0.5
error["torch_ms"] = 2 * copy_ms
for name, error_copies, clamp_copies in (("fast_pass", 1.5, 1.5 / 1.01),
                                         ("within_floor", 1.2, 0.9),
                                         ("beyond_floor", 1.2, 1.1)):
    error["dmlref_ms"], clamp["dmlref_ms"] = error_copies * copy_ms, clamp_copies * copy_ms
    json.dump(doc, open("%s/%s.json" % (sys.argv[2], name), "w"))
PY
    for expected in fast_pass:missed within_floor:bound beyond_floor:missed; do
        if $report "$tmp/${expected%:*}.json" 2>/dev/null | grep -q "0\.50 .*(${expected#*:}: "; then
            pass
        else
            fail "scripts/report/peers_report.py: a case below its target, ${expected%:*}, is not ${expected#*:}"
        fi
    done
fi
echo "peer reports (docs/performance/): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
