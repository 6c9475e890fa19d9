# Sourced by the bench scripts that run the app under Xvfb (app-startup, fetch-all-memory,
# memory-split, symbol-order): `start_xvfb` starts Xvfb on a display it picks itself (its number
# written to fd 3) and sets $xvfb (its pid) and $display (":N"). Needs $work, a temporary folder.
start_xvfb() {
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3> "$work/display" 2> "$work/xvfb.log" &
  xvfb=$!
  for _ in $(seq 50); do [ -s "$work/display" ] && break; sleep 0.1; done
  [ -s "$work/display" ] || { cat "$work/xvfb.log" >&2; echo "Xvfb did not start" >&2; exit 1; }
  display=":$(cat "$work/display")"
}
