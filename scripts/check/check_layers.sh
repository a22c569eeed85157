#!/bin/sh
# check_layers.sh [BUILD] - the layers of HACKING.md, checked: every file
# uses only its own folder and the layers below it.
#
#   rank  folder          what it is
#   0     src/base        errors, layouts, the odometer, index decoding
#   1     reference       the reference kernels (the definition)
#   1     src/kernels     the fast kernels (proven equal to reference/)
#   2     src/core        the operator table, validation, execution
#   3     src/vector      the vector format (JSON)
#   3     src/platform    the operating system: files, folders, processes,
#                         plug-ins (a POSIX side and a Windows side)
#   4     src/command_base      what the command's layers share (files, walks)
#   4     src/teach       explain and show: cases made plain for learners
#   5     src/suite       the catalogue of golden cases
#   6     conformance     the harness: backends, check, fuzz (no main)
#   7     src/cli         the command line: a thin client
#   7     src/web         the playground's door (docs/playground/): a thin client
#
# The public headers belong to layers too: include/dmlref.h and
# include/dmlref/backend.h to the base (anyone may use them),
# include/dmlref/vector.h to src/vector.  Two folders of one rank
# (reference and src/kernels, src/vector and src/platform, src/command_base and
# src/teach, src/cli and src/web) do not use each other.
#
# Checked: every #include "..." of every .c and .h; the JSON and hash
# libraries (<jansson.h>, <xxhash.h>) only from src/vector up, so that
# dmlref.h alone validates and executes; and, when BUILD is given, every
# symbol an object file of $BUILD/obj needs from another object file.
# Prints each violation on one line and exits 1 if there is any.
set -eu
cd "$(dirname "$0")/../.."
build=${1:-}

# rank_of FOLDER: sets $rank to its layer's rank, or - (no subshell: called
# for every include and every call)
rank_of() {
    case $1 in
    src/base) rank=0 ;;
    reference | src/kernels) rank=1 ;;
    src/core) rank=2 ;;
    src/vector | src/platform) rank=3 ;;
    src/command_base | src/teach) rank=4 ;;
    src/suite) rank=5 ;;
    conformance) rank=6 ;;
    src/cli | src/web) rank=7 ;;
    *) rank=- ;;
    esac
}

# folder_of_header HEADER: sets $target to the folder that stands for it, as
# its layer: a public header by its layer, a private one by its own folder.
folder_of_header() {
    case $1 in
    dmlref.h | dmlref/backend.h) target=src/base ;;
    dmlref/vector.h) target=src/vector ;;
    */*) if [ -f "src/$1" ]; then target=src/${1%/*}; elif [ -f "$1" ]; then target=${1%/*}; else target=-; fi ;;
    *) target=- ;;
    esac
}

# "may FROM use TO": its own folder, or a lower rank.  Sets $rank_from and $rank_to.
may_use() {
    rank_of "$1"
    rank_from=$rank
    rank_of "$2"
    rank_to=$rank
    [ "$1" = "$2" ] && return 0
    [ "$rank_from" != - ] && [ "$rank_to" != - ] && [ "$rank_to" -lt "$rank_from" ]
}

violations=0
complain() {
    echo "check-layers: $*"
    violations=$((violations + 1))
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

files=$(find src reference conformance -name '*.[ch]' ! -path 'conformance/backends/*' | sort)
for f in $files; do
    rank_of "${f%/*}"
    if [ "$rank" = - ]; then
        complain "$f: ${f%/*} is not a layer (scripts/check/check_layers.sh, HACKING.md)"
    fi
done

# quoted includes: one awk reads every file ("FILE HEADER" lines)
# shellcheck disable=SC2086 # $files is a list of paths without spaces
awk '/^[[:space:]]*#[[:space:]]*include[[:space:]]*"/ { split($0, q, "\""); print FILENAME, q[2] }' $files \
    | sort -u > "$work/includes"
while read -r f entry; do
    dir=${f%/*}
    rank_of "$dir"
    [ "$rank" = - ] && continue # said above
    if [ -f "$dir/$entry" ] && [ "${entry#*/}" = "$entry" ]; then
        complain "$f: #include \"$entry\": name a header by its folder (\"${dir#src/}/$entry\")"
        continue
    fi
    folder_of_header "$entry"
    if [ "$target" = - ]; then
        complain "$f: #include \"$entry\": not a header of a layer"
    elif ! may_use "$dir" "$target"; then
        complain "$f: #include \"$entry\": $dir (layer $rank_from) may not use" \
                 "$target (layer $rank_to)"
    fi
done < "$work/includes"

# shellcheck disable=SC2086
for f in $(grep -El '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(jansson|xxhash)\.h>' $files); do
    rank_of "${f%/*}"
    if [ "$rank" != - ] && [ "$rank" -lt 3 ]; then
        complain "$f: includes <jansson.h> or <xxhash.h>: only src/vector and above may"
    fi
done

# Calls: which folder defines each global symbol, and which folders need it.
if [ -n "$build" ]; then
    [ -d "$build/obj" ] || { echo "check-layers: $build/obj: no objects (make all first)" >&2; exit 2; }
    table=$work/table
    # a folder at a time (one nm for all its objects: "OBJECT:" before each line)
    for dir in $(find "$build/obj" -name '*.o' | sed "s|^$build/obj/||; s|/[^/]*\$||" | sort -u); do
        # objects of the tests (a test's stand-in for a kernel) are no layer's
        rank_of "$dir"
        [ "$rank" = - ] && continue
        nm -g -A "$build/obj/$dir"/*.o | awk -v dir="$dir" '
            { sub(/^[^:]*:/, "") }
            NF == 3 && $2 ~ /^[TDBRCGSVW]$/ { print "D", dir, $3 }
            NF == 2 && $1 == "U" { print "U", dir, $2 }'
    done > "$table"
    uses=$(awk '
        $1 == "D" { home[$3] = $2; next }
        { need[NR] = $2 " " $3 }
        END {
            for (i in need) {
                split(need[i], p, " ")
                if (p[2] in home && home[p[2]] != p[1]) print p[1], home[p[2]], p[2]
                else if (p[2] ~ /^(json_|XXH)/) print p[1], "src/vector", p[2]
            }
        }' "$table" | sort -u)
    # each pair of folders judged once, then every call of a pair that may not be
    if [ -n "$uses" ]; then
        echo "$uses" | awk '{ print $1, $2 }' | sort -u | while read -r from to; do
            if ! may_use "$from" "$to"; then
                echo "$from $to $rank_from $rank_to"
            fi
        done > "$table.pairs"
        echo "$uses" | awk 'NR == FNR { bad[$1 " " $2] = "(layer " $3 ") calls %s of " $2 " (layer " $4 ")"; next }
            ($1 " " $2) in bad { printf "check-layers: %s " bad[$1 " " $2] "\n", $1, $3 }' \
            "$table.pairs" - > "$table.calls"
        if [ -s "$table.calls" ]; then
            cat "$table.calls"
            violations=$((violations + $(wc -l < "$table.calls")))
        fi
        rm -f "$table.pairs" "$table.calls"
    fi
fi

if [ "$violations" -ne 0 ]; then
    echo "check-layers: $violations uses against the layers" >&2
    exit 1
fi
folders=$(for f in $files; do echo "${f%/*}"; done | sort -u | wc -l | tr -d ' ')
echo "check-layers: $(echo "$files" | wc -l | tr -d ' ') files in $folders folders use only their own" \
     "folder and the layers below${build:+ (includes and the calls of $build/obj)}"
