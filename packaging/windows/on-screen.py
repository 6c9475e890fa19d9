#!/usr/bin/python3
"""What the screen shows, read as a person reads it: the Windows smoke test's eyes (packaging/windows/smoke.sh).

    on-screen.py see SHOT --window X,Y,W,H [--since BEFORE] [--label TEXT]... [--rows FILE --at-least N]
                 [--scale S] [--timeout SECONDS]
    on-screen.py gone --open SHOT --read TSV [--timeout SECONDS] [--then-keep BEFORE --window X,Y,W,H]

`see` takes screenshots until every --label is read by Tesseract written wholly inside the window
(X, Y, W, H in the screen's pixels, as `xdotool getwindowgeometry` gives them) and, with --rows, at
least N lines of FILE (a grid's rows, each line its words separated by tabs: a ref, an e-mail) have
one of their words read. With --since, only the largest area that changed from the screenshot BEFORE
is read, and a label counts only where it changed: a dialog's or a menu's own, not the window's under
it. Labels are looked for in the order given, each on words of its own (a dialog's title "Find user"
first, then its button "Find"). The screenshot read is kept as SHOT (PNG); it prints
`region<TAB>X,Y,W,H` (what was read), one `LABEL<TAB>X<TAB>Y<TAB>LEFT,TOP,WIDTH,HEIGHT` per label (the
centre is where a person clicks it) and `rows<TAB>N`. When the time is up, it exits 1 with one line
on stderr saying what was not on screen; SHOT is the last screenshot, and SHOT's name with -read.txt
holds every line read, to see why.

`gone` waits until the labels `see` printed (TSV) for SHOT are gone: where each was, the screen
changed (what was under the dialog shows again); with --then-keep, then until the screen keeps still
(two screenshots alike, a text cursor's blink aside), kept as BEFORE: what the next dialog is read
against. Exits 1 when the time is up (the last screenshot kept as SHOT's name with -not-closed.png).

Labels match the words read with case and punctuation aside ("Profiles…" is read "Profiles..."),
each word close to its reading (Tesseract mistakes a letter now and then: difflib's ratio ≥ 0.8).
When a label is not read, the crop is read again prepared another way (enlarged, and grey rather than
with the frames taken away) and the two readings' words are pooled. Debian's python3 with its
python3-numpy and python3-pil runs it (hence /usr/bin/python3, not the first python3 on the PATH).
"""

import argparse
import difflib
import io
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy
from PIL import Image

# The screen is compared in blocks of BLOCK×BLOCK pixels: a block changed when any pixel did.
BLOCK = 8
# A pixel changed when its grey differs by more than this (of 255) from the other screenshot's
# pixel at its place and from those a pixel away.
DIFFERENCE = 8


def normal(word):
    return re.sub(r"[^0-9a-z@.-]", "", word.lower()).strip(".-")


def box(text):
    x, y, w, h = (int(v) for v in text.split(","))
    return x, y, w, h


def grab():
    """The whole screen now (a picture)."""
    # Eight bits a channel: PIL reads a 16-bit PPM (ImageMagick's default here) forty times slower.
    ppm = subprocess.run(["import", "-window", "root", "-depth", "8", "ppm:-"], check=True, capture_output=True).stdout
    picture = Image.open(io.BytesIO(ppm))
    picture.load()
    return picture


def grey(picture):
    return numpy.asarray(picture.convert("L"), dtype=numpy.int16)


def changed_pixels(before, now, region):
    """Where, in `region` (x, y, w, h), `now` differs from `before` (grey arrays of the screen): from
    the pixel at its place and from those a pixel away, so that a part laid out one pixel off (egui
    moves the results by a pixel between frames now and then) is not a change."""
    x, y, w, h = region
    padded = numpy.pad(before, 1, mode="edge")[y : y + h + 2, x : x + w + 2]
    here = now[y : y + h, x : x + w]
    least = None
    for dy, dx in ((1, 1), (0, 1), (2, 1), (1, 0), (1, 2)):
        difference = numpy.abs(here - padded[dy : dy + h, dx : dx + w])
        least = difference if least is None else numpy.minimum(least, difference)
    return least > DIFFERENCE


def ink_changed(inked, other, place):
    """Of the ink in `place` (x, y, w, h) of the grey screen `inked` (its pixels far from the place's
    usual grey: the letters), the share that differs in `other` (changed_pixels): 1.0 when a label
    written there is not written in the other, 0.0 when it is there in both."""
    x, y, w, h = place
    area = inked[y : y + h, x : x + w]
    ink = numpy.abs(area - numpy.median(area)) > 48
    if not ink.any():
        return 0.0
    return float(changed_pixels(other, inked, place)[ink].mean())


def blocks(mask, block=BLOCK):
    """Which blocks of the mask hold a changed pixel: a (rows, columns) boolean array."""
    h, w = mask.shape
    rows, cols = -(-h // block), -(-w // block)
    padded = numpy.zeros((rows * block, cols * block), dtype=bool)
    padded[:h, :w] = mask
    return padded.reshape(rows, block, cols, block).any(axis=(1, 3))


def largest_change(changed, window):
    """The box (x, y, w, h, on the screen) around the largest area of changed blocks of `window`,
    blocks less than four apart counted as one area; None when nothing changed."""
    rows, cols = changed.shape
    # Each changed block grown by two blocks all round: areas less than four blocks apart touch.
    grown = numpy.zeros((rows + 4, cols + 4), dtype=bool)
    for dr in range(5):
        for dc in range(5):
            grown[dr : dr + rows, dc : dc + cols] |= changed
    seen = numpy.zeros_like(grown)
    best = None
    for start in zip(*numpy.nonzero(changed)):
        start = (start[0] + 2, start[1] + 2)
        if seen[start]:
            continue
        seen[start] = True
        todo, top, left, bottom, right = [start], start[0], start[1], start[0], start[1]
        while todo:
            r, c = todo.pop()
            top, bottom, left, right = min(top, r), max(bottom, r), min(left, c), max(right, c)
            for near in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= near[0] < rows + 4 and 0 <= near[1] < cols + 4 and grown[near] and not seen[near]:
                    seen[near] = True
                    todo.append(near)
        # Back to the changed blocks' own bounds (the growth taken off), in the window's blocks.
        top, left, bottom, right = top, left, bottom - 4, right - 4
        size = (right - left + 1) * (bottom - top + 1)
        if best is None or size > best[0]:
            best = (size, top, left, bottom, right)
    if best is None:
        return None
    _, top, left, bottom, right = best
    x, y, w, h = window
    # A block's margin around it, inside the window.
    x0, y0 = max(x, x + (left - 1) * BLOCK), max(y, y + (top - 1) * BLOCK)
    x1, y1 = min(x + w, x + (right + 2) * BLOCK), min(y + h, y + (bottom + 2) * BLOCK)
    return x0, y0, x1 - x0, y1 - y0


def sliding(values, size, pick):
    """`pick` (numpy.minimum or numpy.maximum) of each run of `size` pixels along the rows, centred."""
    before, after = size // 2, size - 1 - size // 2
    edge = numpy.pad(values, ((0, 0), (before, after)), mode="edge")
    out = edge[:, : values.shape[1]].copy()
    for shift in range(1, size):
        out = pick(out, edge[:, shift : shift + values.shape[1]])
    return out


def ocr(picture, region, way, shrink):
    """The words Tesseract reads in `region` of the screen, prepared `way` ("frameless" or
    "enlarged"): (text, left, top, width, height, line), in the screen's pixels."""
    x, y, w, h = region
    crop = numpy.asarray(picture.crop((x, y, x + w, y + h)).convert("L"), dtype=numpy.int16)
    # Dark text on a light ground (a dark theme's light text is turned round).
    if crop.mean() < 128:
        crop = 255 - crop
    if way == "frameless":
        # A black top-hat along the rows: what is darker than the 24-pixel run around it (the
        # letters) stays; the buttons' frames and fills and the separators go (Tesseract takes a
        # framed label for a picture and skips it). Then dark on white again.
        closed = sliding(sliding(crop, 24, numpy.maximum), 24, numpy.minimum)
        prepared = Image.fromarray((255 - (closed - crop)).clip(0, 255).astype(numpy.uint8))
        factor = 1 / shrink
    else:
        prepared = Image.fromarray(crop.clip(0, 255).astype(numpy.uint8))
        factor = 2 / shrink
    if factor != 1:
        prepared = prepared.resize((round(w * factor), round(h * factor)), Image.BICUBIC)
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "prepared.png")
        prepared.save(path)
        # One thread (the machine's other work goes on meanwhile); no second reading of each line
        # inverted (the text is dark on light here): half the time.
        tsv = subprocess.run(
            ["tesseract", path, "-", "--psm", "11", "-c", "tessedit_do_invert=0", "tsv"],
            check=True,
            capture_output=True,
            text=True,
            env=dict(os.environ, OMP_THREAD_LIMIT="1"),
        ).stdout
    words = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or not normal(cells[11]):
            continue
        left, top, width, height = (round(int(cells[i]) / factor) for i in (6, 7, 8, 9))
        words.append((cells[11].strip(), x + left, y + top, width, height, (way, cells[2], cells[3], cells[4])))
    return words


def find(label, words, used, fits):
    """The words, not among `used`, that read as `label`, consecutive on one line, whose box (left,
    top, right, bottom) `fits`: their indexes and box, or None."""
    wanted = [normal(w) for w in label.split() if normal(w)]
    # A label ending in "…" (a button that opens a dialog) is read with its dots ("Export…" is not
    # the button "Export").
    dots = label.endswith("…")
    lines = {}
    for index, word in enumerate(words):
        lines.setdefault(word[5], []).append(index)
    for line in lines.values():
        for start in range(len(line) - len(wanted) + 1):
            run = line[start : start + len(wanted)]
            if any(i in used for i in run):
                continue
            if dots and not words[run[-1]][0].endswith((".", "…")):
                continue
            if all(difflib.SequenceMatcher(None, want, normal(words[i][0])).ratio() >= 0.8 for want, i in zip(wanted, run)):
                left = min(words[i][1] for i in run)
                top = min(words[i][2] for i in run)
                right = max(words[i][1] + words[i][3] for i in run)
                bottom = max(words[i][2] + words[i][4] for i in run)
                if fits((left, top, right, bottom)):
                    return run, (left, top, right, bottom)
    return None


def read(picture, args, before, grid, ways):
    """Reads the screen, prepared each of `ways` in turn until everything asked is read: (the lines
    to print, None) when it is on screen, else (every line read, why not)."""
    window = box(args.window)
    x, y, w, h = window
    region, now = window, grey(picture)
    if before is not None:
        region = largest_change(blocks(changed_pixels(before, now, window)), window)
        if region is None:
            return [], "nothing changed on the screen"

    def fits(word_box):
        left, top, right, bottom = word_box
        # Wholly inside the window: a word cut by its edge is not on screen.
        if left <= x or top <= y or right >= x + w or bottom >= y + h:
            return False
        if before is None:
            return True
        # Written since BEFORE (the dialog's own, not the window's under it, which is as it was):
        # most of its letters' pixels changed.
        return ink_changed(now, before, (left, top, right - left, bottom - top)) >= 0.5

    words = []
    for way in ways:
        words += ocr(picture, region, way, args.scale)
        found, used, missing = [], set(), []
        for label in args.label:
            match = find(label, words, used, fits)
            if match is None:
                missing.append(label)
                continue
            run, (left, top, right, bottom) = match
            used.update(run)
            found.append(f"{label}\t{(left + right) // 2}\t{(top + bottom) // 2}\t{left},{top},{right - left},{bottom - top}")
        read_words = {normal(word[0]) for word in words if fits((word[1], word[2], word[1] + word[3], word[2] + word[4]))}
        shown = sum(1 for row in grid if row & read_words)
        if not missing and shown >= args.at_least:
            lines = ["region\t" + ",".join(str(v) for v in region)] + found + ([f"rows\t{shown}"] if grid else [])
            return lines, None
    lines = {}
    for word in words:
        lines.setdefault(word[5], []).append(word[0])
    what = [f"'{label}'" for label in missing]
    if shown < args.at_least:
        what.append(f"{args.at_least} of the grid's rows (read {shown})")
    return [" ".join(line) for line in lines.values()], f"{', '.join(what)} not on screen"


def see(args):
    before = grey(Image.open(args.since)) if args.since else None
    grid = []
    if args.rows:
        with open(args.rows, encoding="utf-8") as lines:
            grid = [{normal(cell) for cell in line.rstrip("\n").split("\t") if normal(cell)} for line in lines]
    window = box(args.window)
    deadline = time.monotonic() + args.timeout
    picture, last, lines, why = None, None, [], "nothing was read"
    while True:
        picture = grab()
        now = grey(picture)
        # Read as soon as something shows (a dialog fading in is read where it stays); read the
        # second way too only once the screen keeps still (two screenshots alike, at most a text
        # cursor's worth of blocks changed), so that a reading too early costs little.
        kept_still = last is not None and blocks(changed_pixels(last, now, window)).sum() <= 12
        lines, why = read(picture, args, before, grid, ("frameless", "enlarged") if kept_still else ("frameless",))
        if why is None:
            picture.save(args.shot)
            print("\n".join(lines))
            return 0
        if time.monotonic() >= deadline:
            break
        last = now
    picture.save(args.shot)
    with open(os.path.splitext(args.shot)[0] + "-read.txt", "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    print(why if kept_still else f"{why} (and the screen did not keep still)", file=sys.stderr)
    return 1


def gone(args):
    opened = grey(Image.open(args.open))
    with open(args.read, encoding="utf-8") as lines:
        boxes = [box(cells[3]) for cells in (line.rstrip("\n").split("\t") for line in lines) if len(cells) == 4]
    deadline = time.monotonic() + args.timeout
    closed, last = False, None
    while True:
        picture = grab()
        now = grey(picture)
        # Where each label was, something else: most of its letters' pixels changed (what was under
        # the dialog shows again; it need not be as it was before the dialog opened).
        if not closed and all(ink_changed(opened, now, place) >= 0.5 for place in boxes):
            closed = True
            # Ten seconds more for the screen to keep still (grabbing a large screen takes a while).
            deadline = time.monotonic() + 10
        if closed and not args.then_keep:
            return 0
        # With --then-keep, the screen once it keeps still too (a dialog fades out): what the next
        # dialog is read against.
        if closed and last is not None and blocks(changed_pixels(last, now, box(args.window))).sum() <= 12:
            picture.save(args.then_keep)
            return 0
        if time.monotonic() >= deadline:
            if closed:
                print("the screen did not keep still", file=sys.stderr)
            else:
                picture.save(os.path.splitext(args.open)[0] + "-not-closed.png")
            return 1
        last = now


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    seeing = commands.add_parser("see")
    seeing.add_argument("shot", help="where the screenshot read is kept (PNG)")
    seeing.add_argument("--window", required=True, help="X,Y,W,H")
    seeing.add_argument("--since", help="the screenshot before: read only the largest area changed since")
    seeing.add_argument("--label", action="append", default=[])
    seeing.add_argument("--rows", help="a file of the grid's rows, one a line, its words separated by tabs")
    seeing.add_argument("--at-least", type=int, default=0)
    seeing.add_argument("--scale", type=float, default=1.5, help="the screen's scale: text is read as at 150 %%")
    seeing.add_argument("--timeout", type=float, default=20)
    going = commands.add_parser("gone")
    going.add_argument("--open", required=True, help="the screenshot the labels were read in")
    going.add_argument("--read", required=True, help="what `see` printed")
    going.add_argument("--timeout", type=float, default=4)
    going.add_argument("--then-keep", help="then wait for the screen to keep still, and keep it there (PNG)")
    going.add_argument("--window", help="X,Y,W,H (with --then-keep)")
    args = parser.parse_args()
    if args.command == "see":
        args.scale = max(1.0, args.scale / 1.5)
    sys.exit(see(args) if args.command == "see" else gone(args))


if __name__ == "__main__":
    main()
