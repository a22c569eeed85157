#!/bin/sh
# with_wine.sh PREFIX COMMAND [ARG...] - runs COMMAND with wine made ready for
# the Windows programs it starts (make check-mingw runs its whole leg so):
#   - the wine prefix PREFIX, a folder of the build, so that the checks use
#     nothing of the user's ~/.wine; made on first use (some seconds);
#   - no debugging output, and no offer to install Mono or Gecko;
#   - one wine server for the whole command, started here and stopped at the
#     end, where each program would otherwise start (and wait for) its own.
# WINE (default /usr/lib/wine/wine64, Debian's wine64) is exported for
# COMMAND; WINESERVER is the server beside it.  Exits with COMMAND's status.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 PREFIX COMMAND [ARG...]" >&2
    exit 3
fi
mkdir -p "$1" || exit 3
WINEPREFIX=$(cd "$1" && pwd) || exit 3
shift
WINE=${WINE:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-$(dirname "$WINE")/wineserver}
WINEDEBUG=-all
WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPREFIX WINE WINEDEBUG WINEDLLOVERRIDES

for tool in "$WINE" "$WINESERVER"; do
    if ! [ -x "$tool" ]; then
        echo "with_wine: $tool not found (Debian: wine64; sh scripts/build/install_deps.sh)" >&2
        exit 2
    fi
done

"$WINESERVER" -k 2>/dev/null
"$WINESERVER" -p || {
    echo "with_wine: $WINESERVER -p failed" >&2
    exit 2
}
trap '"$WINESERVER" -k 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP

if ! [ -f "$WINEPREFIX/system.reg" ]; then
    if ! "$WINE" wineboot --init >"$WINEPREFIX.log" 2>&1; then
        tail -n 20 "$WINEPREFIX.log" >&2
        echo "with_wine: FAILED to make the wine prefix $WINEPREFIX (see $WINEPREFIX.log)" >&2
        exit 2
    fi
fi

"$@"
