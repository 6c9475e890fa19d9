#!/usr/bin/env bash
# Sharing and pulling (issue 23): catch-up of N stored deliveries by `orgql webhooks pull` (time,
# peak memory of the puller and of the sharing listener), and deliveries per second through the
# read API's event stream to one client (curl reading every event of the same N).
#
#   benches/share-stream.sh                      # N=100000, the binary at $ORGQL_BIN
#   ORGQL_BIN=target/release/orgql N=100000 benches/share-stream.sh
#
# Needs sqlite3 (to seed the listener's store fast), curl and GNU time. Figures in benches/README.md.
set -euo pipefail
BIN=${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}
N=${N:-100000}
[ -x "$BIN" ] || { echo "no orgql binary at $BIN; build it (cargo build --release) or set ORGQL_BIN" >&2; exit 2; }
DIR=$(mktemp -d)
trap 'kill $LISTENER 2>/dev/null || true; rm -rf "$DIR"' EXIT
export ORGQL_NO_KEYRING=1
TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$TOKEN" > "$DIR/token"
chmod 600 "$DIR/token"

# The listener's store with N deliveries of about 500 bytes each (made once by the listener, then filled by SQL).
"$BIN" webhooks export --store "$DIR/server.sqlite3" --out "$DIR/empty.jsonl" 2>/dev/null
sqlite3 "$DIR/server.sqlite3" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $N)
INSERT INTO deliveries (received_at, method, path, query, headers, body, verified, reason, size)
SELECT '2026-11-25T00:00:00+00:00', 'POST', '/hooks', '',
       '[["content-type","application/json"],["webhook-id","msg_' || i || '"]]',
       CAST(printf('{"type":"user.updated","data":{"n":%d,"pad":"%s"}}', i, hex(randomblob(200))) AS BLOB),
       NULL, '', 0
FROM n;
SQL

"$BIN" webhooks listen --listen 127.0.0.1:0 --store "$DIR/server.sqlite3" --share-token-file "$DIR/token" > "$DIR/listen.out" 2>/dev/null &
LISTENER=$!
for _ in $(seq 100); do grep -q 'listening at' "$DIR/listen.out" 2>/dev/null && break; sleep 0.1; done
URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$DIR/listen.out" | head -1)

echo "catch-up of $N stored deliveries (orgql webhooks pull):"
/usr/bin/time -f '  %e s, puller peak RSS %M KiB' "$BIN" webhooks pull "$URL" --token-file "$DIR/token" --store "$DIR/desk.sqlite3"
echo "  listener peak RSS $(awk '/VmHWM/ {print $2}' /proc/$LISTENER/status) KiB"

echo "the event stream to one client (curl, every event of the $N):"
START=$(date +%s.%N)
COUNT=$(curl -sN -H "Authorization: Bearer $TOKEN" "$URL/_orgql/v1/stream?after=0" | { grep -m "$N" '^event: delivery' || true; } | wc -l || true)
END=$(date +%s.%N)
awk -v n="$COUNT" -v s="$START" -v e="$END" 'BEGIN { printf "  %d deliveries in %.2f s: %.0f deliveries/s\n", n, e - s, n / (e - s) }'
echo "  listener peak RSS $(awk '/VmHWM/ {print $2}' /proc/$LISTENER/status) KiB"
