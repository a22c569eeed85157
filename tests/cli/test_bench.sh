#!/bin/sh
# tests/cli/test_bench.sh BUILD
#
# End-to-end checks of `dmlref bench` (BUILD/dmlref), each able to fail:
#   - one small in-cache case with --json and --csv exits 0; the JSON
#     parses and has the expected fields with positive numbers, for the fast
#     kernels and for the reference kernels side by side (their speed-up the
#     ratio of their median times), the CSV has a header and rows; the table's
#     header is the one docs/performance.md shows, each row has its ten
#     columns, and the last line of standard output is the worst-ratio line;
#   - scripts/report/plot.py draws that JSON: a file that starts with the PNG
#     signature; given a file that is not bench's JSON it exits 1 with one
#     line and draws nothing;
#   - --oob clamp is recorded in the report;
#   - --kernels fast times the fast kernels alone: the table's reference
#     columns are -, the JSON's reference fields null, the CSV's empty, and
#     the fast kernels' figures are there;
#   - --threads 0, --reps x, --oob sometimes and an unknown option (--plot
#     among them: plot.py draws) are usage errors: exit 3 with one line on
#     standard error;
#   - a report whose folder is missing, or that names a folder, fails before
#     any timing (exit 2, one line naming the option); a report is written
#     whole: the file that was there is replaced, never truncated first;
#   - --list names at least 60 cases.
# Needs python3 and gnuplot.  Ends with "bench: N passed, N failed"; exits 1
# if any check failed.

set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || usage BUILD
take_binary "$1/dmlref"
python=${PYTHON:-/usr/bin/python3}
make_tmp bench

# run NAME ARGS...: runs the binary, output in $tmp/NAME.out and .err, status in $rc
run() {
    name=$1
    shift
    "$bin" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
}

case_name=gather_elements/axis1_seq/packed/e4_i64/2^16
run one bench --filter "$case_name" --size 16 --threads 1 --reps 3 \
    --json "$tmp/r.json" --csv "$tmp/r.csv"
if [ "$rc" -eq 0 ]; then ok; else bad "bench of one case exits 0 (got $rc)" "$tmp/one.err"; fi

if "$python" - "$tmp/r.json" "$case_name" >"$tmp/json.err" 2>&1 <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
machine = doc["machine"]
assert machine["cpus"] >= 1 and machine["threads"] == [1] and machine["compiler"], machine
assert machine["oob"] == "error", machine  # the strict policy unless --oob clamp
cases = doc["cases"]
assert len(cases) == 1, len(cases)
c = cases[0]
assert c["name"] == sys.argv[2], c["name"]
assert (c["op"], c["pattern"], c["layout"]) == ("gather_elements", "seq", "packed"), c
assert (c["element_size"], c["index_bytes"], c["elements"], c["threads"]) == (4, 8, 65536, 1), c
# the fast kernels under the old names, the reference kernels beside them
for key in ("median_ms", "min_ms", "gbps", "copy_gbps", "ratio", "reference_median_ms",
            "reference_min_ms", "reference_gbps", "reference_ratio", "speedup"):
    assert isinstance(c[key], (int, float)) and c[key] > 0, (key, c[key])
for prefix in ("", "reference_"):
    assert c[prefix + "min_ms"] <= c[prefix + "median_ms"], c
    assert abs(c[prefix + "ratio"] - c[prefix + "gbps"] / c["copy_gbps"]) <= 1e-3 * c[prefix + "ratio"] + 1e-4, c
    assert c[prefix + "calls_per_rep"] >= 1, c
assert abs(c["speedup"] - c["reference_median_ms"] / c["median_ms"]) <= 1e-3 * c["speedup"] + 1e-4, c
assert c["bytes"] == 65536 * (2 * 4 + 8), c["bytes"]
assert isinstance(c["index_read_gbps"], float) and c["index_read_gbps"] > 0, c  # the indices alone
assert isinstance(c["case_sized_copy_gbps"], float) and c["case_sized_copy_gbps"] > 0, c
EOF
then ok; else bad "the JSON report parses and holds the case" "$tmp/json.err"; fi

if [ "$(sed -n 1p "$tmp/r.csv" | cut -d, -f1-4)" = "name,op,pattern,layout" ] &&
   [ "$(sed -n 1p "$tmp/r.csv" | cut -d, -f9-18)" = "median_ms,min_ms,gbps,copy_gbps,ratio,reference_median_ms,reference_min_ms,reference_gbps,reference_ratio,speedup" ] &&
   [ "$(awk -F, 'NR == 1 { print $(NF - 1) "," $NF }' "$tmp/r.csv")" = "index_read_gbps,case_sized_copy_gbps" ] &&
   [ "$(wc -l <"$tmp/r.csv")" -eq 2 ] && grep -q "^$case_name," "$tmp/r.csv"; then
    ok
else
    bad "the CSV report has a header, the reference kernels' columns and one row" "$tmp/r.csv"
fi

# the table: the header docs/performance.md shows, then one row of ten columns
root=$(cd "$(dirname "$0")/../.." && pwd)
doc_header=$(grep -E '^ *case +threads ' "$root/docs/performance.md" | head -n 1 | sed 's/^ *//')
if [ -n "$doc_header" ] && [ "$(sed -n 1p "$tmp/one.out")" = "$doc_header" ] &&
   [ "$(sed -n 2p "$tmp/one.out" | awk '{print NF}')" -eq 10 ] &&
   sed -n 2p "$tmp/one.out" | grep -q "^$case_name  *1 "; then
    ok
else
    bad "the table's header is docs/performance.md's and its row has ten columns" "$tmp/one.out"
fi

# the chart: drawn by scripts/report/plot.py from the JSON
"$python" "$root/scripts/report/plot.py" "$tmp/r.json" "$tmp/r.png" >"$tmp/plot.out" 2>"$tmp/plot.err"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(od -An -tx1 -N8 "$tmp/r.png" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok
else
    bad "scripts/report/plot.py draws the JSON as a PNG (got $rc)" "$tmp/plot.err"
fi
"$python" "$root/scripts/report/plot.py" "$tmp/r.csv" "$tmp/csv.png" >"$tmp/plot.out" 2>"$tmp/plot.err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/plot.err")" -eq 1 ] && ! [ -e "$tmp/csv.png" ]; then
    ok
else
    bad "scripts/report/plot.py refuses what is not bench's JSON: exit 1, one line (got $rc)" "$tmp/plot.err"
fi

if tail -n 1 "$tmp/one.out" | grep -Eq '^worst ratio to copy \(sequential cases\): ([0-9]+\.[0-9][0-9]|n/a)$'; then
    ok
else
    bad "the last line is the worst ratio to copy" "$tmp/one.out"
fi

run clamp bench --filter "$case_name" --size 16 --threads 1 --reps 1 --oob clamp --json "$tmp/c.json"
if [ "$rc" -eq 0 ] && grep -q '"oob": "clamp"' "$tmp/c.json"; then
    ok
else
    bad "--oob clamp runs and the report says so" "$tmp/clamp.err"
fi

run fast bench --filter "$case_name" --size 16 --threads 1 --reps 1 --kernels fast \
    --json "$tmp/f.json" --csv "$tmp/f.csv"
if [ "$rc" -eq 0 ] &&
   [ "$(sed -n 2p "$tmp/fast.out" | awk '{print $6 $7 $8 $10}')" = "----" ] &&
   [ "$(sed -n 2p "$tmp/f.csv" | cut -d, -f13-18)" = "$(sed -n 2p "$tmp/f.csv" | cut -d, -f13),,,,," ] &&
   "$python" - "$tmp/f.json" >"$tmp/fjson.err" 2>&1 <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
for key in ("reference_median_ms", "reference_min_ms", "reference_gbps", "reference_ratio",
            "speedup"):
    assert c[key] is None, (key, c[key])
assert c["reference_calls_per_rep"] == 0 and c["median_ms"] > 0 and c["gbps"] > 0, c
EOF
then
    ok
else
    bad "--kernels fast leaves the reference columns empty" "$tmp/fast.out" "$tmp/fast.err" "$tmp/fjson.err"
fi

# a filter that leaves no sequential case: the line says n/a
run nonseq bench --filter gather_nd/S16_random/packed/e4_i64/2^16 --size 16 --threads 1 --reps 1
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$tmp/nonseq.out")" = "worst ratio to copy (sequential cases): n/a" ]; then
    ok
else
    bad "without a sequential case the worst ratio is n/a" "$tmp/nonseq.out" "$tmp/nonseq.err"
fi

usage_case() {
    label=$1
    shift
    run usage bench "$@"
    if [ "$rc" -eq 3 ] && [ "$(wc -l <"$tmp/usage.err")" -eq 1 ] && ! [ -s "$tmp/usage.out" ]; then
        ok
    else
        bad "$label: exit 3 with one line on stderr (got $rc)" "$tmp/usage.err"
    fi
}
usage_case "--threads 0" --threads 0 --list
usage_case "--reps x" --reps x --list
usage_case "an unknown option" --frobnicate
usage_case "--plot, which scripts/report/plot.py took over" --plot "$tmp/p.png" --list
usage_case "--size out of range" --size 40 --list
usage_case "an option without its value" --json
usage_case "--oob with an unknown policy" --oob sometimes --list
usage_case "--kernels with an unknown set" --kernels reference --list

# reports that cannot be written fail before the timing, in one line each
for report in "--json $tmp/no/such/r.json" "--csv $tmp" ; do
    # shellcheck disable=SC2086 # the option and its path, split on purpose
    run unwritable bench --filter "$case_name" --size 16 --threads 1 --reps 1 $report
    if [ "$rc" -eq 2 ] && ! [ -s "$tmp/unwritable.out" ] && [ "$(wc -l <"$tmp/unwritable.err")" -eq 1 ] &&
        grep -q "^dmlref: bench: ${report%% *} .*: cannot write: " "$tmp/unwritable.err"; then
        ok
    else
        bad "$report: exit 2 before any timing, one line naming the option (got $rc)" \
            "$tmp/unwritable.out" "$tmp/unwritable.err"
    fi
done

# a report is replaced whole: a link to the old file keeps the old bytes
echo old >"$tmp/whole.json"
ln "$tmp/whole.json" "$tmp/whole.link"
run whole bench --filter "$case_name" --size 16 --threads 1 --reps 1 --json "$tmp/whole.json"
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/whole.link")" = old ] &&
    "$python" -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/whole.json" 2>"$tmp/whole.py"; then
    ok
else
    bad "--json replaces the file whole, never truncating the old one (got $rc)" "$tmp/whole.err" "$tmp/whole.py"
fi

run list bench --list
n=$(wc -l <"$tmp/list.out")
if [ "$rc" -eq 0 ] && [ "$n" -ge 60 ] && ! grep -qv '^[a-z_]*/[A-Za-z0-9_.]*/[a-z_]*/e[1248]\(_i[36][24]\)\{0,1\}/2^[0-9]*$' "$tmp/list.out"; then
    ok
else
    bad "--list names at least 60 cases, one per line (got $n)" "$tmp/list.err"
fi

finish bench
