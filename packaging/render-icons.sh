#!/usr/bin/env bash
# Renders packaging/icons/orgql.svg to the PNG sizes of the freedesktop icon theme
# (packaging/icons/hicolor/NxN/apps/orgql.png; the SVG itself is the scalable one), and packs
# 16 to 256 into the Windows icon packaging/windows/orgql.ico (the exe's resource, the Start
# menu's and Installed apps' icon). The PNGs and the .ico are committed; run this after editing
# the SVG. Needs rsvg-convert (Debian: librsvg2-bin) and ImageMagick (imagemagick).
#
#   bash packaging/render-icons.sh
set -euo pipefail
cd "$(dirname "$0")/icons"
command -v rsvg-convert > /dev/null || { echo "needs rsvg-convert: apt-get install librsvg2-bin" >&2; exit 1; }
for size in 16 24 32 48 64 128 256 512; do
  mkdir -p "hicolor/${size}x${size}/apps"
  rsvg-convert --width "$size" --height "$size" orgql.svg --output "hicolor/${size}x${size}/apps/orgql.png"
done
# ImageMagick keeps the 256 px size as PNG inside the .ico (Windows Vista and later read it).
/usr/bin/convert hicolor/{16x16,24x24,32x32,48x48,64x64,128x128,256x256}/apps/orgql.png \
    ../windows/orgql.ico
ls -l hicolor/*/apps/ ../windows/orgql.ico
