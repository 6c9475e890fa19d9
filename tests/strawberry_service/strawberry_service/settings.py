"""Settings of orgql's Strawberry-Django test service: Django + django-oauth-toolkit +
strawberry-graphql-django. The data model (`orgql_service`: learners and enrollments, with
migrations) is the graphene-django service's own, so both services hold the same data.
Everything that varies per run comes from the environment (serve.py sets it)."""

import os

SECRET_KEY = "orgql-strawberry-service-not-secret"
# DEBUG off: APPEND_SLASH then answers a POST without its trailing slash with 301, as the spec says.
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
USE_TZ = True
ROOT_URLCONF = "strawberry_service.urls"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "oauth2_provider",
    "strawberry_django",
    "orgql_service",
]
MIDDLEWARE = [
    "django.middleware.common.CommonMiddleware",
]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ["ORGQL_SERVICE_DB"],
        # Strawberry-Django's mutations run in `transaction.atomic()`: a read, then a write.
        # IMMEDIATE takes the write lock at BEGIN (Django 5.1+), so that concurrent requests
        # wait their turn instead of failing with "database is locked".
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"},
    }
}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

OAUTH2_PROVIDER = {
    "SCOPES": {
        "users.read": "view user profiles, roles, groups, extra fields",
        "users.write": "create, update, archive users",
    },
    "DEFAULT_SCOPES": ["users.read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("ORGQL_SERVICE_TOKEN_TTL", "86400")),
}

LOGGING = {"version": 1, "disable_existing_loggers": True}
