#!/bin/sh
# check_counts.sh [--fix] [ROOT] - every count the pages state is the real one.
#
# The pages (README.md, HACKING.md, docs/*.md, docs/operators/*.md,
# docs/playground/README.md, vectors/FORMAT.md; not docs/performance.md,
# docs/conformance.md and docs/conformance/, whose numbers are runs of their
# own, but for the suite's size in docs/conformance/README.md) count things the repository holds: the suite's vectors, the operators,
# the data types, the feature levels, the decisions of docs/rules.md, what a
# committed run gave.  Each number is computed here from its source, and
# every statement of it, found by its wording (the claims below), must say
# that number:
#
#   vectors/MANIFEST        the suite's vectors
#   vectors/README.md       the refusals by status (written by dmlref gen)
#   vectors/*/              the vectors under "oob": "clamp"
#   src/core/operators.c    the operators, in the table's order, and their
#                           first feature levels; include/dmlref.h their
#                           DirectML numbers, the data types, the levels
#   docs/rules.md           the decisions (D1 to Dn)
#   docs/conformance/*.json the counts of a committed run ("summary")
#   docs/directml.md        its block of what make check-directml prints
#                           (tests/cross/test_directml_page.sh holds it)
#   docs/fuzz.md            its example run (tests/cli/test_fuzz.sh holds it)
#   docs/operators/*.md     the vectors the guides name
#   scripts/check/directml_suite.sh  the DirectML leg's fuzz seeds and cases
#   scripts/build/install_deps.sh    its "build" group, which README.md lists
#
# A statement that disagrees is one line, FILE:LINE: states N WHAT, the real
# number is M (SOURCE).  A claim whose wording is no longer on its page fails
# too, so a sentence rephrased is looked at again here.  Any other number
# written before "vectors", "operators" or "data types" on a page must be the
# suite's, the operators' or the data types' count.  The last line counts the
# checks, "N passed, N failed".  Exit 0 when all pass, 1 when one fails, 3 for
# a usage error.
#
# --fix writes the real number into each statement that disagrees (a table,
# a list or the package list it only reports); review with git diff.
# shellcheck disable=SC2016 # the claims' backquotes are Markdown's, not commands
set -u

usage() {
    echo "usage: sh scripts/check/check_counts.sh [--fix] [ROOT]" >&2
    exit 3
}
fix=0
if [ "${1:-}" = --fix ]; then
    fix=1
    shift
fi
[ $# -le 1 ] || usage
case ${1:-} in -*) usage ;; esac
root=${1:-$(dirname "$0")/../..}
cd "$root" 2>/dev/null || {
    echo "check_counts: $root is not a folder" >&2
    exit 3
}

tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
claimed=$tmp/claimed # FILE:LINE of each statement a claim matched
: >"$claimed"
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    [ $# -eq 0 ] || printf '%s\n' "$@"
}

# A count: digits, with or without thousands' commas, or a word.
NUM='([0-9]+(,[0-9][0-9][0-9])*|[Oo]ne|[Tt]wo|[Tt]hree|[Ff]our|[Ff]ive|[Ss]ix|[Ss]even|[Ee]ight|[Nn]ine|[Tt]en|[Ee]leven|[Tt]welve)'
export NUM
NUMBER_AWK='
function value(n,   w) {
    w = tolower(n)
    if (w in words) return words[w]
    gsub(/,/, "", n)
    return n + 0
}
function spelled(v, like,   s, r) {
    if (tolower(like) in words && v >= 1 && v <= 12) {
        s = names[v]
        return like ~ /^[A-Z]/ ? toupper(substr(s, 1, 1)) substr(s, 2) : s
    }
    s = v ""
    if (like !~ /,/) return s
    r = ""
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    return s r
}
BEGIN {
    split("one two three four five six seven eight nine ten eleven twelve", names, " ")
    for (i = 1; i <= 12; i++) words[names[i]] = i
}'

# claim FILE EXPECTED WHAT SOURCE PATTERN [ANCHOR]: every line of FILE that
# PATTERN (an extended regular expression in which @N@ stands for the count)
# matches must state EXPECTED, and one line at least must match.  With
# ANCHOR, only the paragraph that starts at the first line ANCHOR matches is
# searched.
claim() {
    file=$1 expected=$2 what=$3 source=$4
    if ! [ -f "$file" ]; then
        fail "$file: cannot be read"
        return
    fi
    out=$(PAT=$5 ANCHOR=${6:-} EXPECTED=$expected WHAT=$what SOURCE=$source FIX=$fix \
        CLAIMED=$claimed awk "$NUMBER_AWK"'
        BEGIN {
            pat = ENVIRON["PAT"]; at = index(pat, "@N@")
            pre = substr(pat, 1, at - 1); post = substr(pat, at + 3)
            re = pre "(" ENVIRON["NUM"] ")" post
            anchor = ENVIRON["ANCHOR"]; inside = anchor == ""
            expected = ENVIRON["EXPECTED"] + 0
            found = 0; wrong = 0
        }
        {
            line = $0
            if (!inside && !closed && anchor != "" && line ~ anchor) inside = 1
            if (inside && match(line, re)) {
                start = RSTART; s = substr(line, RSTART, RLENGTH); skip = 0
                if (pre != "") { match(s, "^" pre); skip = RLENGTH }
                match(substr(s, skip + 1), "^" ENVIRON["NUM"])
                n = substr(s, skip + 1, RLENGTH)
                found++
                print FILENAME ":" FNR >> ENVIRON["CLAIMED"]
                if (value(n) != expected) {
                    wrong++
                    if (ENVIRON["FIX"] == 1) {
                        at = start + skip
                        line = substr(line, 1, at - 1) spelled(expected, n) substr(line, at + length(n))
                        print "fixed " FILENAME ":" FNR ": " n " " ENVIRON["WHAT"] " -> " spelled(expected, n)
                    } else
                        print "wrong " FILENAME ":" FNR ": states " n " " ENVIRON["WHAT"] \
                              ", the real number is " expected " (" ENVIRON["SOURCE"] ")"
                }
            }
            if (inside && anchor != "" && line ~ /^[ \t]*$/) { inside = 0; closed = 1 }
            text = text line "\n"
        }
        END {
            if (!found) print "missing " FILENAME ": no longer says \"" ENVIRON["PAT"] "\"" \
                              (anchor != "" ? " after \"" anchor "\"" : "") \
                              " (" ENVIRON["WHAT"] "): rephrased? update scripts/check/check_counts.sh"
            if (wrong && ENVIRON["FIX"] == 1) printf "%s", text > (FILENAME ".counts-fixed")
        }' "$file")
    if [ -f "$file.counts-fixed" ]; then
        cat "$file.counts-fixed" >"$file" && rm -f "$file.counts-fixed"
    fi
    if printf '%s\n' "$out" | grep -q '^\(wrong\|missing\)'; then
        fail "$(printf '%s\n' "$out" | sed -n 's/^\(wrong\|missing\) //p')"
    else
        [ -z "$out" ] || printf '%s\n' "$out" | sed 's/^fixed /check_counts: fixed /'
        pass
    fi
}

# ---- the numbers, from their sources ----------------------------------------

vectors=$(wc -l <vectors/MANIFEST | tr -d ' ')
# the refusals for an index out of range (D1, D2, R-GN-6): vectors/README.md's
# table by status and rule
refused_for_indices=$(awk -F'|' '$2 ~ /DMLREF_ERROR_INDEX_OUT_OF_RANGE/ { n += $4 } END { print n + 0 }' \
    vectors/README.md)
clamped=$(grep -rl --include='*.json' '"oob": "clamp"' vectors | wc -l | tr -d ' ')

# the operators: src/core/operators.c's rows, each type's number from the header
awk '
    FNR == NR && /DMLREF_OPERATOR_[A-Z0-9_]* *= *[0-9]+/ {
        match($0, /DMLREF_OPERATOR_[A-Z0-9_]*/); name = substr($0, RSTART + 16, RLENGTH - 16)
        match($0, /= *[0-9]+/); number[name] = substr($0, RSTART + 1) + 0; next
    }
    FNR != NR && /\.type = DMLREF_OPERATOR_/ {
        match($0, /DMLREF_OPERATOR_[A-Z0-9_]*/); name = substr($0, RSTART + 16, RLENGTH - 16)
    }
    FNR != NR && /\.introduced = DMLREF_FEATURE_LEVEL_/ && name != "" {
        match($0, /DMLREF_FEATURE_LEVEL_[0-9]_[0-9]/)
        print name, number[name], substr($0, RSTART + 21, 3); name = ""
    }' include/dmlref.h src/core/operators.c >"$tmp/operators"
operators=$(wc -l <"$tmp/operators" | tr -d ' ')
data_types=$(grep -c '^ *DMLREF_TENSOR_DATA_TYPE_[A-Z0-9]* = [0-9]' include/dmlref.h)
data_types=$((data_types - 1)) # UNKNOWN is none
feature_levels=$(sed -n 's/^ *DMLREF_FEATURE_LEVEL_[0-9]_[0-9] = \(0x[0-9A-Fa-f]*\).*/\1/p' include/dmlref.h |
    tr '\n' ' ')
decisions=$(grep -c '^| D[0-9][0-9]* |' docs/rules.md)

# a committed run's counts: summary NAME FIELD (passed, failed, skipped,
# errors; cases, the suite it ran)
summary() {
    if [ "$2" = cases ]; then
        sed -n 's/.*"suite": {.*"cases": \([0-9]*\)}.*/\1/p' "docs/conformance/$1.json" | head -n 1
    else
        sed -n 's/.*"summary": {.*"'"$2"'": \([0-9]*\).*/\1/p' "docs/conformance/$1.json" | head -n 1
    fi
}
# how many of a run's cases did not simply pass: cases NAME RESULT PATTERN
cases() {
    grep '"result": "'"$2"'"' "docs/conformance/$1.json" | grep -c "$3"
}

# docs/directml.md's block of what the leg prints
directml_block() {
    awk '/^<!-- the lines make check-directml prints -->/ { on = 1; next }
         on && /^```$/ && ++fences == 2 { exit }
         on' docs/directml.md
}
directml_block >"$tmp/directml"
directml_listed=$(sed -n 's/^directml: \([0-9]*\) listed differences.*/\1/p' "$tmp/directml" | head -n 1)
directml_suite_passed=$(awk '/^directml: the suite/ { on = 1 }
    on && /^[0-9]+ passed, / { print $1; exit }' "$tmp/directml")
directml_below_6_4=$(sed -n 's/^directml: \([0-9]*\) skipped, below 6_4.*/\1/p' "$tmp/directml" | head -n 1)
directml_fuzz_cases=$(awk '/^directml: [0-9]+ fuzz cases of class/ { n += $2 } END { print n + 0 }' \
    "$tmp/directml")
directml_seeds=$(sed -n 's/^seeds="\(.*\)"$/\1/p' scripts/check/directml_suite.sh | wc -w | tr -d ' ')
directml_cases=$(sed -n 's/^cases=\([0-9]*\)$/\1/p' scripts/check/directml_suite.sh)

# docs/fuzz.md's example run
fuzz_skipped=$(awk '/^cases: / { getline; print; exit }' docs/fuzz.md | sed -n 's/.* \([0-9]*\) skipped$/\1/p')

# the vectors the operator guides name (the playground's guide examples)
guide_examples=$(grep -ohE 'vectors/[a-z0-9_]+/[a-z0-9_./-]+\.json' docs/operators/*.md | sort -u | wc -l |
    tr -d ' ')

# ---- README.md --------------------------------------------------------------

claim README.md "$vectors" vectors vectors/MANIFEST '@N@ of them under `vectors/`'
claim README.md "$vectors" vectors vectors/MANIFEST 'verify --kernels fast vectors: @N@ passed'
claim README.md "$data_types" "data types" include/dmlref.h 'all @N@ data types'
claim README.md "$directml_seeds" "fuzz seeds" scripts/check/directml_suite.sh \
    'and @N@ seeds of `dmlref fuzz`'

# the operator tables: a row per operator of src/core/operators.c, with its
# DirectML number (when the table has the column) and first feature level
# operator_table FILE HEADER NUMBERS(0|1)
operator_table() {
    out=$(HEADER=$2 NUMBERS=$3 awk '
        FNR == NR { number[$1] = $2; level[$1] = $3; total++; next }
        !on && index($0, ENVIRON["HEADER"]) == 1 { on = 1; start = FNR; next }
        on && /^\|---/ { next }
        on && !/^\|/ { exit }
        on {
            rows++; row = $0; gsub(/`/, "", row); name = ""
            for (n in number)
                if (match(row, "(^|[^A-Z0-9_])" n "([^A-Z0-9_]|$)") && length(n) > length(name)) name = n
            if (name == "") { print FILENAME ":" FNR ": names no operator of src/core/operators.c"; next }
            seen[name]++
            if (ENVIRON["NUMBERS"] == 1 && row !~ ("\\| " number[name] " \\|"))
                print FILENAME ":" FNR ": " name "'"'"'s DML_OPERATOR_TYPE is not " number[name] \
                      " (include/dmlref.h)"
            if (row !~ ("\\| (FL )?" level[name] "[ |(]"))
                print FILENAME ":" FNR ": " name "'"'"'s first feature level is not " level[name] \
                      " (src/core/operators.c)"
        }
        END {
            if (!start) { print FILENAME ": no table under \"" ENVIRON["HEADER"] "\""; exit }
            for (n in number) if (seen[n] != 1)
                print FILENAME ":" start ": the table has " (seen[n] + 0) " rows for " n ", not one"
            if (rows != total)
                print FILENAME ":" start ": the table lists " rows " operators, the real number is " \
                      total " (src/core/operators.c)"
        }' "$tmp/operators" "$1")
    if [ -n "$out" ]; then fail "$out"; else pass; fi
}
operator_table README.md '| operator | DML_OPERATOR_TYPE | from feature level |' 1

# The build's packages: README.md's apt-get line and install_deps.sh's group.
build_group=$(sed -n 's/^build_packages="\(.*\)"$/\1/p' scripts/build/install_deps.sh | tr ' ' '\n' |
    sed '/^$/d' | sort | tr '\n' ' ')
readme_line=$(grep -n '^\(sudo \)\{0,1\}apt-get install ' README.md | head -n 1)
readme_packages=$(printf '%s\n' "${readme_line#*:}" | tr ' ' '\n' |
    sed '/^$/d; /^-/d; /^sudo$/d; /^apt-get$/d; /^install$/d' | sort | tr '\n' ' ')
if [ -z "$build_group" ]; then
    fail "scripts/build/install_deps.sh: no build_packages=\"...\" group"
elif [ -z "$readme_line" ]; then
    fail "README.md: no apt-get install line for the build (sh scripts/build/install_deps.sh build)"
elif [ "$build_group" != "$readme_packages" ]; then
    fail "README.md:${readme_line%%:*}: installs ${readme_packages% }; scripts/build/install_deps.sh's build group is ${build_group% }"
else
    pass
fi

# ---- docs/rules.md ----------------------------------------------------------

claim docs/rules.md "$operators" operators src/core/operators.c 'implements @N@ DirectML operator descriptors'
claim docs/rules.md "$decisions" decisions "docs/rules.md's table" '`D1` to `D@N@`'
claim docs/rules.md "$decisions" decisions "docs/rules.md's table" '^## Decisions \(D1–D@N@\)'
operator_table docs/rules.md '| operator | DML_OPERATOR_TYPE | first feature level |' 1
# the feature levels' values, in order
stated=$(awk '/feature level values are/ { on = 1 }
    on && !/0x[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]/ { exit }
    on { s = $0; while (match(s, /0x[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]/)) {
             printf "%s ", substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) } }' docs/rules.md)
if [ "$stated" = "$feature_levels" ]; then
    pass
else
    fail "docs/rules.md: the feature level values are ${stated:-not listed}; include/dmlref.h has $feature_levels"
fi

# ---- docs/operators/, docs/loaders.md, docs/playground/README.md ------------

claim docs/operators/README.md "$operators" operators src/core/operators.c 'teach the @N@ operators'
operator_table docs/operators/README.md '| page | operator | what it does | from FL |' 0
claim docs/playground/README.md "$vectors" vectors vectors/MANIFEST "the suite's @N@"
claim docs/conformance/README.md "$vectors" vectors vectors/MANIFEST 'the committed suite \(@N@ vectors\)'
claim docs/playground/README.md "$guide_examples" "guide examples" "the vectors docs/operators/ names" \
    "guides' @N@ examples"

# ---- docs/onnx.md -----------------------------------------------------------

claim docs/onnx.md "$data_types" "data types" include/dmlref.h 'the @N@ data types in'
anchor="^The reference runtime's report"
for field in passed failed errors skipped; do
    claim docs/onnx.md "$(summary onnx-reference "$field")" "$field" docs/conformance/onnx-reference.json \
        "[\` ]@N@ $field" "$anchor"
done
claim docs/onnx.md "$(summary onnx-reference cases)" vectors "the suite docs/conformance/onnx-reference.json ran" \
    'suite of @N@ vectors' "$anchor"
claim docs/onnx.md "$(cases onnx-reference fail clamped)" "wrongly clamped cases" \
    docs/conformance/onnx-reference.json 'so @N@ `"oob": "clamp"` cases' "$anchor"
claim docs/onnx.md "$(cases onnx-reference error 'timed out')" "timeouts" docs/conformance/onnx-reference.json \
    'so @N@ cases with an index near' "$anchor"
anchor='^ONNX Runtime for Node.js 1.30.0 passes'
for field in passed failed skipped; do
    claim docs/onnx.md "$(summary onnxruntime-node "$field")" "$field" docs/conformance/onnxruntime-node.json \
        "[\` ]@N@ $field" "$anchor"
done

# ---- docs/directml.md -------------------------------------------------------

claim docs/directml.md "$directml_seeds" "fuzz seeds" scripts/check/directml_suite.sh 'with @N@ seeds of'
claim docs/directml.md "$directml_cases" "fuzz cases a seed" scripts/check/directml_suite.sh \
    'seeds of @N@ cases each'
claim docs/directml.md "$vectors" vectors vectors/MANIFEST '^The suite \(@N@ vectors\)'
claim docs/directml.md "$((directml_suite_passed - directml_listed))" "passes" \
    "the block: the suite's passed less its listed differences" "The suite's @N@ passes"
claim docs/directml.md "$directml_listed" "listed differences" "the block" 'the @N@ listed differences count'
claim docs/directml.md "$data_types" "data types" include/dmlref.h 'all @N@ types'
claim docs/directml.md "$directml_fuzz_cases" "fuzz cases" "the block's fuzz runs" '\(@N@ cases, each shrunk'
claim docs/directml.md "$clamped" '"oob": "clamp" vectors' 'vectors/ ("oob": "clamp")' \
    'the @N@ `"oob": "clamp"` vectors'
claim docs/directml.md "$refused_for_indices" "vectors refused for their indices" \
    "vectors/README.md, DMLREF_ERROR_INDEX_OUT_OF_RANGE" 'the @N@ vectors refused for their indices'
claim docs/directml.md "$refused_for_indices" "vectors refused for their indices" \
    "vectors/README.md, DMLREF_ERROR_INDEX_OUT_OF_RANGE" 'computed all @N@'
claim docs/directml.md "$directml_below_6_4" "vectors below 6_4" "the block" 'the @N@ vectors below 6_4'
anchor='^On one NVIDIA H200'
for field in passed failed skipped; do
    claim docs/directml.md "$(summary directml-nvidia "$field")" "$field" docs/conformance/directml-nvidia.json \
        "[\` ]@N@ $field" "$anchor"
done

# ---- docs/fuzz.md -----------------------------------------------------------

claim docs/fuzz.md "$fuzz_skipped" skips "the example run above it" 'are its @N@ skips'
claim docs/fuzz.md "$data_types" "data types" include/dmlref.h 'another of the @N@ types'
# the rules the long run breaks: as many as the sentence lists
listed=$(awk '/validation rules that a vector can express:/ { on = 1 }
    on { text = text " " $0 }
    on && /Not reachable/ { exit }
    END {
        sub(/.*can express:/, "", text); sub(/\. *Not reachable.*/, "", text)
        n = split(text, part, /,| and /)
        for (i = 1; i <= n; i++) {
            p = part[i]
            if (match(p, /R-[A-Z][A-Z]-[0-9]+ to R-[A-Z][A-Z]-[0-9]+/)) {
                split(substr(p, RSTART, RLENGTH), ends, / to /)
                sub(/.*-/, "", ends[1]); sub(/.*-/, "", ends[2]); count += ends[2] - ends[1] + 1
            } else if (p ~ /(R-[A-Z][A-Z]-|D)[0-9]+/) count++
        }
        print count + 0
    }' docs/fuzz.md)
claim docs/fuzz.md "$listed" "validation rules" "the rules the same sentence lists" 'breaks all @N@ validation rules'

# ---- any other count of vectors, operators or data types --------------------

pages="README.md HACKING.md vectors/FORMAT.md docs/playground/README.md"
for p in docs/*.md docs/operators/*.md; do
    case $p in docs/performance.md | docs/conformance.md) ;; *) pages="$pages $p" ;; esac
done
# shellcheck disable=SC2086 # the pages' names have no blanks
out=$(VECTORS=$vectors OPERATORS=$operators TYPES=$data_types awk "$NUMBER_AWK"'
    FNR == NR { claimed[$0] = 1; next }
    !((FILENAME ":" FNR) in claimed) {
        s = $0
        while (match(s, "(^|[^0-9A-Za-z_.,-])" ENVIRON["NUM"] " (golden vectors|vectors|operators|data types)([^A-Za-z_]|$)")) {
            m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
            sub(/^[^0-9A-Za-z]/, "", m); n = m; sub(/ .*/, "", n)
            if (tolower(n) == "one") continue
            what = m ~ / operators/ ? "operators" : m ~ / data types/ ? "data types" : "vectors"
            real = what == "operators" ? ENVIRON["OPERATORS"] : what == "data types" ? ENVIRON["TYPES"] : ENVIRON["VECTORS"]
            if (value(n) != real + 0)
                print FILENAME ":" FNR ": states " n " " what ", the real number is " real \
                      (what == "vectors" ? " (vectors/MANIFEST)" : " (include/dmlref.h)") \
                      "; if it counts something else, word it so, or claim it in scripts/check/check_counts.sh"
        }
    }' "$claimed" $pages)
if [ -n "$out" ]; then fail "$out"; else pass; fi

echo "check_counts: $vectors vectors, $operators operators, $data_types data types, $decisions decisions: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
