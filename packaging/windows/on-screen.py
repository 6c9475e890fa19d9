#!/usr/bin/env python3
"""Which labels a screenshot shows, and where: the Windows smoke test's eyes (packaging/windows/smoke.sh).

    on-screen.py SHOT.png --window X,Y,W,H [--label TEXT]... [--any-of FILE --at-least N]

reads the screenshot with Tesseract (OCR) and checks that every --label is written inside the window
(X, Y, W, H in the screenshot's pixels, as `xdotool getwindowgeometry` gives them) — wholly inside, not
cut by its edge —, and, with --any-of, that at least N lines of FILE (the users' e-mail addresses: the
grid's rows) are written there. It prints one line per label, `LABEL<TAB>X<TAB>Y` with the centre of the
words on the screen (where the smoke test clicks it), and exits 1 with one sentence per label it could
not find (and every line it read, so that the reason can be seen). Labels match the words read, case and
punctuation aside ("Profiles…" is read as "Profiles..."), each word close to its reading (OCR mistakes
a letter now and then: difflib's ratio of 0.8).
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile


def normal(word):
    return re.sub(r"[^0-9a-z@._-]", "", word.lower()).strip("._-")


def words_of(shot, window):
    """The words Tesseract reads in the window's part of the screenshot: (text, left, top, width, height,
    line key), in the screenshot's pixels."""
    x, y, w, h = window
    # One thread: the machine's other work goes on meanwhile.
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    with tempfile.TemporaryDirectory() as scratch:
        crop = os.path.join(scratch, "crop.png")
        # Grey, with the text lighter than its background (the app's dark theme; a light one is
        # negated first); then a white top-hat along the rows: what is lighter than the 20-pixel
        # run around it stays (the letters), the buttons' frames, fills and the separators go
        # (Tesseract takes a framed label for a picture). Negated at last: dark text on white.
        mean = float(
            subprocess.run(
                ["convert", shot, "-crop", f"{w}x{h}+{x}+{y}", "+repage", "-colorspace", "Gray", "-format", "%[fx:mean]", "info:"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        subprocess.run(
            ["convert", shot, "-crop", f"{w}x{h}+{x}+{y}", "+repage", "-colorspace", "Gray"]
            + (["-negate"] if mean > 0.5 else [])
            + ["(", "+clone", "-morphology", "Open", "Rectangle:20x1", ")", "-compose", "Minus_Src", "-composite"]
            + ["-negate", crop],
            check=True,
        )
        tsv = subprocess.run(
            ["tesseract", crop, "-", "--psm", "11", "tsv"], check=True, capture_output=True, text=True, env=env
        ).stdout
    words = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or not cells[11].strip():
            continue
        block, par, line = cells[2], cells[3], cells[4]
        left, top, width, height = (int(cells[i]) for i in (6, 7, 8, 9))
        words.append((cells[11].strip(), x + left, y + top, width, height, (block, par, line)))
    return words


def find(label, words):
    """The words that read as `label` (consecutive, on one line): (left, top, right, bottom) or None."""
    wanted = [normal(w) for w in label.split() if normal(w)]
    lines = {}
    for word in words:
        lines.setdefault(word[5], []).append(word)
    for line in lines.values():
        for start in range(len(line) - len(wanted) + 1):
            run = line[start : start + len(wanted)]
            if all(difflib.SequenceMatcher(None, want, normal(got[0])).ratio() >= 0.8 for want, got in zip(wanted, run)):
                return (
                    min(w[1] for w in run),
                    min(w[2] for w in run),
                    max(w[1] + w[3] for w in run),
                    max(w[2] + w[4] for w in run),
                )
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shot")
    parser.add_argument("--window", required=True, help="X,Y,W,H")
    parser.add_argument("--label", action="append", default=[])
    parser.add_argument("--any-of", help="a file of lines (the grid's rows), at least --at-least of them on screen")
    parser.add_argument("--at-least", type=int, default=1)
    args = parser.parse_args()
    window = tuple(int(v) for v in args.window.split(","))
    x, y, w, h = window
    words = words_of(args.shot, window)
    missing = []
    for label in args.label:
        box = find(label, words)
        if box is None:
            missing.append(f"'{label}' is not written in the window")
        elif box[0] < x or box[1] < y or box[2] > x + w or box[3] > y + h:
            missing.append(f"'{label}' at {box} is cut by the window's edge ({window})")
        else:
            print(f"{label}\t{round((box[0] + box[2]) / 2)}\t{round((box[1] + box[3]) / 2)}")
    if args.any_of:
        with open(args.any_of, encoding="utf-8") as lines:
            wanted = {normal(line) for line in lines if normal(line)}
        seen = set()
        for word in words:
            seen.update(difflib.get_close_matches(normal(word[0]), wanted, n=1, cutoff=0.85))
        seen = sorted(seen)
        if len(seen) < args.at_least:
            missing.append(f"{len(seen)} of the rows are on screen ({', '.join(seen) or 'none'}), not {args.at_least}")
        else:
            print(f"rows\t{len(seen)}\t{' '.join(seen[:3])}")
    if missing:
        lines = {}
        for word in words:
            lines.setdefault(word[5], []).append(word[0])
        print(f"{args.shot}: " + "; ".join(missing), file=sys.stderr)
        print("read: " + " | ".join(" ".join(line) for line in lines.values()), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
