#!/bin/sh
# directml_leg.sh [--stack DIR] [--vulkan-icd ICD.json] [--dll DirectML.dll] COMMAND [ARG...]
#
# Runs COMMAND with the real DirectML ready as a `dmlref check --exec`
# backend: conformance/backends/directml_process.exe under Debian's wine,
# whose d3d12 (vkd3d) runs on Vulkan.  Everything is the leg's own and is
# gone when it ends, however it ends:
#   - Xvfb on a free display (-displayfd), no TCP: wine needs an X server
#     even for compute;
#   - the wine prefix build/directml/wine (made on first use, its Direct3D
#     renderer set to Vulkan) and its wine server, started here and killed at
#     the end with every wine process of the prefix;
#   - VK_ICD_FILENAMES: ICD.json, by default the lavapipe of Mesa 25 that
#     scripts/check/directml_stack.sh unpacks into build/directml/lavapipe-25/;
#     any other Vulkan driver's ICD file (a GPU's) works the same;
#   - VKD3D_CONFIG=virtual_heaps: with lavapipe, vkd3d's other descriptor
#     mode spends about 0.5 s clearing each descriptor heap, same results.
# The DLL (default: ONNX Runtime for Node.js's, conformance/backends/peers) must be the
# one pinned by conformance/backends/directml.pin.  Then the backend's canary
# must pass: a stack that returns S_OK and computes nothing stops the leg
# here rather than failing every case.  COMMAND runs with
# DMLREF_DIRECTML_EXEC set to the --exec command line of the backend, e.g.
#
#   sh scripts/check/directml_leg.sh sh -c 'build/dmlref check --exec "$DMLREF_DIRECTML_EXEC" vectors'
#
# Exits with COMMAND's status; 2 when the leg cannot be set up (the pin, the
# canary, a missing part), 3 on a usage error.  Needs build/mingw/backends/
# directml_process.exe (conformance/backends/build.sh with a MinGW-w64
# compiler).  One leg at a time: the prefix and its server are shared.
#
# --stack DIR: wine, wineserver, Xvfb, xkbcomp, the xkb data and the shared
# libraries are those of DIR, a stack that scripts/check/directml_bundle.sh packed
# from Debian's packages and that was unpacked there, for a machine with no
# wine (a GPU's, with its vendor's Vulkan driver: --vulkan-icd names its ICD
# file, e.g. /usr/share/vulkan/icd.d/nvidia_icd.json).  Only the leg's own
# processes (Xvfb, wine, its server) see LD_LIBRARY_PATH=DIR/lib before the
# host's, XLOCALEDIR=DIR/usr/share/X11/locale and
# FONTCONFIG_FILE=DIR/etc/fonts/fonts.conf; Xvfb gets -xkbdir
# DIR/usr/share/X11/xkb and, preloaded, DIR/lib/xvfb_xkbcomp.so, which has
# it run DIR/usr/bin/xkbcomp rather than the /usr/bin one compiled into it.
# The backend and, unless --dll names another, the DLL are DIR/bin's; the
# prefix is build/directml/stack-wine; COMMAND runs with the host's
# environment (DMLREF_DIRECTML_EXEC carries the stack's).  Nothing on the
# host is changed.  DIR's path must not hold blanks or quotes.
set -u

usage() {
    echo "usage: $0 [--stack DIR] [--vulkan-icd ICD.json] [--dll DirectML.dll] COMMAND [ARG...]" >&2
    exit 3
}

say() {
    echo "directml_leg: $*" >&2
}

root=$(cd "$(dirname "$0")/../.." && pwd) || exit 3
icd=$root/build/directml/lavapipe-25/lvp_icd.json
dll=
stack=
while [ $# -gt 0 ]; do
    case $1 in
        --stack)
            [ $# -ge 2 ] || usage
            stack=$2
            shift 2
            ;;
        --vulkan-icd)
            [ $# -ge 2 ] || usage
            icd=$2
            shift 2
            ;;
        --dll)
            [ $# -ge 2 ] || usage
            dll=$2
            shift 2
            ;;
        --)
            shift
            break
            ;;
        -*) usage ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || usage

absolute() {
    echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

state=$root/build/directml
if [ -z "$stack" ]; then
    exe=$root/build/mingw/backends/directml_process.exe
    node_dll=conformance/backends/peers/node_modules/onnxruntime-node/bin/napi-v6/win32/x64/DirectML.dll
    dll=${dll:-$root/$node_dll}
    WINE=${WINE:-/usr/lib/wine/wine64}
    WINESERVER=${WINESERVER:-$(dirname "$WINE")/wineserver}
    xvfb=Xvfb
    prefix=$state/wine
    hint="scripts/check/directml_stack.sh; CC=x86_64-w64-mingw32-gcc sh conformance/backends/build.sh"
    hint="$hint build/mingw directml_process; make node-deps"
    tool_hint="Debian: wine64, xvfb; sh scripts/build/install_deps.sh"
else
    if ! [ -f "$stack/usr/lib/wine/wine64" ] || ! stack=$(cd "$stack" && pwd); then
        say "$stack is not an unpacked stack of scripts/check/directml_bundle.sh (no usr/lib/wine/wine64)"
        exit 2
    fi
    exe=$stack/bin/directml_process.exe
    dll=${dll:-$stack/bin/DirectML.dll}
    WINE=$stack/usr/lib/wine/wine64
    WINESERVER=$stack/usr/lib/wine/wineserver
    xvfb=$stack/usr/bin/Xvfb
    prefix=$state/stack-wine
    stack_libraries=$stack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    hint="sh scripts/check/directml_bundle.sh, unpacked into $stack"
    tool_hint=$hint
fi
for part in "$exe" "$icd" "$dll"; do
    if ! [ -f "$part" ]; then
        say "$part does not exist ($hint)"
        exit 2
    fi
done
for tool in "$WINE" "$WINESERVER" "$xvfb" sha256sum; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        say "$tool not found ($tool_hint)"
        exit 2
    fi
done
icd=$(absolute "$icd")
dll=$(absolute "$dll")

# The pinned DLL, so that a new DirectML is a decision, not an accident.
pin=$root/conformance/backends/directml.pin
expected=$(sed -n 's/^sha256 //p' "$pin")
actual=$(sha256sum "$dll" | cut -d' ' -f1)
if [ "$actual" != "$expected" ]; then
    say "$dll: sha256 $actual, not the pinned $expected (DirectML" \
        "$(sed -n 's/^version //p' "$pin"), $pin)"
    exit 2
fi

# One leg at a time: the lock holds the leg's process id.
mkdir -p "$state" || exit 2
lock=$state/leg.lock
if ! mkdir "$lock" 2>/dev/null; then
    other=$(cat "$lock/pid" 2>/dev/null)
    if [ -n "$other" ] && kill -0 "$other" 2>/dev/null; then
        say "another leg (process $other) is running with the prefix $prefix"
        exit 2
    fi
    rm -rf "$lock"
    mkdir "$lock" || exit 2
fi
echo $$ >"$lock/pid"

WINEPREFIX=$prefix
WINEDEBUG=-all
WINEDLLOVERRIDES="mscoree,mshtml="
VK_ICD_FILENAMES=$icd
VKD3D_CONFIG=virtual_heaps
export WINEPREFIX WINE WINESERVER WINEDEBUG WINEDLLOVERRIDES VK_ICD_FILENAMES VKD3D_CONFIG

# stack_run PROGRAM [ARG...]: PROGRAM with the stack's libraries, if any
stack_run() {
    if [ -n "$stack" ]; then
        env LD_LIBRARY_PATH="$stack_libraries" XLOCALEDIR="$stack/usr/share/X11/locale" \
            FONTCONFIG_FILE="$stack/etc/fonts/fonts.conf" "$@"
    else
        "$@"
    fi
}

xvfb_pid=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
    stack_run "$WINESERVER" -k 2>/dev/null
    stack_run "$WINESERVER" -w 2>/dev/null
    if [ -n "$xvfb_pid" ]; then
        kill "$xvfb_pid" 2>/dev/null
        wait "$xvfb_pid" 2>/dev/null
    fi
    rm -rf "$lock"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Xvfb writes the display it found free on the file descriptor -displayfd names.
display_file=$lock/display
if [ -z "$stack" ]; then
    Xvfb -displayfd 3 -nolisten tcp 3>"$display_file" 2>"$lock/xvfb.log" &
else
    env LD_LIBRARY_PATH="$stack_libraries" LD_PRELOAD="$stack/lib/xvfb_xkbcomp.so" \
        DMLREF_XKBCOMP_DIR="$stack/usr/bin" "$xvfb" -xkbdir "$stack/usr/share/X11/xkb" \
        -displayfd 3 -nolisten tcp 3>"$display_file" 2>"$lock/xvfb.log" &
fi
xvfb_pid=$!
tries=0
while ! [ -s "$display_file" ]; do
    tries=$((tries + 1))
    if [ "$tries" -gt 100 ] || ! kill -0 "$xvfb_pid" 2>/dev/null; then
        tail -n 5 "$lock/xvfb.log" >&2
        say "Xvfb did not start"
        exit 2
    fi
    sleep 0.1
done
DISPLAY=:$(head -n 1 "$display_file")
export DISPLAY

# A server left by a leg that was killed outright, then this leg's own.
mkdir -p "$WINEPREFIX" || exit 2
stack_run "$WINESERVER" -k 2>/dev/null
if ! stack_run "$WINESERVER" -p; then
    say "$WINESERVER -p failed"
    exit 2
fi
if ! [ -f "$WINEPREFIX/system.reg" ]; then
    say "making the wine prefix $WINEPREFIX"
    if ! stack_run "$WINE" wineboot --init >"$state/wine.log" 2>&1; then
        tail -n 20 "$state/wine.log" >&2
        say "FAILED to make the wine prefix $WINEPREFIX (see $state/wine.log)"
        exit 2
    fi
fi
if ! grep -qs '^"renderer"="vulkan"' "$WINEPREFIX/user.reg"; then
    if ! stack_run "$WINE" reg add 'HKCU\Software\Wine\Direct3D' /v renderer /t REG_SZ \
            /d vulkan /f >"$state/wine.log" 2>&1; then
        tail -n 5 "$state/wine.log" >&2
        say "FAILED to set wine's Direct3D renderer to vulkan"
        exit 2
    fi
fi

reason=$(stack_run "$WINE" "$exe" --canary --dll "$dll" 2>"$lock/canary.err")
status=$?
cat "$lock/canary.err" >&2
if [ "$status" -ne 0 ]; then
    say "the canary failed (exit $status) with VK_ICD_FILENAMES=$icd: ${reason:-no reason given}"
    exit 2
fi

# Quoted for the sh -c that dmlref check --exec runs.
# shellcheck disable=SC2089 # the quotes are for that shell
DMLREF_DIRECTML_EXEC="'$WINE' '$exe' --dll '$dll'"
if [ -n "$stack" ]; then
    # shellcheck disable=SC2089
    DMLREF_DIRECTML_EXEC="env 'LD_LIBRARY_PATH=$stack_libraries'"
    DMLREF_DIRECTML_EXEC="$DMLREF_DIRECTML_EXEC 'XLOCALEDIR=$stack/usr/share/X11/locale'"
    DMLREF_DIRECTML_EXEC="$DMLREF_DIRECTML_EXEC 'FONTCONFIG_FILE=$stack/etc/fonts/fonts.conf'"
    DMLREF_DIRECTML_EXEC="$DMLREF_DIRECTML_EXEC '$WINE' '$exe' --dll '$dll'"
fi
# shellcheck disable=SC2090
export DMLREF_DIRECTML_EXEC
"$@"
status=$?
exit "$status"
