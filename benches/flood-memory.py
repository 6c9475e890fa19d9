#!/usr/bin/env python3
# Memory of a server under 800 unfinished 1 MiB bodies (issues 23 and 31), and how long a request
# from the flood's own address waits for its answer:
#   orgql sandbox --listen 127.0.0.1:18080 & python3 benches/flood-memory.py sandbox 18080 $!
#   ORGQL_WEBHOOK_SECRET=whsec_... orgql webhooks listen --listen 127.0.0.1:19000 --store /tmp/s.sqlite3 &
#   ORGQL_WEBHOOK_SECRET=whsec_... python3 benches/flood-memory.py listener 19000 $!
# Default: the flood from 50 loopback addresses (issue 23). `--one-address`: all 800 from
# 127.0.0.1, and 1 s after the flood is sent a token request (sandbox) or a signed delivery
# (listener) from 127.0.0.1 too, timed (issue 31: answered within 1 s).
# Prints the process's VmRSS and VmHWM 3 s after the flood is sent (Linux).
import base64, hashlib, hmac, http.client, os, socket, sys, time

kind, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
one_address = "--one-address" in sys.argv[4:]
path = "/graphql/" if kind == "sandbox" else "/hooks"
socks = []
body = b"a" * (1024 * 1024 - 1)
for i in range(800):
    src = "127.0.0.1" if one_address else "127.0.0.%d" % (1 + i % 50)
    s = socket.socket(); s.setblocking(True)
    s.bind((src, 0)); s.connect(("127.0.0.1", port))
    s.sendall(b"POST %s HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1048576\r\n\r\n" % path.encode())
    s.setblocking(False)
    try:
        s.send(body)
    except BlockingIOError:
        pass
    socks.append(s)
sent = time.monotonic()


def timed_request():
    """A token request or a signed delivery from 127.0.0.1: (status, seconds)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=("127.0.0.1", 0))
    if kind == "sandbox":
        payload = b"grant_type=client_credentials&client_id=sandbox-admin&client_secret=sandbox-secret&scope=users.read"
        headers = {"content-type": "application/x-www-form-urlencoded"}
        target = "/oauth/token/"
    else:
        payload = b'{"type":"user.created","timestamp":"2026-11-26T00:00:00Z","data":{"ref":"u1"}}'
        secret = os.environ.get("ORGQL_WEBHOOK_SECRET", "")
        msg_id, ts = "msg_flood_bench", str(int(time.time()))
        headers = {"content-type": "application/json", "webhook-id": msg_id, "webhook-timestamp": ts}
        if secret.startswith("whsec_"):
            key = base64.b64decode(secret[len("whsec_"):])
            mac = hmac.new(key, b"%s.%s.%s" % (msg_id.encode(), ts.encode(), payload), hashlib.sha256).digest()
            headers["webhook-signature"] = "v1," + base64.b64encode(mac).decode()
        target = "/hooks/delivery"
    started = time.monotonic()
    conn.request("POST", target, body=payload, headers=headers)
    status = conn.getresponse().status
    return status, time.monotonic() - started


if one_address:
    time.sleep(max(0.0, 1.0 - (time.monotonic() - sent)))
    status, seconds = timed_request()
    what = "token request" if kind == "sandbox" else "signed delivery"
    print("%s %s from the flood's own address: %d in %.3f s" % (kind, what, status, seconds))
time.sleep(max(0.0, 3.0 - (time.monotonic() - sent)))
rss = [l for l in open("/proc/%d/status" % pid) if l.startswith(("VmRSS", "VmHWM"))]
where = "127.0.0.1" if one_address else "50 addresses"
print(kind, "800 unfinished 1 MiB bodies from %s:" % where, " ".join(x.split(":")[0] + "=" + x.split(":")[1].strip() for x in rss))
