#!/usr/bin/env bash
# Issue 22's figures with the release binary and public tools (/usr/bin/time for wall time and
# peak memory):
#  1. reading and planning an edited export of every user (1 % renamed, 1 % new rows) against a
#     sandbox of USERS users (default 100,000);
#  2. applying a plan of APPLY rows (default 2,000 renamed users) one row at a time: rows/s;
#  3. reading and planning a BIG-row file (default 1,000,000 rows, all new refs) against the same
#     sandbox: peak memory against the file's size;
#  4. the same rows as an XLSX workbook with shared strings, as Excel saves it (written by
#     Python's XlsxWriter: `pip install XlsxWriter`; skipped with a note without it);
#  5. creating BULK new users (default 2,000) on the nested server, through its bulk creation
#     (50 a request) and one mutation a row: rows/s.
#
#   cargo build --release && bash benches/import-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGQL_BIN:-target/release/orgql}
users=${USERS:-100000}
apply_rows=${APPLY:-2000}
big=${BIG:-1000000}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
export HOME=$work/home XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config ORGQL_NO_KEYRING=1
export ORGQL_CLIENT_SECRET=sandbox-secret
mkdir -p "$HOME"
port=$((19000 + RANDOM % 1000))
"$bin" sandbox --listen "127.0.0.1:$port" --users "$users" > "$work/sandbox.log" 2>&1 &
for _ in $(seq 300); do grep -q http "$work/sandbox.log" 2>/dev/null && break; sleep 0.1; done
connection=(--base-url "http://127.0.0.1:$port" --client-id sandbox-admin --scope "users.read users.write groups.read groups.write")

timed() { # label, then the command: prints wall seconds and peak RSS (MB)
  local label=$1; shift
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
    local code=$?
    [ "$code" -eq 7 ] || { cat "$work/err"; exit 1; }
  }
  read -r secs kb < "$work/time"
  printf '%-46s %8ss %8.1f MB   %s\n' "$label" "$secs" "$(awk -v kb="$kb" 'BEGIN { print kb / 1024 }')" "$(head -c 200 "$work/out" | tr '\n' ' ')"
}

"$bin" export -e '{ paginatedUsers(first: 50) { edges { node { ref name email isActive } } } }' \
  --out "$work/users.csv" "${connection[@]}" 2> /dev/null
python3 - "$work/users.csv" "$work/edited.csv" "$work/apply.csv" "$work/big.csv" "$apply_rows" "$big" <<'EOF'
import csv, sys
src, edited, apply_path, big_path, apply_rows, big = sys.argv[1:7]
apply_rows, big = int(apply_rows), int(big)
rows = list(csv.reader(open(src, encoding="utf-8", newline="")))
header, body = rows[0], rows[1:]
with open(edited, "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(header)
    for i, r in enumerate(body):
        if i % 100 == 0:
            r = [r[0], r[1] + " (renamed)", r[2], r[3]]
        w.writerow(r)
    for i in range(len(body) // 100):
        w.writerow([f"new{i:06d}", f"New Person {i}", f"new.{i}@example.com", "true"])
with open(apply_path, "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(header)
    for r in body[:apply_rows]:
        w.writerow([r[0], r[1] + " (applied)", r[2], r[3]])
with open(big_path, "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(header)
    for i in range(big):
        w.writerow([f"big{i:07d}", f"Big Person {i}", f"big.{i}@example.com", "true"])
EOF
printf 'files: edited %s MB, big %s MB (%s rows)\n' "$(du -m "$work/edited.csv" | cut -f1)" "$(du -m "$work/big.csv" | cut -f1)" "$big"
timed "plan: ${users} users, 1 % changed, 1 % new" "$bin" import "$work/edited.csv" "${connection[@]}"
timed "apply: ${apply_rows} updates, one at a time" "$bin" import "$work/apply.csv" --apply "${connection[@]}"
secs=$(cut -d' ' -f1 "$work/time")
printf '%-46s %8.0f rows/s\n' "apply throughput" "$(awk -v n="$apply_rows" -v s="$secs" 'BEGIN { print n / s }')"
timed "plan: ${big} rows, all new, --plan CSV" "$bin" import "$work/big.csv" --plan "$work/big-plan.csv" "${connection[@]}"

if python3 -c 'import xlsxwriter' 2> /dev/null; then
  python3 - "$work/big.csv" "$work/big.xlsx" <<'EOF'
import csv, sys, xlsxwriter
book = xlsxwriter.Workbook(sys.argv[2], {"constant_memory": False})  # shared strings, as Excel
sheet = book.add_worksheet("Users")
for r, row in enumerate(csv.reader(open(sys.argv[1], encoding="utf-8", newline=""))):
    sheet.write_row(r, 0, row)
book.close()
EOF
  printf 'workbook: %s MB\n' "$(du -m "$work/big.xlsx" | cut -f1)"
  timed "plan: ${big} rows, all new, XLSX" "$bin" import "$work/big.xlsx" "${connection[@]}"
else
  echo "note: the XLSX case needs Python's XlsxWriter (pip install XlsxWriter); skipped"
fi

# 5. New users through a bulk creation (the nested server's userBulkCreate, 50 a request by
#    default) against one mutation a row (--batch-size 1), BULK new users each (default 2,000).
bulk=${BULK:-2000}
nport=$((port + 1000))
"$bin" sandbox --variant nested --listen "127.0.0.1:$nport" --users 100 > "$work/nested.log" 2>&1 &
for _ in $(seq 300); do grep -q http "$work/nested.log" 2>/dev/null && break; sleep 0.1; done
nested=(--base-url "http://127.0.0.1:$nport" --client-id sandbox-admin --scope "users.read users.write")
for size in 50 1; do
  python3 - "$work/hires-$size.csv" "$bulk" "$size" <<'EOF'
import csv, sys
path, n, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["ref", "name", "email"])
    for i in range(n):
        w.writerow([f"b{tag}-{i:06d}", f"Bulk Hire {i}", f"bulk{tag}.{i}@example.com"])
EOF
  timed "apply: ${bulk} new users, --batch-size ${size}" "$bin" import "$work/hires-$size.csv" --apply --batch-size "$size" "${nested[@]}"
  secs=$(cut -d' ' -f1 "$work/time")
  printf '%-46s %8.0f rows/s\n' "apply throughput, --batch-size ${size}" "$(awk -v n="$bulk" -v s="$secs" 'BEGIN { print n / s }')"
done
