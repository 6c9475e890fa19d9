"""Runs orgql's Strawberry-Django test service: migrates a fresh SQLite file, seeds the same
learners and OAuth client as the graphene-django service (its `seed`), and serves on 127.0.0.1
with waitress until stopped. Prints one line with its base URL first.

    python serve.py --db /tmp/x.sqlite3 [--users 200] [--listen 127.0.0.1:0] [--schema current|next]
"""

import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The data model, its migrations and its seed are the graphene-django service's.
GRAPHENE = os.path.join(os.path.dirname(HERE), "django_service")


def graphene_seed():
    spec = importlib.util.spec_from_file_location("graphene_serve", os.path.join(GRAPHENE, "serve.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.seed


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--secret", default="test-secret")
    parser.add_argument("--token-ttl", type=int, default=86400)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument(
        "--schema",
        choices=("current", "next"),
        default="current",
        help="next: User.fullName added, User.name deprecated for it",
    )
    args = parser.parse_args()
    os.environ["ORGQL_SERVICE_SCHEMA"] = args.schema
    os.environ["ORGQL_SERVICE_DB"] = args.db
    os.environ["ORGQL_SERVICE_TOKEN_TTL"] = str(args.token_ttl)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "strawberry_service.settings")
    sys.path[:0] = [HERE, GRAPHENE]

    import django
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from waitress.server import create_server

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    graphene_seed()(args.users, args.secret)
    host, port = args.listen.rsplit(":", 1)
    server = create_server(get_wsgi_application(), host=host, port=int(port), threads=args.threads)
    print(f"orgql strawberry service at http://{host}:{server.effective_port} client_id=orgql-admin", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
