#!/usr/bin/env python3
# Memory of a server under 800 unfinished 1 MiB bodies from 50 loopback addresses (issue 23):
#   orgql sandbox --listen 127.0.0.1:18080 & python3 benches/flood-memory.py sandbox 18080 $!
#   orgql webhooks listen --listen 127.0.0.1:19000 --store /tmp/s.sqlite3 & python3 benches/flood-memory.py listener 19000 $!
# Prints the process's VmRSS and VmHWM 3 s after the flood is sent (Linux).
import socket, sys, time, subprocess, os
kind, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
path = "/graphql/" if kind == "sandbox" else "/hooks"
socks = []
body = b"a" * (1024 * 1024 - 1)
for i in range(800):
    src = "127.0.0.%d" % (1 + i % 50)
    s = socket.socket(); s.setblocking(True)
    s.bind((src, 0)); s.connect(("127.0.0.1", port))
    s.sendall(b"POST %s HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1048576\r\n\r\n" % path.encode())
    s.setblocking(False)
    try:
        s.send(body)
    except BlockingIOError:
        pass
    socks.append(s)
time.sleep(3)
rss = [l for l in open("/proc/%d/status" % pid) if l.startswith(("VmRSS", "VmHWM"))]
print(kind, "800 unfinished 1 MiB bodies from 50 addresses:", " ".join(x.split(":")[0] + "=" + x.split(":")[1].strip() for x in rss))
