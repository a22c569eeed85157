#!/bin/sh
# directml_bundle.sh OUT.tar.xz - the DirectML leg (scripts/check/directml_leg.sh) for
# a Linux machine with a GPU and no wine: packs, from the Debian packages
# installed here (scripts/check/directml_stack.sh, `make node-deps`), unpatched,
#   - wine64 8.0: wine64 and wineserver64, the unix libraries and the PE
#     files that the leg loads (its prefix made too), apisetschema.dll
#     among them, which a +loaddll log does not show, debug info stripped;
#     wine.inf and the nls files (usr/lib/wine, usr/lib/x86_64-linux-gnu/wine,
#     usr/share/wine: the layout wine finds its parts by), and etc/fonts/
#     fonts.conf, a fontconfig configuration for hosts without one;
#   - Xvfb and xkbcomp with the xkb data and the X locale files, and
#     lib/xvfb_xkbcomp.so (scripts/build/xvfb_xkbcomp.c), which has Xvfb run that
#     xkbcomp and not /usr/bin's;
#   - Debian's Vulkan loader (libvulkan1) and libEGL (libglvnd: NVIDIA's
#     Vulkan driver fails vkCreateInstance without libEGL.so.1), the X
#     client libraries wine opens, and the shared-library closure (ldd) of
#     all of it in lib/, glibc left out (the host's, 2.36 or later);
#   - bin/: dmlref linked statically (build/static), the process backend
#     build/mingw/backends/directml_process.exe, and the pinned DirectML.dll;
#   - PACKAGES: the Debian package and version of every file taken.
# Nothing comes from outside this machine's packages and the build tree; the
# archive is about 30 MB.  The staging folder is build/directml/bundle/.
#
# On the GPU machine (x86-64 Linux, glibc 2.36 or later, /usr/bin/python3
# or PYTHON=..., the vendor's Vulkan driver), from a checkout of dmlref:
#
#   mkdir -p /tmp/stack && tar -xJf directml-stack.tar.xz -C /tmp/stack
#   sh scripts/check/directml_suite.sh --stack /tmp/stack \
#       --vulkan-icd /usr/share/vulkan/icd.d/nvidia_icd.json \
#       --out docs/conformance --name directml-nvidia /tmp/stack/bin/dmlref
#
# (the ICD file may be in /etc/vulkan/icd.d/ or the driver's own folder).
# That runs the whole suite through DirectML's shaders on that driver, via
# vkd3d, and ends with the verdict's `N passed, N failed`.  On an NVIDIA
# H200 (driver 580.159.04, Ubuntu 24.04, no wine, no Vulkan loader, no
# xkbcomp installed) the leg took 88 s: the suite and three fuzz runs,
# 5313 passed, 0 failed.
#
# Needs: x86_64-w64-mingw32-strip (binutils-mingw-w64), a C compiler, xz,
# and what make needs for build/static/dmlref (made here, linked with -static).
set -eu

usage() {
    echo "usage: $0 OUT.tar.xz" >&2
    exit 3
}

say() {
    echo "directml_bundle: $*" >&2
}

[ $# -eq 1 ] || usage
case $1 in
    /*) out=$1 ;;
    *) out=$(pwd)/$1 ;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

multiarch=x86_64-linux-gnu
libdir=/usr/lib/$multiarch
wine_dir=$libdir/wine
dll=conformance/backends/peers/node_modules/onnxruntime-node/bin/napi-v6/win32/x64/DirectML.dll
exe=build/mingw/backends/directml_process.exe
dmlref=build/static/dmlref
stage=build/directml/bundle
stack=$stage/stack

# The PE files a leg loads, its prefix made (measured with WINEDEBUG=+loaddll
# and the processes started), and apisetschema.dll, which ntdll maps as data.
pe_files="actxprxy.dll advapi32.dll advpack.dll apisetschema.dll atl100.dll avicap32.dll
bcrypt.dll combase.dll comctl32.dll comdlg32.dll compstui.dll conhost.exe crypt32.dll
cryptdlg.dll cryptnet.dll cryptui.dll d3d12.dll devenum.dll dnsapi.dll dsound.dll dxgi.dll
explorer.exe gdi32.dll hidclass.sys hidparse.sys ieframe.dll iexplore.exe imaadp32.acm
imm32.dll iphlpapi.dll kernel32.dll kernelbase.dll l3codeca.acm localspl.dll mfplat.dll
mountmgr.sys mp3dmod.dll mpr.dll msacm32.dll msadp32.acm msdmo.dll msg711.acm msgsm32.acm
msisip.dll msvcrt.dll msvfw32.dll ndis.sys newdev.dll nsi.dll nsiproxy.sys ntdll.dll
ntoskrnl.exe ole32.dll oleaut32.dll opengl32.dll plugplay.exe propsys.dll qcap.dll qedit.dll
quartz.dll reg.exe rpcrt4.dll rpcss.exe rsaenh.dll rtworkq.dll rundll32.exe sechost.dll
services.exe setupapi.dll shcore.dll shell32.dll shlwapi.dll spoolss.dll start.exe
svchost.exe ucrtbase.dll urlmon.dll user32.dll userenv.dll uxtheme.dll version.dll
vulkan-1.dll wevtsvc.dll win32u.dll windowscodecs.dll wineboot.exe winebus.sys wined3d.dll
winedevice.exe winegstreamer.dll winehid.sys winemenubuilder.exe wineps.drv wineusb.sys
winevulkan.dll winex11.drv wininet.dll winmm.dll winprint.dll winspool.drv wintrust.dll
ws2_32.dll zlib1.dll"

# Libraries opened with dlopen, so that no ldd lists them: the Vulkan loader
# (winevulkan), libEGL (the NVIDIA Vulkan driver), the X extensions winex11
# uses, FreeType and fontconfig (win32u: without fontconfig, wine 8.0's
# explorer.exe faults at a null pointer and wineboot starts it again and
# again).
dlopened="libvulkan.so.1 libEGL.so.1 libXcomposite.so.1 libXcursor.so.1 libXext.so.6
libXfixes.so.3 libXi.so.6 libXinerama.so.1 libXrandr.so.2 libXrender.so.1 libXxf86vm.so.1
libfreetype.so.6 libfontconfig.so.1"

# glibc: the host's own (its dynamic loader must match it)
is_glibc() {
    case $1 in
        ld-linux*.so* | libc.so.* | libm.so.* | libmvec.so.* | libdl.so.* | libpthread.so.* | \
            librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libnsl.so.* | \
            libBrokenLocale.so.* | libc_malloc_debug.so.*) return 0 ;;
    esac
    return 1
}

for tool in x86_64-w64-mingw32-strip xz ldd dpkg-query; do
    command -v "$tool" >/dev/null 2>&1 || {
        say "$tool not found (Debian: binutils-mingw-w64-x86-64, xz-utils)"
        exit 2
    }
done
for part in /usr/lib/wine/wine64 /usr/lib/wine/wineserver64 /usr/bin/Xvfb /usr/bin/xkbcomp \
    /usr/share/X11/xkb/rules/evdev "$libdir/libvulkan.so.1" "$libdir/libEGL.so.1" "$exe" "$dll"; do
    [ -e "$part" ] || {
        say "$part does not exist (sh scripts/build/install_deps.sh; CC=x86_64-w64-mingw32-gcc" \
            "sh conformance/backends/build.sh build/mingw directml_process; make node-deps)"
        exit 2
    }
done
expected=$(sed -n 's/^sha256 //p' conformance/backends/directml.pin)
if [ "$(sha256sum "$dll" | cut -d' ' -f1)" != "$expected" ]; then
    say "$dll is not the DLL pinned by conformance/backends/directml.pin"
    exit 2
fi

# dmlref on its own: no jansson, xxHash or libgomp to find there (make: up
# to date with the tree)
mkdir -p build/directml
make --no-print-directory BUILD=build/static LDFLAGS=-static "$dmlref" >"$stage.make.log" 2>&1 || {
    tail -n 20 "$stage.make.log" >&2
    say "FAILED to build $dmlref (static; $stage.make.log)"
    exit 1
}
if ldd "$dmlref" >/dev/null 2>&1; then
    say "$dmlref is not static"
    exit 1
fi

rm -rf "$stage"
mkdir -p "$stack/bin" "$stack/lib" "$stack/usr/bin" "$stack/usr/lib/wine" \
    "$stack/usr/share/wine" "$stack/usr/share/X11" \
    "$stack/usr/lib/$multiarch/wine/x86_64-windows" "$stack/usr/lib/$multiarch/wine/x86_64-unix"
: >"$stage/files"

# take SOURCE DEST: copy a file (its content, links followed) and record it
take() {
    cp -L "$1" "$2"
    echo "$1" >>"$stage/files"
}

# wine: the loader finds ntdll.so, the PE files and usr/share/wine by paths
# relative to itself, so the tree keeps Debian's layout under the stack
take /usr/lib/wine/wine64 "$stack/usr/lib/wine/wine64"
take /usr/lib/wine/wineserver64 "$stack/usr/lib/wine/wineserver64"
# Debian's /usr/lib/wine/wineserver, with the path of the stack's
cat >"$stack/usr/lib/wine/wineserver" <<'EOF'
#!/bin/sh
# Debian's /usr/lib/wine/wineserver, relocated by dmlref's scripts/check/directml_bundle.sh
exec "$(dirname "$0")/wineserver64" -p0 "$@"
EOF
chmod +x "$stack/usr/lib/wine/wineserver"
for f in $pe_files; do
    src=$wine_dir/x86_64-windows/$f
    [ -f "$src" ] || {
        say "$src does not exist (wine64 8.0)"
        exit 1
    }
    x86_64-w64-mingw32-strip --strip-debug \
        -o "$stack/usr/lib/$multiarch/wine/x86_64-windows/$f" "$src"
    echo "$src" >>"$stage/files"
done
# the unix side: ntdll and the unix library of each PE file taken
unix_files="ntdll.so libwine.so.1"
for f in $pe_files; do
    stem=${f%.*}
    if [ -f "$wine_dir/x86_64-unix/$stem.so" ] && [ "$stem" != ntdll ]; then
        unix_files="$unix_files $stem.so"
    fi
done
for f in $unix_files; do
    take "$wine_dir/x86_64-unix/$f" "$stack/usr/lib/$multiarch/wine/x86_64-unix/$f"
done
take /usr/share/wine/wine.inf "$stack/usr/share/wine/wine.inf"
mkdir "$stack/usr/share/wine/nls"
for f in /usr/share/wine/nls/*.nls; do
    take "$f" "$stack/usr/share/wine/nls/"
done

# fontconfig's configuration, for a host that has none: wine's fonts folder
# (empty; wine needs none), named relative to the file
mkdir -p "$stack/etc/fonts" "$stack/usr/share/wine/fonts"
cat >"$stack/etc/fonts/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- dmlref's scripts/check/directml_bundle.sh: the DirectML leg's wine needs no font -->
<fontconfig>
  <dir prefix="relative">../../usr/share/wine/fonts</dir>
  <cachedir prefix="xdg">fontconfig</cachedir>
</fontconfig>
EOF

# the X server, its keymap compiler and data, the X locale files
take /usr/bin/Xvfb "$stack/usr/bin/Xvfb"
take /usr/bin/xkbcomp "$stack/usr/bin/xkbcomp"
cp -RL /usr/share/X11/xkb /usr/share/X11/locale "$stack/usr/share/X11/"
find /usr/share/X11/xkb /usr/share/X11/locale -type f >>"$stage/files"
${CC:-cc} -std=c99 -O2 -shared -fPIC -o "$stack/lib/xvfb_xkbcomp.so" scripts/build/xvfb_xkbcomp.c -ldl

# the libraries: the ELF files taken and the dlopened ones, with their closure
roots="$stack/usr/lib/wine/wine64 $stack/usr/lib/wine/wineserver64 $stack/usr/bin/Xvfb
$stack/usr/bin/xkbcomp"
for f in $unix_files; do
    roots="$roots $stack/usr/lib/$multiarch/wine/x86_64-unix/$f"
done
for name in $dlopened; do
    [ -e "$libdir/$name" ] || {
        say "$libdir/$name does not exist"
        exit 1
    }
    roots="$roots $libdir/$name"
    take "$libdir/$name" "$stack/lib/$name"
done
# ldd lists the whole closure: NAME => PATH (address)
for f in $roots; do
    ldd "$f"
done | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => \(\/[^[:space:]]*\) .*/\1 \2/p' | sort -u |
    while read -r name path; do
        is_glibc "$name" && continue
        [ -e "$stack/lib/$name" ] || take "$path" "$stack/lib/$name"
    done
missing=$(for f in $roots; do
    LD_LIBRARY_PATH=$stack/lib ldd "$f"
done | grep 'not found' | sort -u | while read -r name rest; do
    # (wine's unix libraries link ntdll.so and win32u.so, loaded before them)
    [ -e "$stack/usr/lib/$multiarch/wine/x86_64-unix/$name" ] || echo "$name"
done)
if [ -n "$missing" ]; then
    say "libraries not found: $missing"
    exit 1
fi

# what the leg runs
cp "$dmlref" "$stack/bin/dmlref"
cp "$exe" "$stack/bin/directml_process.exe"
cp "$dll" "$stack/bin/DirectML.dll"

# the packages the files came from
{
    echo "# Debian packages of the files in this stack (dmlref's scripts/check/directml_bundle.sh)"
    # one query for all, each file also under its other name (merged /usr: a
    # package may list it under /lib or /usr/lib), the one not listed ignored
    sort -u "$stage/files" | sed -e p -e 's|^/usr/lib/|/lib/|' -e t -e 's|^/lib/|/usr/lib/|' |
        tr '\n' '\0' | xargs -0 dpkg-query -S 2>/dev/null | sed 's/: .*//' | tr ',' '\n' |
        sed 's/^ *//' | sort -u | while read -r p; do
            dpkg-query -W -f='${Package}:${Architecture} ${Version}\n' "$p" 2>/dev/null | head -n 1
        done
    echo "# DirectML.dll: $(sed -n 's/^version //p' conformance/backends/directml.pin)"
} >"$stack/PACKAGES"

mkdir -p "$(dirname "$out")"
tar -C "$stack" -cf - . | xz -T0 -6 >"$out.tmp"
mv "$out.tmp" "$out"
say "$out: $(du -k "$out" | cut -f1) KiB, $(find "$stack" -type f | wc -l) files" \
    "($(du -sk "$stack" | cut -f1) KiB unpacked)"
