#!/usr/bin/env python3
"""The obvious alternative to `orgql export`: a short script with requests and the csv module.

Usage: ORGQL_CLIENT_SECRET=sandbox-secret python3 benches/export_baseline.py BASE_URL OUT.csv
Exports every user (ref, name, email, isActive, groups.name) page by page, as orgql does.
"""
import csv
import os
import sys

import requests

QUERY = """query($after: String) { paginatedUsers(first: 50, after: $after) {
  pageInfo { hasNextPage endCursor } edges { node { ref name email isActive groups { name } } } } }"""


def main() -> None:
    base, out = sys.argv[1].rstrip("/"), sys.argv[2]
    session = requests.Session()
    token = session.post(
        f"{base}/oauth/token/",
        data={
            "grant_type": "client_credentials",
            "client_id": "sandbox-reader",
            "client_secret": os.environ["ORGQL_CLIENT_SECRET"],
            "scope": "users.read",
        },
    ).json()["access_token"]
    session.headers["Authorization"] = f"Bearer {token}"
    after = None
    rows = 0
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["ref", "name", "email", "isActive", "groups.name"])
        while True:
            body = session.post(f"{base}/graphql/", json={"query": QUERY, "variables": {"after": after}}).json()
            conn = body["data"]["paginatedUsers"]
            for edge in conn["edges"]:
                n = edge["node"]
                writer.writerow([n["ref"], n["name"], n["email"], str(n["isActive"]).lower(),
                                 "; ".join(g["name"] for g in n["groups"])])
                rows += 1
            if not conn["pageInfo"]["hasNextPage"]:
                break
            after = conn["pageInfo"]["endCursor"]
    print(f"wrote {rows} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
