#!/bin/sh
# Installs the Debian packages dmlref needs to build and test, if missing.
# Run as root (or with sudo available) on Debian 12 or later.
set -eu

# build: compilers, OpenMP, JSON, digests; tests: cmocka, and for the
# independent cross-checks numpy, ONNX's node test data and its reader, and
# Node.js for the JavaScript loader; jsonschema for vectors/schema.json's
# test; gnuplot for dmlref bench --plot; clang-format for make check-style
packages="make gcc clang libomp-dev libclang-rt-14-dev pkg-config libjansson-dev libxxhash-dev
          libcmocka-dev python3 python3-numpy python3-onnx libonnx-testdata python3-jsonschema
          nodejs gnuplot-nox clang-format"

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "install_deps: all packages present"
    exit 0
fi

echo "install_deps: installing$missing"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
