# tests/cli/lib.sh - what the shell test scripts share.  Source it once, first
# thing, after `set -u`:
#
#     . "$(dirname "$0")/lib.sh"
#
# (A script whose one argument is the dmlref binary sources
# tests/cli/dmlref_binary.sh instead, which sources this file and sets $bin.)
# Every name below is a shell variable or function; the file's own helper
# variables start with lib_.  A check is one ok or one failure; a script
# ends with `finish`, whose line "N passed, N failed" the Makefile shows
# (scripts/check/last_line.sh).
#
# Counting and reporting
#   passed, failed        the counts so far (0 when sourced)
#   ok [TEXT]             counts a pass; prints "ok   TEXT" when TEXT is given
#   fail TEXT             counts a failure; prints "FAIL TEXT"
#   bad TEXT [FILE...]    fail TEXT, then show_head FILE...
#   show_head FILE...     the first 6 lines of each non-empty FILE, as "    | ..."
#   show_tail N FILE      the last N lines of FILE, as "    | ..."
#   finish [LABEL]        prints "[LABEL: ]N passed, N failed"; exits 1 when a
#                         check failed, else 0
#
# Assertions (NAME labels the check in a failure's line)
#   expect_exit NAME WANT [FILE...]
#                         0 when $rc (the status of the last run_command) is
#                         WANT; otherwise a failure (showing FILE...) and 1.
#                         A met status counts nothing: the checks of the
#                         output that follow it count, e.g.
#                         expect_exit x 0 && expect_output_contains ...
#   expect_output_contains LABEL FILE TEXT [SHOW...]
#                         a pass when FILE contains TEXT (literally), else the
#                         failure "LABEL lacks "TEXT"" showing SHOW... (FILE
#                         when none)
#
# Running commands
#   run_command NAME LIMIT COMMAND [ARG...]
#                         runs COMMAND (under `timeout LIMIT` seconds unless
#                         LIMIT is ""), stdout in $tmp/NAME.out, stderr in
#                         $tmp/NAME.err, its status in $rc.  Returns 1, with
#                         a failure, when it hung (killed at LIMIT) or wrote a
#                         sanitizer report; else 0.
#   sanitizer_report FILE...
#                         0 when a FILE holds a sanitizer report ("Sanitizer",
#                         "runtime error")
#
# Set-up
#   usage ARGUMENTS       "usage: $0 ARGUMENTS" on stderr, exit 3
#   take_binary BINARY    $bin: BINARY, an executable file (made absolute) or a
#                         command on PATH; otherwise says so and exits 3
#   make_tmp NAME         $tmp: a new folder ${TMPDIR:-/tmp}/dmlref-NAME.XXXXXX,
#                         removed on exit (a script with more to clean sets its
#                         own EXIT trap after); INT, TERM and HUP exit 130
#   root                  the repository's root folder (absolute)

# shellcheck disable=SC2034 # the scripts use what this file sets
passed=0 failed=0 rc=0 bin="" tmp=""
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 3

# shellcheck disable=SC2120 # TEXT is optional
ok() {
    passed=$((passed + 1))
    if [ $# -gt 0 ]; then
        printf 'ok   %s\n' "$1"
    fi
    return 0
}

fail() {
    failed=$((failed + 1))
    printf 'FAIL %s\n' "$1"
    return 0
}

show_head() {
    for lib_file in "$@"; do
        if [ -s "$lib_file" ]; then
            sed -n '1,6s/^/    | /p' "$lib_file"
        fi
    done
    return 0
}

show_tail() {
    if [ -s "$2" ]; then
        tail -n "$1" "$2" | sed 's/^/    | /'
    fi
    return 0
}

bad() {
    fail "$1"
    shift
    show_head "$@"
}

finish() {
    printf '%s%s passed, %s failed\n' "${1:+$1: }" "$passed" "$failed"
    [ "$failed" -eq 0 ] && exit 0
    exit 1
}

expect_exit() {
    lib_name=$1 lib_want=$2
    shift 2
    if [ "$rc" -eq "$lib_want" ]; then
        return 0
    fi
    bad "$lib_name: exit $rc, not $lib_want" "$@"
    return 1
}

expect_output_contains() {
    lib_label=$1 lib_file=$2 lib_text=$3
    shift 3
    if grep -F -q -e "$lib_text" "$lib_file" 2>/dev/null; then
        ok
        return 0
    fi
    if [ $# -eq 0 ]; then
        set -- "$lib_file"
    fi
    bad "$lib_label lacks \"$lib_text\"" "$@"
    return 1
}

sanitizer_report() {
    grep -q -e Sanitizer -e 'runtime error' "$@" 2>/dev/null
}

run_command() {
    lib_name=$1 lib_limit=$2
    shift 2
    if [ -n "$lib_limit" ]; then
        timeout "$lib_limit" "$@" >"$tmp/$lib_name.out" 2>"$tmp/$lib_name.err"
        rc=$?
        if [ "$rc" -eq 124 ]; then
            bad "$lib_name: \`$*\` hung (killed after $lib_limit s)" "$tmp/$lib_name.err"
            return 1
        fi
    else
        "$@" >"$tmp/$lib_name.out" 2>"$tmp/$lib_name.err"
        rc=$?
    fi
    if sanitizer_report "$tmp/$lib_name.out" "$tmp/$lib_name.err"; then
        bad "$lib_name: sanitizer report" "$tmp/$lib_name.err"
        return 1
    fi
    return 0
}

usage() {
    echo "usage: $0 $1" >&2
    exit 3
}

take_binary() {
    bin=$1
    if ! [ -x "$bin" ] && ! command -v "$bin" >/dev/null 2>&1; then
        echo "$0: $bin is not an executable" >&2
        exit 3
    fi
    case $bin in
    */*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;;
    esac
}

make_tmp() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmlref-$1.XXXXXX") || exit 3
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 130' INT TERM HUP
}
