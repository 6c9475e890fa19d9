"""The Windows smoke test's sandbox (`orgql.exe sandbox` under Wine) serves plain HTTP only.

packaging/windows/smoke.sh asks for `https://orgql.test:PORT` through mitmproxy, which inspects each
request as a company's TLS inspection does (its certificate re-signed by the test's own root, the one
the smoke test adds to Wine's certificate store); once inspected, the request goes on to the sandbox at
127.0.0.1:PORT over plain HTTP. Each request is logged as `inspected METHOD URL`, so the test can count
what went through. Start mitmdump with `--set connection_strategy=lazy` (no TLS connection to the
sandbox at CONNECT time).
"""

import logging


def request(flow):
    if flow.request.host == "orgql.test" and flow.request.scheme == "https":
        logging.info("inspected %s %s", flow.request.method, flow.request.pretty_url)
        flow.request.scheme = "http"
        flow.request.host = "127.0.0.1"
