#!/usr/bin/env bash
# An ordering of orgql's functions for the linker, from a profile (issue 33): writes
# OUT (target/symbol-order.txt) for rust-lld's --symbol-ordering-file. From the release binary
# under Xvfb (perf record, sampling at F Hz), RUNS times:
#
#   1. the functions that ran once the app was up — frames (mouse moves), Runs of the sample
#      query with Ctrl+Enter, a click in the grid — most samples first;
#   2. then the functions that ran during the start (launch → the explorer's tree + 1.5 s).
#
# Tried for issue 33 and not kept (benches/README.md, "orgql's own memory"): with the binary
# linked in this order, its resident code after a Run did not shrink (29.0 MB with the start-up
# pages kept, as before), because sampling finds the hot functions but not every function a
# frame or a Run calls once, and those still bring their 64 KB each; and `orgql export`'s peak
# RSS grew by 4 MB (its code, shared with the app's, moved next to the app's). To try again:
#
#   cargo build --release && bash benches/symbol-order.sh
#   cargo rustc --release --bin orgql -- -C link-arg=-Wl,--symbol-ordering-file=$PWD/target/symbol-order.txt \
#     -C link-arg=-Wl,--no-warn-symbol-ordering
#
# (rust-lld, rustc's default linker on x86_64 Linux since 1.90, knows the option; GNU ld does
# not.) Needs perf (linux-perf), xvfb and xdotool; perf_event_paranoid ≤ 1 or root.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(readlink -f "${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}")
runs=${RUNS:-3}
freq=${F:-50000}
out=${OUT:-${CARGO_TARGET_DIR:-target}/symbol-order.txt}
for tool in perf Xvfb xdotool; do
  command -v $tool > /dev/null || { echo "$tool is needed" >&2; exit 2; }
done
work=$(mktemp -d)
perf_pid=
trap 'kill "$xvfb" $perf_pid 2>/dev/null || true; rm -rf "$work"' EXIT
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3> "$work/display" 2> "$work/xvfb.log" &
xvfb=$!
for _ in $(seq 50); do [ -s "$work/display" ] && break; sleep 0.1; done
display=":$(cat "$work/display")"
x() { DISPLAY=$display xdotool "$@"; }

# One profile: $work/N/p.data.<start> and $work/N/p.data.<steady>.
profile() {
  local dir=$work/$1 home=$work/home-$1
  mkdir -p "$dir" "$home/config" "$home/data" "$home/docs"
  : > "$work/err"
  env DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 ORGQL_NO_KEYRING=1 HOME="$home" ORGQL_KEEP_PAGES=1 \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_DOCUMENTS_DIR="$home/docs" \
    ORGQL_LOG="warn,orgql::timing=debug" \
    perf record -q -F "$freq" --switch-output=signal -o "$dir/p.data" "$bin" 2> "$work/err" &
  perf_pid=$!
  for _ in $(seq 1500); do grep -q step=tree_painted "$work/err" && break; sleep 0.02; done
  sleep 1.5
  kill -USR2 "$perf_pid"
  sleep 0.5
  local app window
  app=$(pgrep -P "$perf_pid" | head -n 1)
  window=$(x search --sync --onlyvisible --pid "$app" | head -n 1)
  x windowfocus --sync "$window"
  for i in $(seq "${ROUNDS:-6}"); do
    for px in 100 300 500 700 900 1100; do x mousemove --window "$window" "$px" $((150 + i * 80)); sleep 0.1; done
    x key --window "$window" ctrl+Return
    sleep 1
    x mousemove --window "$window" 600 600 click 1
    sleep 0.3
    x key --window "$window" ctrl+Return
    sleep 1
  done
  kill -USR2 "$perf_pid"
  sleep 0.5
  kill "$app"
  wait "$perf_pid" 2> /dev/null || true
  perf_pid=
}

# The mangled names of the binary's functions sampled in perf data $@, one a sample.
names() {
  for data in "$@"; do
    perf script -i "$data" --no-demangle -F ip,sym,dso 2> /dev/null |
      awk -v bin="($bin)" '$NF == bin && NF == 3 { print $2 }'
  done
}

for i in $(seq "$runs"); do profile "$i"; done
start=() steady=()
for i in $(seq "$runs"); do
  files=("$work/$i"/p.data.*)
  start+=("${files[0]}")
  steady+=("${files[1]}")
done
{
  echo "# orgql's functions in the order the linker lays them out (benches/symbol-order.sh, issue 33);"
  echo "# generated $(date -u +%Y-%m-%d) from $runs profiles of $(basename "$bin"): once up (frames, Runs), then the start."
  names "${steady[@]}" | sort | uniq -c | sort -k1,1nr -k2 | awk '{ print $2 }' > "$work/steady"
  cat "$work/steady"
  names "${start[@]}" | sort | uniq -c | sort -k1,1nr -k2 | awk '{ print $2 }' | grep -vxF -f "$work/steady" || true
} > "$out"
echo "$out: $(grep -vc '^#' "$out") functions ($(wc -l < "$work/steady") of them once up)"
