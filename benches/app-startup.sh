#!/usr/bin/env bash
# Time from process start to the first frame, and peak memory (max RSS), of the release build of
# the desktop app, under Xvfb with software rendering (Mesa llvmpipe), empty and with a synthetic
# 100,000-row × 12-column result loaded into its first tab (the hooks ORGQL_BENCH_ROWS and
# ORGQL_BENCH_EXIT_AFTER_FRAMES, documented in src/ui/bench.rs). Each case runs RUNS times (5)
# after one unmeasured warm-up; the medians are printed last. The synthetic rows are generated on
# the UI thread before the first frame, which the real app never does (its rows come from the
# worker): the column "less_rows_generation" takes that time out.
#
#   cargo build --release && bash benches/app-startup.sh
#
# Needs xvfb and Mesa's GL drivers (libgl1-mesa-dri libegl1 libegl-mesa0), and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGQL_BIN:-target/release/orgql}
runs=${RUNS:-5}
frames=${FRAMES:-30}
work=$(mktemp -d)
trap 'kill "$xvfb" 2>/dev/null || true; rm -rf "$work"' EXIT

# Xvfb picks a free display and writes its number to fd 3.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3> "$work/display" 2> "$work/xvfb.log" &
xvfb=$!
for _ in $(seq 50); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { cat "$work/xvfb.log"; echo "Xvfb did not start" >&2; exit 1; }
display=":$(cat "$work/display")"

# One run: prints "milliseconds_to_first_frame the_same_less_rows_generation max_rss_MB".
run() {
  local rows=$1 home="$work/home-$RANDOM"
  mkdir -p "$home/config" "$home/data"
  local start
  start=$(date +%s%N)
  env DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 ORGQL_NO_KEYRING=1 \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    ORGQL_BENCH_ROWS="$rows" ORGQL_BENCH_EXIT_AFTER_FRAMES="$frames" \
    /usr/bin/time -f '%M' -o "$work/time" "$bin" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  local first
  first=$(grep -o 'first_frame_unix_ns=[0-9]*' "$work/err" | cut -d= -f2)
  [ -n "$first" ] || { cat "$work/err" >&2; echo "no first frame reported" >&2; exit 1; }
  local generated
  generated=$(grep -o 'rows_generated_ms=[0-9]*' "$work/err" | cut -d= -f2)
  awk -v s="$start" -v f="$first" -v g="$generated" -v kb="$(tail -n 1 "$work/time")" \
    'BEGIN { printf "%.0f %.0f %.1f\n", (f - s) / 1e6, (f - s) / 1e6 - g, kb / 1024 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

line() { printf '%-8s %-6s %18s %21s %11s\n' "$@"; }
line rows run ms_to_first_frame less_rows_generation max_rss_MB
run 0 > /dev/null # warm-up: the binary and the GL driver into the page cache
for rows in 0 100000; do
  : > "$work/results"
  for i in $(seq "$runs"); do
    out=$(run "$rows")
    line "$rows" "$i" $out
    echo "$out" >> "$work/results"
  done
  line "$rows" median "$(cut -d' ' -f1 "$work/results" | median)" "$(cut -d' ' -f2 "$work/results" | median)" \
    "$(cut -d' ' -f3 "$work/results" | median)"
done
