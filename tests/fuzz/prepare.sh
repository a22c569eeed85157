#!/bin/sh
# tests/fuzz/prepare.sh BUILD_DIR - steps 1 to 3 of run_smoke.sh alone: the
# sanitized library, the libFuzzer targets and their seeds in BUILD_DIR
# (make check-builds runs it, so that make check's fuzz-smoke only fuzzes).
# Exits 2 on a usage or build error.
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
# shellcheck source=tests/fuzz/common.sh
. "$(dirname "$0")/common.sh" || exit 2
fuzz_setup "$1" 1
fuzz_build
fuzz_seeds
