#!/usr/bin/env bash
# How quickly the desktop app draws on a large screen in software: the release build started on a
# virtual X server of SIZE at SCALE with one renderer, Ctrl+Enter runs the sample query, then the
# pointer crosses the window 40 times, 100 ms apart (each move a hover, so a frame); the time from
# one frame's start to the next is read from the app's trace (src/timing.rs, orgql::timing=trace)
# and printed as its median and 90th percentile, with the frames counted. A frame slower than the
# moves shows as fewer frames and a longer median. An idle gap of 3 s or more is left out.
#
#   RENDERERS="glow wgpu-vulkan" SIZES="2560x1440@2 1366x768@1.5" bash benches/frame-pace.sh
#
# ORGQL_BIN (default: target/release/orgql, built when missing) is the build measured. Needs Xvfb
# and xdotool. The Windows build under Wine says the same of its tour (packaging/windows/smoke.sh,
# "drawn at …").
set -euo pipefail
cd "$(dirname "$0")/.."
renderers=${RENDERERS:-glow wgpu-vulkan}
sizes=${SIZES:-2560x1440@2 1366x768@1.5}
bin=${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}
[ -x "$bin" ] || cargo build --release --locked --quiet
for tool in Xvfb xdotool; do
    command -v "$tool" > /dev/null || { echo "frame-pace: $tool is needed (apt-get install xvfb xdotool)" >&2; exit 1; }
done
work=$(mktemp -d)
xvfb='' app=''
cleanup() {
    [ -z "$app" ] || kill "$app" 2> /dev/null || true
    [ -z "$xvfb" ] || kill "$xvfb" 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

pace() { # $1 the app's log
    python3 -c 'import sys, datetime, statistics
t = [datetime.datetime.fromisoformat(l.split()[0].replace("Z", "+00:00")) for l in open(sys.argv[1], encoding="utf-8") if "step=frame " in l]
d = sorted(s for s in ((b - a).total_seconds() for a, b in zip(t, t[1:])) if s < 3)
print(f"{len(t)} frames, {statistics.median(d) * 1000:.0f} ms from one to the next (median; {d[int(len(d) * 0.9)] * 1000:.0f} ms at 90 %)" if d else "no frames")' "$1"
}

echo "| renderer | screen | frames | drawn by |"
echo "|---|---|---|---|"
for size_scale in $sizes; do
    size=${size_scale%@*} scale=${size_scale#*@}
    width=${size%x*} height=${size#*x}
    for renderer in $renderers; do
        home="$work/$renderer-$size"
        mkdir -p "$home"
        rm -f "$work/display"
        Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp 3> "$work/display" 2> /dev/null &
        xvfb=$!
        for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
        export DISPLAY=":$(cat "$work/display")"
        HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache \
            XDG_STATE_HOME=$home/state WINIT_X11_SCALE_FACTOR=$scale ORGQL_RENDERER=$renderer ORGQL_NO_KEYRING=1 \
            ORGQL_LOG=info,orgql::timing=trace "$bin" --log-file "$home/app.log" > /dev/null 2>&1 &
        app=$!
        window=''
        for _ in $(seq 150); do
            window=$(xdotool search --onlyvisible --name orgql 2> /dev/null | head -n 1) || true
            [ -n "$window" ] && break
            sleep 0.2
        done
        if [ -z "$window" ]; then
            echo "| $renderer | $size at $scale | no window within 30 s | |"
        else
            sleep 4
            xdotool windowactivate --sync "$window" 2> /dev/null || true
            xdotool key --window "$window" ctrl+Return
            sleep 4
            for i in $(seq 40); do
                xdotool mousemove $((width / 4 + (i % 2) * width / 3)) $((height / 2 + i * 3))
                sleep 0.1
            done
            sleep 1
            drawn=$(grep -o 'the window is drawn by [^;]*' "$home/app.log" | tail -n 1 | cut -c24-)
            echo "| $renderer | $size at $scale | $(pace "$home/app.log") | $drawn |"
        fi
        kill "$app" 2> /dev/null || true
        wait "$app" 2> /dev/null || true
        kill "$xvfb" 2> /dev/null || true
        wait "$xvfb" 2> /dev/null || true
        app='' xvfb=''
    done
done
