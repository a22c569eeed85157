#!/bin/sh
# check_guides.sh [--fix] DMLREF [PAGE...] - the operator guides print what
# the command prints.
#
# In every PAGE (default: docs/operators/*.md) each fenced block whose first
# line is `$ dmlref explain ARGS` or `$ dmlref show ARGS` is run, from the
# repository's root, with the binary DMLREF, and the rest of the block must
# be its standard output exactly, and its exit status 0.  ARGS are words
# made of letters, digits and _ . / , = : [ ] -, single-quoted where they
# hold a space or brackets ('OutputTensor[1, 0]'); nothing else is run.  Any
# other `$ dmlref` block is an error: only explain and show are checked.
# Every path under vectors/ that a page mentions, in a block or in its prose,
# must exist.
#
# Each mismatch is one line, PAGE:LINE: `dmlref ARGS`: what is wrong, then
# for different output a unified diff (- the page, + the command).  The last
# line counts the checks, "N passed, N failed".  Exit 0 when all pass, 1
# when one fails, 2 when there is no page, 3 for a usage error.
#
# --fix writes each differing block's real output into the page instead
# (the blocks whose command fails, and the vector paths, are left as they
# are and still fail); review the result with git diff, then commit.
set -u

usage() {
    echo "usage: sh scripts/check/check_guides.sh [--fix] DMLREF [PAGE...]" >&2
    exit 3
}

fix=0
if [ "${1:-}" = --fix ]; then
    fix=1
    shift
fi
[ $# -ge 1 ] || usage
case $1 in -*) usage ;; esac

here=$(pwd)
absolute() {
    case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$here/$1" ;;
    esac
}

bin=$1
shift
case $bin in */*) bin=$(absolute "$bin") ;; esac
if ! [ -x "$bin" ] && ! command -v "$bin" >/dev/null 2>&1; then
    echo "check_guides: $bin is not an executable" >&2
    exit 3
fi

root=$(cd "$(dirname "$0")/../.." && pwd) || exit 3
pages=""
if [ $# -eq 0 ]; then
    for p in "$root"/docs/operators/*.md; do
        [ -f "$p" ] && pages="$pages
$p"
    done
else
    for p in "$@"; do
        pages="$pages
$(absolute "$p")"
    done
fi
if [ -z "$pages" ]; then
    echo "check_guides: no page: docs/operators/*.md is empty" >&2
    exit 2
fi
cd "$root" || exit 3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmlref-guides.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

passed=0 failed=0 blocks=0 paths=0 fixed=0
pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    printf '%s\n' "$1"
}

# The page's name as the messages give it: relative to the root when inside.
shown() {
    case $1 in
    "$root"/*) printf '%s\n' "${1#"$root"/}" ;;
    *) printf '%s\n' "$1" ;;
    esac
}

# blocks PAGE: one line per `$ dmlref` block, "COMMAND_LINE<TAB>CLOSE_LINE<TAB>ARGS"
# (ARGS after "$ dmlref "), CLOSE_LINE 0 when the fence is never closed.
list_blocks() {
    awk '
        open && /^```[ ]*$/ {
            if (cmd_line) print cmd_line "\t" FNR "\t" cmd
            open = 0; cmd_line = 0; cmd = ""; next
        }
        !open && /^```/ { open = 1; first = 1; next }
        open && first {
            first = 0
            if ($0 ~ /^\$ dmlref( |$)/) { cmd_line = FNR; cmd = substr($0, 10) }
        }
        END { if (open && cmd_line) print cmd_line "\t0\t" cmd }' "$1"
}

# vector_paths PAGE: "LINE<TAB>PATH" for the first mention of each path under vectors/
vector_paths() {
    awk '{
        s = $0
        while (match(s, /vectors\/[A-Za-z0-9_.\/-]+/)) {
            p = substr(s, RSTART, RLENGTH)
            s = substr(s, RSTART + RLENGTH)
            sub(/[.\/]+$/, "", p)
            if (!(p in seen)) { seen[p] = 1; print FNR "\t" p }
        }
    }' "$1"
}

# check_block PAGE NAME LINE CLOSE ARGS: runs one block; on a difference that
# --fix may write, leaves the output in $tmp/fix.LINE.
check_block() {
    b_page=$1 b_name=$2 b_line=$3 b_close=$4 b_args=$5
    b_where="$b_name:$b_line: \`dmlref $b_args\`"
    blocks=$((blocks + 1))
    if [ "$b_close" = 0 ]; then
        fail "$b_where: the block is never closed (\`\`\`)"
        return
    fi
    case $b_args in
    "explain "* | "show "*) ;;
    *)
        fail "$b_where: only \`dmlref explain\` and \`dmlref show\` blocks are checked"
        return
        ;;
    esac
    if printf '%s\n' "$b_args" | grep -q "[^][A-Za-z0-9_./,=:' -]"; then
        fail "$b_where: the command may hold only letters, digits, spaces, ' and _ . / , = : [ ] -"
        return
    fi
    b_quotes=$(printf '%s' "$b_args" | tr -cd "'" | wc -c | tr -d ' ')
    if [ $((b_quotes % 2)) -ne 0 ]; then
        fail "$b_where: a quote is not closed"
        return
    fi
    if [ $((b_close - b_line)) -gt 1 ]; then
        sed -n "$((b_line + 1)),$((b_close - 1))p" "$b_page" >"$tmp/expected"
    else
        : >"$tmp/expected"
    fi
    # the characters were checked above: eval only splits the words, and
    # with globbing off an unquoted [1,0] stays as it is
    set -f
    eval "set -- $b_args"
    set +f
    "$bin" "$@" >"$tmp/actual" 2>"$tmp/stderr" </dev/null
    b_status=$?
    if [ "$b_status" -ne 0 ]; then
        fail "$b_where: exit $b_status, not 0"
        sed 's/^/    | /' "$tmp/stderr"
        return
    fi
    if [ -s "$tmp/actual" ] && [ "$(tail -c 1 "$tmp/actual" | od -An -c | tr -d ' ')" != '\n' ]; then
        fail "$b_where: the output does not end with a newline, so no block can hold it"
        return
    fi
    if grep -q '^```' "$tmp/actual"; then
        fail "$b_where: the output has a line starting with \`\`\`, which would close the block"
        return
    fi
    if cmp -s "$tmp/expected" "$tmp/actual"; then
        pass
        return
    fi
    if [ "$fix" = 1 ]; then
        cp "$tmp/actual" "$tmp/fix.$b_line"
        printf '%s\n' "$b_line $b_close" >>"$tmp/fixes"
        fixed=$((fixed + 1))
        pass
        printf '%s\n' "$b_where: fixed"
        return
    fi
    fail "$b_where: the output differs from the block (sh scripts/check/check_guides.sh --fix $bin)"
    printf -- '--- %s:%s (the page)\n+++ dmlref %s (its output)\n' "$b_name" "$b_line" "$b_args"
    diff -u "$tmp/expected" "$tmp/actual" | sed '1,2d'
}

# apply_fixes PAGE: writes the outputs listed in $tmp/fixes into PAGE's blocks.
apply_fixes() {
    f_next=1
    : >"$tmp/page"
    while read -r f_line f_close; do
        sed -n "${f_next},${f_line}p" "$1" >>"$tmp/page"
        cat "$tmp/fix.$f_line" >>"$tmp/page"
        f_next=$f_close
    done <"$tmp/fixes"
    sed -n "${f_next},\$p" "$1" >>"$tmp/page"
    # beside the page, then renamed over it: the page is whole either way
    cp "$tmp/page" "$1.fix.$$" && mv "$1.fix.$$" "$1"
}

tab=$(printf '\t')
pages_count=0
while IFS= read -r page; do
    [ -n "$page" ] || continue
    pages_count=$((pages_count + 1))
    name=$(shown "$page")
    if ! [ -f "$page" ] || ! [ -r "$page" ]; then
        fail "$name: cannot be read"
        continue
    fi
    : >"$tmp/fixes"
    list_blocks "$page" >"$tmp/blocks"
    while IFS=$tab read -r line close args; do
        check_block "$page" "$name" "$line" "$close" "$args"
    done <"$tmp/blocks"
    if [ -s "$tmp/fixes" ]; then
        apply_fixes "$page"
    fi
    vector_paths "$page" >"$tmp/paths"
    while IFS=$tab read -r line path; do
        paths=$((paths + 1))
        if [ -e "$path" ]; then
            pass
        else
            fail "$name:$line: $path does not exist"
        fi
    done <"$tmp/paths"
done <<EOF
$pages
EOF

summary="check_guides: $pages_count pages, $blocks command blocks, $paths vector paths"
if [ "$fix" = 1 ]; then
    summary="$summary, $fixed blocks fixed"
fi
echo "$summary: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
