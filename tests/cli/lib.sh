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
#
# Quick mode: DMLREF_TEST_QUICK set and not empty (make check-quick; the name
# the unit tests read).  A script then runs a check on part of the suite where
# its point does not need all of it, and its first line, "# quick mode ...",
# says what it runs lighter; without the variable every check runs as written.
# The quick suite: the folders quick_folders of vectors/,
#   gather_elements/float32     most must-refuse cases
#   gather_elements/int64       64-bit data, refused below feature level 4_1
#   gather_nd/float16           float16; clamped and out-of-range indices
#   gather_nd1/uint8            must-refuse cases, one of them refused as an
#                               unsupported operator
#   nonzero_coordinates/float16 and float32: the subnormals of the permitted
#                               variant; must-refuse cases
#   scatter_elements/int32      duplicate targets (any_of); clamped and
#                               out-of-range indices
# less quick_exclude, the cases of 1M elements, whose requests a process
# backend takes seconds to read (the checks about them name them).
#   quick                 status 0 in quick mode
#   quick_banner TEXT     in quick mode, prints "# quick mode (DMLREF_TEST_QUICK): TEXT"
#   suite_paths [ARG...]  the words that stand for vectors/ in
#                         `dmlref check ARG... vectors`, relative to the root:
#                         "vectors" in full mode.  In quick mode, for each
#                         --filter pattern of ARG, the folder of vectors/ its
#                         text names before its first special character, where
#                         that folder is inside a quick folder or outside them
#                         all (the same cases as in full mode: a case's name is
#                         its path in vectors/), else the quick folders it can
#                         match; with no --filter, the quick folders.
#   suite_run COMMAND [ARG...]
#                         runs COMMAND ARG... with each ARG that is "vectors"
#                         replaced by suite_paths ARG... (in the root folder),
#                         after --exclude "$quick_exclude" in quick mode unless
#                         an ARG names a 1M-element case
#   suite_total           the number of vectors of the suite (the quick one)

# shellcheck disable=SC2034 # the scripts use what this file sets
passed=0 failed=0 rc=0 bin="" tmp=""
quick_folders="gather_elements/float32 gather_elements/int64 gather_nd/float16 gather_nd1/uint8
nonzero_coordinates/float16 nonzero_coordinates/float32 scatter_elements/int32"
quick_exclude='*/large_1m_*'
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

quick() {
    [ -n "${DMLREF_TEST_QUICK:-}" ]
}

quick_banner() {
    if quick; then
        printf '# quick mode (DMLREF_TEST_QUICK): %s\n' "$1"
    fi
    return 0
}

suite_paths() {
    lib_suite_paths "$@"
    echo "$lib_paths"
}

# lib_suite_paths ARG...: suite_paths in $lib_paths (few processes: it runs
# before every dmlref check of quick mode)
lib_suite_paths() {
    if ! quick; then
        lib_paths=vectors
        return 0
    fi
    lib_found="" lib_all=no lib_filtered=no lib_next=no
    for lib_arg in "$@"; do
        if [ "$lib_next" = no ]; then
            [ "$lib_arg" = --filter ] && lib_next=yes lib_filtered=yes
            continue
        fi
        lib_next=no
        # the pattern's folder: its text before the first special character,
        # up to the last /
        lib_dir=${lib_arg%%[][*?\\]*}
        case $lib_dir in
        */*) lib_dir=${lib_dir%/*} ;;
        *)
            lib_all=yes
            continue
            ;;
        esac
        lib_named=no
        for lib_quick in $quick_folders; do
            case $lib_dir/ in
            "$lib_quick"/*) lib_found="$lib_found $lib_dir" lib_named=yes ;;
            esac
            case $lib_quick in
            "$lib_dir"/*) lib_found="$lib_found $lib_quick" lib_named=yes ;;
            esac
        done
        if [ "$lib_named" = no ]; then
            if [ -d "$root/vectors/$lib_dir" ]; then lib_found="$lib_found $lib_dir"
            else lib_all=yes; fi
        fi
    done
    lib_sorted=no
    if [ "$lib_all" = yes ] || [ "$lib_filtered" = no ]; then
        [ -z "$lib_found" ] && lib_sorted=yes
        lib_found="$lib_found $quick_folders"
    fi
    # each folder once, none inside another, in the files' order (sorted,
    # as dmlref takes its paths in the order given)
    # shellcheck disable=SC2086 # one folder a word
    set -- $lib_found
    if [ $# -gt 1 ] && [ "$lib_sorted" = no ]; then
        # shellcheck disable=SC2046,SC2086
        set -- $(printf '%s\n' $lib_found | LC_ALL=C sort -u)
    fi
    lib_paths=""
    for lib_dir in "$@"; do
        lib_inside=no
        for lib_other in $lib_found; do
            case $lib_dir in "$lib_other"/*) lib_inside=yes ;; esac
        done
        [ "$lib_inside" = no ] && lib_paths="$lib_paths vectors/$lib_dir"
    done
    lib_paths=${lib_paths# }
}

suite_run() {
    if ! quick; then
        "$@"
        return
    fi
    lib_suite_paths "$@"
    lib_exclude="--exclude $quick_exclude"
    for lib_arg in "$@"; do
        case $lib_arg in *large_1m_*) lib_exclude="" ;; esac
    done
    case $- in *f*) lib_noglob=yes ;; *) lib_noglob=no ;; esac
    set -f
    for lib_arg in "$@"; do
        shift
        if [ "$lib_arg" = vectors ]; then
            # shellcheck disable=SC2086 # words without blanks, not expanded
            set -- "$@" $lib_exclude $lib_paths
        else
            set -- "$@" "$lib_arg"
        fi
    done
    [ "$lib_noglob" = yes ] || set +f
    "$@"
}

suite_total() {
    if ! quick; then
        wc -l <"$root/vectors/MANIFEST" | tr -d ' '
        return 0
    fi
    # shellcheck disable=SC2086 # one folder a word
    printf '%s/\n' $quick_folders | sed 's/^/  /' | grep -F -f - "$root/vectors/MANIFEST" |
        grep -c -v '/large_1m_'
}
