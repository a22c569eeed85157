#!/bin/sh
# directml_suite.sh [--out DIR] [--name NAME] [--fuzz-seeds "S..."] [--fuzz-cases N]
#                   [LEG OPTION...] DMLREF
#
# The whole suite (vectors/), then random cases, through the real DirectML,
# judged by dmlref (docs/directml.md).  Inside one leg of
# scripts/check/directml_leg.sh, which takes the LEG OPTIONs (--stack DIR,
# --vulkan-icd ICD.json, --dll DirectML.dll, ...):
#   - DMLREF checks every vector against DirectML's process backend and keeps
#     the run as the conformance report NAME (scripts/report/conformance_reports.py):
#     its summary and the backend's log, NAME.json and NAME.log, in DIR (by
#     default build/directml/ and directml-lavapipe), and the run's per-case
#     reports, NAME.txt, NAME.cases.json and NAME.xml, in build/directml/;
#   - `DMLREF fuzz` runs N cases (default 1000) for each seed (default
#     "1 2 3"), its transcript in DIR/NAME-fuzz-SEED.txt and its shrunk
#     vectors in build/directml/fuzz-SEED/.
# Then scripts/check/directml_verdict.py holds each against
# conformance/backends/directml.differences: a failure it does not list or
# classify, or a skip it does not explain, fails the leg.
#
#   sh scripts/check/directml_suite.sh build/dmlref
#   sh scripts/check/directml_suite.sh --vulkan-icd /usr/share/vulkan/icd.d/nvidia_icd.json \
#       --out docs/conformance --name directml-nvidia build/dmlref
#   sh scripts/check/directml_suite.sh --stack /tmp/stack --vulkan-icd ICD.json \
#       --out docs/conformance --name directml-nvidia /tmp/stack/bin/dmlref
#
# (the last on a machine with no wine: scripts/check/directml_bundle.sh).  The
# reports and verdicts are written by PYTHON, /usr/bin/python3 unless set.
# Ends with `N passed, N failed`, the verdicts' added up.  Exit status: 0
# when every verdict passed, 1 when one failed, the leg's 2 when it cannot
# run (the pin, the canary), 3 on a usage error.
set -u

usage() {
    echo "usage: $0 [--out DIR] [--name NAME] [--fuzz-seeds \"S...\"] [--fuzz-cases N]" \
        "[LEG OPTION...] DMLREF" >&2
    exit 3
}

root=$(cd "$(dirname "$0")/../.." && pwd) || exit 3
python=${PYTHON:-/usr/bin/python3}
out=$root/build/directml
name=directml-lavapipe
seeds="1 2 3"
cases=1000
leg_options=""
while [ $# -gt 1 ]; do
    case $1 in
        --out) out=$2 ;;
        --name) name=$2 ;;
        --fuzz-seeds) seeds=$2 ;;
        --fuzz-cases) cases=$2 ;;
        --*) leg_options="$leg_options $1 '$(printf '%s' "$2" | sed "s/'/'\\\\''/g")'" ;;
        *) usage ;;
    esac
    shift 2
done
[ $# -eq 1 ] || usage
case $1 in
    /*) dmlref=$1 ;;
    *) dmlref=$(pwd)/$1 ;;
esac
for seed in $seeds; do
    case $seed in *[!0-9]*) usage ;; esac
done
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 3
cd "$root" || exit 3

# inside the leg, where DMLREF_DIRECTML_EXEC names the backend: the report,
# then the fuzz runs (each exits 1 when it finds a difference: the verdicts
# below judge them)
eval "set -- $leg_options"
sh scripts/check/directml_leg.sh "$@" sh -c '
    dmlref=$1 out=$2 name=$3 seeds=$4 cases=$5 python=$6
    "$python" scripts/report/conformance_reports.py write --dmlref "$dmlref" --out "$out" \
        --cases build/directml --command "$DMLREF_DIRECTML_EXEC" "$name" || exit
    for seed in $seeds; do
        rm -rf "build/directml/fuzz-$seed"
        "$dmlref" fuzz --exec "$DMLREF_DIRECTML_EXEC" --seed "$seed" --cases "$cases" \
            --out "build/directml/fuzz-$seed" >"$out/$name-fuzz-$seed.txt" 2>&1
        [ $? -le 1 ] || { tail -n 5 "$out/$name-fuzz-$seed.txt" >&2; exit 2; }
    done' leg "$dmlref" "$out" "$name" "$seeds" "$cases" "$python" || exit $?

status=0 passed=0 failed=0
judge() {
    "$python" scripts/check/directml_verdict.py "$@" conformance/backends/directml.differences \
        >"$out/verdict" 2>&1
    verdict_status=$?
    cat "$out/verdict"
    [ "$verdict_status" -le 1 ] || exit 2
    [ "$verdict_status" -eq 0 ] || status=1
    counts=$(tail -n 1 "$out/verdict")
    passed=$((passed + ${counts%% passed*}))
    failed=$((failed + $(echo "$counts" | sed 's/.*passed, \([0-9]*\) failed.*/\1/')))
}
echo "directml: the suite ($name.txt):"
judge "build/directml/$name.cases.json"
for seed in $seeds; do
    echo "directml: dmlref fuzz --seed $seed --cases $cases ($name-fuzz-$seed.txt):"
    judge --fuzz "$out/$name-fuzz-$seed.txt"
done
rm -f "$out/verdict"
echo "$passed passed, $failed failed"
exit "$status"
