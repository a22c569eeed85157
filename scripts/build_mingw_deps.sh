#!/bin/sh
# build_mingw_deps.sh DIR - the libraries dmlref needs, built for Windows
# x86-64 with mingw-w64: Debian packages jansson, xxHash and cmocka for Linux
# only, so they are built here, as static libraries, from Debian's own source
# packages (apt-get source, as Debian ships them; a deb-src entry is needed,
# scripts/install_deps.sh adds it).
#
# They go to DIR/mingw-<the three source versions>/ (include/, lib/), and
# DIR/mingw links to that folder, which the Makefile's MINGW_DEPS names.  A
# folder already built for the same versions is kept, so a repeated make
# check builds nothing; a new source version builds a new folder.  Prints one
# line; the build's output is in DIR/mingw-<versions>.log.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 DIR" >&2
    exit 3
fi
mkdir -p "$1"
dir=$(cd "$1" && pwd)
host=x86_64-w64-mingw32
packages="jansson xxhash cmocka"

for tool in $host-gcc $host-ar cmake apt-get dpkg-source; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "build_mingw_deps: $tool not found (sh scripts/install_deps.sh)" >&2
        exit 2
    }
done

# The versions apt-get source would fetch, from the names of their .dsc files
# (jansson_2.14-2.dsc), asked without fetching anything.
# shellcheck disable=SC2086 # packages is a word list
dscs=$(apt-get source --print-uris -qq $packages 2>/dev/null |
       sed -n "s/^'[^']*' \([^ ]*\)\.dsc .*/\1/p") || dscs=""
if [ "$(echo "$dscs" | grep -c _)" -ne 3 ]; then
    echo "build_mingw_deps: apt-get source does not find $packages: no deb-src entry, or" \
         "apt-get update has not run since it was added (sh scripts/install_deps.sh)" >&2
    exit 2
fi
key=mingw-$(echo "$dscs" | tr '_\n' '-_' | sed 's/_$//')
prefix=$dir/$key
log=$dir/$key.log

if [ -f "$prefix/.complete" ]; then
    ln -sfn "$key" "$dir/mingw"
    echo "build_mingw_deps: $(echo "$dscs" | tr '\n' ' ')already built in $1/$key"
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
    cat >toolchain.cmake <<EOF
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER $host-gcc)
set(CMAKE_RC_COMPILER $host-windres)
set(CMAKE_FIND_ROOT_PATH /usr/$host)
EOF
    cmake_build() { # SOURCE BUILD OPTIONS...
        source=$1 out=$2
        shift 2
        cmake -S "$source" -B "$out" -DCMAKE_TOOLCHAIN_FILE="$work/toolchain.cmake" \
              -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release "$@"
        cmake --build "$out" -j "$jobs"
        cmake --install "$out"
    }
    cmake_build "$(source_dir jansson)" build-jansson -DJANSSON_BUILD_DOCS=OFF \
                -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_BUILD_SHARED_LIBS=OFF
    cmake_build "$(source_dir cmocka)" build-cmocka -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF \
                -DBUILD_SHARED_LIBS=OFF -DWITH_STATIC_LIB=ON
    # xxHash is one C file and its header
    xxhash=$(source_dir xxhash)
    $host-gcc -O2 -c "$xxhash/xxhash.c" -o xxhash.o
    $host-ar rcs "$prefix/lib/libxxhash.a" xxhash.o
    cp "$xxhash/xxhash.h" "$prefix/include/"
}

if ! (build) >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "build_mingw_deps: FAILED; the whole output is in $log" >&2
    exit 1
fi
for file in include/jansson.h include/xxhash.h include/cmocka.h lib/libjansson.a lib/libxxhash.a \
            lib/libcmocka-static.a; do
    if ! [ -f "$prefix/$file" ]; then
        echo "build_mingw_deps: FAILED: the build left no $prefix/$file (see $log)" >&2
        exit 1
    fi
done
rm -rf "$work"
touch "$prefix/.complete"
ln -sfn "$key" "$dir/mingw"
echo "build_mingw_deps: $(echo "$dscs" | tr '\n' ' ')built in $1/$key in" \
     "$(($(date +%s) - started)) s"
