#!/bin/sh
# Runs a test command, keeps its whole output in LOG, prints its last line
# (the summary), and exits with the command's status; on failure it also
# prints the log's last 30 lines.
#   last_line.sh LABEL LOG COMMAND [ARG...]
label=$1 log=$2
shift 2
"$@" >"$log" 2>&1
status=$?
printf '%s: %s\n' "$label" "$(tail -n 1 "$log")"
if [ "$status" != 0 ]; then
    echo "$label: FAILED (exit $status); the end of $log:" >&2
    tail -n 30 "$log" >&2
fi
exit "$status"
