"""Sends the tests' `orgql.test` to 127.0.0.1: the name never resolves (RFC 2606)."""


def server_connect(data):
    host, port = data.server.address
    if host == "orgql.test":
        data.server.address = ("127.0.0.1", port)
