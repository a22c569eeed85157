#!/bin/sh
# dmlref fuzz end to end: the reference and the independent naive plug-in
# show no difference over valid, invalid, boundary and out-of-range cases;
# every faulty plug-in of conformance/backends but the three controls is
# found within 300 cases and its difference shrunk (docs/fuzz.md's table is
# what the command reports); shrunk vectors replay in dmlref check; the same
# seed gives the same run; a run that compares nothing exits 2.
# The fast kernels in process (fuzz --kernels fast) show no difference from the
# reference kernels; with FAULTY_DIR (make's $(BUILD)/faulty-fast: dmlref and
# test_random linked with tests/unit/faulty_fast_kernel.c, a wrong fast
# GatherElements kernel), fuzz --kernels fast finds the fault and shrinks it,
# verify --kernels fast and eval --kernels fast report it, and test_random
# fails on it.
# Quick mode (DMLREF_TEST_QUICK, tests/cli/lib.sh): the plug-in that hangs
# runs to its table row's first failure with a timeout of 0.2 s, not 1 s (its
# shrinking waits out the timeout run after run): found there and shrunk; the
# table's other rows are compared as they are.
#   test_fuzz.sh DMLREF_BINARY BACKENDS_DIR [FAULTY_DIR]
set -u
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || usage "DMLREF_BINARY BACKENDS_DIR [FAULTY_DIR]"
dmlref=$1 backends=$2 faulty=${3:-}
python=/usr/bin/python3
make_tmp fuzz
hang=hangs_on_scatter_duplicates
quick_banner "faulty_$hang.so runs to its table row's first failure, with --timeout 0.2"
# a failure here shows the end of the last run's output
bad() {
    fail "$1"
    show_tail 5 "$tmp/out"
}

# the number of elements of a tensor of a vector: elements FILE TENSOR
elements() {
    "$python" -c "
import json, math, sys
print(math.prod(json.load(open(sys.argv[1]))['tensors'][sys.argv[2]]['sizes']))" "$1" "$2" 2>/dev/null
}

# ---- no difference where there is none ----------------------------------------

"$dmlref" fuzz --backend "$backends/reference.so" --seed 7 --cases 500 >"$tmp/out" 2>&1
rc=$?
cases=$(grep '^cases: ' "$tmp/out")
if [ "$rc" = 0 ] && tail -n 1 "$tmp/out" | grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ skipped$' &&
   echo "$cases" | grep -Eq ' [1-9][0-9]* with an invalid descriptor' &&
   echo "$cases" | grep -Eq ' [1-9][0-9]* with out-of-range indices' &&
   [ "$(echo "$cases" | sed 's/.*rules broken://' | wc -w)" -ge 20 ]; then
    ok "reference: 500 cases, no difference; invalid descriptors (20 rules and more) and out-of-range indices among them"
else bad "reference"; fi
# docs/fuzz.md shows the last two lines of this very run
grep -A1 '^cases: ' "$root/docs/fuzz.md" | head -n 2 >"$tmp/doc"
if tail -n 2 "$tmp/out" | cmp -s - "$tmp/doc"; then
    ok "docs/fuzz.md shows what the reference run prints"
else bad "docs/fuzz.md's example run differs from: dmlref fuzz --backend reference.so --seed 7 --cases 500"; fi

"$dmlref" fuzz --backend "$backends/naive.so" --seed 11 --cases 300 >"$tmp/out" 2>&1
if [ $? = 0 ] && tail -n 1 "$tmp/out" | grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ skipped$'; then
    ok "naive plug-in (validates, refuses out-of-range indices): 300 cases, no difference"
else bad "naive"; fi

# ---- every faulty plug-in, and docs/fuzz.md's table --------------------------------

if ! quick; then
    "$python" "$root/scripts/report/fuzz_table.py" --check "$root/docs/fuzz.md" --work "$tmp/table" \
        "$dmlref" "$backends" >"$tmp/out" 2>&1
    if [ $? = 0 ]; then
        ok "docs/fuzz.md's table is what dmlref fuzz reports for every faulty plug-in"
    else bad "docs/fuzz.md's table (python3 scripts/report/fuzz_table.py --write docs/fuzz.md ...)"; fi
else
    # the table of every plug-in but the one that hangs
    mkdir -p "$tmp/plugins"
    for lib in "$backends"/faulty_*.so; do
        [ "$lib" = "$backends/faulty_$hang.so" ] ||
            ln -s "$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")" "$tmp/plugins/"
    done
    sed -n '/^<!-- FUZZ_TABLE_BEGIN/,/^<!-- FUZZ_TABLE_END/p' "$root/docs/fuzz.md" | sed '1d;$d' |
        grep -v "^| \`$hang\`" >"$tmp/doc"
    "$python" "$root/scripts/report/fuzz_table.py" --work "$tmp/table" "$dmlref" "$tmp/plugins" \
        >"$tmp/run" 2>"$tmp/out"
    if cmp -s "$tmp/doc" "$tmp/run"; then
        ok "docs/fuzz.md's table is what dmlref fuzz reports for every faulty plug-in but $hang"
    else
        diff "$tmp/doc" "$tmp/run" >>"$tmp/out"
        bad "docs/fuzz.md's table (python3 scripts/report/fuzz_table.py --write docs/fuzz.md ...)"
    fi
    # and that one up to the first failure of its row, | name | exit | cases to it | ...
    cases=$(grep "^| \`$hang\`" "$root/docs/fuzz.md" | awk -F' [|] ' '{print $3}')
    "$dmlref" fuzz --backend "$backends/faulty_$hang.so" --out "$tmp/table/$hang" --seed 1 \
        --cases "${cases:-1}" --shrink 1 --timeout 0.2 >"$tmp/table/$hang.log" 2>&1
    echo $? >"$tmp/table/$hang.rc"
    cp "$tmp/table/$hang.log" "$tmp/out"
    if [ "$(cat "$tmp/table/$hang.rc")" = 1 ] && [ -n "$cases" ] &&
       grep -q "^ERROR case $((cases - 1)) .*: timed out after 0.2 s$" "$tmp/out"; then
        ok "$hang: its docs/fuzz.md row's first failure, case $cases (--timeout 0.2)"
    else bad "$hang: its first failure is not case ${cases:-?}, as docs/fuzz.md's row says"; fi
fi

# controls: allowed behaviour (R-SC-10, R-IX-5, R-NZ-10), never reported
for lib in "$backends"/faulty_*.so; do
    name=$(basename "$lib" .so)
    name=${name#faulty_}
    rc=$(cat "$tmp/table/$name.rc" 2>/dev/null)
    cp "$tmp/table/$name.log" "$tmp/out" 2>/dev/null
    case $name in
    scatter_first_wins | unsigned_read_as_signed | nonzero_flushes_subnormals)
        if [ "$rc" = 0 ] && ! grep -Eq '^(FAIL|ERROR) ' "$tmp/out"; then
            ok "control $name: 300 cases, not reported"
        else bad "control $name reported"; fi ;;
    *)
        if [ "$rc" = 1 ] && grep -Eq '^(FAIL|ERROR) case ' "$tmp/out" &&
           grep -q '^    shrunk in ' "$tmp/out"; then
            ok "$name: found within 300 cases (exit 1) and shrunk"
        else bad "$name not found within 300 cases"; fi ;;
    esac
done

# the shrunk vectors: one element where one shows the bug
one() { # one NAME TENSOR
    vector=$(ls "$tmp/table/$1"/*.json 2>/dev/null | head -n 1)
    cp "$tmp/table/$1.log" "$tmp/out" 2>/dev/null
    if [ -n "$vector" ] && [ "$(elements "$vector" "$2")" = 1 ]; then
        ok "$1: the shrunk vector's $2 has one element"
    else bad "$1: the shrunk vector's $2 has one element"; fi
}
one negative_zero_counted InputTensor
one no_negative_indices IndicesTensor
one minus_s_out_of_range IndicesTensor

# an invalid descriptor: the shrunk vector must be refused, and dmlref check says so
vector=$(ls "$tmp/table/skips_validation"/*.json 2>/dev/null | head -n 1)
if [ -n "$vector" ] && grep -q '"expect_error"' "$vector" &&
   "$dmlref" check --backend "$backends/reference.so" "$vector" >"$tmp/out" 2>&1 &&
   ! "$dmlref" check --backend "$backends/faulty_skips_validation.so" "$vector" >"$tmp/out" 2>&1 &&
   grep -q '^FAIL .*accepted a case that must be refused' "$tmp/out"; then
    ok "skips_validation: the shrunk must-refuse vector replays in dmlref check"
else bad "skips_validation replay"; fi

# ---- shrinking, replay, reproducibility -------------------------------------------------

"$dmlref" fuzz --backend "$backends/faulty_no_negative_indices.so" --seed 1 --cases 40 \
    --shrink 1 --out "$tmp/found" >"$tmp/out" 2>&1
rc=$?
shrunk=$(ls "$tmp/found"/*.json 2>/dev/null | head -n 1)
if [ "$rc" = 1 ] && [ -n "$shrunk" ] && grep -q '^FAIL case 0 ' "$tmp/out"; then
    ok "faulty backend: exit 1, first case fails, a shrunk vector written"
else bad "faulty backend caught"; fi

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
if [ $? = 0 ] && tail -n 1 "$tmp/out" | grep -Eq '^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$'; then
    ok "--time 1: a bounded run, no difference"
else bad "--time"; fi

# a process backend: the example (GATHER_ELEMENTS on packed FLOAT32, the rest unsupported)
"$dmlref" fuzz --exec "$python $root/docs/examples/process_example.py" --operator GATHER_ELEMENTS \
    --seed 2 --cases 300 >"$tmp/out" 2>&1
if [ $? = 0 ] && tail -n 1 "$tmp/out" | grep -Eq '^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$'; then
    ok "process backend (docs/examples/process_example.py): no difference"
else bad "process backend"; fi

# ---- the fast kernels, in process (--kernels fast) ---------------------------------------

"$dmlref" fuzz --kernels fast --seed 7 --cases 500 --out "$tmp/fast" >"$tmp/out" 2>&1
if [ $? = 0 ] && head -n 1 "$tmp/out" | grep -q 'the fast kernels against the reference kernels' &&
   tail -n 1 "$tmp/out" | grep -Eq '^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$' &&
   ! grep -Eq '^(FAIL|ERROR) ' "$tmp/out" && ! [ -d "$tmp/fast" ]; then
    ok "--kernels fast: 500 cases, the fast kernels as the reference kernels"
else bad "--kernels fast"; fi

"$dmlref" fuzz --kernels fast --backend "$backends/reference.so" --cases 1 >"$tmp/out" 2>&1
rc1=$?
"$dmlref" fuzz --kernels reference --cases 1 >"$tmp/out2" 2>&1
rc2=$?
if [ "$rc1" = 3 ] && [ "$rc2" = 3 ] && grep -q 'no --backend' "$tmp/out"; then
    ok "--kernels fast with a backend, or --kernels reference: usage errors"
else bad "--kernels usage errors"; fi

if [ -n "$faulty" ]; then
    # the faulty fast kernel: found, shrunk to a few elements, exit 1
    "$faulty/dmlref" fuzz --kernels fast --seed 1 --cases 300 --shrink 1 --out "$tmp/faulty" \
        >"$tmp/out" 2>&1
    rc=$?
    shrunk=$(ls "$tmp/faulty"/*.json 2>/dev/null | head -n 1)
    if [ "$rc" = 1 ] && grep -q '^FAIL case [0-9]* (gather_elements/' "$tmp/out" &&
       grep -q '^    shrunk in [0-9]* runs to ' "$tmp/out" && [ -n "$shrunk" ] &&
       [ "$(elements "$shrunk" OutputTensor)" = 1 ] && [ "$(elements "$shrunk" InputTensor)" -le 2 ]; then
        ok "a faulty fast kernel: fuzz --kernels fast exits 1 and shrinks it to one output element"
    else bad "a faulty fast kernel under fuzz --kernels fast"; fi
    # docs/fuzz.md shows the first failure of this very run
    grep -A1 '^FAIL case [0-9]* (gather_elements/' "$tmp/out" | head -n 2 |
        sed "s|$tmp/faulty/|fuzz-failures/|" >"$tmp/run"
    grep -A1 '^FAIL case [0-9]* (gather_elements/' "$root/docs/fuzz.md" | head -n 2 >"$tmp/doc"
    if [ -s "$tmp/doc" ] && cmp -s "$tmp/run" "$tmp/doc"; then
        ok "docs/fuzz.md shows what the faulty fast kernel's run prints"
    else cp "$tmp/run" "$tmp/out"; bad "docs/fuzz.md's faulty fast kernel example differs from the run"; fi

    # the shrunk vector replays: the real fast kernels pass it, the faulty one fails it;
    # the faulty build's reference kernels pass it (the fault is the fast kernel's alone)
    if [ -n "$shrunk" ] && "$dmlref" verify --kernels fast "$shrunk" >"$tmp/out" 2>&1 &&
       "$faulty/dmlref" verify "$shrunk" >"$tmp/out" 2>&1 &&
       ! "$faulty/dmlref" verify --kernels fast "$shrunk" >"$tmp/out" 2>&1 &&
       grep -q '^FAIL .*OutputTensor' "$tmp/out"; then
        ok "verify --kernels fast replays the shrunk vector: passes the fast kernels, fails the faulty one"
    else bad "verify --kernels fast replay"; fi

    # the suite on the faulty fast kernel: FLOAT16 GatherElements vectors fail
    "$faulty/dmlref" verify --kernels fast "$root/vectors/gather_elements/float16" >"$tmp/out" 2>&1
    if [ $? = 1 ] && tail -n 1 "$tmp/out" | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed, 0 skipped$'; then
        ok "verify --kernels fast: the suite's FLOAT16 GatherElements vectors catch the faulty kernel"
    else bad "verify --kernels fast over vectors/gather_elements/float16"; fi

    # eval --kernels fast refuses to write what the faulty kernel contradicts
    if [ -n "$shrunk" ] && "$dmlref" eval --kernels fast "$shrunk" >"$tmp/fast.json" 2>"$tmp/out" &&
       "$dmlref" eval "$shrunk" | cmp -s - "$tmp/fast.json" &&
       ! "$faulty/dmlref" eval --kernels fast "$shrunk" >"$tmp/faulty.json" 2>"$tmp/out" &&
       ! [ -s "$tmp/faulty.json" ] && grep -q 'differ from the reference kernels' "$tmp/out"; then
        ok "eval --kernels fast: the same vector as eval; nothing written from the faulty kernel (exit 1)"
    else bad "eval --kernels fast"; fi

    # test_random compares the fast kernels with the reference kernels: it fails
    DMLREF_TEST_QUICK=1 "$faulty/test_random" >"$tmp/out" 2>&1
    if [ $? != 0 ] && grep -q '^\[  FAILED  \] GATHER_ELEMENTS, small$' "$tmp/out" &&
       grep -q '\$\.tensors\.OutputTensor\.bytes\[[0-9]*\]: .* (element \[' "$tmp/out" &&
       tail -n 1 "$tmp/out" | grep -q ', NOT all identical$'; then
        ok "test_random on the faulty fast kernel: GatherElements fails, byte named"
    else bad "test_random on the faulty fast kernel"; fi
fi

# ---- nothing compared is not a success -----------------------------------------------------

"$dmlref" fuzz --backend "$backends/reference.so" --cases 0 >"$tmp/out" 2>&1
if [ $? = 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] && grep -q 'no case' "$tmp/out"; then
    ok "--cases 0: exit 2, one line"
else bad "--cases 0"; fi

"$dmlref" fuzz --backend "$backends/reference.so" --time 0.000001 >"$tmp/out" 2>&1
if [ $? = 2 ] && grep -q '^dmlref fuzz: no case ran within --time' "$tmp/out"; then
    ok "--time too short for one case: exit 2"
else bad "--time too short"; fi

# a process that answers "unsupported" to everything
unsupported="sed -u 's/^[^\"]*\"format\": *\"[^\"]*\", *\"name\": *\"\\([^\"]*\\)\".*/{\"name\": \"\\1\", \"status\": \"unsupported\", \"message\": \"no\"}/'"
"$dmlref" fuzz --exec "$unsupported" --seed 4 --cases 20 >"$tmp/out" 2>&1
if [ $? = 2 ] && grep -q '^0 passed, 0 failed, 20 skipped$' "$tmp/out" &&
   grep -q '^dmlref fuzz: all 20 cases were skipped' "$tmp/out"; then
    ok "every case skipped: exit 2"
else bad "every case skipped"; fi

finish
