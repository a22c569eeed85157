#!/bin/sh
# tests/cli/test_checkout.sh DMLREF_BINARY
#
# A checkout made as Windows' git makes it by default (core.autocrlf=true)
# still holds the golden suite byte for byte: dmlref verify checks every
# vector against vectors/MANIFEST's digests, and the text files keep their
# LF line ends.  The clone is of the committed HEAD of this repository.  The
# check is shown to fail on a checkout without .gitattributes, where git
# writes CRLF and every digest breaks.
set -u

# shellcheck source=tests/cli/dmlref_binary.sh
. "$(dirname "$0")/dmlref_binary.sh"
make_tmp checkout

if ! git -C "$root" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    fail "$root is not a git repository with a commit: nothing to clone"
    finish
fi

# crlf_files DIR: how many text files below DIR (but .git) have a carriage return
crlf_files() {
    grep -rlI --exclude-dir=.git "$(printf '\r')" "$1" 2>/dev/null | wc -l | tr -d ' '
}

# verify_checkout NAME DIR: dmlref verify of DIR/vectors, its summary line
verify_checkout() {
    run "$1" verify "$2/vectors"
    tail -n 1 "$tmp/$1.out"
}

git clone -q -c core.autocrlf=true --depth 1 "file://$root" "$tmp/crlf" 2>"$tmp/clone.err" ||
    { bad "git clone with core.autocrlf=true failed" "$tmp/clone.err"; finish; }

n=$(crlf_files "$tmp/crlf")
if [ "$n" = 0 ]; then
    ok "a core.autocrlf=true checkout has no CRLF in any file"
else
    fail "a core.autocrlf=true checkout has CRLF in $n files"
fi
summary=$(verify_checkout verify_crlf "$tmp/crlf")
manifest=$(grep -c . "$tmp/crlf/vectors/MANIFEST")
if [ "$rc" = 0 ] && [ -n "$manifest" ] && [ "$manifest" -gt 0 ]; then
    ok "dmlref verify of the core.autocrlf=true checkout: $summary (MANIFEST: $manifest lines)"
else
    bad "dmlref verify of the core.autocrlf=true checkout: exit $rc" "$tmp/verify_crlf.out" \
        "$tmp/verify_crlf.err"
fi

# The same checkout without .gitattributes (git falls back on the index's copy,
# so it goes from both): git converts, and verify fails.
(cd "$tmp/crlf" && git rm -q --cached .gitattributes && rm -rf .gitattributes vectors &&
    git checkout -- vectors) \
    2>"$tmp/reset.err" || { bad "cannot check out again without .gitattributes" "$tmp/reset.err"; finish; }
n=$(crlf_files "$tmp/crlf/vectors")
if [ "$n" -gt 0 ]; then
    ok "without .gitattributes the checkout has CRLF in $n files of vectors/"
else
    fail "without .gitattributes the checkout has no CRLF: the check above proves nothing"
fi
verify_checkout verify_lf_lost "$tmp/crlf" >/dev/null
if [ "$rc" = 2 ] && grep -q 'ends in a carriage return (CRLF)' "$tmp/verify_lf_lost.err"; then
    ok "dmlref verify refuses the checkout without .gitattributes: its MANIFEST has CRLF line ends"
else
    bad "dmlref verify of the CRLF checkout: exit $rc, wanted 2 and MANIFEST's CRLF named" \
        "$tmp/verify_lf_lost.out" "$tmp/verify_lf_lost.err"
fi
finish
