#!/bin/sh
# check_style.sh [--fix] - the tree follows .clang-format (C, and C++) and
# .editorconfig (every text file: UTF-8 without trailing blanks, a final
# newline, spaces for indentation but in Makefiles, C lines of at most 100
# columns).  Prints FILE:LINE: what is wrong, and exits 1 on any.  --fix
# reformats the C files in place (then commit).
#
# Left out: the generated suite (vectors/), files malformed on purpose
# (tests/cli/malformed/, the fuzzers' inputs), npm's packages (node_modules) and images.
set -eu
cd "$(dirname "$0")/../.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}

c_files=$(find include src reference conformance tests docs/examples scripts \( -name '*.[ch]' -o -name '*.cpp' \) \
          ! -path 'tests/cli/malformed/*' ! -path '*/node_modules/*' | sort)
text_files=$(find . -path ./build -prune -o -path ./.git -prune -o -path ./vectors -prune -o \
             -path ./tests/cli/malformed -prune -o -path ./tests/fuzz/regressions -prune -o \
             -name node_modules -prune -o -type f \
             \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.sh' -o -name '*.py' -o -name '*.mjs' \
                -o -name '*.md' -o -name '*.json' -o -name '*.toml' -o -name '*.cmake.in' \
                -o -name 'CMakeLists.txt' -o -name 'Makefile' -o -name '.clang-format' \
                -o -name '.editorconfig' -o -name 'run' \) -print | sed 's|^\./||' | sort)
# the hand-written files of vectors/
text_files="$text_files
vectors/FORMAT.md
vectors/schema.json"

command -v "$CLANG_FORMAT" >/dev/null 2>&1 || {
    echo "check-style: $CLANG_FORMAT not found (Debian: clang-format; sh scripts/build/install_deps.sh)" >&2
    exit 2
}

if [ "${1:-}" = --fix ]; then
    # shellcheck disable=SC2086
    "$CLANG_FORMAT" -i --style=file $c_files
    echo "check-style: formatted $(echo "$c_files" | wc -l | tr -d ' ') C files"
    exit 0
fi

problems=$(mktemp)
trap 'rm -f "$problems"' EXIT

# shellcheck disable=SC2086
"$CLANG_FORMAT" --style=file --dry-run $c_files 2>&1 |
    sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: \(warning\|error\): code should be clang-formatted.*/\1/p' |
    sort -u | sed 's/$/: not formatted as .clang-format says (sh scripts\/check_style.sh --fix)/' \
    >> "$problems"

# shellcheck disable=SC2086
LC_ALL=C.UTF-8 awk '
    FNR == 1 { c_file = FILENAME ~ /\.([ch]|cpp)$/; tabs_ok = FILENAME ~ /(^|\/)Makefile$/ }
    /[ \t]$/ { print FILENAME ":" FNR ": trailing blanks" }
    !tabs_ok && /^ *\t/ { print FILENAME ":" FNR ": a tab indents" }
    c_file && length($0) > 100 { print FILENAME ":" FNR ": " length($0) " columns, more than 100" }
    /\r$/ { print FILENAME ":" FNR ": a carriage return" }' $text_files >> "$problems"
# the last bytes of all files at once; a file at a time only to name one
# shellcheck disable=SC2086
if [ -n "$(tail -q -c 1 $text_files | tr -d '\n')" ]; then
    for f in $text_files; do
        if [ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ]; then
            echo "$f: no newline at the end" >> "$problems"
        fi
    done
fi

if [ -s "$problems" ]; then
    cat "$problems"
    echo "check-style: $(wc -l < "$problems" | tr -d ' ') problems" >&2
    exit 1
fi
echo "check-style: $(echo "$c_files" | wc -l | tr -d ' ') C files as .clang-format says;" \
     "$(echo "$text_files" | wc -l | tr -d ' ') text files as .editorconfig says"
