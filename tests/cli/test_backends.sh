#!/bin/sh
# tests/cli/test_backends.sh DMLREF_BINARY BACKENDS_DIR
#
# Proves that `dmlref check` tells right backends from wrong ones, with the
# plug-ins of conformance/backends/ (built by conformance/backends/build.sh
# into BACKENDS_DIR: NAME.so, or NAME.dll for Windows, in which case
# DMLREF_BINARY may be a script that runs dmlref.exe under wine, and a
# crash's expected "signal 11" reads "exception 0xC0000005"):
#   - reference.so (the library itself) and naive.so (an independent plain
#     implementation) pass the whole suite, vectors/: exit 0, "N passed,
#     0 failed", every vector judged, and no skip beyond the "oob": "clamp"
#     cases (a strict backend refuses those);
#   - each faulty_<name>.so (one bug each) fails as conformance/backends/
#     EXPECTED says: exit 1, at least the expected number of failed cases
#     (errors included), the expected first failing case, and its FAIL/ERROR
#     line containing the expected text; control lines (min 0) must pass,
#     skipping at most the "oob": "clamp" cases and the cases that must be
#     refused for out-of-range indices (outputs of such a case are
#     unspecified, R-IX-5, so check skips a backend that produces them);
#   - every faulty_*.so has a line in EXPECTED and every line a plug-in.
# Quick mode (DMLREF_TEST_QUICK, tests/cli/lib.sh): the backends that must
# pass run on the quick suite, whose cases they must all judge with no skip
# beyond its own; each faulty plug-in runs with --max-failures 1 over its
# first failing case's operator folder (the first failure of a sorted run is
# the first of any selection that holds it): exit 1, that case and its text,
# and no least count.
# Runs from any directory.  Prints one line per backend and ends with
# "N passed, N failed"; exits 1 if any backend did not behave as expected.

set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -ne 2 ]; then
    usage "DMLREF_BINARY BACKENDS_DIR"
fi
take_binary "$1"
backends=$2
if ! [ -d "$backends" ]; then
    echo "$0: $backends is not a folder (conformance/backends/build.sh BUILD_DIR)" >&2
    exit 3
fi

# The plug-ins' suffix: .so, or .dll when BACKENDS_DIR holds Windows ones.
ext=so
if ! [ -f "$backends/reference.so" ] && [ -f "$backends/reference.dll" ]; then
    ext=dll
fi

vectors=$root/vectors
expected=$root/conformance/backends/EXPECTED
total=$(suite_total)
# holding NEEDLE: how many vectors of the suite (the quick one in quick mode) hold NEEDLE
holding() {
    if quick; then
        for folder in $quick_folders; do
            grep -rl --include='*.json' "$1" "$vectors/$folder"
        done | grep -c -v '/large_1m_'
    else
        grep -rl --include='*.json' "$1" "$vectors" | wc -l | tr -d ' '
    fi
}
clamped=$(holding '"oob": "clamp"')
out_of_range=$(holding '"DMLREF_ERROR_INDEX_OUT_OF_RANGE"')
folders=$(printf '%s' "$quick_folders" | tr '\n' ' ' | sed 's/ /, /g')
quick_banner "the controls on the $total vectors of $folders but $quick_exclude; \
each faulty plug-in with --max-failures 1 over its first failing case's operator"

make_tmp backends

# No backend case takes more than a fraction of a second; a hang costs this.
TIMEOUT=30

# passes NAME TEXT: a backend behaved as expected
passes() { ok "$1: $2"; }
# fails NAME TEXT: it did not; shows the first FAIL/ERROR lines of its log
fails() {
    fail "$1: $2"
    if [ -s "$tmp/$1.log" ]; then
        grep -E '^(FAIL|ERROR) ' "$tmp/$1.log" | sed -n '1,3s/^/    | /p'
        show_tail 1 "$tmp/$1.log"
    fi
}

# check NAME [OPTIONS...]: runs dmlref check on BACKENDS_DIR/NAME.$ext over the
# suite; sets rc, summary, n_passed, n_failed, n_skipped, first_line, first.
# In quick mode: over the quick suite, or with $operator set, up to the first
# failure in that operator's folder.
operator=""
check() {
    plugin=$1
    shift
    if ! quick; then
        set -- "$@" "$vectors"
    elif [ -n "$operator" ]; then
        set -- "$@" --max-failures 1 "$vectors/$operator"
    else
        set -- "$@" --exclude "$quick_exclude"
        for folder in $quick_folders; do
            set -- "$@" "$vectors/$folder"
        done
    fi
    "$bin" check --backend "$backends/$plugin.$ext" --timeout "$TIMEOUT" "$@" \
        >"$tmp/$plugin.log" 2>"$tmp/$plugin.err"
    rc=$?
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$tmp/$plugin.log" | tail -n 1)
    if [ -n "$summary" ]; then
        n_passed=$(echo "$summary" | sed 's/ passed.*//')
        n_failed=$(echo "$summary" | sed 's/.* passed, \([0-9]*\) failed.*/\1/')
        n_skipped=$(echo "$summary" | sed 's/.* failed, \([0-9]*\) skipped/\1/')
    else
        n_passed=0 n_failed=0 n_skipped=0
    fi
    first_line=$(grep -E '^(FAIL|ERROR) ' "$tmp/$plugin.log" | head -n 1)
    first=$(echo "$first_line" | sed -E 's/^(FAIL|ERROR) +//; s/: .*//')
}

# A backend that must pass: reference, naive, and the control lines.
#   must_pass NAME MAX_SKIPS WHAT_MAY_SKIP [OPTIONS...]
must_pass() {
    so=$1 max_skips=$2 may_skip=$3
    shift 3
    if ! [ -f "$backends/$so.$ext" ]; then
        fails "$so" "$backends/$so.$ext does not exist"
        return
    fi
    check "$so" "$@"
    if [ "$rc" -ne 0 ]; then
        fails "$so" "exit $rc, expected 0${summary:+ ($summary)}"
    elif [ -z "$summary" ]; then
        fails "$so" "no \"N passed, N failed, N skipped\" line"
    elif [ "$n_failed" -ne 0 ]; then
        fails "$so" "$summary, expected 0 failed"
    elif [ $# -eq 0 ] && [ $((n_passed + n_skipped)) -ne "$total" ]; then
        fails "$so" "$summary: $((n_passed + n_skipped)) cases judged, the suite has $total"
    elif [ $# -eq 0 ] && [ "$n_skipped" -gt "$max_skips" ]; then
        fails "$so" "$summary: more skips than the $max_skips $may_skip"
    else
        passes "$so" "$summary"
    fi
}

clamp_cases="\"oob\": \"clamp\" cases"
must_pass reference "$clamped" "$clamp_cases"
must_pass naive "$clamped" "$clamp_cases"

# The faulty ones, as EXPECTED says.  Fields are TAB-separated; the options
# field is split on spaces, with the shell's globbing off (filters are globs).
set -f
listed=" "
tab=$(printf '\t')
while IFS=$tab read -r name min want_first want_text options; do
    case $name in '' | '#'*) continue ;; esac
    listed="$listed$name "
    so=faulty_$name
    if [ "$min" = 0 ]; then
        # shellcheck disable=SC2086 # options is a word list
        must_pass "$so" $((clamped + out_of_range)) \
            "$clamp_cases and cases refused for out-of-range indices" ${options:-}
        continue
    fi
    if ! [ -f "$backends/$so.$ext" ]; then
        fails "$so" "$backends/$so.$ext does not exist"
        continue
    fi
    if [ "$ext" = dll ] && [ "$want_text" = "signal 11" ]; then
        want_text="exception 0xC0000005" # an access violation's exception code
    fi
    operator=${want_first%%/*}
    # shellcheck disable=SC2086
    check "$so" ${options:-}
    operator=""
    if [ "$rc" -ne 1 ]; then
        fails "$so" "exit $rc, expected 1${summary:+ ($summary)}"
    elif [ -z "$summary" ]; then
        fails "$so" "no \"N passed, N failed, N skipped\" line"
    elif ! quick && [ "$n_failed" -lt "$min" ]; then
        fails "$so" "$summary, expected at least $min failed"
    elif [ "$first" != "$want_first" ]; then
        fails "$so" "first failing case $first, expected $want_first"
    else
        caught="$n_failed failed (at least $min), first"
        quick && caught="stopped at its first failure (--max-failures 1),"
        case $first_line in
        *"$want_text"*) passes "$so" "$caught $first: $want_text" ;;
        *) fails "$so" "the line of $first lacks \"$want_text\": $first_line" ;;
        esac
    fi
done <"$expected"
set +f

# Every faulty plug-in built has a line, and every line a plug-in (checked above).
for so in "$backends"/faulty_*."$ext"; do
    [ -e "$so" ] || continue
    name=$(basename "$so" ".$ext")
    name=${name#faulty_}
    case $listed in
    *" $name "*) ;;
    *) fails "faulty_$name" "no line in conformance/backends/EXPECTED" ;;
    esac
done

finish
