#!/usr/bin/env python3
"""Reads orgql's window through AT-SPI, as Orca does (tests/it/atspi.rs starts it).

The app runs on a private session bus with its own accessibility bus; this script, on the same
buses, finds the window, presses Run through AT-SPI's Action interface, reads the grid's rows
(posinset and setsize), chooses the connection "second" in the Connection combo, reads the combo's
value back the way Orca does (its Selection interface: the selected child), and counts the grid's
rows on screen while the notices show. It prints one JSON object on its last line. Every wait is
bounded; a failure is a JSON object with "error".
"""

import json
import subprocess
import sys
import time
import traceback

import pyatspi

DEADLINE = 60.0
SHOT = sys.argv[1] if len(sys.argv) > 1 else None


def wait_for(what, find, within=DEADLINE):
    started = time.monotonic()
    while True:
        try:
            found = find()
        except Exception:  # the tree changes under us: ask again
            found = None
        if found:
            return found
        if time.monotonic() - started > within:
            raise TimeoutError(f"waited {within:.0f} s for {what}")
        time.sleep(0.25)


def role(acc):
    try:
        return acc.getRoleName()
    except Exception:
        return ""


def name(acc):
    try:
        return acc.name or ""
    except Exception:
        return ""


def children(acc):
    try:
        return [c for c in acc if c is not None]
    except Exception:
        return []


def walk(root, limit=20000):
    """Every node under root as it is now (breadth first, bounded): libatspi's cache of children
    is dropped first (it follows the tree only through events this script does not pump)."""
    try:
        root.clearCache()
    except Exception:
        pass
    queue, seen = [root], 0
    while queue and seen < limit:
        node = queue.pop(0)
        seen += 1
        yield node
        queue.extend(children(node))


def find(root, predicate):
    return next((n for n in walk(root) if predicate(n)), None)


def find_all(root, predicate):
    return [n for n in walk(root) if predicate(n)]


def attributes(acc):
    try:
        return dict(a.split(":", 1) for a in acc.getAttributes())
    except Exception:
        return {}


def extents(acc):
    box = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    return (box.x, box.y, box.width, box.height)


def press(acc):
    action = acc.queryAction()
    names = [action.getName(i) for i in range(action.nActions)]
    index = names.index("click") if "click" in names else 0
    action.doAction(index)


def the_window():
    desktop = pyatspi.Registry.getDesktop(0)
    for app in children(desktop):
        for frame in children(app):
            if "orgql" in name(frame):
                return frame
    return None


def main():
    out = {}
    window = wait_for("orgql's window on the accessibility bus", the_window)
    out["window"] = name(window)

    run = wait_for("the Run button", lambda: find(window, lambda n: role(n) == "push button" and name(n) == "Run"))
    press(run)

    def first_rows():
        table = find(window, lambda n: role(n) == "table" and name(n) == "Rows")
        if table is None:
            return None
        rows = [r for r in find_all(table, lambda n: role(n) == "table row") if "posinset" in attributes(r)]
        return (table, rows) if rows else None

    table, rows = wait_for("the grid's rows", first_rows)
    first = min(rows, key=lambda r: int(attributes(r)["posinset"]))
    cells = [name(c) for c in children(first)]
    out["first_row"] = {"cells": cells, **attributes(first)}
    out["header_rows"] = len([r for r in find_all(table, lambda n: role(n) == "table row") if "posinset" not in attributes(r)])

    combo = wait_for("the Connection combo", lambda: find(window, lambda n: role(n) == "combo box" and name(n) == "Connection"))
    press(combo)
    option = wait_for(
        "the option 'second' in the combo's list",
        lambda: find(window, lambda n: name(n) == "second" and role(n) in ("list item", "push button", "toggle button", "check box", "radio button", "label")),
    )
    out["option_role"] = role(option)
    press(option)

    def combo_value():
        selection = combo.querySelection()
        if selection.nSelectedChildren != 1:
            return None
        child = selection.getSelectedChild(0)
        value = name(child)
        return value if value == "second" else None

    try:
        out["combo_value"] = wait_for("the combo to say 'second'", combo_value, within=20)
    except TimeoutError:
        selection = combo.querySelection()
        out["combo_value"] = None
        out["combo_selected"] = [name(selection.getSelectedChild(i)) for i in range(selection.nSelectedChildren)]
    out["combo_name"] = name(combo)
    out["combo_children"] = [(role(c), name(c)) for c in children(combo)]

    notice = wait_for(
        "the notice that the rows came from Sandbox",
        lambda: find(window, lambda n: name(n).startswith("These rows came from Sandbox")),
    )
    out["notice"] = name(notice)
    keyring = find(window, lambda n: "No OS keyring is available" in name(n))
    out["keyring_notice"] = name(keyring) if keyring else None
    time.sleep(1.5)  # a few frames for the layout to settle after the notice

    # The rows on screen: those whose cells lie inside the grid's visible body, which its
    # vertical scroll bar spans (above the horizontal one). Rows and tables carry no box of their
    # own in egui's tree; their cells and the scroll bars do.
    def scroll_bars():
        # The grid is found again: egui may give its table a new node as the layout changes.
        table = find(window, lambda n: role(n) == "table" and name(n) == "Rows")
        bars = [extents(b) for b in find_all(table, lambda n: role(n) == "scroll bar")] if table else []
        return (table, bars) if any(b[3] > b[2] for b in bars) else None

    table, bars = wait_for("the grid's vertical scroll bar", scroll_bars, within=20)
    vertical = [b for b in bars if b[3] > b[2]]
    horizontal = [b for b in bars if b[2] >= b[3]]
    top = vertical[0][1]
    bottom = vertical[0][1] + vertical[0][3]
    for bar in horizontal:
        if top < bar[1] < bottom:
            bottom = bar[1]
    on_screen = []
    for row in find_all(table, lambda n: role(n) == "table row"):
        attrs = attributes(row)
        cells = children(row)
        if "posinset" not in attrs or not cells:
            continue
        x, y, w, h = extents(cells[0])
        if h > 0 and y >= top - 1 and y + h <= bottom + 1:
            on_screen.append(int(attrs["posinset"]))
    out["grid_body"] = [top, bottom]
    out["rows_on_screen"] = sorted(on_screen)

    if SHOT:
        subprocess.run(["import", "-window", "root", SHOT], check=False, timeout=30)
        out["screenshot"] = SHOT
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # reported to the Rust test, which fails with it
        traceback.print_exc(file=sys.stderr)
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        sys.exit(1)
