#!/bin/sh
# The first set-up command of README.md: installs the Debian packages that
# are missing and builds jansson, xxHash and cmocka for mingw-w64 (the
# Windows leg's; alongside the rest), installs the example backends' npm
# packages (ONNX Runtime for Node.js), builds the library and the dmlref
# command, regenerates the golden suite and checks it is byte for byte the
# committed one, verifies every vector, and ends with a one-line summary.
set -eu
cd "$(dirname "$0")/.."

sh scripts/install_deps.sh
mkdir -p build
deps_log=build/setup-mingw-deps.log
sh scripts/build_mingw_deps.sh build/deps >"$deps_log" 2>&1 &
deps=$!
make -s node-deps
# with make check's flags (-Werror), so check-vectors below and make check reuse the build
make -s all WERROR=-Werror
log=build/setup-vectors.log
if ! make -s check-vectors >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: FAILED: the golden suite does not regenerate or verify (see above)" >&2
    exit 1
fi
if ! wait "$deps"; then
    cat "$deps_log" >&2
    echo "setup: FAILED: the mingw-w64 libraries do not build (see above)" >&2
    exit 1
fi
echo "setup: built dmlref $(build/dmlref --version | cut -d' ' -f2); golden suite regenerated" \
     "byte for byte and verified: $(tail -n 1 "$log")"
