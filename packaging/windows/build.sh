#!/usr/bin/env bash
# Builds the Windows installer of orgql on Debian, in one command:
#
#   bash packaging/windows/build.sh
#
# 1. installs what it lacks: the Rust target x86_64-pc-windows-gnu (rustup), Debian's MinGW-w64
#    C compiler and windres (gcc-mingw-w64-x86-64: links the exe, builds SQLite and mimalloc,
#    compiles the icon and version resources) and wixl (msitools' MSI builder);
# 2. cross-builds the release orgql.exe (a Windows-GUI program with the icon and version
#    information as resources, build.rs) and orgql.com (its console twin,
#    packaging/windows/console), in $CARGO_TARGET_DIR (default: target/ of the clone), and
#    strips orgql.exe's symbols for the installer (as the .deb's binary);
# 3. checks the exe: the GUI subsystem, the icon and the manifest (per-monitor DPI aware) among
#    its resources, and only Windows' own DLLs imported (no MinGW runtime DLL to ship);
# 4. builds orgql-VERSION-x64.msi with wixl from packaging/windows/orgql.wxs.
#
# The last line it prints is the MSI's path. packaging/README.md ("Windows") has the recipe, the
# times and what was tried only under Wine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
target=x86_64-pc-windows-gnu
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}

say() { echo "== $*" >&2; }

# 1. What it lacks.
if ! rustup target list --installed | grep -qx "$target"; then
    say "rustup target add $target"
    rustup target add "$target" >&2
fi
missing=()
for need in x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64 x86_64-w64-mingw32-windres:binutils-mingw-w64-x86-64 \
    wixl:wixl msiinfo:msitools; do
    command -v "${need%%:*}" > /dev/null || missing+=("${need#*:}")
done
if ((${#missing[@]})); then
    say "apt-get install ${missing[*]}"
    as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo)
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# 2. The two programs. ORGQL_WINDOWS_PROFILE names another profile of Cargo.toml for orgql.exe
# (CI tries the installer built with ci-windows: release without cross-crate LTO); the console
# twin has its own release profile.
profile=${ORGQL_WINDOWS_PROFILE:-release}
say "cargo build --profile $profile --target $target (orgql.exe)"
cargo build --profile "$profile" --locked --target "$target" --bin orgql >&2
say "cargo build --release --target $target (orgql.com, the console twin)"
cargo build --release --locked --target "$target" --manifest-path packaging/windows/console/Cargo.toml >&2
out="$CARGO_TARGET_DIR/$target/release"
exe="$CARGO_TARGET_DIR/$target/$profile/orgql.exe"
com="$out/orgql-console.exe"

# 3. What the exe is.
headers=$(x86_64-w64-mingw32-objdump -p "$exe")
grep -q "Subsystem.*(Windows GUI)" <<< "$headers" || { echo "orgql.exe is not a Windows-GUI program" >&2; exit 1; }
com_headers=$(x86_64-w64-mingw32-objdump -p "$com")
grep -q "Subsystem.*(Windows CUI)" <<< "$com_headers" || { echo "orgql.com is not a console program" >&2; exit 1; }
# The resource directory's types (its top level): 3 an icon, 14 the icon group, 16 the version,
# 24 the manifest (which says per-monitor DPI aware: packaging/windows/orgql.exe.manifest).
resources=$(sed -n '/The .rsrc Resource Directory section/,/^$/p' <<< "$headers")
for type in 03 0e 10 18; do
    grep -qE "^[0-9a-f]+   Entry: ID: 0x0000$type," <<< "$resources" ||
        { echo "orgql.exe lacks the resource of type 0x$type (icon 03, icon group 0e, version 10, manifest 18)" >&2; exit 1; }
done
grep -qa '<dpiAwareness xmlns="http://schemas.microsoft.com/SMI/2016/WindowsSettings">PerMonitorV2' "$exe" ||
    { echo "orgql.exe's manifest does not say per-monitor DPI aware (PerMonitorV2)" >&2; exit 1; }
dlls=$(grep "DLL Name:" <<< "$headers" | awk '{print $3}' | sort -fu)
if grep -qiE "libgcc|libwinpthread|libstdc" <<< "$dlls"; then
    echo "orgql.exe needs a MinGW runtime DLL: $dlls" >&2
    exit 1
fi
say "orgql.exe: Windows GUI, icon, version and manifest (per-monitor DPI aware) resources; imports $(tr '\n' ' ' <<< "$dlls")"
# What goes into the MSI: without the symbols (as the .deb's binary), named as installed.
files="$out/msi-files"
mkdir -p "$files"
x86_64-w64-mingw32-strip -o "$files/orgql.exe" "$exe"
cp "$com" "$files/orgql.com"
cp packaging/windows/orgql.ico assets/fonts/LICENSE-DejaVu.txt "$files/"

# 4. The installer.
version=$(cargo metadata --no-deps --format-version 1 --locked |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "orgql"))')
msi="$out/orgql-$version-x64.msi"
say "wixl -a x64 → $msi"
# wixl finds the files by names relative to where it runs (it refuses absolute ones).
(cd "$files" && wixl -a x64 -o "$msi" -D Version="$version" -D Exe=orgql.exe -D Com=orgql.com -D Icon=orgql.ico \
    -D FontLicence=LICENSE-DejaVu.txt "$root/packaging/windows/orgql.wxs") >&2
ls -l "$files/orgql.exe" "$files/orgql.com" "$msi" >&2
echo "$msi"
