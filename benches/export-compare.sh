#!/usr/bin/env bash
# `orgql export` against the obvious Python script (benches/export_baseline.py: requests + csv),
# issue 24's measurement. For each size (10,000 and 100,000 users) it starts one
# `orgql sandbox --users N`, then runs the two exporters in turn against it, RUNS times each,
# alternated (orgql, python, orgql, python, …), and prints each run, then the medians of the
# runs after the first (a warm-up: the page cache, and orgql's store holding the schema and an
# earlier export's record, as on any export after the first) and the ratio orgql / Python of
# those medians, with the peak memory (max RSS) of each exporter. Each run's line also gives the
# exporter's CPU time (user + system) and the sandbox's CPU time while it ran (from /proc), which
# a loaded machine disturbs less than wall time.
#
# orgql runs with its record on (the rows kept for `--changes-since last`), in a HOME of its own
# under a temporary folder, so that nothing of the user's store is touched. Both exporters ask
# the same sandbox process for the same pages (50 users each, the spec's cap) in the same order.
#
# With FETCH_ALL=1 (the default when Xvfb is there), it then measures the app's "Fetch all pages
# into the grid" at 100,000 users (benches/fetch-all-memory.sh: the first tab's sample query,
# the in-process sandbox) and `orgql export` of that same sample query at that size, and prints
# the ratio of the two times (issue 24's aim: within 1.2×).
#
#   cargo build --release && bash benches/export-compare.sh
#   RUNS=4 SIZES="10000 100000" ORGQL_BIN=/path/to/orgql bash benches/export-compare.sh
#
# Needs Python's `requests`. EXPORTERS="orgql orgql-xlsx python" adds the workbook exporter
# (`orgql export --out out.xlsx`, rust_xlsxwriter's constant-memory mode).
#
# A before/after pair: ORGQL_BIN_BEFORE=/path/to/the/older/orgql EXPORTERS="orgql-before orgql"
# runs that binary as the exporter `orgql-before` (its own HOME: an older store is not migrated
# by the newer binary), alternated run by run with `orgql` against the same sandbox (served by
# ORGQL_BIN), and prints the ratio after / before of each pair's wall time, peak memory
# and CPU time (median, min, max of the pairs after the first): pairing cancels the drift of a
# loaded machine, and CPU time (user + system) is less disturbed by the load than wall time.
#
#   ORGQL_BIN_BEFORE=/var/tmp/orgql-130ac07 EXPORTERS="orgql-before orgql" SIZES=10000 RUNS=11 FETCH_ALL=0 bash benches/export-compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}
runs=${RUNS:-4}
sizes=${SIZES:-10000 100000}
exporters=${EXPORTERS:-orgql python}
[ -x "$bin" ] || { echo "no release binary at $bin: cargo build --release" >&2; exit 2; }
query='{ paginatedUsers(first: 50) { edges { node { ref name email isActive groups { name } } } } }'
sample='query Users { paginatedUsers(first: 50) { count edges { node { ref name email isActive } } } }'
export ORGQL_CLIENT_SECRET=sandbox-secret ORGQL_NO_KEYRING=1
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
home=$work/home
mkdir -p "$home/config" "$home/data"
in_home=(env HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data")
before_bin=${ORGQL_BIN_BEFORE:-}
case " $exporters " in
  *" orgql-before "*) [ -x "$before_bin" ] || { echo "EXPORTERS names orgql-before: set ORGQL_BIN_BEFORE to that binary" >&2; exit 2; } ;;
esac
before_home=$work/home-before
mkdir -p "$before_home/config" "$before_home/data"
in_before_home=(env HOME="$before_home" XDG_CONFIG_HOME="$before_home/config" XDG_DATA_HOME="$before_home/data")

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

start_sandbox() { # users
  port=$((18000 + RANDOM % 1000))
  "$bin" sandbox --listen "127.0.0.1:$port" --users "$1" > "$work/sandbox.log" &
  sandbox=$!
  for _ in $(seq 300); do grep -q http "$work/sandbox.log" 2>/dev/null && break; sleep 0.1; done
  base="http://127.0.0.1:$port"
}

stop_sandbox() {
  kill "$sandbox"
  wait "$sandbox" 2>/dev/null || true
}

one_run() { # users exporter query -> appends "secs kb" to $work/$users-$exporter
  local users=$1 exporter=$2 q=$3 out cmd rows
  out=$work/out.csv
  case "$exporter" in
    orgql) cmd=("${in_home[@]}" "$bin" export -e "$q" --out "$out" --base-url "$base" --client-id sandbox-reader --scope users.read) ;;
    orgql-before) cmd=("${in_before_home[@]}" "$before_bin" export -e "$q" --out "$out" --base-url "$base" --client-id sandbox-reader --scope users.read) ;;
    orgql-xlsx)
      out=$work/out.xlsx
      cmd=("${in_home[@]}" "$bin" export -e "$q" --out "$out" --base-url "$base" --client-id sandbox-reader --scope users.read) ;;
    *) cmd=(python3 benches/export_baseline.py "$base" "$out") ;;
  esac
  rm -f "$out"
  local ticks0 ticks1
  ticks0=$(awk '{ print $14 + $15 }' "/proc/$sandbox/stat")
  /usr/bin/time -f '%e %M %U %S' -o "$work/time" "${cmd[@]}" 2> "$work/err" || { cat "$work/err"; exit 1; }
  ticks1=$(awk '{ print $14 + $15 }' "/proc/$sandbox/stat")
  read -r secs kb user sys < "$work/time"
  case "$out" in
    *.xlsx) rows=$(unzip -p "$out" xl/worksheets/sheet1.xml | grep -o '<row ' | wc -l) ;;
    *) rows=$(($(wc -l < "$out"))) ;;
  esac
  echo "$secs $kb $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" >> "$work/$users-$exporter"
  printf '%-8s %-10s %3s %8s s %8.1f MB   CPU %5.2f s, sandbox CPU %5.2f s   (%s lines, load %s)\n' "$users" "$exporter" "$4" \
    "$secs" "$(awk -v kb="$kb" 'BEGIN { print kb / 1024 }')" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
    "$(awk -v t=$((ticks1 - ticks0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { print t / hz }')" "$rows" "$(cut -d' ' -f1 /proc/loadavg)"
}

summary() { # users exporter -> "median_secs median_MB" over the runs after the first
  tail -n +2 "$work/$1-$2" > "$work/counted"
  echo "$(cut -d' ' -f1 "$work/counted" | median) $(cut -d' ' -f2 "$work/counted" | median | awk '{ print $1 / 1024 }')"
}

echo "$bin${before_bin:+ (before: $before_bin)}; $runs alternated runs each, medians of the last $((runs - 1)); load at start $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A result
for users in $sizes; do
  start_sandbox "$users"
  for run in $(seq "$runs"); do
    for exporter in $exporters; do one_run "$users" "$exporter" "$query" "#$run"; done
  done
  stop_sandbox
  for exporter in $exporters; do result[$users-$exporter]=$(summary "$users" "$exporter"); done
done

echo
printf '%-8s %-10s %10s %12s %16s\n' users exporter median_s max_rss_MB ratio_to_python
for users in $sizes; do
  for exporter in $exporters; do
    read -r secs mb <<< "${result[$users-$exporter]}"
    ratio=-
    if [ "$exporter" != python ] && [ -n "${result[$users-python]:-}" ]; then
      ratio=$(awk -v a="$secs" -v b="${result[$users-python]%% *}" 'BEGIN { printf "%.2f", a / b }')
    fi
    printf '%-8s %-10s %10.3f %12.1f %16s\n' "$users" "$exporter" "$secs" "$mb" "$ratio"
  done
done

# Before/after pairs: run i of orgql against run i of orgql-before, the first (warm-up) left out.
for users in $sizes; do
  [ -s "$work/$users-orgql" ] && [ -s "$work/$users-orgql-before" ] || continue
  paste -d' ' "$work/$users-orgql" "$work/$users-orgql-before" | tail -n +2 |
    awk '{ printf "%.3f %.3f %.3f\n", $1 / $4, $2 / $5, ($6 > 0) ? $3 / $6 : 0 }' > "$work/pairs"
  spread() { cut -d' ' -f"$1" "$work/pairs" | sort -g | awk '{ v[NR] = $1 } END { printf "%s (min %s, max %s)", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }'; }
  printf '%-8s after/before, %d pairs: wall time %s, CPU time %s, peak memory %s\n' "$users" \
    "$(wc -l < "$work/pairs")" "$(spread 1)" "$(spread 3)" "$(spread 2)"
done

if [ "${FETCH_ALL:-$(command -v Xvfb > /dev/null && echo 1 || echo 0)}" = 1 ]; then
  echo
  echo "Fetch all pages into the grid (the sample query, 100000 users) against orgql export of the same query:"
  ORGQL_BIN="$bin" USERS=100000 RUNS=$((runs - 1)) bash benches/fetch-all-memory.sh | tee "$work/fetch-all"
  start_sandbox 100000
  : > "$work/100000-orgql"
  for run in $(seq "$runs"); do one_run 100000 orgql "$sample" "#$run"; done
  stop_sandbox
  read -r secs mb <<< "$(summary 100000 orgql)"
  fetch=$(grep -o '[0-9.]* s ' "$work/fetch-all" | cut -d' ' -f1 | median)
  awk -v f="$fetch" -v e="$secs" -v mb="$mb" 'BEGIN {
    printf "fetch all (median) %.2f s; orgql export of the sample query (median) %.3f s, %.1f MB; fetch all / export %.2f\n", f, e, mb, f / e }'
fi
