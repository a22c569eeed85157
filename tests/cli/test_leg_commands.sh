#!/bin/sh
# tests/cli/test_leg_commands.sh DMLREF BACKENDS_DIR LINUX_DMLREF LINUX_BACKENDS_DIR
#
# The commands a platform leg's whole-suite steps (tests/cli/whole_suite.sh) do
# not run, on a build for another machine (DMLREF, a script running it under
# an emulator, and its plug-ins in BACKENDS_DIR, NAME.so or NAME.dll), each
# held to what the Linux build (LINUX_DMLREF, LINUX_BACKENDS_DIR) writes:
#   - eval to standard output writes the bytes of eval -o and of the
#     committed vector (binary mode: no CRLF on Windows);
#   - show and explain write Linux's bytes;
#   - fuzz of the reference plug-in finds nothing, and of a faulty one finds
#     a difference, with Linux's summary line at the same seed and Linux's
#     shrunk vectors byte for byte;
#   - bench of one case runs and writes its JSON report.
# Prints one line a check and ends with "N passed, N failed"; exits 1 when a
# check failed.
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -ne 4 ]; then
    usage "DMLREF BACKENDS_DIR LINUX_DMLREF LINUX_BACKENDS_DIR"
fi
take_binary "$3"
linux=$bin
linux_backends=$(cd "$4" && pwd) || exit 3
take_binary "$1"
other=$bin
other_backends=$(cd "$2" && pwd) || exit 3
make_tmp leg-commands
cd "$root" || exit 1

# plugin FOLDER NAME: FOLDER/NAME.so or FOLDER/NAME.dll, whichever it holds
plugin() {
    if [ -f "$1/$2.dll" ]; then echo "$1/$2.dll"; else echo "$1/$2.so"; fi
}

# same NAME: the other build's output (NAME.other) is Linux's (NAME.linux), byte for byte
same() {
    if cmp -s "$tmp/$1.linux" "$tmp/$1.other"; then
        ok "$1: the bytes of Linux ($(wc -c <"$tmp/$1.other" | tr -d ' ') bytes)"
    else
        bad "$1: not the bytes of Linux ($(cmp "$tmp/$1.linux" "$tmp/$1.other" 2>&1))" \
            "$tmp/$1.other" "$tmp/$1.err"
    fi
}

vector=vectors/scatter_elements/float16/3d/axis1_uint32_padded.json

"$other" eval "$vector" >"$tmp/eval.other" 2>"$tmp/eval.err"
"$other" eval "$vector" -o "$tmp/eval-file.other" 2>>"$tmp/eval.err"
if cmp -s "$vector" "$tmp/eval.other" && cmp -s "$vector" "$tmp/eval-file.other"; then
    ok "eval: standard output and -o hold the committed vector's bytes"
else
    bad "eval: standard output or -o differs from $vector" "$tmp/eval.err"
fi

"$linux" show "$vector" >"$tmp/show.linux" 2>&1
"$other" show "$vector" >"$tmp/show.other" 2>"$tmp/show.err"
same show
"$linux" explain "$vector" >"$tmp/explain.linux" 2>&1
"$other" explain "$vector" >"$tmp/explain.other" 2>"$tmp/explain.err"
same explain

# fuzz NAME PLUGIN WANT: both builds fuzz PLUGIN with one seed (the same cases
# on every machine, so the same summary), shrinking into $tmp/NAME.linux and
# $tmp/NAME.other; the other build must exit WANT and print Linux's summary
fuzz() {
    for lib_side in linux other; do
        if [ "$lib_side" = linux ]; then set -- "$1" "$2" "$3" "$linux" "$linux_backends"
        else set -- "$1" "$2" "$3" "$other" "$other_backends"; fi
        "$4" fuzz --backend "$(plugin "$5" "$2")" --seed 7 --cases 200 --shrink 2 \
            --out "$tmp/$1.$lib_side" >"$tmp/$1.err" 2>&1
        echo "exit $?" >"$tmp/$1-summary.$lib_side"
        tr -d '\r' <"$tmp/$1.err" | tail -n 1 >>"$tmp/$1-summary.$lib_side"
    done
    if grep -q "^exit $3\$" "$tmp/$1-summary.other"; then
        same "$1-summary"
    else
        bad "fuzz of $2: $(cat "$tmp/$1-summary.other"), not exit $3" "$tmp/$1.err"
    fi
}
fuzz fuzz-reference reference 0
fuzz shrunk faulty_ignores_strides 1
if [ -n "$(ls "$tmp/shrunk.linux" 2>/dev/null)" ] && diff -r "$tmp/shrunk.linux" "$tmp/shrunk.other" >"$tmp/shrunk.diff" 2>&1; then
    ok "fuzz: the shrunk vectors are Linux's, byte for byte ($(ls "$tmp/shrunk.other" | wc -l | tr -d ' ') files)"
else
    bad "fuzz: the shrunk vectors differ from Linux's, or there are none" "$tmp/shrunk.diff"
fi

case_name=$("$linux" bench --list 2>/dev/null | grep '2^16' | head -n 1)
"$other" bench --filter "$case_name" --size 16 --threads 1 --reps 1 --json "$tmp/bench.json" \
    >"$tmp/bench.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "$(printf '%s' "$case_name" | sed 's/[]^$.*[]/\\&/g')" "$tmp/bench.json"; then
    ok "bench of $case_name: exit 0, its JSON report names the case"
else
    bad "bench of $case_name: exit $rc" "$tmp/bench.out"
fi

finish
