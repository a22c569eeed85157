#!/bin/sh
# Times two builds of libdmlref side by side, in one process, call by call
# (scripts/report/ab_builds.c says why and how): the measurements of
# docs/performance.md and src/kernels/ that compare two builds.
#
#   sh scripts/report/ab_builds.sh [options] BEFORE AFTER
#       BEFORE, AFTER: a git revision of this repository, or a libdmlref.a.
#       Builds both, links the program twice (each build in either place of
#       it), runs both programs and prints each case's ratio after/before:
#       the geometric mean of the two programs' medians of the rounds' ratios.
#     --threads N      threads per call (1)
#     --rounds N       timed rounds per case and policy (11)
#     --filter TEXT    only the cases whose name holds TEXT
#     --size ROWS COLS the matrix (4096 4096)
#     --build-only DIR link DIR/before_first and DIR/after_first statically,
#                      and run nothing: to run them on another machine, each
#                      as PROGRAM THREADS ROUNDS [FILTER [ROWS COLS]] with its
#                      output's lines prefixed by its name, then
#   sh scripts/report/ab_builds.sh --report FILE...
#       the ratios of such outputs.
#
# CFLAGS in the environment is passed to the builds of revisions.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
threads=1 rounds=11 filter= rows=4096 cols=4096 build_only=

report() { # the outputs' lines "PROGRAM CASE... NT POLICY before ...", in the programs' order
    awk '
        match($0, / +[0-9]+T (error|clamp) +before/) {
            program = $1
            key = substr($0, length(program) + 2, RSTART - length(program) - 1)
            sub(/ +$/, "", key)
            split(substr($0, RSTART), f, " ")
            key = key " " f[1] " " f[2]
            ratio = $0; sub(/.*after\/before /, "", ratio); sub(/ .*/, "", ratio)
            if (!(key in seen))
                order[++keys] = key
            seen[key] = 1; r[key, program] = ratio
        }
        END {
            for (i = 1; i <= keys; ++i) {
                key = order[i]
                if (r[key, "before_first"] == "" || r[key, "after_first"] == "")
                    continue
                printf "%-46s after/before %.3f  (before first %.3f, after first %.3f)\n", key,
                    sqrt(r[key, "before_first"] * r[key, "after_first"]),
                    r[key, "before_first"], r[key, "after_first"]
                shown++
            }
            if (!shown) {
                print "ab_builds: no case timed by both programs" > "/dev/stderr"
                exit 1
            }
        }' "$@"
}

if [ "${1:-}" = --report ]; then
    shift
    [ $# -gt 0 ] || { echo "ab_builds: --report needs the programs' outputs" >&2; exit 2; }
    report "$@"
    exit
fi
while [ $# -gt 2 ]; do
    case "$1" in
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --size) rows=$2 cols=$3; shift 3 ;;
    --build-only) build_only=$2; shift 2 ;;
    *) echo "ab_builds: unknown option $1 (see the top of $0)" >&2; exit 2 ;;
    esac
done
[ $# -eq 2 ] || { echo "usage: sh scripts/report/ab_builds.sh [options] BEFORE AFTER" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# $1: a revision or a libdmlref.a; $2: its name; leaves $work/$2.a, its global
# symbols renamed $2_...
library() {
    if [ -f "$1" ]; then
        cp "$1" "$work/$2.a"
    else
        git -C "$root" rev-parse --verify -q "$1^{commit}" >/dev/null ||
            { echo "ab_builds: $1 is neither a file nor a revision" >&2; exit 2; }
        mkdir "$work/$2-src"
        git -C "$root" archive "$1" | tar -x -C "$work/$2-src"
        make -s -C "$work/$2-src" BUILD="$work/$2-build" "$work/$2-build/libdmlref.a" \
            CFLAGS="${CFLAGS:-}" >&2
        cp "$work/$2-build/libdmlref.a" "$work/$2.a"
    fi
    nm -g --defined-only "$work/$2.a" | awk -v p="$2" 'NF == 3 { print $3 " " p "_" $3 }' |
        sort -u >"$work/$2.map"
    objcopy --redefine-syms="$work/$2.map" "$work/$2.a"
}
library "$1" before
library "$2" after

out=${build_only:-$work}
mkdir -p "$out"
for order in "before after" "after before"; do
    set -- $order
    ${CC:-cc} -O2 -fopenmp -I"$root/include" "$root/scripts/report/ab_builds.c" "$work/$1.a" "$work/$2.a" -lm \
        ${build_only:+-static} -o "$out/$1_first" 2>"$work/link.log" ||
        { cat "$work/link.log" >&2; exit 1; }
done
if [ -n "$build_only" ]; then
    echo "ab_builds: $out/before_first and $out/after_first"
    exit 0
fi
for program in before_first after_first; do # a program that fails stops the script
    "$out/$program" "$threads" "$rounds" "$filter" "$rows" "$cols" >"$work/$program.txt"
    sed "s/^/$program /" "$work/$program.txt" >>"$work/runs.txt"
done
report "$work/runs.txt"
