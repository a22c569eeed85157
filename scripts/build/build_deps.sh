#!/bin/sh
# build_deps.sh TARGET DIR - the libraries dmlref needs, built for a target
# Debian packages them not for: Debian packages jansson, xxHash and cmocka
# for Linux only, so they are built here, as static libraries, from Debian's
# own source packages (apt-get source, as Debian ships them; a deb-src entry
# is needed, scripts/build/install_deps.sh adds it).  TARGET is
#   mingw  Windows x86-64 with mingw-w64: jansson, xxHash and cmocka, for
#          the Windows leg of make check (the Makefile's MINGW_DEPS);
#   wasm   WebAssembly with emscripten: jansson and xxHash, for the
#          playground (make playground, the Makefile's WASM_DEPS).
#
# They go to DIR/TARGET-<the source versions>/ (include/, lib/), and
# DIR/TARGET links to that folder.  A folder already built for the same
# versions is kept, so a repeated make check builds nothing; a new source
# version builds a new folder.  Prints one line; the build's output is in
# DIR/TARGET-<versions>.log.
set -eu

if [ $# -ne 2 ] || { [ "$1" != mingw ] && [ "$1" != wasm ]; }; then
    echo "usage: $0 mingw|wasm DIR" >&2
    exit 3
fi
target=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
if [ "$target" = mingw ]; then
    host=x86_64-w64-mingw32
    packages="jansson xxhash cmocka"
    cc=$host-gcc ar=$host-ar
    tools="$cc $ar cmake"
else
    packages="jansson xxhash"
    cc=emcc ar=emar
    tools="$cc $ar emcmake cmake node"
    # Debian's emscripten runs its JavaScript tools with the acorn of
    # Debian's node-acorn, which a Node.js of NodeSource's does not search
    export NODE_PATH=/usr/share/nodejs
fi

for tool in $tools apt-get dpkg-source; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "build_deps: $tool not found (sh scripts/build/install_deps.sh)" >&2
        exit 2
    }
done

# The versions apt-get source would fetch, from the names of their .dsc files
# (jansson_2.14-2.dsc), asked without fetching anything.
# shellcheck disable=SC2086 # packages is a word list
dscs=$(apt-get source --print-uris -qq $packages 2>/dev/null |
       sed -n "s/^'[^']*' \([^ ]*\)\.dsc .*/\1/p") || dscs=""
if [ "$(echo "$dscs" | grep -c _)" -ne "$(echo $packages | wc -w)" ]; then
    echo "build_deps: apt-get source does not find $packages: no deb-src entry, or" \
         "apt-get update has not run since it was added (sh scripts/build/install_deps.sh)" >&2
    exit 2
fi
key=$target-$(echo "$dscs" | tr '_\n' '-_' | sed 's/_$//')
prefix=$dir/$key
log=$dir/$key.log

if [ -f "$prefix/.complete" ]; then
    ln -sfn "$key" "$dir/$target"
    echo "build_deps: $(echo "$dscs" | tr '\n' ' ')already built in $2/$key"
    exit 0
fi

started=$(date +%s)
work=$dir/$key.work
rm -rf "$work" "$prefix"
mkdir -p "$work"
jobs=$(nproc 2>/dev/null || echo 2)

# source_dir PACKAGE: the folder apt-get source unpacked PACKAGE into,
# PACKAGE-<upstream version> (no epoch, no Debian revision)
source_dir() {
    version=$(echo "$dscs" | sed -n "s/^$1_//p")
    echo "$work/$1-${version%-*}"
}

build() {
    cd "$work"
    # shellcheck disable=SC2086
    apt-get source -qq $packages
    if [ "$target" = mingw ]; then
        cat >toolchain.cmake <<EOF
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER $host-gcc)
set(CMAKE_RC_COMPILER $host-windres)
set(CMAKE_FIND_ROOT_PATH /usr/$host)
EOF
        configure="cmake -DCMAKE_TOOLCHAIN_FILE=$work/toolchain.cmake"
    else
        configure="emcmake cmake"
    fi
    cmake_build() { # SOURCE BUILD OPTIONS...
        source=$1 out=$2
        shift 2
        $configure -S "$source" -B "$out" -DCMAKE_INSTALL_PREFIX="$prefix" \
                   -DCMAKE_BUILD_TYPE=Release "$@"
        cmake --build "$out" -j "$jobs"
        cmake --install "$out"
    }
    cmake_build "$(source_dir jansson)" build-jansson -DJANSSON_BUILD_DOCS=OFF \
                -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_BUILD_SHARED_LIBS=OFF
    if [ "$target" = mingw ]; then
        cmake_build "$(source_dir cmocka)" build-cmocka -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF \
                    -DBUILD_SHARED_LIBS=OFF -DWITH_STATIC_LIB=ON
    fi
    # xxHash is one C file and its header
    xxhash=$(source_dir xxhash)
    $cc -O2 -c "$xxhash/xxhash.c" -o xxhash.o
    mkdir -p "$prefix/lib" "$prefix/include"
    $ar rcs "$prefix/lib/libxxhash.a" xxhash.o
    cp "$xxhash/xxhash.h" "$prefix/include/"
}

if ! (build) >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "build_deps: FAILED; the whole output is in $log" >&2
    exit 1
fi
files="include/jansson.h include/xxhash.h lib/libjansson.a lib/libxxhash.a"
[ "$target" = wasm ] || files="$files include/cmocka.h lib/libcmocka-static.a"
for file in $files; do
    if ! [ -f "$prefix/$file" ]; then
        echo "build_deps: FAILED: the build left no $prefix/$file (see $log)" >&2
        exit 1
    fi
done
rm -rf "$work"
touch "$prefix/.complete"
ln -sfn "$key" "$dir/$target"
echo "build_deps: $(echo "$dscs" | tr '\n' ' ')built in $2/$key in" \
     "$(($(date +%s) - started)) s"
