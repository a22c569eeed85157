#!/bin/sh
# tests/cross/test_packaging.sh [BUILD]
#
# dmlref installs as docs/loaders.md ("Installing") says, and what is
# installed works away from the repository; each check can fail:
#   - pip: ./scripts installs offline (no index, no build isolation) into a
#     venv that sees the system's packages, and into a --target folder;
#     only dmlref_vectors.py is installed, as dmlref's version
#     (include/dmlref.h); imported from outside the repository, with its
#     scripts/ not on sys.path, the installed file passes the loader's own
#     tests (the docstring's example and selftest);
#   - npm: npm pack of scripts/ holds package.json and dmlref_vectors.mjs
#     alone, as dmlref's version; installed offline from that tarball into a
#     new project, `import ... from 'dmlref-vectors'` works there,
#     tests/cross/test_loader.mjs passes against the installed package, and a path
#     the exports map does not name cannot be imported;
#   - make install PREFIX=...: a program built with pkg-config's flags runs
#     (LD_LIBRARY_PATH set to the prefix's lib); the CMake package holds no
#     absolute path, and after the tree is moved tests/cross/cmake_consumer
#     configures with find_package(dmlref MAJOR.MINOR CONFIG REQUIRED),
#     builds against dmlref::dmlref and dmlref::dmlref_static, and its
#     programs print what they should (the shared ones find the library
#     through the RUNPATH CMake gives a build, with no LD_LIBRARY_PATH);
#   - what must fail does: find_package of the next major version, of a
#     newer minor version, and of dmlref in a prefix without its CMake package;
#   - make uninstall leaves no dmlref file behind, and the source tree is as
#     it was (git status).
# BUILD is the build folder whose library make install takes (build).
# Uses python3 and its venv and pip, npm and node, cmake, cc and c++, and
# pkg-config; everything is written under one mktemp folder.
# Ends with "N passed, N failed"; exits 1 if any check failed.

set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

build=${1:-build}
python=/usr/bin/python3
make_tmp packaging

version_part() {
    sed -n "s/^#define DMLREF_VERSION_$1 \([0-9]*\)\$/\1/p" "$root/include/dmlref.h"
}
major=$(version_part MAJOR) minor=$(version_part MINOR)
version=$major.$minor.$(version_part PATCH)

# pass NAME: the last run_command exited 0 (a failure showing its output
# otherwise); then `has` checks what it printed.
pass() {
    expect_exit "$1" 0 "$tmp/$1.err" "$tmp/$1.out"
}

# has NAME TEXT [WHAT]: the last output of NAME holds TEXT; one check, named
# WHAT when it passes.
has() {
    if grep -F -q -e "$2" "$tmp/$1.out" "$tmp/$1.err"; then
        ok "${3:-$1: \"$2\"}"
    else
        bad "$1 lacks \"$2\"" "$tmp/$1.err" "$tmp/$1.out"
    fi
}

# refused NAME TEXT WHAT: the last run_command of NAME failed, saying TEXT.
refused() {
    if [ "$rc" -eq 0 ]; then
        bad "$1: exit 0, expected a failure" "$tmp/$1.out"
    else
        has "$1" "$2" "$3"
    fi
}

# What git sees changed or new in the folders the packages are made from,
# and what building them would leave in scripts/ though git ignores it (not
# every ignored file: the checks running beside this one write caches).
# --no-optional-locks: status leaves the index alone, as other checks read it.
tree_state() {
    git -C "$root" --no-optional-locks status --porcelain --untracked-files=all -- scripts tests \
        2>/dev/null
    (cd "$root/scripts/loaders" && ls -d build ./*.egg-info node_modules ./*.tgz 2>/dev/null)
}
tree_before=$(tree_state)

# ---------------------------------------------------------------------------
# pip: from a copy of scripts/, so that the build's build/ and *.egg-info
# stay out of the source tree; offline: no index, no folder of wheels.
(cd "$root/scripts" && tar -cf - --exclude=node_modules --exclude=__pycache__ loaders) | (cd "$tmp" && tar -xf -)
unset PIP_FIND_LINKS
PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_CONFIG_FILE PIP_DISABLE_PIP_VERSION_CHECK
offline="--no-build-isolation --no-index --no-cache-dir"

# names DIR: the names in DIR, one a line
names() {
    find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort
}
copy_before=$(names "$tmp/loaders")

# shellcheck disable=SC2086 # $offline is options
if run_command venv 60 "$python" -m venv --system-site-packages "$tmp/venv" && pass venv &&
    run_command pip_venv 120 "$tmp/venv/bin/python" -m pip install $offline "$tmp/loaders" &&
    pass pip_venv; then
    ok "pip install --no-build-isolation --no-index ./scripts into a venv (--system-site-packages)"
    # What a build in scripts/ itself would leave there (build/, *.egg-info/),
    # git ignores.
    if [ -e "$root/.git" ]; then
        left=$(names "$tmp/loaders" | grep -v -x -F "$copy_before" | paste -s -d " " -)
        unignored=""
        for path in $left; do
            git -C "$root" check-ignore -q --no-index "scripts/loaders/$path/" || unignored="$unignored $path"
        done
        if [ -z "$unignored" ]; then
            ok "what the build leaves in scripts/, ${left:-nothing}, git ignores"
        else
            fail "the build leaves in scripts/ what git does not ignore:$unignored"
        fi
    fi
    # -I: PYTHONPATH and the user's site-packages ignored, and the working
    # folder (not the repository) left off sys.path
    cd "$tmp" || exit 3
    if run_command py_where 20 "$tmp/venv/bin/python" -I -c '
import importlib.metadata, os, sys
import dmlref_vectors as m
print("file", m.__file__)
print("version", m.__version__, importlib.metadata.version("dmlref-vectors"))
print("scripts on sys.path:", any(os.path.realpath(p) == os.path.realpath(sys.argv[1])
                                  for p in sys.path if p))' "$root/scripts/loaders" && pass py_where; then
        has py_where "file $tmp/venv/lib/" "the venv's module is its site-packages' file"
        has py_where "version $version $version" "__version__ and the package's version are dmlref's, $version"
        has py_where "scripts on sys.path: False" "the repository's scripts/ is not on sys.path"
        site=$(sed -n 's/^file //p' "$tmp/py_where.out")
        if run_command py_doctest 60 "$tmp/venv/bin/python" -I -m doctest -v "$site" &&
            pass py_doctest; then
            has py_doctest "Test passed." "the installed module's docstring example (doctest)"
        fi
        if run_command py_selftest 60 "$tmp/venv/bin/python" -I -m dmlref_vectors selftest &&
            pass py_selftest; then
            has py_selftest "selftest: 0 failure(s)" "the installed module's selftest"
        fi
        if run_command py_version 20 "$tmp/venv/bin/python" -I -m dmlref_vectors --version &&
            pass py_version; then
            has py_version "dmlref_vectors $version" "python3 -m dmlref_vectors --version: $version"
        fi
    fi
    cd "$root" || exit 3
fi

# --target: the other way past Debian's "externally managed" system Python
# shellcheck disable=SC2086 # $offline is options
if run_command pip_target 120 "$python" -m pip install $offline --target "$tmp/target" "$tmp/loaders" &&
    pass pip_target; then
    extra=$(names "$tmp/target" | grep -v -x -e dmlref_vectors.py -e "dmlref_vectors-$version.dist-info" \
            -e __pycache__)
    if [ -z "$extra" ] && [ -f "$tmp/target/dmlref_vectors.py" ]; then
        ok "pip install --target: dmlref_vectors.py and its dist-info $version alone"
    else
        fail "pip install --target installed more or less than dmlref_vectors.py: $(names "$tmp/target" | paste -s -d " " -)"
    fi
    cd "$tmp" || exit 3
    if run_command py_target 20 env PYTHONPATH="$tmp/target" "$python" -s -c \
        'import dmlref_vectors as m; print(m.__file__, m.__version__)' && pass py_target; then
        has py_target "$tmp/target/dmlref_vectors.py $version" \
            "PYTHONPATH=TARGET imports the --target module, version $version"
    fi
    if run_command py_target_version 20 env PYTHONPATH="$tmp/target" "$python" -s -m dmlref_vectors \
        --version && pass py_target_version; then
        has py_target_version "dmlref_vectors $version" \
            "PYTHONPATH=TARGET python3 -m dmlref_vectors --version: $version"
    fi
    cd "$root" || exit 3
fi

# ---------------------------------------------------------------------------
# npm, with a cache and user configuration of its own, offline
npm_config_cache=$tmp/npm-cache npm_config_userconfig=$tmp/npmrc npm_config_offline=true
npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false
export npm_config_cache npm_config_userconfig npm_config_offline npm_config_update_notifier \
    npm_config_audit npm_config_fund
: >"$tmp/npmrc"
mkdir "$tmp/pack" "$tmp/js"
tarball=$tmp/pack/dmlref-vectors-$version.tgz
cd "$root/scripts/loaders" || exit 3
run_command npm_pack 60 npm pack --pack-destination "$tmp/pack"
cd "$root" || exit 3
if pass npm_pack; then
    if [ -f "$tarball" ]; then
        contents=$(tar -tzf "$tarball" | sort | tr '\n' ' ')
        if [ "$contents" = "package/dmlref_vectors.mjs package/package.json " ]; then
            ok "npm pack: dmlref-vectors-$version.tgz holds package.json and dmlref_vectors.mjs alone"
        else
            fail "npm pack: the tarball holds $contents"
        fi
    else
        bad "npm pack made no $tarball" "$tmp/npm_pack.out"
    fi
fi

printf '{"name": "consumer", "private": true, "type": "module"}\n' >"$tmp/js/package.json"
cd "$tmp/js" || exit 3
if [ -f "$tarball" ] && run_command npm_install 60 npm install --offline "$tarball" && pass npm_install; then
    ok "npm install --offline of the tarball into a new project"
    if run_command js_import 20 node --input-type=module -e "
import {parseVector, checkOutputs} from 'dmlref-vectors';
import {readFileSync} from 'node:fs';
const v = parseVector(readFileSync('$root/vectors/gather_elements/float32/2d/doc_example.json', 'utf8'));
console.log(v.name, typeof checkOutputs,
            JSON.parse(readFileSync('node_modules/dmlref-vectors/package.json', 'utf8')).version);" &&
        pass js_import; then
        has js_import "gather_elements/float32/2d/doc_example function $version" \
            "import {parseVector, checkOutputs} from 'dmlref-vectors' reads a vector; package version $version"
    fi
    # The loader's tests, importing the package as a user's code does.
    cp "$root/tests/cross/test_loader.mjs" "$tmp/js/"
    if run_command js_tests 120 env DMLREF_VECTORS_MODULE=dmlref-vectors node test_loader.mjs &&
        pass js_tests; then
        ok "tests/cross/test_loader.mjs against the installed package: $(tail -n 1 "$tmp/js_tests.out")"
    fi
    run_command js_deep 20 node --input-type=module -e "await import('dmlref-vectors/dmlref_vectors.mjs');"
    refused js_deep ERR_PACKAGE_PATH_NOT_EXPORTED \
        "import of dmlref-vectors/dmlref_vectors.mjs fails: the exports map names '.' alone"
fi
cd "$root" || exit 3

# ---------------------------------------------------------------------------
# make install, pkg-config
prefix=$tmp/prefix
if run_command install 300 make -C "$root" --no-print-directory install BUILD="$build" PREFIX="$prefix" &&
    pass install; then
    ok "make install PREFIX=$prefix"
fi

if run_command pc_version 20 env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion dmlref &&
    pass pc_version; then
    has pc_version "$version" "pkg-config --modversion dmlref: $version"
fi
# shellcheck disable=SC2016 # expanded by the inner shell
run_command pc_build 60 env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" sh -c \
    'cc -std=c99 "$1" $(pkg-config --cflags dmlref) -o "$2" $(pkg-config --libs dmlref)' \
    sh "$root/tests/cross/cmake_consumer/consumer.c" "$tmp/pc_consumer"
if pass pc_build && run_command pc_run 20 env LD_LIBRARY_PATH="$prefix/lib" "$tmp/pc_consumer" &&
    pass pc_run; then
    has pc_run "dmlref $version: GatherElements 4 8 3 7 2 3; index 3 refused: DMLREF_ERROR_INDEX_OUT_OF_RANGE" \
        "cc \$(pkg-config --cflags --libs dmlref): the program runs (LD_LIBRARY_PATH=PREFIX/lib)"
fi

# ---------------------------------------------------------------------------
# CMake: the package as installed, then moved with its tree
cmake_dir=$prefix/lib/cmake/dmlref
if [ -f "$cmake_dir/dmlrefConfig.cmake" ] && [ -f "$cmake_dir/dmlrefConfigVersion.cmake" ]; then
    if grep -q -F "$tmp" "$cmake_dir/dmlrefConfig.cmake" "$cmake_dir/dmlrefConfigVersion.cmake"; then
        bad "the CMake package names where it was installed" "$cmake_dir/dmlrefConfig.cmake"
    else
        ok "make install wrote lib/cmake/dmlref/dmlrefConfig.cmake and dmlrefConfigVersion.cmake, with no absolute path"
    fi
else
    fail "make install wrote no lib/cmake/dmlref/dmlrefConfig.cmake and dmlrefConfigVersion.cmake"
fi
moved=$tmp/moved
mv "$prefix" "$moved"

consumer=$root/tests/cross/cmake_consumer
vector=$root/vectors/scatter_elements/float32/1d/doc_example1_duplicate.json
for target in dmlref::dmlref dmlref::dmlref_static; do
    name=${target#dmlref::}
    dir=$tmp/cmake-$name
    run_command "configure_$name" 120 cmake -S "$consumer" -B "$dir" -DCMAKE_PREFIX_PATH="$moved" \
        -DDMLREF_WANTED="$major.$minor" -DDMLREF_TARGET="$target"
    pass "configure_$name" || continue
    has "configure_$name" "dmlref $version from $moved/lib/cmake/dmlref, linking $target" \
        "find_package(dmlref $major.$minor CONFIG REQUIRED) finds $version in the moved prefix ($target)"
    run_command "build_$name" 300 cmake --build "$dir" -j 2
    pass "build_$name" || continue
    ok "tests/cross/cmake_consumer builds against $target (C99 and C++11, -Wall -Wextra -pedantic -Werror)"
    for program in consumer_c consumer_cxx; do
        run_command "${program}_$name" 60 env -u LD_LIBRARY_PATH "$dir/$program" "$vector"
        pass "${program}_$name" || continue
        if [ "$program" = consumer_c ]; then
            has "${program}_$name" \
                "dmlref $version: GatherElements 4 8 3 7 2 3; index 3 refused: DMLREF_ERROR_INDEX_OUT_OF_RANGE" \
                "$program ($target) runs GatherElements: 4 8 3 7 2 3, then refuses index 3"
        else
            has "${program}_$name" \
                "scatter_elements/float32/1d/doc_example1_duplicate: verified; executed and compared; a flipped byte: DMLREF_ERROR_MISMATCH" \
                "$program ($target) verifies a vector, executes and compares it, and catches a flipped byte"
        fi
        run_command "ldd_${program}_$name" 20 env -u LD_LIBRARY_PATH ldd "$dir/$program"
        if [ "$name" = dmlref ]; then
            has "ldd_${program}_$name" "libdmlref.so.$major => $moved/lib/libdmlref.so.$major" \
                "$program loads the moved prefix's libdmlref.so.$major (RUNPATH, no LD_LIBRARY_PATH)"
        elif grep -q libdmlref "$tmp/ldd_${program}_$name.out"; then
            bad "$program ($target) needs a shared libdmlref" "$tmp/ldd_${program}_$name.out"
        else
            ok "$program ($target) needs no shared libdmlref"
        fi
    done
done

# Requests this version does not meet, and one it does, in the configured
# build folder (dmlref_DIR is known there: only the version decides).
dir=$tmp/cmake-dmlref
if [ -f "$dir/CMakeCache.txt" ]; then
    for wanted in "$((major + 1))" "$major.$((minor + 1))"; do
        run_command "configure_$wanted" 120 cmake -S "$consumer" -B "$dir" -DDMLREF_WANTED="$wanted"
        refused "configure_$wanted" "version: $version" \
            "find_package(dmlref $wanted CONFIG REQUIRED) fails: $version considered, not accepted"
    done
    range="$major.$minor...<$((major + 1))"
    run_command configure_range 120 cmake -S "$consumer" -B "$dir" -DDMLREF_WANTED="$range"
    if pass configure_range; then
        has configure_range "dmlref $version from" "find_package(dmlref $range CONFIG REQUIRED) accepts $version"
    fi

    # A prefix with the library and headers but no CMake package: searched
    # afresh (dmlref_DIR forgotten), and nowhere else, lest an install of
    # dmlref on this machine be found (the compilers are known by now).
    no_package=$tmp/no-package
    cp -R "$moved" "$no_package"
    rm -rf "$no_package/lib/cmake"
    run_command configure_no_package 120 cmake -S "$consumer" -B "$dir" -U dmlref_DIR \
        -DCMAKE_PREFIX_PATH="$no_package" -DDMLREF_WANTED="$major.$minor" \
        -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF -DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
    refused configure_no_package 'Could not find a package configuration file provided by "dmlref"' \
        "find_package(dmlref $major.$minor CONFIG REQUIRED) fails in a prefix without the CMake package"
fi

# ---------------------------------------------------------------------------
# make uninstall
if run_command uninstall 60 make -C "$root" --no-print-directory uninstall BUILD="$build" PREFIX="$moved" &&
    pass uninstall; then
    left=$(find "$moved" -name '*dmlref*' -o -type f -o -type l)
    if [ -z "$left" ]; then
        ok "make uninstall leaves no dmlref file or folder, nor any file, in the prefix"
    else
        fail "make uninstall left $(echo "$left" | tr '\n' ' ')"
    fi
fi

if [ -e "$root/.git" ]; then
    tree_after=$(tree_state)
    if [ "$tree_after" = "$tree_before" ]; then
        ok "the source tree is as it was (git status; no build/, *.egg-info, node_modules or tarball in scripts/)"
    else
        fail "the source tree changed: before: $tree_before; after: $tree_after"
    fi
fi

# shellcheck disable=SC2119 # no label
finish
