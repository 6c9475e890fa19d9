"""Settings of orgql's test service: Django + django-oauth-toolkit + graphene-django in their
usual shapes. Everything that varies per run comes from the environment (serve.py sets it)."""

import os

BASE_DIR = os.path.dirname(os.path.abspath(__file__))
SECRET_KEY = "orgql-test-service-not-secret"
# DEBUG off: APPEND_SLASH then answers a POST without its trailing slash with 301, as the spec says.
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
USE_TZ = True
ROOT_URLCONF = "orgql_service.urls"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "oauth2_provider",
    "graphene_django",
    "django_filters",
    "orgql_service",
]
MIDDLEWARE = [
    "django.middleware.common.CommonMiddleware",
]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("ORGQL_SERVICE_DB", os.path.join(BASE_DIR, "service.sqlite3")),
        "OPTIONS": {"timeout": 30},
    }
}
# Client secrets are hashed by django-oauth-toolkit; a fast hasher keeps token requests cheap
# in tests (Django's own advice for test settings).
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

OAUTH2_PROVIDER = {
    "SCOPES": {
        "users.read": "view user profiles, roles, groups, extra fields",
        "users.write": "create, update, archive users",
        "trainings.read": "view learning journeys, modules, progress",
        "trainings.write": "create, update, archive trainings",
        "groups.read": "view groups, members, managers",
        "groups.write": "create, update, delete groups and memberships",
        "events.read": "view module groups, offers, enrollments",
        "events.write": "create, update, manage offers and enrollments",
        "extra_categories.write": "create and update custom categorization fields",
    },
    "DEFAULT_SCOPES": ["users.read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("ORGQL_SERVICE_TOKEN_TTL", "86400")),
}

GRAPHENE = {
    "SCHEMA": "orgql_service.schema.schema",
    "RELAY_CONNECTION_MAX_LIMIT": 50,
}

# Whether a 403 for a missing scope names it in WWW-Authenticate (RFC 6750 allows it;
# django-oauth-toolkit's default leaves it out).
SCOPE_IN_CHALLENGE = os.environ.get("ORGQL_SERVICE_SCOPE_IN_CHALLENGE") == "1"

LOGGING = {"version": 1, "disable_existing_loggers": True}
