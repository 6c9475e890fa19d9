#!/usr/bin/env bash
# The desktop app's start and a run, measured on the release binary under Xvfb with software
# rendering (Mesa llvmpipe), each run with a fresh HOME; every case runs RUNS times (5) after one
# unmeasured warm-up, and the medians are printed last, with the load average at the start and
# the end of each case.
#
# 1. Time to the first frame and peak memory (max RSS), empty and with a synthetic
#    100,000-row × 12-column result loaded into its first tab (the hooks ORGQL_BENCH_ROWS and
#    ORGQL_BENCH_EXIT_AFTER_FRAMES, documented in src/ui/app/bench.rs). The synthetic rows are
#    generated on the UI thread before the first frame, which the real app never does (its rows
#    come from the worker): the column "less_rows_generation" takes that time out.
# 2. Launch → the explorer's tree drawn from a loaded schema (the in-process sandbox started, its
#    token, introspection, the schema model, the frame painted), on a fresh start and again in the
#    same HOME with the schema cached in the store. Read from the app's own trace
#    (ORGQL_LOG=orgql::timing=debug, src/timing.rs): the step `tree_painted` less the launch.
# 3. A Run of the sample query (50 users) once the schema is in (ORGQL_BENCH_RUN=1): the answer
#    parsed → the end of the first frame that lays its rows out, and → that frame painted, PSS and RSS 0.5 s after that frame
#    (/proc/PID/smaps_rollup), and in the 5 s that follow the CPU the process used and the frames
#    it drew. The last run's /proc/PID/smaps, summed by mapping, is printed after the table
#    (SMAPS=0 leaves it out); its trace is kept in target/bench-logs/app-trace.log.
#
#   cargo build --release --locked && bash benches/app-startup.sh
#   RUNS=9 CASES="tree run" bash benches/app-startup.sh     # only cases 2 and 3, 9 runs each
#   ORGQL_RENDERER=wgpu bash benches/app-startup.sh         # the same with wgpu (issue 45)
#
# Needs xvfb and Mesa's GL drivers (libgl1-mesa-dri libegl1 libegl-mesa0), and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}
cases=${CASES:-frame tree run}
logs=${CARGO_TARGET_DIR:-target}/bench-logs
mkdir -p "$logs"
runs=${RUNS:-5}
frames=${FRAMES:-30}
work=$(mktemp -d)
app=
trap 'kill "$xvfb" $app 2>/dev/null || true; rm -rf "$work"' EXIT

. benches/xvfb.sh
start_xvfb

# One run: prints "milliseconds_to_first_frame the_same_less_rows_generation max_rss_MB
# ms_per_painted_frame" (the frames after the first, each asked for at once: drawn, tessellated
# and painted by the renderer, ORGQL_RENDERER choosing it).
run() {
  local rows=$1 home="$work/home-$RANDOM"
  mkdir -p "$home/config" "$home/data"
  local start
  start=$(date +%s%N)
  env DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 ORGQL_NO_KEYRING=1 HOME="$home" \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    ORGQL_BENCH_ROWS="$rows" ORGQL_BENCH_EXIT_AFTER_FRAMES="$frames" \
    /usr/bin/time -f '%M' -o "$work/time" "$bin" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  local first
  first=$(grep -o 'first_frame_unix_ns=[0-9]*' "$work/err" | cut -d= -f2)
  [ -n "$first" ] || { cat "$work/err" >&2; echo "no first frame reported" >&2; exit 1; }
  local generated
  generated=$(grep -o 'rows_generated_ms=[0-9]*' "$work/err" | cut -d= -f2)
  local last frames
  # Builds before issue 45 (9d3ca03 and older) print neither: their frame time is left at 0.
  last=$(grep -o 'last_frame_unix_ns=[0-9]*' "$work/err" | cut -d= -f2 || true)
  frames=$(grep -o 'orgql-bench: frames=[0-9]*' "$work/err" | cut -d= -f2 || true)
  awk -v s="$start" -v f="$first" -v g="$generated" -v kb="$(tail -n 1 "$work/time")" -v l="${last:-0}" -v n="${frames:-0}" \
    'BEGIN { printf "%.0f %.0f %.1f %.2f\n", (f - s) / 1e6, (f - s) / 1e6 - g, kb / 1024, (n > 2 && l > f) ? (l - f) / 1e6 / (n - 2) : 0 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

line() { printf '%-8s %-6s %18s %21s %11s %13s\n' "$@"; }
load() { cut -d' ' -f1 /proc/loadavg; }

# Environment of the app with a HOME of its own ($1).
app_env() {
  local home=$1
  mkdir -p "$home/config" "$home/data" "$home/docs"
  echo DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 ORGQL_NO_KEYRING=1 HOME="$home" \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_DOCUMENTS_DIR="$home/docs"
}

# Waits (up to 30 s) until file $1 holds the trace step $2; prints its unix_ns.
wait_step() {
  local file=$1 step=$2
  for _ in $(seq 1500); do
    local ns
    ns=$(grep -o "step=$step at_ms=[0-9.]* unix_ns=[0-9]*" "$file" 2> /dev/null | head -n 1 | sed 's/.*unix_ns=//')
    if [ -n "$ns" ]; then echo "$ns"; return 0; fi
    kill -0 "$app" 2> /dev/null || break
    sleep 0.02
  done
  echo "the app never reached step $step; its stderr:" >&2
  tail -n 20 "$file" >&2
  return 1
}

# The unix_ns of the first step $2 in file $1 after the line matching step $3 (or anywhere).
step_ns() {
  awk -v step="step=$2 " -v after="${3:+step=$3 }" '
    after != "" && index($0, after) { seen = 1 }
    (after == "" || seen) && index($0, step) { sub(/.*unix_ns=/, ""); print; exit }' "$1"
}

stop_app() { kill "$app" 2> /dev/null || true; wait "$app" 2> /dev/null || true; app=; }

# Case 2, one run: prints "ms_fresh ms_cached first_frame_ms".
tree_run() {
  local home="$work/home-$RANDOM" start fresh cached first
  : > "$work/tree1" # emptied here: the child opens it only after the first look below
  start=$(date +%s%N)
  env $(app_env "$home") ORGQL_LOG="warn,orgql::timing=debug" "$bin" 2> "$work/tree1" &
  app=$!
  fresh=$(wait_step "$work/tree1" tree_painted)
  first=$(step_ns "$work/tree1" first_frame_painted)
  stop_app
  : > "$work/tree2"
  start2=$(date +%s%N)
  env $(app_env "$home") ORGQL_LOG="warn,orgql::timing=debug" "$bin" 2> "$work/tree2" &
  app=$!
  cached=$(wait_step "$work/tree2" tree_painted)
  stop_app
  grep -q "step=schema_model_cached" "$work/tree2" || echo "warning: the second start did not use the cached schema" >&2
  cp "$work/tree1" "$logs/app-trace-fresh.log"
  cp "$work/tree2" "$logs/app-trace-cached.log"
  awk -v s="$start" -v f="$fresh" -v s2="$start2" -v c="$cached" -v ff="$first" \
    'BEGIN { printf "%.0f %.0f %.0f\n", (f - s) / 1e6, (c - s2) / 1e6, (ff - s) / 1e6 }'
}

# Case 3, one run: prints "answer_to_rows_drawn_ms answer_to_rows_painted_ms pss_MB rss_MB idle_cpu_percent idle_frames".
run_run() {
  local home="$work/home-$RANDOM" parsed painted drawn
  : > "$work/run"
  env $(app_env "$home") ORGQL_LOG="warn,orgql::timing=trace" ORGQL_BENCH_RUN=1 "$bin" 2> "$work/run" &
  app=$!
  painted=$(wait_step "$work/run" rows_painted)
  parsed=$(step_ns "$work/run" answer_parsed run_clicked)
  drawn=$(step_ns "$work/run" rows_drawn run_clicked)
  sleep 0.5
  local pss rss ticks0 ticks1 frames0 frames1 hz
  pss=$(awk '/^Pss:/ { print $2 }' "/proc/$app/smaps_rollup")
  rss=$(awk '/^Rss:/ { print $2 }' "/proc/$app/smaps_rollup")
  if [ "${SMAPS:-1}" != 0 ]; then
    awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 == "") ? "[anonymous]" : $6; n = split(name, p, "/"); name = p[n] }
         /^Pss:/ { pss[name] += $2 }
         END { for (m in pss) printf "%8.1f MB  %s\n", pss[m] / 1024, m }' "/proc/$app/smaps" |
      sort -rn | head -n 15 > "$work/smaps"
  fi
  hz=$(getconf CLK_TCK)
  ticks0=$(awk '{ print $14 + $15 }' "/proc/$app/stat")
  frames0=$(grep -c 'step=frame ' "$work/run" || true)
  sleep 5
  ticks1=$(awk '{ print $14 + $15 }' "/proc/$app/stat")
  frames1=$(grep -c 'step=frame ' "$work/run" || true)
  stop_app
  cp "$work/run" "$logs/app-trace.log"
  awk -v a="$parsed" -v d="$drawn" -v p="$painted" -v pss="$pss" -v rss="$rss" -v t="$((ticks1 - ticks0))" -v hz="$hz" \
    -v fr="$((frames1 - frames0))" \
    'BEGIN { printf "%.1f %.1f %.1f %.1f %.1f %d\n", (d - a) / 1e6, (p - a) / 1e6, pss / 1024, rss / 1024, 100 * t / hz / 5, fr }'
}

# Runs case function $1 RUNS times (after a warm-up), printing each run and the medians of the
# columns named in $2….
repeat() {
  local fn=$1
  shift
  local load0
  load0=$(load)
  echo "== $fn (load average $load0 at the start)"
  echo "run $*"
  $fn > /dev/null # warm-up
  : > "$work/results"
  for i in $(seq "$runs"); do
    out=$($fn)
    echo "$i $out"
    echo "$out" >> "$work/results"
  done
  local medians=()
  for c in $(seq "$#"); do
    medians+=("$(cut -d' ' -f"$c" "$work/results" | median)")
  done
  echo "median ${medians[*]} (load average $load0 → $(load))"
}

for case in $cases; do
  case $case in
    frame)
      echo "== first frame (load average $(load) at the start)"
      line rows run ms_to_first_frame less_rows_generation max_rss_MB ms_per_frame
      run 0 > /dev/null # warm-up: the binary and the GL driver into the page cache
      for rows in 0 100000; do
        : > "$work/results"
        for i in $(seq "$runs"); do
          out=$(run "$rows")
          line "$rows" "$i" $out
          echo "$out" >> "$work/results"
        done
        line "$rows" median "$(cut -d' ' -f1 "$work/results" | median)" "$(cut -d' ' -f2 "$work/results" | median)" \
          "$(cut -d' ' -f3 "$work/results" | median)" "$(cut -d' ' -f4 "$work/results" | median)"
      done
      echo "(load average $(load) at the end)"
      ;;
    tree) repeat tree_run ms_to_tree_fresh ms_to_tree_cached ms_to_first_frame ;;
    run)
      repeat run_run answer_to_rows_drawn_ms answer_to_rows_painted_ms pss_MB rss_MB idle_cpu_percent idle_frames
      if [ -s "$work/smaps" ]; then
        echo "== PSS by mapping, the last run, 0.5 s after the rows were painted"
        cat "$work/smaps"
      fi
      ;;
    *) echo "unknown case $case (frame, tree or run)" >&2; exit 2 ;;
  esac
done
