#!/usr/bin/env bash
# orgql's own memory after a Run on the sandbox, the renderer's mappings apart (issue 33).
#
# Starts the release binary under Xvfb (Mesa llvmpipe, glow) with a fresh HOME, waits for the
# explorer's tree, lets the app sit idle SETTLE seconds (as a user reads the screen), then runs the
# first tab's sample query (50 users from the in-process sandbox) with Ctrl+Enter sent by xdotool
# and, WAIT seconds after the rows were painted, sums /proc/PID/smaps' PSS by mapping:
#
#   renderer  libLLVM, Mesa's drivers (*_dri.so, gallium, swrast), libGL*, libEGL*, libglapi,
#             libgbm, libdrm, libX*, libxcb*, libxshmfence, the X image (SYSV shared memory),
#             /dev/dri
#   binary    the orgql executable's mapped pages (code, read-only data, RELRO)
#   heap      [heap] (glibc's malloc: Mesa's and fontconfig's C allocations)
#   anon      other anonymous memory (mimalloc's arenas — Rust's heap —, thread stacks, GL buffers)
#   rest      every other mapping (libc, ld.so, fonts, …)
#   own       everything but the renderer: binary + heap + anon + rest
#
# With FETCH_ALL=1 the Run is "Fetch all pages" instead (ORGQL_BENCH_FETCH_ALL, the sandbox given
# USERS users, 100,000 by default) and the split is read WAIT seconds after the last page; USERS
# also gives the sandbox of a Run more users than its 500 (to tell the sandbox's data from the grid's).
#
#   cargo build --release && bash benches/memory-split.sh
#   ORGQL_BIN=/path/to/orgql RUNS=5 bash benches/memory-split.sh
#   FETCH_ALL=1 bash benches/memory-split.sh
#
# Needs xvfb, xdotool and Mesa's GL drivers. PSS shares a page among the processes that map it:
# run it with no other GL process alive for figures comparable with benches/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}
runs=${RUNS:-3}
settle=${SETTLE:-5}
wait_after=${WAIT:-1}
fetch_all=${FETCH_ALL:-0}
users=${USERS:-$([ "$fetch_all" != 0 ] && echo 100000 || echo 500)}
[ -x "$bin" ] || { echo "no release binary at $bin: cargo build --release" >&2; exit 2; }
for tool in Xvfb xdotool; do
  command -v $tool > /dev/null || { echo "$tool is needed (apt install xvfb xdotool)" >&2; exit 2; }
done
logs=${CARGO_TARGET_DIR:-target}/bench-logs
mkdir -p "$logs"
work=$(mktemp -d)
app=
trap 'kill "$xvfb" $app 2>/dev/null || true; rm -rf "$work"' EXIT
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3> "$work/display" 2> "$work/xvfb.log" &
xvfb=$!
for _ in $(seq 50); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { cat "$work/xvfb.log"; echo "Xvfb did not start" >&2; exit 1; }
display=":$(cat "$work/display")"

# Waits (up to 60 s) until the app's stderr holds $1 after the line matching $2 (or anywhere).
wait_for() {
  for _ in $(seq 3000); do
    if awk -v want="$1" -v after="$2" 'after != "" && index($0, after) { seen = 1 }
         (after == "" || seen) && index($0, want) { found = 1 } END { exit !found }' "$work/err"; then
      return 0
    fi
    kill -0 "$app" 2> /dev/null || break
    sleep 0.02
  done
  echo "the app never printed '$1'; its stderr:" >&2
  tail -n 20 "$work/err" >&2
  exit 1
}

# PSS by mapping of process $1, in kB: "renderer binary heap anon rest".
split() {
  awk -v bin="$(readlink -f "$bin")" '
    /^[0-9a-f]+-[0-9a-f]+ / { path = $6; for (i = 7; i <= NF; i++) path = path " " $i
      n = split(path, p, "/"); base = p[n]
      if (path == bin || path == bin " (deleted)") kind = "binary"
      else if (path == "[heap]") kind = "heap"
      else if (path == "" || path ~ /^\[(stack|anon)/) kind = "anon"
      else if (base ~ /^(libLLVM|libgallium|libGL|libEGL|libglapi|libgbm|libdrm|libX|libxcb|libxshmfence|libvulkan|libwayland)/ ||
               base ~ /_dri\.so/ || path ~ /\/dri\// || path ~ /^\/SYSV/ || path ~ /^\/dev\/dri/) kind = "renderer"
      else kind = "rest"
      next }
    /^Pss:/ { kb[kind] += $2 }
    END { printf "%d %d %d %d %d\n", kb["renderer"], kb["binary"], kb["heap"], kb["anon"], kb["rest"] }' "/proc/$1/smaps"
}

# One run: prints "renderer binary heap anon rest own total" in MB, then the ms from the Run's
# key press to its rows painted (the trace's run_clicked → rows_painted; 0 for Fetch all).
one() {
  local home="$work/home-$RANDOM"
  mkdir -p "$home/config" "$home/data" "$home/docs"
  : > "$work/err"
  local extra=()
  [ "$users" != 500 ] && extra+=(ORGQL_BENCH_SANDBOX_USERS="$users")
  [ "$fetch_all" != 0 ] && extra+=(ORGQL_BENCH_FETCH_ALL=1)
  env DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 ORGQL_NO_KEYRING=1 HOME="$home" \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_DOCUMENTS_DIR="$home/docs" \
    ORGQL_LOG="warn,orgql::timing=trace" "${extra[@]}" "$bin" 2> "$work/err" &
  app=$!
  if [ "$fetch_all" != 0 ]; then
    wait_for "orgql-bench: fetched_all" ""
  else
    wait_for "step=tree_painted" ""
    sleep "$settle"
    local window
    window=$(DISPLAY=$display xdotool search --sync --onlyvisible --pid "$app" | head -n 1)
    DISPLAY=$display xdotool windowfocus --sync "$window"
    DISPLAY=$display xdotool key --window "$window" ctrl+Return
    wait_for "step=rows_painted" "step=run_clicked"
  fi
  sleep "$wait_after"
  local kb
  kb=$(split "$app")
  cp "/proc/$app/smaps" "$work/smaps-last"
  cp "$work/smaps-last" "$logs/memory-split-smaps.txt"
  kill "$app" 2> /dev/null || true
  wait "$app" 2> /dev/null || true
  app=
  cp "$work/err" "$logs/memory-split-trace.log"
  local run_ms
  run_ms=$(awk '/step=run_clicked / { sub(/.*at_ms=/, ""); c = $1 + 0 }
                /step=rows_painted / && c { sub(/.*at_ms=/, ""); printf "%.1f", $1 - c; exit }' "$work/err")
  echo "$kb" | awk -v r="${run_ms:-0}" '{ own = $2 + $3 + $4 + $5; printf "%.1f %.1f %.1f %.1f %.1f %.1f %.1f %s\n",
    $1 / 1024, $2 / 1024, $3 / 1024, $4 / 1024, $5 / 1024, own / 1024, ($1 + own) / 1024, r }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

what=$([ "$fetch_all" != 0 ] && echo "Fetch all of $users users" || echo "a Run of the sample query after ${settle} s idle, $users users")
echo "$bin; $what; PSS in MB ${wait_after} s after; load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-6s %9s %7s %6s %6s %6s %7s %7s %7s\n' run renderer binary heap anon rest own total run_ms
: > "$work/results"
for i in $(seq "$runs"); do
  out=$(one)
  echo "$out" >> "$work/results"
  printf '%-6s %9s %7s %6s %6s %6s %7s %7s %7s\n' "$i" $out
done
medians=()
for c in 1 2 3 4 5 6 7 8; do medians+=("$(cut -d' ' -f"$c" "$work/results" | median)"); done
printf '%-6s %9s %7s %6s %6s %6s %7s %7s %7s\n' median "${medians[@]}"
echo "(load $(cut -d' ' -f1 /proc/loadavg) at the end; the last run's trace: $logs/memory-split-trace.log)"
if [ "${TOP:-0}" != 0 ]; then
  echo "== the last run's largest mappings (PSS, MB)"
  awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 == "") ? "[anonymous]" : $6; n = split(name, p, "/"); name = p[n] }
       /^Pss:/ { pss[name] += $2 }
       END { for (m in pss) printf "%8.1f  %s\n", pss[m] / 1024, m }' "$work/smaps-last" | sort -rn | head -n "$TOP"
fi
