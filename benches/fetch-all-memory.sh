#!/usr/bin/env bash
# The app's memory after "Fetch all pages" of a large result, and the CPU it uses idle after it:
# a release binary under Xvfb (Mesa llvmpipe), a fresh HOME, the in-process sandbox given
# USERS users (ORGQL_BENCH_SANDBOX_USERS), the first tab's sample query fetched page by page into
# the grid (ORGQL_BENCH_FETCH_ALL, src/ui/app/bench.rs). Prints, for each of RUNS runs: the rows, the
# seconds the fetch took, PSS and RSS in MB one second after the last page, the idle CPU (%) and
# the frames drawn over the 5 seconds after that.
#
#   cargo build --release && bash benches/fetch-all-memory.sh
#   ORGQL_BIN=/path/to/orgql USERS=100000 RUNS=3 bash benches/fetch-all-memory.sh
#
# The sandbox's own data lives in the same process (about the same in every build), so compare
# builds with each other rather than read the PSS as the grid's alone.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}
users=${USERS:-100000}
runs=${RUNS:-3}
[ -x "$bin" ] || { echo "no release binary at $bin: cargo build --release" >&2; exit 2; }
command -v Xvfb > /dev/null || { echo "Xvfb is needed (apt install xvfb)" >&2; exit 2; }

work=$(mktemp -d)
app=
trap 'kill "$xvfb" $app 2>/dev/null || true; rm -rf "$work"' EXIT
. benches/xvfb.sh
start_xvfb

one() {
  local home="$work/home-$RANDOM"
  mkdir -p "$home/config" "$home/data"
  : > "$work/err"
  env DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 ORGQL_NO_KEYRING=1 HOME="$home" \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    ORGQL_LOG="warn,orgql::timing=trace" ORGQL_BENCH_SANDBOX_USERS="$users" ORGQL_BENCH_FETCH_ALL=1 "$bin" 2> "$work/err" &
  app=$!
  for _ in $(seq 1200); do grep -q 'fetched_all' "$work/err" && break; sleep 0.1; done
  grep -q 'fetched_all' "$work/err" || { tail -5 "$work/err" >&2; echo "the fetch did not end in 120 s" >&2; exit 1; }
  sleep 1
  local pss rss rows ms t0 t1 f0 f1 hz
  pss=$(awk '/^Pss:/ { print $2 }' "/proc/$app/smaps_rollup")
  rss=$(awk '/^Rss:/ { print $2 }' "/proc/$app/smaps_rollup")
  rows=$(grep -o 'fetched_all rows=[0-9]*' "$work/err" | cut -d= -f2)
  ms=$(grep -o ' ms=[0-9]*' "$work/err" | head -1 | cut -d= -f2)
  hz=$(getconf CLK_TCK)
  t0=$(awk '{ print $14 + $15 }' "/proc/$app/stat")
  f0=$(grep -c 'step=frame ' "$work/err" || true)
  sleep 5
  t1=$(awk '{ print $14 + $15 }' "/proc/$app/stat")
  f1=$(grep -c 'step=frame ' "$work/err" || true)
  kill "$app"
  wait "$app" 2> /dev/null || true
  app=
  awk -v r="$rows" -v ms="$ms" -v pss="$pss" -v rss="$rss" -v t="$((t1 - t0))" -v hz="$hz" -v fr="$((f1 - f0))" \
    'BEGIN { printf "%7d rows  %6.1f s  PSS %6.1f MB  RSS %6.1f MB  idle CPU %4.1f %%  %d frames\n", r, ms / 1000, pss / 1024, rss / 1024, 100 * t / hz / 5, fr }'
}

echo "$bin, $users users, load $(cut -d' ' -f1 /proc/loadavg)"
for _ in $(seq "$runs"); do one; done
