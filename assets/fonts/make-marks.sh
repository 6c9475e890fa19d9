#!/usr/bin/env bash
# Makes assets/fonts/orgql-marks.ttf: the app's own marks (✓ ✗ ● → ⚠ …) cut out of DejaVu Sans,
# so that they are drawn the same on every system, also where no system font has them (a fresh
# Windows or Wine, a minimal Linux). egui's own fonts lack ✓ ✗ and, in proportional text, the
# arrows and shapes (src/ui/app/fonts.rs says which). Run it again when the app uses a new mark;
# `cargo test --lib marks` fails until then.
#
# Needs DejaVu Sans (Debian: fonts-dejavu-core) and fontTools (PyPI, installed into a venv of
# its own under /tmp). Licence: the Bitstream Vera licence of DejaVu (LICENSE-DejaVu.txt beside
# this file), which asks a changed font to be renamed: the result is called "orgql marks".
set -euo pipefail
cd "$(dirname "$0")"
source=${DEJAVU_SANS:-/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}
[ -f "$source" ] || { echo "no $source: apt-get install fonts-dejavu-core (or set DEJAVU_SANS)" >&2; exit 1; }
venv=/tmp/orgql-fonttools
[ -x "$venv/bin/pyftsubset" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet fonttools==4.*; }
# Arrows, the bullet and ellipsis, shapes (triangles, circles, squares), check and cross marks,
# the warning sign: the marks the UI draws, with their neighbours for the next one.
unicodes="U+2022,U+2026,U+2190-2199,U+21B5,U+21BA-21BB,U+2212,U+25A0-25FF,U+2713-2718,U+26A0"
"$venv/bin/pyftsubset" "$source" --unicodes="$unicodes" --output-file=orgql-marks.ttf \
    --layout-features='' --no-hinting --desubroutinize --name-IDs='*' --drop-tables+=FFTM
"$venv/bin/python" - <<'PY'
from fontTools.ttLib import TTFont
font = TTFont("orgql-marks.ttf")
for record in font["name"].names:
    if record.nameID in (1, 3, 4, 6, 16):
        text = "orgqlMarks" if record.nameID == 6 else "orgql marks"
        record.string = text
font.save("orgql-marks.ttf")
print(f"orgql-marks.ttf: {len(font.getBestCmap())} characters")
PY
ls -l orgql-marks.ttf
