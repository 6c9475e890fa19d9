"""The GraphQL schema in strawberry-graphql-django's documented shapes: a relay `Node` type with
a global `id`, a connection with the total count (`count`, as the spec has it) filtered through
a lookups input (`filters: {email: {exact: …}}`, `iExact`, `iContains`, …), a look-up by ref,
and mutations made by `strawberry_django.mutations` with `handle_django_errors=True`: each
answers a union of the user and `OperationInfo { messages { kind message field code } }` (a
model's `full_clean` refusal is data, not a GraphQL error). `updateUser` takes a **partial**
input named by its required relay `id: ID!`: what is sent changes, what is left out stays, and
`null` clears a field that takes null."""

import os

import strawberry
import strawberry_django
from graphql import GraphQLError
from strawberry import auto, relay
from strawberry_django import mutations
from strawberry_django.relay import DjangoListConnection

from orgql_service.models import Enrollment, Learner

# `serve.py --schema next`: the schema a release later — `fullName` added, `name` deprecated
# for it (Strawberry's `deprecation_reason`).
NEXT = os.environ.get("ORGQL_SERVICE_SCHEMA") == "next"
MAX_PAGE = 50


@strawberry_django.filter_type(Learner, lookups=True)
class UserFilter:
    ref: auto
    email: auto
    name: auto


@strawberry_django.type(Enrollment)
class EnrollmentType:
    id: auto
    offer_name: auto
    status: auto


@strawberry_django.type(Learner, filters=UserFilter)
class User(relay.Node):
    ref: auto
    if NEXT:
        name: str = strawberry_django.field(deprecation_reason="Use `fullName`.")

        @strawberry_django.field(description="The learner's full name.")
        def full_name(self) -> str:
            return self.name

    else:
        name: auto
    email: auto
    is_active: auto
    department: auto
    revision: auto
    enrollments: list[EnrollmentType]


@strawberry.type(name="CountableConnection")
class CountableConnection(DjangoListConnection[relay.NodeType]):
    """A relay connection with the total count under the spec's name."""

    @strawberry.field(description="Total quantity of existing nodes.")
    def count(self) -> int:
        return self.total_count() or 0


@strawberry_django.input(Learner)
class UserInput:
    ref: auto
    name: auto
    email: auto
    is_active: auto
    department: auto


@strawberry_django.partial(Learner)
class UserPartialInput(strawberry_django.NodeInput):
    ref: auto
    name: auto
    email: auto
    is_active: auto
    department: auto


@strawberry.type
class Query:
    node: relay.Node = relay.node()
    paginated_users: CountableConnection[User] = strawberry_django.connection(max_results=MAX_PAGE)

    @strawberry_django.field
    def user(self, ref: str) -> User | None:
        try:
            return Learner.objects.get(ref=ref)
        except Learner.DoesNotExist:
            raise GraphQLError("Learner matching query does not exist.")


@strawberry.type
class Mutation:
    create_user: User = mutations.create(UserInput, handle_django_errors=True)
    update_user: User = mutations.update(UserPartialInput, handle_django_errors=True)

    @strawberry_django.mutation(handle_django_errors=True)
    def archive_user(self, ref: str) -> User:
        learner = Learner.objects.get(ref=ref)
        learner.is_active = False
        learner.save(update_fields=["is_active"])
        return learner


schema = strawberry.Schema(query=Query, mutation=Mutation)
