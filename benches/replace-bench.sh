#!/usr/bin/env bash
# Issues 29 and 39's figure: ROWS (default 10,000) updates applied with the release binary, on
# the replace-style graphene-django service (tests/django_service: each row read, sent whole,
# read back), the Strawberry-Django service (tests/strawberry_service: each row read, the
# changes sent in a partial input named by the relay id, read back from the union answer) and
# the patch-style sandbox (each row read, the changes sent, read back from the answer): rows/s
# each. Needs the services' venvs (`.ci/run` makes them; PYTHON and STRAWBERRY_PYTHON override).
#
#   cargo build --release && bash benches/replace-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGQL_BIN:-target/release/orgql}
rows=${ROWS:-10000}
python=${PYTHON:-/var/tmp/orgql-django-venv/bin/python}
strawberry=${STRAWBERRY_PYTHON:-/var/tmp/orgql-strawberry-venv/bin/python}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
export HOME=$work/home XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config ORGQL_NO_KEYRING=1
export ORGQL_CLIENT_SECRET=sandbox-secret
mkdir -p "$HOME"

"$python" tests/django_service/serve.py --db "$work/service.sqlite3" --users "$rows" --secret sandbox-secret \
  > "$work/django.log" 2>&1 &
"$strawberry" tests/strawberry_service/serve.py --db "$work/strawberry.sqlite3" --users "$rows" \
  --secret sandbox-secret > "$work/strawberry.log" 2>&1 &
"$bin" sandbox --listen 127.0.0.1:0 --users "$rows" > "$work/sandbox.log" 2>&1 &
for _ in $(seq 600); do
  grep -q http "$work/django.log" 2>/dev/null && grep -q http "$work/sandbox.log" 2>/dev/null \
    && grep -q http "$work/strawberry.log" 2>/dev/null && break
  sleep 0.2
done
django=$(grep -o 'http://[0-9.:]*' "$work/django.log" | head -1)
strawberry_url=$(grep -o 'http://[0-9.:]*' "$work/strawberry.log" | head -1)
sandbox=$(grep -o 'http://[0-9.:]*' "$work/sandbox.log" | head -1)

python3 - "$work/changes.csv" "$rows" <<'PY'
import sys
path, rows = sys.argv[1], int(sys.argv[2])
with open(path, "w", encoding="utf-8") as f:
    f.write("ref,name\n")
    for i in range(1, rows + 1):
        f.write(f"u{i:05},Renamed Person {i}\n")
PY

run() { # label, base URL, client
  local label=$1 url=$2 client=$3
  rm -rf "$work/data"
  /usr/bin/time -f '%e %M' -o "$work/time" "$bin" import "$work/changes.csv" --apply \
    --concurrency "${CONCURRENCY:-1}" --base-url "$url" --client-id "$client" --scope "users.read users.write" > "$work/out" 2> "$work/err" || {
    cat "$work/err"; exit 1; }
  read -r secs kb < "$work/time"
  printf '%-34s %6d rows %8ss %8.0f rows/s %7.1f MB   %s\n' "$label" "$rows" "$secs" \
    "$(awk -v n="$rows" -v s="$secs" 'BEGIN { print n / s }')" "$(awk -v kb="$kb" 'BEGIN { print kb / 1024 }')" \
    "$(tail -c 120 "$work/out" | tr '\n' ' ')"
}
run "patch-style sandbox" "$sandbox" sandbox-admin
run "replace-style graphene-django" "$django" orgql-admin
run "union payloads, Strawberry-Django" "$strawberry_url" orgql-admin
