"""Runs orgql's test service: migrates a fresh SQLite file, seeds learners and an OAuth client,
and serves on 127.0.0.1 until stopped. Prints one line with its base URL first.

    python serve.py --db /tmp/x.sqlite3 [--users 200] [--listen 127.0.0.1:0] [--scope-in-challenge]
                    [--schema current|next]
"""

import argparse
import os
import socketserver
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = [
    "Ada Lovelace",
    "Grace O'Hopper",
    'Alan "the" Turing',
    "Smith, Joan",
    "Zoë Ångström",
    "Иван Петров",
    "李小龙",
    "Emoji 🚀 Person",
    "=Formula Person",
    "Line\nBreak",
]
DEPARTMENTS = [None, "", "Sales", "Engineering", "HR", "Operations"]
OFFERS = ["Onboarding", "Safety at work", "Leadership basics", "Excel for HR"]
STATUSES = ["ENROLLED", "COMPLETED", "CANCELLED"]


class ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def seed(users, secret):
    from oauth2_provider.models import Application

    from orgql_service.models import Enrollment, Learner

    if Learner.objects.exists():
        return
    learners = []
    for i in range(1, users + 1):
        learners.append(
            Learner(
                ref=f"u{i:05}",
                name=f"{NAMES[i % len(NAMES)]} {i}",
                email=f"u{i:05}@example.org",
                is_active=i % 10 != 0,
                department=DEPARTMENTS[i % len(DEPARTMENTS)],
            )
        )
    Learner.objects.bulk_create(learners, batch_size=500)
    enrollments = []
    for learner in Learner.objects.all():
        enrollments.append(
            Enrollment(
                learner=learner,
                offer_name=OFFERS[learner.id % len(OFFERS)],
                status=STATUSES[learner.id % len(STATUSES)],
            )
        )
    Enrollment.objects.bulk_create(enrollments, batch_size=500)
    Application.objects.create(
        name="orgql tests",
        client_id="orgql-admin",
        client_secret=secret,
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--secret", default="test-secret")
    parser.add_argument("--token-ttl", type=int, default=86400)
    parser.add_argument("--scope-in-challenge", action="store_true")
    parser.add_argument(
        "--empty-as-null",
        action="store_true",
        help="department as Django's own form field of a CharField(null=True): a cleared value is stored as null",
    )
    parser.add_argument(
        "--schema",
        choices=("current", "next"),
        default="current",
        help="next: UserNode.fullName added, UserNode.name deprecated for it, email_Icontains removed",
    )
    args = parser.parse_args()
    os.environ["ORGQL_SERVICE_SCHEMA"] = args.schema
    os.environ["ORGQL_SERVICE_DB"] = args.db
    os.environ["ORGQL_SERVICE_TOKEN_TTL"] = str(args.token_ttl)
    if args.scope_in_challenge:
        os.environ["ORGQL_SERVICE_SCOPE_IN_CHALLENGE"] = "1"
    if args.empty_as_null:
        os.environ["ORGQL_SERVICE_EMPTY_AS_NULL"] = "1"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "orgql_service.settings")
    sys.path.insert(0, HERE)

    import django
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    seed(args.users, args.secret)
    host, port = args.listen.rsplit(":", 1)
    server = make_server(host, int(port), get_wsgi_application(), ThreadingServer, QuietHandler)
    print(f"orgql test service at http://{host}:{server.server_port} client_id=orgql-admin", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
