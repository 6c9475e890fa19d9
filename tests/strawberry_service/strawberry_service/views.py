"""The GraphQL endpoint (Strawberry's Django view) behind django-oauth-toolkit's scoped protected
resource, as the graphene-django service has it: a missing or invalid token is 401, a token
without the operation's scope (`users.read` to read, `users.write` to change) 403 with an empty
body and `WWW-Authenticate: Bearer error="insufficient_scope"`."""

import json

from graphql import OperationDefinitionNode, OperationType, parse
from oauth2_provider.views.mixins import (
    ProtectedResourceMetadataMixin,
    ProtectedResourceMixin,
    ScopedResourceMixin,
)
from strawberry.django.views import GraphQLView

from .schema import schema

INTROSPECTION = {"__schema", "__type", "__typename"}


class ServiceView(ProtectedResourceMetadataMixin, ScopedResourceMixin, ProtectedResourceMixin, GraphQLView):
    required_scopes = []
    graphql_ide = None

    def __init__(self, **kwargs):
        super().__init__(schema=schema, **kwargs)

    def get_scopes(self, *args, **kwargs):
        try:
            body = json.loads(self.request.body or b"{}")
            document = parse(body.get("query") or "")
        except Exception:
            # Strawberry says what is wrong with the request.
            return []
        scopes = set()
        for definition in document.definitions:
            if not isinstance(definition, OperationDefinitionNode):
                continue
            names = {s.name.value for s in definition.selection_set.selections if hasattr(s, "name")}
            if definition.operation == OperationType.MUTATION:
                scopes.add("users.write")
            elif names - INTROSPECTION:
                scopes.add("users.read")
        return sorted(scopes)

    def dispatch(self, request, *args, **kwargs):
        self.request = request
        return super().dispatch(request, *args, **kwargs)
