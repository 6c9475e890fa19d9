"""The last query the app ran, from its history: "profile / outcome", or nothing yet.

Used by the smoke tests of the packages (deb-smoke.sh, windows/smoke.sh) to see that Run ran:
    python3 packaging/last-run.py PATH/TO/orgql.sqlite3
"""
import sqlite3
import sys

try:
    row = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute(
        "SELECT profile, outcome FROM history ORDER BY id DESC LIMIT 1").fetchone()
except sqlite3.Error:
    row = None
print(" / ".join(row) if row else "")
