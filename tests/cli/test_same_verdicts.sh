#!/bin/sh
# tests/cli/test_same_verdicts.sh LINUX_DMLREF LINUX_BACKENDS_DIR OTHER_DMLREF OTHER_BACKENDS_DIR [VECTORS...]
#
# Proves that dmlref check comes to the same verdict for every case on two
# builds, typically Linux and Windows (OTHER_DMLREF then a script that runs
# dmlref.exe under wine, OTHER_BACKENDS_DIR the plug-ins built as DLLs by
# CC=x86_64-w64-mingw32-gcc conformance/backends/build.sh): the same
# plug-ins (NAME.so or NAME.dll, whichever a folder holds) over the same
# vectors, with the same options, must pass, fail, skip and err on the same
# cases, and exit the same.  The messages may differ: a crash is a signal on
# one system and an exception code on the other.
#
# The runs: the reference and the naive plug-ins over VECTORS (default: a
# cross-section of vectors/, every operator); the plug-ins that crash, hang,
# write past an output and write into an input, each over cases that show
# it; the hostile plug-in writing past and before an output (inside the
# last page and on a guard page), writing from a thread after execute()
# returned, and aborting on one operator.  About 30 s under wine.
#
# Each case's verdict comes from check's --json report (one result a line);
# a run whose report holds no verdict, or fewer than its summary counts,
# fails.  Prints one line per run and ends with "N passed, N failed"; exits
# 1 when a verdict differs.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -lt 4 ]; then
    usage "LINUX_DMLREF LINUX_BACKENDS_DIR OTHER_DMLREF OTHER_BACKENDS_DIR [VECTORS...]"
fi
take_binary "$1"
linux_bin=$bin
linux_backends=$2
take_binary "$3"
other_bin=$bin
other_backends=$4
shift 4
for folder in "$linux_backends" "$other_backends"; do
    if ! [ -d "$folder" ]; then
        echo "$0: $folder is not a folder (conformance/backends/build.sh BUILD_DIR)" >&2
        exit 3
    fi
done
cd "$root" || exit 3 # the vectors' paths below are relative, and so are the cases' names
if [ $# -eq 0 ]; then
    set -- vectors/gather_elements/float32/1d vectors/gather_elements/int8/3d \
        vectors/scatter_elements/float16/2d vectors/gather_nd/uint8/2d vectors/gather_nd1/float32/1d \
        vectors/nonzero_coordinates/float32/2d
fi
make_tmp same-verdicts

# The plug-in NAME of a folder: NAME.so or NAME.dll.
plugin_in() {
    if [ -f "$1/$2.so" ]; then
        echo "$1/$2.so"
    else
        echo "$1/$2.dll"
    fi
}

# The verdicts of a --json report, "result name" a line, in the report's
# order; nothing when it holds none.
verdicts_of() {
    sed -n 's/^ *{"name": "\([^"]*\)",.* "result": "\([a-z]*\)",.*/\2 \1/p' "$1"
}

# The number of cases a --json report's summary counts.
counted_in() {
    sed -n 's/.*"summary": {"passed": \([0-9]*\), "failed": \([0-9]*\), "skipped": \([0-9]*\), "errors": \([0-9]*\)}.*/\1 \2 \3 \4/p' "$1" |
        awk '{ print $1 + $2 + $3 + $4 }'
}

# side SIDE BINARY BACKENDS LABEL PLUGIN [ARGS...]: one run of check; its
# verdicts in $tmp/LABEL.SIDE, its exit status in $tmp/LABEL.SIDE.rc; 1 (with
# a failure) when its report is missing, holds no verdict or not as many as
# it counts.
side() {
    side_name=$1 side_bin=$2 side_backends=$3 side_label=$4 side_plugin=$5
    shift 5
    "$side_bin" check --backend "$(plugin_in "$side_backends" "$side_plugin")" \
        --json "$tmp/$side_label.$side_name.json" "$@" \
        >"$tmp/$side_label.$side_name.out" 2>"$tmp/$side_label.$side_name.err"
    echo $? >"$tmp/$side_label.$side_name.rc"
    verdicts_of "$tmp/$side_label.$side_name.json" 2>/dev/null >"$tmp/$side_label.$side_name"
    side_count=$(wc -l <"$tmp/$side_label.$side_name" | tr -d ' ')
    side_counted=$(counted_in "$tmp/$side_label.$side_name.json" 2>/dev/null)
    if [ "$side_count" -eq 0 ] || [ "$side_count" != "$side_counted" ]; then
        bad "$side_label: the $side_name run's report holds $side_count verdicts, it counts ${side_counted:-none}" \
            "$tmp/$side_label.$side_name.err" "$tmp/$side_label.$side_name.out"
        return 1
    fi
    return 0
}

# same LABEL PLUGIN [ARGS...]: the plug-in on both sides, the verdicts compared.
same() {
    same_label=$1
    shift
    side linux "$linux_bin" "$linux_backends" "$same_label" "$@" || return
    side other "$other_bin" "$other_backends" "$same_label" "$@" || return
    same_rc_linux=$(cat "$tmp/$same_label.linux.rc")
    same_rc_other=$(cat "$tmp/$same_label.other.rc")
    if ! diff "$tmp/$same_label.linux" "$tmp/$same_label.other" >"$tmp/$same_label.diff"; then
        fail "$same_label: the verdicts differ (< Linux, > the other)"
        grep '^[<>]' "$tmp/$same_label.diff" | sed -n '1,8s/^/    | /p'
    elif [ "$same_rc_linux" != "$same_rc_other" ]; then
        fail "$same_label: exit $same_rc_linux on Linux, $same_rc_other on the other"
    else
        ok "$same_label: the same $(wc -l <"$tmp/$same_label.linux" | tr -d ' ') verdicts ($(
            cut -d' ' -f1 "$tmp/$same_label.linux" | sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }'
        )), exit $same_rc_linux"
    fi
}

one=vectors/gather_elements/float32/1d/axis0_int32_permuted.json
large=vectors/gather_elements/float32/2d/large_1m_random.json

same reference reference "$@"
same naive naive "$@"
same crashes_on_rank_8 faulty_crashes_on_rank_8 \
    vectors/gather_elements/float16/1d vectors/gather_elements/float16/8d
same hangs_on_scatter_duplicates faulty_hangs_on_scatter_duplicates --timeout 2 \
    vectors/scatter_elements/float32/1d
same writes_past_output faulty_writes_past_output vectors/gather_elements/float16/1d
same writes_into_input faulty_writes_into_input vectors/scatter_elements/float16/1d
same "hostile write-past=200" hostile --backend-options write-past=200 "$one"
same "hostile write-past=5000" hostile --backend-options write-past=5000 "$one"
same "hostile write-before=100" hostile --backend-options write-before=100 "$one"
# 50 ms: the write lands while the next case runs, on both systems.  With a few
# ms it may land before dmlref reads the outputs on a loaded machine: then it
# is a wrong element (fail) rather than a late write (error), on one system only.
same "hostile late-write=50" hostile --backend-options late-write=50,only-op=GATHER_ELEMENTS \
    "$large" vectors/gather_nd/uint8/2d/large_1m_rows.json
same "hostile crash-op=GATHER_ND1" hostile --backend-options crash-op=GATHER_ND1 --timeout 20 \
    vectors/gather_elements/float32/1d vectors/gather_nd1/float32/1d

finish
