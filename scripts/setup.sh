#!/bin/sh
# The first set-up command of README.md: installs the Debian packages that
# are missing, then builds the library and reports what was built.
set -eu
cd "$(dirname "$0")/.."

sh scripts/install_deps.sh
make -s lib
echo "setup: built build/libdmlref.a and build/libdmlref.so (dmlref $(sed -n 's/^#define DMLREF_VERSION_MAJOR //p' include/dmlref.h).$(sed -n 's/^#define DMLREF_VERSION_MINOR //p' include/dmlref.h).$(sed -n 's/^#define DMLREF_VERSION_PATCH //p' include/dmlref.h))"
