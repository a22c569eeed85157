#!/bin/sh
# Runs cmocka test programs, keeps their full output in LOG, prints what
# failed and one summary line "NAME: N passed, N failed", and writes the two
# counts to SUMMARY.  Exit status 1 if any test failed or a program crashed.
#   [EMULATOR=COMMAND] run_tests.sh NAME LOG SUMMARY PROGRAM...
# EMULATOR, when set, runs each program (words split: "qemu-s390x",
# "/usr/lib/wine/wine64"), for programs built for another machine.
set -u
name=$1 log=$2 summary=$3
shift 3
: >"$log"
status=0
for program in "$@"; do
    # shellcheck disable=SC2086 # EMULATOR is a command and its arguments
    ${EMULATOR:-} "$program" >>"$log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        status=1
        echo "$name: $program failed (exit $rc)" >&2
    fi
done
passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' "$log" | awk '{s += $1} END {print s + 0}')
failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
if [ "$status" != 0 ] || [ "$failed" != 0 ]; then
    grep -E '^\[  (ERROR|FAILED)  \]|ERROR|runtime error|Sanitizer|Failure' "$log" | head -40 >&2
    status=1
fi
echo "$passed $failed" >"$summary"
echo "$name: $passed passed, $failed failed"
exit $status
