#!/bin/sh
# Every rule id and decision catalogued in docs/rules.md must be named by at
# least one test in tests/ (in a test name or a comment).  Prints the ones
# that are not and fails; otherwise prints how many were found.
set -eu
cd "$(dirname "$0")/../.."

ids=$(sed -n 's/^| \(R-[A-Z]*-[0-9]*\|D[0-9]*\) |.*/\1/p' docs/rules.md)
[ -n "$ids" ] || { echo "check_rule_coverage: no rule ids found in docs/rules.md" >&2; exit 1; }

total=0
missing=""
for id in $ids; do
    total=$((total + 1))
    # an id must stand alone: D1 is not found inside D10, nor R-GE-1 in R-GE-10
    if ! grep -Eq "(^|[^A-Za-z0-9-])$id([^0-9]|$)" tests/unit/*.c; then
        missing="$missing $id"
    fi
done

if [ -n "$missing" ]; then
    echo "check_rule_coverage: named by no test:$missing" >&2
    exit 1
fi
echo "check_rule_coverage: all $total rule ids and decisions are named by tests"
