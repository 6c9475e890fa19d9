#!/usr/bin/env bash
# Writes the order in which the linker lays out orgql's functions (issue 33): OUT, by default
# packaging/symbol-order.txt, which build.rs gives rust-lld (--symbol-ordering-file) for release
# builds. Every function the binary *executes* — not a sample of them — is listed, found by running
# the release binary under valgrind's callgrind (which counts each instruction executed, so a
# function called once is as present as one called a million times):
#
#   app     the desktop app under Xvfb: the start (the in-process sandbox, the explorer's tree),
#           frames (mouse moves over the panes), Runs of the sample query (Ctrl+Enter), a click
#           in the grid, scrolling, the views and the side panels;
#   export  `orgql export` of users to CSV against `orgql sandbox` (its own process);
#   cli     `orgql query` and `orgql --help`.
#
# The file lists the functions only the app runs, then those the app and the command line share,
# then those only the command line runs: each process's code is then one run of pages, so the
# kernel's fault-around (64 KB around each page touched) maps little that is never executed.
# Functions not listed keep the compiler's order after them.
#
#   cargo build --release && bash benches/symbol-order.sh && cargo build --release
#
# Symbol names are the mangled names of the build profiled; a function changed since keeps its
# name (legacy mangling hashes the path and the crate, not the code), a new or renamed one is
# laid out after the listed ones until the file is made again. Needs valgrind, xvfb, xdotool.
# Takes a few minutes (the app runs ~50× slower under callgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(readlink -f "${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}")
out=${OUT:-packaging/symbol-order.txt}
for tool in valgrind Xvfb xdotool; do
  command -v $tool > /dev/null || { echo "$tool is needed (apt install valgrind xvfb xdotool)" >&2; exit 2; }
done
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
. benches/xvfb.sh
start_xvfb
pids+=("$xvfb")
x() { DISPLAY=$display xdotool "$@"; }
home=$work/home
mkdir -p "$home/config" "$home/data" "$home/docs"
in_home=(env HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_DOCUMENTS_DIR="$home/docs"
  ORGQL_NO_KEYRING=1 ORGQL_CLIENT_SECRET=sandbox-secret)
grind=(valgrind --tool=callgrind --demangle=no --dump-instr=no --compress-strings=no --compress-pos=no)

# Waits (up to 10 minutes) until file $1 holds the text $2 after its line holding $3 (if given).
wait_for() {
  for _ in $(seq 6000); do
    awk -v want="$2" -v after="${3:-}" 'after != "" && index($0, after) { seen = 1 }
      (after == "" || seen) && index($0, want) { found = 1 } END { exit !found }' "$1" && return 0
    sleep 0.1
  done
  echo "never saw '$2' in $1:" >&2
  tail -n 20 "$1" >&2
  exit 1
}

echo "the app under callgrind (a few minutes)…"
"${in_home[@]}" DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 ORGQL_KEEP_PAGES=1 ORGQL_LOG="warn,orgql::timing=debug" \
  "${grind[@]}" --callgrind-out-file="$work/app.out" "$bin" 2> "$work/app.err" &
app=$!
pids+=($app)
wait_for "$work/app.err" step=tree_painted
window=$(x search --sync --onlyvisible --pid "$app" | head -n 1)
# The start ends 4 s after the window opens (resident::AFTER_START: the system fonts are in by
# then); under callgrind, ~50× slower, 20 s. What ran so far is the start's profile.
sleep 20
callgrind_control --dump=start "$app" > /dev/null
x windowfocus --sync "$window"
for round in 1 2 3; do
  for px in 100 300 500 700 900 1100; do x mousemove --window "$window" "$px" $((150 + round * 150)); sleep 0.3; done
  runs=$(grep -c step=rows_painted "$work/app.err" || true)
  x key --window "$window" ctrl+Return
  for _ in $(seq 3000); do [ "$(grep -c step=rows_painted "$work/app.err" || true)" -gt "$runs" ] && break; sleep 0.1; done
  x mousemove --window "$window" 700 500 click 1
  sleep 1
  x click --window "$window" 5 click --window "$window" 5 click --window "$window" 4
  x key --window "$window" Down Down Up
  sleep 1
done
sleep 5 # the idle app's timers
[ "$(grep -c step=rows_painted "$work/app.err" || true)" -ge 3 ] ||
  { tail -n 20 "$work/app.err" >&2; echo "the app under callgrind did not show the rows of 3 Runs" >&2; exit 1; }
kill -TERM "$app"
wait "$app" 2> /dev/null || true
[ -s "$work/app.out" ] || { tail -n 20 "$work/app.err" >&2; echo "callgrind wrote no profile of the app" >&2; exit 1; }

echo "orgql export and query under callgrind…"
port=$((18000 + RANDOM % 1000))
"${in_home[@]}" "$bin" sandbox --listen "127.0.0.1:$port" --users 2000 > "$work/sandbox.log" 2>&1 &
pids+=($!)
wait_for "$work/sandbox.log" http
base=http://127.0.0.1:$port
users='{ paginatedUsers(first: 50) { edges { node { ref name email isActive groups { name } } } } }'
"${in_home[@]}" "${grind[@]}" --callgrind-out-file="$work/export.out" "$bin" export -e "$users" \
  --out "$work/users.csv" --base-url "$base" --client-id sandbox-reader --scope users.read 2> "$work/export.err" ||
  { tail "$work/export.err" >&2; exit 1; }
"${in_home[@]}" "${grind[@]}" --callgrind-out-file="$work/xlsx.out" "$bin" export -e "$users" \
  --out "$work/users.xlsx" --base-url "$base" --client-id sandbox-reader --scope users.read 2> "$work/xlsx.err" ||
  { tail "$work/xlsx.err" >&2; exit 1; }
"${in_home[@]}" "${grind[@]}" --callgrind-out-file="$work/query.out" "$bin" query -e '{ paginatedUsers(first: 5) { count } }' \
  --base-url "$base" --client-id sandbox-reader --scope users.read > /dev/null 2> "$work/query.err" ||
  { tail "$work/query.err" >&2; exit 1; }
"${grind[@]}" --callgrind-out-file="$work/help.out" "$bin" --help > /dev/null 2> "$work/help.err"

# The mangled names of the functions of the binary that executed in callgrind profiles $@, with
# their instruction counts: "count name" (callgrind's "fn=" blocks, under "ob=" the binary).
functions() {
  awk -v bin="$bin" '
    /^ob=/ { ob = substr($0, 4) }
    # callgrind marks a recursive call of a function with a quote and a level (`f'"'"'2`): one function.
    /^fn=/ { fn = substr($0, 4); sub(/'"'"'[0-9]+$/, "", fn); mine = (ob == bin && fn !~ /^(0x|\()/) }
    /^(cob|cfn|calls|cfi|cfl)=/ { skip = ($1 ~ /^calls=/); next }
    /^[0-9+-]/ { if (skip) { skip = 0; next } if (mine) { n = split($0, c, " "); ir[fn] += c[n] } }
    END { for (name in ir) print ir[name], name }' "$@"
}
start=$(grep -l '^desc: Trigger: .*start' "$work"/app.out* | head -n 1)
[ -n "$start" ] || { echo "callgrind wrote no profile of the start" >&2; exit 1; }
functions "$start" | awk '{ print $2 }' | sort > "$work/S"
for f in "$work"/app.out*; do [ "$f" = "$start" ] || cat "$f"; done | functions /dev/stdin | awk '{ print $2 }' | sort > "$work/T"
cat "$work"/{export,xlsx,query,help}.out | functions /dev/stdin | awk '{ print $2 }' | sort > "$work/C"
# The seven parts of three sets S (the start), T (the app once up) and C (the command line), in
# an order where T is one run and C is one run (S, whose pages are given back 4 s after the
# start, is in two): S only, S∩T only, T only, S∩T∩C, T∩C only, S∩C only, C only.
comm -12 "$work/S" "$work/T" > "$work/ST"
comm -12 "$work/T" "$work/C" > "$work/TC"
comm -12 "$work/S" "$work/C" > "$work/SC"
comm -12 "$work/ST" "$work/C" > "$work/STC"
only() { # file, files it must not be in…
  local f=$1
  shift
  cat "$f" > "$work/left"
  for g in "$@"; do comm -23 "$work/left" "$g" > "$work/left.next"; mv "$work/left.next" "$work/left"; done
  cat "$work/left"
}
{
  echo "# The order of orgql's functions for the linker (benches/symbol-order.sh, issue 33), from callgrind"
  echo "# profiles of $(basename "$bin") $(git describe --always --dirty 2> /dev/null) on $(date -u +%Y-%m-%d): the start only, the start and"
  echo "# the app once up, the app once up only, all three, the app once up and the command line, the start and the command line, the command line only."
  only "$work/S" "$work/T" "$work/C"
  only "$work/ST" "$work/C"
  only "$work/T" "$work/S" "$work/C"
  cat "$work/STC"
  only "$work/TC" "$work/S"
  only "$work/SC" "$work/T"
  only "$work/C" "$work/S" "$work/T"
} > "$out"
echo "$out: $(grep -vc '^#' "$out") functions: the start $(wc -l < "$work/S"), the app once up $(wc -l < "$work/T"), the command line $(wc -l < "$work/C")"
