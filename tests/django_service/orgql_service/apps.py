from django.apps import AppConfig


class OrgqlServiceConfig(AppConfig):
    name = "orgql_service"
