#!/usr/bin/env bash
# Start to first frame of the Windows build under Wine beside the Linux build, alternately, three
# runs each, on the X display $DISPLAY (Xvfb 1280x800). Each start is traced (src/timing.rs): the
# time from the launch to `first_frame_painted`, and from main to it.
#
#   WINEPREFIX=/path/to/prefix-with-the-MSI-installed LINUX_ORGQL=target/release/orgql \
#       DISPLAY=:38 bash benches/windows-startup.sh
#
# The prefix: as packaging/windows/smoke.sh makes it (a stand-in bcryptprimitives.dll, then
# `wine msiexec /i orgql-….msi /qn`), with the app started once. Wine's server keeps running
# between runs, as on a desktop where Windows is up already.
set -u
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
exe="$WINEPREFIX/drive_c/Program Files/orgql/orgql.exe"
winlog=$(find "$WINEPREFIX/drive_c/users" -path '*AppData/Local/orgql/cache/orgql.log' | head -n 1)
[ -n "$winlog" ] || { echo "start the installed app once in $WINEPREFIX first" >&2; exit 1; }
first_frame() { grep -m1 first_frame_painted "$1" 2> /dev/null | sed -nE 's/.*at_ms=([0-9.]+) unix_ns=([0-9]+).*/\1 \2/p'; }
wait_frame() { for _ in $(seq 100); do grep -q first_frame_painted "$1" 2> /dev/null && return; sleep 0.1; done; }
for run in 1 2 3; do
    : > "$winlog"
    launched=$(date +%s%N)
    ORGQL_LOG=info,orgql::timing=debug wine start /unix "$exe" > /dev/null 2>&1
    wait_frame "$winlog"
    read -r at ns <<< "$(first_frame "$winlog")"
    echo "windows (wine) run $run: launch → first frame $(((ns - launched) / 1000000)) ms, main → first frame $at ms"
    sleep 2
    wine taskkill /IM orgql.exe > /dev/null 2>&1
    sleep 3
    home=$(mktemp -d)
    launched=$(date +%s%N)
    HOME=$home ORGQL_NO_KEYRING=1 ORGQL_LOG=info,orgql::timing=debug "$LINUX_ORGQL" > /dev/null 2>&1 &
    pid=$!
    wait_frame "$home/.local/state/orgql/orgql.log"
    read -r at ns <<< "$(first_frame "$home/.local/state/orgql/orgql.log")"
    echo "linux run $run: launch → first frame $(((ns - launched) / 1000000)) ms, main → first frame $at ms"
    sleep 2
    kill "$pid"
    wait "$pid" 2> /dev/null
    rm -rf "$home"
done
