#!/usr/bin/env bash
# A scheduled delivery against `orgql export` of the same document (issue 53): one
# `orgql sandbox --users N` (10,000 by default), one profile, two schedules of the same document
# (50 users a page, the spec's cap) — one to a folder, one to an OpenSSH server this script starts
# on a free 127.0.0.1 port with its own host and client keys — then `orgql schedule run` of each,
# paired run by run with `orgql export` of that document to a file (farm-bench --vs: the whole
# process, its start and its store included; the ratio taken pair by pair). A delivery does what
# the export does, then copies the finished file into place (or uploads it) under a temporary
# name and renames it, and records the run: the ratio is that cost.
#
#   cargo build --release && bash benches/schedule-delivery.sh
#   USERS=10000 RUNS=7 ORGQL_BIN=/path/to/orgql bash benches/schedule-delivery.sh
#
# Needs farm-bench (the tool library's), openssh-server (/usr/sbin/sshd) and ssh-keygen; without
# sshd the SFTP pair is skipped with a note. Everything runs in a HOME of its own under a
# temporary folder, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${ORGQL_BIN:-${CARGO_TARGET_DIR:-target}/release/orgql}")
users=${USERS:-10000}
runs=${RUNS:-7}
[ -x "$bin" ] || { echo "no $bin: cargo build --release first (or set ORGQL_BIN)" >&2; exit 2; }
command -v farm-bench > /dev/null || { echo "farm-bench is not on the PATH (the tool library's)" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/home" "$work/config" "$work/data" "$work/folder" "$work/remote"
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
export ORGQL_NO_KEYRING=1 ORGQL_CLIENT_SECRET=sandbox-secret

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { # $1 port
    for _ in $(seq 1 200); do
        (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null && return 0
        sleep 0.05
    done
    echo "nothing listened on port $1" >&2
    return 1
}

port=$(free_port)
"$bin" sandbox --listen "127.0.0.1:$port" --users "$users" > "$work/sandbox.log" 2>&1 &
pids+=($!)
wait_port "$port"
"$bin" profile add bench --base-url "http://127.0.0.1:$port" --client-id sandbox-admin --scope users.read \
    < /dev/null > /dev/null 2>&1
document='{ paginatedUsers(first: 50) { edges { node { ref name email isActive } } } }'
"$bin" schedule add to-folder --profile bench -e "$document" --every "mon 07:00" --to "$work/folder/" \
    --no-register > /dev/null
export_cmd="$bin export --profile bench -e '$document' --out $work/export.csv"

echo "== $users users: a delivery to a folder (A) against orgql export of the same document (B)"
farm-bench -n "$runs" --timeout 900 --vs "sh -c \"exec $export_cmd\"" -- "$bin" schedule run to-folder
cmp "$work/export.csv" "$(ls -t "$work/folder"/to-folder-*.csv | head -n 1)" && echo "the delivery equals the export byte for byte"

if [ ! -x /usr/sbin/sshd ]; then
    echo "skipped: no /usr/sbin/sshd for the SFTP pair (install openssh-server)"
    exit 0
fi
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/client_key"
cp "$work/client_key.pub" "$work/authorized_keys"
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
ssh_port=$(free_port)
cat > "$work/sshd_config" << EOF
Port $ssh_port
ListenAddress 127.0.0.1
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PidFile $work/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
Subsystem sftp internal-sftp
EOF
/usr/sbin/sshd -D -e -f "$work/sshd_config" 2> "$work/sshd.log" &
pids+=($!)
wait_port "$ssh_port"
fingerprint=$(ssh-keygen -E sha256 -lf "$work/host_key.pub" | awk '{ print $2 }')
"$bin" schedule add to-sftp --profile bench -e "$document" --every "mon 07:00" \
    --to "sftp://$(id -un)@127.0.0.1:$ssh_port$work/remote/" --ssh-key "$work/client_key" \
    --accept-host-key "$fingerprint" --no-register > /dev/null

echo "== $users users: a delivery to SFTP on 127.0.0.1 (A) against orgql export of the same document (B)"
farm-bench -n "$runs" --timeout 900 --vs "sh -c \"exec $export_cmd\"" -- "$bin" schedule run to-sftp
cmp "$work/export.csv" "$(ls -t "$work/remote"/to-sftp-*.csv | head -n 1)" && echo "the SFTP delivery equals the export byte for byte"
