#!/bin/sh
# The DirectML leg (scripts/check/directml_leg.sh) can fail, and passes when it
# should:
#   - a DirectML.dll that is not the pinned one (a copy with one byte
#     changed) stops it with exit 2, naming both sha256 sums, before anything
#     starts;
#   - bookworm's own lavapipe (Mesa 22.3), on which vkd3d's dispatches return
#     S_OK and write nothing, stops it with exit 2 at the canary, COMMAND not
#     run;
#   - on the stack of scripts/check/directml_stack.sh the canary passes and
#     `dmlref check` passes GatherElements' FLOAT32 cases through DirectML
#     (but the "oob": "clamp" ones: a policy DirectML does not follow);
#   - after each run no process of the leg is left (Xvfb, wine and its server
#     all carry the leg's WINEPREFIX).
#   test_directml_leg.sh DMLREF_BINARY
# Needs what the leg needs: scripts/check/directml_stack.sh's packages, the DLL of
# `make node-deps`, and build/mingw/backends/directml_process.exe.
#   LEG_LIMIT=SECONDS (default 300): how long one leg may take before it counts as hung
set -u

# shellcheck source=tests/cli/dmlref_binary.sh
. "$(dirname "$0")/../cli/dmlref_binary.sh"
make_tmp directml-leg
cd "$root" || exit 1
unset WINEPREFIX DMLREF_DIRECTML_EXEC

leg=$root/scripts/check/directml_leg.sh
limit=${LEG_LIMIT:-300}
prefix=$root/build/directml/wine
old_lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
dll=$root/conformance/backends/peers/node_modules/onnxruntime-node/bin/napi-v6/win32/x64/DirectML.dll

# no_leg_process_left NAME: no process has the leg's WINEPREFIX in its
# environment (a dead one may take a moment to be reaped)
no_leg_process_left() {
    tries=0
    while :; do
        : >"$tmp/left"
        for environ in /proc/[0-9]*/environ; do
            # (a process may end, or be another user's, between the glob and the read)
            if { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qx "WINEPREFIX=$prefix"; then
                pid=${environ#/proc/}
                pid=${pid%/environ}
                echo "$pid $({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" >>"$tmp/left"
            fi
        done
        if ! [ -s "$tmp/left" ]; then
            ok "$1: no process of the leg left behind"
            return
        fi
        tries=$((tries + 1))
        if [ "$tries" -ge 20 ]; then
            bad "$1: processes of the leg left behind" "$tmp/left"
            return
        fi
        sleep 0.5
    done
}

# (b) a DLL that is not the pinned one: one byte changed
mkdir "$tmp/other"
cp "$dll" "$tmp/other/DirectML.dll"
printf 'X' | dd of="$tmp/other/DirectML.dll" bs=1 seek=4096 conv=notrunc 2>/dev/null
if run_command pin "$limit" sh "$leg" --dll "$tmp/other/DirectML.dll" touch "$tmp/pin-ran" &&
    expect_exit "a DLL with one byte changed" 2 "$tmp/pin.err"; then
    pinned=$(sed -n 's/^sha256 //p' conformance/backends/directml.pin)
    if grep -q "sha256 .*, not the pinned $pinned" "$tmp/pin.err" && ! [ -e "$tmp/pin-ran" ]; then
        ok "a DLL with one byte changed: exit 2 naming both sha256 sums, COMMAND not run"
    else
        bad "a DLL with one byte changed: no sha256 mismatch named, or COMMAND ran" "$tmp/pin.err"
    fi
fi

# (a) bookworm's lavapipe 22.3: S_OK and nothing written
if ! [ -f "$old_lavapipe" ]; then
    fail "$old_lavapipe does not exist (bookworm's mesa-vulkan-drivers; scripts/check/directml_stack.sh)"
elif run_command old "$limit" sh "$leg" --vulkan-icd "$old_lavapipe" touch "$tmp/old-ran" &&
    expect_exit "the leg on lavapipe 22.3" 2 "$tmp/old.err"; then
    if grep -q "the canary failed.*still holds its prefill 0xCDCDCDCD" "$tmp/old.err" &&
        ! [ -e "$tmp/old-ran" ]; then
        ok "the leg on lavapipe 22.3: exit 2 at the canary (writes dropped), COMMAND not run"
    else
        bad "the leg on lavapipe 22.3: the canary's reason is not named, or COMMAND ran" \
            "$tmp/old.err"
    fi
fi
no_leg_process_left "the leg on lavapipe 22.3"

# (c) the real stack: the canary, then GatherElements FLOAT32 through DirectML
# shellcheck disable=SC2016 # expanded by the leg's sh -c
if run_command real "$limit" sh "$leg" sh -c '"$0" check --exec "$DMLREF_DIRECTML_EXEC" \
        --filter "gather_elements/float32/*" --exclude "*_clamped" vectors' "$bin" &&
    expect_exit "the leg on lavapipe 25" 0 "$tmp/real.err" "$tmp/real.out"; then
    if grep -q "canary passed" "$tmp/real.err"; then
        ok "the leg on lavapipe 25: the canary passes"
    else
        bad "the leg on lavapipe 25: no \"canary passed\" on stderr" "$tmp/real.err"
    fi
    if grep -Eq '^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$' "$tmp/real.out"; then
        ok "the leg on lavapipe 25: $(tail -n 1 "$tmp/real.out") (gather_elements/float32)"
    else
        bad "the leg on lavapipe 25: dmlref check did not pass" "$tmp/real.out"
    fi
fi
no_leg_process_left "the leg on lavapipe 25"

finish "the DirectML leg"
