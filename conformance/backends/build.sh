#!/bin/sh
# build.sh BUILD_DIR [NAME...] - builds the `dmlref check` plug-ins of this
# folder into BUILD_DIR/backends/, all of them or the NAMEs (reference,
# faulty_ignores_strides, reference_process, ...):
#   reference.so         the reference library (BUILD_DIR/libdmlref.a) as a plug-in
#   naive.so             naive_backend.c, correct
#   faulty_<name>.so     naive_backend.c with one bug, -DFAULT=FAULT_<NAME>
#   hostile.so           the reference library misbehaving toward the harness
#                        as --backend-options says (hostile_backend.c)
#   reference_process    the reference library as a process backend, for
#                        --exec (reference_process.c; a program)
#   directml_process     the real DirectML as a process backend, for --exec
#                        (directml_process.c; a Windows program, built with a
#                        MinGW-w64 compiler only, and then by default;
#                        scripts/check/directml_leg.sh runs it under wine)
# BUILD_DIR/libdmlref.a must exist (make builds it first).  CC (default cc)
# picks the compiler.  Run from anywhere.
#
# With a MinGW-w64 compiler (CC=x86_64-w64-mingw32-gcc: `$CC -dumpmachine`
# names mingw) the plug-ins are Windows DLLs, reference.dll and so on, linked
# statically (the C runtime DLL aside: no libgomp or libwinpthread DLL to
# ship), against the Windows builds of jansson and xxHash found under
# MINGW_DEPS (include/, lib/; scripts/build/build_deps.sh builds them).
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [NAME...]" >&2
    exit 3
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $1 in
    /*) build=$1 ;;
    *) build=$(pwd)/$1 ;;
esac
lib=$build/libdmlref.a
if [ ! -f "$lib" ]; then
    echo "$0: $lib does not exist (make BUILD=$1 $1/libdmlref.a)" >&2
    exit 2
fi
out=$build/backends
mkdir -p "$out"

CC=${CC:-cc}
case $($CC -dumpmachine 2>/dev/null) in
    *mingw*)
        so=dll
        if [ -z "${MINGW_DEPS:-}" ] || [ ! -d "$MINGW_DEPS/include" ]; then
            echo "$0: MINGW_DEPS names no folder of mingw-w64 libraries (scripts/build/build_deps.sh)" >&2
            exit 2
        fi
        CFLAGS="-std=c99 -pedantic -Wall -Wextra -Werror -O2 -shared -D__USE_MINGW_ANSI_STDIO=1"
        CFLAGS="$CFLAGS -I$root/include -isystem $MINGW_DEPS/include"
        LIBS="$lib -L$MINGW_DEPS/lib -ljansson -lxxhash -lm -fopenmp -static"
        ;;
    *)
        so=so
        CFLAGS="-std=c99 -pedantic -Wall -Wextra -Werror -O2 -fPIC -shared -I$root/include"
        LIBS="$lib -ljansson -lxxhash -lm -fopenmp"
        ;;
esac

# The faults of naive_backend.c (FAULT_<NAME>); EXPECTED has one line each.
FAULTS="IGNORES_STRIDES NO_NEGATIVE_INDICES UNSIGNED_READ_AS_SIGNED NEGATIVE_ZERO_COUNTED
NAN_PAYLOAD_LOST NONZERO_LEFT_ALIGNED SCATTER_NO_INPUT_COPY GATHER_ND1_BATCH_OFFSET
FLOAT16_AS_4_BYTES WRITES_PAST_OUTPUT WRITES_INTO_INPUT CRASHES_ON_RANK_8
HANGS_ON_SCATTER_DUPLICATES SCATTER_FIRST_WINS OFF_BY_ONE_AXIS NONZERO_COUNT_OFF_BY_ONE
SKIPS_VALIDATION NONZERO_FLUSHES_SUBNORMALS COPY_FLUSHES_SUBNORMALS MINUS_S_OUT_OF_RANGE"

# reference_process (reference_process.exe with a MinGW-w64 compiler) is a
# program, not a plug-in (no -shared, no -fPIC)
exe='' program_flags=''
case $($CC -dumpmachine 2>/dev/null) in
    *mingw*)
        exe=.exe
        program_flags="-D__USE_MINGW_ANSI_STDIO=1 -isystem $MINGW_DEPS/include"
        ;;
esac

# build NAME: one plug-in (or reference_process) into $out
build() {
    case $1 in
        reference) set -- "$out/reference.$so" "$here/reference_backend.c" ;;
        naive) set -- "$out/naive.$so" "$here/naive_backend.c" ;;
        hostile) set -- "$out/hostile.$so" -pthread "$here/hostile_backend.c" ;;
        faulty_*)
            fault=$(echo "${1#faulty_}" | tr '[:lower:]' '[:upper:]')
            case " $(echo $FAULTS) " in
                *" $fault "*) ;;
                *)
                    echo "$0: no fault $fault in naive_backend.c" >&2
                    return 1
                    ;;
            esac
            set -- "$out/$1.$so" -DFAULT=FAULT_$fault "$here/naive_backend.c"
            ;;
        reference_process)
            # shellcheck disable=SC2086 # program_flags and LIBS are word lists
            $CC -std=c99 -pedantic -Wall -Wextra -Werror -O2 -I"$root/include" $program_flags \
                "$here/reference_process.c" $LIBS -o "$out/reference_process$exe"
            return
            ;;
        directml_process)
            if [ -z "$exe" ]; then
                echo "$0: directml_process is a Windows program: it needs a MinGW-w64 compiler" \
                    "(CC=x86_64-w64-mingw32-gcc)" >&2
                return 1
            fi
            # shellcheck disable=SC2086 # program_flags and LIBS are word lists
            $CC -std=c99 -pedantic -Wall -Wextra -Werror -O2 -I"$root/include" $program_flags \
                "$here/directml_process.c" $LIBS -ld3d12 -ldxgi -o "$out/directml_process.exe"
            return
            ;;
        *)
            echo "$0: no plug-in named $1" >&2
            return 1
            ;;
    esac
    target=$1
    shift
    # shellcheck disable=SC2086 # CFLAGS and LIBS are word lists
    $CC $CFLAGS "$@" $LIBS -o "$target"
}

shift
if [ $# -eq 0 ]; then
    set -- reference naive hostile reference_process
    if [ -n "$exe" ]; then
        set -- "$@" directml_process
    fi
    for fault in $FAULTS; do
        set -- "$@" "faulty_$(echo "$fault" | tr '[:upper:]' '[:lower:]')"
    done
fi
pids=
for name in "$@"; do
    build "$name" &
    pids="$pids $!"
done
failed=0
for pid in $pids; do
    wait "$pid" || failed=1
done
if [ "$failed" -ne 0 ]; then
    echo "$0: a plug-in failed to build" >&2
    exit 1
fi
echo "build.sh: $# plug-ins in $out"
