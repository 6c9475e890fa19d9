"""The GraphQL schema in graphene-django's usual shapes: a relay node type with a countable,
filtered connection capped at 50, a look-up by ref, form mutations (the whole record, named by
its relay id; a field left out is cleared) and a plain archive mutation."""

import os

import graphene
from django import forms
from graphene import relay
from graphene_django import DjangoObjectType
from graphene_django.filter import DjangoFilterConnectionField
from graphene_django.forms.mutation import DjangoModelFormMutation
from graphql import GraphQLError
from graphql_relay import from_global_id

from .models import Enrollment, Learner

# `serve.py --schema next`: the schema as a graphene service evolves it — a field added
# (`fullName`), the old one kept with graphene's `deprecation_reason` naming it, and a filter
# argument dropped (`email_Icontains`).
NEXT = os.environ.get("ORGQL_SERVICE_SCHEMA") == "next"


class CountableConnection(relay.Connection):
    """A relay connection with the total count, as most graphene services add it."""

    class Meta:
        abstract = True

    count = graphene.Int(required=True)

    def resolve_count(root, info):
        return root.length


class EnrollmentNode(DjangoObjectType):
    class Meta:
        model = Enrollment
        fields = ("id", "offer_name", "status")


class UserNode(DjangoObjectType):
    if NEXT:
        name = graphene.String(required=True, deprecation_reason="Use `fullName`.")
        full_name = graphene.String(required=True, description="The learner's full name.")

        def resolve_full_name(root, info):
            return root.name

    class Meta:
        model = Learner
        fields = ("id", "ref", "name", "email", "is_active", "department", "enrollments", "revision")
        interfaces = (relay.Node,)
        connection_class = CountableConnection
        filter_fields = {
            "ref": ["exact"],
            "email": ["exact"] if NEXT else ["exact", "icontains"],
            "name": ["icontains"],
        }


class KeptCharField(forms.CharField):
    """A text field that keeps null and "" apart (Django's CharField folds both into one)."""

    def to_python(self, value):
        if value is None:
            return None
        return str(value)


# `serve.py --empty-as-null`: department is the form field Django makes of a CharField(null=True),
# which stores a cleared value ("") as null, as most such services do.
EMPTY_AS_NULL = os.environ.get("ORGQL_SERVICE_EMPTY_AS_NULL") == "1"


class UserForm(forms.ModelForm):
    if not EMPTY_AS_NULL:
        department = KeptCharField(required=False, max_length=100)

    class Meta:
        model = Learner
        fields = ("ref", "name", "email", "is_active", "department")


class CreateUser(DjangoModelFormMutation):
    class Meta:
        form_class = UserForm
        return_field_name = "user"


class UpdateUser(DjangoModelFormMutation):
    """The same form, naming the record by its relay global id (a field left out is cleared)."""

    class Meta:
        form_class = UserForm
        return_field_name = "user"

    @classmethod
    def get_form_kwargs(cls, root, info, **input):
        kwargs = {"data": input}
        global_id = input.pop("id", None)
        if global_id:
            _type, pk = from_global_id(global_id)
            try:
                kwargs["instance"] = Learner.objects.get(pk=pk)
            except (Learner.DoesNotExist, ValueError):
                raise GraphQLError(f"No user has the id {global_id}.")
        return kwargs


class ArchiveUser(graphene.Mutation):
    class Arguments:
        ref = graphene.String(required=True)

    ok = graphene.Boolean()
    user = graphene.Field(UserNode)

    def mutate(root, info, ref):
        try:
            learner = Learner.objects.get(ref=ref)
        except Learner.DoesNotExist:
            raise GraphQLError("Learner matching query does not exist.")
        learner.is_active = False
        learner.save(update_fields=["is_active"])
        return ArchiveUser(ok=True, user=learner)


class Query(graphene.ObjectType):
    node = relay.Node.Field()
    user = graphene.Field(UserNode, ref=graphene.String(required=True))
    paginated_users = DjangoFilterConnectionField(UserNode)

    def resolve_user(root, info, ref):
        try:
            return Learner.objects.get(ref=ref)
        except Learner.DoesNotExist:
            raise GraphQLError("Learner matching query does not exist.")


class Mutation(graphene.ObjectType):
    create_user = CreateUser.Field()
    update_user = UpdateUser.Field()
    archive_user = ArchiveUser.Field()


schema = graphene.Schema(query=Query, mutation=Mutation)
