# tests/dmlref_binary.sh - sourced by the command's test scripts
# (`. "$(dirname "$0")/dmlref_binary.sh"`): takes their one argument, the
# dmlref binary, as $bin (an absolute path when it names a file), or exits 3
# with a usage line.
if [ $# -ne 1 ]; then
    echo "usage: $0 DMLREF_BINARY" >&2
    exit 3
fi
bin=$1
if ! [ -x "$bin" ] && ! command -v "$bin" >/dev/null 2>&1; then
    echo "$0: $bin is not an executable" >&2
    exit 3
fi
case $bin in
*/*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;;
esac
