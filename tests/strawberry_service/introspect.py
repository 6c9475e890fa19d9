"""Writes the Strawberry-Django test service's introspection, as strawberry-graphql-django makes
it, to tests/fixtures/introspection/strawberry-django-<version>.json (committed: unit tests read
it without Python). Run with the venv's python: python introspect.py"""

import json
import os
import sys
from importlib.metadata import version

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "django_service")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "strawberry_service.settings")
os.environ.setdefault("ORGQL_SERVICE_DB", ":memory:")

import django  # noqa: E402

django.setup()
from graphql import get_introspection_query  # noqa: E402

from strawberry_service.schema import schema  # noqa: E402

query = get_introspection_query(descriptions=True, specified_by_url=True, input_value_deprecation=True)
result = schema.execute_sync(query)
assert not result.errors, result.errors
fixtures = os.path.join(os.path.dirname(HERE), "fixtures", "introspection")
out = os.path.join(fixtures, f"strawberry-django-{version('strawberry-graphql-django')}.json")
with open(out, "w") as f:
    json.dump({"data": result.data}, f, indent=1, sort_keys=True)
    f.write("\n")
print(out)
