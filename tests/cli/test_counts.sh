#!/bin/sh
# test_counts.sh - scripts/check/check_counts.sh fails, naming the page, the
# line and both numbers, on a page whose count is wrong (a number, a word, a
# run's count, a count no claim expected, an operator table, the build's
# package list), and on a page that no longer says what a claim looks for;
# --fix writes the real number back.  The pages are copies, first given
# their real numbers (--fix) so that these checks hold whatever the
# repository's pages say, then doctored in a tree whose other folders are the
# repository's own.  Last, the repository's own pages pass (make
# check-guides runs this).
#   test_counts.sh
# shellcheck disable=SC2016 # the pages' backquotes are Markdown, not commands
set -u
. "$(dirname "$0")/lib.sh"
make_tmp counts
checker="$root/scripts/check/check_counts.sh"

tree=$tmp/tree
mkdir -p "$tree"
cp "$root/README.md" "$root/HACKING.md" "$tree/"
cp -R "$root/docs" "$tree/docs"
for d in include src scripts vectors; do
    ln -s "$root/$d" "$tree/$d"
done
vectors=$(wc -l <"$root/vectors/MANIFEST" | tr -d ' ')
sh "$checker" --fix "$tree" >/dev/null
base=$tmp/base
mkdir -p "$base"
cp -R "$tree/README.md" "$tree/docs" "$base/"

# doctor PAGE SED_SCRIPT: the right PAGE, edited, into the tree
doctor() {
    sed -E "$2" "$base/$1" >"$tree/$1"
    if cmp -s "$base/$1" "$tree/$1"; then
        fail "doctoring $1 changed nothing: $2"
    fi
}
# restore PAGE: the right PAGE again
restore() { cp "$base/$1" "$tree/$1"; }
line_of() { grep -n -e "$2" "$tree/$1" | head -n 1 | cut -d: -f1; }

# Faults on several pages at once: each is reported, on its own line, and
# counts one failed check.
doctor README.md 's/^( *)[0-9,]+ of them under/\19,999 of them under/
                  s/^(\| `SCATTER_ELEMENTS`.*\| )94( \|)/\195\2/
                  /^apt-get install /s/ libc6-dev//'
digits_at=$(line_of README.md '9,999 of them under')
packages_at=$(line_of README.md '^apt-get install ')
doctor docs/rules.md 's/implements [a-z]+ DirectML operator/implements six DirectML operator/'
words_at=$(line_of docs/rules.md 'implements six DirectML')
doctor docs/directml.md 's/^`[0-9]+ passed, /`1 passed, /'
run_at=$(line_of docs/directml.md '^`1 passed, ')
printf '\nThe suite holds 7 vectors.\n' >>"$tree/docs/loaders.md"
unclaimed_at=$(wc -l <"$tree/docs/loaders.md" | tr -d ' ')
run_command wrong 60 sh "$checker" "$tree"
if expect_exit "wrong counts" 1 "$tmp/wrong.out"; then
    expect_output_contains "the suite's size in digits" "$tmp/wrong.out" \
        "README.md:$digits_at: states 9,999 vectors, the real number is $vectors (vectors/MANIFEST)"
    expect_output_contains "a count in words" "$tmp/wrong.out" \
        "docs/rules.md:$words_at: states six operators, the real number is"
    expect_output_contains "a committed run's count" "$tmp/wrong.out" \
        "docs/directml.md:$run_at: states 1 passed, the real number is"
    expect_output_contains "a count no claim expected" "$tmp/wrong.out" \
        "docs/loaders.md:$unclaimed_at: states 7 vectors, the real number is $vectors"
    expect_output_contains "an operator's number in a table" "$tmp/wrong.out" \
        "SCATTER_ELEMENTS's DML_OPERATOR_TYPE is not 94 (include/dmlref.h)"
    expect_output_contains "a package left out" "$tmp/wrong.out" \
        "README.md:$packages_at: installs gcc libjansson-dev"
    expect_output_contains "a package left out" "$tmp/wrong.out" \
        "scripts/build/install_deps.sh's build group is gcc libc6-dev"
    expect_output_contains "wrong counts" "$tmp/wrong.out" ", 6 failed"
fi

# --fix writes the real numbers, and only there
restore README.md
restore docs/loaders.md
doctor README.md 's/^( *)[0-9,]+ of them under/\19,999 of them under/'
run_command fix 60 sh "$checker" --fix "$tree"
if expect_exit "--fix" 0 "$tmp/fix.out" && cmp -s "$base/README.md" "$tree/README.md" &&
   cmp -s "$base/docs/rules.md" "$tree/docs/rules.md" &&
   cmp -s "$base/docs/directml.md" "$tree/docs/directml.md"; then
    ok "--fix restores the pages"
else bad "--fix: the pages are not the repository's" "$tmp/fix.out"; fi

# a sentence rephrased: the claim no longer finds its wording
doctor README.md 's/ of them under `vectors\/`/ of them, in `vectors\/`/'
run_command rephrased 60 sh "$checker" "$tree"
expect_exit "a rephrased count" 1 "$tmp/rephrased.out" &&
    expect_output_contains "a rephrased count" "$tmp/rephrased.out" "README.md: no longer says"
restore README.md

# usage
run_command usage 30 sh "$checker" "$tree" "$tree"
expect_exit "two roots" 3 "$tmp/usage.err"

# the repository's own pages
run_command own 60 sh "$checker"
if expect_exit "the repository's pages" 0; then
    expect_output_contains "the repository's pages" "$tmp/own.out" ", 0 failed"
else
    sed 's/^/    | /' "$tmp/own.out"
fi

finish
