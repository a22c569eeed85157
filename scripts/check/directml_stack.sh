#!/bin/sh
# directml_stack.sh - the Linux side of the DirectML leg (scripts/check/directml_leg.sh),
# from Debian's packages only:
#   - xvfb (wine needs an X server even for compute) and libvulkan1;
#   - bookworm's own mesa-vulkan-drivers: its dependencies are those of the
#     newer lavapipe below, and its own lavapipe (Mesa 22.3) is a real stack
#     that drops every compute write, which tests/cross/test_directml_leg.sh uses to
#     prove that the leg's canary fails;
#   - mesa-vulkan-drivers MESA_VERSION from bookworm-backports, downloaded and
#     unpacked (dpkg -x, nothing patched) into build/directml/lavapipe-25/,
#     with an ICD file there whose library_path points into that folder:
#     nothing from backports is installed on the system.  The backports
#     source is pinned to -1 (never installed) except mesa-vulkan-drivers,
#     which keeps backports' usual 100, below bookworm's 500.
# Run as root or with sudo.  Quiet when everything is present.  Called by
# scripts/build/install_deps.sh.
set -eu
cd "$(dirname "$0")/../.."

MESA_VERSION=25.0.7-2~bpo12+1
dest=build/directml/lavapipe-25
packages="xvfb libvulkan1 mesa-vulkan-drivers"
source_file=/etc/apt/sources.list.d/dmlref-backports.sources
pin_file=/etc/apt/preferences.d/dmlref-backports

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
have_lavapipe=0
if [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$MESA_VERSION" ] && [ -f "$dest/lvp_icd.json" ]; then
    have_lavapipe=1
fi
if [ -z "$missing" ] && [ "$have_lavapipe" = 1 ] && [ -f "$source_file" ] &&
    [ -f "$pin_file" ]; then
    exit 0
fi

# shellcheck disable=SC1091 # the system's file
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
if ! [ -f "$source_file" ] || ! [ -f "$pin_file" ]; then
    echo "directml_stack: adding $codename-backports, pinned to mesa-vulkan-drivers ($source_file)"
    printf '%s\n' "# dmlref's scripts/check/directml_stack.sh: lavapipe for the DirectML leg" \
        "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: $codename-backports" \
        "Components: main" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
        $sudo tee "$source_file" >/dev/null
    printf '%s\n' "# dmlref's scripts/check/directml_stack.sh: nothing from backports is installed;" \
        "# mesa-vulkan-drivers only downloaded (apt-get download), at backports' usual priority" \
        "Package: mesa-vulkan-drivers" "Pin: release n=$codename-backports" "Pin-Priority: 100" "" \
        "Package: *" "Pin: release n=$codename-backports" "Pin-Priority: -1" |
        $sudo tee "$pin_file" >/dev/null
fi

# As scripts/build/install_deps.sh: a mirror being synchronised can fail an index
# for a while, so apt-get update is tried again, and then only reported.
update() {
    if ! $sudo apt-get update -qq; then
        echo "directml_stack: apt-get update failed; again in 5 s" >&2
        sleep 5
        $sudo apt-get update -qq ||
            echo "directml_stack: apt-get update failed twice; going on with the indexes it has" >&2
    fi
}

if ! apt-cache madison mesa-vulkan-drivers | grep -q " $MESA_VERSION "; then
    update
fi
if [ -n "$missing" ]; then
    echo "directml_stack: installing$missing"
    # shellcheck disable=SC2086 # a word list
    if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            --no-remove $missing; then
        echo "directml_stack: apt-get install failed; updating the lists and trying once more" >&2
        update
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            --no-remove $missing
    fi
fi

if [ "$have_lavapipe" = 0 ]; then
    echo "directml_stack: unpacking mesa-vulkan-drivers $MESA_VERSION into $dest"
    work=build/directml/download
    rm -rf "$work" "$dest.new"
    mkdir -p "$work" "$dest.new"
    # as root, since apt's own user may not write into the build folder
    download() {
        (cd "$work" && apt-get download -qq -o APT::Sandbox::User=root \
            "mesa-vulkan-drivers=$MESA_VERSION")
    }
    if ! download; then
        update
        download
    fi
    dpkg -x "$work"/mesa-vulkan-drivers_*.deb "$dest.new"
    packaged_icd=$(find "$dest.new/usr/share/vulkan/icd.d" -name 'lvp_icd*.json' | head -n 1)
    if [ -z "$packaged_icd" ]; then
        echo "directml_stack: FAILED: mesa-vulkan-drivers $MESA_VERSION has no lvp_icd json" >&2
        exit 1
    fi
    # library_path: the package's file, found in the unpacked tree by its name
    library=$(sed -n 's/.*"library_path"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' \
        "$packaged_icd")
    library=$(find "$dest.new" -name "$(basename "$library")" | head -n 1)
    if [ -z "$library" ]; then
        echo "directml_stack: FAILED: the library $packaged_icd names is not in the package" >&2
        exit 1
    fi
    rm -rf "$dest"
    mv "$dest.new" "$dest"
    library=$(cd "$dest" && pwd)${library#"$dest.new"}
    sed "s|\"library_path\"[[:space:]]*:[[:space:]]*\"[^\"]*\"|\"library_path\": \"$library\"|" \
        "$dest/${packaged_icd#"$dest.new/"}" >"$dest/lvp_icd.json"
    echo "$MESA_VERSION" >"$dest/VERSION"
    rm -rf "$work"
fi
