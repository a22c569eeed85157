# tests/cli/dmlref_binary.sh - the prologue of a script whose one argument is the
# dmlref binary: sourced (`. "$(dirname "$0")/dmlref_binary.sh"`), it sources
# tests/cli/lib.sh and takes that argument as $bin (take_binary), or exits 3 with
# a usage line.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
if [ $# -ne 1 ]; then
    usage "DMLREF_BINARY"
fi
take_binary "$1"

# What the scripts that run the binary share (after make_tmp sets $tmp):
#   run NAME ARGS...        the binary, stdout in $tmp/NAME.out, stderr in
#                           $tmp/NAME.err, status in $rc; under `timeout
#                           $run_limit` seconds when run_limit is set
#   expect_rc NAME WANT ARGS...
#                           run, then the status must be WANT
#   has NAME STREAM TEXT    $tmp/NAME.STREAM (out or err) contains TEXT
#   lacks NAME STREAM TEXT  $tmp/NAME.STREAM does not contain TEXT
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/unit/lsan.supp}
export LSAN_OPTIONS
run_limit=${run_limit:-}

run() {
    name=$1
    shift
    run_command "$name" "$run_limit" "$bin" "$@"
}

expect_rc() {
    name=$1 want=$2
    shift 2
    run "$name" "$@" && expect_exit "$name" "$want" "$tmp/$name.out" "$tmp/$name.err"
}

has() {
    expect_output_contains "$1: std$2" "$tmp/$1.$2" "$3" "$tmp/$1.out" "$tmp/$1.err"
}

lacks() {
    if grep -F -q -e "$3" "$tmp/$1.$2"; then
        bad "$1: std$2 has \"$3\"" "$tmp/$1.$2"
    else
        ok
    fi
}
