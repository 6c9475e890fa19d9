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
#             /dev/dri, and the libraries only those load (found with ldd: LLVM's libstdc++,
#             libz3, libicu, libxml2, libedit…; not one that the binary or the libraries orgql
#             opens itself — xkbcommon, fontconfig, D-Bus — also need)
#   binary    the orgql executable's mapped pages (code, read-only data, RELRO)
#   rust      mimalloc's arenas: the Rust heap, every allocation of orgql's own code and crates
#             (anonymous mappings in mimalloc's address range, 2–30 TiB, where it places them)
#   c         glibc's malloc: [heap] and its thread arenas (anonymous, 64 MiB-aligned, at most 64 MiB) —
#             the C libraries' allocations: Mesa's llvmpipe and LLVM, X11, GLX, xkbcommon,
#             fontconfig, and SQLite's page cache (HEAPTRACK=1 prints them by library)
#   anon      other anonymous memory: thread stacks, glibc's large blocks (llvmpipe's textures),
#             the JIT's code
#   rest      every other mapping (libc, ld.so, the system fonts, the libraries orgql opens)
#   own       orgql's own: binary + rust + anon + rest (anon and rest counted whole, though part
#             is the renderer's); "own+c" adds the C heap, as the split by mapping alone counts it
#
# With FETCH_ALL=1 the Run is "Fetch all pages" instead (ORGQL_BENCH_FETCH_ALL, the sandbox given
# USERS users, 100,000 by default) and the split is read WAIT seconds after the last page; USERS
# also gives the sandbox of a Run more users than its 500 (to tell the sandbox's data from the grid's).
#
#   cargo build --release && bash benches/memory-split.sh
#   ORGQL_BIN=/path/to/orgql RUNS=5 bash benches/memory-split.sh
#   FETCH_ALL=1 bash benches/memory-split.sh
#   HEAPTRACK=1 bash benches/memory-split.sh    # one run under heaptrack: the C heap by library
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
heaptrack=${HEAPTRACK:-0}
if [ "$heaptrack" != 0 ]; then
  command -v heaptrack > /dev/null || { echo "heaptrack is needed (apt install heaptrack)" >&2; exit 2; }
  runs=1
fi
[ -x "$bin" ] || { echo "no release binary at $bin: cargo build --release" >&2; exit 2; }
for tool in Xvfb xdotool; do
  command -v $tool > /dev/null || { echo "$tool is needed (apt install xvfb xdotool)" >&2; exit 2; }
done
logs=${CARGO_TARGET_DIR:-target}/bench-logs
mkdir -p "$logs"
work=$(mktemp -d)
app=
trap 'kill "$xvfb" $app 2>/dev/null || true; rm -rf "$work"' EXIT
. benches/xvfb.sh
start_xvfb

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

# The libraries only the renderer loads: the ldd closure of the renderer's libraries mapped
# in process $1, less that of the binary and of the libraries orgql opens itself. Basenames.
renderer_only() {
  local pid=$1 lib
  awk '$6 ~ /\.so/ { print $6 }' "/proc/$pid/maps" | sort -u > "$work/libs"
  : > "$work/renderer-deps"
  : > "$work/own-deps"
  ldd "$bin" >> "$work/own-deps" 2> /dev/null || true
  while read -r lib; do
    case "$(basename "$lib")" in
      libLLVM* | libgallium* | *_dri.so | libGL* | libEGL* | libglapi* | libgbm* | libdrm*) ldd "$lib" >> "$work/renderer-deps" 2> /dev/null || true ;;
      libxkbcommon* | libfontconfig* | libdbus* | libfreetype*) ldd "$lib" >> "$work/own-deps" 2> /dev/null || true ;;
    esac
  done < "$work/libs"
  # "name => /path (address)": the file's real name, as /proc/PID/maps shows it.
  names() { awk '$2 == "=>" && $3 ~ /^\// { print $3 }' "$1" | sort -u | xargs -r readlink -f | awk '{ n = split($1, p, "/"); print p[n] }' | sort -u; }
  names "$work/own-deps" > "$work/own-names"
  names "$work/renderer-deps" | comm -23 - "$work/own-names"
}

# PSS by mapping of process $1, in kB: "renderer binary rust c anon rest".
split() {
  renderer_only "$1" > "$work/renderer-only"
  awk -v bin="$(readlink -f "$bin")" -v only="$work/renderer-only" '
    BEGIN { while ((getline l < only) > 0) extra[l] = 1 }
    /^[0-9a-f]+-[0-9a-f]+ / { path = $6; for (i = 7; i <= NF; i++) path = path " " $i
      n = split(path, p, "/"); base = p[n]
      start = substr($1, 1, index($1, "-") - 1)
      next }
    /^Size:/ {
      if (path == bin || path == bin " (deleted)") kind = "binary"
      else if (path == "[heap]") kind = "c"
      else if (path == "" && ((length(start) == 11 && start >= "20000000000") || (length(start) == 12 && start < "1e0000000000"))) kind = "rust"
      else if (path == "" && start ~ /[048c]000000$/ && $2 <= 65536) kind = "c"
      else if (path == "" || path ~ /^\[(stack|anon)/) kind = "anon"
      else if (base ~ /^(libLLVM|libgallium|libGL|libEGL|libglapi|libgbm|libdrm|libX|libxcb|libxshmfence|libvulkan|libwayland)/ ||
               base ~ /_dri\.so/ || path ~ /\/dri\// || path ~ /^\/SYSV/ || path ~ /^\/dev\/dri/ || (base in extra)) kind = "renderer"
      else kind = "rest"
      next }
    /^Pss:/ { kb[kind] += $2 }
    END { printf "%d %d %d %d %d %d\n", kb["renderer"], kb["binary"], kb["rust"], kb["c"], kb["anon"], kb["rest"] }' "/proc/$1/smaps"
}

# One run: prints "renderer binary rust c anon rest own own+c total" in MB, then the ms from the Run's
# key press to its rows painted (the trace's run_clicked → rows_painted; 0 for Fetch all).
one() {
  local home="$work/home-$RANDOM"
  mkdir -p "$home/config" "$home/data" "$home/docs"
  : > "$work/err"
  local extra=()
  [ "$users" != 500 ] && extra+=(ORGQL_BENCH_SANDBOX_USERS="$users")
  [ "$fetch_all" != 0 ] && extra+=(ORGQL_BENCH_FETCH_ALL=1)
  local wrap=()
  [ "$heaptrack" != 0 ] && wrap=(heaptrack -o "$work/heaptrack")
  env DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 ORGQL_NO_KEYRING=1 HOME="$home" \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_DOCUMENTS_DIR="$home/docs" \
    ORGQL_LOG="warn,orgql::timing=trace" "${extra[@]}" "${wrap[@]}" "$bin" > "$work/out" 2> "$work/err" &
  app=$!
  local runner=$app
  if [ "$heaptrack" != 0 ]; then # the app is heaptrack's child: the process running the binary
    app=
    for _ in $(seq 600); do
      for p in $(pgrep -P "$runner"); do [ "$(readlink -f "/proc/$p/exe")" = "$(readlink -f "$bin")" ] && app=$p; done
      [ -n "$app" ] && break
      sleep 0.1
    done
    [ -n "$app" ] || { echo "heaptrack did not start the app" >&2; exit 1; }
  fi
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
  wait "$runner" 2> /dev/null || true
  app=
  cp "$work/err" "$logs/memory-split-trace.log"
  local run_ms
  run_ms=$(awk '/step=run_clicked / { sub(/.*at_ms=/, ""); c = $1 + 0 }
                /step=rows_painted / && c { sub(/.*at_ms=/, ""); printf "%.1f", $1 - c; exit }' "$work/err")
  echo "$kb" | awk -v r="${run_ms:-0}" '{ own = $2 + $3 + $5 + $6; printf "%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %s\n",
    $1 / 1024, $2 / 1024, $3 / 1024, $4 / 1024, $5 / 1024, $6 / 1024, own / 1024, (own + $4) / 1024, ($1 + $4 + own) / 1024, r }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

what=$([ "$fetch_all" != 0 ] && echo "Fetch all of $users users" || echo "a Run of the sample query after ${settle} s idle, $users users")
echo "$bin; $what; PSS in MB ${wait_after} s after; load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-6s %9s %7s %6s %6s %6s %6s %7s %7s %7s %7s\n' run renderer binary rust c anon rest own own+c total run_ms
: > "$work/results"
for i in $(seq "$runs"); do
  out=$(one)
  echo "$out" >> "$work/results"
  printf '%-6s %9s %7s %6s %6s %6s %6s %7s %7s %7s %7s\n' "$i" $out
done
medians=()
for c in 1 2 3 4 5 6 7 8 9 10; do medians+=("$(cut -d' ' -f"$c" "$work/results" | median)"); done
printf '%-6s %9s %7s %6s %6s %6s %6s %7s %7s %7s %7s\n' median "${medians[@]}"
echo "(load $(cut -d' ' -f1 /proc/loadavg) at the end; the last run's trace: $logs/memory-split-trace.log)"
if [ "$heaptrack" != 0 ]; then
  # The allocations still live when the app quit (right after the split above), by the library
  # that called malloc; an allocation from code heaptrack cannot name ("??": LLVM's, called by
  # Mesa's driver) is given to the first library named on its way up.
  echo "== the C heap (glibc's malloc) by library, live when the split was taken (heaptrack, MB)"
  heaptrack_print -f "$work"/heaptrack*.zst --print-leaks 1 --print-peaks 0 --print-allocators 0 --print-temporary 0 \
    2> /dev/null |
    awk 'function mb(s, v) { v = s + 0; if (s ~ /K$/) v /= 1024; else if (s ~ /M$/) v += 0; else if (s ~ /G$/) v *= 1024; else v /= 1048576; return v }
      function done() { if (size != "") live[lib == "" ? "(no stack)" : lib] += mb(size); size = "" }
      /leaked over [0-9]+ calls from$/ { done(); size = $1; lib = ""; next }
      /leaked over [0-9]+ calls from:$/ { next }
      size != "" && /^ *in / { l = $0; sub(/^ *in /, "", l); n = split(l, p, "/"); l = p[n]
        if (lib == "" && l != "??") lib = l }
      /^total memory leaked/ { done(); total = $4 }
      END { done(); for (l in live) printf "%8.2f  %s\n", live[l], l; printf "%8.2f  total\n", mb(total) }' | sort -rn
fi
if [ "${TOP:-0}" != 0 ]; then
  echo "== the last run's largest mappings (PSS, MB)"
  awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 == "") ? "[anonymous]" : $6; n = split(name, p, "/"); name = p[n] }
       /^Pss:/ { pss[name] += $2 }
       END { for (m in pss) printf "%8.1f  %s\n", pss[m] / 1024, m }' "$work/smaps-last" | sort -rn | head -n "$TOP"
fi
