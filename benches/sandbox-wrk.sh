#!/usr/bin/env bash
# The sandbox's own throughput, measured by an external load generator (wrk, Debian package
# `wrk`) against the release binary: pages of 50 users with five fields, 2 threads, 32
# connections, 10 seconds. Shares the machine's two cores with wrk itself.
#
#   cargo build --release && bash benches/sandbox-wrk.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGQL_BIN:-target/release/orgql}
port=$((19000 + RANDOM % 1000))
"$bin" sandbox --listen "127.0.0.1:$port" --users 10000 > /dev/null &
sandbox=$!
trap 'kill $sandbox 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/graphql/" && break; sleep 0.1; done
TOKEN=$(curl -s -X POST "http://127.0.0.1:$port/oauth/token/" \
  -d 'grant_type=client_credentials&client_id=sandbox-reader&client_secret=sandbox-secret&scope=users.read' |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
export TOKEN
wrk -t2 -c32 -d10s -s benches/wrk-users-page.lua "http://127.0.0.1:$port/graphql/"
