# tests/dmlref_binary.sh - the prologue of a script whose one argument is the
# dmlref binary: sourced (`. "$(dirname "$0")/dmlref_binary.sh"`), it sources
# tests/lib.sh and takes that argument as $bin (take_binary), or exits 3 with
# a usage line.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if [ $# -ne 1 ]; then
    usage "DMLREF_BINARY"
fi
take_binary "$1"
