#!/usr/bin/env bash
# Renders packaging/icons/orgql.svg to the PNG sizes of the freedesktop icon theme
# (packaging/icons/hicolor/NxN/apps/orgql.png; the SVG itself is the scalable one). The PNGs are committed; run this after editing
# the SVG. Needs rsvg-convert (Debian: librsvg2-bin).
#
#   bash packaging/render-icons.sh
set -euo pipefail
cd "$(dirname "$0")/icons"
command -v rsvg-convert > /dev/null || { echo "needs rsvg-convert: apt-get install librsvg2-bin" >&2; exit 1; }
for size in 16 24 32 48 64 128 256 512; do
  mkdir -p "hicolor/${size}x${size}/apps"
  rsvg-convert --width "$size" --height "$size" orgql.svg --output "hicolor/${size}x${size}/apps/orgql.png"
done
ls -l hicolor/*/apps/
