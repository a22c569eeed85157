#!/bin/sh
# tests/cli/test_malformed.sh DMLREF_BINARY
#
# Every malformed vector of tests/cli/malformed/ must be refused properly: for
# each line "FILE<TAB>JSON_PATH<TAB>SUBSTRING[<TAB>MODES]" of
# tests/cli/malformed/EXPECTED, `DMLREF_BINARY MODE tests/cli/malformed/FILE` (MODE:
# verify and eval unless MODES says otherwise) must
#   - exit with exactly 2 (bad input);
#   - write exactly one line to stderr: "FILE: JSON_PATH: ..." (verify puts
#     its "FAIL " before it), FILE being the path given on the command line,
#     containing SUBSTRING;
#   - write no sanitizer report ("Sanitizer", "runtime error");
#   - write "0 passed, 1 failed, 0 skipped" to stdout (verify) or nothing (eval).
# It also checks that EXPECTED and the folder agree: every file is listed (or
# marked "# KNOWN:"), every listed file exists, no two files are the same bytes.
# Ends with "N passed, N failed"; exits 1 if any check failed.
# (tests/cli/test_cli.sh checks the command on good input.)

set -u

# shellcheck source=tests/cli/dmlref_binary.sh
. "$(dirname "$0")/dmlref_binary.sh" # tests/cli/lib.sh, and $bin

dir=$root/tests/cli/malformed
expected=$dir/EXPECTED
tab=$(printf '\t')

make_tmp malformed

# A sanitizer build of dmlref uses LLVM's OpenMP runtime, whose thread
# buffers LeakSanitizer would report (the project's suppression file).
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/unit/lsan.supp}
export LSAN_OPTIONS

if ! [ -f "$expected" ]; then
    echo "$0: $expected is missing" >&2
    exit 1
fi

# ---- EXPECTED and the folder agree ------------------------------------------

# the files named by EXPECTED: FILE lines and "# KNOWN: FILE: ..." lines
grep -v '^#' "$expected" | grep -v '^$' | cut -f1 | sort -u >"$tmp/listed"
sed -n 's/^# KNOWN: \([^:]*\): .*/\1/p' "$expected" | sort -u >"$tmp/known"
sort -u "$tmp/listed" "$tmp/known" >"$tmp/named"
(cd "$dir" && ls -A) | grep -v '^EXPECTED$' | sort >"$tmp/present"

missing=$(comm -13 "$tmp/present" "$tmp/named")
if [ -z "$missing" ]; then ok; else bad "EXPECTED names files that are not in tests/cli/malformed: $(echo "$missing" | tr "\n" " ")"; fi
unlisted=$(comm -23 "$tmp/present" "$tmp/named")
if [ -z "$unlisted" ]; then ok; else bad "files of tests/cli/malformed not in EXPECTED: $(echo "$unlisted" | tr "\n" " ")"; fi
both=$(comm -12 "$tmp/listed" "$tmp/known")
if [ -z "$both" ]; then ok; else bad "files both checked and marked KNOWN: $(echo "$both" | tr "\n" " ")"; fi

malformed_lines=$(grep -v '^#' "$expected" | grep -v '^$' | awk -F "$tab" 'NF < 3 || NF > 4 || $2 !~ /^\$/ || $3 == ""')
if [ -z "$malformed_lines" ]; then ok; else bad "EXPECTED lines not FILE<TAB>\$PATH<TAB>SUBSTRING[<TAB>MODES]: $malformed_lines"; fi

# one mistake per file: no two files alike
dupes=$( (cd "$dir" && cksum -- *) | awk '{print $1, $2}' | sort | uniq -d)
if [ -z "$dupes" ]; then ok; else bad "tests/cli/malformed holds files with the same bytes (cksum $dupes)"; fi

# ---- every listed file is refused properly ------------------------------------

# one_line FILE: $line holds FILE's one line when FILE is exactly one
# newline-ended line (shell built-ins: this runs hundreds of times)
one_line() {
    { IFS= read -r line && ! IFS= read -r extra && [ -z "$extra" ]; } <"$1"
}

check() { # MODE FILE JSON_PATH SUBSTRING
    c_mode=$1 c_file=$dir/$2 c_path=$3 c_substring=$4 what="$1 $2"
    "$bin" "$c_mode" "$c_file" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$c_mode" = verify ]; then prefix="FAIL $c_file: $c_path: "; else prefix="$c_file: $c_path: "; fi
    if sanitizer_report "$tmp/out" "$tmp/err"; then
        bad "$what: sanitizer report (exit $rc)" "$tmp/out" "$tmp/err"
    elif [ "$rc" -ne 2 ]; then
        bad "$what: exit $rc, not 2" "$tmp/out" "$tmp/err"
    elif ! one_line "$tmp/err"; then
        bad "$what: stderr is not one line" "$tmp/err"
    else
        message=$line
        case $message in
        "$prefix"*)
            case $message in
            *"$c_substring"*)
                if [ "$c_mode" = verify ]; then
                    if one_line "$tmp/out" && [ "$line" = "0 passed, 1 failed, 0 skipped" ]; then
                        ok
                    else
                        bad "$what: stdout is not \"0 passed, 1 failed, 0 skipped\"" "$tmp/out"
                    fi
                elif [ -s "$tmp/out" ]; then
                    bad "$what: eval wrote to stdout" "$tmp/out"
                else
                    ok
                fi
                ;;
            *) bad "$what: the message lacks \"$c_substring\"" "$tmp/err" ;;
            esac
            ;;
        *) bad "$what: the message does not start with \"$prefix\"" "$tmp/err" ;;
        esac
    fi
}

lines=0
while IFS=$tab read -r file path substring modes; do
    case $file in '' | '#'*) continue ;; esac
    lines=$((lines + 1))
    if ! [ -f "$dir/$file" ]; then
        continue # reported above
    fi
    for mode in ${modes:-verify eval}; do
        case $mode in
        verify | eval) check "$mode" "$file" "$path" "$substring" ;;
        *) bad "EXPECTED: $file: unknown mode \"$mode\"" ;;
        esac
    done
done <"$expected"

known=$(wc -l <"$tmp/known" | tr -d ' ')
files=$(wc -l <"$tmp/present" | tr -d ' ')
echo "test_malformed: $files files, $lines EXPECTED lines; $known marked KNOWN in EXPECTED (not run)"
finish
