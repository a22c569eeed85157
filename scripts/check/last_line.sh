#!/bin/sh
# Runs a test command, keeps its whole output in LOG, prints its last line
# (the summary), and exits with the command's status; on failure it also
# prints the log's last 30 lines.  When DMLREF_CHECK_TOTALS names a file
# (make check's), the counts of a last line "... N passed, N failed ..." are
# added to it, and a failure whose last line has none counts as one failed.
#   last_line.sh LABEL LOG COMMAND [ARG...]
label=$1 log=$2
shift 2
"$@" >"$log" 2>&1
status=$?
last=$(tail -n 1 "$log")
printf '%s: %s\n' "$label" "$last"
if [ -n "${DMLREF_CHECK_TOTALS:-}" ]; then
    counts=$(printf '%s\n' "$last" | sed -n 's/.*\b\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1 \2/p')
    if [ -z "$counts" ] && [ "$status" != 0 ]; then
        counts="0 1"
    fi
    [ -z "$counts" ] || echo "$counts" >>"$DMLREF_CHECK_TOTALS"
fi
if [ "$status" != 0 ]; then
    echo "$label: FAILED (exit $status); the end of $log:" >&2
    tail -n 30 "$log" >&2
fi
exit "$status"
