#!/bin/sh
# Installs the Debian packages dmlref needs to build and test, if missing.
# Run as root (or with sudo available) on Debian 12 (bookworm).
#   install_deps.sh         everything make check needs (scripts/setup.sh)
#   install_deps.sh build   only what make needs for the library and the
#                           command, the list README.md's "Set up" shows
set -eu

# make alone: the compiler (gcc brings OpenMP's runtime), the C library's
# headers (only recommended by gcc, and recommendations are not installed
# here), pkg-config, JSON and digests
build_packages="make gcc libc6-dev pkg-config libjansson-dev libxxhash-dev"

case ${1:-all} in
all | build) group=${1:-all} ;;
*)
    echo "usage: sh scripts/build/install_deps.sh [build]" >&2
    exit 3
    ;;
esac

# the rest of the build: clang, LLVM's OpenMP; tests: cmocka, and for the
# independent cross-checks numpy, ONNX's node test data and its reader, and
# Node.js for the JavaScript loader; jsonschema for vectors/schema.json's
# test; gnuplot for scripts/report/plot.py; clang-format for make check-style
packages="$build_packages clang libomp-dev libclang-rt-14-dev
          libcmocka-dev python3 python3-numpy python3-onnx libonnx-testdata python3-jsonschema
          nodejs gnuplot-nox clang-format"

# make check-packaging (tests/cross/test_packaging.sh): pip in a venv and with
# --target, a C++ compiler for tests/cross/cmake_consumer (and cmake, listed below
# for the Windows leg), and npm, which Debian packages apart from Node.js (a
# Node.js of NodeSource's brings its own npm and conflicts with Debian's).
packages="$packages python3-pip python3-venv g++"
if ! command -v npm >/dev/null 2>&1; then
    packages="$packages npm"
fi

# The platform legs of make check (HACKING.md, "Platforms"):
#   32-bit x86: gcc -m32 (gcc-12-multilib: the gcc-multilib package conflicts
#     with the cross compilers) and the i386 libraries, through multiarch;
#   big-endian s390x: its cross compiler and C library (only recommended by
#     the compiler), and the s390x libraries, OpenMP's runtime included, run
#     by qemu-user (which runs the i386 programs too where the kernel cannot);
#   Windows x86-64: mingw-w64 and wine; jansson, xxHash and cmocka are built
#     from Debian's source packages (scripts/build/build_deps.sh: cmake,
#     dpkg-dev, and a deb-src entry, added below).
foreign_architectures="i386 s390x"
packages="$packages gcc-12-multilib libjansson-dev:i386 libxxhash-dev:i386 libcmocka-dev:i386
          gcc-s390x-linux-gnu libc6-dev-s390x-cross libjansson-dev:s390x libxxhash-dev:s390x libcmocka-dev:s390x
          libgomp1:s390x qemu-user gcc-mingw-w64-x86-64-posix wine64 cmake dpkg-dev"

# The playground (docs/playground/, make playground and make check-playground):
# emscripten compiles the library to WebAssembly (with jansson and xxHash
# built from Debian's sources, scripts/build/build_deps.sh), and Chromium with its
# WebDriver runs the page's test headless.
packages="$packages emscripten chromium chromium-driver"

# npm, for the example backends' ONNX Runtime (conformance/backends/peers/package.json):
# part of Node.js's own packages, a package of its own in Debian's
command -v npm >/dev/null 2>&1 || packages="$packages npm"

if [ "$group" = build ]; then
    packages=$build_packages
    foreign_architectures=""
fi

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
stale=""  # what makes apt's package lists out of date

for arch in $foreign_architectures; do
    if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
        echo "install_deps: adding the architecture $arch"
        $sudo dpkg --add-architecture "$arch"
        stale="$stale $arch"
    fi
done

# Debian's sources, for apt-get source (they are not searched when a
# deb-src entry exists, of any form)
src_list=/etc/apt/sources.list.d/dmlref-deb-src.sources
if [ "$group" = all ] && ! grep -Eqs '^[[:space:]]*(deb-src|Types:.*deb-src)' /etc/apt/sources.list \
        /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; then
    # shellcheck disable=SC1091 # the system's file
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    echo "install_deps: adding Debian's sources for $codename ($src_list)"
    printf '%s\n' "# dmlref's scripts/build/install_deps.sh: apt-get source, for make check-mingw" \
        "Types: deb-src" "URIs: http://deb.debian.org/debian" \
        "Suites: $codename $codename-updates" "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" | $sudo tee "$src_list" >/dev/null
    stale="$stale deb-src"
fi

# The package lists of Debian's sources, once fetched (apt-get source finds
# a package), else apt-get update is due even with every package present.
if [ "$group" = all ] && ! apt-get source --print-uris -qq jansson >/dev/null 2>&1; then
    stale="$stale deb-src-lists"
fi

# The DirectML leg (scripts/check/directml_leg.sh): Xvfb, the Vulkan loader and
# lavapipe.  Quiet when present; its failure leaves the rest to install.
[ "$group" = build ] || sh "$(dirname "$0")/../check/directml_stack.sh" ||
    echo "install_deps: the DirectML leg's packages did not install (scripts/check/directml_stack.sh)" >&2

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ] && [ -z "$stale" ]; then
    echo "install_deps: all packages present"
    exit 0
fi

# A mirror being synchronised can fail an index for a while ("File has
# unexpected size ... Mirror sync in progress?"): apt-get update is tried
# again, and then its error is only reported, since the packages may well
# install from the indexes that did come (the install below is what fails).
update() {
    if ! $sudo apt-get update -qq; then
        echo "install_deps: apt-get update failed; again in 5 s" >&2
        sleep 5
        $sudo apt-get update -qq ||
            echo "install_deps: apt-get update failed twice; installing from the indexes it has" >&2
    fi
}

update
if [ -n "$missing" ]; then
    echo "install_deps: installing$missing"
    # --no-remove: when the indexes of two architectures disagree on a version,
    # fail rather than let apt remove installed packages to satisfy both
    # shellcheck disable=SC2086
    if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            --no-remove $missing; then
        echo "install_deps: apt-get install failed; updating the lists and trying once more" >&2
        update
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            --no-remove $missing
    fi
fi
