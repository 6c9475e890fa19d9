"""Writes the test service's introspection, as graphene-django makes it, to
tests/django_service/introspection-graphene-django-3.2.3.json (committed: unit tests read it without
Python). Run with the venv's python: python introspect.py"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "orgql_service.settings")
os.environ.setdefault("ORGQL_SERVICE_DB", ":memory:")

import django  # noqa: E402

django.setup()
import graphene_django  # noqa: E402

from orgql_service.schema import schema  # noqa: E402

out = os.path.join(HERE, f"introspection-graphene-django-{graphene_django.__version__}.json")
with open(out, "w") as f:
    json.dump({"data": schema.introspect()}, f, indent=1, sort_keys=True)
    f.write("\n")
print(out)
