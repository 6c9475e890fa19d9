#!/usr/bin/env bash
# The Debian package as a person gets it: build it with cargo-deb, install it with dpkg, start the
# *installed* app the way its desktop entry does (the Exec line of
# /usr/share/applications/orgql.desktop) on a virtual X server with an empty home, click Run,
# check that the sample query ran and the window is not blank, keep a screenshot, and remove the
# package again. Run by .ci/run after the tests; by hand (as root, or with sudo):
#
#   bash packaging/deb-smoke.sh        # DEB=path/to.deb skips the build
#
# Needs cargo-deb (cargo install cargo-deb --locked), xvfb, xdotool and imagemagick.
set -euo pipefail
cd "$(dirname "$0")/.."

# Where Run is in the 1280×800 window, relative to it: read off a screenshot of the first start
# with ORGQL_NO_KEYRING=1 (the first tab's Run button, above the query, right of the Explorer,
# below the "No OS keyring" notice). If a change to the layout moves it, the step says so, keeps
# a screenshot, and presses Run's shortcut (Ctrl+Enter) instead, so that the package is still
# checked; update these then.
RUN_X=${RUN_X:-385}
RUN_Y=${RUN_Y:-91}
# Fewer colours than this is a blank window (the first frame has about two thousand).
MIN_COLOURS=256

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
keep="$target_dir/deb-smoke"
mkdir -p "$keep"

step_started=$(date +%s)
if [ -z "${DEB:-}" ]; then
    build_started=$(date +%s)
    # cargo-deb prints the path of the package it made last.
    DEB=$(cargo deb --locked | tail -n 1)
    echo "deb-smoke: built $DEB in $(($(date +%s) - build_started)) s"
fi
[ -f "$DEB" ] || { echo "deb-smoke: no package at '$DEB'" >&2; exit 1; }

work=$(mktemp -d)
xvfb='' app=''
cleanup() {
    set +e # every step of the cleanup, whatever the one before did
    for pid in $app $xvfb; do
        kill "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
    done
    if dpkg-query -W -f='${Status}' orgql 2>/dev/null | grep -q "install ok installed"; then
        "${as_root[@]}" dpkg -r orgql > /dev/null && echo "deb-smoke: removed the package"
    fi
    rm -rf "$work"
}
trap cleanup EXIT

echo "deb-smoke: installing $DEB"
if ! "${as_root[@]}" dpkg -i "$DEB" > "$work/dpkg.log" 2>&1; then
    # Missing run-time libraries: let apt bring them, which also finishes the installation.
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq --no-install-recommends
fi
dpkg -L orgql | grep -E '^/usr/(bin/orgql|share/applications/orgql.desktop|share/icons/hicolor/(256x256|scalable)/apps/orgql\.(png|svg))$'

entry=/usr/share/applications/orgql.desktop
exec_line=$(sed -n 's/^Exec=//p' "$entry" | head -n 1)
# Field codes (%f, %u, …) stand for files a launcher passes; none are passed here.
exec_line=$(echo "$exec_line" | sed -E 's/ ?%[fFuUdDnNickvm]//g')
echo "deb-smoke: the desktop entry runs '$exec_line'"

Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3> "$work/display" 2> "$work/xvfb.log" &
xvfb=$!
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { cat "$work/xvfb.log" >&2; echo "deb-smoke: Xvfb did not start" >&2; exit 1; }
display=":$(cat "$work/display")"

# As a launcher would: the system PATH (so the installed binary, not a build), a fresh home.
home="$work/home"
mkdir -p "$home"
env -i PATH=/usr/local/bin:/usr/bin:/bin DISPLAY="$display" HOME="$home" ORGQL_NO_KEYRING=1 \
    sh -c "exec $exec_line" > "$work/app.out" 2> "$work/app.err" &
app=$!
fail() {
    echo "deb-smoke: $*" >&2
    echo "--- the app's stderr:" >&2
    cat "$work/app.err" >&2
    exit 1
}
for _ in $(seq 300); do
    window=$(DISPLAY="$display" xdotool search --onlyvisible --class '^orgql$' 2> /dev/null | head -n 1) || true
    [ -n "$window" ] && break
    kill -0 "$app" 2> /dev/null || fail "the app ended before its window showed"
    sleep 0.2
done
[ -n "$window" ] || fail "no window of class orgql (StartupWMClass) within 60 s"
[ "$(readlink "/proc/$app/exe")" = /usr/bin/orgql ] || fail "the running program is $(readlink "/proc/$app/exe"), not /usr/bin/orgql"
echo "deb-smoke: window $window: '$(DISPLAY="$display" xdotool getwindowname "$window")'"

# A few frames for the sandbox to start and the first tab to be drawn, then Run.
sleep 2
database="$home/.local/share/orgql/orgql.sqlite3"
# The last run query in the app's history: "profile / outcome", or nothing yet.
last_run() { python3 packaging/last-run.py "$database" 2> /dev/null || true; }
# Waits up to $1 seconds for a run in the history.
wait_for_run() {
    for _ in $(seq $(($1 * 5))); do
        outcome=$(last_run)
        [ -n "$outcome" ] && return 0
        kill -0 "$app" 2> /dev/null || fail "the app ended after the click"
        sleep 0.2
    done
    return 1
}
DISPLAY="$display" xdotool mousemove --window "$window" "$RUN_X" "$RUN_Y" click 1
outcome=''
if ! wait_for_run 20; then
    missed="$keep/orgql-deb-run-missed.png"
    import -display "$display" -window root "$missed"
    echo "deb-smoke: WARNING: clicking ($RUN_X, $RUN_Y) ran nothing: Run has moved (see $missed); update RUN_X/RUN_Y in packaging/deb-smoke.sh. Pressing Ctrl+Enter instead." >&2
    DISPLAY="$display" xdotool windowfocus --sync "$window" key ctrl+Return
    wait_for_run 30 || fail "neither the click nor Ctrl+Enter ran the sample query"
fi
echo "deb-smoke: the sample query ran: $outcome"
case "$outcome" in "Sandbox / 200"*) ;; *) fail "the sample query did not answer 200 from the sandbox" ;; esac
sleep 2 # the rows drawn

shot="$keep/orgql-deb-window.png"
import -display "$display" -window root "$shot"
colours=$(identify -format %k "$shot")
[ "$colours" -ge "$MIN_COLOURS" ] || fail "the window looks blank: $colours colours ($shot)"
kill -0 "$app" 2> /dev/null || fail "the app ended while on screen"
# Started from a menu there is no terminal: the app keeps its log where --help says.
log="$home/.local/state/orgql/orgql.log"
grep -q "orgql started" "$log" 2> /dev/null || fail "the app wrote no log to $log"
echo "deb-smoke: screenshot of the installed app after Run ($colours colours): $shot"
echo "deb-smoke: done in $(($(date +%s) - step_started)) s"
