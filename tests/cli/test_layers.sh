#!/bin/sh
# test_layers.sh - scripts/check/check_layers.sh passes on the tree and fails on
# each kind of use against the layers, in a copy of the tree.
set -u
. "$(dirname "$0")/lib.sh"
cd "$root" || exit 3
CC=${CC:-cc}
make_tmp layers
work=$tmp

fresh_copy() {
    rm -rf "$work/tree"
    mkdir -p "$work/tree/scripts/check"
    cp -R src reference conformance include "$work/tree/"
    cp scripts/check/check_layers.sh "$work/tree/scripts/check/"
}

# expect_violation NAME TEXT [BUILD]: the check fails and says TEXT.
expect_violation() {
    if out=$(sh "$work/tree/scripts/check/check_layers.sh" ${3:-} 2>&1); then
        fail "$1: passed, it should fail"
    elif printf '%s\n' "$out" | grep -F -- "$2" >/dev/null; then
        ok "$1"
    else
        fail "$1: the message lacks '$2': $out"
    fi
}

fresh_copy
if out=$(sh "$work/tree/scripts/check/check_layers.sh" 2>&1); then ok "the tree keeps its layers"
else fail "the tree: $out"; fi

echo '#include "suite/suite.h"' >> "$work/tree/src/base/tensor.c"
expect_violation "src/base includes a header of src/suite" \
    'src/base/tensor.c: #include "suite/suite.h": src/base (layer 0) may not use src/suite (layer 5)'

fresh_copy
echo '#include "kernels/kernels.h"' >> "$work/tree/src/base/index.c"
expect_violation "src/base includes the kernels' header" \
    'src/base/index.c: #include "kernels/kernels.h": src/base (layer 0) may not use src/kernels'

fresh_copy
printf '#include "kernels/kernels.h"\n' > "$work/tree/reference/peek.c"
expect_violation "reference/ includes src/kernels (one rank, two folders)" \
    'reference/peek.c: #include "kernels/kernels.h": reference (layer 1) may not use src/kernels (layer 1)'

fresh_copy
echo '#include "dmlref/vector.h"' >> "$work/tree/src/core/validate.c"
expect_violation "src/core includes the vector API" \
    'src/core/validate.c: #include "dmlref/vector.h": src/core (layer 2) may not use src/vector'

fresh_copy
echo '#include <jansson.h>' >> "$work/tree/src/core/execute.c"
expect_violation "src/core includes jansson" \
    'src/core/execute.c: includes <jansson.h> or <xxhash.h>: only src/vector and above may'

fresh_copy
echo '#include "base.h"' >> "$work/tree/src/base/status.c"
expect_violation "an include without its folder" 'name a header by its folder ("base/base.h")'

fresh_copy
mkdir -p "$work/tree/src/extra"
echo 'int dmlref__extra;' > "$work/tree/src/extra/extra.c"
expect_violation "a folder that is no layer" 'src/extra is not a layer'

# Calls, from object files: src/base calling a function the command defines.
fresh_copy
mkdir -p "$work/build/obj/src/base" "$work/build/obj/src/cli"
printf 'int dmlref__command_thing(void);\nint dmlref__base_thing(void) { return dmlref__command_thing(); }\n' \
    > "$work/base_thing.c"
printf 'int dmlref__command_thing(void) { return 1; }\n' > "$work/command_thing.c"
if $CC -c "$work/base_thing.c" -o "$work/build/obj/src/base/base_thing.o" &&
   $CC -c "$work/command_thing.c" -o "$work/build/obj/src/cli/command_thing.o"; then
    expect_violation "src/base calls a function of src/cli" \
        'src/base (layer 0) calls dmlref__command_thing of src/cli (layer 7)' "$work/build"
    # the other way round is the arrows' direction
    rm -f "$work/build/obj/src/base/"*.o "$work/build/obj/src/cli/"*.o
    printf 'int dmlref__base_thing(void);\nint dmlref__command_thing(void) { return dmlref__base_thing(); }\n' \
        > "$work/command_thing.c"
    printf 'int dmlref__base_thing(void) { return 1; }\n' > "$work/base_thing.c"
    $CC -c "$work/base_thing.c" -o "$work/build/obj/src/base/base_thing.o"
    $CC -c "$work/command_thing.c" -o "$work/build/obj/src/cli/command_thing.o"
    if out=$(sh "$work/tree/scripts/check/check_layers.sh" "$work/build" 2>&1); then
        ok "src/cli calling src/base is along the arrows"
    else
        fail "src/cli calling src/base: $out"
    fi
else
    fail "cannot compile the objects of the call test"
fi

finish
