#!/bin/sh
# dmlref fuzz end to end: the reference plug-in shows no difference; a faulty
# one is caught, the difference is shrunk to a small vector, and dmlref check
# replays that vector to the same failure; the same seed gives the same run.
#   test_fuzz.sh DMLREF_BINARY BACKENDS_DIR
set -u
dmlref=$1 backends=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; tail -n 5 "$tmp/out" | sed 's/^/    | /'; }

"$dmlref" fuzz --backend "$backends/reference.so" --seed 7 --cases 500 >"$tmp/out" 2>&1
if [ $? = 0 ] && tail -n 1 "$tmp/out" | grep -q '^500 passed, 0 failed, 0 skipped$'; then
    ok "reference: 500 cases, no difference"
else bad "reference"; fi

"$dmlref" fuzz --backend "$backends/faulty_no_negative_indices.so" --seed 1 --cases 40 \
    --shrink 1 --out "$tmp/found" >"$tmp/out" 2>&1
rc=$?
shrunk=$(ls "$tmp/found"/*.json 2>/dev/null | head -n 1)
if [ "$rc" = 1 ] && [ -n "$shrunk" ] && grep -q '^FAIL case 0 ' "$tmp/out"; then
    ok "faulty backend: exit 1, first case fails, a shrunk vector written"
else bad "faulty backend caught"; fi

# the shrunk vector is small: no tensor over 16 elements
if [ -n "$shrunk" ] && /usr/bin/python3 -c "
import json, math, sys
v = json.load(open(sys.argv[1]))
sys.exit(0 if max(math.prod(t['sizes']) for t in v['tensors'].values()) <= 16 else 1)" "$shrunk"; then
    ok "shrunk vector: at most 16 elements per tensor"
else bad "shrunk vector small"; fi

# dmlref check replays it: the reference passes it, the faulty backend fails it
if [ -n "$shrunk" ] && "$dmlref" check --backend "$backends/reference.so" "$shrunk" >"$tmp/out" 2>&1 &&
   ! "$dmlref" check --backend "$backends/faulty_no_negative_indices.so" "$shrunk" >"$tmp/out" 2>&1 &&
   grep -q '^FAIL ' "$tmp/out"; then
    ok "dmlref check replays the shrunk vector"
else bad "replay"; fi

# reproducible by seed
"$dmlref" fuzz --backend "$backends/faulty_off_by_one_axis.so" --seed 3 --cases 60 --shrink 0 \
    --out "$tmp/a" >"$tmp/run1" 2>&1
"$dmlref" fuzz --backend "$backends/faulty_off_by_one_axis.so" --seed 3 --cases 60 --shrink 0 \
    --out "$tmp/b" >"$tmp/run2" 2>&1
if cmp -s "$tmp/run1" "$tmp/run2" && grep -q '^FAIL case' "$tmp/run1"; then
    ok "the same seed gives the same run"
else cp "$tmp/run1" "$tmp/out"; bad "reproducible"; fi

# --time bounds the run by seconds instead of cases
"$dmlref" fuzz --backend "$backends/reference.so" --seed 5 --time 1 >"$tmp/out" 2>&1
if [ $? = 0 ] && tail -n 1 "$tmp/out" | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped$'; then
    ok "--time 1: a bounded run, no difference"
else bad "--time"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
