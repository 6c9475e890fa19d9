#!/usr/bin/env bash
# Exports every user of a local sandbox with `orgql export` to CSV and to XLSX (exporter
# `orgql-xlsx`: the same query into `out.xlsx`, rust_xlsxwriter's constant-memory mode) and with the
# Python baseline (benches/export_baseline.py), for 10,000 and 100,000 users, and prints wall time
# and peak memory (max RSS) of each exporter and the rows it wrote (lines of the CSV, `<row`
# elements of the workbook's first sheet, header included). Needs the release build and Python's
# `requests` (EXPORTERS="orgql orgql-xlsx" leaves Python out).
#
#   cargo build --release && bash benches/export-compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGQL_BIN:-target/release/orgql}
query='{ paginatedUsers(first: 50) { edges { node { ref name email isActive groups { name } } } } }'
export ORGQL_CLIENT_SECRET=sandbox-secret ORGQL_NO_KEYRING=1
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
printf '%-8s %-10s %10s %12s\n' users exporter seconds max_rss_MB
for users in 10000 100000; do
  port=$((18000 + RANDOM % 1000))
  "$bin" sandbox --listen "127.0.0.1:$port" --users "$users" > "$work/sandbox.log" &
  sandbox=$!
  for _ in $(seq 100); do grep -q http "$work/sandbox.log" 2>/dev/null && break; sleep 0.1; done
  base="http://127.0.0.1:$port"
  for exporter in ${EXPORTERS:-orgql orgql-xlsx python}; do
    out=$work/out.csv
    case "$exporter" in
      orgql) cmd=("$bin" export -e "$query" --out "$out" --base-url "$base" --client-id sandbox-reader --scope users.read) ;;
      orgql-xlsx)
        out=$work/out.xlsx
        cmd=("$bin" export -e "$query" --out "$out" --base-url "$base" --client-id sandbox-reader --scope users.read) ;;
      *) cmd=(python3 benches/export_baseline.py "$base" "$out") ;;
    esac
    rm -f "$out"
    /usr/bin/time -f '%e %M' -o "$work/time" "${cmd[@]}" 2> "$work/err" || { cat "$work/err"; exit 1; }
    read -r secs kb < "$work/time"
    case "$out" in
      *.xlsx) rows=$(unzip -p "$out" xl/worksheets/sheet1.xml | grep -o '<row ' | wc -l) ;;
      *) rows=$(($(wc -l < "$out"))) ;;
    esac
    printf '%-8s %-10s %10s %12.1f   (%s lines)\n' "$users" "$exporter" "$secs" "$(awk -v kb="$kb" "BEGIN { print kb / 1024 }")" "$rows"
  done
  kill "$sandbox"; wait "$sandbox" 2>/dev/null || true
done
