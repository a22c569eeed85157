#!/bin/sh
# docs/directml.md shows what make check-directml prints: every line of the
# block after its marker "<!-- the lines make check-directml prints -->" is a
# line of LOG (the suite's log), in the same order; and the comparison fails
# on a copy of LOG that lacks one of them.
#   test_directml_page.sh LOG
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
[ $# -eq 1 ] || usage "LOG"
make_tmp directml-page
log=$1
page=$root/docs/directml.md

awk '/<!-- the lines make check-directml prints -->/ { marked = 1; next }
     marked && /^```/ { if (inside) exit; inside = 1; next }
     inside { print }' "$page" >"$tmp/block"
if ! [ -s "$tmp/block" ]; then
    fail "docs/directml.md has no block after its marker"
    finish "docs/directml.md against make check-directml"
fi
# in_order BLOCK LOG: each line of BLOCK, in order, among LOG's lines
in_order() {
    awk 'NR == FNR { want[++n] = $0; next }
         i < n && $0 == want[i + 1] { ++i }
         END { if (i < n) { print "missing: " want[i + 1]; exit 1 } }' "$1" "$2"
}
if in_order "$tmp/block" "$log" >"$tmp/missing"; then
    ok "docs/directml.md: the $(wc -l <"$tmp/block") lines of its block are in $log, in order"
else
    bad "docs/directml.md shows a line that $log lacks" "$tmp/missing"
fi
grep -vxF "$(tail -n 1 "$tmp/block")" "$log" >"$tmp/doctored"
if in_order "$tmp/block" "$tmp/doctored" >"$tmp/missing"; then
    fail "the comparison passes a log that lacks the block's last line"
else
    ok "the comparison fails on a log that lacks the block's last line"
fi
finish "docs/directml.md against make check-directml"
