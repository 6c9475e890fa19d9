#!/usr/bin/env bash
# Every benchmark of orgql, and one table of the figures (figure, value, aim) at the end, so that
# a release can be compared with the last (benches/README.md keeps the last table).
#
#   bash benches/run-all.sh            # the full run: criterion's own sampling
#   bash benches/run-all.sh --quick    # criterion's --quick and fewer repeats (13.5 min here, half of it compiling)
#   bash benches/run-all.sh --table    # the last run's table again, without running anything
#
# Runs `cargo bench --bench NAME` for sandbox, export, ui, schema, schema_changes, document and webhooks (the
# figures come from criterion's target/criterion/*/*/new/estimates.json), then
# benches/export-compare.sh, benches/sandbox-wrk.sh (when `wrk` is installed) and
# benches/app-startup.sh (when `Xvfb` is) against the release binary. A part that cannot run
# says why in the table and the others go on. Each part's full output is kept in
# $TARGET/bench-logs/ (the path is printed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0 table_only=0
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        --table) table_only=1 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "run-all: unknown option '$arg' (try --quick)" >&2; exit 2 ;;
    esac
done

target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
logs="$target/bench-logs"
results="$logs/results.tsv" # figure, value, aim (from the scripts; criterion's are read at the end)
marker="$logs/.started"       # criterion's figures older than this are from an earlier run
table() {
    python3 - "$target/criterion" "$marker" "$results" << 'EOF'
# The table: criterion's figures (time per iteration, or a rate where the figure is one),
# only those measured in this run, then the scripts' figures.
import json, os, re, sys

criterion, marker, results = sys.argv[1:]
since = os.path.getmtime(marker)
# id, figure, aim, items per iteration for a rate (0: show the time), unit of the rate
FIGURES = [
    ("users_page/sequential", "sandbox: one users page (50 users, 5 fields), request after request", "-", 0, ""),
    ("users_page/concurrent_64", "sandbox: users pages with 64 requests in flight", "> 5,000 pages/s", 64, "pages/s"),
    ("walk_10k_users/200_pages", "sandbox: walking 10,000 users (200 pages)", "-", 0, ""),
    ("export/10k_users_200_pages", "export: 10,000 users from the in-process sandbox to CSV", "-", 0, ""),
    ("csv/100k_rows", "export: flattening + CSV writing of 100,000 user nodes", "-", 0, ""),
    ("grid_100k/scroll_frame", "app: a grid frame, 100,000 rows × 12 columns, scrolling", "< 2 ms", 0, ""),
    ("grid_100k/scroll_frame_ui_only", "app: the same without tessellation", "-", 0, ""),
    ("highlight_2000_lines/one_char_edit", "app: highlighting 2,000 lines after a one-character edit", "< 5 ms", 0, ""),
    ("highlight_2000_lines/full", "app: highlighting 2,000 lines from scratch", "-", 0, ""),
    ("editor_2000_lines/one_char_edit_frame", "app: an editor frame after such an edit", "< 5 ms", 0, ""),
    ("editor_2000_lines/unchanged_frame", "app: an editor frame without an edit", "-", 0, ""),
    ("inspector_100k/scroll_frame", "app: a webhook inspector frame, 100,000 deliveries, scrolling", "-", 0, ""),
    ("inspector_100k/burst_1000_frame", "app: an inspector frame taking a burst of 1,000 arrivals", "-", 0, ""),
    ("schema/introspection_json_to_model", "explorer: 1,500-type introspection JSON to a ready model", "< 100 ms", 0, ""),
    ("schema/introspection_json_to_sdl", "explorer: of which JSON to SDL", "-", 0, ""),
    ("schema/sdl_to_model", "explorer: of which SDL to model (a cached schema)", "-", 0, ""),
    ("schema/search_e", "explorer: search of 11,500 names for 'e'", "< 10 ms", 0, ""),
    ("schema/search_account", "explorer: search for 'account'", "< 10 ms", 0, ""),
    ("schema/search_zzz", "explorer: search for 'zzz' (no hit)", "< 10 ms", 0, ""),
    ("schema_changes/compare_2000_types", "schema versions: two 2,000-type schemas compared, changes classified", "< 50 ms", 0, ""),
    ("schema_changes/shape_and_fingerprint_2000_types", "schema versions: a fetched schema's shape and fingerprint", "-", 0, ""),
    ("document/tick_3_deep_50_lines", "editor: ticking a field 3 deep in a 50-line query, round trip", "< 5 ms", 0, ""),
    ("document/untick_3_deep_50_lines", "editor: unticking it", "< 5 ms", 0, ""),
    ("document/selected_paths_200_lines", "editor: the ticks of a 200-line query", "-", 0, ""),
    ("document/validate_200_lines", "editor: validating a 200-line query", "< 10 ms", 0, ""),
    ("document/complete_200_lines", "editor: a completion in a 200-line query", "-", 0, ""),
    ("document/prettify_2000_lines", "editor: Prettify of a 2,000-line commented query", "-", 0, ""),
    ("grid_filter_100k/keystroke_scan", "app: the grid's quick filter, a keystroke over 100,000 rows", "< 16 ms", 0, ""),
    ("grid_filter_100k/keystroke_frame", "app: a results frame with that keystroke, tessellated", "< 16 ms", 0, ""),
    ("grid_filter_100k/index", "app: the quick filter's index of 100,000 rows (once)", "-", 0, ""),
    ("listener/burst_2000_by_64", "webhooks: deliveries received, verified and stored, 64 senders", "> 5,000/s", 2000, "deliveries/s"),
]

def duration(ns):
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= size:
            return f"{ns / size:.3g} {unit}"
    return f"{ns:.3g} ns"

rows = []
for ident, figure, aim, items, unit in FIGURES:
    path = os.path.join(criterion, *ident.split("/"), "new", "estimates.json")
    if not os.path.exists(path) or os.path.getmtime(path) < since:
        rows.append((figure, "not measured in this run", aim))
        continue
    with open(path) as f:
        estimates = json.load(f)
    # What criterion prints as "time": the slope where it sampled linearly, else the mean.
    mean = (estimates.get("slope") or estimates["mean"])["point_estimate"]
    value = f"{items / (mean / 1e9):,.0f} {unit} ({duration(mean)} per {items})" if items else duration(mean)
    rows.append((figure, value, aim))
with open(results) as f:
    rows += [tuple(line.rstrip("\n").split("\t")) for line in f if line.strip()]

def readable(text):
    # 10000 -> 10,000 (not inside decimals), "-" -> "—"
    text = re.sub(r"(?<![\d.,])(\d{4,})(?![\d.,])", lambda m: f"{int(m.group(1)):,}", text)
    return "—" if text == "-" else text

print("| figure | value | aim |")
print("|---|---|---|")
for row in rows:
    print("| " + " | ".join(readable(cell) for cell in row) + " |")
EOF
}
if [ "$table_only" = 1 ]; then
    [ -f "$marker" ] || { echo "run-all: no run yet in $logs" >&2; exit 1; }
    echo "orgql benchmarks: the run of $(date -r "$marker" '+%F %H:%M')"
    table
    exit 0
fi
mkdir -p "$logs"
: > "$results"
started=$(date +%s)
touch "$marker"
criterion_args=(--noplot)
[ "$quick" = 1 ] && criterion_args+=(--quick)

note() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:--}" >> "$results"; }

echo "== release build (the scripts run target/release/orgql)"
cargo build --release --locked 2>&1 | tail -n 1
export ORGQL_BIN="$target/release/orgql"

for bench in sandbox export ui schema schema_changes document webhooks; do
    echo "== cargo bench --bench $bench"
    if ! cargo bench --locked --bench "$bench" -- "${criterion_args[@]}" > "$logs/$bench.log" 2>&1; then
        note "cargo bench --bench $bench" "failed: see $logs/$bench.log"
    fi
done

echo "== benches/export-compare.sh"
if python3 -c 'import requests' 2> /dev/null; then
    if bash benches/export-compare.sh > "$logs/export-compare.log" 2>&1; then
        # The summary's lines: users exporter median_s max_rss_MB ratio_to_python (each run's
        # lines, whose third field is #N, are left out).
        while read -r users exporter secs mb ratio _; do
            case "$exporter" in orgql | orgql-xlsx | python) ;; *) continue ;; esac
            case "$secs" in '#'*) continue ;; esac
            aim='-'
            [ "$exporter" != python ] && aim='ratio to Python ≤ 0.3; peak memory ≤ 25 MB at 100,000'
            [ "$exporter" = python ] && aim='orgql faster'
            value="$secs s, $mb MB"
            [ "$exporter" != python ] && value="$value, ratio $ratio"
            note "whole export of $users users: $exporter (median wall time, peak RSS)" "$value" "$aim"
        done < "$logs/export-compare.log"
    else
        note "benches/export-compare.sh" "failed: see $logs/export-compare.log"
    fi
else
    note "benches/export-compare.sh" "not run: Python's requests is missing (pip install requests)"
fi

echo "== benches/sandbox-wrk.sh"
if command -v wrk > /dev/null; then
    if bash benches/sandbox-wrk.sh > "$logs/sandbox-wrk.log" 2>&1; then
        rate=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$logs/sandbox-wrk.log")
        latency=$(awk '$1 == "Latency" { print $2; exit }' "$logs/sandbox-wrk.log")
        note "release sandbox under wrk (2 threads, 32 connections, 10 s): users pages/s" "$rate pages/s ($latency mean latency)" "> 5,000 pages/s"
    else
        note "benches/sandbox-wrk.sh" "failed: see $logs/sandbox-wrk.log"
    fi
else
    note "benches/sandbox-wrk.sh" "not run: wrk is missing (apt-get install wrk)"
fi

echo "== benches/app-startup.sh"
if command -v Xvfb > /dev/null; then
    runs=5
    [ "$quick" = 1 ] && runs=3
    if RUNS=$runs bash benches/app-startup.sh > "$logs/app-startup.log" 2>&1; then
        # Median lines: rows "median" ms_to_first_frame less_rows_generation max_rss_MB
        while read -r rows run first less rss; do
            [ "$run" = median ] || continue
            if [ "$rows" = 0 ]; then
                note "app start to first frame, empty (median of $runs)" "$first ms" "< 200 ms"
                note "app peak memory, empty" "$rss MB" "-"
            else
                note "app start to first frame with a $rows-row result, less the rows' generation" "$less ms" "< 200 ms"
                note "app peak memory with the $rows-row result" "$rss MB" "< 200 MB"
            fi
        done < "$logs/app-startup.log"
    else
        note "benches/app-startup.sh" "failed: see $logs/app-startup.log"
    fi
else
    note "benches/app-startup.sh" "not run: Xvfb is missing (apt-get install xvfb)"
fi

mode=full
[ "$quick" = 1 ] && mode=quick
echo
echo "orgql benchmarks, $(date +%F), $mode run, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(($(date +%s) - started)) s"
table
echo
echo "(each part's output: $logs)"
