"""The GraphQL endpoint behind django-oauth-toolkit's scoped protected resource: a missing or
invalid token is 401, a token without the operation's scope 403 with an empty body and
`WWW-Authenticate: Bearer error="insufficient_scope"` (and `scope="…"` only where the service
adds it: ORGQL_SERVICE_SCOPE_IN_CHALLENGE=1)."""

import json

from django.conf import settings
from graphene_django.views import GraphQLView
from graphql import OperationDefinitionNode, OperationType, parse
from oauth2_provider.views.mixins import (
    ProtectedResourceMetadataMixin,
    ProtectedResourceMixin,
    ScopedResourceMixin,
)

INTROSPECTION = {"__schema", "__type", "__typename"}


class ServiceView(ProtectedResourceMetadataMixin, ScopedResourceMixin, ProtectedResourceMixin, GraphQLView):
    required_scopes = []

    def get_scopes(self, *args, **kwargs):
        try:
            body = json.loads(self.request.body or b"{}")
            document = parse(body.get("query") or "")
        except Exception:
            # GraphQLView says what is wrong with the request.
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

    def unauthenticated_response(self, request, oauthlib_request=None):
        response = super().unauthenticated_response(request, oauthlib_request)
        error = getattr(oauthlib_request, "oauth2_error", None) or {}
        if settings.SCOPE_IN_CHALLENGE and error.get("error") == "insufficient_scope":
            response["WWW-Authenticate"] += ',scope="{}"'.format(" ".join(self.get_scopes()))
        return response
